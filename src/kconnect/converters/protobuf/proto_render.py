"""``FileDescriptorProto`` -> ``.proto`` text, and the well-known files Connect schemas import.

The converter registers ``.proto`` text (as Confluent's Java converter does), so the schemas it
builds from Connect schemas are rendered here. Imported types come from files every Protobuf
tool knows by name: ``google/protobuf/{timestamp,wrappers}.proto`` (from the ``protobuf``
package), ``google/type/{date,timeofday}.proto``, ``confluent/type/decimal.proto`` and
``confluent/meta.proto`` (declared below); :data:`BUILTIN_FILES` maps their names to their
descriptors, and :func:`render` gives the text registered for them as references.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import ModuleType

from google.protobuf import (
    any_pb2,
    descriptor_pb2,
    duration_pb2,
    empty_pb2,
    struct_pb2,
    timestamp_pb2,
    wrappers_pb2,
)

from kconnect.converters.protobuf.proto_parser import meta_of, parse_proto

__all__ = ["BUILTIN_FILES", "builtin_file", "render"]

_F = descriptor_pb2.FieldDescriptorProto
_SCALAR_NAMES = {
    _F.TYPE_DOUBLE: "double",
    _F.TYPE_FLOAT: "float",
    _F.TYPE_INT64: "int64",
    _F.TYPE_UINT64: "uint64",
    _F.TYPE_INT32: "int32",
    _F.TYPE_FIXED64: "fixed64",
    _F.TYPE_FIXED32: "fixed32",
    _F.TYPE_BOOL: "bool",
    _F.TYPE_STRING: "string",
    _F.TYPE_BYTES: "bytes",
    _F.TYPE_UINT32: "uint32",
    _F.TYPE_SFIXED32: "sfixed32",
    _F.TYPE_SFIXED64: "sfixed64",
    _F.TYPE_SINT32: "sint32",
    _F.TYPE_SINT64: "sint64",
}


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _type_name(field: descriptor_pb2.FieldDescriptorProto, package: str, scope: str = "") -> str:
    if field.type in _SCALAR_NAMES:
        return _SCALAR_NAMES[field.type]
    name: str = field.type_name
    if name.startswith("."):
        name = name[1:]
        # names are written relative to the enclosing message or the file's package, as
        # people write them (resolution finds the same type)
        if scope and name.startswith(scope + ".") and "." not in name[len(scope) + 1 :]:
            return name[len(scope) + 1 :]
        if package and name.startswith(package + "."):
            name = name[len(package) + 1 :]
    return name


def _meta_option(
    kind: str, options: descriptor_pb2.FieldOptions | descriptor_pb2.MessageOptions, indent: str
) -> str | None:
    meta = meta_of(options)
    if meta is None:
        return None
    parts: list[str] = []
    if meta.doc is not None:
        parts.append(f"doc: {_quote(meta.doc)}")
    if meta.params:
        entries = ", ".join(f"{{ key: {_quote(k)}, value: {_quote(v)} }}" for k, v in meta.params)
        parts.append(f"params: [{entries}]")
    return f"(confluent.{kind}_meta) = {{ {', '.join(parts)} }}"


class _Renderer:
    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        self.file = file
        self.lines: list[str] = []

    def render(self) -> str:
        f = self.file
        syntax = f.syntax or "proto2"
        self.lines.append(f'syntax = "{syntax}";')
        if f.package:
            self.lines.append(f"package {f.package};")
        if f.dependency:
            self.lines.append("")
            for i, dep in enumerate(f.dependency):
                public = "public " if i in f.public_dependency else ""
                self.lines.append(f"import {public}{_quote(dep)};")
        opts = f.options
        file_opts = [
            (field.name, value)
            for field, value in opts.ListFields()
            if isinstance(value, (str, bool, int)) and field.name != "uninterpreted_option"
        ]
        if file_opts:
            self.lines.append("")
            for name, value in file_opts:
                rendered = (
                    _quote(value) if isinstance(value, str)
                    else str(value).lower() if isinstance(value, bool) else str(value)
                )  # fmt: skip
                self.lines.append(f"option {name} = {rendered};")
        for msg in f.message_type:
            self.lines.append("")
            self.message(msg, "")
        for enum in f.enum_type:
            self.lines.append("")
            self.enum(enum, "")
        for ext in f.extension:
            self.lines.append("")
            self.lines.append(f"extend {ext.extendee.lstrip('.')} {{")
            self.lines.append(f"  {self.field_decl(ext, None)}")
            self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def field_decl(
        self,
        field: descriptor_pb2.FieldDescriptorProto,
        entries: Mapping[str, descriptor_pb2.DescriptorProto] | None,
        scope: str = "",
    ) -> str:
        package = self.file.package
        entry = entries.get(field.type_name.rsplit(".", 1)[-1]) if entries else None
        if entry is not None and field.label == _F.LABEL_REPEATED:
            key = _type_name(entry.field[0], package, scope)
            value = _type_name(entry.field[1], package, scope)
            head = f"map<{key}, {value}> {field.name} = {field.number}"
        else:
            label = ""
            if field.label == _F.LABEL_REPEATED:
                label = "repeated "
            elif field.label == _F.LABEL_REQUIRED:
                label = "required "
            elif field.proto3_optional or (
                self.file.syntax not in ("proto3", "editions") and not field.HasField("oneof_index")
            ):
                label = "optional "
            head = f"{label}{_type_name(field, package, scope)} {field.name} = {field.number}"
        options: list[str] = []
        if field.HasField("default_value"):
            value = field.default_value
            if field.type in (_F.TYPE_STRING, _F.TYPE_BYTES):
                value = _quote(value)
            options.append(f"default = {value}")
        if field.HasField("json_name") and field.json_name != _camel(field.name):
            options.append(f"json_name = {_quote(field.json_name)}")
        if field.options.HasField("packed"):
            options.append(f"packed = {str(field.options.packed).lower()}")
        meta = _meta_option("field", field.options, "")
        if meta:
            options.append(meta)
        if options:
            head += " [" + ", ".join(options) + "]"
        return head + ";"

    def message(self, msg: descriptor_pb2.DescriptorProto, indent: str, outer: str = "") -> None:
        inner = indent + "  "
        if not outer:
            outer = self.file.package
        scope = f"{outer}.{msg.name}" if outer else msg.name
        self.lines.append(f"{indent}message {msg.name} {{")
        meta = _meta_option("message", msg.options, inner)
        if meta:
            self.lines.append(f"{inner}option {meta};")
        entries = {n.name: n for n in msg.nested_type if n.options.map_entry}
        oneofs_done: set[int] = set()
        for field in msg.field:
            if field.HasField("oneof_index") and not field.proto3_optional:
                index = field.oneof_index
                if index in oneofs_done:
                    continue
                oneofs_done.add(index)
                self.lines.append(f"{inner}oneof {msg.oneof_decl[index].name} {{")
                for member in msg.field:
                    if member.HasField("oneof_index") and member.oneof_index == index:
                        self.lines.append(f"{inner}  {self.field_decl(member, entries, scope)}")
                self.lines.append(f"{inner}}}")
                continue
            self.lines.append(f"{inner}{self.field_decl(field, entries, scope)}")
        for nested in msg.nested_type:
            if nested.options.map_entry:
                continue
            self.message(nested, inner, scope)
        for enum in msg.enum_type:
            self.enum(enum, inner)
        for r in msg.reserved_range:
            end = r.end - 1
            self.lines.append(
                f"{inner}reserved {r.start};" if end == r.start
                else f"{inner}reserved {r.start} to {end};"
            )  # fmt: skip
        for name in msg.reserved_name:
            self.lines.append(f"{inner}reserved {_quote(name)};")
        self.lines.append(f"{indent}}}")

    def enum(self, enum: descriptor_pb2.EnumDescriptorProto, indent: str) -> None:
        inner = indent + "  "
        self.lines.append(f"{indent}enum {enum.name} {{")
        if enum.options.HasField("allow_alias"):
            self.lines.append(
                f"{inner}option allow_alias = {str(enum.options.allow_alias).lower()};"
            )
        for value in enum.value:
            self.lines.append(f"{inner}{value.name} = {value.number};")
        self.lines.append(f"{indent}}}")


def _camel(name: str) -> str:
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def render(file: descriptor_pb2.FileDescriptorProto) -> str:
    """``file`` as ``.proto`` text (syntax, package, imports, messages, enums)."""
    return _Renderer(file).render()


# -- well-known files -------------------------------------------------------------------------

_DATE = """syntax = "proto3";
package google.type;

