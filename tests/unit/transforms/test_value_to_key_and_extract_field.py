"""ValueToKey and ExtractField, including the walkthrough chain createKey,extractInt."""

import pytest

from kconnect.api import ConfigException, DataException, Schema, SchemaBuilder, Struct
from kconnect.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from kconnect.transforms.value_to_key import ValueToKey
from tests.unit.transforms.records import sink, source

TABLE01 = (
    SchemaBuilder.struct()
    .name("table01")
    .field("id", Schema.INT32_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .field("price", Schema.OPTIONAL_FLOAT64_SCHEMA)
    .build()
)


def test_walkthrough_chain_create_key_then_extract_int():
    create_key, extract_int = ValueToKey(), ExtractFieldKey()
    create_key.configure({"fields": "id"})
    extract_int.configure({"field": "id"})
    value = Struct(TABLE01).put("id", 7).put("item", "widget").put("price", 9.5)
    out = extract_int.apply(create_key.apply(source(TABLE01, value)))
    assert out.key == 7
    assert out.key_schema == Schema.INT32_SCHEMA
    assert out.value is value and out.value_schema is TABLE01


def test_value_to_key_schemaless_and_schema_cache():
    xf = ValueToKey()
    xf.configure({"fields": "a,b"})
    out = xf.apply(sink(None, {"a": 1, "b": 2, "c": 3}))
    assert out.key == {"a": 1, "b": 2} and out.key_schema is None
    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.INT32_SCHEMA)
        .field("c", Schema.INT32_SCHEMA)
        .build()
    )
    r1 = xf.apply(sink(schema, Struct(schema).put("a", 1).put("b", 2).put("c", 3)))
    r2 = xf.apply(sink(schema, Struct(schema).put("a", 4).put("b", 5).put("c", 6)))
    assert r1.key_schema is r2.key_schema
    assert [f.name for f in r1.key_schema.fields] == ["a", "b"]
    assert r2.key.get("a") == 4


def test_value_to_key_missing_field_and_non_struct():
    xf = ValueToKey()
    xf.configure({"fields": "nope"})
    with pytest.raises(DataException, match=r"ValueToKey: Field does not exist: nope"):
        xf.apply(sink(TABLE01, Struct(TABLE01).put("id", 1)))
    with pytest.raises(DataException, match=r"ValueToKey: Only Map objects supported"):
        xf.apply(sink(None, "text"))
    with pytest.raises(ConfigException):
        ValueToKey().configure({"fields": ""})


@pytest.mark.parametrize("rnwd, expected", [(True, 18), (False, None)])
def test_value_to_key_replace_null_with_default(rnwd, expected):
    schema = (
        SchemaBuilder.struct()
        .field("age", SchemaBuilder.int32().optional().default_value(18).build())
        .build()
    )
    xf = ValueToKey()
    xf.configure({"fields": "age", "replace.null.with.default": str(rnwd).lower()})
    assert xf.apply(sink(schema, Struct(schema))).key.get_without_default("age") == expected


def test_extract_field_schemaless_and_tombstone():
    xf = ExtractFieldKey()
    xf.configure({"field": "magic"})
    assert xf.apply(sink(key={"magic": 42})).key == 42
    assert xf.apply(sink(key={"other": 1})).key is None
    out = xf.apply(sink(key=None))
    assert out.key is None and out.key_schema is None


def test_extract_field_with_schema_and_null_value():
    schema = SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build()
    xf = ExtractFieldValue()
    xf.configure({"field": "magic"})
    out = xf.apply(sink(schema, Struct(schema).put("magic", 42)))
    assert (out.value, out.value_schema) == (42, Schema.INT32_SCHEMA)
    out = xf.apply(sink(schema, None))
    assert out.value is None and out.value_schema == Schema.INT32_SCHEMA


