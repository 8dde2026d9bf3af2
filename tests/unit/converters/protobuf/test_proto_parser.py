"""The .proto parser and renderer: schemas from a registry, not only the ones Connect makes."""

from __future__ import annotations

import base64

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from kconnect.converters.protobuf.proto_parser import (
    Meta,
    ProtoParseError,
    encode_meta,
    meta_of,
    parse_proto,
    parse_schema,
)
from kconnect.converters.protobuf.proto_render import BUILTIN_FILES, render

SCHEMA = """
syntax = "proto3";
package com.acme; // a comment
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
import "confluent/meta.proto";
option java_package = "com.acme.proto";
/* a block
   comment */
message Outer {
  message Inner { string y = 1; Kind k = 2; }
  enum Kind { A = 0; B = 1; }
  int32 a = 1 [(confluent.field_meta) = { doc: "an int8", params: [{key: "connect.type", value: "int8"}] }];
  optional string s = 2;
  repeated Inner inners = 3;
  map<string, Inner> by_name = 4;
  oneof choice { string c1 = 5; int64 c2 = 6; }
  google.protobuf.Timestamp ts = 7;
  .com.acme.Outer.Kind kind = 8;
  google.protobuf.StringValue maybe = 9;
  repeated sint64 packed_longs = 10 [packed = true];
  reserved 20 to 25, 30;
  reserved "gone";
}
message Second { Outer.Inner inner = 1; }
service Ignored { rpc Call (Outer) returns (Second); }
"""


def _imports() -> list[descriptor_pb2.FileDescriptorProto]:
    return [
        BUILTIN_FILES[n]
        for n in (
            "google/protobuf/descriptor.proto",
            "google/protobuf/timestamp.proto",
            "google/protobuf/wrappers.proto",
            "confluent/meta.proto",
        )
    ]


def _pool(file: descriptor_pb2.FileDescriptorProto) -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    for imported in _imports():
        pool.Add(imported)
    pool.Add(file)
    return pool


def test_parses_messages_enums_oneofs_maps_and_resolves_types() -> None:
    file = parse_proto(SCHEMA, "x.proto", _imports())
    outer = _pool(file).FindMessageTypeByName("com.acme.Outer")
    fields = {f.name: f for f in outer.fields}
    assert [f.number for f in outer.fields] == list(range(1, 11))
    assert fields["inners"].message_type.full_name == "com.acme.Outer.Inner"
    assert fields["by_name"].message_type.GetOptions().map_entry
    assert fields["kind"].enum_type.full_name == "com.acme.Outer.Kind"
    assert fields["ts"].message_type.full_name == "google.protobuf.Timestamp"
    assert fields["maybe"].message_type.full_name == "google.protobuf.StringValue"
    assert [o.name for o in outer.oneofs] == ["choice", "_s"]  # proto3 optional: synthetic oneof
    assert fields["s"].has_presence
    assert fields["packed_longs"].type == fields["packed_longs"].TYPE_SINT64
    assert file.options.java_package == "com.acme.proto"
    assert meta_of(file.message_type[0].field[0].options) == Meta(
        "an int8", (("connect.type", "int8"),)
    )


def test_a_parsed_schema_encodes_like_protoc_would() -> None:
    pool = _pool(parse_proto(SCHEMA, "x.proto", _imports()))
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("com.acme.Outer"))
    msg = cls(a=5, s="", c2=7, packed_longs=[-1, 1])
    # field 1 varint 5; field 2 (present, empty); field 6 varint 7; field 10 packed zig-zag
    assert msg.SerializeToString() == bytes.fromhex("08051200300752020102")


def test_render_then_parse_is_a_fixpoint() -> None:
    file = parse_proto(SCHEMA, "x.proto", _imports())
    text = render(file)
    again = parse_proto(text, "x.proto", _imports())
    assert render(again) == text
    assert {m.name for m in again.message_type[0].nested_type} == {"Inner", "ByNameEntry"}


def test_base64_descriptors_are_accepted() -> None:
    file = parse_proto(SCHEMA, "x.proto", _imports())
    text = base64.b64encode(file.SerializeToString()).decode()
    assert parse_schema(text, "x.proto") == file


def test_proto2_labels_and_defaults() -> None:
    file = parse_proto(
        'syntax = "proto2"; message M { required int32 a = 1; optional string b = 2 '
        '[default = "x"]; extensions 100 to max; }',
        "p2.proto",
    )
    m = file.message_type[0]
    assert m.field[0].label == m.field[0].LABEL_REQUIRED
    assert m.field[1].default_value == "x"
    assert "required int32 a = 1;" in render(file)


@pytest.mark.parametrize(
    "text",
    ['syntax = "proto3"; message M { Unknown u = 1; }', "message M { int32 a = ; }", "}"],
)
def test_bad_schemas_say_what_is_wrong(text: str) -> None:
    with pytest.raises(ProtoParseError):
        parse_proto(text)


def test_meta_round_trips_through_option_bytes() -> None:
    options = descriptor_pb2.FieldOptions()
    meta = Meta("doc", (("connect.type", "int16"), ("k", "v")))
    options.MergeFromString(encode_meta(meta))
    read = meta_of(options)
    # params are a proto map: their order is not kept when the extension is known
    assert read is not None and read.doc == "doc" and dict(read.params) == dict(meta.params)
    assert meta_of(descriptor_pb2.FieldOptions()) is None


def test_builtin_files_render_to_parsable_text() -> None:
    for name in ("google/type/date.proto", "confluent/type/decimal.proto", "confluent/meta.proto"):
        text = render(BUILTIN_FILES[name])
        parsed = parse_proto(text, name, [BUILTIN_FILES["google/protobuf/descriptor.proto"]])
        assert parsed.message_type[0].name == BUILTIN_FILES[name].message_type[0].name