message Date {
  int32 year = 1;
  int32 month = 2;
  int32 day = 3;
}
"""
_TIME_OF_DAY = """syntax = "proto3";
package google.type;

message TimeOfDay {
  int32 hours = 1;
  int32 minutes = 2;
  int32 seconds = 3;
  int32 nanos = 4;
}
"""
_DECIMAL = """syntax = "proto3";
package confluent.type;

message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
"""
_META = """syntax = "proto3";
package confluent;

import "google/protobuf/descriptor.proto";

message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
  repeated Rule rules = 4;
}

message Rule {
  string name = 1;
  string doc = 2;
  string expr = 3;
  string sql = 4;
}
"""
_META_EXTENDEES = (
    ("file_meta", ".google.protobuf.FileOptions"),
    ("message_meta", ".google.protobuf.MessageOptions"),
    ("field_meta", ".google.protobuf.FieldOptions"),
    ("enum_meta", ".google.protobuf.EnumOptions"),
    ("enum_value_meta", ".google.protobuf.EnumValueOptions"),
)


def _from_module(module: ModuleType) -> descriptor_pb2.FileDescriptorProto:
    out = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(out)
    return out


def _meta_file() -> descriptor_pb2.FileDescriptorProto:
    file = parse_proto(_META, "confluent/meta.proto")
    for name, extendee in _META_EXTENDEES:
        file.extension.add(
            name=name, number=1088, label=_F.LABEL_OPTIONAL, type=_F.TYPE_MESSAGE,
            type_name=".confluent.Meta", extendee=extendee,
        )  # fmt: skip
    return file


def _builtins() -> dict[str, descriptor_pb2.FileDescriptorProto]:
    files = [
        _from_module(m)
        for m in (
            descriptor_pb2, timestamp_pb2, wrappers_pb2, duration_pb2, struct_pb2, any_pb2,
            empty_pb2,
        )
    ]  # fmt: skip
    files.append(parse_proto(_DATE, "google/type/date.proto"))
    files.append(parse_proto(_TIME_OF_DAY, "google/type/timeofday.proto"))
    files.append(parse_proto(_DECIMAL, "confluent/type/decimal.proto"))
    files.append(_meta_file())
    return {f.name: f for f in files}


#: file name -> descriptor of the files the converter knows without a schema reference
BUILTIN_FILES: Mapping[str, descriptor_pb2.FileDescriptorProto] = _builtins()


def builtin_file(name: str) -> descriptor_pb2.FileDescriptorProto | None:
    """A copy of a well-known file's descriptor, or None."""
    file = BUILTIN_FILES.get(name)
    if file is None:
        return None
    out = descriptor_pb2.FileDescriptorProto()
    out.CopyFrom(file)
    return out
