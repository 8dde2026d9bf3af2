"""The plan of a Protobuf message for the native Protobuf codec (``kconnect_native.Converter.protobuf``).

The native ProtobufConverter (``native/src/convert/protobuf.rs``) reads and writes the Protobuf
wire format straight into and out of Connect values. It does not parse ``.proto`` files: the
Python converter hands it, per topic and schema id (decoding) or per topic and Connect schema
(encoding), the Connect schema and a *plan*: how the message descriptor lays out a value of that
Connect schema, made here by :func:`plan_for` with exactly the rules of
:mod:`.protobuf_codec` (fields matched by name, wrappers, well-known messages, maps, oneofs...).
The native code compiles the plan against the Connect schema; a plan that does not fit, or
``None``, leaves every record of the schema to the Python path.

Element plans (what one value of a field is on the wire; tag first):

* scalars: ``("int32",)``, ``("int64",)``, ``("uint32",)``, ``("uint64",)`` (read as Java's
  two's-complement long, written from one), ``("uint64_raw",)`` (a ``UInt64Value``'s value:
  non-negative only), ``("sint32",)``, ``("sint64",)``, ``("fixed32",)``, ``("fixed64",)``
  (as ``uint64``), ``("sfixed32",)``, ``("sfixed64",)``, ``("float",)``, ``("double",)``,
  ``("bool",)``, ``("string",)``, ``("bytes",)``;
* ``("enum", names, numbers)`` -- an enum, as a Connect STRING (symbol names) or INT32 (numbers):
  ``names`` the ``(number, name)`` pairs a number reads as (an unknown number reads as its
  decimal text), ``numbers`` the ``(name, number)`` pairs a symbol writes as;
* ``("message", fields)`` -- a message read as (written from) a Connect STRUCT;
* ``("wrapper", scalar)`` -- a ``google.protobuf`` wrapper message around a scalar plan;
* ``("timestamp",)``, ``("date",)``, ``("time",)`` -- ``google.protobuf.Timestamp``,
  ``google.type.Date``, ``google.type.TimeOfDay``;
* ``("decimal", scale)`` -- ``confluent.type.Decimal`` for a Connect Decimal of this scale (its
  ``precision`` written is the value's own, as Confluent's ``DecimalUtils`` writes it).

Field plans, one per message field the Connect schema uses, in field-number order (the order
the ``protobuf`` package serializes them in):
``(number, slot, member, kind, element, explicit, null_when_absent)``

* ``slot``: the Connect field's index in the struct; ``member``: -1, or the index of the member
  in the union struct (``io.confluent.connect.protobuf.Union``) at ``slot`` for a oneof member;
* ``kind``: ``"single"``, ``"repeated"`` (a Connect ARRAY; numeric scalars written packed),
  ``"map"`` (a Protobuf map: ``element`` is ``("entry", key_element, value_element)``) or
  ``"entries"`` (a Connect MAP as repeated ``key``/``value`` messages: ``element`` is
  ``("entries", key_field, value_field)``, two field plans whose slots are 0 and 1);
* ``explicit``: the field has presence (a oneof member, ``optional``): written whenever set,
  even with its default value; otherwise a scalar's default value is not written (proto3);
* ``null_when_absent``: an absent field reads as null (messages; scalars with presence in an
  optional Connect field); otherwise as its default value (proto3).

The root of a plan is an element plan, read from (written as) the whole message after the wire
prefix.

No plan (:func:`plan_for` returns None): proto2 files (closed enums, defaults, groups),
``generate.struct.for.nulls``, oneof members read as plain fields (``flatten.unions``), a union
struct whose members are not exactly its oneof's fields, a descriptor field used twice, on
write a Connect field with no field of its name in the message, and anything else the Python
mapping would refuse.

This module imports only the plugin API and the ``protobuf`` package's descriptors, so it works
(and is tested) without ``kconnect_native``.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from kconnect.api import Decimal, Schema, Type
from kconnect.converters.protobuf.protobuf_codec import UNION_NAME, is_entry
from kconnect.converters.protobuf.protobuf_data import ProtobufDataConfig

__all__ = ["Plan", "plan_for"]

Plan = tuple[object, ...]
"""A plan node: a tuple whose first item is its tag (see the module docstring)."""

_FD = FieldDescriptor
_TIMESTAMP = "google.protobuf.Timestamp"
_DATE = "google.type.Date"
_TIME = "google.type.TimeOfDay"
_DECIMAL = "confluent.type.Decimal"
_WRAPPED = {
    "google.protobuf.DoubleValue": "double",
    "google.protobuf.FloatValue": "float",
    "google.protobuf.Int64Value": "int64",
    "google.protobuf.UInt64Value": "uint64_raw",
    "google.protobuf.Int32Value": "int32",
    "google.protobuf.UInt32Value": "uint32",
    "google.protobuf.BoolValue": "bool",
    "google.protobuf.StringValue": "string",
    "google.protobuf.BytesValue": "bytes",
}
_SCALARS = {
    _FD.TYPE_INT32: "int32",
    _FD.TYPE_INT64: "int64",
    _FD.TYPE_UINT32: "uint32",
    _FD.TYPE_UINT64: "uint64",
    _FD.TYPE_SINT32: "sint32",
    _FD.TYPE_SINT64: "sint64",
    _FD.TYPE_FIXED32: "fixed32",
    _FD.TYPE_FIXED64: "fixed64",
    _FD.TYPE_SFIXED32: "sfixed32",
    _FD.TYPE_SFIXED64: "sfixed64",
    _FD.TYPE_FLOAT: "float",
    _FD.TYPE_DOUBLE: "double",
    _FD.TYPE_BOOL: "bool",
    _FD.TYPE_STRING: "string",
    _FD.TYPE_BYTES: "bytes",
}


class _NoPlan(Exception):
    """The message has no plan: the Python path does its records."""


def plan_for(
    descriptor: Descriptor,
    schema: Schema | None,
    config: ProtobufDataConfig,
    *,
    writing: bool,
) -> Plan | None:
    """The plan of messages of ``descriptor`` for Connect values of ``schema`` -- read as
    :func:`~.protobuf_codec.compile_top_reader` reads them (``writing`` False) or written as
    :func:`~.protobuf_codec.compile_top_writer` writes them (``writing`` True) -- or None when
    the native codec cannot do it."""
    if schema is None or config.generate_struct_for_nulls:
        return None
    try:
        planner = _Planner(writing)
        if schema.type == Type.STRUCT and (
            writing is False or descriptor.full_name not in _WRAPPED
        ):
            return planner.message(schema, descriptor)
        return planner.message_element(schema, descriptor)
    except (_NoPlan, KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def _proto3(d: Descriptor) -> bool:
    """Whether ``d`` is declared in a proto3 file (open enums, no default values, no groups);
    the ``protobuf`` package no longer says so on the descriptor, the file's proto does."""
    file = d.file
    known = _SYNTAX.get(file.serialized_pb)
    if known is None:
        known = descriptor_pb2.FileDescriptorProto.FromString(file.serialized_pb).syntax
        if len(_SYNTAX) > 1000:
            _SYNTAX.clear()
        _SYNTAX[file.serialized_pb] = known
    return known == "proto3"


