"""The Avro binary codec against fastavro: same bytes, round trips, checked datums, bad input."""

from __future__ import annotations

import io
import math
import struct
from collections.abc import Callable
from typing import Any

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect.converters.avro.avro_codec import (
    AvroCodecError,
    compile_appender,
    compile_reader,
    compile_writer,
    read_all,
)
from kconnect.converters.avro.datum import AvroUnion


def fastavro_bytes(schema: Any, datum: object) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), datum)
    return out.getvalue()


def without_logical_types(schema: Any) -> Any:
    """``schema`` without logicalType attributes: fastavro would convert, our datums stay raw."""
    if isinstance(schema, dict):
        return {k: without_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [without_logical_types(v) for v in schema]
    return schema


def fastavro_read(schema: object, data: bytes) -> object:
    plain = fastavro.parse_schema(without_logical_types(schema))
    return fastavro.schemaless_reader(io.BytesIO(data), plain)


_SAME = object()


def check(schema: object, datum: object, fa_datum: object = _SAME, plain: object = _SAME) -> bytes:
    """Our bytes equal fastavro's; both read them back; returns the bytes."""
    fa = datum if fa_datum is _SAME else fa_datum
    expected = fastavro_bytes(schema, fa)
    got = compile_writer(schema)(datum)
    assert got == expected
    assert read_all(compile_reader(schema), got) == datum
    assert fastavro_read(schema, got) == (datum if plain is _SAME else plain)
    return got


# --------------------------------------------------------------------------- every type


def test_null_and_boolean() -> None:
    assert check("null", None) == b""
    assert check("boolean", True) == b"\x01"
    assert check("boolean", False) == b"\x00"


@pytest.mark.parametrize(
    "value", [0, 1, -1, 63, -64, 64, 127, 128, 8191, 8192, -8193, 2**31 - 1, -(2**31)]
)
def test_int(value: int) -> None:
    check("int", value)
    check({"type": "int", "logicalType": "date"}, value)


@pytest.mark.parametrize(
    "value", [0, -1, 2**31, -(2**31) - 1, 2**53 + 1, 2**62, 2**63 - 1, -(2**63), 10**15]
)
def test_long(value: int) -> None:
    check("long", value)
    check({"type": "long", "logicalType": "timestamp-millis"}, value)


def test_every_varint_length() -> None:
    write, read = compile_writer("long"), compile_reader("long")
    for k in range(1, 64):
        for v in (2**k - 1, 2**k, -(2**k), -(2**k) + 1, -(2**k) - 1):
            if -(2**63) <= v < 2**63:
                assert write(v) == fastavro_bytes("long", v), v
                assert read_all(read, write(v)) == v


def test_float_rounds_to_float32_and_double_is_exact() -> None:
    assert check("float", 1.5) == struct.pack("<f", 1.5)
    got = compile_writer("float")(0.1)
    assert got == fastavro_bytes("float", 0.1)
    assert compile_reader("float")(got, 0) == (struct.unpack("<f", got)[0], 4)
    check("double", 0.1)
    check("double", -0.0)
    check("double", 1e308)
    assert compile_writer("double")(3) == fastavro_bytes("double", 3)
    assert compile_writer("float")(3) == fastavro_bytes("float", 3)


def test_float_beyond_float32_is_infinite_as_java_casts() -> None:
    assert compile_writer("float")(1e39) == struct.pack("<f", math.inf)
    assert compile_writer("float")(-1e39) == struct.pack("<f", -math.inf)


@pytest.mark.parametrize("kind", ["float", "double"])
def test_nan_and_infinities(kind: str) -> None:
    write, read = compile_writer(kind), compile_reader(kind)
    for v in (math.inf, -math.inf):
        assert write(v) == fastavro_bytes(kind, v)
        assert read_all(read, write(v)) == v
    data = write(math.nan)
    assert data == fastavro_bytes(kind, math.nan)
    assert math.isnan(read_all(read, data))


@pytest.mark.parametrize("value", ["", "a", "héllo wörld", "日本語", "🎉 emoji", "x" * 5000])
def test_string(value: str) -> None:
    check("string", value)


@pytest.mark.parametrize("value", [b"", b"\x00", bytes(range(256)), b"y" * 10000])
def test_bytes_and_decimal(value: bytes) -> None:
    check("bytes", value)
    check({"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}, value)


def test_bytearray_and_memoryview_are_bytes() -> None:
    write = compile_writer("bytes")
    assert write(bytearray(b"ab")) == write(memoryview(b"ab")) == b"\x04ab"


def test_fixed_and_enum() -> None:
    fixed = {"type": "fixed", "name": "F", "size": 3}
    check(fixed, b"abc")
    check({"type": "fixed", "name": "Z", "size": 0}, b"")
    enum = {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}
    assert check(enum, "C") == b"\x04"


@pytest.mark.parametrize("value", [[], [1], [1, -2, 3], list(range(-5000, 5000)), [2**40] * 3])
def test_array(value: list[int]) -> None:
    check({"type": "array", "items": "long"}, value)


@pytest.mark.parametrize("value", [{}, {"a": "x"}, {"": "", "é": "日本", "k" * 300: "v"}])
def test_map(value: dict[str, str]) -> None:
    check({"type": "map", "values": "string"}, value)


def test_nested_arrays_and_maps() -> None:
    schema = {"type": "map", "values": {"type": "array", "items": ["null", "string"]}}
    check(schema, {"a": [], "b": [None, "x"], "c": ["", None]})


RECORD = {
    "type": "record",
    "name": "Customer",
    "namespace": "com.example",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "age", "type": ["null", "int"], "default": None},
        {"name": "score", "type": "double"},
        {"name": "ratio", "type": "float"},
        {"name": "active", "type": "boolean"},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": "long"}},
        {"name": "tier", "type": {"type": "enum", "name": "Tier", "symbols": ["GOLD", "SILVER"]}},
        {"name": "raw", "type": "bytes"},
        {
            "name": "address",
            "type": {
                "type": "record",
                "name": "Address",
                "fields": [
                    {"name": "street", "type": "string"},
                    {"name": "zip", "type": ["string", "null"]},
                ],
            },
        },
        {"name": "previous", "type": ["null", "Address"]},
    ],
}


def customer(**changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "id": 1234567890123,
        "name": "Zoë",
        "age": 42,
        "score": 98.25,
        "ratio": 0.5,
        "active": True,
        "tags": ["a", "bb"],
        "attrs": {"x": 1, "y": -(2**40)},
        "tier": "SILVER",
        "raw": b"\x00\xff",
        "address": {"street": "Main St", "zip": None},
        "previous": {"street": "Old St", "zip": "12345"},
    }
    value.update(changes)
    return value


def test_nested_record() -> None:
    check(RECORD, customer())
    check(RECORD, customer(age=None, previous=None, tags=[], attrs={}))


def test_recursive_record() -> None:
    schema = {
        "type": "record",
        "name": "Node",
        "fields": [
            {"name": "value", "type": "int"},
            {"name": "children", "type": {"type": "array", "items": "Node"}},
            {"name": "next", "type": ["null", "Node"]},
        ],
    }
    leaf = {"value": 3, "children": [], "next": None}
    tree = {
        "value": 1,
        "children": [leaf, {"value": 2, "children": [leaf], "next": leaf}],
        "next": None,
    }
    check(schema, tree)


def test_names_and_namespaces() -> None:
    # Short names resolve in the enclosing namespace; a dotted name sets its own namespace;
    # "namespace" on a nested type overrides the inherited one.
    fields: list[object] = [
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}},
        {"name": "e2", "type": "E"},
        {"name": "e3", "type": "a.b.E"},
        {"name": "f", "type": {"type": "fixed", "name": "c.F", "size": 2}},
        {"name": "f2", "type": "c.F"},
        {
            "name": "r",
            "type": {
                "type": "record",
                "name": "In",
                "namespace": "",
                "fields": [{"name": "g", "type": {"type": "fixed", "name": "G", "size": 1}}],
            },
        },
        {"name": "u", "type": ["null", "a.b.Outer"]},
    ]
    schema = {"type": "record", "name": "Outer", "namespace": "a.b", "fields": fields}
    datum = {"e": "Y", "e2": "X", "e3": "Y", "f": b"ab", "f2": b"cd", "r": {"g": b"z"}}
    datum["u"] = dict(datum, u=None)
    check(schema, datum)
    # As in Java's Schema.Names.get, a short name not found in the namespace is looked up in
    # the null namespace (fastavro does not do that)
    fields.insert(-1, {"name": "g2", "type": "G"})
    datum["g2"] = b"q"
    datum["u"] = dict(datum, u=None)
    data = compile_writer(schema)(datum)
    assert read_all(compile_reader(schema), data) == datum


