"""Connect values <-> Protobuf messages, compiled once per (Connect schema, message type).

The bytes are the ``protobuf`` package's (upb, in C): parsing a message costs well under a
microsecond, so what costs is walking the Connect value. :func:`compile_writer` turns a Connect
schema and a message descriptor into a function from a Connect value to the keyword arguments
of the message's constructor (one C call builds the whole message, nested ones included);
:func:`compile_reader` into a function from a parsed message to the Connect value, building
structs with ``Struct.trusted`` (the values come from the schema they are read with).

Values follow :mod:`.protobuf_data`'s rules: Decimal <-> ``confluent.type.Decimal``, Date <->
``google.type.Date``, Time <-> ``google.type.TimeOfDay``, Timestamp <->
``google.protobuf.Timestamp``, optional primitives <-> wrappers, enums by symbol (or number with
``int.for.enums``), union structs <-> oneofs, uint64/fixed64 <-> Java longs (two's complement).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from kconnect.api import DataException, Decimal, Schema, Struct, Timestamp, Type

__all__ = [
    "Reader",
    "Writer",
    "compile_reader",
    "compile_top_reader",
    "compile_top_writer",
    "compile_writer",
    "is_entry",
]

UNION_NAME = "io.confluent.connect.protobuf.Union"
_FD = FieldDescriptor
_TIMESTAMP = "google.protobuf.Timestamp"
_DATE = "google.type.Date"
_TIME = "google.type.TimeOfDay"
_DECIMAL = "confluent.type.Decimal"
_WRAPPER_PREFIX = "google.protobuf."
_WRAPPERS = frozenset(
    _WRAPPER_PREFIX + n
    for n in (
        "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value",
        "BoolValue", "StringValue", "BytesValue",
    )
)  # fmt: skip
_UNSIGNED_64 = frozenset({_FD.TYPE_UINT64, _FD.TYPE_FIXED64})
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)

Conv = Callable[[Any], Any]
#: Connect value -> the constructor arguments of the message (``cls(**writer(value))``)
Writer = Callable[[Any], dict[str, Any]]
#: parsed message -> Connect value
Reader = Callable[[Message], Any]


def _is_map_entry(d: Descriptor | None) -> bool:
    return d is not None and bool(d.GetOptions().map_entry)


def is_entry(d: Descriptor | None) -> bool:
    if d is None:
        return False
    numbers = d.fields_by_number
    return (
        d.name.endswith("Entry") and len(d.fields) == 2
        and 1 in numbers and numbers[1].name == "key" and 2 in numbers
        and numbers[2].name == "value"
    )  # fmt: skip


# -- writing ----------------------------------------------------------------------------------


def _timestamp_in(schema: Schema) -> Conv:
    def conv(value: Any) -> dict[str, int]:
        if not isinstance(value, _dt.datetime):
            raise DataException(f"Timestamp value must be a datetime, not {type(value).__name__}")
        seconds, ms = divmod(Timestamp.from_logical(schema, value), 1000)
        return {"seconds": seconds, "nanos": ms * 1_000_000}

    return conv


def _date_in(value: Any) -> dict[str, int]:
    if not isinstance(value, _dt.date):
        raise DataException(f"Date value must be a date, not {type(value).__name__}")
    return {"year": value.year, "month": value.month, "day": value.day}


def _time_in(value: Any) -> dict[str, int]:
    if not isinstance(value, _dt.time):
        raise DataException(f"Time value must be a time, not {type(value).__name__}")
    return {
        "hours": value.hour,
        "minutes": value.minute,
        "seconds": value.second,
        "nanos": value.microsecond // 1000 * 1_000_000,
    }


def _decimal_in(schema: Schema) -> Conv:
    params = schema.parameters or {}
    scale = int(params.get(Decimal.SCALE_FIELD, 0))

    def conv(value: Any) -> dict[str, Any]:
        if not isinstance(value, _decimal.Decimal):
            raise DataException(
                f"Decimal value must be a decimal.Decimal, not {type(value).__name__}"
            )
        raw = Decimal.from_logical(schema, value)
        unscaled = int.from_bytes(raw, "big", signed=True)
        # Confluent's DecimalUtils.fromBigDecimal: the value's own precision (BigDecimal's:
        # the digits of its unscaled value, 1 for zero), not the schema's parameter
        digits = 1 if unscaled == 0 else len(str(abs(unscaled)))
        return {"value": raw, "precision": digits, "scale": scale}

    return conv


def _wrapper_in(value: Any) -> dict[str, Any]:
    return {"value": bytes(value) if isinstance(value, (bytearray, memoryview)) else value}


def _message_in(schema: Schema, d: Descriptor) -> Conv:
    full = d.full_name
    if full in _WRAPPERS:
        return _wrapper_in
    if full == _TIMESTAMP:
        return _timestamp_in(schema)
    if full == _DATE:
        return _date_in
    if full == _TIME:
        return _time_in
    if full == _DECIMAL:
        return _decimal_in(schema)
    if schema.type != Type.STRUCT:
        raise DataException(f"Cannot write a {schema.type.value} as message {full}")
    return compile_writer(schema, d)


def _scalar_in(schema: Schema, f: FieldDescriptor) -> Conv | None:
    """None: the value goes in as it is."""
    if f.type == _FD.TYPE_ENUM:
        numbers: dict[str, int] = {v.name: int(v.number) for v in f.enum_type.values}
        enum_name = f.enum_type.full_name

        def enum(value: Any) -> int:
            if isinstance(value, str):
                number = numbers.get(value)
                if number is None:
                    raise DataException(f"{value!r} is no symbol of enum {enum_name}")
                return number
            return int(value)

        return enum
    if f.type == _FD.TYPE_BYTES:
        return lambda v: bytes(v) if isinstance(v, (bytearray, memoryview)) else v
    if f.type in _UNSIGNED_64:
        return lambda v: v + (1 << 64) if isinstance(v, int) and v < 0 else v
    return None


def _element_in(schema: Schema, f: FieldDescriptor) -> Conv | None:
    if f.type == _FD.TYPE_MESSAGE:
        return _message_in(schema, f.message_type)
    return _scalar_in(schema, f)


def _field_in(schema: Schema, f: FieldDescriptor) -> Conv | None:
    if not f.is_repeated:
        return _element_in(schema, f)
    mt = f.message_type
    if _is_map_entry(mt):
        kconv = _scalar_in(schema.key_schema, mt.fields_by_number[1])
        vconv = _element_in(schema.value_schema, mt.fields_by_number[2])

        def proto_map(value: Any) -> dict[Any, Any]:
            return {
                (kconv(k) if kconv else k): (vconv(v) if vconv else v)
                for k, v in value.items()
                if v is not None
            }

        return proto_map
    if schema.type == Type.MAP and is_entry(mt):
        kf, vf = mt.fields_by_number[1], mt.fields_by_number[2]
        kc = _field_in(schema.key_schema, kf)
        vc = _field_in(schema.value_schema, vf)

        def entries(value: Any) -> list[dict[str, Any]]:
            out = []
            for k, v in value.items():
                entry = {"key": kc(k) if kc else k}
                if v is not None:
                    entry["value"] = vc(v) if vc else v
                out.append(entry)
            return out

        return entries
    if schema.type != Type.ARRAY:
        raise DataException(f"Cannot write a {schema.type.value} as repeated field {f.full_name}")
    econv = _element_in(schema.value_schema, f)
    if econv is None:
        return lambda value: [v for v in value if v is not None]
    return lambda value: [econv(v) for v in value if v is not None]


def compile_writer(schema: Schema, d: Descriptor) -> Writer:
    """A function from Connect structs of ``schema`` to ``d``'s constructor arguments.

    Fields are matched by name. Raises DataException when a Connect field has no field of the
    same name in the message (at compile time, so once per schema).
    """
    fields = d.fields_by_name
    plain: list[tuple[int, str, Any, Conv | None]] = []
    unions: list[tuple[int, list[tuple[int, str, Conv | None]]]] = []
    for cf in schema.fields:
        fs = cf.schema
        if fs.type == Type.STRUCT and fs.name == UNION_NAME:
            members = []
            for m in fs.fields:
                mf = fields.get(m.name)
                if mf is None:
                    raise DataException(f"Protobuf message {d.full_name} has no field {m.name!r}")
                members.append((m.index, mf.name, _field_in(m.schema, mf)))
            unions.append((cf.index, members))
            continue
        f = fields.get(cf.name)
        if f is None:
            raise DataException(f"Protobuf message {d.full_name} has no field {cf.name!r}")
        plain.append((cf.index, f.name, fs.default_value, _field_in(fs, f)))
    name = schema.name or "a struct"

    def write(value: Any) -> dict[str, Any]:
        if not isinstance(value, Struct):
            raise DataException(f"Expected a Struct for {name}, got {type(value).__name__}")
        values = value.raw_values()
        if value.schema is not schema and value.schema != schema:
            values = [value.get_without_default(f.name) for f in schema.fields]
        out: dict[str, Any] = {}
        for index, key, default, conv in plain:
            v = values[index]
            if v is None:
                v = default
                if v is None:
                    continue
            out[key] = conv(v) if conv is not None else v
        for index, members in unions:
            union = values[index]
            if union is None:
                continue
            member_values = union.raw_values()
            for mi, key, conv in members:
                mv = member_values[mi]
                if mv is not None:
                    out[key] = conv(mv) if conv is not None else mv
                    break
        return out

    return write


# -- reading ----------------------------------------------------------------------------------


def _rescaler(schema: Schema) -> Callable[[_decimal.Decimal], _decimal.Decimal]:
    scale = int((schema.parameters or {}).get(Decimal.SCALE_FIELD, 0))
    quantum = _decimal.Decimal(1).scaleb(-scale)
    return lambda v: v.quantize(quantum)


def _message_out(schema: Schema, d: Descriptor, nulls: bool) -> Reader:
    full = d.full_name
    if full in _WRAPPERS:
        return attrgetter("value")
    if full == _TIMESTAMP:
        return lambda m: (
            _EPOCH + _dt.timedelta(milliseconds=m.seconds * 1000 + m.nanos // 1_000_000)
        )
    if full == _DATE:
        return lambda m: _dt.date(m.year, m.month, m.day)
    if full == _TIME:
        return lambda m: _dt.time(m.hours, m.minutes, m.seconds, m.nanos // 1_000_000 * 1000)
    if full == _DECIMAL:
        rescale = _rescaler(schema)

        def dec(m: Any) -> _decimal.Decimal:
            unscaled = int.from_bytes(m.value, "big", signed=True) if m.value else 0
            return rescale(_decimal.Decimal(unscaled).scaleb(-int(m.scale)))

        return dec
    return compile_reader(schema, d, nulls)


def _scalar_out(schema: Schema, f: FieldDescriptor) -> Conv | None:
    if f.type == _FD.TYPE_ENUM and schema.type == Type.STRING:
        names = {v.number: v.name for v in f.enum_type.values}
        return lambda v: names.get(v, str(v))
    if f.type in _UNSIGNED_64:
        return lambda v: v - (1 << 64) if v >= 1 << 63 else v
    return None


def _element_out(schema: Schema, f: FieldDescriptor, nulls: bool) -> Conv | None:
    if f.type == _FD.TYPE_MESSAGE:
        return _message_out(schema, f.message_type, nulls)
    return _scalar_out(schema, f)


def _field_out(schema: Schema, f: FieldDescriptor, nulls: bool) -> Reader:
    name = f.name
    get = attrgetter(name)
    if f.is_repeated:
        mt = f.message_type
        if _is_map_entry(mt):
            kc = _scalar_out(schema.key_schema, mt.fields_by_number[1])
            vc = _element_out(schema.value_schema, mt.fields_by_number[2], nulls)
            return lambda m: {(kc(k) if kc else k): (vc(v) if vc else v) for k, v in get(m).items()}
        if schema.type == Type.MAP:
            kr = _field_out(schema.key_schema, mt.fields_by_number[1], nulls)
            vr = _field_out(schema.value_schema, mt.fields_by_number[2], nulls)
            return lambda m: {kr(e): vr(e) for e in get(m)}
        ec = _element_out(schema.value_schema, f, nulls)
        if ec is None:
            return lambda m: list(get(m))
        return lambda m: [ec(v) for v in get(m)]
    if f.type == _FD.TYPE_MESSAGE:
        mt = f.message_type
        sub = _message_out(schema, mt, nulls)
        if nulls and mt.full_name not in _WRAPPERS and schema.type == Type.STRUCT:
            # generate.struct.for.nulls: an unset message reads as its default instance
            return lambda m: sub(get(m))
        return lambda m: sub(get(m)) if m.HasField(name) else None
    conv = _scalar_out(schema, f)
    if schema.optional and f.has_presence:
        if conv is None:
            return lambda m: get(m) if m.HasField(name) else None
        return lambda m: conv(get(m)) if m.HasField(name) else None
    if conv is None:
        return get
    return lambda m: conv(get(m))


def _union_out(schema: Schema, d: Descriptor, nulls: bool) -> Reader:
    members = {
        m.name: (m.index, _field_out(m.schema, d.fields_by_name[m.name], nulls))
        for m in schema.fields
    }
    first = schema.fields[0].name if schema.fields else None
    oneof = d.fields_by_name[first].containing_oneof if first in d.fields_by_name else None
    size = len(schema.fields)
    if oneof is None:
        return lambda m: None
    oneof_name = oneof.name

    def read(m: Any) -> Struct | None:
        which = m.WhichOneof(oneof_name)
        if which is None or which not in members:
            return None
        index, reader = members[which]
        values: list[Any] = [None] * size
        values[index] = reader(m)
        return Struct.trusted(schema, values)

    return read


def compile_reader(schema: Schema, d: Descriptor, nulls: bool = False) -> Reader:
    """A function from messages of ``d`` to Connect structs of ``schema`` (fields by name);
    ``nulls``: unset message fields read as structs of defaults (``generate.struct.for.nulls``)."""
    readers: list[Reader] = []
    for cf in schema.fields:
        fs = cf.schema
        if fs.type == Type.STRUCT and fs.name == UNION_NAME:
            readers.append(_union_out(fs, d, nulls))
            continue
        f = d.fields_by_name.get(cf.name)
        if f is None:
            readers.append(lambda m: None)
            continue
        readers.append(_field_out(fs, f, nulls))

    def read(m: Message) -> Struct:
        return Struct.trusted(schema, [r(m) for r in readers])

    return read


def compile_top_writer(schema: Schema, d: Descriptor) -> Writer:
    """Like :func:`compile_writer`, for any schema written as message ``d`` (a primitive as its
    wrapper, a logical type as its well-known message)."""
    if schema.type == Type.STRUCT and d.full_name not in _WRAPPERS:
        return compile_writer(schema, d)
    conv = _message_in(schema, d)
    return lambda value: conv(value)


def compile_top_reader(schema: Schema, d: Descriptor, nulls: bool = False) -> Reader:
    """Like :func:`compile_reader`, for any schema read from message ``d``."""
    if schema.type == Type.STRUCT:
        return compile_reader(schema, d, nulls)
    return _message_out(schema, d, nulls)
