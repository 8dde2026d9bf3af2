import datetime as dt
import decimal
import struct

import pytest

from kconnect.api import (
    ConfigException,
    DataException,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Timestamp,
)
from kconnect.api.data.java_strings import Float32
from kconnect.transforms.cast import CastKey, CastValue
from tests.unit.transforms.records import sink


def cast(cls, spec, **extra):
    xf = cls()
    xf.configure({"spec": spec, **extra})
    return xf


@pytest.mark.parametrize("spec", ["", "foo:int99", "int8,int32", "a:array", "a:b:c"])
def test_config_errors(spec):
    with pytest.raises(ConfigException):
        cast(CastValue, spec)


def test_bad_type_names_the_key_or_type():
    with pytest.raises(ConfigException, match="int99"):
        cast(CastValue, "foo:int99")


@pytest.mark.parametrize(
    "target, value, expected",
    [
        ("int8", 300, 44),
        ("int16", 42, 42),
        ("int32", 42.9, 42),
        ("int64", True, 1),
        ("float32", 1, 1.0),
        ("float64", "1.5", 1.5),
        ("boolean", 0, False),
        ("boolean", "TRUE", True),
        ("string", 42, "42"),
        ("string", True, "true"),
        ("string", 1.0, "1.0"),
        ("int32", "42", 42),
    ],
)
def test_whole_value_schemaless(target, value, expected):
    out = cast(CastValue, target).apply(sink(None, value))
    if target == "float32":  # a Java Float, without a schema to say so
        expected = Float32(expected)
    assert out.value == expected and type(out.value) is type(expected)


def test_whole_value_with_schema_and_null_passthrough():
    xf = cast(CastKey, "int32")
    out = xf.apply(sink(key_schema=Schema.INT64_SCHEMA, key=42))
    assert out.key == 42 and out.key_schema == Schema.INT32_SCHEMA
    rec = sink(key_schema=Schema.INT64_SCHEMA, key=None)
    assert xf.apply(rec) is rec


def test_fields_with_schema_keep_optionality_and_defaults():
    schema = (
        SchemaBuilder.struct()
        .name("s")
        .field("a", Schema.INT32_SCHEMA)
        .field("b", SchemaBuilder.int64().optional().default_value(7).build())
        .field("c", Schema.STRING_SCHEMA)
        .build()
    )
    xf = cast(CastValue, "a:string,b:int8")
    out = xf.apply(sink(schema, Struct(schema).put("a", 5).put("c", "x")))
    assert out.value_schema.name == "s"
    assert out.value_schema.field("a").schema.type.value == "string"
    b = out.value_schema.field("b").schema
    assert b.optional and b.default_value == 7
    assert out.value.get("a") == "5" and out.value.get_without_default("b") == 7
    assert (
        xf.apply(sink(schema, Struct(schema).put("a", 1).put("c", "y"))).value_schema
        is out.value_schema
    )


def test_rnwd_false_keeps_null():
    schema = (
        SchemaBuilder.struct()
        .field("b", SchemaBuilder.int64().optional().default_value(7).build())
        .build()
    )
    out = cast(CastValue, "b:int8", **{"replace.null.with.default": "false"}).apply(
        sink(schema, Struct(schema))
    )
    assert out.value.get_without_default("b") is None


def test_logical_and_decimal_inputs():
    ts = dt.datetime(2017, 1, 3, 6, 30, tzinfo=dt.UTC)
    schema = (
        SchemaBuilder.struct()
        .field("t", Timestamp.SCHEMA)
        .field("d", Decimal.schema(2))
        .field("b", Schema.BYTES_SCHEMA)
        .build()
    )
    value = Struct(schema).put("t", ts).put("d", decimal.Decimal("12.34")).put("b", b"hi")
    out = cast(CastValue, "t:int64,d:float64,b:string").apply(sink(schema, value))
    assert out.value.get("t") == Timestamp.from_logical(Timestamp.SCHEMA, ts)
    assert out.value.get("d") == 12.34
    assert out.value.get("b") == "aGk="
    out = cast(CastValue, "t:string").apply(sink(schema, value))
    assert out.value.get("t") == "2017-01-03T06:30:00.000Z"


def test_to_string_uses_java_float_and_date_text():
    schema = (
        SchemaBuilder.struct()
        .field("f", Schema.FLOAT32_SCHEMA)
        .field("g", Schema.FLOAT64_SCHEMA)
        .field("t", Timestamp.SCHEMA)
        .build()
    )
    f32 = struct.unpack("f", struct.pack("f", 1.1))[0]
    # Before 1970-01-02 Values.dateFormatFor picks the time-only pattern.
    early = dt.datetime(1969, 12, 31, 23, 0, tzinfo=dt.UTC)
    value = Struct(schema).put("f", f32).put("g", 2.0**60).put("t", early)
    out = cast(CastValue, "f:string,g:string,t:string").apply(sink(schema, value))
    assert out.value.get("f") == "1.1"  # Float.toString, not the double's digits
    assert out.value.get("g") == "1.15292150460684698E18"  # JDK 17 Double.toString
    assert out.value.get("t") == "23:00:00.000Z"


def test_unsupported_inputs_and_bad_values():
    with pytest.raises(
        DataException,
        match=r"Cast\$Value: Cast transformation does not support "
        r"casting from MAP",
    ):
        cast(CastValue, "int32").apply(sink(None, {"a": 1}))
    schema = SchemaBuilder.struct().field("s", SchemaBuilder.struct().build()).build()
    with pytest.raises(DataException, match=r"STRUCT.*field 's'"):
        cast(CastValue, "s:string").apply(
            sink(schema, Struct(schema).put("s", Struct(schema.field("s").schema)))
        )
    with pytest.raises(DataException, match="out of range"):
        cast(CastValue, "int8").apply(sink(None, "1000"))
    with pytest.raises(DataException, match="Unexpected type"):
        cast(CastValue, "int32").apply(sink(Schema.BYTES_SCHEMA, b"x"))


def test_schemaless_fields():
    out = cast(CastValue, "a:int8,b:string").apply(sink(None, {"a": 257, "b": 1.5, "c": "k"}))
    assert out.value == {"a": 1, "b": "1.5", "c": "k"}


def test_doubles_narrow_through_a_saturating_int():
    # Double.intValue/shortValue/byteValue: (byte) (int) d, where (int) saturates; NaN is 0
    out = cast(CastValue, "a:int32,b:int16,c:int8,d:int32,e:int64").apply(
        sink(None, {"a": 1e21, "b": -1e10, "c": 1e21, "d": float("nan"), "e": 1e21})
    )
    assert out.value == {"a": 2147483647, "b": 0, "c": -1, "d": 0, "e": 9223372036854775807}


def test_schemaless_values_of_logical_classes_are_refused():
    # Kafka infers no schema type for a java.util.Date or BigDecimal without a schema
    for v in (dt.datetime(2020, 1, 1, tzinfo=dt.UTC), dt.date(2020, 1, 1), decimal.Decimal(1)):
        with pytest.raises(DataException, match=r"Cast\$Value: Cast transformation was passed"):
            cast(CastValue, "a:int64").apply(sink(None, {"a": v}))


def test_schemaless_float32_stays_a_java_float():
    out = cast(CastValue, "a:float32").apply(sink(None, {"a": 0.1}))
    assert type(out.value["a"]) is Float32
    # and cast again, it is read as a Float (FLOAT32) as Kafka infers it
    assert cast(CastValue, "a:string").apply(out).value == {"a": "0.1"}
