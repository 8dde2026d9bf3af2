"""Number and boolean converters: Kafka serializer bytes, schemas, errors, batch round trips."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kconnect.api import DataException, Schema, SchemaAndValue
from kconnect.converters.number_converters import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
)


def make(cls: type, is_key: bool = False):  # type: ignore[no-untyped-def]
    c = cls()
    c.configure({}, is_key)
    return c


@pytest.mark.parametrize(
    ("cls", "value", "wire", "schema"),
    [
        (ShortConverter, -2, b"\xff\xfe", Schema.OPTIONAL_INT16_SCHEMA),
        (IntegerConverter, 258, b"\x00\x00\x01\x02", Schema.OPTIONAL_INT32_SCHEMA),
        (LongConverter, -1, b"\xff" * 8, Schema.OPTIONAL_INT64_SCHEMA),
        (FloatConverter, 1.5, b"\x3f\xc0\x00\x00", Schema.OPTIONAL_FLOAT32_SCHEMA),
        (DoubleConverter, 1.5, b"\x3f\xf8" + b"\x00" * 6, Schema.OPTIONAL_FLOAT64_SCHEMA),
        (BooleanConverter, True, b"\x01", Schema.OPTIONAL_BOOLEAN_SCHEMA),
        (BooleanConverter, False, b"\x00", Schema.OPTIONAL_BOOLEAN_SCHEMA),
    ],
)
def test_kafka_serializer_bytes(cls: type, value: object, wire: bytes, schema: Schema) -> None:
    c = make(cls)
    assert c.from_connect_data("t", None, value) == wire
    assert c.to_connect_data("t", wire) == SchemaAndValue(schema, value)
    assert c.from_connect_data("t", None, None) is None
    assert c.to_connect_data("t", None) == SchemaAndValue(schema, None)
    assert c.from_connect_header("t", "h", None, value) == wire
    assert c.to_connect_header("t", "h", wire).value == value


def test_wrong_size_names_the_deserializer() -> None:
    with pytest.raises(
        DataException,
        match="Failed to deserialize integer: Size of data received "
        "by IntegerDeserializer is not 4",
    ):
        make(IntegerConverter).to_connect_data("t", b"\x00")
    with pytest.raises(DataException, match="ShortDeserializer is not 2"):
        make(ShortConverter).to_connect_batch("t", [b"\x00\x01", b"\x00"])
    with pytest.raises(DataException, match="BooleanDeserializer is not 1"):
        make(BooleanConverter).to_connect_data("t", b"")
    with pytest.raises(DataException, match="Unexpected byte received by BooleanDeserializer: -1"):
        make(BooleanConverter).to_connect_data("t", b"\xff")


def test_wrong_value_types() -> None:
    with pytest.raises(DataException, match=r"Failed to serialize to integer \(was str\)"):
        make(IntegerConverter).from_connect_data("t", None, "1")
    with pytest.raises(DataException, match="was bool"):
        make(LongConverter).from_connect_data("t", None, True)
    with pytest.raises(DataException, match="was float"):
        make(LongConverter).from_connect_batch("t", [(None, 1.0)])
    with pytest.raises(DataException, match="2147483648"):
        make(IntegerConverter).from_connect_batch("t", [(None, 1), (None, 2**31)])
    with pytest.raises(DataException, match="BooleanConverter is not compatible"):
        make(BooleanConverter).from_connect_data("t", None, 1)
    with pytest.raises(DataException, match="Invalid schema type for BooleanConverter: INT8"):
        make(BooleanConverter).from_connect_data("t", Schema.INT8_SCHEMA, True)


def test_float_converter_rounds_doubles_and_accepts_ints() -> None:
    c = make(FloatConverter)
    assert c.from_connect_data("t", None, 0.1) == struct.pack(">f", 0.1)
    assert c.from_connect_data("t", None, 3) == struct.pack(">f", 3.0)
    assert c.from_connect_data("t", None, 1e300) == b"\x7f\x80\x00\x00"  # +Infinity


def _round_trip(cls: type, values: list) -> list:  # type: ignore[type-arg]
    c = make(cls)
    encoded = c.from_connect_batch("t", [(None, v) for v in values])
    assert encoded == [c.from_connect_data("t", None, v) for v in values]
    return [sv.value for sv in c.to_connect_batch("t", encoded)]


@given(st.lists(st.one_of(st.none(), st.integers(-(2**15), 2**15 - 1))))
def test_short_round_trip(values: list[int | None]) -> None:
    assert _round_trip(ShortConverter, values) == values


@given(st.lists(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1))))
def test_integer_round_trip(values: list[int | None]) -> None:
    assert _round_trip(IntegerConverter, values) == values


@given(st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))))
def test_long_round_trip(values: list[int | None]) -> None:
    assert _round_trip(LongConverter, values) == values


@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=False))))
def test_double_round_trip(values: list[float | None]) -> None:
    assert _round_trip(DoubleConverter, values) == values


@given(st.lists(st.one_of(st.none(), st.floats(width=32))))
def test_float_round_trip(values: list[float | None]) -> None:
    out = _round_trip(FloatConverter, values)
    for a, b in zip(values, out, strict=True):
        assert (a is None and b is None) or (math.isnan(a) and math.isnan(b)) or a == b


@given(st.lists(st.one_of(st.none(), st.booleans())))
def test_boolean_round_trip(values: list[bool | None]) -> None:
    assert _round_trip(BooleanConverter, values) == values
