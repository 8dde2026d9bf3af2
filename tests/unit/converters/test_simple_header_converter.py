"""SimpleHeaderConverter: Values string form in UTF-8, type inference on read."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kconnect.api import Schema, SchemaAndValue, SchemaBuilder, Struct, Time, Timestamp
from kconnect.converters.simple_header_converter import SimpleHeaderConverter

UTC = dt.UTC


def make() -> SimpleHeaderConverter:
    c = SimpleHeaderConverter()
    c.configure({"converter.type": "header", "anything": "ignored"})
    return c


def test_null() -> None:
    c = make()
    assert c.from_connect_header("t", "h", Schema.OPTIONAL_STRING_SCHEMA, None) is None
    assert c.to_connect_header("t", "h", None) == SchemaAndValue(None, None)


def test_writes_kafka_string_forms() -> None:
    c = make()
    assert c.from_connect_header("t", "h", Schema.STRING_SCHEMA, "héllo") == "héllo".encode()
    assert c.from_connect_header("t", "h", Schema.INT64_SCHEMA, 42) == b"42"
    assert c.from_connect_header("t", "h", Schema.BOOLEAN_SCHEMA, False) == b"false"
    assert c.from_connect_header("t", "h", None, [1, "a"]) == b'[1,"a"]'
    assert c.from_connect_header("t", "h", None, {"k": [True]}) == b'{"k":[true]}'
    assert (
        c.from_connect_header(
            "t", "h", Timestamp.SCHEMA, dt.datetime(2024, 2, 3, 4, 5, 6, 7000, tzinfo=UTC)
        )
        == b"2024-02-03T04:05:06.007Z"
    )
    schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    assert c.from_connect_header("t", "h", schema, Struct(schema).put("a", 1)) == b'{"a":1}'


def test_reads_with_type_inference() -> None:
    c = make()
    assert c.to_connect_header("t", "h", b"true") == SchemaAndValue(Schema.BOOLEAN_SCHEMA, True)
    assert c.to_connect_header("t", "h", b"1000") == SchemaAndValue(Schema.INT16_SCHEMA, 1000)
    assert c.to_connect_header("t", "h", b"hello world") == SchemaAndValue(
        Schema.STRING_SCHEMA, "hello world"
    )
    assert c.to_connect_header("t", "h", b"") == SchemaAndValue(Schema.STRING_SCHEMA, "")
    assert c.to_connect_header("t", "h", b"12:00:00.000Z") == SchemaAndValue(
        Time.SCHEMA, dt.time(12)
    )
    parsed = c.to_connect_header("t", "h", b'{"a":1,"b":2}')
    assert parsed.value == {"a": 1, "b": 2}
    assert parsed.schema == SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build()
    # invalid UTF-8 is replaced, as Java's new String(bytes, UTF_8) does
    assert c.to_connect_header("t", "h", b"a\xffb").value == "a\ufffdb"


def test_config_is_empty() -> None:
    assert list(SimpleHeaderConverter().config().names()) == []


_SIMPLE = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.text(st.characters(whitelist_categories=("Lu", "Ll")), min_size=1).filter(
        lambda s: s not in ("true", "false", "null")
    ),
)


@given(
    st.one_of(
        _SIMPLE,
        st.lists(st.integers(-100, 100), min_size=1),
        st.dictionaries(
            st.text(st.characters(whitelist_categories=("Ll",)), min_size=1),
            st.booleans(),
            min_size=1,
        ),
    )
)
def test_round_trip(value: object) -> None:
    c = make()
    encoded = c.from_connect_header("t", "h", None, value)
    assert encoded is not None
    decoded = c.to_connect_header("t", "h", encoded)
    assert decoded.value == value
    # and writing the decoded value again gives the same bytes
    assert c.from_connect_header("t", "h", decoded.schema, decoded.value) == encoded


def test_a_schemaless_java_float_is_written_as_float_to_string() -> None:
    from kconnect.api.data.java_numbers import to_float32
    from kconnect.api.data.java_strings import Float32

    c = SimpleHeaderConverter()
    assert c.from_connect_header("t", "h", None, Float32(to_float32(3.0075527044498719e18))) == (
        b"3.0075527E18"
    )
    assert c.from_connect_header("t", "h", None, to_float32(0.1)) == b"0.10000000149011612"