def test_unions_of_every_kind() -> None:
    # null-or-one in either order: None or the value
    check(["null", "string"], None)
    check(["null", "string"], "s")
    assert check(["long", "null"], None) == b"\x02"
    assert check(["long", "null"], 5) == b"\x00\x0a"
    # other unions: AvroUnion(branch, datum)
    enum = {"type": "enum", "name": "E", "symbols": ["A"]}
    rec = {"type": "record", "name": "R", "fields": [{"name": "x", "type": "int"}]}
    union: list[object] = [
        "null",
        "int",
        "long",
        "float",
        "double",
        "boolean",
        "string",
        "bytes",
        enum,
        {"type": "fixed", "name": "F", "size": 1},
        {"type": "array", "items": "int"},
        {"type": "map", "values": "int"},
        rec,
    ]
    datums: list[tuple[object, str]] = [
        (None, "null"),
        (7, "int"),
        (2**40, "long"),
        (1.5, "float"),
        (2.5, "double"),
        (True, "boolean"),
        ("s", "string"),
        (b"b", "bytes"),
        ("A", "E"),
        (b"f", "F"),
        ([1, 2], "array"),
        ({"k": 3}, "map"),
        ({"x": 4}, "R"),
    ]
    for i, (value, name) in enumerate(datums):
        got = check(union, AvroUnion(i, value), (name, value), value)
        assert got[0] == i * 2
    check(["int", "string"], AvroUnion(1, "x"), ("string", "x"), "x")
    check(["null"], AvroUnion(0, None), None, None)


