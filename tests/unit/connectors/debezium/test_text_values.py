"""PostgreSQL text output → Debezium values.

Most inputs and expected values are those of Debezium's ``AbstractRecordsProducerTest``
(``INSERT_*_STMT`` and ``schemasAndValuesFor*``), as PostgreSQL prints the inserted values with
``DateStyle=ISO, IntervalStyle=postgres``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math

import pytest

from kconnect.api import ConnectException, DataException
from kconnect.connectors.debezium.common.semantic_types import (
    epoch_day,
    variable_scale_decimal_schema,
)
from kconnect.connectors.debezium.postgres import text_values as tv

D = decimal.Decimal


def test_bool_ints_floats() -> None:
    assert tv.parse_bool("t") is True and tv.parse_bool("f") is False
    assert tv.parse_bool("TRUE") is True
    with pytest.raises(DataException):
        tv.parse_bool("yes")
    # schemasAndValuesForNumericType: si, i, bi, o
    assert tv.parse_int("1") == 1
    assert tv.parse_int("123456") == 123_456
    assert tv.parse_int("1234567890123") == 1_234_567_890_123
    assert tv.parse_int("4000000000") == 4_000_000_000
    assert tv.parse_int("-32768") == -32768
    # r 3.3f, db 4.44d, and the specials
    assert tv.parse_float4("3.3") == 3.299999952316284  # (double) 3.3f
    assert tv.parse_float8("4.44") == 4.44
    assert math.isnan(tv.parse_float8("NaN")) and math.isnan(tv.parse_float4("NaN"))
    assert tv.parse_float8("Infinity") == math.inf
    assert tv.parse_float4("-Infinity") == -math.inf
    assert tv.parse_float8("1e+308") == 1e308


def test_numeric_precise() -> None:
    # schemasAndValuesForBigDecimalEncodedNumericTypes: d numeric(3,2)=1.1 → 1.10, n(6,4)
    assert tv.parse_numeric("1.10", "precise", 2) == D("1.10")
    assert str(tv.parse_numeric("1.10", "precise", 2)) == "1.10"
    assert str(tv.parse_numeric("22.2200", "precise", 4)) == "22.2200"
    assert str(tv.parse_numeric("10", "precise", 0)) == "10"
    # a default value with more digits than the column is rescaled when exact
    assert str(tv.parse_numeric("1.5", "precise", 3)) == "1.500"
    with pytest.raises(DataException):
        tv.parse_numeric("1.555", "precise", 2)


def test_numeric_variable_scale() -> None:
    schema = variable_scale_decimal_schema(optional=True)
    dvs = tv.parse_numeric("10.1111", "precise", 0, variable_scale=True, schema=schema)
    assert dvs.schema is schema
    assert (dvs.get("scale"), dvs.get("value")) == (4, (101111).to_bytes(3, "big"))
    dvs_int = tv.parse_numeric("10", variable_scale=True)
    assert (dvs_int.get("scale"), dvs_int.get("value")) == (0, b"\x0a")
    stripped = tv.parse_numeric("22.2200", variable_scale=True)
    assert (stripped.get("scale"), stripped.get("value")) == (2, (2222).to_bytes(2, "big"))


def test_numeric_nan_refused_in_precise() -> None:
    for text in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ConnectException, match="decimal handling mode to 'string'") as e:
            tv.parse_numeric(text, "precise", 2, column="d_nan")
        assert "column d_nan" in str(e.value)


def test_numeric_double_and_string() -> None:
    # schemasAndValuesForDoubleEncodedNumericTypes
    assert tv.parse_numeric("1.10", "double", 2) == 1.1
    assert tv.parse_numeric("10.1111", "double", 0, variable_scale=True) == 10.1111
    assert math.isnan(tv.parse_numeric("NaN", "double", 2))
    assert tv.parse_numeric("-Infinity", "double", 2) == -math.inf
    # schemasAndValuesForStringEncodedNumericTypes(WithInfinity)
    assert tv.parse_numeric("1.10", "string", 2) == "1.10"
    assert tv.parse_numeric("22.0000", "string", 4) == "22.0000"
    assert tv.parse_numeric("10.1111", "string", 0, variable_scale=True) == "10.1111"
    assert tv.parse_numeric("10", "string", 0, variable_scale=True) == "10"
    assert tv.parse_numeric("NaN", "string", 2) == "NAN"
    assert tv.parse_numeric("Infinity", "string") == "POSITIVE_INFINITY"
    assert tv.parse_numeric("-Infinity", "string") == "NEGATIVE_INFINITY"


def test_money() -> None:
    # schemaAndValuesForMoneyTypes / NegativeMoneyTypes: '$1234.11', '($1234.11)'
    assert tv.parse_money("$1,234.11") == D("1234.11")
    assert str(tv.parse_money("-$1,234.11")) == "-1234.11"
    assert str(tv.parse_money("($1,234.11)")) == "-1234.11"
    assert str(tv.parse_money("$0.10", fraction_digits=3)) == "0.100"
    assert str(tv.parse_money("$1.005")) == "1.01"  # HALF_UP
    assert str(tv.parse_money("-$1.005")) == "-1.01"
    assert str(tv.parse_money("$1,000,000.00")) == "1000000.00"
    assert str(tv.parse_money(".50")) == "0.50"
    assert tv.parse_money("$1,234.11", "double") == 1234.11
    assert tv.parse_money("$1,234.10", "string") == "1234.10"
    with pytest.raises(ConnectException, match="money"):
        tv.parse_money("$abc")


def test_bytea_modes() -> None:
    # schemaAndValueForByteaBytes/Hex/Base64/Base64UrlSafe: E'\\001\\002\\003'::bytea
    assert tv.parse_bytea("\\x010203") == b"\x01\x02\x03"
    assert tv.parse_bytea("\\x010203", "hex") == "010203"
    assert tv.parse_bytea("\\x010203", "base64") == "AQID"
    assert tv.parse_bytea("\\x010203", "base64-url-safe") == "AQID"
    assert tv.parse_bytea("\\xfbff", "base64") == "+/8="
    assert tv.parse_bytea("\\xfbff", "base64-url-safe") == "-_8="
    assert tv.parse_bytea("\\xABCD", "hex") == "abcd"
    assert tv.parse_bytea("\\x") == b""
    with pytest.raises(DataException, match="bytea_output"):
        tv.parse_bytea("\\001")


def test_date() -> None:
    # schemaAndValuesForDateTimeTypes: '2016-11-04'::DATE
    assert tv.parse_date("2016-11-04") == 17_109
    assert tv.parse_date("1970-01-01") == 0
    assert tv.parse_date("1969-12-31") == -1
    assert tv.parse_date("0001-01-01 BC") == epoch_day(0, 1, 1)
    assert tv.parse_date("0044-03-15 BC") == epoch_day(-43, 3, 15)
    assert tv.parse_date("21016-11-04") == epoch_day(21016, 11, 4)
    assert tv.parse_date("infinity") == epoch_day(-5_877_611, 6, 21)
    assert tv.parse_date("-infinity") == epoch_day(-5_877_611, 6, 22)
    assert tv.parse_date("2016-11-04", "connect") == dt.date(2016, 11, 4)
    with pytest.raises(ConnectException):
        tv.parse_date("11/04/2016")


def test_time() -> None:
    # schemaAndValuesForDateTimeTypes: ti, tip (time(3)), ttf
    assert tv.parse_time("13:51:30") == 49_890_000_000
    assert tv.parse_time("13:51:30.123", 3) == 49_890_123
    assert tv.parse_time("24:00:00") == 86_400_000_000
    assert tv.parse_time("00:01:02") == 62_000_000
    assert tv.parse_time("13:51:30.123456") == 49_890_123_456
    assert tv.parse_time("13:51:30.5", 1) == 49_890_500
    # adaptive_time_microseconds: µs whatever the precision
    assert tv.parse_time("13:51:30.123", 3, "adaptive_time_microseconds") == 49_890_123_000
    assert tv.parse_time("13:51:30.123456", 6, "connect") == dt.time(13, 51, 30, 123_000)
    with pytest.raises(DataException):
        tv.parse_time("24:00:00", 6, "connect")


def test_timestamp() -> None:
    # schemaAndValuesForDateTimeTypes: ts, tsneg, ts_ms, ts_large*, ts_max, ts_min
    assert tv.parse_timestamp("2016-11-04 13:51:30.123456") == 1_478_267_490_123_456
    assert tv.parse_timestamp("2016-11-04 13:51:30.123", 3) == 1_478_267_490_123
    assert tv.parse_timestamp("1936-10-25 22:10:12.608") == -1_047_174_587_392_000
    assert tv.parse_timestamp("1936-10-25 22:10:12.608", 3) == -1_047_174_587_392
    assert tv.parse_timestamp("1969-12-31 23:59:59.999999") == -1
    assert tv.parse_timestamp("1969-12-31 23:59:59.999", 3) == -1
    large = epoch_day(21016, 11, 4) * 86_400 + 13 * 3600 + 51 * 60 + 30
    assert tv.parse_timestamp("21016-11-04 13:51:30.123456") == large * 10**6 + 123_456
    assert tv.parse_timestamp("21016-11-04 13:51:30.124", 3) == large * 1000 + 124
    assert tv.parse_timestamp("294247-01-01 23:59:59.999999") == 9_223_371_331_200_000_000 - 1
    assert tv.parse_timestamp("4713-12-31 23:59:59.999999 BC") == -210_831_897_600_000_001
    assert tv.parse_timestamp("2016-11-04T13:51:30") == 1_478_267_490_000_000
    assert tv.parse_timestamp("2016-11-04 13:51:30.123456", 6, "connect") == dt.datetime(
        2016, 11, 4, 13, 51, 30, 123_000, tzinfo=dt.UTC
    )


def test_timestamp_infinity() -> None:
    # ts_pinf / ts_ninf: PgStatement.DATE_POSITIVE/NEGATIVE_INFINITY
    assert tv.parse_timestamp("infinity") == 9_223_372_036_825_200_000
    assert tv.parse_timestamp("-infinity") == -9_223_372_036_832_400_000
    assert tv.parse_timestamp("infinity", 3) == 9_223_372_036_825_200
    with pytest.raises(DataException):
        tv.parse_timestamp("infinity", 6, "connect")


def test_timestamptz() -> None:
    # tz, tz_large, tz_max, tz_min, tz_pinf, tz_ninf, tz_zero
    assert tv.parse_timestamptz("2016-11-04 11:51:30.123456+00") == "2016-11-04T11:51:30.123456Z"
    assert tv.parse_timestamptz("2016-11-04 13:51:30.123456+02") == "2016-11-04T11:51:30.123456Z"
    assert tv.parse_timestamptz("21016-11-04 13:51:30.123456+07") == "+21016-11-04T06:51:30.123456Z"
    assert tv.parse_timestamptz("21016-11-04 13:51:30+07") == "+21016-11-04T06:51:30.000000Z"
    assert (
        tv.parse_timestamptz("294247-01-01 23:59:59.999999+00") == "+294247-01-01T23:59:59.999999Z"
    )
    assert (
        tv.parse_timestamptz("4714-12-31 23:59:59.999999+00 BC") == "-4713-12-31T23:59:59.999999Z"
    )
    assert tv.parse_timestamptz("infinity") == "infinity"
    assert tv.parse_timestamptz("-infinity") == "-infinity"
    # schemaAndValuesForTimeArrayTypes: timestamptz elements at scale 6
    assert tv.parse_timestamptz("2020-04-01 13:51:02+02") == "2020-04-01T11:51:02.000000Z"


def test_timestamptz_in_utc_reads_as_the_same_instant_at_another_offset() -> None:
    # a UTC text of a four-digit year is rewritten without arithmetic: it must give what the
    # general path gives for the same instant written at +01
    import random

    rng = random.Random(35)
    for _ in range(3000):
        at = dt.datetime(1, 1, 2) + dt.timedelta(seconds=rng.randrange(3_155_000_000 * 100))
        digits = str(rng.randrange(1_000_000)).rjust(6, "0")[: rng.randint(0, 6)].rstrip("0")
        fraction = "." + digits if digits else ""
        shifted = at + dt.timedelta(hours=1)
        utc = f"{at:%Y-%m-%d %H:%M:%S}{fraction}+00"
        plus_one = f"{shifted:%Y-%m-%d %H:%M:%S}{fraction}+01"
        if at.year < 1000 or shifted.year < 1000 or shifted.year > 9999:
            continue  # %Y is not zero-padded on every platform
        for width in (None, 0, 1, 3, 6, 9, 10):
            assert tv.parse_timestamptz(utc, width) == tv.parse_timestamptz(plus_one, width)


def test_timestamptz_offsets_and_widths() -> None:
    assert tv.parse_timestamptz("2016-11-04 00:30:00-05:30") == "2016-11-04T06:00:00.000000Z"
    assert tv.parse_timestamptz("2016-11-04 00:30:00+05:30") == "2016-11-03T19:00:00.000000Z"
    # LMT offsets with seconds appear for old dates
    assert tv.parse_timestamptz("1850-01-01 00:00:00+00:53:28") == "1849-12-31T23:06:32.000000Z"
    assert tv.parse_timestamptz("1936-10-25 22:10:12.608-01") == "1936-10-25T23:10:12.608000Z"
    assert tv.parse_timestamptz("2016-11-04 11:51:30.12+00", 3) == "2016-11-04T11:51:30.120Z"
    # timestamptz(0): ISO_OFFSET_DATE_TIME
    assert tv.parse_timestamptz("2016-11-04 11:51:30+00", 0) == "2016-11-04T11:51:30Z"
    with pytest.raises(ConnectException):
        tv.parse_timestamptz("2016-11-04 11:51:30")


def test_timetz() -> None:
    # ttz, tptz; schemaAndValuesForTimeArrayTypes (timetz elements)
    assert tv.parse_timetz("13:51:30.123789+02") == "11:51:30.123789Z"
    assert tv.parse_timetz("13:51:30.123+02") == "11:51:30.123Z"
    assert tv.parse_timetz("13:51:02+02") == "11:51:02Z"
    assert tv.parse_timetz("01:00:00+05:30") == "19:30:00Z"
    assert tv.parse_timetz("23:00:00-02") == "01:00:00Z"
    assert tv.parse_timetz("13:51:30.120000+00") == "13:51:30.12Z"


@pytest.mark.parametrize(
    ("text", "fields", "micros", "iso"),
    [
        # 'P1Y2M3DT4H5M6.78S'::INTERVAL (schemaAndValuesForDateTimeTypes / IntervalAsString)
        (
            "1 year 2 mons 3 days 04:05:06.78",
            (1, 2, 3, 4, 5, 6.78),
            37_091_106_780_000,
            "P1Y2M3DT4H5M6.78S",
        ),
        ("00:00:00", (0, 0, 0, 0, 0, 0.0), 0, "P0Y0M0DT0H0M0S"),
        ("1 day", (0, 0, 1, 0, 0, 0.0), 86_400_000_000, "P0Y0M1DT0H0M0S"),
        ("-1 days", (0, 0, -1, 0, 0, 0.0), -86_400_000_000, "P0Y0M-1DT0H0M0S"),
        (
            "-1 years -2 mons +3 days -04:05:06.5",
            (-1, -2, 3, -4, -5, -6.5),
            -36_572_706_500_000,
            "P-1Y-2M3DT-4H-5M-6.5S",
        ),
        ("-00:00:00.000001", (0, 0, 0, 0, 0, -0.000001), -1, "P0Y0M0DT0H0M-0.000001S"),
        ("1 mon", (0, 1, 0, 0, 0, 0.0), 2_629_800_000_000, "P0Y1M0DT0H0M0S"),
        ("100:00:00", (0, 0, 0, 100, 0, 0.0), 360_000_000_000, "P0Y0M0DT100H0M0S"),
        ("@ 1 year 2 mons ago", (-1, -2, 0, 0, 0, 0.0), -36_817_200_000_000, "P-1Y-2M0DT0H0M0S"),
    ],
)
def test_interval(text, fields, micros, iso) -> None:
    assert tuple(tv.parse_interval(text)) == fields
    assert tv.interval_value(text) == micros
    assert tv.interval_value(text, "string") == iso


def test_interval_bad_text() -> None:
    with pytest.raises(ConnectException, match="interval"):
        tv.parse_interval("x years")


def test_parse_array() -> None:
    assert tv.parse_array("{}") == []
    assert tv.parse_array("{1,2,3}") == ["1", "2", "3"]
    assert tv.parse_array('{"one","two","three"}') == ["one", "two", "three"]
    assert tv.parse_array("{1,NULL,3}") == ["1", None, "3"]
    assert tv.parse_array('{"NULL",null}') == ["NULL", "null"]
    assert tv.parse_array('{"a,b","c\\"d","e\\\\f","{x}",""}') == ["a,b", 'c"d', "e\\f", "{x}", ""]
    assert tv.parse_array('{"a b", c }') == ["a b", "c"]
    assert tv.parse_array("[0:1]={7,8}") == ["7", "8"]
    assert tv.parse_array("{{1,2},{3,4}}") == [["1", "2"], ["3", "4"]]
    # INSERT_ARRAY_TYPES_STMT: macaddr_array as printed
    assert tv.parse_array("{08:00:2b:01:02:03,08:00:2b:01:02:03}") == ["08:00:2b:01:02:03"] * 2
    # tsrange elements are quoted and keep their inner quotes
    assert tv.parse_array('{"[\\"2019-03-31 15:30:00\\",infinity)"}') == [
        '["2019-03-31 15:30:00",infinity)'
    ]
    for bad in ("", "1,2", "{1,2", "{1}x"):
        with pytest.raises(DataException):
            tv.parse_array(bad)


def test_array_parser_maps_elements() -> None:
    ints = tv.array_parser(tv.parse_int)
    assert ints("{1,2,3}") == [1, 2, 3]
    assert ints("{1,NULL}") == [1, None]
    assert ints("{}") == []
    dates = tv.array_parser(tv.parse_date)
    assert dates("{2016-11-04,2016-11-05,2016-11-06}") == [17_109, 17_110, 17_111]
    byteas = tv.array_parser(lambda t: tv.parse_bytea(t, "hex"))
    # bytea_binmode_table.bytea_array
    assert byteas('{"\\\\x000102","\\\\x030405"}') == ["000102", "030405"]


def test_value_parser_dispatch() -> None:
    opts = tv.ValueOptions()
    assert tv.value_parser("int4", opts)("7") == 7
    assert tv.value_parser("jsonb", opts)('{"bar": "baz"}') == '{"bar": "baz"}'
    assert tv.value_parser("uuid")("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11") == (
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    )
    assert tv.value_parser("mood", is_enum=True)("happy") == "happy"
    assert tv.value_parser("numeric", scale=2)("1.1") == D("1.10")
    assert tv.value_parser("numeric", scale=0, variable_scale=True)("1.10").get("scale") == 1
    assert tv.value_parser("time", scale=3)("13:51:30.123") == 49_890_123
    assert tv.value_parser("time")("13:51:30.123") == 49_890_123_000
    assert tv.value_parser("timestamp", scale=3)("1970-01-01 00:00:01") == 1000
    assert tv.value_parser("timestamptz")("1970-01-01 00:00:01+00") == (
        "1970-01-01T00:00:01.000000Z"
    )
    assert tv.value_parser("timestamptz", scale=0)("1970-01-01 00:00:01+00") == (
        "1970-01-01T00:00:01Z"
    )
    assert tv.value_parser("_int4")("{1,NULL}") == [1, None]
    assert tv.value_parser("_numeric", scale=1)('{"1.2",3.4}') == [D("1.2"), D("3.4")]
    assert tv.value_parser("_timetz")("{13:51:02+02}") == ["11:51:02Z"]
    string_opts = tv.ValueOptions(
        decimal_handling_mode="string",
        binary_handling_mode="base64",
        interval_handling_mode="string",
        money_fraction_digits=3,
    )
    assert tv.value_parser("numeric", string_opts, scale=2)("NaN") == "NAN"
    assert tv.value_parser("bytea", string_opts)("\\x010203") == "AQID"
    assert tv.value_parser("interval", string_opts)("1 day") == "P0Y0M1DT0H0M0S"
    assert tv.value_parser("money", string_opts)("$1.50") == "1.50"
    assert tv.value_parser("money", tv.ValueOptions(money_fraction_digits=3))("$1.50") == D("1.500")
    assert tv.value_parser("box", opts) is None
    assert tv.value_parser("_point", opts) is None


def test_value_options_validation() -> None:
    with pytest.raises(ValueError, match=r"decimal\.handling\.mode"):
        tv.ValueOptions(decimal_handling_mode="exact")
    with pytest.raises(ValueError, match=r"binary\.handling\.mode"):
        tv.ValueOptions(binary_handling_mode="base32")


def test_microseconds_and_nanoseconds_modes() -> None:
    """``time.precision.mode`` ``microseconds``: µs whatever the precision; ``nanoseconds``: ns,
    infinities at Java's Long bounds and a timestamp beyond INT64 ns null (as the jar's
    records show)."""
    assert tv.parse_time("00:00:00.001", 3, "microseconds") == 1000
    assert tv.parse_time("00:00:00.001", 3, "nanoseconds") == 1_000_000
    assert tv.parse_timestamp("1970-01-01 00:00:00.001", 3, "microseconds") == 1000
    assert tv.parse_timestamp("1970-01-01 00:00:00.001", 3, "nanoseconds") == 1_000_000
    assert tv.parse_timestamp("infinity", 6, "nanoseconds") == 2**63 - 1
    assert tv.parse_timestamp("-infinity", 6, "nanoseconds") == -(2**63)
    assert tv.parse_timestamp("10000-01-01 00:00:00", 6, "nanoseconds") is None
    assert tv.parse_timestamp("infinity", 6, "microseconds") == tv.POSITIVE_INFINITY_MICROS


def test_isostring_mode() -> None:
    """``time.precision.mode=isostring``: ``ISO_OFFSET_*`` strings in UTC, as the jar's records
    show (trimmed fractions, ``+`` years past 9999, 24:00:00 as midnight, the snapshot's date
    infinity as pgjdbc's millisecond sentinel read as a date)."""
    assert tv.parse_date("2024-02-29", "isostring") == "2024-02-29Z"
    assert tv.parse_date("infinity", "isostring", jdbc=True) == "+292278994-08-16Z"
    assert tv.parse_date("0044-03-15 BC", "isostring", jdbc=True) == "0044-03-15Z"
    assert tv.parse_time("24:00:00", 6, "isostring") == "00:00:00Z"
    assert tv.parse_time("12:00:00.000001", 6, "isostring") == "12:00:00.000001Z"
    assert tv.parse_timestamp("1969-07-20 20:17:40.5", 6, "isostring") == "1969-07-20T20:17:40.5Z"
    assert tv.parse_timestamp("infinity", 6, "isostring") == "+294247-01-10T04:00:25.2Z"
    assert tv.parse_timestamp("10000-01-01 00:00:00.999", 3, "isostring") == (
        "+10000-01-01T00:00:00.999Z"
    )


def test_hstore_as_debeziums_json() -> None:
    from kconnect.connectors.debezium.postgres.text_values.structured import (
        hstore_json,
        hstore_pairs,
    )

    text = '"a"=>"1", "n"=>NULL, "b c"=>"d \\"e\\" \\\\ f"'
    assert hstore_pairs(text) == {"a": "1", "n": None, "b c": 'd "e" \\ f'}
    assert hstore_json(text) == '{"a":"1","b c":"d \\"e\\" \\\\ f","n":null}'  # HashMap order
    assert hstore_json("") == "{}"


def test_bits_as_a_little_endian_bit_set() -> None:
    from kconnect.connectors.debezium.common.semantic_types import bits_value

    assert bits_value("10100101") == b"\xa5"
    assert bits_value("1100000001") == b"\x01\x03"
    assert bits_value("00000000") == b"" and bits_value("") == b""
