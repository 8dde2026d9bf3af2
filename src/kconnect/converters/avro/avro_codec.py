"""Avro's binary encoding (Avro 1.11 specification), compiled once per Avro schema.

:func:`compile_writer` / :func:`compile_appender` turn an Avro schema (its parsed JSON form: a
type name, an object, or a list for a union; named types defined once and referenced later by
name, namespaces inherited as the specification says) into one function writing a datum
(the form of :mod:`.datum`); :func:`compile_reader` into one function reading it back. Records,
arrays and maps are generated as straight-line Python source with the primitives inlined, so
the per-value work is a class check and a few byte operations, with no dispatch on the schema.

Writing checks the datum against the schema and raises :class:`AvroCodecError` naming the
field path and the expected type (an ``int`` outside 32 bits, a missing record field, an
unknown enum symbol, a ``fixed`` of the wrong size...). Arrays and maps are written as one
block followed by the end marker, as Java's ``GenericDatumWriter`` and fastavro do.

Reading accepts everything the specification allows (negative block counts followed by a
block size, non-canonical varints up to 10 bytes for a ``long`` and 5 for an ``int``, which
wrap to 64 / 32 bits as Java's ``BinaryDecoder`` does) and raises :class:`AvroCodecError` for
truncated or malformed input. Strings holding invalid UTF-8 are decoded with U+FFFD
replacements, as Java's ``new String(bytes, UTF_8)`` does; a ``boolean`` byte other than 0/1
is refused.

Pure functions, safe to share between threads; compile once per schema and cache.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.converters.avro.datum import AvroUnion

__all__ = [
    "AvroCodecError",
    "Appender",
    "Reader",
    "Writer",
    "compile_appender",
    "compile_reader",
    "compile_writer",
    "read_all",
]

Writer = Callable[[Any], bytes]
Appender = Callable[[bytearray, Any], None]
Reader = Callable[[bytes | bytearray | memoryview, int], tuple[Any, int]]
# A compiled reader of part of a datum: (input, offset) -> (value, next offset).
_Read = Callable[[bytes, int], tuple[Any, int]]


class AvroCodecError(ValueError):
    """A schema, datum or encoded input that does not fit Avro's rules; the message says why."""


_PRIMITIVES = frozenset(("null", "boolean", "int", "long", "float", "double", "bytes", "string"))
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_MASK32, _MASK64 = (1 << 32) - 1, (1 << 64) - 1
_FLOAT32_MAX = 3.4028234663852886e38
# A block of items that may take no bytes at all (nulls, empty records) cannot be bounded by
# the input's length; past this many such items the input is refused rather than looped over.
MAX_EMPTY_ITEMS = 10_000_000

_S_F = struct.Struct("<f")
_S_D = struct.Struct("<d")
_pack_f, _unpack_f = _S_F.pack, _S_F.unpack_from
_pack_d, _unpack_d = _S_D.pack, _S_D.unpack_from

# Varints of the (zigzagged) values below this bound, precomputed: most lengths and small ints.
_SMALL = 1 << 14


