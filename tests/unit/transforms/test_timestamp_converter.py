import datetime as dt

import pytest

from kconnect.api import (
    ConfigException,
    DataException,
    Date,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from kconnect.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from tests.unit.transforms.records import sink

FMT = "yyyy MM dd HH mm ss SSS z"
MS = 1483425001001  # 2017-01-03 06:30:01.001 UTC
DATETIME = dt.datetime(2017, 1, 3, 6, 30, 1, 1000, tzinfo=dt.UTC)
STRING = "2017 01 03 06 30 01 001 UTC"


def conv(cls=TimestampConverterValue, **cfg):
    xf = cls()
    xf.configure({k.replace("_", "."): v for k, v in cfg.items()})
    return xf


def test_config_errors():
    with pytest.raises(ConfigException):
        conv(target_type="invalid")
    with pytest.raises(ConfigException, match="format"):
        conv(target_type="string")
    with pytest.raises(ConfigException, match="SimpleDateFormat"):
        conv(target_type="unix", format="bad-format w")
    with pytest.raises(ConfigException):
        conv(target_type="unix", unix_precision="minutes")


@pytest.mark.parametrize(
    "target, expected",
    [
        ("Timestamp", DATETIME),
        ("unix", MS),
        ("string", STRING),
        ("Date", dt.date(2017, 1, 3)),
        ("Time", dt.time(6, 30, 1, 1000)),
    ],
)
@pytest.mark.parametrize("source", [DATETIME, MS, STRING])
def test_schemaless_whole_value(source, target, expected):
    assert conv(target_type=target, format=FMT).apply(sink(None, source)).value == expected


@pytest.mark.parametrize(
    "schema, value",
    [
        (Timestamp.SCHEMA, DATETIME),
        (Schema.INT64_SCHEMA, MS),
        (Schema.STRING_SCHEMA, STRING),
    ],
)
@pytest.mark.parametrize(
    "target, out_schema, expected",
    [
        ("Timestamp", Timestamp.SCHEMA, DATETIME),
        ("unix", Schema.INT64_SCHEMA, MS),
        ("Date", Date.SCHEMA, dt.date(2017, 1, 3)),
        ("Time", Time.SCHEMA, dt.time(6, 30, 1, 1000)),
    ],
)
def test_with_schema_whole_value(schema, value, target, out_schema, expected):
    out = conv(target_type=target, format=FMT).apply(sink(schema, value))
    assert (out.value_schema, out.value) == (out_schema, expected)


@pytest.mark.parametrize(
    "precision, unix",
    [
        ("seconds", MS // 1000),
        ("milliseconds", MS),
        ("microseconds", MS * 1000),
        ("nanoseconds", MS * 1_000_000),
    ],
)
def test_unix_precision_both_ways(precision, unix):
    to_unix = conv(target_type="unix", unix_precision=precision)
    assert to_unix.apply(sink(None, DATETIME)).value == unix
    back = conv(target_type="Timestamp", unix_precision=precision)
    expected = DATETIME.replace(microsecond=0) if precision == "seconds" else DATETIME
    assert back.apply(sink(None, unix)).value == expected


def test_field_with_schema_optional_null_and_rnwd():
    schema = (
        SchemaBuilder.struct()
        .field("ts", SchemaBuilder.int64().optional().default_value(MS).build())
        .field("other", Schema.STRING_SCHEMA)
        .build()
    )
    xf = conv(field="ts", target_type="Timestamp")
    out = xf.apply(sink(schema, Struct(schema).put("other", "x")))
    assert out.value.get("ts") == DATETIME and out.value.get("other") == "x"
    assert out.value_schema.field("ts").schema.optional
    no_default = conv(field="ts", target_type="Timestamp", replace_null_with_default="false")
    assert no_default.apply(sink(schema, Struct(schema).put("other", "x"))).value.get("ts") is None
    assert xf.apply(sink(schema, None)).value is None


def test_schemaless_field_and_key_variant():
    xf = conv(TimestampConverterKey, field="ts", target_type="string", format="yyyy-MM-dd")
    out = xf.apply(sink(key={"ts": MS, "k": 1}))
    assert out.key == {"ts": "2017-01-03", "k": 1}
    assert xf.apply(sink(key=None)).key is None


def test_bad_values():
    with pytest.raises(DataException, match=r"does not match pattern"):
        conv(target_type="unix", format=FMT).apply(sink(None, "not a date"))
    with pytest.raises(
        DataException,
        match=r"TimestampConverter\$Value: TimestampConverter does "
        "not support float",
    ):
        conv(target_type="unix").apply(sink(None, 1.5))


def test_unix_conversions_saturate_as_time_unit_does():
    # TimeUnit.MILLISECONDS.toNanos and SECONDS.toMillis saturate at the long range
    big = 9_300_000_000_000_000  # ms: beyond a long in ns
    out = conv(field="t", target_type="unix", unix_precision="nanoseconds").apply(
        sink(None, {"t": DATETIME.replace(year=2017)})
    )
    assert out.value["t"] == 1483425001001 * 1_000_000
    xf = conv(field="t", target_type="unix", unix_precision="nanoseconds")
    assert xf._ms_to_unix(big) == (1 << 63) - 1 and xf._ms_to_unix(-big) == -(1 << 63)
    seconds = conv(field="t", target_type="unix", unix_precision="seconds")
    assert seconds._unix_to_ms(-(1 << 62)) == -(1 << 63)
    assert seconds._ms_to_unix(-1500) == -1  # toSeconds truncates toward zero


def test_a_struct_without_the_field_passes_unchanged():
    schema = SchemaBuilder.struct().field("other", Schema.INT64_SCHEMA).build()
    out = conv(field="t", target_type="string", format="yyyy").apply(
        sink(schema, Struct(schema).put("other", 5))
    )
    assert out.value_schema.field("other").schema == Schema.INT64_SCHEMA
    assert out.value.get("other") == 5


def test_a_timestamp_beyond_python_datetimes_is_a_data_exception():
    with pytest.raises(DataException, match="outside the range of Python's datetime"):
        conv(target_type="Timestamp").apply(sink(None, 1 << 62))
