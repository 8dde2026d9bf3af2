"""ByteArrayConverter: pass-through with Kafka's schema and type checks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kconnect.api import DataException, Schema, SchemaAndValue
from kconnect.converters.bytearray_converter import ByteArrayConverter


def make() -> ByteArrayConverter:
    c = ByteArrayConverter()
    c.configure({}, False)
    return c


def test_pass_through() -> None:
    c = make()
    assert c.from_connect_data("t", Schema.BYTES_SCHEMA, b"\x00\x01") == b"\x00\x01"
    assert c.from_connect_data("t", None, bytearray(b"ab")) == b"ab"
    assert c.from_connect_data("t", None, memoryview(b"cd")) == b"cd"
    assert c.from_connect_data("t", None, None) is None
    assert c.to_connect_data("t", b"x") == SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, b"x")
    assert c.to_connect_data("t", None) == SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, None)


def test_rejects_other_schema_types() -> None:
    with pytest.raises(DataException, match="Invalid schema type for ByteArrayConverter: STRING"):
        make().from_connect_data("t", Schema.STRING_SCHEMA, b"x")
    with pytest.raises(DataException, match="Invalid schema type"):
        make().from_connect_batch("t", [(Schema.INT32_SCHEMA, b"x")])


def test_rejects_other_value_types() -> None:
    with pytest.raises(DataException, match="not compatible with objects of type str"):
        make().from_connect_data("t", None, "text")


def test_header_role() -> None:
    c = ByteArrayConverter()
    c.configure({"converter.type": "header"})
    assert c.from_connect_header("t", "h", Schema.OPTIONAL_BYTES_SCHEMA, b"v") == b"v"
    assert c.to_connect_header("t", "h", b"v").value == b"v"


@given(st.lists(st.one_of(st.none(), st.binary())))
def test_round_trip(values: list[bytes | None]) -> None:
    c = make()
    encoded = c.from_connect_batch("t", [(Schema.OPTIONAL_BYTES_SCHEMA, v) for v in values])
    assert encoded == values
    assert [sv.value for sv in c.to_connect_batch("t", encoded)] == values
