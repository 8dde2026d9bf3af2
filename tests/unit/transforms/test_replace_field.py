import logging

import pytest

from kconnect.api import ConfigException, DataException, Schema, SchemaBuilder, Struct
from kconnect.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from tests.unit.transforms.records import sink

VALUE = {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}


def replace(cls=ReplaceFieldValue, **cfg):
    xf = cls()
    xf.configure(cfg)
    return xf


def test_tombstone_and_schemaless():
    rec = sink(None, None)
    assert replace(exclude="dont").apply(rec) is rec
    out = replace(exclude="dont", renames="abc:xyz,foo:bar").apply(sink(None, VALUE))
    assert out.value == {"xyz": 42, "bar": True, "etc": "etc"}
    out = replace(ReplaceFieldKey, include="abc,foo").apply(sink(key=VALUE))
    assert out.key == {"abc": 42, "foo": True}


def test_with_schema_and_rnwd():
    schema = (
        SchemaBuilder.struct()
        .name("n")
        .field("dont", Schema.STRING_SCHEMA)
        .field("abc", SchemaBuilder.int32().optional().default_value(9).build())
        .field("etc", Schema.STRING_SCHEMA)
        .build()
    )
    value = Struct(schema).put("dont", "x").put("etc", "e")
    out = replace(exclude="dont", renames="abc:xyz").apply(sink(schema, value))
    assert [f.name for f in out.value_schema.fields] == ["xyz", "etc"]
    assert out.value_schema.name == "n"
    assert out.value.get_without_default("xyz") == 9
    out = replace(renames="abc:xyz", **{"replace.null.with.default": "false"}).apply(
        sink(schema, value)
    )
    assert out.value.get_without_default("xyz") is None


@pytest.mark.parametrize("renames", ["a", "a:b:c", "a:"])
def test_invalid_renames(renames):
    with pytest.raises(ConfigException, match="Invalid rename mapping"):
        replace(renames=renames)


def test_legacy_blacklist_whitelist_aliases(caplog):
    with caplog.at_level(logging.WARNING):
        out = replace(blacklist="dont").apply(sink(None, VALUE))
    assert "dont" not in out.value and "removed in Kafka 4.0" in caplog.text
    assert replace(whitelist="abc").apply(sink(None, VALUE)).value == {"abc": 42}


def test_bad_value():
    with pytest.raises(DataException, match=r"ReplaceField\$Value: Only Struct"):
        replace(exclude="a").apply(sink(Schema.STRING_SCHEMA, "x"))


def test_output_fields_take_their_input_by_kafkas_inverse_renames():
    # Kafka finds each output field's input through the inverted renames (a HashMap filled in
    # the renames' HashMap order), not forwards (expected: what Kafka 4.1.2 gives)
    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.INT32_SCHEMA)
        .field("s", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    value = Struct(schema).put("a", 1).put("b", 2).put("s", "x")

    def apply(**cfg):
        xf = ReplaceFieldValue()
        xf.configure(cfg)
        return xf.apply(sink(schema, value)).value

    # a and b both renamed to z, b excluded: z is b's value (the later of a, b in the HashMap)
    assert str(apply(renames="a:z,b:z", exclude="b")) == "Struct{z=2,s=x}"
    assert str(apply(renames="b:z,s:z", exclude="b")) == "Struct{a=1,z=x}"
    # a rename onto a field that stays: that field looks for the renamed one, which is absent
    with pytest.raises(DataException, match=r"^x is not a valid field name$"):
        apply(renames="x:a")
