"""Confluent's ProtobufData rules: Connect schemas and values <-> Protobuf schemas and messages.

Connect -> Protobuf (what the converter registers):

* a struct becomes a proto3 message named from the Connect name (``a.b.C``: package ``a.b``,
  message ``C``); unnamed structs are ``ConnectDefault1``, ``ConnectDefault2``, ... in the
  order they are met; nested structs are messages nested in their parent;
* a field's number is ``protobuf.field.tag`` when the field schema has that parameter, else
  its position + 1;
* int8/int16 -> ``int32`` with ``(confluent.field_meta)`` parameter ``connect.type``;
  int32/int64/float32/float64/boolean/string/bytes -> int32/int64/float/double/bool/string/
  bytes (``protobuf.type`` picks sint32, fixed64, ... when set);
* Decimal -> ``confluent.type.Decimal``; Date -> ``google.type.Date``; Time ->
  ``google.type.TimeOfDay``; Timestamp -> ``google.protobuf.Timestamp``;
* array -> ``repeated``; map with a string/integer/boolean key -> ``map<K, V>``, any other
  map -> ``repeated`` entry messages with ``key = 1`` and ``value = 2``;
* a struct named ``io.confluent.connect.protobuf.Union`` -> a ``oneof`` of its fields
  (its field name loses the ``_<index>`` suffix :func:`to_connect_schema` adds);
* a string with the ``io.confluent.connect.protobuf.Enum`` parameter -> an enum;
* optional primitives: plain proto3 fields, or ``optional`` (``optional.for.nullables``) or
  ``google.protobuf`` wrappers (``wrapper.for.nullables``);
* a primitive at the top -> its ``google.protobuf`` wrapper message (and a logical type its
  well-known message): Protobuf needs a message at the top.

Protobuf -> Connect reverses this for any message (schemas not made by Connect included):
every field gets the ``protobuf.field.tag`` parameter; messages, repeated fields, maps, oneofs
and wrappers are optional; ``proto3 optional`` scalars are optional; enums are strings (or
int32 with ``int.for.enums``) carrying their symbols as parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Time,
    Timestamp,
    Type,
)
from kconnect.converters.protobuf.proto_parser import Meta, encode_meta, meta_of
from kconnect.converters.protobuf.protobuf_codec import (
    Writer,
    compile_top_reader,
    compile_top_writer,
    is_entry,
)

__all__ = [
    "build_message",
    "CONNECT_TYPE",
    "ENUM_PARAM",
    "FIELD_TAG_PARAM",
    "PROTOBUF_TYPE_PARAM",
    "UNION_NAME",
    "GeneratedSchema",
    "ProtobufDataConfig",
    "from_connect_data",
    "from_connect_schema",
    "to_connect_data",
    "to_connect_schema",
]

FIELD_TAG_PARAM = "protobuf.field.tag"
PROTOBUF_TYPE_PARAM = "protobuf.type"
ENUM_PARAM = "io.confluent.connect.protobuf.Enum"
UNION_NAME = "io.confluent.connect.protobuf.Union"
CONNECT_TYPE = "connect.type"
DEFAULT_NAME = "ConnectDefault"
PRECISION_PARAM = "connect.decimal.precision"

_F = descriptor_pb2.FieldDescriptorProto
_FD = FieldDescriptor

_TIMESTAMP = "google.protobuf.Timestamp"
_DATE = "google.type.Date"
_TIME = "google.type.TimeOfDay"
_DECIMAL = "confluent.type.Decimal"
_FILES = {
    _TIMESTAMP: "google/protobuf/timestamp.proto",
    _DATE: "google/type/date.proto",
    _TIME: "google/type/timeofday.proto",
    _DECIMAL: "confluent/type/decimal.proto",
}
_WRAPPERS_FILE = "google/protobuf/wrappers.proto"
_META_FILE = "confluent/meta.proto"
#: wrapper message -> the Connect type of its value
_WRAPPERS: dict[str, Type] = {
    "google.protobuf.DoubleValue": Type.FLOAT64,
    "google.protobuf.FloatValue": Type.FLOAT32,
    "google.protobuf.Int64Value": Type.INT64,
    "google.protobuf.UInt64Value": Type.INT64,
    "google.protobuf.Int32Value": Type.INT32,
    "google.protobuf.UInt32Value": Type.INT64,
    "google.protobuf.BoolValue": Type.BOOLEAN,
    "google.protobuf.StringValue": Type.STRING,
    "google.protobuf.BytesValue": Type.BYTES,
}
_WRAPPER_FOR: dict[Type, str] = {
    Type.INT8: "google.protobuf.Int32Value",
    Type.INT16: "google.protobuf.Int32Value",
    Type.INT32: "google.protobuf.Int32Value",
    Type.INT64: "google.protobuf.Int64Value",
    Type.FLOAT32: "google.protobuf.FloatValue",
    Type.FLOAT64: "google.protobuf.DoubleValue",
    Type.BOOLEAN: "google.protobuf.BoolValue",
    Type.STRING: "google.protobuf.StringValue",
    Type.BYTES: "google.protobuf.BytesValue",
}
_SCALAR: dict[Type, int] = {
    Type.INT8: _F.TYPE_INT32,
    Type.INT16: _F.TYPE_INT32,
    Type.INT32: _F.TYPE_INT32,
    Type.INT64: _F.TYPE_INT64,
    Type.FLOAT32: _F.TYPE_FLOAT,
    Type.FLOAT64: _F.TYPE_DOUBLE,
    Type.BOOLEAN: _F.TYPE_BOOL,
    Type.STRING: _F.TYPE_STRING,
    Type.BYTES: _F.TYPE_BYTES,
}
#: ``protobuf.type`` values a Connect type may ask for
_PROTO_TYPES: dict[Type, dict[str, int]] = {
    Type.INT32: {"sint32": _F.TYPE_SINT32, "sfixed32": _F.TYPE_SFIXED32},
    Type.INT64: {
        "sint64": _F.TYPE_SINT64,
        "sfixed64": _F.TYPE_SFIXED64,
        "uint64": _F.TYPE_UINT64,
        "fixed64": _F.TYPE_FIXED64,
        "uint32": _F.TYPE_UINT32,
        "fixed32": _F.TYPE_FIXED32,
    },
}
_TO_CONNECT: dict[int, Type] = {
    _FD.TYPE_INT32: Type.INT32,
    _FD.TYPE_SINT32: Type.INT32,
    _FD.TYPE_SFIXED32: Type.INT32,
    _FD.TYPE_UINT32: Type.INT64,
    _FD.TYPE_FIXED32: Type.INT64,
    _FD.TYPE_INT64: Type.INT64,
    _FD.TYPE_SINT64: Type.INT64,
    _FD.TYPE_SFIXED64: Type.INT64,
    _FD.TYPE_UINT64: Type.INT64,
    _FD.TYPE_FIXED64: Type.INT64,
    _FD.TYPE_FLOAT: Type.FLOAT32,
    _FD.TYPE_DOUBLE: Type.FLOAT64,
    _FD.TYPE_BOOL: Type.BOOLEAN,
    _FD.TYPE_STRING: Type.STRING,
    _FD.TYPE_BYTES: Type.BYTES,
}
_NON_DEFAULT_TYPE_NAMES = {
    _FD.TYPE_SINT32: "sint32",
    _FD.TYPE_SFIXED32: "sfixed32",
    _FD.TYPE_UINT32: "uint32",
    _FD.TYPE_FIXED32: "fixed32",
    _FD.TYPE_SINT64: "sint64",
    _FD.TYPE_SFIXED64: "sfixed64",
    _FD.TYPE_UINT64: "uint64",
    _FD.TYPE_FIXED64: "fixed64",
}
_UNSIGNED_64 = frozenset({_FD.TYPE_UINT64, _FD.TYPE_FIXED64})
_MAP_KEY_TYPES = (Type.INT32, Type.INT64, Type.BOOLEAN, Type.STRING)
_INVALID = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True)
class ProtobufDataConfig:
    """The ProtobufData settings of the converter (``ProtobufDataConfig`` keys)."""

    enhanced_schema_support: bool = False
    scrub_invalid_names: bool = False
    int_for_enums: bool = False
    optional_for_nullables: bool = False
    optional_for_proto2: bool = False
    wrapper_for_nullables: bool = False
    wrapper_for_raw_primitives: bool = True
    generate_struct_for_nulls: bool = False
    generate_index_for_unions: bool = True
    flatten_unions: bool = False


@dataclass
class GeneratedSchema:
    """A ``.proto`` file made from a Connect schema: the file, the message written at the top
    (full name) and the imported files (names)."""

    file: descriptor_pb2.FileDescriptorProto
    message: str
    dependencies: list[str] = field(default_factory=list)


# -- Connect -> Protobuf schema ---------------------------------------------------------------


def _scrub(name: str, config: ProtobufDataConfig) -> str:
    if not config.scrub_invalid_names:
        return name
    out = _INVALID.sub("_", name)
    return "x" + out if out[:1].isdigit() else out


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


class _FromConnect:
    def __init__(self, config: ProtobufDataConfig) -> None:
        self.config = config
        self.default_index = 0
        self.deps: list[str] = []
        self.in_oneof = False

    def dep(self, name: str) -> None:
        if name not in self.deps:
            self.deps.append(name)

    def split(self, name: str | None) -> tuple[str, str]:
        if not name:
            self.default_index += 1
            return "", f"{DEFAULT_NAME}{self.default_index}"
        package, _, simple = name.rpartition(".")
        return package, _scrub(simple, self.config)

    def message(self, msg: descriptor_pb2.DescriptorProto, schema: Schema, scope: str) -> None:
        here = f"{scope}.{msg.name}"
        if schema.doc is not None:
            msg.options.MergeFromString(encode_meta(Meta(doc=schema.doc)))
        for i, f in enumerate(schema.fields):
            fs = f.schema
            if fs.type == Type.STRUCT and fs.name == UNION_NAME:
                self.oneof(msg, f.name, fs, here)
                continue
            self.add_field(msg, _scrub(f.name, self.config), self.tag(fs, i), fs, here)
        for fd in msg.field:
            if fd.proto3_optional:  # each proto3 optional field is alone in a synthetic oneof
                fd.oneof_index = len(msg.oneof_decl)
                msg.oneof_decl.add(name="_" + fd.name)

    @staticmethod
    def tag(schema: Schema, index: int) -> int:
        tag = (schema.parameters or {}).get(FIELD_TAG_PARAM)
        try:
            return int(tag) if tag is not None else index + 1
        except ValueError:
            raise DataException(f"Invalid {FIELD_TAG_PARAM} parameter {tag!r}") from None

    def oneof(
        self, msg: descriptor_pb2.DescriptorProto, name: str, schema: Schema, here: str
    ) -> None:
        index = len(msg.oneof_decl)
        base = re.sub(r"_\d+$", "", name) if self.config.generate_index_for_unions else name
        msg.oneof_decl.add(name=_scrub(base, self.config))
        start = len(msg.field)
        self.in_oneof = True  # a oneof member has presence already: no optional, no wrapper
        try:
            for j, member in enumerate(schema.fields):
                tag = self.tag(member.schema, start + j)
                name = _scrub(member.name, self.config)
                added = self.add_field(msg, name, tag, member.schema, here)
                added.oneof_index = index
        finally:
            self.in_oneof = False

    def add_field(
        self, msg: descriptor_pb2.DescriptorProto, name: str, tag: int, schema: Schema, here: str
    ) -> descriptor_pb2.FieldDescriptorProto:
        fd = msg.field.add(name=name, number=tag, label=_F.LABEL_OPTIONAL)
        t = schema.type
        if t == Type.ARRAY:
            value = schema.value_schema
            if value.type in (Type.ARRAY, Type.MAP) and value.name is None:
                raise DataException(
                    f"Protobuf cannot hold an array of {value.type.value}s (field {name})"
                )
            fd.label = _F.LABEL_REPEATED
            self.set_type(msg, fd, value, here, repeated=True)
        elif t == Type.MAP:
            self.map_field(msg, fd, schema, here)
        else:
            self.set_type(msg, fd, schema, here, repeated=False)
        return fd

    def map_field(
        self,
        msg: descriptor_pb2.DescriptorProto,
        fd: descriptor_pb2.FieldDescriptorProto,
        schema: Schema,
        here: str,
    ) -> None:
        key, value = schema.key_schema, schema.value_schema
        entry_name = _camel(fd.name) + "Entry"
        entry = msg.nested_type.add(name=entry_name)
        is_map = (
            key.type in _MAP_KEY_TYPES and key.name is None
            and value.type not in (Type.ARRAY, Type.MAP)
        )  # fmt: skip
        if is_map:
            entry.options.map_entry = True
        entry_scope = f"{here}.{entry_name}"
        for n, (fname, s) in enumerate((("key", key), ("value", value)), 1):
            ef = entry.field.add(name=fname, number=n, label=_F.LABEL_OPTIONAL)
            # types the entry needs are declared beside it: a map entry may hold none
            if s.type == Type.ARRAY:
                ef.label = _F.LABEL_REPEATED
                self.set_type(msg, ef, s.value_schema, here, repeated=True)
            elif s.type == Type.MAP:
                self.map_field(msg, ef, s, here)
            else:
                self.set_type(msg, ef, s, here, repeated=is_map)
        fd.label = _F.LABEL_REPEATED
        fd.type = _F.TYPE_MESSAGE
        fd.type_name = entry_scope

    def set_type(
        self,
        msg: descriptor_pb2.DescriptorProto,
        fd: descriptor_pb2.FieldDescriptorProto,
        schema: Schema,
        here: str,
        repeated: bool,
    ) -> None:
        name = schema.name
        t = schema.type
        params = schema.parameters or {}
        if name in (Decimal.LOGICAL_NAME, Date.LOGICAL_NAME, Time.LOGICAL_NAME,
                    Timestamp.LOGICAL_NAME):  # fmt: skip
            full = {
                Decimal.LOGICAL_NAME: _DECIMAL,
                Date.LOGICAL_NAME: _DATE,
                Time.LOGICAL_NAME: _TIME,
                Timestamp.LOGICAL_NAME: _TIMESTAMP,
            }[name]
            fd.type = _F.TYPE_MESSAGE
            fd.type_name = "." + full
            self.dep(_FILES[full])
            if full == _DECIMAL:
                # the scale (and precision) travel as field metadata, the value holds its own
                decimal_params: list[tuple[str, str]] = []
                if PRECISION_PARAM in params:
                    decimal_params.append(("precision", params[PRECISION_PARAM]))
                decimal_params.append(("scale", params.get(Decimal.SCALE_FIELD, "0")))
                fd.options.MergeFromString(encode_meta(Meta(params=tuple(decimal_params))))
                self.dep(_META_FILE)
            return
        if t == Type.STRUCT:
            self.nested(msg, fd, schema, here)
            return
        if t in (Type.ARRAY, Type.MAP):
            raise DataException(f"Protobuf cannot nest a {t.value} here (field {fd.name})")
        if (t == Type.STRING and ENUM_PARAM in params) or (
            t == Type.INT32 and ENUM_PARAM in params
        ):
            self.enum(msg, fd, schema, here)
            return
        nullable = schema.optional and not repeated and not self.in_oneof
        if nullable and self.config.wrapper_for_nullables:
            fd.type = _F.TYPE_MESSAGE
            fd.type_name = "." + _WRAPPER_FOR[t]
            self.dep(_WRAPPERS_FILE)
            return
        proto_type = _PROTO_TYPES.get(t, {}).get(params.get(PROTOBUF_TYPE_PARAM, ""))
        fd.type = proto_type if proto_type is not None else _SCALAR[t]
        if nullable and self.config.optional_for_nullables:
            fd.proto3_optional = True
        if t in (Type.INT8, Type.INT16):
            fd.options.MergeFromString(encode_meta(Meta(params=((CONNECT_TYPE, t.value),))))
            self.dep(_META_FILE)

    def nested(
        self,
        msg: descriptor_pb2.DescriptorProto,
        fd: descriptor_pb2.FieldDescriptorProto,
        schema: Schema,
        here: str,
    ) -> None:
        _package, simple = self.split(schema.name)
        existing = next((n for n in msg.nested_type if n.name == simple), None)
        if existing is None:
            nested = msg.nested_type.add(name=simple)
            self.message(nested, schema, here)
        fd.type = _F.TYPE_MESSAGE
        fd.type_name = f"{here}.{simple}"

    def enum(
        self,
        msg: descriptor_pb2.DescriptorProto,
        fd: descriptor_pb2.FieldDescriptorProto,
        schema: Schema,
        here: str,
    ) -> None:
        params = schema.parameters or {}
        enum_name = _scrub(params[ENUM_PARAM].rpartition(".")[2], self.config)
        prefix = ENUM_PARAM + "."
        if not any(e.name == enum_name for e in msg.enum_type):
            enum = msg.enum_type.add(name=enum_name)
            symbols = sorted(
                ((int(v), k[len(prefix):]) for k, v in params.items() if k.startswith(prefix)),
                key=lambda item: item[0],
            )  # fmt: skip
            if not symbols or symbols[0][0] != 0:
                raise DataException(f"Enum {enum_name} needs a symbol numbered 0 in proto3")
            for number, symbol in symbols:
                enum.value.add(name=symbol, number=number)
        fd.type = _F.TYPE_ENUM
        fd.type_name = f"{here}.{enum_name}"


def from_connect_schema(
    schema: Schema, config: ProtobufDataConfig | None = None
) -> GeneratedSchema:
    """The ``.proto`` file Confluent's converter would register for ``schema``.

    Raises:
        DataException: the schema has no Protobuf form (an array or map at the top, an array of
            arrays...).
    """
    config = config or ProtobufDataConfig()
    ctx = _FromConnect(config)
    t = schema.type
    if t != Type.STRUCT:
        well_known = {
            Decimal.LOGICAL_NAME: _DECIMAL,
            Date.LOGICAL_NAME: _DATE,
            Time.LOGICAL_NAME: _TIME,
            Timestamp.LOGICAL_NAME: _TIMESTAMP,
        }.get(schema.name or "")
        if well_known is not None:
            return GeneratedSchema(_builtin(_FILES[well_known]), well_known)
        if t in _WRAPPER_FOR:
            return GeneratedSchema(_builtin(_WRAPPERS_FILE), _WRAPPER_FOR[t])
        raise DataException(f"Protobuf needs a struct at the top, not a {t.value}")
    package, simple = ctx.split(schema.name)
    file = descriptor_pb2.FileDescriptorProto(name="connect.proto", syntax="proto3")
    if package:
        file.package = package
    msg = file.message_type.add(name=simple)
    ctx.message(msg, schema, "." + package if package else "")
    file.dependency.extend(sorted(ctx.deps, key=_dep_order))
    return GeneratedSchema(
        file, f"{package}.{simple}" if package else simple, list(file.dependency)
    )


def _dep_order(name: str) -> tuple[int, str]:
    return (0 if name.startswith("confluent/") else 1, name)


def _builtin(name: str) -> descriptor_pb2.FileDescriptorProto:
    from kconnect.converters.protobuf.proto_render import builtin_file

    file = builtin_file(name)
    assert file is not None
    return file


# -- Protobuf -> Connect schema ---------------------------------------------------------------


def _logical_schema(full_name: str) -> SchemaBuilder | None:
    if full_name == _TIMESTAMP:
        return Timestamp.builder()
    if full_name == _DATE:
        return Date.builder()
    if full_name == _TIME:
        return Time.builder()
    return None


class _ToConnect:
    def __init__(self, config: ProtobufDataConfig) -> None:
        self.config = config
        self.cache: dict[str, Schema] = {}

    def struct(self, d: Descriptor, optional: bool) -> Schema:
        b = SchemaBuilder.struct().name(
            d.full_name if self.config.enhanced_schema_support else d.name
        )
        meta = meta_of(d.GetOptions())
        if meta is not None and meta.doc is not None:
            b.doc(meta.doc)
        done: set[str] = set()
        oneof_index = 0
        for f in d.fields:
            oneof = f.containing_oneof
            if oneof is not None and not _synthetic(f) and self.config.flatten_unions:
                # flatten.unions: each member is an optional field of the message's struct
                b.field(f.name, self.field_schema(f, force_optional=True))
                continue
            if oneof is not None and not _synthetic(f):
                if oneof.name in done:
                    continue
                done.add(oneof.name)
                name = oneof.name
                if self.config.generate_index_for_unions:
                    name = f"{name}_{oneof_index}"
                oneof_index += 1
                ub = SchemaBuilder.struct().name(UNION_NAME).optional()
                for member in oneof.fields:
                    ub.field(member.name, self.field_schema(member, force_optional=True))
                b.field(name, ub.build())
                continue
            b.field(f.name, self.field_schema(f, force_optional=False))
        if optional:
            b.optional()
        return b.build()

    def field_schema(self, f: FieldDescriptor, force_optional: bool) -> Schema:
        if f.is_repeated:
            mt = f.message_type
            if mt is not None and (mt.GetOptions().map_entry or is_entry(mt)):
                kf, vf = mt.fields_by_number[1], mt.fields_by_number[2]
                key = (
                    self.field_schema(kf, False) if kf.is_repeated else self.value_schema(kf, False)
                )
                value = (
                    self.field_schema(vf, False) if vf.is_repeated else self.value_schema(vf, False)
                )
                b = SchemaBuilder.map(key, value).optional()
            else:
                b = SchemaBuilder.array(self.value_schema(f, optional=False)).optional()
            b.parameter(FIELD_TAG_PARAM, str(f.number))
            return b.build()
        optional = force_optional or _has_presence(f, self.config)
        return self.value_schema(f, optional, tag=f.number)

    def value_schema(self, f: FieldDescriptor, optional: bool, tag: int | None = None) -> Schema:
        t = f.type
        b: SchemaBuilder
        if t == _FD.TYPE_MESSAGE:
            d = f.message_type
            full = d.full_name
            if full == _DECIMAL:
                meta = meta_of(f.GetOptions())
                scale = meta.param("scale") if meta is not None else None
                precision = meta.param("precision") if meta is not None else None
                b = Decimal.builder(int(scale) if scale else 0)
                if precision:
                    b.parameter(PRECISION_PARAM, precision)
                optional = True
            elif full in _WRAPPERS:
                b = SchemaBuilder.type(_WRAPPERS[full])
                optional = True
            elif (logical := _logical_schema(full)) is not None:
                b = logical
                optional = True
            else:
                base = self.struct(d, optional=True)
                b = SchemaBuilder.of(base)
                optional = True
        elif t == _FD.TYPE_ENUM:
            e = f.enum_type
            b = SchemaBuilder.int32() if self.config.int_for_enums else SchemaBuilder.string()
            b.parameter(ENUM_PARAM, e.name)
            for v in e.values:
                b.parameter(f"{ENUM_PARAM}.{v.name}", str(v.number))
        elif t == _FD.TYPE_GROUP:
            raise DataException(f"Protobuf groups are not supported (field {f.full_name})")
        else:
            ct = _TO_CONNECT[t]
            meta = meta_of(f.GetOptions())
            connect_type = meta.param(CONNECT_TYPE) if meta is not None else None
            if connect_type in ("int8", "int16") and ct == Type.INT32:
                ct = Type.INT8 if connect_type == "int8" else Type.INT16
            b = SchemaBuilder.type(ct)
            if t in _NON_DEFAULT_TYPE_NAMES:
                b.parameter(PROTOBUF_TYPE_PARAM, _NON_DEFAULT_TYPE_NAMES[t])
        if f.type != _FD.TYPE_MESSAGE:
            meta = meta_of(f.GetOptions())
            if meta is not None and meta.doc is not None:
                b.doc(meta.doc)
        if tag is not None:
            b.parameter(FIELD_TAG_PARAM, str(tag))
        if optional:
            b.optional()
        return b.build()


def _synthetic(f: FieldDescriptor) -> bool:
    oneof = f.containing_oneof
    return (
        oneof is not None
        and len(oneof.fields) == 1
        and oneof.name == "_" + f.name
        and bool(getattr(f, "has_presence", False))
    )


def _has_presence(f: FieldDescriptor, config: ProtobufDataConfig) -> bool:
    if f.type == _FD.TYPE_MESSAGE:
        return True
    if _synthetic(f):
        return True
    # what is left with presence outside a oneof: a proto2 ``optional`` scalar
    return (
        config.optional_for_proto2
        and f.has_presence
        and f.containing_oneof is None
        and not f.is_repeated
        and not f.is_required
    )


def to_connect_schema(descriptor: Descriptor, config: ProtobufDataConfig | None = None) -> Schema:
    """The Connect schema of messages of ``descriptor``.

    A well-known message at the top maps to its logical type, and a wrapper to its primitive
    when ``wrapper.for.raw.primitives`` (the default).
    """
    config = config or ProtobufDataConfig()
    full = descriptor.full_name
    if full == _DECIMAL:
        return Decimal.builder(0).optional().build()
    if (logical := _logical_schema(full)) is not None:
        return logical.optional().build()
    if config.wrapper_for_raw_primitives and full in _WRAPPERS:
        return SchemaBuilder.type(_WRAPPERS[full]).optional().build()
    return _ToConnect(config).struct(descriptor, optional=False)


# -- values -------------------------------------------------------------------------------------


def build_message(message_class: type[Message], writer: Writer, value: Any) -> Message:
    """A message of ``message_class`` from a compiled writer and a Connect value."""
    args = writer(value)
    try:
        return message_class(**args) if isinstance(args, dict) else message_class(value=args)
    except (TypeError, ValueError) as e:  # upb: wrong type or out of range for a field
        raise DataException(
            f"Invalid value for Protobuf message {message_class.DESCRIPTOR.full_name}: {e}"
        ) from None


def from_connect_data(message_class: type[Message], schema: Schema, value: Any) -> Message:
    """A message of ``message_class`` holding the Connect ``value`` of ``schema``
    (compiles the mapping each call: the converter keeps compiled writers instead).

    Raises:
        DataException: the value does not fit the schema or the message.
    """
    return build_message(message_class, compile_top_writer(schema, message_class.DESCRIPTOR), value)


def to_connect_data(schema: Schema, message: Message) -> Any:
    """The Connect value of ``message``, for ``schema`` from :func:`to_connect_schema`."""
    return compile_top_reader(schema, message.DESCRIPTOR)(message)