def _varint_uncached(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_VT: list[bytes] = [_varint_uncached(n) for n in range(_SMALL)]


def _varint(n: int) -> bytes:
    """The varint of a non-negative ``n`` (a zigzagged long)."""
    return _VT[n] if n < _SMALL else _varint_uncached(n)


def _read_long(d: bytes, p: int) -> tuple[int, int]:
    """A zigzag ``long`` at ``p`` (at most 10 bytes, wrapped to 64 bits) and the next offset."""
    b = d[p]
    n = b & 0x7F
    shift = 7
    p += 1
    while b > 0x7F:
        if shift >= 70:
            raise AvroCodecError(f"Invalid long encoding at offset {p - 10}: more than 10 bytes")
        b = d[p]
        p += 1
        n |= (b & 0x7F) << shift
        shift += 7
    n &= _MASK64
    return (n >> 1) ^ -(n & 1), p


def _read_int(d: bytes, p: int) -> tuple[int, int]:
    """A zigzag ``int`` at ``p`` (at most 5 bytes, wrapped to 32 bits) and the next offset."""
    b = d[p]
    n = b & 0x7F
    shift = 7
    p += 1
    while b > 0x7F:
        if shift >= 35:
            raise AvroCodecError(f"Invalid int encoding at offset {p - 5}: more than 5 bytes")
        b = d[p]
        p += 1
        n |= (b & 0x7F) << shift
        shift += 7
    n &= _MASK32
    return (n >> 1) ^ -(n & 1), p


def _read_size(d: bytes, p: int, what: str) -> tuple[int, int]:
    """A length (long) that must be non-negative and fit in the rest of ``d``."""
    n, p = _read_long(d, p)
    if n < 0:
        raise AvroCodecError(f"Malformed input: negative {what} length {n} at offset {p}")
    if p + n > len(d):
        raise AvroCodecError(
            f"Truncated input: {what} of {n} bytes at offset {p}, {len(d) - p} bytes left"
        )
    return n, p


# --------------------------------------------------------------------------- schema parsing


class _Node:
    """One Avro type of a parsed schema; named types are one shared node (cycles allowed)."""

    __slots__ = ("branches", "fields", "items", "kind", "name", "size", "symbols")

    def __init__(self, kind: str, name: str = "") -> None:
        self.kind = kind
        self.name = name  # full name of a named type
        self.fields: list[tuple[str, _Node]] = []
        self.items: _Node | None = None  # array items / map values
        self.size = 0
        self.symbols: list[str] = []
        self.branches: list[_Node] = []

    def describe(self) -> str:
        return f"{self.kind} {self.name}" if self.name else self.kind


def _parse(schema: object) -> _Node:
    names: dict[str, _Node] = {}
    prims = {p: _Node(p) for p in _PRIMITIVES}

    def full_name(name: object, namespace: str, where: str) -> tuple[str, str]:
        if not isinstance(name, str) or not name:
            raise AvroCodecError(f"Invalid schema: {where} has no name")
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        return (f"{namespace}.{name}" if namespace else name), namespace

    def define(node: _Node) -> None:
        if node.name in names or node.name in _PRIMITIVES:
            raise AvroCodecError(f"Invalid schema: the name {node.name} is defined twice")
        names[node.name] = node

    def reference(name: str, namespace: str) -> _Node:
        if name in prims:
            return prims[name]
        if "." not in name and namespace and f"{namespace}.{name}" in names:
            return names[f"{namespace}.{name}"]
        if name in names:
            return names[name]
        raise AvroCodecError(f"Invalid schema: unknown type {name!r}")

    def parse(s: object, namespace: str) -> _Node:
        if isinstance(s, str):
            return reference(s, namespace)
        if isinstance(s, list):
            node = _Node("union")
            node.branches = [parse(b, namespace) for b in s]
            kinds: set[str] = set()
            for b in node.branches:
                key = b.name or b.kind
                if b.kind == "union":
                    raise AvroCodecError("Invalid schema: a union cannot hold a union")
                if key in kinds:
                    raise AvroCodecError(f"Invalid schema: the union {s!r} repeats {key}")
                kinds.add(key)
            return node
        if not isinstance(s, dict):
            raise AvroCodecError(f"Invalid schema: {s!r} is not a type")
        t = s.get("type")
        if not isinstance(t, str):
            return parse(t, namespace)  # {"type": {...}} / {"type": [...]}: the inner schema
        if t in ("record", "error", "enum", "fixed"):
            ns_attr = s.get("namespace")
            ns = ns_attr if isinstance(ns_attr, str) else namespace
            fullname, inner_ns = full_name(s.get("name"), ns, f"the {t} {s!r}")
            node = _Node("record" if t == "error" else t, fullname)
            define(node)
            if t == "enum":
                symbols = s.get("symbols")
                if not isinstance(symbols, list) or not all(isinstance(x, str) for x in symbols):
                    raise AvroCodecError(f"Invalid schema: enum {fullname} has no symbols list")
                node.symbols = list(symbols)
            elif t == "fixed":
                size = s.get("size")
                if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                    raise AvroCodecError(f"Invalid schema: fixed {fullname} has no valid size")
                node.size = size
            else:
                fields = s.get("fields")
                if not isinstance(fields, list):
                    raise AvroCodecError(f"Invalid schema: record {fullname} has no fields list")
                seen: set[str] = set()
                for f in fields:
                    if not isinstance(f, dict) or not isinstance(f.get("name"), str):
                        raise AvroCodecError(f"Invalid schema: record {fullname} field {f!r}")
                    if f["name"] in seen:
                        raise AvroCodecError(
                            f"Invalid schema: record {fullname} repeats field {f['name']}"
                        )
                    seen.add(f["name"])
                    if "type" not in f:
                        raise AvroCodecError(
                            f"Invalid schema: field {f['name']} of {fullname} has no type"
                        )
                    node.fields.append((f["name"], parse(f["type"], inner_ns)))
            return node
        if t == "array" or t == "map":
            node = _Node(t)
            key = "items" if t == "array" else "values"
            if key not in s:
                raise AvroCodecError(f"Invalid schema: {t} {s!r} has no {key}")
            node.items = parse(s[key], namespace)
            return node
        return reference(t, namespace)  # a primitive (maybe with a logicalType) or a name

    return parse(schema, "")


def _may_be_empty(node: _Node, seen: frozenset[int] = frozenset()) -> bool:
    """Whether a datum of ``node`` can take zero bytes (bounds block counts by input size)."""
    k = node.kind
    if k == "null":
        return True
    if k == "fixed":
        return node.size == 0
    if k == "record":
        if id(node) in seen:
            return False
        inner = seen | {id(node)}
        return all(_may_be_empty(f, inner) for _, f in node.fields)
    return False


# --------------------------------------------------------------------------- errors


def _where(path: str) -> str:
    return f' for field "{path}"' if path else ""


def _shown(v: object) -> str:
    s = repr(v)
    return s if len(s) <= 100 else s[:100] + "..."


def _type_error(path: str, expected: str, v: object) -> AvroCodecError:
    return AvroCodecError(
        f"Invalid Avro datum{_where(path)}: expected {expected} but got "
        f"{type(v).__name__} {_shown(v)}"
    )


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# --------------------------------------------------------------------------- writing


def _zigzag_writer(lo: int, hi: int, tname: str, path: str) -> Appender:
    def w_int(out: bytearray, v: Any) -> None:
        if not isinstance(v, int) or isinstance(v, bool):
            raise _type_error(path, tname, v)
        if not lo <= v <= hi:
            raise AvroCodecError(
                f"Invalid Avro datum{_where(path)}: {v} is out of range for {tname}"
            )
        out += _varint((v << 1) ^ (v >> 63))

    return w_int


def _primitive_writer(kind: str, path: str) -> Appender:
    """The full (checking, converting) writer of a primitive: the slow path of inlined code."""
    if kind == "null":

        def w_null(out: bytearray, v: Any) -> None:
            if v is not None:
                raise _type_error(path, "null (None)", v)

        return w_null
    if kind == "boolean":

        def w_bool(out: bytearray, v: Any) -> None:
            if v is True or v is False:
                out.append(1 if v else 0)
            else:
                raise _type_error(path, "boolean", v)

        return w_bool
    if kind == "int":
        return _zigzag_writer(_INT_MIN, _INT_MAX, "int", path)
    if kind == "long":
        return _zigzag_writer(_LONG_MIN, _LONG_MAX, "long", path)
    if kind == "float" or kind == "double":
        single = kind == "float"

        def w_float(out: bytearray, v: Any) -> None:
            if not isinstance(v, (float, int)) or isinstance(v, bool):
                raise _type_error(path, kind, v)
            try:
                f = float(v)
            except OverflowError as e:
                raise AvroCodecError(
                    f"Invalid Avro datum{_where(path)}: {_shown(v)} is out of range for {kind}"
                ) from e
            if not single:
                out += _pack_d(f)
                return
            try:
                out += _pack_f(f)
            except OverflowError:
                # Java's (float) cast: a double beyond float's range becomes an infinity
                out += _pack_f(math.copysign(math.inf, f))

        return w_float
    if kind == "string":

        def w_str(out: bytearray, v: Any) -> None:
            if not isinstance(v, str):
                raise _type_error(path, "string", v)
            try:
                b = v.encode("utf-8")
            except UnicodeEncodeError as e:
                raise AvroCodecError(
                    f"Invalid Avro datum{_where(path)}: string is not valid Unicode ({e.reason})"
                ) from e
            out += _varint(len(b) << 1)
            out += b

        return w_str
    if kind == "bytes":

        def w_bytes(out: bytearray, v: Any) -> None:
            if not isinstance(v, (bytes, bytearray, memoryview)):
                raise _type_error(path, "bytes", v)
            b = bytes(v)
            out += _varint(len(b) << 1)
            out += b

        return w_bytes
    raise AssertionError(kind)


class _Source:
    """Python source of one generated function and the objects it refers to."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {
            "VT": _VT,
            "varint": _varint,
            "pf": _pack_f,
            "pd": _pack_d,
            "AvroCodecError": AvroCodecError,
            "AvroUnion": AvroUnion,
            "Mapping": Mapping,
            "rlong": _read_long,
            "rint": _read_int,
            "rsize": _read_size,
            "uf": _unpack_f,
            "ud": _unpack_d,
        }
        self.lines: list[str] = []
        self._n = 0

    def bind(self, obj: object) -> str:
        self._n += 1
        name = f"o{self._n}"
        self.ns[name] = obj
        return name

    def var(self) -> str:
        self._n += 1
        return f"v{self._n}"

    def add(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def build_writer(self, name: str) -> Appender:
        exec("\n".join(self.lines), self.ns)
        fn: Appender = self.ns[name]
        return fn

    def build_reader(self, name: str) -> _Read:
        exec("\n".join(self.lines), self.ns)
        fn: _Read = self.ns[name]
        return fn


class _Writers:
    """Compiles writers, one generated function per record (cached per node), array and map."""

    def __init__(self) -> None:
        self.done: dict[tuple[int, str], Appender] = {}
        self.pending: dict[int, list[Appender]] = {}

    def writer(self, node: _Node, path: str) -> Appender:
        k = node.kind
        if k in _PRIMITIVES:
            return _primitive_writer(k, path)
        if k == "record":
            return self.record(node, path)
        if k == "enum":
            return _enum_writer(node, path)
        if k == "fixed":
            return _fixed_writer(node, path)
        src = _Source()
        if k == "array":
            self.array(src, node, path)
            return src.build_writer("w")
        if k == "map":
            self.map(src, node, path)
            return src.build_writer("w")
        return self.union(node, path)

    def record(self, node: _Node, path: str) -> Appender:
        # A record is compiled once per path (the path names the fields in errors); a
        # recursive reference made while it compiles goes through a holder filled when it
        # is done (errors inside it name the path of the outer occurrence).
        key = id(node)
        if (key, path) in self.done:
            return self.done[(key, path)]
        if key in self.pending:
            holder = self.pending[key]

            def w_later(out: bytearray, v: Any) -> None:
                holder[0](out, v)

            return w_later
        holder = []
        self.pending[key] = holder
        src = _Source()
        src.add(0, "def w(out, v):")
        src.add(1, "if v.__class__ is not dict and not isinstance(v, Mapping):")
        src.add(2, f"raise {src.bind(_record_type_error(node, path))}(v)")
        names = [name for name, _ in node.fields]
        if names:
            src.add(1, "try:")
            for i, name in enumerate(names):
                src.add(2, f"x{i} = v[{name!r}]")
            src.add(1, "except KeyError:")
            src.add(2, f"raise {src.bind(_missing_field(node, path))}(v) from None")
        for i, (name, fnode) in enumerate(node.fields):
            self.emit(src, 1, fnode, f"x{i}", _child(path, name))
        src.add(1, "return None")
        fn = src.build_writer("w")
        holder.append(fn)
        del self.pending[key]
        self.done[(key, path)] = fn
        return fn

    def array(self, src: _Source, node: _Node, path: str) -> None:
        assert node.items is not None
        src.add(0, "def w(out, v):")
        src.add(1, "if v.__class__ is not list and not isinstance(v, (list, tuple)):")
        src.add(2, f"raise {src.bind(_type_error)}({path!r}, 'array (list)', v)")
        src.add(1, "if v:")
        src.add(2, "n = len(v)")
        src.add(2, "out += VT[n + n] if n < 8192 else varint(n + n)")
        item = src.var()
        src.add(2, f"for {item} in v:")
        self.emit(src, 3, node.items, item, path + "[]")
        src.add(1, "out.append(0)")

    def map(self, src: _Source, node: _Node, path: str) -> None:
        assert node.items is not None
        src.add(0, "def w(out, v):")
        src.add(1, "if v.__class__ is not dict and not isinstance(v, Mapping):")
        src.add(2, f"raise {src.bind(_type_error)}({path!r}, 'map (dict)', v)")
        src.add(1, "if v:")
        src.add(2, "n = len(v)")
        src.add(2, "out += VT[n + n] if n < 8192 else varint(n + n)")
        key, value = src.var(), src.var()
        src.add(2, f"for {key}, {value} in v.items():")
        self.emit(src, 3, _STRING_KEY, key, path + "{key}")
        self.emit(src, 3, node.items, value, path + "{}")
        src.add(1, "out.append(0)")

    def union(self, node: _Node, path: str) -> Appender:
        writers = [self.writer(b, path) for b in node.branches]
        kinds = [b.describe() for b in node.branches]
        count = len(writers)
        null_first = _null_pair(node)
        if null_first is not None:  # a general-form writer for a null-or-one union
            src = _Source()
            src.add(0, "def w(out, v):")
            self.emit(src, 1, node, "v", path)
            return src.build_writer("w")

        def w_union(out: bytearray, v: Any) -> None:
            if v.__class__ is not AvroUnion:
                raise _type_error(path, f"AvroUnion of [{', '.join(kinds)}]", v)
            branch = v.branch
            if not isinstance(branch, int) or not 0 <= branch < count:
                raise AvroCodecError(
                    f"Invalid Avro datum{_where(path)}: union branch {branch!r} is not one of "
                    f"0..{count - 1} ([{', '.join(kinds)}])"
                )
            out += _VT[branch + branch]
            writers[branch](out, v.datum)

        return w_union

    def emit(self, src: _Source, ind: int, node: _Node, x: str, path: str) -> None:
        """Lines writing the value in variable ``x`` (inlined for primitives and null unions)."""
        k = node.kind
        if k in _INLINE_WRITE:
            slow, t = src.bind(_primitive_writer(k, path)), src.var()
            for line in _INLINE_WRITE[k]:
                src.add(ind + line[0], line[1].format(x=x, slow=slow, t=t))
            return
        pair = _null_pair(node) if k == "union" else None
        if pair is not None:
            null_index, other = pair
            other_index = 1 - null_index
            src.add(ind, f"if {x} is None:")
            src.add(ind + 1, f"out.append({null_index * 2})")
            src.add(ind, "else:")
            src.add(ind + 1, f"out.append({other_index * 2})")
            self.emit(src, ind + 1, other, x, path)
            return
        src.add(ind, f"{src.bind(self.writer(node, path))}(out, {x})")


_STRING_KEY = _Node("string")

# Inlined writers: (relative indent, line); {x} the value, {slow} the checking writer, {t} a
# temporary. The fast path takes the exact Python class of the datum form.
_INLINE_WRITE: dict[str, list[tuple[int, str]]] = {
    "null": [(0, "if {x} is not None:"), (1, "{slow}(out, {x})")],
    "boolean": [
        (0, "if {x} is True:"),
        (1, "out.append(1)"),
        (0, "elif {x} is False:"),
        (1, "out.append(0)"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
    "int": [
        (0, "if {x}.__class__ is int and -2147483648 <= {x} <= 2147483647:"),
        (1, "{t} = ({x} << 1) ^ ({x} >> 63)"),
        (1, "out += VT[{t}] if {t} < 16384 else varint({t})"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
    "long": [
        (0, "if {x}.__class__ is int and -9223372036854775808 <= {x} <= 9223372036854775807:"),
        (1, "{t} = ({x} << 1) ^ ({x} >> 63)"),
        (1, "out += VT[{t}] if {t} < 16384 else varint({t})"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
    "float": [
        (0, "if {x}.__class__ is float and -3.4e38 < {x} < 3.4e38:"),
        (1, "out += pf({x})"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
    "double": [
        (0, "if {x}.__class__ is float:"),
        (1, "out += pd({x})"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
    "string": [
        (0, "if {x}.__class__ is str:"),
        (1, "{x} = {x}.encode()"),
        (1, "{t} = len({x})"),
        (1, "out += VT[{t} + {t}] if {t} < 8192 else varint({t} + {t})"),
        (1, "out += {x}"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
    "bytes": [
        (0, "if {x}.__class__ is bytes:"),
        (1, "{t} = len({x})"),
        (1, "out += VT[{t} + {t}] if {t} < 8192 else varint({t} + {t})"),
        (1, "out += {x}"),
        (0, "else:"),
        (1, "{slow}(out, {x})"),
    ],
}


def _null_pair(node: _Node) -> tuple[int, _Node] | None:
    """For a union of ``null`` and one other type: the null's index and the other type."""
    b = node.branches
    if len(b) != 2:
        return None
    if b[0].kind == "null" and b[1].kind != "null":
        return 0, b[1]
    if b[1].kind == "null" and b[0].kind != "null":
        return 1, b[0]
    return None


def _record_type_error(node: _Node, path: str) -> Callable[[Any], AvroCodecError]:
    return lambda v: _type_error(path, f"record {node.name} (dict)", v)


def _missing_field(node: _Node, path: str) -> Callable[[Any], AvroCodecError]:
    def missing(v: Any) -> AvroCodecError:
        for name, _ in node.fields:
            if name not in v:
                return AvroCodecError(
                    f"Invalid Avro datum{_where(path)}: record {node.name} has no value for "
                    f'field "{name}"'
                )
        return AvroCodecError(f"Invalid Avro datum{_where(path)}: record {node.name} lookup failed")

    return missing


def _enum_writer(node: _Node, path: str) -> Appender:
    index = {
        s: _VT[2 * i] if 2 * i < _SMALL else _varint(2 * i) for i, s in enumerate(node.symbols)
    }

    def w_enum(out: bytearray, v: Any) -> None:
        b = index.get(v) if isinstance(v, str) else None
        if b is None:
            if not isinstance(v, str):
                raise _type_error(path, f"enum {node.name} symbol (str)", v)
            raise AvroCodecError(
                f"Invalid Avro datum{_where(path)}: {v!r} is not a symbol of enum {node.name} "
                f"{node.symbols}"
            )
        out += b

    return w_enum


def _fixed_writer(node: _Node, path: str) -> Appender:
    size = node.size

    def w_fixed(out: bytearray, v: Any) -> None:
        if not isinstance(v, (bytes, bytearray, memoryview)):
            raise _type_error(path, f"fixed {node.name} (bytes)", v)
        if len(v) != size:
            raise AvroCodecError(
                f"Invalid Avro datum{_where(path)}: fixed {node.name} needs {size} bytes, "
                f"got {len(v)}"
            )
        out += v

    return w_fixed


def _translated(e: RecursionError | UnicodeEncodeError) -> AvroCodecError:
    if isinstance(e, RecursionError):
        return AvroCodecError("Invalid Avro datum: nested too deeply")
    return AvroCodecError(f"Invalid Avro datum: string is not valid Unicode ({e})")


def compile_appender(schema: object) -> Appender:
    """``(out, datum) -> None``: appends the encoding of ``datum`` to the bytearray ``out``.

    Raises :class:`AvroCodecError` for a schema it cannot parse (at once) and for a datum that
    does not fit it (on the call; ``out`` then holds a partial encoding).
    """
    w = _Writers().writer(_parse(schema), "")

    def append(out: bytearray, datum: Any) -> None:
        try:
            w(out, datum)
        except (RecursionError, UnicodeEncodeError) as e:
            raise _translated(e) from e

    return append


def compile_writer(schema: object) -> Writer:
    """``datum -> bytes``: the Avro binary encoding of a datum of ``schema``."""
    w = _Writers().writer(_parse(schema), "")

    def write(datum: Any) -> bytes:
        out = bytearray()
        try:
            w(out, datum)
        except (RecursionError, UnicodeEncodeError) as e:
            raise _translated(e) from e
        return bytes(out)

    return write


# --------------------------------------------------------------------------- reading


def _union_index_error(path: str, index: int, count: int) -> AvroCodecError:
    return AvroCodecError(
        f"Malformed input{_where(path)}: union branch {index} is not one of 0..{count - 1}"
    )


def _bool_error(path: str, b: int) -> AvroCodecError:
    return AvroCodecError(f"Malformed input{_where(path)}: boolean byte {b} is neither 0 nor 1")


# Inlined readers: set {x}, advance p; {t} a temporary, {e} the error helper's name.
_LONG_LINES = [
    (0, "{t} = d[p]"),
    (0, "if {t} < 128:"),
    (1, "p += 1"),
    (1, "{x} = ({t} >> 1) ^ -({t} & 1)"),
    (0, "else:"),
    (1, "{x}, p = rlong(d, p)"),
]
# A short non-negative length inline, else the checking reader (the else line follows). A
# slice past the end of the input is short, not an error: the reader checks at the end that
# the datum did not run past the input.
_LENGTH_LINES = [
    (0, "{t} = d[p]"),
    (0, "if {t} < 128 and not {t} & 1:"),
    (1, "{t} >>= 1"),
    (1, "p += 1"),
    (0, "else:"),
]
_INLINE_READ: dict[str, list[tuple[int, str]]] = {
    "null": [(0, "{x} = None")],
    "boolean": [
        (0, "{t} = d[p]"),
        (0, "p += 1"),
        (0, "if {t} > 1:"),
        (1, "raise {e}({path!r}, {t})"),
        (0, "{x} = {t} == 1"),
    ],
    "int": [*_LONG_LINES[:-1], (1, "{x}, p = rint(d, p)")],
    "long": _LONG_LINES,
    "float": [(0, "{x} = uf(d, p)[0]"), (0, "p += 4")],
    "double": [(0, "{x} = ud(d, p)[0]"), (0, "p += 8")],
    "string": [
        *_LENGTH_LINES,
        (1, "{t}, p = rsize(d, p, 'string')"),
        (0, "{x} = d[p:p + {t}].decode({errors})"),
        (0, "p += {t}"),
    ],
    "bytes": [
        *_LENGTH_LINES,
        (1, "{t}, p = rsize(d, p, 'bytes')"),
        (0, "{x} = d[p:p + {t}]"),
        (0, "p += {t}"),
    ],
}


class _Readers:
    """Compiles readers, mirroring :class:`_Writers`. A strict reader refuses invalid UTF-8
    (``decode()`` with no arguments is the fastest call); a lenient one replaces it."""

    def __init__(self, lenient: bool) -> None:
        self.errors = "'utf-8', 'replace'" if lenient else ""
        self.done: dict[tuple[int, str], _Read] = {}
        self.pending: dict[int, list[_Read]] = {}

    def reader(self, node: _Node, path: str) -> _Read:
        k = node.kind
        if k == "record":
            return self.record(node, path)
        if k == "enum":
            return _enum_reader(node, path)
        if k == "fixed":
            return _fixed_reader(node, path)
        if k == "union" and _null_pair(node) is None:
            return self.union(node, path)
        src = _Source()
        src.add(0, "def r(d, p):")
        if k == "array":
            self.array(src, node, path)
        elif k == "map":
            self.map(src, node, path)
        else:
            self.emit(src, 1, node, "x", path)
            src.add(1, "return x, p")
        return src.build_reader("r")

    def record(self, node: _Node, path: str) -> _Read:
        key = id(node)
        if (key, path) in self.done:
            return self.done[(key, path)]
        if key in self.pending:
            holder = self.pending[key]

            def r_later(d: bytes, p: int) -> tuple[Any, int]:
                return holder[0](d, p)

            return r_later
        holder = []
        self.pending[key] = holder
        src = _Source()
        src.add(0, "def r(d, p):")
        for i, (name, fnode) in enumerate(node.fields):
            self.emit(src, 1, fnode, f"x{i}", _child(path, name))
        items = ", ".join(f"{name!r}: x{i}" for i, (name, _) in enumerate(node.fields))
        src.add(1, f"return {{{items}}}, p")
        fn = src.build_reader("r")
        holder.append(fn)
        del self.pending[key]
        self.done[(key, path)] = fn
        return fn

    def _blocks(self, src: _Source, node: _Node, what: str) -> None:
        """The block loop of an array or map: sets ``n`` to each block's count."""
        assert node.items is not None
        src.add(1, "while True:")
        src.add(2, "n, p = rlong(d, p)")
        src.add(2, "if n == 0:")
        src.add(3, "return out, p")
        src.add(2, "if n < 0:")
        src.add(3, "n = -n")
        src.add(3, f"size, p = rsize(d, p, '{what} block')")
        if _may_be_empty(node.items) and what == "array":
            src.add(2, "total += n")
            src.add(2, "if total > MAX_EMPTY_ITEMS:")
            src.add(
                3,
                f"raise AvroCodecError('Malformed input: {what} of more than ' + str(MAX_EMPTY_ITEMS) + ' empty items')",
            )
        else:
            src.add(2, "if n > len(d) - p:")
            src.add(
                3,
                f"raise AvroCodecError('Truncated input: {what} block of ' + str(n) + ' items at offset ' + str(p) + ', ' + str(len(d) - p) + ' bytes left')",
            )

    def array(self, src: _Source, node: _Node, path: str) -> None:
        assert node.items is not None
        src.ns["MAX_EMPTY_ITEMS"] = MAX_EMPTY_ITEMS
        src.add(1, "out = []")
        src.add(1, "add = out.append")
        src.add(1, "total = 0")
        self._blocks(src, node, "array")
        src.add(2, "for _ in range(n):")
        item = src.var()
        self.emit(src, 3, node.items, item, path + "[]")
        src.add(3, f"add({item})")

    def map(self, src: _Source, node: _Node, path: str) -> None:
        assert node.items is not None
        src.add(1, "out = {}")
        self._blocks(src, node, "map")
        src.add(2, "for _ in range(n):")
        key, value = src.var(), src.var()
        self.emit(src, 3, _STRING_KEY, key, path + "{key}")
        self.emit(src, 3, node.items, value, path + "{}")
        src.add(3, f"out[{key}] = {value}")

    def union(self, node: _Node, path: str) -> _Read:
        readers = [self.reader(b, path) for b in node.branches]
        count = len(readers)

        def r_union(d: bytes, p: int) -> tuple[Any, int]:
            i, p = _read_long(d, p)
            if not 0 <= i < count:
                raise _union_index_error(path, i, count)
            x, p = readers[i](d, p)
            return AvroUnion(i, x), p

        return r_union

    def emit(self, src: _Source, ind: int, node: _Node, x: str, path: str) -> None:
        k = node.kind
        if k in _INLINE_READ:
            err = src.bind(_bool_error)
            t = src.var()
            for line in _INLINE_READ[k]:
                src.add(
                    ind + line[0], line[1].format(x=x, t=t, e=err, path=path, errors=self.errors)
                )
            return
        pair = _null_pair(node) if k == "union" else None
        if pair is not None:
            null_index, other = pair
            t = src.var()
            src.add(ind, f"{t} = d[p]")
            src.add(ind, f"if {t} == {null_index * 2}:")
            src.add(ind + 1, "p += 1")
            src.add(ind + 1, f"{x} = None")
            src.add(ind, f"elif {t} == {(1 - null_index) * 2}:")
            src.add(ind + 1, "p += 1")
            self.emit(src, ind + 1, other, x, path)
            src.add(ind, "else:")
            slow = src.bind(_null_union_reader(null_index, self.reader(other, path), path))
            src.add(ind + 1, f"{x}, p = {slow}(d, p)")
            return
        src.add(ind, f"{x}, p = {src.bind(self.reader(node, path))}(d, p)")


def _null_union_reader(null_index: int, other: _Read, path: str) -> _Read:
    """The slow path of an inlined null union: a non-canonical or invalid branch index."""

    def r_null_union(d: bytes, p: int) -> tuple[Any, int]:
        i, p = _read_long(d, p)
        if i == null_index:
            return None, p
        if i == 1 - null_index:
            return other(d, p)
        raise _union_index_error(path, i, 2)

    return r_null_union


def _enum_reader(node: _Node, path: str) -> _Read:
    symbols = node.symbols
    count = len(symbols)

    def r_enum(d: bytes, p: int) -> tuple[Any, int]:
        i, p = _read_int(d, p)
        if not 0 <= i < count:
            raise AvroCodecError(
                f"Malformed input{_where(path)}: enum {node.name} index {i} is not one of "
                f"0..{count - 1}"
            )
        return symbols[i], p

    return r_enum


def _fixed_reader(node: _Node, path: str) -> _Read:
    size = node.size

    def r_fixed(d: bytes, p: int) -> tuple[Any, int]:
        e = p + size
        if e > len(d):
            raise AvroCodecError(
                f"Truncated input{_where(path)}: fixed {node.name} of {size} bytes at offset "
                f"{p}, {len(d) - p} bytes left"
            )
        return d[p:e], e

    return r_fixed


def compile_reader(schema: object) -> Reader:
    """``(data, offset) -> (datum, end)``: reads one datum of ``schema`` starting at ``offset``.

    A bytearray or memoryview is copied to bytes first. Raises :class:`AvroCodecError` for a
    schema it cannot parse (at once) and for truncated or malformed input (on the call).
    """
    node = _parse(schema)
    r = _Readers(lenient=False).reader(node, "")
    lenient: list[_Read] = []

    def read(data: bytes | bytearray | memoryview, offset: int = 0) -> tuple[Any, int]:
        d = data if data.__class__ is bytes else bytes(data)
        if offset < 0 or offset > len(d):
            raise AvroCodecError(f"Offset {offset} is outside the input ({len(d)} bytes)")
        try:
            datum, end = r(d, offset)
        except IndexError as e:
            raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a datum") from e
        except struct.error as e:
            raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a number") from e
        except RecursionError as e:
            raise AvroCodecError("Malformed input: nested too deeply") from e
        except UnicodeDecodeError:
            # Java decodes invalid UTF-8 with replacement characters: read again that way
            if not lenient:
                lenient.append(_Readers(lenient=True).reader(node, ""))
            try:
                datum, end = lenient[0](d, offset)
            except (IndexError, struct.error) as e:
                raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a datum") from e
        if end > len(d):
            raise AvroCodecError(f"Truncated input: {len(d)} bytes end inside a datum")
        return datum, end

    return read


def read_all(reader: Reader, data: bytes | bytearray | memoryview, offset: int = 0) -> Any:
    """The one datum ``reader`` reads from ``data[offset:]``, which it must use up exactly."""
    datum, end = reader(data, offset)
    if end != len(data):
        raise AvroCodecError(
            f"Malformed input: {len(data) - end} bytes left after the datum (it ended at "
            f"offset {end} of {len(data)})"
        )
    return datum
