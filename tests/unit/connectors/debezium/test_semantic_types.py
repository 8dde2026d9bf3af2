"""Debezium semantic types: schemas, VariableScaleDecimal, MicroDuration, Interval, Zoned*."""

from __future__ import annotations

import decimal

import pytest

from kconnect.api import Schema, Struct, Type
from kconnect.connectors.debezium.common import semantic_types as st

D = decimal.Decimal


@pytest.mark.parametrize(
    ("builder", "name", "type_"),
    [
        (st.date_builder, "io.debezium.time.Date", Type.INT32),
        (st.time_builder, "io.debezium.time.Time", Type.INT32),
        (st.micro_time_builder, "io.debezium.time.MicroTime", Type.INT64),
        (st.nano_time_builder, "io.debezium.time.NanoTime", Type.INT64),
        (st.timestamp_builder, "io.debezium.time.Timestamp", Type.INT64),
        (st.micro_timestamp_builder, "io.debezium.time.MicroTimestamp", Type.INT64),
        (st.nano_timestamp_builder, "io.debezium.time.NanoTimestamp", Type.INT64),
        (st.zoned_timestamp_builder, "io.debezium.time.ZonedTimestamp", Type.STRING),
        (st.zoned_time_builder, "io.debezium.time.ZonedTime", Type.STRING),
        (st.micro_duration_builder, "io.debezium.time.MicroDuration", Type.INT64),
        (st.interval_builder, "io.debezium.time.Interval", Type.STRING),
        (st.json_builder, "io.debezium.data.Json", Type.STRING),
        (st.uuid_builder, "io.debezium.data.Uuid", Type.STRING),
        (st.xml_builder, "io.debezium.data.Xml", Type.STRING),
    ],
)
def test_simple_semantic_schemas(builder, name, type_) -> None:
    schema = builder().build()
    assert (schema.name, schema.version, schema.type) == (name, 1, type_)
    assert schema.parameters is None and not schema.optional and schema.doc is None
    assert builder().optional().build().optional  # a fresh builder each call


def test_enum_and_bits_parameters() -> None:
    # EnumTest.shouldCreateSchemaBuilderFromValues
    assert st.enum_builder(["a", "b", "c"]).build().parameters == {"allowed": "a,b,c"}
    assert st.enum_builder(["a"]).build().parameters == {"allowed": "a"}
    assert st.enum_builder([]).build().parameters == {"allowed": ""}
    enum_schema = st.enum_builder("x,y").build()
    assert (enum_schema.name, enum_schema.version, enum_schema.type) == (
        "io.debezium.data.Enum",
        1,
        Type.STRING,
    )
    bits = st.bits_builder(24).build()
    assert (bits.name, bits.version, bits.type, bits.parameters) == (
        "io.debezium.data.Bits",
        1,
        Type.BYTES,
        {"length": "24"},
    )
    # AbstractRecordsProducerTest: unlimited varbit has length Integer.MAX_VALUE
    assert st.bits_builder(2147483647).build().parameters == {"length": "2147483647"}


def test_variable_scale_decimal_schema() -> None:
    schema = st.variable_scale_decimal_schema()
    assert schema.name == "io.debezium.data.VariableScaleDecimal"
    assert schema.version == 1 and schema.doc == "Variable scaled decimal"
    assert [(f.name, f.schema) for f in schema.fields] == [
        ("scale", Schema.INT32_SCHEMA),
        ("value", Schema.BYTES_SCHEMA),
    ]
    assert st.variable_scale_decimal_schema(optional=True).optional
    assert not schema.optional


@pytest.mark.parametrize(
    ("value", "scale", "unscaled_bytes"),
    [
        # AbstractRecordsProducerTest.schemasAndValuesForBigDecimalEncodedNumericTypes
        (D("10.1111"), 4, (101111).to_bytes(3, "big")),
        (D("22.2222"), 4, (222222).to_bytes(3, "big")),
        (D("10"), 0, b"\x0a"),
        # schemasAndValuesForArrayTypes (varnumeric_array)
        (D("2.22"), 2, b"\x00\xde"),
        (D("3.333"), 3, (3333).to_bytes(2, "big")),
        # stripTrailingZeros, then a negative scale clamped to 0
        (D("10.1100"), 2, (1011).to_bytes(2, "big")),
        (D("1E+3"), 0, (1000).to_bytes(2, "big")),
        (D("1200"), 0, (1200).to_bytes(2, "big")),
        (D("0.000"), 0, b"\x00"),
        (D("-0.5"), 1, b"\xfb"),
        (D("-128"), 0, b"\x80"),
        (D("128"), 0, b"\x00\x80"),
        (D("-129"), 0, b"\xff\x7f"),
    ],
)
def test_variable_scale_decimal_values(value, scale, unscaled_bytes) -> None:
    struct = st.variable_scale_decimal(value)
    assert struct.get("scale") == scale
    assert struct.get("value") == unscaled_bytes
    assert st.variable_scale_decimal_to_decimal(struct) == value


