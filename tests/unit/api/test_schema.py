import pytest

from kconnect.api import DataException, Field, Schema, SchemaBuilder, Type
from kconnect.api.errors import SchemaBuilderException


def test_primitive_constants() -> None:
    assert Schema.INT32_SCHEMA.type is Type.INT32
    assert not Schema.INT32_SCHEMA.optional
    assert Schema.OPTIONAL_STRING_SCHEMA.optional
    assert Schema.OPTIONAL_STRING_SCHEMA.type is Type.STRING


def test_struct_builder_and_field_lookup() -> None:
    s = (
        SchemaBuilder.struct()
        .name("table01")
        .version(2)
        .doc("d")
        .field("id", Schema.INT32_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    assert s.name == "table01" and s.version == 2 and s.doc == "d"
    assert [f.name for f in s.fields] == ["id", "item"]
    assert s.field("item") == Field("item", 1, Schema.OPTIONAL_STRING_SCHEMA)
    assert s.field("missing") is None


def test_equality_and_hash_compare_every_property() -> None:
    def make(name: str = "x", default: int | None = None) -> Schema:
        b = SchemaBuilder.int32().name(name).optional()
        if default is not None:
            b.default_value(default)
        return b.build()

    assert make() == make() and hash(make()) == hash(make())
    assert make("x") != make("y")
    assert make(default=1) != make(default=2)
    assert make(default=1) == make(default=1)
    m1 = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build()
    m2 = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    assert m1 != m2
    assert SchemaBuilder.array(Schema.INT8_SCHEMA).build().value_schema == Schema.INT8_SCHEMA


def test_builder_refuses_duplicate_fields_and_resetting_name() -> None:
    b = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA)
    with pytest.raises(SchemaBuilderException, match="duplication a"):
        b.field("a", Schema.INT8_SCHEMA)
    with pytest.raises(SchemaBuilderException, match="already been set"):
        SchemaBuilder.string().name("a").name("b")
    with pytest.raises(SchemaBuilderException, match="Cannot create fields on type INT8"):
        SchemaBuilder.int8().field("a", Schema.INT8_SCHEMA)


def test_invalid_default_is_refused() -> None:
    with pytest.raises(SchemaBuilderException, match="Invalid default value"):
        SchemaBuilder.int8().default_value(1000)
    with pytest.raises(SchemaBuilderException):
        SchemaBuilder.string().default_value(5)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Schema.INT8_SCHEMA, 128),
        (Schema.INT16_SCHEMA, -32769),
        (Schema.INT32_SCHEMA, 2**31),
        (Schema.INT64_SCHEMA, 2**63),
        (Schema.INT32_SCHEMA, True),
        (Schema.INT32_SCHEMA, "1"),
        (Schema.BOOLEAN_SCHEMA, 1),
        (Schema.STRING_SCHEMA, b"x"),
        (Schema.BYTES_SCHEMA, "x"),
        (SchemaBuilder.array(Schema.INT8_SCHEMA).build(), [1, "a"]),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {1: 1}),
        (Schema.STRING_SCHEMA, None),
    ],
)
def test_validate_value_rejects(schema: Schema, value: object) -> None:
    with pytest.raises(DataException):
        schema.validate_value(value)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Schema.INT8_SCHEMA, -128),
        (Schema.INT64_SCHEMA, -(2**63)),
        (Schema.FLOAT64_SCHEMA, 1.5),
        (Schema.FLOAT32_SCHEMA, 2),
        (Schema.BYTES_SCHEMA, bytearray(b"x")),
        (Schema.OPTIONAL_STRING_SCHEMA, None),
        (SchemaBuilder.array(Schema.OPTIONAL_INT8_SCHEMA).build(), [1, None]),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": 1}),
    ],
)
def test_validate_value_accepts(schema: Schema, value: object) -> None:
    schema.validate_value(value)


def test_non_struct_accessors_raise() -> None:
    with pytest.raises(DataException):
        _ = Schema.INT8_SCHEMA.fields
    with pytest.raises(DataException):
        _ = Schema.INT8_SCHEMA.key_schema
    with pytest.raises(DataException):
        _ = Schema.INT8_SCHEMA.value_schema


def test_of_copies_a_schema() -> None:
    s = SchemaBuilder.struct().name("n").field("a", Schema.INT8_SCHEMA).optional().build()
    assert SchemaBuilder.of(s).build() == s


def test_schema_with_a_struct_default_is_hashable() -> None:
    from kconnect.api import Struct

    inner = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA).optional().build()
    with_default = SchemaBuilder.of(inner).default_value(Struct(inner).put("a", 1))
    outer = SchemaBuilder.struct().field("in", with_default).build()
    same = SchemaBuilder.struct().field("in", with_default).build()
    assert outer == same and hash(outer) == hash(same)
    assert {outer: 1}[same] == 1
