"""kconnect.local.maven: coordinates, the generated pom, Java detection, the cache."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kconnect.local import MissingToolError, maven

NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def test_kafka_version_is_a_4x_release() -> None:
    major, minor, patch = (int(x) for x in maven.KAFKA_VERSION.split("."))
    assert major == 4 and minor >= 1 and patch >= 0
    arts = maven.kafka_artifacts()
    assert f"org.apache.kafka:kafka_2.13:{maven.KAFKA_VERSION}" in arts


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "11.0.2+9"', 11),
        ("no version here", None),
    ],
)
def test_parse_java_major(output: str, major: int | None) -> None:
    assert maven.parse_java_major(output) == major


def test_render_pom_lists_every_dependency() -> None:
    pom = maven.render_pom(["g.a:art:1.0", "g.b:native:so:linux-x86_64:2.0"])
    root = ET.fromstring(pom)
    deps = root.findall("m:dependencies/m:dependency", NS)
    assert [d.findtext("m:artifactId", namespaces=NS) for d in deps] == ["art", "native"]
    assert deps[0].findtext("m:type", namespaces=NS) is None
    assert deps[1].findtext("m:type", namespaces=NS) == "so"
    assert deps[1].findtext("m:classifier", namespaces=NS) == "linux-x86_64"
    assert deps[1].findtext("m:version", namespaces=NS) == "2.0"
    assert root.findtext("m:packaging", namespaces=NS) == "pom"


@pytest.mark.parametrize("bad", ["just-a-name", "g:a", "g::1.0", "a:b:c:d:e:f"])
def test_bad_coordinates_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        maven.render_pom([bad])


def test_cache_key_depends_on_order_and_content() -> None:
    a = maven.cache_key(["x:y:1", "x:z:1"])
    assert a == maven.cache_key(["x:y:1", "x:z:1"])
    assert a != maven.cache_key(["x:z:1", "x:y:1"])
    assert a != maven.cache_key(["x:y:2", "x:z:1"])


def test_cached_classpath_is_returned_without_maven(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no mvn, no java
    monkeypatch.delenv("MAVEN_HOME", raising=False)
    monkeypatch.delenv("M2_HOME", raising=False)
    artifacts = ["org.example:thing:1.0"]
    directory = maven.classpath_dir(artifacts)
    (directory / "lib").mkdir(parents=True)
    for name in ("thing-1.0.jar", "dep-2.jar"):
        (directory / "lib" / name).write_bytes(b"PK")
    (directory / "classpath.txt").write_text("thing-1.0.jar\ndep-2.jar\n")

    cp = maven.resolve_classpath(artifacts)
    assert [p.name for p in cp] == ["thing-1.0.jar", "dep-2.jar"]
    assert all(p.is_file() for p in cp)


def test_incomplete_cache_needs_maven_and_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("MAVEN_HOME", raising=False)
    monkeypatch.delenv("M2_HOME", raising=False)
    artifacts = ["org.example:thing:1.0"]
    directory = maven.classpath_dir(artifacts)
    directory.mkdir(parents=True)
    (directory / "classpath.txt").write_text("missing.jar\n")
    with pytest.raises(MissingToolError, match="apt-get install maven"):
        maven.resolve_classpath(artifacts)


def test_missing_java_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert maven.java_executable() is None
    assert not maven.java_available()
    with pytest.raises(MissingToolError, match=r"Java 17\+ is needed: apt-get install openjdk-17"):
        maven.require_java()


def test_missing_java_skips_locally_but_fails_under_ci(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from kconnect.local import maven
    from kconnect.testing.services import require_java

    monkeypatch.setattr(maven, "java_available", lambda: False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        require_java()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run"):
        require_java()