def test_variable_scale_decimal_keeps_digits_beyond_context_precision() -> None:
    value = D("123456789012345678901234567890123456789.000100")
    struct = st.variable_scale_decimal(value)
    assert struct.get("scale") == 4
    assert st.variable_scale_decimal_to_decimal(struct) == value


def test_variable_scale_decimal_uses_given_schema() -> None:
    schema = st.variable_scale_decimal_schema(optional=True)
    struct = st.variable_scale_decimal(D("1.5"), schema)
    assert struct.schema is schema
    assert struct == Struct(schema).put("scale", 1).put("value", b"\x0f")
    with pytest.raises(ValueError):
        st.variable_scale_decimal(D("NaN"))


def test_unscaled_bytes_matches_big_integer_to_byte_array() -> None:
    assert st.unscaled_bytes(0) == b"\x00"
    assert st.unscaled_bytes(127) == b"\x7f"
    assert st.unscaled_bytes(255) == b"\x00\xff"
    assert st.unscaled_bytes(-1) == b"\xff"
    assert st.unscaled_bytes(-256) == b"\xff\x00"
    assert st.unscaled_bytes(2**63) == b"\x00\x80" + b"\x00" * 7


def test_micro_duration() -> None:
    # AbstractRecordsProducerTest.schemaAndValuesForDateTimeTypes: 'P1Y2M3DT4H5M6.78S'::INTERVAL
    # as durationMicros(1, 2, 3, 4, 5, 6, 780000, DAYS_PER_MONTH_AVG) and (…, 6.78, …)
    expected = 37_091_106_780_000
    assert st.micro_duration(1, 2, 3, 4, 5, 6, 780_000) == expected
    assert st.micro_duration(1, 2, 3, 4, 5, 6.78) == expected
    assert st.micro_duration(1, 2, 3, 4, 5, D("6.78")) == expected
    assert st.DAYS_PER_MONTH_AVG == 30.4375
    assert st.micro_duration(0, 1, 0, 0, 0, 0) == 30.4375 * 86_400 * 10**6
    assert st.micro_duration(0, 0, 0, 0, 0, 0) == 0
    # negative: truncated toward zero
    assert st.micro_duration(0, 0, 0, 0, 0, -0.0000015) == -1
    assert st.micro_duration(-1, 0, 0, 0, 0, 0) == -31_557_600_000_000
    assert st.micro_duration(0, 0, -1, -2, -3, -4.5) == -(86_400 + 7_384.5) * 10**6
    # (long) saturates
    assert st.micro_duration(100_000_000, 0, 0, 0, 0, 0) == 2**63 - 1
    assert st.micro_duration(-100_000_000, 0, 0, 0, 0, 0) == -(2**63)


def test_java_long_cast() -> None:
    assert st.java_long(1.9) == 1 and st.java_long(-1.9) == -1
    assert st.java_long(float("nan")) == 0
    assert st.java_long(1e300) == 2**63 - 1 and st.java_long(-1e300) == -(2**63)


def test_interval_string() -> None:
    # AbstractRecordsProducerTest.schemaAndValuesForIntervalAsString
    assert st.interval_string(1, 2, 3, 4, 5, 6.78) == "P1Y2M3DT4H5M6.78S"
    assert st.interval_string(0, 0, 0, 0, 0, 0.0) == "P0Y0M0DT0H0M0S"
    assert st.interval_string(0, 0, 0, 0, 0, 10.0) == "P0Y0M0DT0H0M10S"
    assert st.interval_string(-1, -2, 3, -4, -5, -6.5) == "P-1Y-2M3DT-4H-5M-6.5S"
    # Double.toString(1.0E-4) → BigDecimal 0.00010 → stripped, plain
    assert st.interval_string(0, 0, 0, 0, 0, 0.0001) == "P0Y0M0DT0H0M0.0001S"
    assert st.interval_string(0, 0, 0, 0, 0, -0.000001) == "P0Y0M0DT0H0M-0.000001S"
    # more than 9 places: cut toward zero
    assert st.interval_string(0, 0, 0, 0, 0, D("1.1234567899")) == "P0Y0M0DT0H0M1.123456789S"
    assert st.interval_string(0, 0, 0, 0, 0, D("-1.1234567899")) == "P0Y0M0DT0H0M-1.123456789S"
    assert st.interval_string(0, 0, 0, 0, 0, D("20.500")) == "P0Y0M0DT0H0M20.5S"