#: a file's serialized proto -> its syntax
_SYNTAX: dict[bytes, str] = {}


def _is_map_entry(d: Descriptor | None) -> bool:
    return d is not None and bool(d.GetOptions().map_entry)


class _Planner:
    def __init__(self, writing: bool) -> None:
        self.writing = writing
        self.depth = 0

    def message(self, schema: Schema, d: Descriptor) -> Plan:
        if schema.type != Type.STRUCT or not _proto3(d):
            raise _NoPlan
        self.depth += 1
        if self.depth > 100:  # a recursive message: the Python path
            raise _NoPlan
        try:
            fields: dict[int, Plan] = {}

            def add(plan: Plan) -> None:
                number = plan[0]
                if not isinstance(number, int) or number in fields:
                    raise _NoPlan  # one descriptor field for two Connect fields
                fields[number] = plan

            by_name = d.fields_by_name
            for slot, cf in enumerate(schema.fields):
                fs = cf.schema
                if fs.type == Type.STRUCT and fs.name == UNION_NAME:
                    for plan in self.union(slot, fs, d):
                        add(plan)
                    continue
                f = by_name.get(cf.name)
                if f is None:
                    if self.writing:
                        raise _NoPlan  # compile_writer raises DataException
                    continue  # reads as null
                if f.containing_oneof is not None and not _synthetic(f):
                    raise _NoPlan  # a oneof member as a plain field (flatten.unions)
                add(self.field(f, fs, slot, -1))
            return ("message", tuple(fields[n] for n in sorted(fields)))
        finally:
            self.depth -= 1

    def union(self, slot: int, schema: Schema, d: Descriptor) -> list[Plan]:
        members = schema.fields
        if not members:
            raise _NoPlan
        fields = [d.fields_by_name[m.name] for m in members]  # KeyError: no plan
        oneof = fields[0].containing_oneof
        if oneof is None or _synthetic(fields[0]):
            raise _NoPlan
        if {f.name for f in oneof.fields} != {m.name for m in members}:
            raise _NoPlan
        plans = []
        for mi, (m, f) in enumerate(zip(members, fields, strict=True)):
            if f.containing_oneof is not oneof and f.containing_oneof != oneof:
                raise _NoPlan
            plans.append(self.field(f, m.schema, slot, mi))
        return plans

    def field(self, f: FieldDescriptor, schema: Schema, slot: int, member: int) -> Plan:
        if f.is_repeated:
            mt = f.message_type
            if _is_map_entry(mt):
                if schema.type != Type.MAP:
                    raise _NoPlan
                kf, vf = mt.fields_by_number[1], mt.fields_by_number[2]
                key = self.element(kf, schema.key_schema)
                if kf.type == _FD.TYPE_MESSAGE:
                    raise _NoPlan
                value = self.element(vf, schema.value_schema)
                entry = ("entry", key, value)
                return (f.number, slot, member, "map", entry, False, False)
            if schema.type == Type.MAP:
                if not is_entry(mt) or not _proto3(mt):
                    raise _NoPlan
                kf, vf = mt.fields_by_number[1], mt.fields_by_number[2]
                if kf.containing_oneof is not None or vf.containing_oneof is not None:
                    raise _NoPlan
                if len(mt.fields) != 2:
                    raise _NoPlan
                key = self.field(kf, schema.key_schema, 0, -1)
                key_element = key[4]
                if key[3] != "single" or not isinstance(key_element, tuple):
                    raise _NoPlan  # a list as a key: the Python path (which refuses it)
                if key_element[0] == "message":
                    raise _NoPlan  # a struct as a key: likewise
                entries = ("entries", key, self.field(vf, schema.value_schema, 1, -1))
                return (f.number, slot, member, "entries", entries, False, False)
            if schema.type != Type.ARRAY:
                raise _NoPlan
            return (
                f.number, slot, member, "repeated",
                self.element(f, schema.value_schema), False, False,
            )  # fmt: skip
        element = self.element(f, schema)
        explicit = bool(f.has_presence)
        if f.type == _FD.TYPE_MESSAGE:
            null_when_absent = True
        else:
            null_when_absent = bool(schema.optional and f.has_presence)
        return (f.number, slot, member, "single", element, explicit, null_when_absent)

    def element(self, f: FieldDescriptor, schema: Schema) -> Plan:
        if f.type == _FD.TYPE_MESSAGE:
            return self.message_element(schema, f.message_type)
        if f.type == _FD.TYPE_ENUM:
            values = f.enum_type.values
            names = {int(v.number): v.name for v in values}
            numbers = {v.name: int(v.number) for v in values}
            if schema.type not in (Type.STRING, Type.INT32):
                raise _NoPlan
            return ("enum", tuple(names.items()), tuple(numbers.items()))
        tag = _SCALARS.get(f.type)
        if tag is None:
            raise _NoPlan  # a group
        return (tag,)

    def message_element(self, schema: Schema, d: Descriptor) -> Plan:
        full = d.full_name
        wrapped = _WRAPPED.get(full)
        if wrapped is not None:
            return ("wrapper", (wrapped,))
        if full == _TIMESTAMP:
            return ("timestamp",)
        if full == _DATE:
            return ("date",)
        if full == _TIME:
            return ("time",)
        if full == _DECIMAL:
            params = schema.parameters or {}
            if schema.name != Decimal.LOGICAL_NAME or Decimal.SCALE_FIELD not in params:
                raise _NoPlan
            return ("decimal", int(params[Decimal.SCALE_FIELD]))
        return self.message(schema, d)


def _synthetic(f: FieldDescriptor) -> bool:
    oneof = f.containing_oneof
    return (
        oneof is not None
        and len(oneof.fields) == 1
        and oneof.name == "_" + f.name
        and bool(getattr(f, "has_presence", False))
    )