# --------------------------------------------------------------------------- datums that do not fit


@pytest.mark.parametrize(
    ("schema", "datum", "message"),
    [
        ("int", 2**31, "out of range for int"),
        ("int", -(2**31) - 1, "out of range for int"),
        ("long", 2**63, "out of range for long"),
        ("int", True, "expected int but got bool"),
        ("int", 1.0, "expected int but got float"),
        ("double", "1", "expected double"),
        ("double", 10**400, "out of range for double"),
        ("boolean", 1, "expected boolean"),
        ("null", 0, "expected null"),
        ("string", b"x", "expected string"),
        ("string", "\ud800", "not valid Unicode"),
        ("bytes", "x", "expected bytes"),
        ({"type": "fixed", "name": "F", "size": 2}, b"abc", "fixed F needs 2 bytes, got 3"),
        ({"type": "enum", "name": "E", "symbols": ["A"]}, "B", "'B' is not a symbol of enum E"),
        ({"type": "enum", "name": "E", "symbols": ["A"]}, 0, "expected enum E symbol"),
        ({"type": "array", "items": "int"}, {1}, "expected array"),
        ({"type": "map", "values": "int"}, [], "expected map"),
        ({"type": "map", "values": "int"}, {1: 1}, 'field "{key}"'),
        (["int", "string"], 1, "expected AvroUnion of [int, string]"),
        (["int", "string"], AvroUnion(2, 1), "union branch 2 is not one of 0..1"),
        (["int", "string"], AvroUnion(0, "x"), "expected int"),
        (["null", "int"], "x", "expected int"),
    ],
)
def test_datum_that_does_not_fit(schema: object, datum: object, message: str) -> None:
    with pytest.raises(AvroCodecError, match=message.replace("[", r"\[").replace("(", r"\(")):
        compile_writer(schema)(datum)


def test_errors_name_the_field() -> None:
    write = compile_writer(RECORD)
    with pytest.raises(AvroCodecError, match='field "age": 2147483648 is out of range for int'):
        write(customer(age=2**31))
    with pytest.raises(
        AvroCodecError, match=r'record com\.example\.Customer has no value for field "raw"'
    ):
        value = customer()
        del value["raw"]
        write(value)
    with pytest.raises(AvroCodecError, match=r'field "address\.street": expected string'):
        write(customer(address={"street": 1, "zip": None}))
    with pytest.raises(AvroCodecError, match=r'field "tags\[\]": expected string'):
        write(customer(tags=["a", None]))
    with pytest.raises(AvroCodecError, match=r'field "tier".*not a symbol'):
        write(customer(tier="BRONZE"))
    with pytest.raises(
        AvroCodecError, match=r'field "previous": expected record com\.example\.Address'
    ):
        write(customer(previous="x"))


