import pytest

from kconnect.api import ConfigException, DataException, Schema, SchemaBuilder, Struct
from kconnect.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from kconnect.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from tests.unit.transforms.records import sink


def ssm(cls=SetSchemaMetadataValue, **cfg):
    xf = cls()
    xf.configure(cfg)
    return xf


def test_set_name_and_version_and_struct_rebuilt():
    schema = (
        SchemaBuilder.struct()
        .name("old")
        .field("f", SchemaBuilder.int32().optional().default_value(3).build())
        .build()
    )
    out = ssm(**{"schema.name": "foo", "schema.version": "42"}).apply(sink(schema, Struct(schema)))
    assert (out.value_schema.name, out.value_schema.version) == ("foo", 42)
    assert out.value.schema is out.value_schema and out.value.get_without_default("f") == 3
    out = ssm(**{"schema.name": "foo", "replace.null.with.default": "false"}).apply(
        sink(schema, Struct(schema))
    )
    assert out.value.get_without_default("f") is None


def test_key_map_schema_and_errors():
    # Kafka copies the schema with schema.fields(), which refuses every type but STRUCT
    m = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    for schema, key in ((m, {"a": 1}), (Schema.STRING_SCHEMA, "k"), (m, None)):
        with pytest.raises(
            DataException, match=r"^SetSchemaMetadata\$Key: Cannot list fields on non-struct type$"
        ):
            ssm(SetSchemaMetadataKey, **{"schema.version": "2"}).apply(
                sink(key_schema=schema, key=key)
            )
    s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    out = ssm(SetSchemaMetadataKey, **{"schema.version": "2"}).apply(sink(key_schema=s, key=None))
    assert out.key_schema.version == 2 and out.key is None
    rec = sink(None, None)
    assert ssm(**{"schema.name": "x"}).apply(rec) is rec
    with pytest.raises(DataException, match=r"SetSchemaMetadata\$Value: Schema required"):
        ssm(**{"schema.name": "x"}).apply(sink(None, {"a": 1}))
    with pytest.raises(ConfigException, match="Neither schema name nor version"):
        ssm()


def test_hoist_field():
    xf = HoistFieldKey()
    xf.configure({"field": "magic"})
    assert xf.apply(sink(key=42)).key == {"magic": 42}
    out = xf.apply(sink(key_schema=Schema.INT32_SCHEMA, key=42))
    assert out.key_schema.field("magic").schema == Schema.INT32_SCHEMA
    assert out.key.get("magic") == 42
    assert xf.apply(sink(key_schema=Schema.INT32_SCHEMA, key=1)).key_schema is out.key_schema
    with pytest.raises(ConfigException):
        HoistFieldValue().configure({})


def test_a_null_in_a_required_field_is_refused_when_the_struct_is_rebuilt():
    # InsertField leaves a required timestamp field unset on a record without timestamp (as
    # Kafka does); the next SMT that puts every field into a new Struct refuses the null
    from kconnect.transforms.insert_field import InsertFieldValue

    schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    insert = InsertFieldValue()
    insert.configure({"timestamp.field": "t!"})
    rec = insert.apply(sink(schema, Struct(schema).put("a", 1)))
    assert rec.value.get_without_default("t") is None
    with pytest.raises(
        DataException,
        match=r'^Invalid value: null used for required field: "t", schema type: INT64$',
    ):
        ssm(**{"schema.name": "x"}).apply(rec)
