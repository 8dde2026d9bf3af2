"""The shared parts of :mod:`.avro_codec`: the parsed schema tree, varints, error texts and
the builder of generated functions. Private to the codec."""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.converters.avro.datum import AvroUnion

Appender = Callable[[bytearray, Any], None]
# A compiled reader of part of a datum: (input, offset) -> (value, next offset).
Read = Callable[[bytes, int], tuple[Any, int]]


class AvroCodecError(ValueError):
    """A schema, datum or encoded input that does not fit Avro's rules; the message says why."""


PRIMITIVES = frozenset(("null", "boolean", "int", "long", "float", "double", "bytes", "string"))
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
_MASK32, _MASK64 = (1 << 32) - 1, (1 << 64) - 1
_FLOAT32_MAX = 3.4028234663852886e38
# A block of items that may take no bytes at all (nulls, empty records) cannot be bounded by
# the input's length; past this many such items the input is refused rather than looped over.
MAX_EMPTY_ITEMS = 10_000_000

_S_F = struct.Struct("<f")
_S_D = struct.Struct("<d")
pack_f, unpack_f = _S_F.pack, _S_F.unpack_from
pack_d, unpack_d = _S_D.pack, _S_D.unpack_from

# Varints of the (zigzagged) values below this bound, precomputed: most lengths and small ints.
SMALL = 1 << 14


def big_varint(n: int) -> bytes:
    """The varint of ``n`` >= 128 (timestamps, ids: the first three groups unrolled)."""
    if n < 0x200000:
        if n < 0x4000:
            return bytes((n & 0x7F | 0x80, n >> 7))
        return bytes((n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14))
    out = [n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14 & 0x7F | 0x80]
    n >>= 21
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


VT: list[bytes] = [bytes((n,)) if n < 0x80 else big_varint(n) for n in range(SMALL)]


def varint(n: int) -> bytes:
    """The varint of a non-negative ``n`` (a zigzagged long)."""
    return VT[n] if n < SMALL else big_varint(n)


def read_long(d: bytes, p: int) -> tuple[int, int]:
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


def read_int(d: bytes, p: int) -> tuple[int, int]:
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


def read_size(d: bytes, p: int, what: str) -> tuple[int, int]:
    """A length (long) that must be non-negative and fit in the rest of ``d``."""
    n, p = read_long(d, p)
    if n < 0:
        raise AvroCodecError(f"Malformed input: negative {what} length {n} at offset {p}")
    if p + n > len(d):
        raise AvroCodecError(
            f"Truncated input: {what} of {n} bytes at offset {p}, {len(d) - p} bytes left"
        )
    return n, p


# --------------------------------------------------------------------------- schema parsing


class Node:
    """One Avro type of a parsed schema; named types are one shared node (cycles allowed)."""

    __slots__ = ("branches", "fields", "items", "kind", "name", "size", "symbols")

    def __init__(self, kind: str, name: str = "") -> None:
        self.kind = kind
        self.name = name  # full name of a named type
        self.fields: list[tuple[str, Node]] = []
        self.items: Node | None = None  # array items / map values
        self.size = 0
        self.symbols: list[str] = []
        self.branches: list[Node] = []

    def describe(self) -> str:
        return f"{self.kind} {self.name}" if self.name else self.kind


def parse_schema(schema: object) -> Node:
    names: dict[str, Node] = {}
    prims = {p: Node(p) for p in PRIMITIVES}

    def full_name(name: object, namespace: str, where: str) -> tuple[str, str]:
        if not isinstance(name, str) or not name:
            raise AvroCodecError(f"Invalid schema: {where} has no name")
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        return (f"{namespace}.{name}" if namespace else name), namespace

    def define(node: Node) -> None:
        if node.name in names or node.name in PRIMITIVES:
            raise AvroCodecError(f"Invalid schema: the name {node.name} is defined twice")
        names[node.name] = node

    def reference(name: str, namespace: str) -> Node:
        if name in prims:
            return prims[name]
        if "." not in name and namespace and f"{namespace}.{name}" in names:
            return names[f"{namespace}.{name}"]
        if name in names:
            return names[name]
        raise AvroCodecError(f"Invalid schema: unknown type {name!r}")

    def parse(s: object, namespace: str) -> Node:
        if isinstance(s, str):
            return reference(s, namespace)
        if isinstance(s, list):
            node = Node("union")
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
            node = Node("record" if t == "error" else t, fullname)
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
            node = Node(t)
            key = "items" if t == "array" else "values"
            if key not in s:
                raise AvroCodecError(f"Invalid schema: {t} {s!r} has no {key}")
            node.items = parse(s[key], namespace)
            return node
        return reference(t, namespace)  # a primitive (maybe with a logicalType) or a name

    return parse(schema, "")


def may_be_empty(node: Node, seen: frozenset[int] = frozenset()) -> bool:
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
        return all(may_be_empty(f, inner) for _, f in node.fields)
    return False


# --------------------------------------------------------------------------- errors


def where(path: str) -> str:
    return f' for field "{path}"' if path else ""


def shown(v: object) -> str:
    s = repr(v)
    return s if len(s) <= 100 else s[:100] + "..."


def type_error(path: str, expected: str, v: object) -> AvroCodecError:
    return AvroCodecError(
        f"Invalid Avro datum{where(path)}: expected {expected} but got "
        f"{type(v).__name__} {shown(v)}"
    )


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class Source:
    """Python source of one generated function and the objects it refers to."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {
            "VT": VT,
            "varint": big_varint,  # (generated code looks VT up first)
            "pf": pack_f,
            "pd": pack_d,
            "AvroCodecError": AvroCodecError,
            "AvroUnion": AvroUnion,
            "Mapping": Mapping,
            "rlong": read_long,
            "rint": read_int,
            "rsize": read_size,
            "uf": unpack_f,
            "ud": unpack_d,
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

    def build_reader(self, name: str) -> Read:
        exec("\n".join(self.lines), self.ns)
        fn: Read = self.ns[name]
        return fn


def null_pair(node: Node) -> tuple[int, Node] | None:
    """For a union of ``null`` and one other type: the null's index and the other type."""
    b = node.branches
    if len(b) != 2:
        return None
    if b[0].kind == "null" and b[1].kind != "null":
        return 0, b[1]
    if b[1].kind == "null" and b[0].kind != "null":
        return 1, b[0]
    return None


# the type of map keys
STRING_KEY = Node("string")
