"""Confluent's AvroData rules, as behaviours (after Confluent's AvroDataTest): Connect schemas and
values to Avro schema text and datums, and back. The byte-for-byte comparison with Java's
AvroData is tests/integration/test_avro_data_java.py."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

import pytest

from kconnect.api import (
    ConfigException,
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.converters.avro.avro_data import (
    ANYTHING_SCHEMA,
    AvroData,
    AvroDataConfig,
    avro_data_config_def,
    do_scrub_name,
    parse_avro_schema,
)
from kconnect.converters.avro.avro_schema_text import SchemaParseException
from kconnect.converters.avro.datum import AvroUnion


def avro_json(schema: Schema | None, **config: Any) -> Any:
    return json.loads(AvroData(AvroDataConfig(**config)).from_connect_schema(schema).to_json())


def text(schema: Schema | None, **config: Any) -> str:
    return AvroData(AvroDataConfig(**config)).from_connect_schema(schema).to_json()


# ----------------------------------------------------------------------------- config


def test_config_def_has_confluents_keys_and_defaults() -> None:
    d = avro_data_config_def()
    assert d.default_values() == {
        "generalized.sum.type.support": False,
        "ignore.default.for.nullables": False,
        "schemas.cache.config": 1000,
        "enhanced.avro.schema.support": False,
        "scrub.invalid.names": False,
        "connect.meta.data": True,
        "discard.type.doc.default": False,
        "allow.optional.map.keys": False,
        "flatten.singleton.unions": True,
    }


def test_from_configs_parses_strings_and_ignores_other_keys() -> None:
    c = AvroDataConfig.from_configs(
        {"connect.meta.data": "false", "schemas.cache.config": "0", "schema.registry.url": "x"}
    )
    assert c.connect_meta_data is False
    assert c.schemas_cache_size == 1  # Confluent: at least 1
    with pytest.raises(ConfigException, match=r"enhanced\.avro\.schema\.support"):
        AvroDataConfig.from_configs({"enhanced.avro.schema.support": "maybe"})


# ----------------------------------------------------------------------------- Connect -> Avro


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (Schema.BOOLEAN_SCHEMA, '"boolean"'),
        (Schema.INT8_SCHEMA, '{"type":"int","connect.type":"int8"}'),
        (Schema.INT16_SCHEMA, '{"type":"int","connect.type":"int16"}'),
        (Schema.INT32_SCHEMA, '"int"'),
        (Schema.INT64_SCHEMA, '"long"'),
        (Schema.FLOAT32_SCHEMA, '"float"'),
        (Schema.FLOAT64_SCHEMA, '"double"'),
        (Schema.STRING_SCHEMA, '"string"'),
        (Schema.BYTES_SCHEMA, '"bytes"'),
        (Schema.OPTIONAL_STRING_SCHEMA, '["null","string"]'),
        (SchemaBuilder.int32().optional().default_value(3).build(),
         '[{"type":"int","connect.default":3},"null"]'),
        (SchemaBuilder.float32().default_value(1.1).build(),
         '{"type":"float","connect.default":1.1}'),
        (SchemaBuilder.string().name("a.B").version(2).doc("d").parameter("k", "v").build(),
         '{"type":"string","connect.doc":"d","connect.version":2,'
         '"connect.parameters":{"k":"v"},"connect.name":"a.B"}'),
    ],
)  # fmt: skip
def test_primitive_schemas(schema: Schema, expected: str) -> None:
    assert text(schema) == expected


def test_connect_meta_data_off_drops_the_connect_properties() -> None:
    s = SchemaBuilder.int8().name("a.B").version(2).doc("d").default_value(1).build()
    assert text(s, connect_meta_data=False) == '"int"'
    # so int8 comes back as int32
    ad = AvroData(AvroDataConfig(connect_meta_data=False))
    assert ad.to_connect_schema(ad.from_connect_schema(s)) == Schema.INT32_SCHEMA


def test_struct_names_default_and_numbered() -> None:
    inner = SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build()
    other = SchemaBuilder.struct().field("y", Schema.INT32_SCHEMA).build()
    outer = SchemaBuilder.struct().field("a", inner).field("b", other).build()
    j = avro_json(outer)
    assert (j["name"], j["namespace"]) == ("ConnectDefault", "io.confluent.connect.avro")
    assert j["fields"][0]["type"]["name"] == "ConnectDefault2"
    assert j["fields"][1]["type"]["name"] == "ConnectDefault3"
    # the default name is not a Connect name: it does not come back
    ad = AvroData()
    assert ad.to_connect_schema(ad.from_connect_schema(outer)).name is None


def test_named_struct_splits_namespace_and_reuses_the_type() -> None:
    point = SchemaBuilder.struct().name("geo.Point").field("x", Schema.INT32_SCHEMA).build()
    s = (SchemaBuilder.struct().name("Shape").field("a", point).field("b", point)
         .field("c", SchemaBuilder.struct().name("geo.Point").optional()
                .field("x", Schema.INT32_SCHEMA).build()).build())  # fmt: skip
    assert text(s) == (
        '{"type":"record","name":"Shape","fields":['
        '{"name":"a","type":{"type":"record","name":"Point","namespace":"geo","fields":['
        '{"name":"x","type":"int"}],"connect.name":"geo.Point"}},'
        '{"name":"b","type":"geo.Point"},'
        '{"name":"c","type":["null","geo.Point"],"default":null}],"connect.name":"Shape"}'
    )


def test_optional_field_with_default_puts_the_type_first() -> None:
    s = (SchemaBuilder.struct()
         .field("a", SchemaBuilder.string().optional().default_value("x").build())
         .field("b", Schema.OPTIONAL_INT64_SCHEMA).build())  # fmt: skip
    fields = avro_json(s)["fields"]
    assert fields[0] == {"name": "a", "type": [{"type": "string", "connect.default": "x"},
                                               "null"], "default": "x"}  # fmt: skip
    assert fields[1] == {"name": "b", "type": ["null", "long"], "default": None}


def test_decimal_schema_and_value() -> None:
    s = Decimal.builder(2).build()
    assert text(s) == (
        '{"type":"bytes","scale":2,"precision":64,"connect.version":1,'
        '"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal",'
        '"logicalType":"decimal"}'
    )
    ad = AvroData()
    assert ad.from_connect_data(s, decimal.Decimal("-1.28")) == b"\x80"
    assert ad.from_connect_data(s, decimal.Decimal("1.28")) == b"\x00\x80"
    back = ad.to_connect_data(ad.from_connect_schema(s), b"\xff\x80")
    assert back == SchemaAndValue(s, decimal.Decimal("-1.28"))


def test_decimal_precision_parameter_and_legacy_scale() -> None:
    s = Decimal.builder(2).parameter("connect.decimal.precision", "5").build()
    j = avro_json(s)
    assert (j["precision"], j["scale"], j["logicalType"]) == (5, 2, "decimal")
    ad = AvroData()
    assert ad.to_connect_schema(ad.from_connect_schema(s)) == s
    # scale > precision: Avro's decimal refuses it, only the legacy logicalType is written
    legacy = Decimal.builder(5).parameter("connect.decimal.precision", "3").build()
    assert list(avro_json(legacy))[:3] == ["type", "scale", "precision"]
    assert avro_json(legacy)["logicalType"] == "decimal"


def test_decimal_fixed_pads_short_values_and_keeps_the_decimal_name() -> None:
    # Confluent master (the Apicurio fork lacks both)
    s = (Decimal.builder(1).parameter("connect.fixed.size", "4")
         .parameter("connect.decimal.precision", "6").build())  # fmt: skip
    ad = AvroData()
    avro = ad.from_connect_schema(s)
    assert avro.type == "fixed" and avro.size == 4
    assert ad.from_connect_data(s, decimal.Decimal("-0.5")) == b"\xff\xff\xff\xfb"
    assert ad.from_connect_data(s, decimal.Decimal("0.0")) == b"\x00\x00\x00\x00"
    back = ad.to_connect_data(avro, b"\xff\xff\xff\xfb")
    assert back.schema is not None and back.schema.name == Decimal.LOGICAL_NAME
    assert back.value == decimal.Decimal("-0.5")
    with pytest.raises(DataException, match="greater than fixed size"):
        ad.from_connect_data(s, decimal.Decimal("99999999999.0"))


@pytest.mark.parametrize(
    ("schema", "logical", "value", "datum"),
    [
        (Date.SCHEMA, "date", dt.date(1970, 1, 3), 2),
        (Time.SCHEMA, "time-millis", dt.time(0, 0, 1, 500000), 1500),
        (Timestamp.SCHEMA, "timestamp-millis",
         dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC), 1000),
    ],
)  # fmt: skip
def test_date_time_timestamp(schema: Schema, logical: str, value: Any, datum: int) -> None:
    ad = AvroData()
    avro = ad.from_connect_schema(schema)
    assert avro.props["logicalType"] == logical
    assert ad.from_connect_data(schema, value) == datum
    assert ad.to_connect_data(avro, datum) == SchemaAndValue(schema, value)


def test_maps() -> None:
    string_keys = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    assert text(string_keys) == '{"type":"map","values":"int"}'
    int_keys = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build()
    assert text(int_keys) == (
        '{"type":"array","items":{"type":"record","name":"MapEntry",'
        '"namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},'
        '{"name":"value","type":"string"}]}}'
    )
    named = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).name("a.M").build()
    j = avro_json(named)
    assert (j["items"]["name"], j["items"]["connect.internal.type"]) == ("M", "MapEntry")
    ad = AvroData()
    datum = ad.from_connect_data(int_keys, {1: "a"})
    assert datum == [{"key": 1, "value": "a"}]
    assert ad.to_connect_data(ad.from_connect_schema(int_keys), datum).value == {1: "a"}
    assert ad.to_connect_schema(ad.from_connect_schema(named)) == named


def test_optional_string_keys_need_allow_optional_map_keys() -> None:
    s = SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    assert avro_json(s)["type"] == "array"
    assert avro_json(s, allow_optional_map_keys=True) == {"type": "map", "values": "int"}


def test_schemaless_values_use_anything() -> None:
    ad = AvroData()
    assert ad.from_connect_schema(None) is ANYTHING_SCHEMA
    value = {"a": [1, 2.5, True, None, "s"], "b": {"c": None}}
    datum = ad.from_connect_data(None, value)
    assert datum["map"][0]["key"]["string"] == "a"
    assert ad.to_connect_data(ANYTHING_SCHEMA, datum) == SchemaAndValue(None, value)
    assert ad.from_connect_data(None, None) is None
    with pytest.raises(DataException, match="Unknown Java type for schemaless data"):
        ad.from_connect_data(None, b"bytes")


def test_struct_value_round_trip_and_errors() -> None:
    s = (SchemaBuilder.struct().name("R").field("i8", Schema.INT8_SCHEMA)
         .field("opt", Schema.OPTIONAL_STRING_SCHEMA)
         .field("arr", SchemaBuilder.array(Schema.INT64_SCHEMA).build()).build())  # fmt: skip
    ad = AvroData()
    v = Struct(s).put("i8", -1).put("arr", [1])
    datum = ad.from_connect_data(s, v)
    assert datum == {"i8": -1, "opt": None, "arr": [1]}
    assert ad.to_connect_data(ad.from_connect_schema(s), datum).value == v
    with pytest.raises(DataException, match="Found null value for non-optional schema"):
        ad.from_connect_data(Schema.INT32_SCHEMA, None)
    with pytest.raises(DataException, match="Invalid type for INT32"):
        ad.from_connect_data(Schema.INT32_SCHEMA, "x")
    other = SchemaBuilder.struct().name("R").field("i8", Schema.INT8_SCHEMA).build()
    with pytest.raises(DataException, match="Mismatching struct schema"):
        ad.from_connect_data(s, Struct(other).put("i8", 1))


def test_ignore_default_for_nullables() -> None:
    f = SchemaBuilder.string().optional().default_value("d").build()
    s = SchemaBuilder.struct().field("a", f).build()
    v = Struct(s)
    assert AvroData().from_connect_data(s, v) == {"a": "d"}
    assert AvroData(AvroDataConfig(ignore_default_for_nullables=True)).from_connect_data(s, v) == {
        "a": None
    }


def test_scrub_invalid_names() -> None:
    assert do_scrub_name(None) is None
    assert do_scrub_name("abc+-.*_") == "abc_2B____"
    assert do_scrub_name("abc  def") == "abc__def"
    assert do_scrub_name("0abc.def") == "x0abc_def"
    s = (SchemaBuilder.struct().name("org.acme-corp.invalid record-name")
         .field("invalid field-name", Schema.STRING_SCHEMA).build())  # fmt: skip
    assert text(s, scrub_invalid_names=True, connect_meta_data=False) == (
        '{"type":"record","name":"invalid_record_name","namespace":"org.acme_corp",'
        '"fields":[{"name":"invalid_field_name","type":"string"}]}'
    )
    ad = AvroData(AvroDataConfig(scrub_invalid_names=True))
    assert ad.from_connect_data(s, Struct(s).put("invalid field-name", "foo")) == {
        "invalid_field_name": "foo"
    }
    with pytest.raises(SchemaParseException, match="Illegal character"):
        text(s)


# ----------------------------------------------------------------------------- enums, unions

ENUM_AVRO = '{"type":"enum","name":"com.x.Color","doc":"cd","symbols":["RED","BLUE"]}'


def test_enum_to_connect_and_back_with_enhanced_support() -> None:
    ad = AvroData(AvroDataConfig(enhanced_avro_schema_support=True))
    avro = parse_avro_schema(ENUM_AVRO)
    s = ad.to_connect_schema(avro)
    assert s.type is Type.STRING and s.name == "com.x.Color"
    assert dict(s.parameters or {}) == {
        "io.confluent.connect.avro.enum.doc.Color": "cd",
        "io.confluent.connect.avro.Enum": "com.x.Color",
        "io.confluent.connect.avro.Enum.RED": "RED",
        "io.confluent.connect.avro.Enum.BLUE": "BLUE",
    }
    assert json.loads(ad.from_connect_schema(s).to_json())["type"] == "enum"
    assert ad.from_connect_data(s, "BLUE") == "BLUE"
    with pytest.raises(DataException, match="Invalid enum symbol"):
        ad.from_connect_data(s, "GREEN")
    # without enhanced support the enum is written as a string
    assert avro_json(s)["type"] == "string"


def test_enum_with_generalized_sum_types() -> None:
    ad = AvroData(AvroDataConfig(generalized_sum_type_support=True))
    s = ad.to_connect_schema(parse_avro_schema(ENUM_AVRO))
    assert dict(s.parameters or {})["org.apache.kafka.connect.data.Enum.BLUE"] == "1"
    assert json.loads(ad.from_connect_schema(s).to_json())["symbols"] == ["RED", "BLUE"]


UNION_AVRO = ('["null","int","string",{"type":"record","name":"a.Rec","fields":'
              '[{"name":"f","type":"int"}]}]')  # fmt: skip


def test_union_to_connect_struct_and_back() -> None:
    ad = AvroData()
    avro = parse_avro_schema(UNION_AVRO)
    s = ad.to_connect_schema(avro)
    assert s.name == "io.confluent.connect.avro.Union" and s.optional
    assert [f.name for f in s.fields] == ["int", "string", "Rec"]
    back = ad.to_connect_data(avro, AvroUnion(3, {"f": 1}))
    assert back.value.get("Rec").get("f") == 1
    assert back.value.get("int") is None
    assert ad.from_connect_data(s, back.value) == AvroUnion(3, {"f": 1})
    assert ad.to_connect_data(avro, AvroUnion(0, None)) == SchemaAndValue.NULL
    assert ad.from_connect_data(s, None) == AvroUnion(0, None)
    # enhanced support names record members by full name
    enhanced = AvroData(AvroDataConfig(enhanced_avro_schema_support=True))
    assert [f.name for f in enhanced.to_connect_schema(avro).fields][-1] == "a.Rec"


def test_union_with_generalized_sum_types_numbers_unions() -> None:
    ad = AvroData(AvroDataConfig(generalized_sum_type_support=True))
    a = ad.to_connect_schema(parse_avro_schema('["int","string"]'))
    b = ad.to_connect_schema(parse_avro_schema('["long","string"]'))
    assert (a.name, b.name) == ("connect_union_0", "connect_union_1")
    assert [f.name for f in a.fields] == ["connect_union_field_0", "connect_union_field_1"]
    assert dict(a.parameters or {}) == {"org.apache.kafka.connect.data.Union": "connect_union_0"}


def test_union_member_names_must_be_unique() -> None:
    avro = parse_avro_schema(
        '[{"type":"record","name":"a.R","fields":[]},{"type":"record","name":"b.R","fields":[]}]'
    )
    with pytest.raises(DataException, match="Multiple union schemas map"):
        AvroData().to_connect_schema(avro)


def test_singleton_unions_flatten_by_default() -> None:
    avro = parse_avro_schema('["int"]')
    assert AvroData().to_connect_schema(avro) == Schema.INT32_SCHEMA
    s = AvroData(AvroDataConfig(flatten_singleton_unions=False)).to_connect_schema(avro)
    assert s.type is Type.STRUCT and [f.name for f in s.fields] == ["int"]


# ----------------------------------------------------------------------------- Avro -> Connect


def test_foreign_record_with_defaults_docs_and_logical_types() -> None:
    avro = parse_avro_schema(
        '{"type":"record","name":"x.R","doc":"rd","fields":['
        '{"name":"i","type":"int","default":3,"doc":"fd"},'
        '{"name":"m","type":{"type":"long","logicalType":"timestamp-micros"}},'
        '{"name":"u","type":{"type":"string","logicalType":"uuid"}},'
        '{"name":"f","type":{"type":"fixed","name":"F","size":2}},'
        '{"name":"b","type":"bytes","default":"\\u00ff"}]}'
    )
    s = AvroData().to_connect_schema(avro, 5)
    assert (s.name, s.version) == ("x.R", 5)
    assert dict(s.parameters or {}) == {
        "io.confluent.connect.avro.record.doc": "rd",
        "io.confluent.connect.avro.field.doc.i": "fd",
    }
    i = s.field("i")
    assert i is not None
    assert i.schema.default_value == 3
    assert dict(i.schema.parameters or {}) == {"io.confluent.connect.avro.field.default": "true"}
    m, u = s.field("m"), s.field("u")
    assert m is not None and u is not None
    assert m.schema == Schema.INT64_SCHEMA and u.schema == Schema.STRING_SCHEMA
    f = s.field("f")
    assert f is not None and f.schema.name == "x.F"
    assert dict(f.schema.parameters or {}) == {"connect.fixed.size": "2"}
    b = s.field("b")
    assert b is not None and b.schema.default_value == b"\xff"


def test_version_and_name_mismatches() -> None:
    ad = AvroData()
    with pytest.raises(DataException, match="Mismatched versions"):
        ad.to_connect_schema(parse_avro_schema('{"type":"int","logicalType":"date"}'), 3)
    with pytest.raises(DataException, match="Mismatched names"):
        ad.to_connect_schema(parse_avro_schema(
            '{"type":"int","logicalType":"date","connect.name":"other"}'))  # fmt: skip
    with pytest.raises(DataException, match="Invalid Connect version found"):
        ad.to_connect_schema(parse_avro_schema('{"type":"int","connect.version":"x"}'))
    with pytest.raises(DataException, match="Standalone null schemas are not supported"):
        ad.to_connect_schema(parse_avro_schema('"null"'))


def test_recursive_avro_records_are_refused() -> None:
    avro = parse_avro_schema(
        '{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}'
    )
    with pytest.raises(DataException, match="Recursive Avro schema Node"):
        AvroData().to_connect_schema(avro)


def test_schema_caches_return_the_same_objects() -> None:
    ad = AvroData(AvroDataConfig(schemas_cache_size=2))
    s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    assert ad.from_connect_schema(s) is ad.from_connect_schema(s)
    avro = parse_avro_schema('{"type":"record","name":"R","fields":[]}')
    assert ad.to_connect_schema(avro) is ad.to_connect_schema(avro)


def test_discard_type_doc_default() -> None:
    ad = AvroData(AvroDataConfig(discard_type_doc_default=True))
    avro = parse_avro_schema(
        '{"type":"record","name":"R","doc":"rd","fields":[{"name":"i","type":"int",'
        '"default":3,"doc":"fd"}]}'
    )
    s = ad.to_connect_schema(avro)
    assert s.doc == "rd"
    i = s.field("i")
    assert i is not None and i.schema.doc == "fd" and i.schema.parameters is None
    assert ad.from_connect_schema(s).to_json() == (
        '{"type":"record","name":"R","doc":"rd","fields":[{"name":"i","type":'
        '{"type":"int","connect.doc":"fd","connect.default":3},"doc":"fd","default":3}],'
        '"connect.doc":"rd","connect.parameters":{"connect.record.doc":"rd"},"connect.name":"R"}'
    )


# ----------------------------------------------------------------------------- schema text


def test_parse_and_print_names_namespaces_and_references() -> None:
    t = (
        '{"type":"record","name":"R","namespace":"a","fields":['
        '{"name":"x","type":{"type":"record","name":"S","namespace":"","fields":[]}},'
        '{"name":"y","type":"S"},{"name":"z","type":{"type":"fixed","name":"F","namespace":"b","size":1}},'
        '{"name":"w","type":"b.F"}],"p":{"q":[1,2.0]},"aliases":["Old"]}'
    )
    assert parse_avro_schema(t).to_json() == t
    with pytest.raises(SchemaParseException, match="is not a defined name"):
        parse_avro_schema('{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}')
    with pytest.raises(SchemaParseException, match="Duplicate in union"):
        parse_avro_schema('["int","int"]')


def test_field_level_parameters_for_a_shared_named_type() -> None:
    # Confluent master: the second use of a named type is a name reference, so the
    # parameters that differ travel on the field
    def address(tag: str) -> Schema:
        return (SchemaBuilder.struct().name("Address").parameter("tag", tag)
                .field("street", Schema.OPTIONAL_STRING_SCHEMA).build())  # fmt: skip

    person = (SchemaBuilder.struct().name("Person").field("home", address("2"))
              .field("work", address("3")).build())  # fmt: skip
    ad = AvroData()
    avro = ad.from_connect_schema(person)
    j = json.loads(avro.to_json())
    assert j["fields"][1] == {"name": "work", "type": "Address",
                              "connect.parameters": {"tag": "3"}}  # fmt: skip
    back = ad.to_connect_schema(parse_avro_schema(avro.to_json()))
    tags = [dict(f.schema.parameters or {})["tag"] for f in back.fields]
    assert tags == ["2", "3"]
    # not with connect.meta.data off
    j = avro_json(person, connect_meta_data=False)
    assert j["fields"][1] == {"name": "work", "type": "Address"}
