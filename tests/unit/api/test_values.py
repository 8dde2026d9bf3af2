"""Values: Kafka's string form of Connect data and its parser (vectors from Kafka's ValuesTest)."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.data import values as V
from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string, to_float32
from kconnect.api.data.values import convert_to_string, parse_string

UTC = dt.UTC


@pytest.mark.parametrize(
    "text",
    [
        "{foo: 3}",
        "{3: foo}",
        "[foo]",
        "null=",
        "true}",
        "false]",
        "{6:9 4:20}",
        "[0 1 2]",
        "{null: 3}",
        "[1, 2, 3,,,]",
        "[1, null]",
        "[null, 1]",
        "12abc",
        "  ",
        "simple string",
        "si\\:mple",
        "a{b",
        '"b',
        "\ufffd\uffff",
    ],
)
def test_strings_that_stay_strings(text: str) -> None:
    parsed = parse_string(text)
    assert parsed.schema == Schema.STRING_SCHEMA
    assert parsed.value == text


def test_literals() -> None:
    assert parse_string("") == (Schema.STRING_SCHEMA, "")
    assert parse_string(None) == (None, None)
    assert parse_string("null") == (None, None)
    assert parse_string(" \t null ") == (None, None)
    assert parse_string(" true ") == (Schema.BOOLEAN_SCHEMA, True)
    assert parse_string("false") == (Schema.BOOLEAN_SCHEMA, False)


@pytest.mark.parametrize(
    ("text", "schema", "value"),
    [
        ("1.0", Schema.INT8_SCHEMA, 1),
        ("-128", Schema.INT8_SCHEMA, -128),
        ("+5", Schema.INT8_SCHEMA, 5),
        ("300.0", Schema.INT16_SCHEMA, 300),
        ("66000.0", Schema.INT32_SCHEMA, 66000),
        ("2147483648", Schema.INT64_SCHEMA, 2147483648),
        ("1.1", Schema.FLOAT32_SCHEMA, to_float32(1.1)),
        ("300.01", Schema.FLOAT32_SCHEMA, to_float32(300.01)),
        ("66000.0008", Schema.FLOAT32_SCHEMA, to_float32(66000.0008)),
        ("1.7976931348623157E308", Schema.FLOAT64_SCHEMA, 1.7976931348623157e308),
        ("1e-50", Schema.FLOAT32_SCHEMA, 0.0),
        ("9223372036854775808", Decimal.schema(0), decimal.Decimal("9223372036854775808")),
        ("1e400", Decimal.schema(-400), decimal.Decimal("1e400")),
    ],
)
def test_numbers_take_the_smallest_type(text: str, schema: Schema, value: object) -> None:
    assert parse_string(text) == (schema, value)


def test_temporal_values() -> None:
    assert parse_string("2019-08-23T14:34:54.346Z") == (
        Timestamp.SCHEMA,
        dt.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=UTC),
    )
    assert parse_string("2019-08-23T14\\:34\\:54.346Z").schema == Timestamp.SCHEMA
    assert parse_string("2019-08-23") == (Date.SCHEMA, dt.date(2019, 8, 23))
    assert parse_string("14:34:54.346Z") == (Time.SCHEMA, dt.time(14, 34, 54, 346000))
    assert parse_string("14\\:34\\:54.346Z").schema == Time.SCHEMA
    # SimpleDateFormat is lenient: month 13 rolls into the next year
    assert parse_string("2019-13-01") == (Date.SCHEMA, dt.date(2020, 1, 1))


def test_arrays() -> None:
    parsed = parse_string("[true, false]")
    assert parsed.schema == SchemaBuilder.array(Schema.BOOLEAN_SCHEMA).build()
    assert parsed.value == [True, False]
    assert parse_string("[]") == (Schema(Type.ARRAY), [])
    assert parse_string("[null]") == (Schema(Type.ARRAY), [None])
    parsed = parse_string("[1, 2, 32768]")
    assert parsed == (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2, 32768])
    parsed = parse_string("[1, 2, 3.4028235E38]")
    assert parsed.schema.value_schema == Schema.FLOAT32_SCHEMA
    assert parsed.value == [1.0, 2.0, to_float32(3.4028235e38)]
    assert all(isinstance(v, float) for v in parsed.value)
    parsed = parse_string('["four", 1, 2, 300]')
    assert parsed.schema.type is Type.ARRAY and parsed.schema._value_schema is None
    assert parsed.value == ["four", 1, 2, 300]
    parsed = parse_string("[2019-08-23]")
    assert parsed == (SchemaBuilder.array(Date.SCHEMA).build(), [dt.date(2019, 8, 23)])
    parsed = parse_string("[2019-08-23T14:34:54.346Z,2019-01-23T15:12:34.567Z]")
    assert parsed.schema.value_schema == Timestamp.SCHEMA
    parsed = parse_string("[9223372036854775808, -9223372036854775809]")
    assert parsed.schema.value_schema == Decimal.schema(0)
    assert parse_string("[[]]").schema.value_schema.type is Type.ARRAY
    assert parse_string("[{}]").schema.value_schema.type is Type.MAP


def test_maps() -> None:
    string_map = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build()
    assert parse_string('{"foo":"123","bar":"baz"}') == (string_map, {"foo": "123", "bar": "baz"})
    assert parse_string('{ "foo" : "123", \n"bar" : "baz" } ') == (
        string_map,
        {"foo": "123", "bar": "baz"},
    )
    parsed = parse_string("{true: false, false: true}")
    assert parsed.value == {True: False, False: True}
    assert parsed.schema.key_schema == Schema.BOOLEAN_SCHEMA
    parsed = parse_string("{3: null}")
    assert parsed.schema.key_schema == Schema.INT8_SCHEMA and parsed.value == {3: None}
    parsed = parse_string('{1:1, 2:1, 300:300, "four":1}')
    assert parsed.schema.type is Type.MAP and parsed.schema._key_schema is None
    assert parsed.value == {1: 1, 2: 1, 300: 300, "four": 1}
    parsed = parse_string('{"k1":"14:34:54.346Z"}')
    assert parsed.schema.value_schema == Time.SCHEMA
    assert parse_string("{}") == (Schema(Type.MAP), {})


def test_top_level_number_followed_by_more_tokens_is_the_number() -> None:
    # Kafka parses only the first token of a top-level "1,2"; kept for byte compatibility.
    assert parse_string("1,2") == (Schema.INT8_SCHEMA, 1)


def test_convert_to_string_matches_kafka() -> None:
    assert convert_to_string(None, None) is None
    assert convert_to_string(Schema.STRING_SCHEMA, 'plain "text"') == 'plain "text"'
    assert convert_to_string(None, ['a"b', "c\\d"]) == '["a\\"b","c\\\\d"]'
    assert convert_to_string(None, {"a": 1, "b": None}) == '{"a":1,"b":null}'
    assert convert_to_string(None, b"\x00\x01") == "AAE="
    assert convert_to_string(None, [b"\x00\x01"]) == '["AAE="]'
    assert convert_to_string(Schema.FLOAT64_SCHEMA, 1e7) == "1.0E7"
    assert convert_to_string(Schema.FLOAT64_SCHEMA, 1e-4) == "1.0E-4"
    assert convert_to_string(Schema.FLOAT64_SCHEMA, 123.456) == "123.456"
    assert convert_to_string(Schema.FLOAT64_SCHEMA, -0.0) == "-0.0"
    assert convert_to_string(Schema.FLOAT32_SCHEMA, to_float32(1.1)) == "1.1"
    assert (
        convert_to_string(SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(), [to_float32(0.1)])
        == "[0.1]"
    )
    assert convert_to_string(None, decimal.Decimal("1E+3")) == "1E+3"
    assert convert_to_string(Date.SCHEMA, dt.date(2020, 1, 2)) == "2020-01-02"
    assert convert_to_string(Time.SCHEMA, dt.time(1, 2, 3, 4000)) == "01:02:03.004Z"
    assert (
        convert_to_string(Timestamp.SCHEMA, dt.datetime(2020, 1, 2, 3, 4, 5, 6000, tzinfo=UTC))
        == "2020-01-02T03:04:05.006Z"
    )
    # Kafka chooses the pattern from the instant: midnight timestamps print as dates, and
    # anything before 1970-01-02 prints as a time of day.
    assert convert_to_string(Timestamp.SCHEMA, dt.datetime(2020, 1, 2, tzinfo=UTC)) == "2020-01-02"
    assert convert_to_string(Date.SCHEMA, dt.date(1969, 12, 31)) == "00:00:00.000Z"


def test_struct_renders_as_map_with_defaults() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("name", SchemaBuilder.string().optional().default_value("anon").build())
        .build()
    )
    s = Struct(schema).put("id", 7)
    assert convert_to_string(schema, s) == '{"id":7,"name":"anon"}'


def test_unknown_type_raises() -> None:
    with pytest.raises(DataException, match="Failed to serialize unexpected value type"):
        convert_to_string(None, object())


def test_escape() -> None:
    assert V.escape('three"blind\\"mice') == 'three\\"blind\\\\\\"mice'


def test_conversions() -> None:
    assert V.convert_to_boolean(None, "0") is False
    assert V.convert_to_boolean(None, "true") is True
    assert V.convert_to_boolean(None, 5) is True
    with pytest.raises(DataException):
        V.convert_to_boolean(Schema.STRING_SCHEMA, '"green"')
    assert V.convert_to_byte(None, 300) == 44  # Java narrowing
    assert V.convert_to_short(None, "70000") == 4464
    assert V.convert_to_long(None, "12.9") == 12
    assert V.convert_to_integer(None, 3.99) == 3
    assert V.convert_to_float(None, "1.1") == to_float32(1.1)
    assert V.convert_to_double(None, 2) == 2.0
    assert V.convert_to_list(None, "[1,2]") == [1, 2]
    assert V.convert_to_map(None, '{"a":1}') == {"a": 1}
    with pytest.raises(DataException):
        V.convert_to_long(None, "abc")
    assert V.convert_to_date(None, "18000") == dt.date(2019, 4, 14)
    assert V.convert_to_date(
        Timestamp.SCHEMA, dt.datetime(2020, 5, 6, 7, 8, tzinfo=UTC)
    ) == dt.date(2020, 5, 6)
    assert V.convert_to_time(
        Timestamp.SCHEMA, dt.datetime(2020, 5, 6, 7, 8, tzinfo=UTC)
    ) == dt.time(7, 8)
    assert V.convert_to_timestamp(None, 1000) == dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)
    assert V.convert_to_timestamp(Date.SCHEMA, dt.date(2020, 1, 1)) == dt.datetime(
        2020, 1, 1, tzinfo=UTC
    )
    assert V.convert_to_decimal(None, 1.0, 1) == decimal.Decimal("1.0")
    assert V.convert_to_decimal(None, "1.0", 1) == decimal.Decimal("1.0")
    assert V.convert_to_decimal(None, b"\x0a", 1) == decimal.Decimal("1.0")
    with pytest.raises(DataException):
        V.convert_to_decimal(None, None, 1)


def test_infer_schema() -> None:
    assert V.infer_schema(b"x") == Schema.BYTES_SCHEMA
    assert V.infer_schema([]) is None
    assert V.infer_schema({}) is None
    assert V.infer_schema([object()]) is None
    assert V.infer_schema(["a", None]) == SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build()
    assert (
        V.infer_schema({"a": 1})
        == SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    )


def test_java_number_strings() -> None:
    assert java_double_to_string(float("nan")) == "NaN"
    assert java_double_to_string(float("-inf")) == "-Infinity"
    assert java_double_to_string(1.0) == "1.0"
    assert java_double_to_string(100.0) == "100.0"
    assert java_double_to_string(0.001) == "0.001"
    assert java_double_to_string(1234567.0) == "1234567.0"
    assert java_double_to_string(12345678.0) == "1.2345678E7"
    assert java_double_to_string(5e-324) == "4.9E-324"
    assert java_float_to_string(3.4028234663852886e38) == "3.4028235E38"
    assert java_float_to_string(1e-45) == "1.4E-45"


# -- round trips (what SimpleHeaderConverter relies on) -----------------------------------------


def _smallest_int_schema(n: int) -> Schema:
    for schema, bits in (
        (Schema.INT8_SCHEMA, 8),
        (Schema.INT16_SCHEMA, 16),
        (Schema.INT32_SCHEMA, 32),
    ):
        if -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
            return schema
    return Schema.INT64_SCHEMA


@given(st.integers(-(2**63), 2**63 - 1))
def test_round_trip_integers(n: int) -> None:
    assert parse_string(convert_to_string(Schema.INT64_SCHEMA, n)) == (_smallest_int_schema(n), n)


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_round_trip_float32(f: float) -> None:
    text = convert_to_string(Schema.FLOAT32_SCHEMA, f)
    parsed = parse_string(text)
    # Float.toString's shortest digits parse back to a number that denotes the same float32;
    # an integral one becomes an integer type (lossy in Kafka too: 1.3682402E8 -> 136824020).
    assert to_float32(float(parsed.value)) == f
    if parsed.schema.type is not Type.FLOAT32:
        assert parsed.value == decimal.Decimal(text)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_round_trip_float64_value(x: float) -> None:
    parsed = parse_string(convert_to_string(Schema.FLOAT64_SCHEMA, x))
    # Kafka narrows to FLOAT32 when that is finite, so only FLOAT64 results are exact.
    if parsed.schema.type is Type.FLOAT32:
        assert parsed.value == to_float32(x)
    else:
        assert float(parsed.value) == x


@given(st.dates(min_value=dt.date(1970, 1, 2), max_value=dt.date(9999, 12, 31)))
def test_round_trip_dates(d: dt.date) -> None:
    assert parse_string(convert_to_string(Date.SCHEMA, d)) == (Date.SCHEMA, d)


@given(st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000)))
def test_round_trip_times(t: dt.time) -> None:
    assert parse_string(convert_to_string(Time.SCHEMA, t)) == (Time.SCHEMA, t)


@given(
    st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(9999, 12, 31)).map(
        lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=UTC)
    )
)
def test_round_trip_timestamps(ts: dt.datetime) -> None:
    assume(ts.time() != dt.time(0))
    assert parse_string(convert_to_string(Timestamp.SCHEMA, ts)) == (Timestamp.SCHEMA, ts)


_WORD = st.text(st.characters(whitelist_categories=("Lu", "Ll")), min_size=1).filter(
    lambda s: s not in ("true", "false", "null")
)


@given(_WORD)
def test_round_trip_words(word: str) -> None:
    assert parse_string(convert_to_string(Schema.STRING_SCHEMA, word)) == (
        Schema.STRING_SCHEMA,
        word,
    )


@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1))
def test_round_trip_int_arrays(items: list[int]) -> None:
    parsed = parse_string(convert_to_string(None, items))
    assert parsed.value == items
    bits = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
    widest = max((_smallest_int_schema(i) for i in items), key=lambda s: bits[s.type])
    assert parsed.schema == SchemaBuilder.array(widest).build()


@given(st.dictionaries(_WORD, st.one_of(_WORD, st.booleans()), min_size=1))
def test_round_trip_maps(m: dict[str, object]) -> None:
    parsed = parse_string(convert_to_string(None, m))
    assert parsed.value == m
    assert parsed.schema.type is Type.MAP


@given(st.text())
def test_parse_string_never_raises(text: str) -> None:
    parsed = parse_string(text)
    assert parsed.schema is None or isinstance(parsed.schema, Schema)