@pytest.mark.parametrize(
    "schema",
    [
        "nope",
        {"type": "record", "name": "R"},
        {"type": "record", "fields": []},
        {"type": "enum", "name": "E"},
        {"type": "fixed", "name": "F", "size": -1},
        {"type": "array"},
        ["int", "int"],
        ["null", ["int"]],
        [{"type": "fixed", "name": "F", "size": 1}, {"type": "fixed", "name": "F", "size": 1}],
        {"type": "record", "name": "R", "fields": [{"name": "a", "type": "R2"}]},
        {"type": "record", "name": "R", "fields": [{"name": "a"}]},
        42,
    ],
)
def test_invalid_schema(schema: object) -> None:
    with pytest.raises(AvroCodecError, match="Invalid schema"):
        compile_writer(schema)
    with pytest.raises(AvroCodecError, match="Invalid schema"):
        compile_reader(schema)


# --------------------------------------------------------------------------- reading


def test_reads_at_an_offset_and_returns_the_end() -> None:
    read = compile_reader(RECORD)
    out = bytearray(b"\x00\x00\x00\x00\x07")
    compile_appender(RECORD)(out, customer())
    assert read(bytes(out) + b"tail", 5) == (customer(), len(out))
    assert read(memoryview(bytes(out)), 5)[0] == customer()
    with pytest.raises(AvroCodecError, match="4 bytes left after the datum"):
        read_all(read, bytes(out) + b"tail", 5)


def test_multi_block_arrays_and_maps_with_negative_counts() -> None:
    # [1, 2] in a block of 1, then a block of -1 with its byte size, then the end marker
    read = compile_reader({"type": "array", "items": "int"})
    assert read_all(read, b"\x02\x02\x01\x02\x04\x00") == [1, 2]
    read_map = compile_reader({"type": "map", "values": "string"})
    data = b"\x03\x10\x02a\x02x\x02b\x02y\x00"  # a block of -2 items, 8 bytes, then the end
    assert read_all(read_map, data) == {"a": "x", "b": "y"}
    assert fastavro_read({"type": "map", "values": "string"}, data) == {"a": "x", "b": "y"}


def test_non_canonical_varints_are_read_as_java_does() -> None:
    assert read_all(compile_reader("long"), b"\x82\x80\x00") == 1
    assert read_all(compile_reader(["null", "int"]), b"\x82\x00\x04") == 2
    # 10 bytes wrap to 64 bits, 5 to 32
    assert read_all(compile_reader("long"), b"\xfe" + b"\xff" * 8 + b"\x7f") == 2**63 - 1
    assert read_all(compile_reader("int"), b"\xfe\xff\xff\xff\x7f") == 2**31 - 1


def test_invalid_utf8_is_replaced_as_java_does() -> None:
    read = compile_reader({"type": "array", "items": "string"})
    assert read_all(read, b"\x04\x02a\x04\xffb\x00") == ["a", "\ufffdb"]


