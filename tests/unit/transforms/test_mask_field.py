import datetime as dt
import decimal

import pytest

from kconnect.api import ConfigException, DataException, Decimal, Schema, SchemaBuilder, Struct
from kconnect.transforms.mask_field import MaskFieldKey, MaskFieldValue
from tests.unit.transforms.records import sink

SCHEMA = (
    SchemaBuilder.struct()
    .field("magic", Schema.INT32_SCHEMA)
    .field("bool", Schema.BOOLEAN_SCHEMA)
    .field("byte", Schema.INT8_SCHEMA)
    .field("float", Schema.FLOAT32_SCHEMA)
    .field("string", Schema.STRING_SCHEMA)
    .field("decimal", Decimal.schema(0))
    .field("array", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
    .field("opt", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)
VALUE = (
    Struct(SCHEMA)
    .put("magic", 42)
    .put("bool", True)
    .put("byte", 5)
    .put("float", 4.5)
    .put("string", "secret")
    .put("decimal", decimal.Decimal(42))
    .put("array", ["x"])
)
ALL = "bool,byte,float,string,decimal,array,opt"


def mask(cls=MaskFieldValue, **cfg):
    xf = cls()
    xf.configure(cfg)
    return xf


def test_config_errors():
    with pytest.raises(ConfigException):
        MaskFieldValue().configure({"fields": ""})
    with pytest.raises(ConfigException):
        MaskFieldValue().configure({"fields": "a", "replacement": ""})


def test_with_schema_null_values():
    out = mask(fields=ALL).apply(sink(SCHEMA, VALUE)).value
    assert (
        out.get("magic"),
        out.get("bool"),
        out.get("byte"),
        out.get("float"),
        out.get("string"),
        out.get("decimal"),
        out.get("array"),
        out.get("opt"),
    ) == (42, False, 0, 0.0, "", decimal.Decimal(0), [], None)


def test_with_schema_replacement_by_type():
    out = (
        mask(fields="byte,float,string,decimal", replacement="123").apply(sink(SCHEMA, VALUE)).value
    )
    assert (out.get("byte"), out.get("float"), out.get("string"), out.get("decimal")) == (
        123,
        123.0,
        "123",
        decimal.Decimal(123),
    )
    with pytest.raises(DataException, match=r"MaskField\$Value: Unable to convert abc"):
        mask(fields="byte", replacement="abc").apply(sink(SCHEMA, VALUE))
    with pytest.raises(DataException, match=r"Cannot mask value of type BOOLEAN.*'bool'"):
        mask(fields="bool", replacement="x").apply(sink(SCHEMA, VALUE))


def test_schemaless():
    value = {
        "i": 5,
        "f": 1.5,
        "s": "x",
        "b": True,
        "l": [1],
        "m": {"a": 1},
        "d": dt.date(2020, 1, 2),
        "n": None,
        "keep": "k",
    }
    out = mask(MaskFieldKey, fields="i,f,s,b,l,m,d,n").apply(sink(key=value)).key
    assert out == {
        "i": 0,
        "f": 0.0,
        "s": "",
        "b": False,
        "l": [],
        "m": {},
        "d": dt.date(1970, 1, 1),
        "n": None,
        "keep": "k",
    }
    out = mask(fields="i,s", replacement="7").apply(sink(None, value)).value
    assert (out["i"], out["s"]) == (7, "7")
    with pytest.raises(DataException, match="Cannot mask value of type: bytes"):
        mask(fields="x").apply(sink(None, {"x": b"raw"}))


@pytest.mark.parametrize("rnwd, expected", [("true", ""), ("false", None)])
def test_rnwd(rnwd, expected):
    schema = (
        SchemaBuilder.struct()
        .field("s", SchemaBuilder.string().optional().default_value("d").build())
        .build()
    )
    out = mask(fields="s", **{"replace.null.with.default": rnwd}).apply(
        sink(schema, Struct(schema))
    )
    assert out.value.get_without_default("s") == expected


def test_messages_and_java_floats():
    from kconnect.api.data.java_numbers import to_float32
    from kconnect.api.data.java_strings import Float32

    # Values.convertTo... says "to a number", MaskField's own (for a BigDecimal) "to number"
    with pytest.raises(DataException, match=r"Unable to convert abc \(str\) to a number"):
        mask(fields="i", replacement="abc").apply(sink(None, {"i": 1}))
    with pytest.raises(DataException, match=r"Unable to convert abc \(str\) to number"):
        mask(fields="d", replacement="abc").apply(sink(None, {"d": decimal.Decimal(1)}))
    out = mask(fields="f,g", replacement="0.1").apply(
        sink(None, {"f": Float32(2.0), "g": to_float32(2.0)})
    )
    assert type(out.value["f"]) is Float32 and out.value["f"] == to_float32(0.1)
    assert type(out.value["g"]) is float and out.value["g"] == 0.1
