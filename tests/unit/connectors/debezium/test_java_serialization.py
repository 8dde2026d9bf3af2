"""Debezium's serialized key arrays (an incremental snapshot's offsets) written and read exactly
as the JDK does: every array of ``java_serialized_keys.tsv`` (written by JDK 17)."""

from __future__ import annotations

import math
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from kconnect.connectors.debezium.common.java_serialization import (
    JavaInteger,
    JavaLong,
    JavaSerializationError,
    from_hex,
    to_hex,
)

VECTORS = Path(__file__).parents[3] / "fixtures" / "debezium" / "java_serialized_keys.tsv"
Int, Long = JavaInteger, JavaLong

# the arrays the JDK wrote, in the file's order
ARRAYS: list[list[object] | None] = [
    [Int(1)],
    [Int(1), Long(2)],
    ["abc"],
    [True],
    [1.5],
    [math.nan],
    [uuid.UUID("123e4567-e89b-12d3-a456-426614174000")],
    [Decimal("1.5")],
    [Decimal("-123456789012345678901234.000100")],
    [Decimal("0")],
    [Decimal("12"), Decimal("-0.5")],
    ["ü日本", Int(7), Long(8), False, None],
    [Int(-(2**31)), Long(2**63 - 1)],
    None,
]


def _vectors() -> list[tuple[str, str]]:
    lines = VECTORS.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines]  # type: ignore[misc]


def test_the_file_has_one_line_per_array() -> None:
    assert len(_vectors()) == len(ARRAYS)


@pytest.mark.parametrize("index", range(len(ARRAYS)))
def test_written_as_the_jdk_writes(index: int) -> None:
    assert to_hex(ARRAYS[index]) == _vectors()[index][1]


@pytest.mark.parametrize("index", range(len(ARRAYS)))
def test_read_back_with_the_java_types(index: int) -> None:
    read = from_hex(_vectors()[index][1])
    expected = ARRAYS[index]
    if expected is None:
        assert read is None
        return
    assert read is not None and len(read) == len(expected)
    for got, want in zip(read, expected, strict=True):
        assert type(got) is type(want)
        if isinstance(want, float) and math.isnan(want):
            assert isinstance(got, float) and math.isnan(got)
        elif isinstance(want, Decimal):
            assert str(got) == str(want)  # the scale too
        else:
            assert got == want


def test_upper_case_hex_is_read() -> None:
    assert from_hex(to_hex([Int(5)]).upper()) == [5]


def test_a_string_beyond_the_bmp_round_trips() -> None:
    assert from_hex(to_hex(["a\U0001f600\x00b"])) == ["a\U0001f600\x00b"]


def test_a_plain_int_is_refused_it_does_not_say_integer_or_long() -> None:
    with pytest.raises(TypeError, match="no Java class"):
        to_hex([5])


@pytest.mark.parametrize(
    ("text", "message"),
    [("zz", "not hexadecimal"), ("00", "no 0xACED0005 header"), ("aced0005", "ends early"),
     ("aced000574000161", "expected an Object")],
)  # fmt: skip
def test_bad_texts_are_refused(text: str, message: str) -> None:
    with pytest.raises(JavaSerializationError, match=message):
        from_hex(text)
