"""Writers of :mod:`.avro_codec`: one generated function per record, array and map, with the
primitives and null unions inlined. Private to the codec."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kconnect.converters.avro._codec_base import (
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    PRIMITIVES,
    SMALL,
    STRING_KEY,
    VT,
    Appender,
    AvroCodecError,
    Node,
    Source,
    child,
    null_pair,
    pack_d,
    pack_f,
    shown,
    type_error,
    varint,
    where,
)
from kconnect.converters.avro.datum import AvroUnion


def _zigzag_writer(lo: int, hi: int, tname: str, path: str) -> Appender:
    def w_int(out: bytearray, v: Any) -> None:
        if not isinstance(v, int) or isinstance(v, bool):
            raise type_error(path, tname, v)
        if not lo <= v <= hi:
            raise AvroCodecError(
                f"Invalid Avro datum{where(path)}: {v} is out of range for {tname}"
            )
        out += varint((v << 1) ^ (v >> 63))

    return w_int


def primitive_writer(kind: str, path: str) -> Appender:
    """The full (checking, converting) writer of a primitive: the slow path of inlined code."""
    if kind == "null":

        def w_null(out: bytearray, v: Any) -> None:
            if v is not None:
                raise type_error(path, "null (None)", v)

        return w_null
    if kind == "boolean":

        def w_bool(out: bytearray, v: Any) -> None:
            if v is True or v is False:
                out.append(1 if v else 0)
            else:
                raise type_error(path, "boolean", v)

        return w_bool
    if kind == "int":
        return _zigzag_writer(INT_MIN, INT_MAX, "int", path)
    if kind == "long":
        return _zigzag_writer(LONG_MIN, LONG_MAX, "long", path)
    if kind == "float" or kind == "double":
        single = kind == "float"

        def w_float(out: bytearray, v: Any) -> None:
            if not isinstance(v, (float, int)) or isinstance(v, bool):
                raise type_error(path, kind, v)
            try:
                f = float(v)
            except OverflowError as e:
                raise AvroCodecError(
                    f"Invalid Avro datum{where(path)}: {shown(v)} is out of range for {kind}"
                ) from e
            if not single:
                out += pack_d(f)
                return
            try:
                out += pack_f(f)
            except OverflowError:
                # Java's (float) cast: a double beyond float's range becomes an infinity
                out += pack_f(math.copysign(math.inf, f))

        return w_float
    if kind == "string":

        def w_str(out: bytearray, v: Any) -> None:
            if not isinstance(v, str):
                raise type_error(path, "string", v)
            try:
                b = v.encode("utf-8")
            except UnicodeEncodeError as e:
                raise AvroCodecError(
                    f"Invalid Avro datum{where(path)}: string is not valid Unicode ({e.reason})"
                ) from e
            out += varint(len(b) << 1)
            out += b

        return w_str
    if kind == "bytes":

        def w_bytes(out: bytearray, v: Any) -> None:
            if not isinstance(v, (bytes, bytearray, memoryview)):
                raise type_error(path, "bytes", v)
            b = bytes(v)
            out += varint(len(b) << 1)
            out += b

        return w_bytes
    raise AssertionError(kind)


class Writers:
    """Compiles writers, one generated function per record (cached per node), array and map."""

    def __init__(self) -> None:
        self.done: dict[tuple[int, str], Appender] = {}
        self.pending: dict[int, list[Appender]] = {}

    def writer(self, node: Node, path: str) -> Appender:
        k = node.kind
        if k in PRIMITIVES:
            return primitive_writer(k, path)
        if k == "record":
            return self.record(node, path)
        if k == "enum":
            return _enum_writer(node, path)
        if k == "fixed":
            return _fixed_writer(node, path)
        src = Source()
        if k == "array":
            self.array(src, node, path)
            return src.build_writer("w")
        if k == "map":
            self.map(src, node, path)
            return src.build_writer("w")
        return self.union(node, path)

    def record(self, node: Node, path: str) -> Appender:
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
        src = Source()
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
            self.emit(src, 1, fnode, f"x{i}", child(path, name))
        src.add(1, "return None")
        fn = src.build_writer("w")
        holder.append(fn)
        del self.pending[key]
        self.done[(key, path)] = fn
        return fn

    def array(self, src: Source, node: Node, path: str) -> None:
        assert node.items is not None
        src.add(0, "def w(out, v):")
        src.add(1, "if v.__class__ is not list and not isinstance(v, (list, tuple)):")
        src.add(2, f"raise {src.bind(type_error)}({path!r}, 'array (list)', v)")
        src.add(1, "if v:")
        src.add(2, "n = len(v)")
        src.add(2, "out += VT[n + n] if n < 8192 else varint(n + n)")
        item = src.var()
        src.add(2, f"for {item} in v:")
        self.emit(src, 3, node.items, item, path + "[]")
        src.add(1, "out.append(0)")

    def map(self, src: Source, node: Node, path: str) -> None:
        assert node.items is not None
        src.add(0, "def w(out, v):")
        src.add(1, "if v.__class__ is not dict and not isinstance(v, Mapping):")
        src.add(2, f"raise {src.bind(type_error)}({path!r}, 'map (dict)', v)")
        src.add(1, "if v:")
        src.add(2, "n = len(v)")
        src.add(2, "out += VT[n + n] if n < 8192 else varint(n + n)")
        key, value = src.var(), src.var()
        src.add(2, f"for {key}, {value} in v.items():")
        self.emit(src, 3, STRING_KEY, key, path + "{key}")
        self.emit(src, 3, node.items, value, path + "{}")
        src.add(1, "out.append(0)")

    def union(self, node: Node, path: str) -> Appender:
        writers = [self.writer(b, path) for b in node.branches]
        kinds = [b.describe() for b in node.branches]
        count = len(writers)
        null_first = null_pair(node)
        if null_first is not None:  # a general-form writer for a null-or-one union
            src = Source()
            src.add(0, "def w(out, v):")
            self.emit(src, 1, node, "v", path)
            return src.build_writer("w")

        def w_union(out: bytearray, v: Any) -> None:
            if v.__class__ is not AvroUnion:
                raise type_error(path, f"AvroUnion of [{', '.join(kinds)}]", v)
            branch = v.branch
            if not isinstance(branch, int) or not 0 <= branch < count:
                raise AvroCodecError(
                    f"Invalid Avro datum{where(path)}: union branch {branch!r} is not one of "
                    f"0..{count - 1} ([{', '.join(kinds)}])"
                )
            out += VT[branch + branch]
            writers[branch](out, v.datum)

        return w_union

    def emit(self, src: Source, ind: int, node: Node, x: str, path: str) -> None:
        """Lines writing the value in variable ``x`` (inlined for primitives and null unions)."""
        k = node.kind
        if k in _INLINE_WRITE:
            slow, t = src.bind(primitive_writer(k, path)), src.var()
            for line in _INLINE_WRITE[k]:
                src.add(ind + line[0], line[1].format(x=x, slow=slow, t=t))
            return
        pair = null_pair(node) if k == "union" else None
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


def _record_type_error(node: Node, path: str) -> Callable[[Any], AvroCodecError]:
    return lambda v: type_error(path, f"record {node.name} (dict)", v)


def _missing_field(node: Node, path: str) -> Callable[[Any], AvroCodecError]:
    def missing(v: Any) -> AvroCodecError:
        for name, _ in node.fields:
            if name not in v:
                return AvroCodecError(
                    f"Invalid Avro datum{where(path)}: record {node.name} has no value for "
                    f'field "{name}"'
                )
        return AvroCodecError(f"Invalid Avro datum{where(path)}: record {node.name} lookup failed")

    return missing


def _enum_writer(node: Node, path: str) -> Appender:
    index = {s: VT[2 * i] if 2 * i < SMALL else varint(2 * i) for i, s in enumerate(node.symbols)}

    def w_enum(out: bytearray, v: Any) -> None:
        b = index.get(v) if isinstance(v, str) else None
        if b is None:
            if not isinstance(v, str):
                raise type_error(path, f"enum {node.name} symbol (str)", v)
            raise AvroCodecError(
                f"Invalid Avro datum{where(path)}: {v!r} is not a symbol of enum {node.name} "
                f"{node.symbols}"
            )
        out += b

    return w_enum


def _fixed_writer(node: Node, path: str) -> Appender:
    size = node.size

    def w_fixed(out: bytearray, v: Any) -> None:
        if not isinstance(v, (bytes, bytearray, memoryview)):
            raise type_error(path, f"fixed {node.name} (bytes)", v)
        if len(v) != size:
            raise AvroCodecError(
                f"Invalid Avro datum{where(path)}: fixed {node.name} needs {size} bytes, "
                f"got {len(v)}"
            )
        out += v

    return w_fixed
