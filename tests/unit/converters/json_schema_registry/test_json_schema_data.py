"""JsonSchemaData: Connect schemas <-> JSON Schema documents and values <-> JSON (no registry).

The expected documents follow what Confluent's JsonSchemaConverter registers, as the schema
texts it prints show (``type`` first, ``connect.*`` annotations in Java HashMap order,
properties in Java HashMap order, optional as ``oneOf`` with null).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

import orjson
import pytest

from kconnect.api import (
    ConfigException,
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from kconnect.converters.json_schema_registry.json_schema_data import (
    JSON_TYPE_ONE_OF,
    JsonSchemaData,
    JsonSchemaDataConfig,
)
from kconnect.jackson import jackson_dumps

DATA = JsonSchemaData()
NUMERIC = JsonSchemaData(JsonSchemaDataConfig(decimal_format="NUMERIC"))


def text(schema: Schema | None, data: JsonSchemaData = DATA) -> str:
    return jackson_dumps(data.from_connect_schema(schema)).decode()


def value_text(schema: Schema | None, value: Any, data: JsonSchemaData = DATA) -> str:
    return jackson_dumps(data.from_connect_data(schema, value)).decode()


def read_back(schema: Schema | None, data: JsonSchemaData = DATA) -> Schema | None:
    return data.to_connect_schema(json.loads(text(schema, data)))


def value_back(schema: Schema | None, value: Any, data: JsonSchemaData = DATA) -> Any:
    payload = value_text(schema, value, data)
    return data.to_connect_data(schema, json.loads(payload, parse_float=decimal.Decimal))


# ---- primitives


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (Schema.INT8_SCHEMA, '{"type":"integer","connect.type":"int8"}'),
        (Schema.INT16_SCHEMA, '{"type":"integer","connect.type":"int16"}'),
        (Schema.INT32_SCHEMA, '{"type":"integer","connect.type":"int32"}'),
        (Schema.INT64_SCHEMA, '{"type":"integer","connect.type":"int64"}'),
        (Schema.FLOAT32_SCHEMA, '{"type":"number","connect.type":"float32"}'),
        (Schema.FLOAT64_SCHEMA, '{"type":"number","connect.type":"float64"}'),
        (Schema.BOOLEAN_SCHEMA, '{"type":"boolean"}'),
        (Schema.STRING_SCHEMA, '{"type":"string"}'),
        (Schema.BYTES_SCHEMA, '{"type":"string","connect.type":"bytes"}'),
        (
            Schema.OPTIONAL_STRING_SCHEMA,
            '{"oneOf":[{"type":"null"},{"type":"string"}]}',
        ),
        (None, "{}"),
    ],
)
def test_primitive_schemas(schema: Schema | None, expected: str) -> None:
    assert text(schema) == expected
    assert read_back(schema) == schema


@pytest.mark.parametrize(
    ("schema", "value", "json_text"),
    [
        (Schema.INT8_SCHEMA, -128, "-128"),
        (Schema.INT16_SCHEMA, 32767, "32767"),
        (Schema.INT32_SCHEMA, -(2**31), "-2147483648"),
        (Schema.INT64_SCHEMA, 2**63 - 1, "9223372036854775807"),
        (Schema.FLOAT32_SCHEMA, 1.5, "1.5"),
        (Schema.FLOAT64_SCHEMA, 1e10, "1.0E10"),
        (Schema.FLOAT64_SCHEMA, 0.1, "0.1"),
        (Schema.BOOLEAN_SCHEMA, True, "true"),
        (Schema.STRING_SCHEMA, "h\u00e9llo \U0001f600", '"h\u00e9llo \\uD83D\\uDE00"'),
        (Schema.BYTES_SCHEMA, b"\x00\x01\xff", '"AAH/"'),
        (Schema.OPTIONAL_INT32_SCHEMA, None, "null"),
    ],
)
def test_primitive_values(schema: Schema, value: Any, json_text: str) -> None:
    assert value_text(schema, value) == json_text
    assert value_back(schema, value) == value


def test_out_of_range_and_wrong_types_are_data_errors() -> None:
    with pytest.raises(DataException):
        DATA.from_connect_data(Schema.INT8_SCHEMA, 128)
    with pytest.raises(DataException):
        DATA.from_connect_data(Schema.INT32_SCHEMA, "1")
    with pytest.raises(DataException):
        DATA.from_connect_data(Schema.STRING_SCHEMA, None)
    with pytest.raises(DataException):
        DATA.to_connect_data(Schema.INT16_SCHEMA, 40000)
    with pytest.raises(DataException):
        DATA.to_connect_data(Schema.BOOLEAN_SCHEMA, 1)
    with pytest.raises(DataException):
        DATA.to_connect_data(Schema.BYTES_SCHEMA, "not base64!")
    with pytest.raises(DataException):
        DATA.to_connect_data(Schema.STRING_SCHEMA, None)


# ---- logical types


def test_logical_type_schemas() -> None:
    # Decimal: a base64 string by default, a number with decimal.format=NUMERIC
    assert text(Decimal.schema(2)) == (
        '{"type":"string","title":"org.apache.kafka.connect.data.Decimal",'
        '"connect.version":1,"connect.parameters":{"scale":"2"}}'
    )
    assert text(Decimal.schema(2), NUMERIC) == (
        '{"type":"number","title":"org.apache.kafka.connect.data.Decimal",'
        '"connect.version":1,"connect.parameters":{"scale":"2"}}'
    )
    assert read_back(Decimal.schema(2), NUMERIC) == Decimal.schema(2)
    assert text(Date.SCHEMA) == (
        '{"type":"integer","title":"org.apache.kafka.connect.data.Date",'
        '"connect.version":1,"connect.type":"int32"}'
    )
    assert text(Time.SCHEMA) == (
        '{"type":"integer","title":"org.apache.kafka.connect.data.Time",'
        '"connect.version":1,"connect.type":"int32"}'
    )
    assert text(Timestamp.SCHEMA) == (
        '{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp",'
        '"connect.version":1,"connect.type":"int64"}'
    )
    for schema in (Decimal.schema(2), Date.SCHEMA, Time.SCHEMA, Timestamp.SCHEMA):
        assert read_back(schema) == schema


def test_logical_type_values() -> None:
    d = decimal.Decimal("-12345678901234567890.12")
    assert value_text(Decimal.schema(2), d, NUMERIC) == "-12345678901234567890.12"
    assert value_back(Decimal.schema(2), d, NUMERIC) == d
    assert value_back(Decimal.schema(2), d) == d
    day = dt.date(2024, 2, 29)
    assert value_text(Date.SCHEMA, day) == "19782"
    assert value_back(Date.SCHEMA, day) == day
    t = dt.time(13, 14, 15, 123000)
    assert value_text(Time.SCHEMA, t) == str(((13 * 60 + 14) * 60 + 15) * 1000 + 123)
    assert value_back(Time.SCHEMA, t) == t
    ts = dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC)
    assert value_text(Timestamp.SCHEMA, ts) == "1704164645006"
    assert value_back(Timestamp.SCHEMA, ts) == ts


def test_decimal_formats_and_reading_either_form() -> None:
    schema = Decimal.schema(2)
    d = decimal.Decimal("1.25")  # unscaled 125 = 0x7d
    assert value_text(schema, d) == '"fQ=="'
    assert value_text(schema, decimal.Decimal("1.2"), NUMERIC) == "1.2"
    for data in (DATA, NUMERIC):
        assert data.to_connect_data(schema, "fQ==") == d
        assert data.to_connect_data(schema, decimal.Decimal("1.25")) == d
        assert data.to_connect_data(schema, 3) == decimal.Decimal("3.00")
        with pytest.raises(DataException):
            data.to_connect_data(schema, decimal.Decimal("1.255"))
    with pytest.raises(DataException):
        DATA.from_connect_data(schema, decimal.Decimal("1.255"))


# ---- structs, optional, defaults


def _person() -> Schema:
    return (
        SchemaBuilder.struct()
        .name("com.example.Person")
        .version(3)
        .doc("a person")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("email", Schema.OPTIONAL_STRING_SCHEMA)
        .field("age", SchemaBuilder.int16().optional().default_value(18).build())
        .build()
    )


def test_struct_schema_document() -> None:
    # properties in Java HashMap order; each with its connect.index
    assert text(_person()) == (
        '{"type":"object","title":"com.example.Person","description":"a person",'
        '"connect.version":3,"properties":{'
        '"name":{"type":"string","connect.index":1},'
        '"id":{"type":"integer","connect.index":0,"connect.type":"int64"},'
        '"email":{"connect.index":2,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"age":{"default":18,"connect.index":3,'
        '"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int16"}]}}}'
    )
    assert read_back(_person()) == _person()


def test_observed_confluent_documents_read_back_in_field_order() -> None:
    # schema texts printed by Confluent's converter (Debezium's and a datagen connector's)
    observed = (
        '{"type":"object","properties":{"cvv":{"type":"string","connect.index":2},'
        '"card_number":{"type":"string","connect.index":1},'
        '"expiration_date":{"type":"string","connect.index":3},'
        '"card_id":{"type":"number","connect.index":0,"connect.type":"float64"}}}'
    )
    schema = DATA.to_connect_schema(json.loads(observed))
    assert schema is not None
    assert [f.name for f in schema.fields] == ["card_id", "card_number", "cvv", "expiration_date"]
    assert schema.fields[0].schema == Schema.FLOAT64_SCHEMA
    assert text(schema) == observed
    value = (
        '{"type":"object","title":"server1.dbo.customers.Value","properties":{'
        '"last_name":{"type":"string","connect.index":2},'
        '"phone_number":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"id":{"type":"integer","connect.index":0,"connect.type":"int32"},'
        '"first_name":{"type":"string","connect.index":1},'
        '"email":{"type":"string","connect.index":3}}}'
    )
    schema = DATA.to_connect_schema(json.loads(value))
    assert schema is not None
    assert schema.name == "server1.dbo.customers.Value"
    assert [f.name for f in schema.fields] == [
        "id",
        "first_name",
        "last_name",
        "email",
        "phone_number",
    ]
    assert schema.field("phone_number").schema == Schema.OPTIONAL_STRING_SCHEMA  # type: ignore[union-attr]
    assert text(schema) == value


def test_struct_values_nulls_and_defaults() -> None:
    schema = _person()
    s = Struct(schema).put("id", 7).put("name", "Ann")
    # the default replaces a null (replace.null.with.default=true)
    assert value_text(schema, s) == '{"id":7,"name":"Ann","email":null,"age":18}'
    assert value_back(schema, s) == Struct(schema).put("id", 7).put("name", "Ann").put("age", 18)
    keep_null = JsonSchemaData(JsonSchemaDataConfig(replace_null_with_default=False))
    assert value_text(schema, s, keep_null) == '{"id":7,"name":"Ann","email":null,"age":null}'
    read = keep_null.to_connect_data(schema, {"id": 7, "name": "Ann", "age": None})
    assert read.get_without_default("age") is None
    # a missing required field is an error
    with pytest.raises(DataException):
        DATA.to_connect_data(schema, {"name": "Ann"})


def test_nested_structs_arrays_and_optional_struct() -> None:
    inner = (
        SchemaBuilder.struct().name("Inner").optional().field("x", Schema.FLOAT32_SCHEMA).build()
    )
    outer = (
        SchemaBuilder.struct()
        .field("inner", inner)
        .field("list", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build())
        .field("structs", SchemaBuilder.array(inner).build())
        .build()
    )
    doc = json.loads(text(outer))
    assert "title" not in doc  # an unnamed struct has no title
    assert doc["properties"]["inner"] == {
        "connect.index": 0,
        "oneOf": [
            {"type": "null"},
            {
                "type": "object",
                "title": "Inner",
                "properties": {
                    "x": {"type": "number", "connect.index": 0, "connect.type": "float32"}
                },
            },
        ],
    }
    assert doc["properties"]["list"] == {
        "type": "array",
        "connect.index": 1,
        "items": {"oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int32"}]},
    }
    assert read_back(outer) == outer
    value = (
        Struct(outer)
        .put("inner", Struct(inner).put("x", 0.5))
        .put("list", [1, None, 3])
        .put("structs", [Struct(inner).put("x", 2.0), None])
    )
    assert value_text(outer, value) == (
        '{"inner":{"x":0.5},"list":[1,null,3],"structs":[{"x":2.0},null]}'
    )
    assert value_back(outer, value) == value


# ---- maps


def test_string_key_map_is_an_object() -> None:
    schema = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build()
    assert text(schema) == (
        '{"type":"object","connect.type":"map",'
        '"additionalProperties":{"type":"integer","connect.type":"int64"}}'
    )
    assert read_back(schema) == schema
    assert value_text(schema, {"b": 1, "a": 2}) == '{"b":1,"a":2}'
    assert value_back(schema, {"b": 1, "a": 2}) == {"b": 1, "a": 2}


def test_other_maps_are_arrays_of_key_value_objects() -> None:
    schema = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build()
    assert text(schema) == (
        '{"type":"array","connect.type":"map","items":{"type":"object","properties":{'
        '"value":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"key":{"type":"integer","connect.index":0,"connect.type":"int32"}}}}'
    )
    assert read_back(schema) == schema
    assert value_text(schema, {1: "a", 2: None}) == (
        '[{"key":1,"value":"a"},{"key":2,"value":null}]'
    )
    assert value_back(schema, {1: "a", 2: None}) == {1: "a", 2: None}
    # optional string keys also take the array form
    opt = SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT8_SCHEMA).build()
    assert json.loads(text(opt))["type"] == "array"
    assert read_back(opt) == opt


def test_struct_keyed_map_reads_as_pairs() -> None:
    key = SchemaBuilder.struct().name("K").field("k", Schema.INT32_SCHEMA).build()
    schema = SchemaBuilder.map(key, Schema.STRING_SCHEMA).build()
    assert read_back(schema) == schema
    pairs = [(Struct(key).put("k", 1), "one")]
    assert value_text(schema, pairs) == '[{"key":{"k":1},"value":"one"}]'
    assert value_back(schema, pairs) == pairs


# ---- schemaless


def test_schemaless_values() -> None:
    value = {"a": [1, 2.5, "x", None, True], "b": {"c": b"\x01"}}
    assert value_text(None, value) == '{"a":[1,2.5,"x",null,true],"b":{"c":"AQ=="}}'
    assert DATA.to_connect_schema({}) is None
    assert DATA.to_connect_schema(True) is None
    assert DATA.to_connect_data(None, {"a": [1, 2.5]}) == {"a": [1, 2.5]}


# ---- settings


def test_object_additional_properties_false_and_required_with_optional_for_nonrequired() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("R")
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    closed = JsonSchemaData(JsonSchemaDataConfig(object_additional_properties=False))
    assert json.loads(text(schema, closed))["additionalProperties"] is False
    assert read_back(schema, closed) == schema
    nonrequired = JsonSchemaData(JsonSchemaDataConfig(use_optional_for_nonrequired=True))
    assert json.loads(text(schema, nonrequired))["required"] == ["a"]
    assert read_back(schema, nonrequired) == schema


def test_use_optional_for_nonrequired_when_reading_plain_json_schema() -> None:
    doc = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"],
    }
    plain = DATA.to_connect_schema(doc)
    assert plain is not None
    assert [f.schema for f in plain.fields] == [Schema.STRING_SCHEMA, Schema.INT64_SCHEMA]
    nonrequired = JsonSchemaData(JsonSchemaDataConfig(use_optional_for_nonrequired=True))
    relaxed = nonrequired.to_connect_schema(doc)
    assert relaxed is not None
    assert [f.schema for f in relaxed.fields] == [
        Schema.STRING_SCHEMA,
        Schema.OPTIONAL_INT64_SCHEMA,
    ]
    assert nonrequired.to_connect_data(relaxed, {"a": "x"}) == Struct(relaxed).put("a", "x")


def test_config_parsing() -> None:
    config = JsonSchemaDataConfig.from_configs(
        {
            "decimal.format": "base64",
            "object.additional.properties": "false",
            "use.optional.for.nonrequired": "true",
            "schemas.cache.size": "5",
            "json.fail.invalid.schema": "true",
            "schema.registry.url": "http://ignored",
        }
    )
    assert config == JsonSchemaDataConfig(
        schemas_cache_size=5,
        object_additional_properties=False,
        use_optional_for_nonrequired=True,
        decimal_format="BASE64",
        fail_invalid_schema=True,
    )
    assert JsonSchemaDataConfig.from_configs({}).decimal_format == "BASE64"
    assert JsonSchemaDataConfig.from_configs({"decimal.format": "numeric"}) == JsonSchemaDataConfig(
        decimal_format="NUMERIC"
    )
    with pytest.raises(ConfigException, match=r"decimal\.format"):
        JsonSchemaDataConfig.from_configs({"decimal.format": "TEXT"})


# ---- JSON Schemas Connect did not make


def test_refs_definitions_enums_type_lists_and_all_of() -> None:
    doc = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Order",
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "status": {"enum": ["NEW", "DONE"]},
            "note": {"type": ["string", "null"]},
            "price": {"type": "number"},
            "customer": {"$ref": "#/definitions/Customer"},
            "backup": {"oneOf": [{"type": "null"}, {"$ref": "#/definitions/Customer"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "extra": {"type": "object", "additionalProperties": {"type": "boolean"}},
            "both": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}},
                    {"properties": {"b": {"type": "boolean"}}},
                ]
            },
        },
        "required": ["id"],
        "definitions": {
            "Customer": {
                "type": "object",
                "title": "Customer",
                "properties": {"name": {"type": "string"}},
            }
        },
    }
    schema = DATA.to_connect_schema(doc)
    assert schema is not None
    assert schema.name == "Order"
    fields = {f.name: f.schema for f in schema.fields}
    assert list(fields) == list(doc["properties"])  # no connect.index: document order
    assert fields["id"] == Schema.INT64_SCHEMA
    assert fields["status"] == Schema.STRING_SCHEMA
    assert fields["note"] == Schema.OPTIONAL_STRING_SCHEMA
    assert fields["price"] == Schema.FLOAT64_SCHEMA
    assert fields["customer"].name == "Customer"
    assert not fields["customer"].optional
    assert fields["backup"].optional and fields["backup"].name == "Customer"
    assert fields["tags"] == SchemaBuilder.array(Schema.STRING_SCHEMA).build()
    assert fields["extra"] == SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA).build()
    assert [f.name for f in fields["both"].fields] == ["a", "b"]
    value = DATA.to_connect_data(
        schema,
        {
            "id": 1,
            "status": "NEW",
            "note": None,
            "price": 2,
            "customer": {"name": "c"},
            "backup": None,
            "tags": ["t"],
            "extra": {"k": True},
            "both": {"a": "x", "b": False},
        },
    )
    assert value.get("customer").get("name") == "c"
    assert value.get("price") == 2.0 and isinstance(value.get("price"), float)
    assert value.get("extra") == {"k": True}


def test_recursive_ref_is_refused() -> None:
    doc = {
        "type": "object",
        "properties": {"next": {"$ref": "#"}},
    }
    with pytest.raises(DataException, match="Recursive"):
        DATA.to_connect_schema(doc)


def test_general_one_of_is_a_one_of_struct() -> None:
    doc = {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    schema = DATA.to_connect_schema(doc)
    assert schema is not None
    assert schema.name == JSON_TYPE_ONE_OF and schema.optional
    assert [f.name for f in schema.fields] == [
        "io.confluent.connect.json.OneOf.field.0",
        "io.confluent.connect.json.OneOf.field.1",
    ]
    as_int = DATA.to_connect_data(schema, 5)
    assert as_int.get("io.confluent.connect.json.OneOf.field.1") == 5
    assert as_int.get("io.confluent.connect.json.OneOf.field.0") is None
    assert DATA.to_connect_data(schema, None) is None
    # and back: the branch that holds the value is written
    assert jackson_dumps(DATA.from_connect_data(schema, as_int)) == b"5"
    assert orjson.loads(text(schema)) == {
        "oneOf": [
            {"type": "null"},
            {
                "oneOf": [
                    {"oneOf": [{"type": "null"}, {"type": "string"}]},
                    {"oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int64"}]},
                ]
            },
        ]
    }
