"""StringConverter: charset handling, Java toString rendering, batches, header role."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kconnect.api import ConfigException, Schema, SchemaAndValue
from kconnect.api.data.java_strings import ByteBuffer
from kconnect.converters.string_converter import StringConverter, java_to_string


def converter(configs: dict[str, str] | None = None, is_key: bool = False) -> StringConverter:
    c = StringConverter()
    c.configure(configs or {}, is_key)
    return c


def test_reads_optional_string_and_null() -> None:
    c = converter()
    assert c.to_connect_data("t", "héllo".encode()) == SchemaAndValue(
        Schema.OPTIONAL_STRING_SCHEMA, "héllo"
    )
    assert c.to_connect_data("t", None) == SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, None)
    assert c.from_connect_data("t", None, None) is None


def test_writes_java_to_string_of_basic_types() -> None:
    c = converter()
    assert c.from_connect_data("t", Schema.INT32_SCHEMA, 42) == b"42"
    assert c.from_connect_data("t", Schema.BOOLEAN_SCHEMA, True) == b"true"
    assert c.from_connect_data("t", Schema.FLOAT64_SCHEMA, 1e7) == b"1.0E7"
    assert c.from_connect_data("t", Schema.FLOAT64_SCHEMA, 0.5) == b"0.5"
    assert c.from_connect_data("t", Schema.FLOAT32_SCHEMA, 1.100000023841858) == b"1.1"
    assert c.from_connect_data("t", None, decimal.Decimal("1.50")) == b"1.50"
    assert java_to_string([1, "a", None]) == "[1, a, null]"
    assert java_to_string({"a": 1, "b": False}) == "{a=1, b=false}"
    assert java_to_string(dt.date(1970, 1, 1)) == "Thu Jan 01 00:00:00 UTC 1970"


def test_encoding_config() -> None:
    latin = converter({"converter.encoding": "ISO-8859-1"})
    assert latin.from_connect_data("t", None, "é") == b"\xe9"
    assert latin.to_connect_data("t", b"\xe9").value == "é"
    # unmappable characters become '?', as Java's String.getBytes does
    assert latin.from_connect_data("t", None, "€") == b"?"
    utf16 = converter({"converter.encoding": "UTF-16"})
    assert utf16.from_connect_data("t", None, "A") == b"\xfe\xff\x00A"
    assert utf16.to_connect_data("t", b"\x00A").value == "A"  # big-endian without BOM
    assert utf16.to_connect_data("t", b"\xff\xfeA\x00").value == "A"


def test_malformed_utf8_is_replaced_not_an_error() -> None:
    assert converter().to_connect_data("t", b"a\xffb").value == "a\ufffdb"


def test_per_role_serializer_encoding_overrides() -> None:
    key = converter(
        {"converter.encoding": "UTF-8", "key.serializer.encoding": "ISO-8859-1"}, is_key=True
    )
    assert key.from_connect_data("t", None, "é") == b"\xe9"
    value = converter({"converter.encoding": "UTF-8", "key.serializer.encoding": "ISO-8859-1"})
    assert value.from_connect_data("t", None, "é") == "é".encode()


def test_unknown_encoding_is_a_config_error() -> None:
    with pytest.raises(ConfigException, match=r"converter\.encoding"):
        converter({"converter.encoding": "no-such-charset"})


def test_bad_converter_type_is_a_config_error() -> None:
    with pytest.raises(ConfigException, match=r"converter\.type"):
        StringConverter().configure({"converter.type": "sideways"})


def test_config_def_declares_kafka_keys() -> None:
    keys = StringConverter().config().config_keys()
    assert keys["converter.encoding"].default_value == "UTF-8"
    assert "converter.type" in keys


def test_header_converter_role() -> None:
    c = StringConverter()
    c.configure({"converter.type": "header"})
    assert c.from_connect_header("t", "h", None, 7) == b"7"
    assert c.to_connect_header("t", "h", b"x") == SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, "x")


@given(st.lists(st.one_of(st.none(), st.text())))
def test_round_trip_batches(values: list[str | None]) -> None:
    for c in (converter(), converter({"converter.encoding": "UTF-16"})):
        encoded = c.from_connect_batch("t", [(Schema.OPTIONAL_STRING_SCHEMA, v) for v in values])
        assert encoded == [c.from_connect_data("t", None, v) for v in values]
        decoded = c.to_connect_batch("t", encoded)
        expected = [
            None if v is None else v.encode("utf-8", "replace").decode("utf-8") for v in values
        ]  # lone surrogates cannot be encoded: they become '?'
        assert [sv.value for sv in decoded] == expected
        assert all(sv.schema == Schema.OPTIONAL_STRING_SCHEMA for sv in decoded)


@given(st.integers())
def test_integers_render_like_java(n: int) -> None:
    assert converter().from_connect_data("t", None, n) == str(n).encode()


def test_a_byte_buffer_is_written_as_java_prints_it() -> None:
    # Java's StringConverter writes value.toString(): a ByteBuffer (what AvroConverter reads
    # bytes as) prints its position, limit and capacity; a byte[] prints an identity, which
    # kconnect writes as base64 instead
    c = StringConverter()
    c.configure({}, False)
    assert c.from_connect_data("t", None, ByteBuffer(b"ab")) == (
        b"java.nio.HeapByteBuffer[pos=0 lim=2 cap=2]"
    )
    assert c.from_connect_data("t", None, b"ab") == b"YWI="
