"""Readers of :mod:`.avro_codec`, mirroring its writers. Private to the codec."""

from __future__ import annotations

from typing import Any

from kconnect.converters.avro._codec_base import (
    MAX_EMPTY_ITEMS,
    STRING_KEY,
    AvroCodecError,
    Node,
    Read,
    Source,
    child,
    may_be_empty,
    null_pair,
    read_int,
    read_long,
    where,
)
from kconnect.converters.avro.datum import AvroUnion


def _union_index_error(path: str, index: int, count: int) -> AvroCodecError:
    return AvroCodecError(
        f"Malformed input{where(path)}: union branch {index} is not one of 0..{count - 1}"
    )


def _bool_error(path: str, b: int) -> AvroCodecError:
    return AvroCodecError(f"Malformed input{where(path)}: boolean byte {b} is neither 0 nor 1")


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


class Readers:
    """Compiles readers, mirroring :class:`Writers`. A strict reader refuses invalid UTF-8
    (``decode()`` with no arguments is the fastest call); a lenient one replaces it."""

    def __init__(self, lenient: bool) -> None:
        self.errors = "'utf-8', 'replace'" if lenient else ""
        self.done: dict[tuple[int, str], Read] = {}
        self.pending: dict[int, list[Read]] = {}

    def reader(self, node: Node, path: str) -> Read:
        k = node.kind
        if k == "record":
            return self.record(node, path)
        if k == "enum":
            return _enum_reader(node, path)
        if k == "fixed":
            return _fixed_reader(node, path)
        if k == "union" and null_pair(node) is None:
            return self.union(node, path)
        src = Source()
        src.add(0, "def r(d, p):")
        if k == "array":
            self.array(src, node, path)
        elif k == "map":
            self.map(src, node, path)
        else:
            self.emit(src, 1, node, "x", path)
            src.add(1, "return x, p")
        return src.build_reader("r")

    def record(self, node: Node, path: str) -> Read:
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
        src = Source()
        src.add(0, "def r(d, p):")
        for i, (name, fnode) in enumerate(node.fields):
            self.emit(src, 1, fnode, f"x{i}", child(path, name))
        items = ", ".join(f"{name!r}: x{i}" for i, (name, _) in enumerate(node.fields))
        src.add(1, f"return {{{items}}}, p")
        fn = src.build_reader("r")
        holder.append(fn)
        del self.pending[key]
        self.done[(key, path)] = fn
        return fn

    def _blocks(self, src: Source, node: Node, what: str) -> None:
        """The block loop of an array or map: sets ``n`` to each block's count."""
        assert node.items is not None
        src.add(1, "while True:")
        src.add(2, "n, p = rlong(d, p)")
        src.add(2, "if n == 0:")
        src.add(3, "return out, p")
        src.add(2, "if n < 0:")
        src.add(3, "n = -n")
        src.add(3, f"size, p = rsize(d, p, '{what} block')")
        if may_be_empty(node.items) and what == "array":
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

    def array(self, src: Source, node: Node, path: str) -> None:
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

    def map(self, src: Source, node: Node, path: str) -> None:
        assert node.items is not None
        src.add(1, "out = {}")
        self._blocks(src, node, "map")
        src.add(2, "for _ in range(n):")
        key, value = src.var(), src.var()
        self.emit(src, 3, STRING_KEY, key, path + "{key}")
        self.emit(src, 3, node.items, value, path + "{}")
        src.add(3, f"out[{key}] = {value}")

    def union(self, node: Node, path: str) -> Read:
        readers = [self.reader(b, path) for b in node.branches]
        count = len(readers)

        def r_union(d: bytes, p: int) -> tuple[Any, int]:
            i, p = read_long(d, p)
            if not 0 <= i < count:
                raise _union_index_error(path, i, count)
            x, p = readers[i](d, p)
            return AvroUnion(i, x), p

        return r_union

    def emit(self, src: Source, ind: int, node: Node, x: str, path: str) -> None:
        k = node.kind
        if k in _INLINE_READ:
            err = src.bind(_bool_error)
            t = src.var()
            for line in _INLINE_READ[k]:
                src.add(
                    ind + line[0], line[1].format(x=x, t=t, e=err, path=path, errors=self.errors)
                )
            return
        pair = null_pair(node) if k == "union" else None
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


def _null_union_reader(null_index: int, other: Read, path: str) -> Read:
    """The slow path of an inlined null union: a non-canonical or invalid branch index."""

    def r_null_union(d: bytes, p: int) -> tuple[Any, int]:
        i, p = read_long(d, p)
        if i == null_index:
            return None, p
        if i == 1 - null_index:
            return other(d, p)
        raise _union_index_error(path, i, 2)

    return r_null_union


def _enum_reader(node: Node, path: str) -> Read:
    symbols = node.symbols
    count = len(symbols)

    def r_enum(d: bytes, p: int) -> tuple[Any, int]:
        i, p = read_int(d, p)
        if not 0 <= i < count:
            raise AvroCodecError(
                f"Malformed input{where(path)}: enum {node.name} index {i} is not one of "
                f"0..{count - 1}"
            )
        return symbols[i], p

    return r_enum


def _fixed_reader(node: Node, path: str) -> Read:
    size = node.size

    def r_fixed(d: bytes, p: int) -> tuple[Any, int]:
        e = p + size
        if e > len(d):
            raise AvroCodecError(
                f"Truncated input{where(path)}: fixed {node.name} of {size} bytes at offset "
                f"{p}, {len(d) - p} bytes left"
            )
        return d[p:e], e

    return r_fixed
