"""Java's ``String.valueOf`` of Connect values, and Java's ``hashCode`` / ``HashMap`` order.

Kafka Connect plugins that print a record's value (``FileStreamSinkTask`` does
``PrintStream.println(record.value())``) write the ``toString`` of the Java object the
converter produced. :func:`string_value_of` renders a kconnect value as that object's
``toString``, given the value's schema (needed to tell FLOAT32 from FLOAT64 and to hash map
keys as Java types):

=====================================  ====================================================
value (schema)                         text
=====================================  ====================================================
None                                   ``null``
bool                                   ``true`` / ``false``
int (INT8..INT64)                      decimal digits
float (FLOAT64, or no schema)          ``Double.toString`` (``1.0E10``, ``NaN``)
float (FLOAT32)                        ``Float.toString`` (``12.2``)
str                                    the string itself
bytes, bytearray (BYTES)               ``[B@<hex>``, an object identity (see below)
decimal.Decimal (Decimal)              ``BigDecimal.toString`` (``1.23E+4``, ``0.00``)
date / time / datetime (Date, Time,    ``java.util.Date.toString`` in the process's time
Timestamp)                             zone: ``Thu Jan 01 00:00:00 UTC 1970``
list (ARRAY)                           ``[a, b]`` (``ArrayList.toString``)
dict (MAP)                             ``{k1=v1, k2=v2}`` in ``java.util.HashMap`` order
Struct                                 ``Struct{id=1,name=foo}`` (null fields left out)
=====================================  ====================================================

``byte[]`` has no ``toString`` of its own: Java prints ``[B@`` and the array's identity hash
code, which differs per object and per run and carries none of the data. kconnect keeps the
shape and writes ``[B@`` with a hex number derived from the Python object's identity, equally
meaningless; nothing can (or should) rely on the digits.

Map order: Java's JsonConverter (and most Java code) builds maps as ``HashMap`` by inserting
entries in document order, so ``toString`` lists them by hash bucket (the key's ``hashCode``
spread and masked by the table size, which grows from 16 as entries are added), then by
insertion. :func:`hash_map_order` reproduces that for keys whose Java ``hashCode`` is
defined by value (strings, numbers, booleans, decimals, dates, lists and maps of those). Keys
whose hash is an identity (``byte[]``, and ``Struct``, whose hash includes the identity hash
of its schema's ``Type`` enum) keep insertion order. Maps that Java code builds otherwise
(a ``LinkedHashMap`` in some SMTs, a ``HashMap`` copied with a presized table, bins of 8+
colliding keys turned into trees) can list their entries in another order.

Dates before the Gregorian change (1582-10-15) are printed in the proleptic Gregorian
calendar, where Java uses the Julian one; the zone abbreviation is the C library's, which is
Java's short zone name for most zones.

Pure functions, safe from any thread.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math
import struct as _struct
import time as _time
from collections.abc import Iterable, Mapping
from typing import Any

from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string
from kconnect.api.data.schema import Schema, Type, _StructValue

__all__ = ["hash_code", "hash_map_order", "java_date_string", "string_value_of"]

_MASK32 = 0xFFFFFFFF
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_EPOCH_DATE = _dt.date(1970, 1, 1)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def string_value_of(value: Any, schema: Schema | None = None) -> str:
    """``String.valueOf`` of the Java object Connect holds for ``value`` (of ``schema``, if
    known; without one a float is a Double and an int a Long, as schemaless JSON gives)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if schema is not None and schema.type is Type.FLOAT32:
            return java_float_to_string(value)
        return java_double_to_string(value)
    if isinstance(value, _StructValue):
        return _struct_string(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return "[B@" + format((id(value) >> 4) & 0x7FFFFFFF, "x")
    if isinstance(value, _decimal.Decimal):
        return _big_decimal_string(value)
    if isinstance(value, _dt.date | _dt.time):
        return java_date_string(_epoch_millis(value))
    if isinstance(value, list | tuple):
        element = _sub_schema(schema, Type.ARRAY, "value_schema")
        return "[" + ", ".join(string_value_of(v, element) for v in value) + "]"
    if isinstance(value, Mapping):
        key_schema = _sub_schema(schema, Type.MAP, "key_schema")
        value_schema = _sub_schema(schema, Type.MAP, "value_schema")
        entries = hash_map_order(list(value.items()), key_schema)
        return (
            "{"
            + ", ".join(
                string_value_of(k, key_schema) + "=" + string_value_of(v, value_schema)
                for k, v in entries
            )
            + "}"
        )
    return str(value)


def _sub_schema(schema: Schema | None, expected: Type, attr: str) -> Schema | None:
    if schema is None or schema.type is not expected:
        return None
    sub: Schema = getattr(schema, attr)
    return sub


def _struct_string(struct: Any) -> str:
    parts = []
    for field in struct.schema.fields:
        v = struct.get_without_default(field)
        if v is not None:
            parts.append(field.name + "=" + string_value_of(v, field.schema))
    return "Struct{" + ",".join(parts) + "}"


def _big_decimal_string(d: _decimal.Decimal) -> str:
    # Python's to-scientific-string and BigDecimal.toString implement the same rules; a
    # BigDecimal has no negative zero.
    if d.is_zero() and d.is_signed():
        d = d.copy_negate()
    return str(d).replace("e", "E")


def _epoch_millis(value: _dt.date | _dt.time) -> int:
    """The milliseconds of the ``java.util.Date`` Connect holds for a Date, Time or Timestamp."""
    if isinstance(value, _dt.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=_dt.UTC)
        delta = moment - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if isinstance(value, _dt.date):
        return (value - _EPOCH_DATE).days * 86_400_000
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def java_date_string(epoch_millis: int) -> str:
    """``new java.util.Date(epoch_millis).toString()`` in this process's time zone:
    ``EEE MMM dd HH:mm:ss zzz yyyy`` with English names (``Thu Jan 01 00:00:00 UTC 1970``)."""
    t = _time.localtime(epoch_millis // 1000)
    return (
        f"{_DAYS[t.tm_wday]} {_MONTHS[t.tm_mon - 1]} {t.tm_mday:02d} "
        f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} {t.tm_zone} {t.tm_year}"
    )


# -- hashCode and HashMap order ------------------------------------------------------------------


def _int32(h: int) -> int:
    h &= _MASK32
    return h - (1 << 32) if h >> 31 else h


def _long_hash(v: int) -> int:
    v &= (1 << 64) - 1
    return _int32(v ^ (v >> 32))


def _string_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK32
    return _int32(h)


def _double_hash(x: float) -> int:
    bits = 0x7FF8000000000000 if math.isnan(x) else _struct.unpack(">q", _struct.pack(">d", x))[0]
    return _long_hash(bits)


def _float_hash(x: float) -> int:
    if math.isnan(x):
        return 0x7FC00000
    bits: int = _struct.unpack(">i", _struct.pack(">f", x))[0]
    return bits


def _big_decimal_hash(d: _decimal.Decimal) -> int | None:
    if not d.is_finite():
        return None
    sign, digits, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    unscaled = int("".join(map(str, digits)) or "0")
    # BigInteger.hashCode: 31*h + each 32-bit word of the magnitude (big-endian), times signum.
    h = 0
    words = (unscaled.bit_length() + 31) // 32
    for i in reversed(range(words)):
        h = (31 * h + ((unscaled >> (32 * i)) & _MASK32)) & _MASK32
    if sign and unscaled:
        h = -h
    return _int32(31 * h + (-exponent))


def hash_code(value: Any, schema: Schema | None = None) -> int | None:
    """Java's ``hashCode`` of the object Connect holds for ``value`` (see
    :func:`string_value_of` for the Java types), or None where Java's is an identity hash."""
    if value is None:
        return 0
    if isinstance(value, str):
        return _string_hash(value)
    if isinstance(value, bool):
        return 1231 if value else 1237
    t = schema.type if schema is not None else None
    if isinstance(value, int):
        if t in (Type.INT8, Type.INT16, Type.INT32):
            return _int32(value)
        return _long_hash(value)
    if isinstance(value, float):
        return _float_hash(value) if t is Type.FLOAT32 else _double_hash(value)
    if isinstance(value, _decimal.Decimal):
        return _big_decimal_hash(value)
    if isinstance(value, _dt.date | _dt.time):
        return _long_hash(_epoch_millis(value))
    if isinstance(value, list | tuple):
        element = _sub_schema(schema, Type.ARRAY, "value_schema")
        h = 1
        for v in value:
            eh = hash_code(v, element)
            if eh is None:
                return None
            h = (31 * h + eh) & _MASK32
        return _int32(h)
    if isinstance(value, Mapping):
        key_schema = _sub_schema(schema, Type.MAP, "key_schema")
        value_schema = _sub_schema(schema, Type.MAP, "value_schema")
        total = 0
        for k, v in value.items():
            kh, vh = hash_code(k, key_schema), hash_code(v, value_schema)
            if kh is None or vh is None:
                return None
            total += kh ^ vh
        return _int32(total)
    return None  # byte[], Struct and anything else: identity


def hash_map_order(
    entries: Iterable[tuple[Any, Any]], key_schema: Schema | None = None
) -> list[tuple[Any, Any]]:
    """``entries`` (inserted in this order into a ``new HashMap<>()``) in that map's iteration
    order; insertion order when a key's Java hash is an identity (see the module docstring)."""
    items = list(entries)
    hashes = [hash_code(k, key_schema) for k, _ in items]
    if any(h is None for h in hashes):
        return items
    capacity = 16
    while len(items) > capacity * 3 // 4:
        capacity *= 2

    def bucket(i: int) -> int:
        h = (hashes[i] or 0) & _MASK32
        return (h ^ (h >> 16)) & (capacity - 1)

    return [items[i] for i in sorted(range(len(items)), key=lambda i: (bucket(i), i))]
