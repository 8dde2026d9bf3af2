import pytest

from kconnect.api import DataException, Schema, SchemaBuilder, Struct

SCHEMA = (
    SchemaBuilder.struct()
    .name("table01")
    .field("id", Schema.INT32_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .field("qty", SchemaBuilder.int64().optional().default_value(7).build())
    .build()
)


def test_put_get_and_defaults() -> None:
    s = Struct(SCHEMA).put("id", 1).put("item", "apple")
    assert s.get("id") == 1
    assert s.get("item") == "apple"
    assert s.get("qty") == 7
    assert s.get_without_default("qty") is None
    assert s.get_int32("id") == 1
    s.validate()


def test_wrong_type_names_the_field_and_type() -> None:
    with pytest.raises(DataException, match=r'INT32: str for field: "id"'):
        Struct(SCHEMA).put("id", "1")


def test_unknown_field() -> None:
    with pytest.raises(DataException, match="nope is not a valid field name"):
        Struct(SCHEMA).put("nope", 1)


def test_validate_requires_required_fields() -> None:
    with pytest.raises(DataException, match='required field: "id"'):
        Struct(SCHEMA).put("item", "x").validate()


def test_typed_getter_checks_type() -> None:
    with pytest.raises(DataException, match="not of type STRING"):
        Struct(SCHEMA).put("id", 1).get_string("id")


def test_equality_and_repr() -> None:
    a = Struct(SCHEMA).put("id", 1).put("item", "x")
    b = Struct(SCHEMA).put("id", 1).put("item", "x")
    assert a == b
    assert a != Struct(SCHEMA).put("id", 2)
    assert repr(a) == "Struct{id=1,item=x}"


def test_nested_struct_schema_mismatch() -> None:
    inner = SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA).build()
    other = SchemaBuilder.struct().field("b", Schema.INT8_SCHEMA).build()
    outer = SchemaBuilder.struct().field("in", inner).build()
    with pytest.raises(DataException, match="Struct schemas do not match"):
        Struct(outer).put("in", Struct(other).put("b", 1))


def test_trusted_constructor_skips_checks_but_behaves_the_same() -> None:
    t = Struct.trusted(SCHEMA, {"id": 3, "item": None, "qty": None})
    assert t == Struct(SCHEMA).put("id", 3)
    assert t.get("qty") == 7


def test_validate_accepts_a_null_where_the_field_has_a_default() -> None:
    # Kafka's Struct.validate skips a null in a field that is optional or has a default (get
    # returns the default); put still refuses a null in a required field.
    schema = (
        SchemaBuilder.struct()
        .field("d", SchemaBuilder.int32().default_value(7).build())
        .field("r", Schema.INT32_SCHEMA)
        .build()
    )
    s = Struct(schema).put("r", 1)
    s.validate()
    assert s.get("d") == 7
    with pytest.raises(DataException, match='null used for required field: "d"'):
        s.put("d", None)
    with pytest.raises(DataException, match='null used for required field: "r"'):
        Struct(schema).validate()