@pytest.mark.parametrize(
    ("schema", "data", "message"),
    [
        ("int", b"", "Truncated"),
        ("int", b"\x80", "Truncated"),
        ("int", b"\x80\x80\x80\x80\x80\x01", "Invalid int encoding"),
        ("long", b"\x80" * 10 + b"\x01", "Invalid long encoding"),
        ("long", b"\xff" * 30, "Invalid long encoding"),
        ("double", b"\x00" * 7, "Truncated"),
        ("float", b"\x00", "Truncated"),
        ("string", b"\x08ab", "Truncated"),
        ("string", b"\x01", "negative string length"),
        ("bytes", b"\x03ab", "negative bytes length"),
        ("bytes", b"\xfe\xff\xff\xff\xff\xff\xff\xff\x7f", "Truncated"),
        ("boolean", b"\x02", "boolean byte 2"),
        ({"type": "fixed", "name": "F", "size": 4}, b"abc", "Truncated"),
        ({"type": "enum", "name": "E", "symbols": ["A"]}, b"\x02", "enum E index 1"),
        (["int", "string"], b"\x04", "union branch 2"),
        (["int", "string"], b"\x01", "union branch -1"),
        (["null", "int"], b"\x04", "union branch 2"),
        ({"type": "array", "items": "long"}, b"\x02", "Truncated"),
        (
            {"type": "array", "items": "long"},
            b"\xfe\xff\xff\xff\x0f\x00",
            "Truncated input: array block",
        ),
        ({"type": "array", "items": "long"}, b"\x01\x01", "negative array block length"),
        ({"type": "array", "items": "null"}, b"\xfe\xff\xff\xff\xff\xff\xff\x7f", "empty items"),
        ({"type": "map", "values": "null"}, b"\xfe\xff\xff\xff\x0f", "Truncated input: map block"),
        ({"type": "map", "values": "int"}, b"\x02\x02a", "Truncated"),
        (RECORD, b"\x02", "Truncated"),
    ],
)
def test_malformed_input(schema: object, data: bytes, message: str) -> None:
    with pytest.raises(AvroCodecError, match=message):
        read_all(compile_reader(schema), data)


def test_every_truncation_of_a_record_is_refused() -> None:
    read = compile_reader(RECORD)
    data = compile_writer(RECORD)(customer())
    for n in range(len(data)):
        with pytest.raises(AvroCodecError):
            read_all(read, data[:n])


def test_deep_recursion_is_an_error_not_a_crash() -> None:
    schema = {"type": "record", "name": "L", "fields": [{"name": "n", "type": ["null", "L"]}]}
    data = b"\x02" * 100_000 + b"\x00"
    with pytest.raises(AvroCodecError, match="nested too deeply"):
        read_all(compile_reader(schema), data)


# --------------------------------------------------------------------------- generated


