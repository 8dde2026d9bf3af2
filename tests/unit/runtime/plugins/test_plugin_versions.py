"""Maven version ordering and range syntax for KIP-891 ``*.plugin.version`` keys."""

from __future__ import annotations

import pytest

from kconnect.runtime.plugins.versions import (
    ArtifactVersion,
    InvalidVersionSpecification,
    parse_version_range,
    version_requirement,
)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("1.0", "1.1"),
        ("1.9", "1.10"),
        ("4.1", "4.1.2"),
        ("1.0-alpha-1", "1.0-beta-1"),
        ("1.0-beta", "1.0-milestone"),
        ("1.0-rc1", "1.0-SNAPSHOT"),
        ("1.0-SNAPSHOT", "1.0"),
        ("1.0", "1.0-sp"),
        ("1.0-sp", "1.0-foo"),
        ("1.0-alpha", "1.0.1"),
    ],
)
def test_versions_order_as_maven(older: str, newer: str) -> None:
    assert ArtifactVersion(older) < ArtifactVersion(newer)
    assert ArtifactVersion(newer) > ArtifactVersion(older)


@pytest.mark.parametrize(
    ("a", "b"), [("1", "1.0"), ("1.0.0", "1"), ("1-ga", "1"), ("1a1", "1-alpha-1")]
)
def test_equal_versions(a: str, b: str) -> None:
    assert ArtifactVersion(a) == ArtifactVersion(b)
    assert str(ArtifactVersion(a)) == a  # shown as written


@pytest.mark.parametrize(
    ("spec", "inside", "outside", "shown"),
    [
        ("[1.0,2.0)", ["1.0", "1.5", "1.99"], ["0.9", "2.0", "2.1"], "[1.0,2.0)"),
        ("(,1.0]", ["0.1", "1.0"], ["1.0.1"], "(,1.0]"),
        ("(1.0,)", ["1.0.1", "99"], ["1.0", "0.5"], "(1.0,)"),
        ("[1.2]", ["1.2", "1.2.0"], ["1.2.1"], "[1.2,1.2]"),
        ("[1,2],[4,5)", ["1.5", "4.9"], ["3", "5"], "[1,2],[4,5)"),
    ],
)
def test_ranges(spec: str, inside: list[str], outside: list[str], shown: str) -> None:
    r = parse_version_range(spec)
    assert r.has_restrictions
    assert all(r.contains(v) for v in inside)
    assert not any(r.contains(v) for v in outside)
    assert str(r) == shown


def test_plain_version_is_soft_in_maven_and_exact_as_a_requirement() -> None:
    soft = parse_version_range("1.0")
    assert not soft.has_restrictions and soft.contains("7.0")  # any version allowed
    assert soft.match(["0.9", "1.0", "2.0"]) == "1.0"  # the recommended one is preferred
    assert soft.match(["0.9", "2.0"]) == "2.0"  # else the newest
    exact = version_requirement("1.0")
    assert exact is not None and str(exact) == "[1.0,1.0]"
    assert exact.contains("1.0") and not exact.contains("2.0")


def test_requirement_of_latest_and_none() -> None:
    assert version_requirement(None) is None
    assert version_requirement("latest") is None
    assert str(version_requirement(" [1,2) ")) == "[1,2)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("[1.0", "Unbounded range: [1.0"),
        ("(1.0)", "Single version must be surrounded by []: (1.0)"),
        ("[2.0,1.0]", "Range defies version ordering: [2.0,1.0]"),
        ("(1.0,1.0]", "Range defies version ordering: (1.0,1.0]"),
        ("[1,2],[1.5,3]", "Ranges overlap: [1,2],[1.5,3]"),
        ("[1,2]x", "Only fully-qualified sets allowed in multiple set scenario: [1,2]x"),
    ],
)
def test_invalid_specs(spec: str, message: str) -> None:
    with pytest.raises(InvalidVersionSpecification) as e:
        version_requirement(spec)
    assert str(e.value) == message