def test_calendar_round_trip() -> None:
    assert st.epoch_day(1970, 1, 1) == 0
    assert st.epoch_day(2016, 11, 4) == 17_109
    assert st.epoch_day(1969, 12, 31) == -1
    assert st.epoch_day(2000, 3, 1) - st.epoch_day(2000, 2, 28) == 2  # leap year
    assert st.epoch_day(1900, 3, 1) - st.epoch_day(1900, 2, 28) == 1  # not a leap year
    for days in (-2_147_472_692, -1_000_000, -719_529, -1, 0, 59, 2_932_896, 106_751_991):
        assert st.epoch_day(*st.civil_date(days)) == days
    assert st.civil_date(-719_528) == (0, 1, 1)


def test_iso_year() -> None:
    assert st.format_iso_year(2016) == "2016"
    assert st.format_iso_year(33) == "0033"
    assert st.format_iso_year(0) == "0000"
    assert st.format_iso_year(-1) == "-0001"
    assert st.format_iso_year(-4713) == "-4713"
    assert st.format_iso_year(10_000) == "+10000"


def _epoch_second(y: int, mo: int, d: int, h: int, mi: int, s: int) -> int:
    return st.epoch_day(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s


def test_zoned_timestamp_fixed_width() -> None:
    # AbstractRecordsProducerTest.schemaAndValuesForDateTimeTypes / ...TimeArrayTypes
    sec = _epoch_second(2016, 11, 4, 11, 51, 30)
    assert st.format_zoned_timestamp(sec, 123_456_000) == "2016-11-04T11:51:30.123456Z"
    sec = _epoch_second(2020, 4, 1, 11, 51, 2)
    assert st.format_zoned_timestamp(sec, 0) == "2020-04-01T11:51:02.000000Z"
    sec = _epoch_second(21016, 11, 4, 6, 51, 30)
    assert st.format_zoned_timestamp(sec, 123_456_000) == "+21016-11-04T06:51:30.123456Z"
    assert st.format_zoned_timestamp(sec, 0) == "+21016-11-04T06:51:30.000000Z"
    sec = _epoch_second(294247, 1, 1, 23, 59, 59)
    assert st.format_zoned_timestamp(sec, 999_999_000) == "+294247-01-01T23:59:59.999999Z"
    sec = _epoch_second(-4713, 12, 31, 23, 59, 59)
    assert st.format_zoned_timestamp(sec, 999_999_000) == "-4713-12-31T23:59:59.999999Z"
    # other widths cut digits, never round
    sec = _epoch_second(2016, 11, 4, 11, 51, 30)
    assert st.format_zoned_timestamp(sec, 123_956_000, 3) == "2016-11-04T11:51:30.123Z"
    assert st.format_zoned_timestamp(sec, 500_000_000, 1) == "2016-11-04T11:51:30.5Z"
    assert st.format_zoned_timestamp(sec, 1, 9) == "2016-11-04T11:51:30.000000001Z"


def test_zoned_timestamp_iso_offset_date_time() -> None:
    sec = _epoch_second(2016, 11, 4, 11, 51, 30)
    for width in (0, None, 10, -1):
        assert st.format_zoned_timestamp(sec, 0, width) == "2016-11-04T11:51:30Z"
        assert st.format_zoned_timestamp(sec, 120_000_000, width) == "2016-11-04T11:51:30.12Z"
    assert st.format_zoned_timestamp(0, 0, 0) == "1970-01-01T00:00:00Z"


def test_zoned_timestamp_before_1970() -> None:
    sec = _epoch_second(1936, 10, 25, 22, 10, 12)
    assert sec < 0
    assert st.format_zoned_timestamp(sec, 608_000_000) == "1936-10-25T22:10:12.608000Z"
    assert st.format_zoned_timestamp(-1, 999_999_000) == "1969-12-31T23:59:59.999999Z"


def test_zoned_time() -> None:
    # AbstractRecordsProducerTest: expectedTtz, expectedTtzPrecision, expectedTimeTz1
    def nanos(h: int, m: int, s: int, n: int = 0) -> int:
        return ((h * 60 + m) * 60 + s) * 10**9 + n

    assert st.format_zoned_time(nanos(11, 51, 30, 123_789_000)) == "11:51:30.123789Z"
    assert st.format_zoned_time(nanos(11, 51, 30, 123_000_000)) == "11:51:30.123Z"
    assert st.format_zoned_time(nanos(11, 51, 2)) == "11:51:02Z"
    assert st.format_zoned_time(nanos(0, 0, 0)) == "00:00:00Z"
    assert st.format_zoned_time(nanos(23, 59, 59, 1)) == "23:59:59.000000001Z"
    assert st.format_zoned_time(nanos(24, 0, 0)) == "00:00:00Z"
    assert st.format_zoned_time(-nanos(1, 0, 0)) == "23:00:00Z"