class _Gen:
    """Draws an Avro schema and a matching datum (ours, fastavro's to write, fastavro's read)."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        self.draw = draw
        self.n = 0
        self.named: list[tuple[str, Callable[[], tuple[object, object, object]]]] = []

    def name(self) -> str:
        self.n += 1
        return f"T{self.n}"

    def schema(self, depth: int) -> tuple[object, str, Callable[[], tuple[object, object, object]]]:
        """(schema JSON, its union branch name, a drawer of (datum, fastavro datum, plain))."""
        draw = self.draw
        kinds = [
            "null",
            "boolean",
            "int",
            "long",
            "float",
            "double",
            "string",
            "bytes",
            "enum",
            "fixed",
        ]
        if depth > 0:
            kinds += ["array", "map", "record", "union", "nullable"]
        if self.named:
            kinds.append("ref")
        kind = draw(st.sampled_from(kinds))
        simple: dict[str, Any] = {
            "null": st.none(),
            "boolean": st.booleans(),
            "int": st.integers(-(2**31), 2**31 - 1),
            "long": st.integers(-(2**63), 2**63 - 1),
            "float": st.floats(width=32, allow_nan=False),
            "double": st.floats(allow_nan=False),
            "string": st.text(),
            "bytes": st.binary(),
        }
        if kind in simple:
            strategy = simple[kind]

            def prim() -> tuple[object, object, object]:
                v = draw(strategy)
                return v, v, v

            return kind, kind, prim
        if kind == "ref":
            name, drawer = draw(st.sampled_from(self.named))
            return name, name, drawer
        if kind == "enum":
            name = self.name()
            symbols = draw(
                st.lists(
                    st.from_regex(r"[A-Z][A-Z0-9_]{0,5}", fullmatch=True),
                    min_size=1,
                    max_size=5,
                    unique=True,
                )
            )

            def enum() -> tuple[object, object, object]:
                v = draw(st.sampled_from(symbols))
                return v, v, v

            self.named.append((name, enum))
            return {"type": "enum", "name": name, "symbols": symbols}, name, enum
        if kind == "fixed":
            name = self.name()
            size = draw(st.integers(0, 20))

            def fixed() -> tuple[object, object, object]:
                v = draw(st.binary(min_size=size, max_size=size))
                return v, v, v

            self.named.append((name, fixed))
            return {"type": "fixed", "name": name, "size": size}, name, fixed
        if kind in ("array", "map"):
            inner, _, item = self.schema(depth - 1)

            def items() -> tuple[object, object, object]:
                if kind == "array":
                    triples = [item() for _ in range(draw(st.integers(0, 4)))]
                    return (
                        [t[0] for t in triples],
                        [t[1] for t in triples],
                        [t[2] for t in triples],
                    )
                keys = draw(st.lists(st.text(max_size=5), max_size=4, unique=True))
                triples = [item() for _ in keys]
                pairs = list(zip(keys, triples, strict=True))
                return (
                    {k: t[0] for k, t in pairs},
                    {k: t[1] for k, t in pairs},
                    {k: t[2] for k, t in pairs},
                )

            key = "items" if kind == "array" else "values"
            return {"type": kind, key: inner}, kind, items
        if kind == "record":
            name = self.name()
            fields = [self.schema(depth - 1) for _ in range(draw(st.integers(0, 4)))]

            def record() -> tuple[object, object, object]:
                triples = [f[2]() for f in fields]
                named = [(f"f{j}", t) for j, t in enumerate(triples)]
                return (
                    {k: t[0] for k, t in named},
                    {k: t[1] for k, t in named},
                    {k: t[2] for k, t in named},
                )

            schema = {
                "type": "record",
                "name": name,
                "fields": [{"name": f"f{j}", "type": f[0]} for j, f in enumerate(fields)],
            }
            self.named.append((name, record))
            return schema, name, record
        if kind == "nullable":
            inner, _, other = self.schema(0)
            if inner == "null":
                inner, other = "int", lambda: (1, 1, 1)
            null_first = draw(st.booleans())

            def nullable() -> tuple[object, object, object]:
                return (None, None, None) if draw(st.booleans()) else other()

            return (["null", inner] if null_first else [inner, "null"]), "union", nullable
        # a general union of distinct branch types (no nested unions)
        branches: list[tuple[object, str, Callable[[], tuple[object, object, object]]]] = []
        seen: set[str] = set()
        for _ in range(draw(st.integers(1, 4))):
            defined = len(self.named)
            b = self.schema(depth - 1)
            if b[1] in seen or b[1] == "union" or isinstance(b[0], list):
                del self.named[defined:]  # a branch left out defines nothing
                continue
            seen.add(b[1])
            branches.append(b)
        if not branches or (len(branches) == 2 and "null" in seen):
            branches.append(
                ("string", "string", lambda: ("s", "s", "s"))
                if "string" not in seen
                else ("boolean", "boolean", lambda: (True, True, True))
            )

        def union() -> tuple[object, object, object]:
            i = draw(st.integers(0, len(branches) - 1))
            ours, fa, plain = branches[i][2]()
            return AvroUnion(i, ours), (branches[i][1], fa), plain

        return [b[0] for b in branches], "union", union


@st.composite
def schemas_and_datums(draw: Callable[[Any], Any]) -> tuple[object, object, object, object]:
    gen = _Gen(draw)
    schema, _, drawer = gen.schema(3)
    return (schema, *drawer())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas_and_datums())
def test_generated_schemas_and_datums(case: tuple[object, object, object, object]) -> None:
    schema, datum, fa_datum, plain = case
    data = compile_writer(schema)(datum)
    assert data == fastavro_bytes(schema, fa_datum)
    assert read_all(compile_reader(schema), data) == datum
    assert fastavro_read(schema, data) == plain


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_read_or_fail_cleanly(data: bytes) -> None:
    read = compile_reader(RECORD)
    try:
        read(data, 0)
    except AvroCodecError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas_and_datums(), st.data())
def test_generated_inputs_cut_or_corrupted(
    case: tuple[object, object, object, object], data: st.DataObject
) -> None:
    """Every strict prefix of an encoding is refused; a corrupted byte reads or is refused."""
    schema, datum, _, _ = case
    read = compile_reader(schema)
    encoded = compile_writer(schema)(datum)
    for n in range(len(encoded)):
        with pytest.raises(AvroCodecError):
            read_all(read, encoded[:n])
    if encoded:
        at = data.draw(st.integers(0, len(encoded) - 1))
        corrupted = bytearray(encoded)
        corrupted[at] = data.draw(st.integers(0, 255))
        try:
            read_all(read, bytes(corrupted))
        except AvroCodecError:
            pass
