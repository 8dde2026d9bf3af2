"""ProtobufData: Connect schemas and values <-> proto3 schemas and messages, without a registry."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Mapping
from typing import Any

import pytest
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.converters.protobuf.proto_parser import parse_proto
from kconnect.converters.protobuf.proto_render import BUILTIN_FILES, render
from kconnect.converters.protobuf.protobuf_codec import compile_top_reader
from kconnect.converters.protobuf.protobuf_data import (
    ENUM_PARAM,
    FIELD_TAG_PARAM,
    UNION_NAME,
    GeneratedSchema,
    ProtobufDataConfig,
    from_connect_data,
    from_connect_schema,
    to_connect_data,
    to_connect_schema,
)


def _fs(schema: Schema | None, field: str) -> Schema:
    """The schema of ``field`` of the struct ``schema`` (failing the test when missing)."""
    assert schema is not None
    f = schema.field(field)
    assert f is not None
    return f.schema


def _descriptor(g: GeneratedSchema) -> Descriptor:
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(name: str) -> None:
        if name in added:
            return
        for dep in BUILTIN_FILES[name].dependency:
            add(dep)
        pool.Add(BUILTIN_FILES[name])
        added.add(name)

    for dep in g.file.dependency:
        add(dep)
    if g.file.name not in added:
        pool.Add(g.file)
    return pool.FindMessageTypeByName(g.message)


def _round_trip(
    schema: Schema, value: Any, config: ProtobufDataConfig | None = None
) -> tuple[Schema, Any, bytes]:
    g = from_connect_schema(schema, config)
    # what is registered is text: parse it back as a reader would
    if g.file.name == "connect.proto":
        imports = [BUILTIN_FILES[d] for d in g.file.dependency] + [
            BUILTIN_FILES["google/protobuf/descriptor.proto"]
        ]
        reparsed = parse_proto(render(g.file), "connect.proto", imports)
        g = GeneratedSchema(reparsed, g.message, g.dependencies)
    d = _descriptor(g)
    cls = message_factory.GetMessageClass(d)
    data = from_connect_data(cls, schema, value).SerializeToString()
    read_schema = to_connect_schema(d, config)
    return read_schema, to_connect_data(read_schema, cls.FromString(data)), data


def _params(schema: Schema, field: str) -> Mapping[str, str]:
    f = schema.field(field)
    assert f is not None
    return f.schema.parameters or {}


def test_every_connect_type_in_a_struct() -> None:
    inner = SchemaBuilder.struct().name("com.acme.Inner").field("y", Schema.STRING_SCHEMA).build()
    schema = (
        SchemaBuilder.struct().name("com.acme.All")
        .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA)
        .field("i32", Schema.INT32_SCHEMA).field("i64", Schema.INT64_SCHEMA)
        .field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
        .field("b", Schema.BOOLEAN_SCHEMA).field("s", Schema.STRING_SCHEMA)
        .field("by", Schema.BYTES_SCHEMA).field("dec", Decimal.builder(2).parameter(
            "connect.decimal.precision", "10").build())
        .field("date", Date.SCHEMA).field("time", Time.SCHEMA).field("ts", Timestamp.SCHEMA)
        .field("arr", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("m", SchemaBuilder.map(Schema.INT32_SCHEMA, inner).build())
        .field("inner", inner)
        .build()
    )  # fmt: skip
    value = (
        Struct(schema).put("i8", -8).put("i16", 1600).put("i32", -5).put("i64", 1 << 40)
        .put("f32", 1.5).put("f64", 2.25).put("b", True).put("s", "hé").put("by", b"\x00\xff")
        .put("dec", decimal.Decimal("-12.34")).put("date", dt.date(2024, 2, 29))
        .put("time", dt.time(12, 34, 56, 789000))
        .put("ts", dt.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC))
        .put("arr", ["a", "b"]).put("m", {7: Struct(inner).put("y", "z")})
        .put("inner", Struct(inner).put("y", "w"))
    )  # fmt: skip
    read_schema, read, _ = _round_trip(schema, value)
    assert read_schema.name == "All"
    types = {f.name: f.schema.type for f in read_schema.fields}
    assert types["i8"] == Type.INT8 and types["i16"] == Type.INT16
    assert _params(read_schema, "dec")["scale"] == "2"
    assert _params(read_schema, "dec")["connect.decimal.precision"] == "10"
    for f in schema.fields:
        assert _params(read_schema, f.name)[FIELD_TAG_PARAM] == str(f.index + 1)
    expected = {f.name: value.get(f.name) for f in schema.fields}
    got = {f.name: read.get(f.name) for f in read_schema.fields}
    assert got.pop("inner").get("y") == expected.pop("inner").get("y")
    assert {k: s.get("y") for k, s in got.pop("m").items()} == {7: "z"}
    expected.pop("m")
    assert got == expected


def test_the_generated_proto_text() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT16_SCHEMA)
        .field(
            "n", SchemaBuilder.struct().field("x", Schema.OPTIONAL_INT64_SCHEMA).optional().build()
        )
        .field("ts", Timestamp.SCHEMA)
        .build()
    )
    g = from_connect_schema(schema)
    assert g.message == "ConnectDefault1"
    assert g.dependencies == ["confluent/meta.proto", "google/protobuf/timestamp.proto"]
    assert render(g.file) == (
        'syntax = "proto3";\n\n'
        'import "confluent/meta.proto";\n'
        'import "google/protobuf/timestamp.proto";\n\n'
        "message ConnectDefault1 {\n"
        '  int32 a = 1 [(confluent.field_meta) = { params: [{ key: "connect.type", value: "int16" }] }];\n'
        "  ConnectDefault2 n = 2;\n"
        "  google.protobuf.Timestamp ts = 3;\n"
        "  message ConnectDefault2 {\n"
        "    int64 x = 1;\n"
        "  }\n"
        "}\n"
    )


def test_field_tags_come_from_the_parameter() -> None:
    schema = (
        SchemaBuilder.struct().name("T")
        .field("a", SchemaBuilder.int32().parameter(FIELD_TAG_PARAM, "7").build())
        .field("b", Schema.INT32_SCHEMA)
        .build()
    )  # fmt: skip
    g = from_connect_schema(schema)
    assert [f.number for f in g.file.message_type[0].field] == [7, 2]


def _nullable_struct() -> Schema:
    return (
        SchemaBuilder.struct()
        .name("N")
        .field("s", Schema.OPTIONAL_STRING_SCHEMA)
        .field("i", Schema.OPTIONAL_INT32_SCHEMA)
        .build()
    )


def test_optional_primitives_lose_their_nulls_by_default() -> None:
    schema = _nullable_struct()
    read_schema, read, _ = _round_trip(schema, Struct(schema))
    assert not _fs(read_schema, "s").optional
    assert read.get("s") == "" and read.get("i") == 0


@pytest.mark.parametrize(
    "config",
    [
        ProtobufDataConfig(optional_for_nullables=True),
        ProtobufDataConfig(wrapper_for_nullables=True),
    ],
)
def test_nullables_as_optional_or_wrappers_keep_nulls(config: ProtobufDataConfig) -> None:
    schema = _nullable_struct()
    text = render(from_connect_schema(schema, config).file)
    assert ("optional string s = 1;" in text) == config.optional_for_nullables
    assert ("google.protobuf.StringValue s = 1;" in text) == config.wrapper_for_nullables
    read_schema, read, _ = _round_trip(schema, Struct(schema).put("i", 0), config)
    assert _fs(read_schema, "s").optional
    assert read.get("s") is None and read.get("i") == 0


def _enum_schema(int_for_enums: bool = False) -> Schema:
    b = SchemaBuilder.int32() if int_for_enums else SchemaBuilder.string()
    b.parameter(ENUM_PARAM, "Color")
    for i, sym in enumerate(("RED", "GREEN")):
        b.parameter(f"{ENUM_PARAM}.{sym}", str(i))
    return SchemaBuilder.struct().name("E").field("c", b.build()).build()


def test_enums() -> None:
    schema = _enum_schema()
    assert "enum Color {\n    RED = 0;\n    GREEN = 1;\n  }" in render(
        from_connect_schema(schema).file
    )
    read_schema, read, data = _round_trip(schema, Struct(schema).put("c", "GREEN"))
    assert data == b"\x08\x01"
    assert read.get("c") == "GREEN"
    assert _params(read_schema, "c")[ENUM_PARAM] == "Color"
    cfg = ProtobufDataConfig(int_for_enums=True)
    schema = _enum_schema(True)
    read_schema, read, _ = _round_trip(schema, Struct(schema).put("c", 1), cfg)
    assert _fs(read_schema, "c").type == Type.INT32 and read.get("c") == 1


def test_oneofs_are_union_structs() -> None:
    union = (
        SchemaBuilder.struct().name(UNION_NAME).optional()
        .field("text", Schema.OPTIONAL_STRING_SCHEMA).field("num", Schema.OPTIONAL_INT64_SCHEMA)
        .build()
    )  # fmt: skip
    schema = (
        SchemaBuilder.struct()
        .name("U")
        .field("id", Schema.INT32_SCHEMA)
        .field("choice_0", union)
        .build()
    )
    text = render(from_connect_schema(schema).file)
    assert "oneof choice {\n    string text = 2;\n    int64 num = 3;\n  }" in text
    value = Struct(schema).put("id", 1).put("choice_0", Struct(union).put("num", 0))
    read_schema, read, data = _round_trip(schema, value)
    assert data == b"\x08\x01\x18\x00"  # a oneof member is written even when 0
    assert _fs(read_schema, "choice_0").name == UNION_NAME
    assert read.get("choice_0").get("num") == 0 and read.get("choice_0").get("text") is None
    no_index = ProtobufDataConfig(generate_index_for_unions=False)
    d = _descriptor(from_connect_schema(schema))
    assert [f.name for f in to_connect_schema(d, no_index).fields] == ["id", "choice"]


def test_maps_of_arrays_are_repeated_entries() -> None:
    values = SchemaBuilder.array(Schema.INT32_SCHEMA).build()
    schema = (
        SchemaBuilder.struct()
        .name("M")
        .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, values).build())
        .build()
    )
    text = render(from_connect_schema(schema).file)
    assert "repeated MEntry m = 1;" in text
    assert "message MEntry {\n    string key = 1;\n    repeated int32 value = 2;" in text
    read_schema, read, _ = _round_trip(schema, Struct(schema).put("m", {"a": [1, 2]}))
    assert _fs(read_schema, "m").type == Type.MAP
    assert read.get("m") == {"a": [1, 2]}


def test_primitives_at_the_top_are_wrappers_and_logicals_well_known_messages() -> None:
    g = from_connect_schema(Schema.STRING_SCHEMA)
    assert (g.file.name, g.message) == (
        "google/protobuf/wrappers.proto",
        "google.protobuf.StringValue",
    )
    read_schema, read, data = _round_trip(Schema.STRING_SCHEMA, "x")
    assert (read_schema.type, read, data) == (Type.STRING, "x", b"\x0a\x01x")
    g = from_connect_schema(Date.SCHEMA)
    assert g.message == "google.type.Date"
    d = _descriptor(from_connect_schema(Schema.INT64_SCHEMA))
    raw = to_connect_schema(d, ProtobufDataConfig(wrapper_for_raw_primitives=False))
    assert raw.type == Type.STRUCT and raw.field("value") is not None


def test_names_and_packages() -> None:
    schema = (
        SchemaBuilder.struct().name("com.acme.my-record").field("a-b", Schema.INT32_SCHEMA).build()
    )
    g = from_connect_schema(schema, ProtobufDataConfig(scrub_invalid_names=True))
    assert g.message == "com.acme.my_record"
    assert g.file.message_type[0].field[0].name == "a_b"
    d = _descriptor(g)
    assert to_connect_schema(d).name == "my_record"
    assert to_connect_schema(d, ProtobufDataConfig(enhanced_schema_support=True)).name == (
        "com.acme.my_record"
    )


def test_bad_values_and_schemas_raise_data_exceptions() -> None:
    with pytest.raises(DataException):
        from_connect_schema(SchemaBuilder.array(Schema.INT32_SCHEMA).build())
    nested = SchemaBuilder.array(SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build()
    with pytest.raises(DataException):
        from_connect_schema(SchemaBuilder.struct().field("a", nested).build())
    schema = _enum_schema()
    g = from_connect_schema(schema)
    cls = message_factory.GetMessageClass(_descriptor(g))
    with pytest.raises(DataException, match="no symbol"):
        from_connect_data(cls, schema, Struct(schema).put("c", "BLUE"))


def _oneof_descriptor() -> Descriptor:
    imports = [BUILTIN_FILES["google/protobuf/wrappers.proto"]]
    file = parse_proto(
        'syntax = "proto3"; import "google/protobuf/wrappers.proto";\n'
        "message In { int32 x = 1; }\n"
        "message O { oneof pick { string a = 1; In b = 2; } In inner = 3;"
        " google.protobuf.Int32Value w = 4; }",
        "o.proto",
        imports,
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(imports[0])
    pool.Add(file)
    return pool.FindMessageTypeByName("O")


def test_flatten_unions_makes_members_plain_optional_fields() -> None:
    d = _oneof_descriptor()
    schema = to_connect_schema(d, ProtobufDataConfig(flatten_unions=True))
    assert [f.name for f in schema.fields] == ["a", "b", "inner", "w"]
    assert all(f.schema.optional for f in schema.fields)
    cls = message_factory.GetMessageClass(d)
    read = to_connect_data(schema, cls(a="x"))
    assert (read.get("a"), read.get("b")) == ("x", None)
    back = from_connect_data(cls, schema, read)
    assert back.WhichOneof("pick") == "a"


def test_generate_struct_for_nulls_reads_unset_messages_as_default_structs() -> None:
    d = _oneof_descriptor()
    schema = to_connect_schema(d)
    cls = message_factory.GetMessageClass(d)
    assert to_connect_data(schema, cls()).get("inner") is None
    read = compile_top_reader(schema, d, nulls=True)(cls())
    assert read.get("inner").get("x") == 0
    assert read.get("w") is None  # a wrapper stays a nullable primitive


def test_proto2_optionals_are_nullable_with_optional_for_proto2() -> None:
    file = parse_proto(
        'syntax = "proto2"; message P { optional int32 a = 1; required string b = 2; }', "p.proto"
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    d = pool.FindMessageTypeByName("P")
    cls = message_factory.GetMessageClass(d)
    plain = to_connect_schema(d)
    assert not _fs(plain, "a").optional
    assert to_connect_data(plain, cls(b="x")).get("a") == 0
    nullable = to_connect_schema(d, ProtobufDataConfig(optional_for_proto2=True))
    assert _fs(nullable, "a").optional and not _fs(nullable, "b").optional
    assert to_connect_data(nullable, cls(b="x")).get("a") is None
