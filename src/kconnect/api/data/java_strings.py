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
float (FLOAT32), :class:`Float32`      ``Float.toString`` (``12.2``)
str                                    the string itself
bytes, bytearray (BYTES)               ``[B@<hex>``, an object identity (see below)
:class:`ByteBuffer` (BYTES)            ``java.nio.HeapByteBuffer[pos=0 lim=<n> cap=<n>]``
decimal.Decimal (Decimal)              ``BigDecimal.toString`` (``1.23E+4``, ``0.00``)
date / time / datetime (Date, Time,    ``java.util.Date.toString`` in the process's time
Timestamp)                             zone: ``Thu Jan 01 00:00:00 UTC 1970``
list (ARRAY)                           ``[a, b]`` (``ArrayList.toString``)
dict (MAP)                             ``{k1=v1, k2=v2}`` in the dict's order (below)
Struct                                 ``Struct{id=1,name=foo}`` (null fields left out)
=====================================  ====================================================

``byte[]`` has no ``toString`` of its own: Java prints ``[B@`` and the array's identity hash
code, which differs per object and per run and carries none of the data. kconnect keeps the
shape and writes ``[B@`` with a hex number derived from the Python object's identity, equally
meaningless; nothing can (or should) rely on the digits.

Map order: a dict's order is the iteration order of the Java map it stands for, and
:func:`string_value_of` prints a dict in its own order. Whoever builds a map puts it in that
order: the JsonConverter decodes objects into a ``new HashMap<>()`` (document order, then
sorted by hash bucket), the SMTs copy, presize or link their maps as Kafka's code does. The
tools for that are here: :func:`in_hash_map_order` / :func:`hash_map_order` sort entries by
bucket (the key's ``hashCode`` spread and masked by the table size) and then by insertion,
for a table size given by how the map was made (:func:`default_table`,
:func:`presized_table`, :func:`copy_table`, :func:`hash_set_copy_table`). Keys whose Java hash
is an identity (``byte[]``, and ``Struct``, whose hash includes the identity hash of its
schema's ``Type`` enum) keep insertion order, which Java's does not predictably have.

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
from collections.abc import Callable, Iterable, Mapping
from itertools import pairwise
from typing import Any

from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string
from kconnect.api.data.schema import Schema, Type, _StructValue

__all__ = [
    "ByteBuffer",
    "Float32",
    "copy_table",
    "default_table",
    "hash_code",
    "hash_map_order",
    "hash_set_copy_table",
    "in_hash_map_order",
    "java_date_string",
    "json_hash_maps",
    "presized_table",
    "string_hash",
    "string_value_of",
    "table_size_for",
]

_MASK32 = 0xFFFFFFFF
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_EPOCH_DATE = _dt.date(1970, 1, 1)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class Float32(float):
    """A FLOAT32 value where no schema says so: Java's ``Float`` in schemaless data (what
    ``Cast`` makes of a schemaless value cast to ``float32``), which prints, hashes and is
    written to JSON as a Float (``Float.toString``), where a plain float is a Double. Its
    value is a float32 (see :func:`~kconnect.api.data.java_numbers.to_float32`)."""

    __slots__ = ()


class ByteBuffer(bytes):
    """A BYTES value Java holds as a ``java.nio.ByteBuffer`` where Connect usually has a
    ``byte[]``: Confluent's AvroData (``io.confluent.connect.avro.AvroConverter``) reads
    Avro ``bytes`` and ``fixed`` values as ``ByteBuffer.wrap(...)``. Equal to, and usable as,
    the ``bytes`` it holds; it prints as the buffer's ``toString``
    (``java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]``, what FileStreamSink writes for it) and
    hashes by content, as ``ByteBuffer.hashCode`` does, where a ``byte[]`` has an identity."""

    __slots__ = ()

    def java_string(self) -> str:
        """``ByteBuffer.toString()`` of a buffer wrapping exactly these bytes."""
        n = len(self)
        return f"java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]"

    def java_hash(self) -> int:
        """``ByteBuffer.hashCode()``: 31 * h + each byte (signed), from the last one."""
        h = 1
        for b in reversed(self):
            h = (31 * h + (b - 256 if b > 127 else b)) & _MASK32
        return _int32(h)


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
        if value.__class__ is Float32 or (schema is not None and schema.type is Type.FLOAT32):
            return java_float_to_string(value)
        return java_double_to_string(value)
    if isinstance(value, _StructValue):
        return _struct_string(value)
    if isinstance(value, bytes | bytearray | memoryview):
        if value.__class__ is ByteBuffer:
            return value.java_string()
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
        # a dict's order is the iteration order of the Java map it stands for
        return (
            "{"
            + ", ".join(
                string_value_of(k, key_schema) + "=" + string_value_of(v, value_schema)
                for k, v in value.items()
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
#
# A ``java.util.HashMap`` lists its entries bucket by bucket (the key's ``hashCode`` spread as
# ``h ^ (h >>> 16)``, masked by the table size, a power of two), each bucket in insertion
# order. Growing the table (doubling once the size passes 3/4 of it) splits every bucket in two
# and keeps that relative order, so the iteration order of a map is its insertion order stably
# sorted by the bucket under the largest table it reached: it only depends on which keys went
# in, in which order, and how the map was made. Removing a key leaves the table as it is.
# Bins of 8+ colliding keys that Java turns into trees are not modelled (nor the early resizes
# a small table makes instead of treeifying one).


def _int32(h: int) -> int:
    h &= _MASK32
    return h - (1 << 32) if h >> 31 else h


def _long_hash(v: int) -> int:
    v &= (1 << 64) - 1
    return _int32(v ^ (v >> 32))


def string_hash(text: str) -> int:
    """``String.hashCode()``: over the UTF-16 code units, as a signed 32-bit int."""
    h = 0
    if text.isascii():
        for c in text.encode("ascii"):
            h = (31 * h + c) & _MASK32
    else:
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
        return string_hash(value)
    if isinstance(value, bool):
        return 1231 if value else 1237
    t = schema.type if schema is not None else None
    if isinstance(value, int):
        if t in (Type.INT8, Type.INT16, Type.INT32):
            return _int32(value)
        return _long_hash(value)
    if isinstance(value, float):
        single = t is Type.FLOAT32 or value.__class__ is Float32
        return _float_hash(value) if single else _double_hash(value)
    if isinstance(value, _decimal.Decimal):
        return _big_decimal_hash(value)
    if value.__class__ is ByteBuffer:
        return value.java_hash()
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


# ---- table sizes: how the map was made, and how many entries it held at most


def table_size_for(n: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= ``n`` (1 for ``n`` <= 1)."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _grown(table: int, peak: int) -> int:
    # a put that takes the size past (int) (table * 0.75) doubles the table
    while peak > table * 0.75:
        table <<= 1
    return table


def default_table(peak: int) -> int:
    """The table size of a ``new HashMap<>()`` that held at most ``peak`` entries."""
    return _grown(16, peak)


def presized_table(expected: int, peak: int) -> int:
    """The table size of a ``new HashMap<>(expected)`` that held at most ``peak`` entries."""
    return _grown(table_size_for(expected), peak)


def copy_table(copied: int, peak: int) -> int:
    """The table size of a ``new HashMap<>(other)`` (``other`` having ``copied`` entries) that
    held at most ``peak`` entries. This is JDK 17's rule (``size / 0.75 + 1``, the JDK Kafka
    Connect 4.1 runs on here); JDK 19 and later size the copy as ``ceil(size / 0.75)``."""
    if copied <= 0:
        return default_table(peak)
    return _grown(table_size_for(int(copied / 0.75 + 1.0)), peak)


def hash_set_copy_table(n: int) -> int:
    """The table size of a ``new HashSet<>(collection)`` of a collection of ``n`` elements
    (repeated ones included: the set is sized for the collection, then filled)."""
    return table_size_for(max(int(n / 0.75) + 1, 16))


# ---- orders

_SPREAD: dict[str, int] = {}  # string key -> its spread hashCode (h ^ h >>> 16, unsigned)
# string keys in insertion order -> the same keys in the order of a new HashMap<>() holding
# them (None: that is insertion order); and the same per (keys, table size) for other tables
_DEFAULT_ORDERS: dict[tuple[str, ...], tuple[str, ...] | None] = {}
_ORDERS: dict[tuple[tuple[str, ...], int], tuple[str, ...] | None] = {}
_CACHE_LIMIT = 1 << 14
_UNKNOWN: Any = object()


def _string_spread(key: str) -> int:
    s = _SPREAD.get(key)
    if s is None:
        h = string_hash(key) & _MASK32
        s = h ^ (h >> 16)
        if len(_SPREAD) >= _CACHE_LIMIT:
            _SPREAD.clear()
        _SPREAD[key] = s
    return s


def _spreads(keys: Iterable[Any], key_schema: Schema | None) -> list[int] | None:
    """Each key's spread hash, or None when one has an identity hash."""
    out = []
    for k in keys:
        if k.__class__ is str:
            out.append(_string_spread(k))
            continue
        h = hash_code(k, key_schema)
        if h is None:
            return None
        h &= _MASK32
        out.append(h ^ (h >> 16))
    return out


def _permutation(
    keys: tuple[Any, ...], table: int, key_schema: Schema | None
) -> tuple[int, ...] | None:
    """The positions of ``keys`` (in insertion order) in iteration order; None when that is
    insertion order (already sorted by bucket, or a key's hash is an identity)."""
    spreads = _spreads(keys, key_schema)
    if spreads is None:
        return None
    mask = table - 1
    buckets = [s & mask for s in spreads]
    if all(a <= b for a, b in pairwise(buckets)):
        return None
    # sorted() is stable: within a bucket, insertion order
    return tuple(sorted(range(len(keys)), key=buckets.__getitem__))


def hash_map_order(
    entries: Iterable[tuple[Any, Any]], key_schema: Schema | None = None, table: int | None = None
) -> list[tuple[Any, Any]]:
    """``entries`` (inserted in this order, no repeated keys) in the iteration order of a Java
    ``HashMap`` with ``table`` buckets (by default a ``new HashMap<>()`` holding them);
    insertion order when a key's Java hash is an identity (see the module docstring)."""
    items = list(entries)
    perm = _permutation(tuple(k for k, _ in items), table or default_table(len(items)), key_schema)
    return items if perm is None else [items[i] for i in perm]


def _ordered_keys(
    keys: tuple[Any, ...], table: int, key_schema: Schema | None
) -> tuple[Any, ...] | None:
    perm = _permutation(keys, table, key_schema)
    return None if perm is None else tuple(keys[i] for i in perm)


def in_hash_map_order(
    d: dict[Any, Any], table: int | None = None, key_schema: Schema | None = None
) -> dict[Any, Any]:
    """``d`` (its entries in insertion order) in the iteration order of a Java ``HashMap`` with
    ``table`` buckets (by default a ``new HashMap<>()`` holding them): ``d`` itself when it
    already is, else a new dict. Keys hashed by identity leave ``d`` as it is.

    Fast for repeated key sets: the order of a tuple of string keys is computed once (and
    each string's hash once) and cached.
    """
    if len(d) < 2:
        return d
    keys = tuple(d)
    if table is None:
        order = _DEFAULT_ORDERS.get(keys, _UNKNOWN)
        if order is _UNKNOWN:
            order = _ordered_keys(keys, default_table(len(keys)), key_schema)
            _remember(_DEFAULT_ORDERS, keys, keys, order)
    else:
        ck = (keys, table)
        order = _ORDERS.get(ck, _UNKNOWN)
        if order is _UNKNOWN:
            order = _ordered_keys(keys, table, key_schema)
            _remember(_ORDERS, ck, keys, order)
    if order is None:
        return d
    return {k: d[k] for k in order}


def _remember(cache: dict[Any, Any], ck: Any, keys: tuple[Any, ...], order: Any) -> None:
    # Only all-string key tuples are kept: no other key equals a string, so an equal tuple met
    # later has the same Java hashes (1 == 1.0 == True, whose hashes differ, would not).
    if all(k.__class__ is str for k in keys):
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[ck] = order


def json_hash_maps(v: Any) -> Any:
    """A parsed JSON value (dicts, lists, scalars) with every object in the iteration order of
    the ``new HashMap<>()`` Kafka's JsonConverter decodes it into (filled in document order).

    Works in place on the lists of ``v`` (fresh from the parser) and returns ``v``, or a new
    dict where ``v`` is an object. An object whose keys were seen before costs one cached
    lookup; from the second time a set of keys is met, a function made for it (see
    :func:`_object_builder`) builds the ordered object in one go.
    """
    if v.__class__ is dict:
        if len(v) > 1:
            keys = tuple(v)
            build = _BUILDERS.get(keys)
            if build is not None:
                return build(v)
            order = _DEFAULT_ORDERS.get(keys, _UNKNOWN)
            if order is _UNKNOWN:
                order = _ordered_keys(keys, default_table(len(keys)), None)
                _remember(_DEFAULT_ORDERS, keys, keys, order)
            elif len(keys) <= _BUILT_KEYS_LIMIT:
                # (cached: all strings) a second sighting: worth a function of its own
                if len(_BUILDERS) >= _CACHE_LIMIT:
                    _BUILDERS.clear()
                build = _BUILDERS[keys] = _object_builder(keys if order is None else order)
                return build(v)
            if order is not None:
                v = {k: v[k] for k in order}
        for k, x in v.items():
            c = x.__class__
            if c is dict or c is list:
                y = json_hash_maps(x)
                if y is not x:
                    v[k] = y  # (replacing a value keeps the dict's size and order)
    elif v.__class__ is list:
        for i, x in enumerate(v):
            c = x.__class__
            if c is dict or c is list:
                y = json_hash_maps(x)
                if y is not x:
                    v[i] = y
    return v


# (string keys of a JSON object in document order) -> a function making the ordered object
_BUILDERS: dict[tuple[str, ...], Callable[[dict[str, Any]], dict[str, Any]]] = {}
_BUILT_KEYS_LIMIT = 64
_CONTAINERS = frozenset((dict, list))


def _object_builder(order: tuple[str, ...]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A function taking a parsed JSON object with these keys to the same object in ``order``,
    its nested objects and arrays through :func:`json_hash_maps`: straight-line code, one
    statement per key (several times faster than a loop). The keys are passed as variables,
    never written into the source."""
    ns: dict[str, Any] = {"C": _CONTAINERS, "walk": json_hash_maps}
    lines = ["def build(v):"]
    for i, k in enumerate(order):
        ns[f"k{i}"] = k
        lines.append(f"    x{i} = v[k{i}]")
        lines.append(f"    if x{i}.__class__ in C:")
        lines.append(f"        x{i} = walk(x{i})")
    lines.append("    return {" + ", ".join(f"k{i}: x{i}" for i in range(len(order))) + "}")
    exec("\n".join(lines), ns)
    build: Callable[[dict[str, Any]], dict[str, Any]] = ns["build"]
    return build