def test_extract_field_errors_name_the_transform():
    xf = ExtractFieldKey()
    xf.configure({"field": "magic"})
    with pytest.raises(
        DataException,
        match=r"^ExtractField\$Key: Only Struct objects supported "
        r"for \[field extraction\], found: str$",
    ):
        xf.apply(sink(key="x", key_schema=Schema.STRING_SCHEMA))
    schema = SchemaBuilder.struct().field("other", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataException, match="Unknown field: magic"):
        xf.apply(sink(key=Struct(schema).put("other", 1), key_schema=schema))


@pytest.mark.parametrize("rnwd, expected", [("true", 5), ("false", None)])
def test_extract_field_rnwd(rnwd, expected):
    schema = (
        SchemaBuilder.struct()
        .field("f", SchemaBuilder.int32().optional().default_value(5).build())
        .build()
    )
    xf = ExtractFieldValue()
    xf.configure({"field": "f", "replace.null.with.default": rnwd})
    assert xf.apply(sink(schema, Struct(schema))).value == expected


def test_extract_field_v2_nested_paths():
    inner = SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).build()
    schema = SchemaBuilder.struct().field("a", inner).field("x.y", Schema.STRING_SCHEMA).build()
    value = Struct(schema).put("a", Struct(inner).put("b", 3)).put("x.y", "dotted")
    nested = ExtractFieldValue()
    nested.configure({"field": "a.b", "field.syntax.version": "v2"})
    out = nested.apply(sink(schema, value))
    assert (out.value, out.value_schema) == (3, Schema.INT32_SCHEMA)
    dotted = ExtractFieldValue()
    dotted.configure({"field": "`x.y`", "field.syntax.version": "V2"})
    assert dotted.apply(sink(schema, value)).value == "dotted"
    v1 = ExtractFieldValue()
    v1.configure({"field": "x.y"})  # V1: the whole text is one field name
    assert v1.apply(sink(schema, value)).value == "dotted"
    assert nested.apply(sink(None, {"a": {"b": 9}})).value == 9
    assert nested.apply(sink(None, {"a": None})).value is None


@pytest.mark.parametrize(
    "path, steps",
    [
        ("a.b", ("a", "b")),
        ("`a.b`.c", ("a.b", "c")),
        ("a.", ("a", "")),
        ("`a\\`.b`.c", ("a`.b", "c")),
        ("`a`b`", ("a`b",)),
    ],
)
def test_field_path_v2_parsing(path, steps):
    from kconnect.transforms._util.field_path import SingleFieldPath

    assert SingleFieldPath(path, "V2").steps == steps


def test_field_path_incomplete_backtick_and_bad_version():
    with pytest.raises(ConfigException, match="Incomplete backtick pair"):
        ExtractFieldValue().configure({"field": "`a.b", "field.syntax.version": "V2"})
    with pytest.raises(ConfigException, match=r"field\.syntax\.version"):
        ExtractFieldValue().configure({"field": "a", "field.syntax.version": "V3"})
    with pytest.raises(ConfigException, match='"field"'):
        ExtractFieldValue().configure({})


def test_value_to_key_null_in_required_field_fails_naming_it():
    schema = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("x", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    xf = ValueToKey()
    xf.configure({"fields": "id,x", "replace.null.with.default": "false"})
    ok = xf.apply(source(schema, Struct(schema).put("id", 7)))
    assert ok.key.get("id") == 7 and ok.key.get("x") is None
    with pytest.raises(DataException, match="id"):
        xf.apply(source(schema, Struct(schema).put("x", "only x")))  # id never set


def test_derived_records_own_their_headers():
    schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    xf = ValueToKey()
    xf.configure({"fields": "id"})
    rec = source(schema, Struct(schema).put("id", 1))
    out = xf.apply(rec)
    out.headers.add_string("h", "v")
    assert len(rec.headers) == 0 and len(out.headers) == 1
    rec.headers.add_string("a", "b")
    again = xf.apply(rec)
    again.headers.add_string("c", "d")
    assert [h.key for h in rec.headers] == ["a"]
    assert [h.key for h in again.headers] == ["a", "c"]
