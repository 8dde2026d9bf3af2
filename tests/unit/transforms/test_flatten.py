import pytest

from kconnect.api import DataException, Schema, SchemaBuilder, Struct
from kconnect.transforms.flatten import FlattenKey, FlattenValue
from tests.unit.transforms.records import sink


def flat(cls=FlattenValue, **cfg):
    xf = cls()
    xf.configure(cfg)
    return xf


def test_schemaless_nested_maps_and_arrays():
    value = {"A": {"B": {"int8": 8, "arr": [1, {"x": 1}]}, "s": "x"}, "n": None}
    out = flat(delimiter="#").apply(sink(None, value))
    assert out.value == {"A#B#int8": 8, "A#B#arr": [1, {"x": 1}], "A#s": "x", "n": None}


def test_with_schema_optional_and_defaults_propagate():
    inner = (
        SchemaBuilder.struct()
        .field("x", Schema.INT32_SCHEMA)
        .field("arr", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
        .build()
    )
    opt_inner = SchemaBuilder.struct().optional().field("y", Schema.STRING_SCHEMA).build()
    schema = SchemaBuilder.struct().name("n").field("in", inner).field("opt", opt_inner).build()
    value = Struct(schema).put("in", Struct(inner).put("x", 1).put("arr", [1, 2]))
    xf = flat()
    out = xf.apply(sink(schema, value))
    assert [f.name for f in out.value_schema.fields] == ["in.x", "in.arr", "opt.y"]
    assert out.value_schema.name == "n"
    assert out.value_schema.field("opt.y").schema.optional
    assert out.value.get("in.x") == 1 and out.value.get("in.arr") == [1, 2]
    assert out.value.get("opt.y") is None
    assert xf.apply(sink(schema, value)).value_schema is out.value_schema


def test_tombstone_and_key_side():
    rec = sink(None, None)
    assert flat().apply(rec) is rec
    assert flat(FlattenKey).apply(sink(key={"a": {"b": 1}})).key == {"a.b": 1}


def test_map_inside_struct_is_refused():
    schema = (
        SchemaBuilder.struct()
        .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
        .build()
    )
    with pytest.raises(DataException, match=r"Flatten\$Value: .*MAP.*field m"):
        flat().apply(sink(schema, Struct(schema).put("m", {})))
    with pytest.raises(DataException, match="Only Map objects"):
        flat().apply(sink(None, "text"))


def test_schemaless_values_without_a_connect_type_are_refused_as_kafka_says():
    import decimal

    with pytest.raises(DataException, match=r"Flatten\$Value: .*was passed a value of type"):
        flat().apply(sink(None, {"a": {"b": decimal.Decimal(1)}}))
    with pytest.raises(DataException, match=r"does not support Struct for record without"):
        flat().apply(sink(None, {"a": Struct(SchemaBuilder.struct().build())}))
