"""The native AvroConverter form (``kconnect_native.Converter.avro``) and its plans.

Bytes the native form writes equal ``fastavro.schemaless_writer``'s for the same datum (behind
the 5-byte wire prefix), and values it reads equal fastavro's reading turned into Connect values
by the straightforward conversion below, for every plan node, nested, optional in every
position, with crafted multi-block arrays and maps; malformed input and anything a plan cannot
write is handed back (FALLBACK). ``plan_for`` is tested on both paths; the rest runs only where
the native path is on.
"""

from __future__ import annotations

import copy
import datetime as dt
import decimal
import io
import json
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect import _hot_path
from kconnect.api import DataException, Schema, SchemaAndValue, SchemaBuilder, SinkRecord, Struct
from kconnect.api.data.java_strings import (
    ByteBuffer,
    Float32,
    hash_code,
    hash_map_order,
    string_value_of,
)
from kconnect.api.data.logical import Date, Decimal, Time, Timestamp
from kconnect.connectors.file.sink_task import _text
from kconnect.converters.avro.avro_codec import AvroCodecError, compile_reader, compile_writer
from kconnect.converters.avro.avro_data import (
    ANYTHING_SCHEMA,
    AvroData,
    AvroDataConfig,
    parse_avro_schema,
)
from kconnect.converters.avro.native_plan import plan_for

native = _hot_path.native
needs_native = pytest.mark.skipif(native is None, reason=_hot_path.describe())
FALLBACK = _hot_path.FALLBACK
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- specs: a Connect schema, its Avro schema, values and the reference conversions ----------
#
# A spec is a tuple tree: ("prim", kind) | ("enum", symbols) | ("fixed", size)
# | ("decimal", scale, fixed_size) | ("opt", null_first, spec) | ("array", spec) | ("map", spec)
# | ("entries", key_spec, value_spec) | ("record", name, ((field, spec), ...))

Spec = tuple[Any, ...]

PRIM_CONNECT: dict[str, Callable[[], SchemaBuilder]] = {
    "int8": SchemaBuilder.int8,
    "int16": SchemaBuilder.int16,
    "int32": SchemaBuilder.int32,
    "int64": SchemaBuilder.int64,
    "float32": SchemaBuilder.float32,
    "float64": SchemaBuilder.float64,
    "boolean": SchemaBuilder.bool,
    "string": SchemaBuilder.string,
    "bytes": SchemaBuilder.bytes,
    "date": Date.builder,
    "time": Time.builder,
    "timestamp": Timestamp.builder,
}
PRIM_AVRO: dict[str, object] = {
    "int8": "int",
    "int16": "int",
    "int32": "int",
    "int64": "long",
    "float32": "float",
    "float64": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "bytes",
    "date": {"type": "int", "logicalType": "date"},
    "time": {"type": "int", "logicalType": "time-millis"},
    "timestamp": {"type": "long", "logicalType": "timestamp-millis"},
}


def builder_of(spec: Spec) -> SchemaBuilder:
    tag = spec[0]
    if tag == "prim":
        return PRIM_CONNECT[spec[1]]()
    if tag in ("enum",):
        return SchemaBuilder.string()
    if tag == "fixed":
        return SchemaBuilder.bytes().parameter("connect.fixed.size", str(spec[1]))
    if tag == "decimal":
        b = Decimal.builder(spec[1])
        if spec[2]:
            b.parameter("connect.fixed.size", str(spec[2]))
        return b
    if tag == "opt":
        return builder_of(spec[2]).optional()
    if tag == "array":
        return SchemaBuilder.array(connect_of(spec[1]))
    if tag == "map":
        return SchemaBuilder.map(Schema.STRING_SCHEMA, connect_of(spec[1]))
    if tag == "entries":
        return SchemaBuilder.map(connect_of(spec[1]), connect_of(spec[2]))
    assert tag == "record"
    b = SchemaBuilder.struct().name(spec[1])
    for name, f in spec[2]:
        b.field(name, connect_of(f))
    return b


def connect_of(spec: Spec) -> Schema:
    return builder_of(spec).build()


def avro_of(spec: Spec) -> object:
    """The Avro schema AvroData would make: named types defined once (by spec object), then
    referenced by name."""
    names: dict[int, str] = {}

    def named(s: Spec, prefix: str) -> tuple[str, bool]:
        if id(s) in names:
            return names[id(s)], False
        names[id(s)] = f"test.ns.{prefix}{len(names)}"  # a full name: references work anywhere
        return names[id(s)], True

    def go(s: Spec) -> object:
        tag = s[0]
        if tag == "prim":
            return copy.deepcopy(PRIM_AVRO[s[1]])
        if tag == "opt":
            inner = go(s[2])
            return ["null", inner] if s[1] else [inner, "null"]
        if tag == "array":
            return {"type": "array", "items": go(s[1])}
        if tag == "map":
            return {"type": "map", "values": go(s[1])}
        if tag == "decimal" and not s[2]:
            return {"type": "bytes", "logicalType": "decimal", "precision": 64, "scale": s[1]}
        name, new = named(s, {"enum": "E", "fixed": "F", "decimal": "D"}.get(tag, "R"))
        if not new:
            return name
        if tag == "enum":
            return {"type": "enum", "name": name, "symbols": list(s[1])}
        if tag == "fixed":
            return {"type": "fixed", "name": name, "size": s[1]}
        if tag == "decimal":
            return {
                "type": "fixed",
                "name": name,
                "size": s[2],
                "logicalType": "decimal",
                "precision": 64,
                "scale": s[1],
            }
        if tag == "entries":
            return {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": f"MapEntry{len(names)}",
                    "namespace": "io.confluent.connect.avro",
                    "fields": [
                        {"name": "key", "type": go(s[1])},
                        {"name": "value", "type": go(s[2])},
                    ],
                },
            }
        return {
            "type": "record",
            "name": name,
            "fields": [{"name": n, "type": go(f)} for n, f in s[2]],
        }

    return go(spec)


def without_logical_types(avro: object) -> Any:
    """The schema fastavro reads and writes raw (ints, longs, bytes) with."""
    if isinstance(avro, list):
        return [without_logical_types(a) for a in avro]
    if isinstance(avro, dict):
        return {k: without_logical_types(v) for k, v in avro.items() if k != "logicalType"}
    return avro


def java_table(n: int, capacity: int | None = None) -> int:
    """The table size of a Java HashMap (``new HashMap<>(capacity)``, or ``new HashMap<>()``)
    after ``n`` insertions."""
    t = 16 if capacity is None else 1 << max(0, (max(capacity, 1) - 1).bit_length())
    while n > t * 0.75:
        t *= 2
    return t


def to_datum(spec: Spec, schema: Schema, v: Any) -> Any:
    """A Connect value as the Avro datum (raw logical types) AvroData makes of it."""
    if v is None:
        return None
    tag = spec[0]
    if tag == "opt":
        return to_datum(spec[2], schema, v)
    if tag == "prim":
        kind = spec[1]
        if kind == "date":
            return Date.from_logical(schema, v)
        if kind == "time":
            return Time.from_logical(schema, v)
        if kind == "timestamp":
            return Timestamp.from_logical(schema, v)
        return v
    if tag in ("enum", "fixed"):
        return v
    if tag == "decimal":
        raw = Decimal.from_logical(schema, v)
        size = spec[2]
        if size:
            raw = int.from_bytes(raw, "big", signed=True).to_bytes(size, "big", signed=True)
        return raw
    if tag == "array":
        return [to_datum(spec[1], schema.value_schema, x) for x in v]
    if tag == "map":
        entries = [(k, to_datum(spec[1], schema.value_schema, x)) for k, x in v.items()]
        return dict(hash_map_order(entries, None, java_table(len(entries))))
    if tag == "entries":
        return [
            {
                "key": to_datum(spec[1], schema.key_schema, k),
                "value": to_datum(spec[2], schema.value_schema, x),
            }
            for k, x in v.items()
        ]
    return {name: to_datum(f, field_schema(schema, name), v.get(name)) for name, f in spec[2]}


def from_datum(spec: Spec, schema: Schema, d: Any) -> Any:
    """An Avro datum (as fastavro reads it, raw) as the Connect value AvroData makes of it."""
    if d is None:
        return None
    tag = spec[0]
    if tag == "opt":
        return from_datum(spec[2], schema, d)
    if tag == "prim":
        kind = spec[1]
        if kind == "date":
            return Date.to_logical(schema, d)
        if kind == "time":
            return Time.to_logical(schema, d)
        if kind == "timestamp":
            return Timestamp.to_logical(schema, d)
        if kind == "bytes":
            return ByteBuffer(d)  # AvroData's ByteBuffer.wrap(...)
        return d
    if tag == "fixed":
        return ByteBuffer(d)
    if tag == "enum":
        return d
    if tag == "decimal":
        return Decimal.to_logical(schema, d)
    if tag == "array":
        return [from_datum(spec[1], schema.value_schema, x) for x in d]
    if tag == "map":
        return {k: from_datum(spec[1], schema.value_schema, x) for k, x in d.items()}
    if tag == "entries":
        return {
            from_datum(spec[1], schema.key_schema, e["key"]): from_datum(
                spec[2], schema.value_schema, e["value"]
            )
            for e in d
        }
    s = Struct(schema)
    for name, f in spec[2]:
        s.put(name, from_datum(f, field_schema(schema, name), d[name]))
    return s


def field_schema(schema: Schema, name: str) -> Schema:
    field = schema.field(name)
    assert field is not None
    return field.schema


def dec(unscaled: int, scale: int) -> decimal.Decimal:
    """``unscaled`` * 10^-``scale``, exactly (with exponent -scale)."""
    return decimal.Decimal(f"{unscaled}E-{scale}")


def canon(v: Any) -> Any:
    """A comparable form that tells apart what ``==`` does not (-0.0, Decimal exponents,
    classes), with maps compared regardless of order."""
    if isinstance(v, Struct):
        return ("struct", id(v.schema), tuple(canon(x) for _, x in v.items()))
    if isinstance(v, dict):
        return ("map", sorted((repr(canon(k)), canon(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("list", [canon(x) for x in v])
    if isinstance(v, float):
        return ("float", struct.pack("<d", v))
    if isinstance(v, decimal.Decimal):
        return ("decimal", v.as_tuple())
    return (type(v).__name__, v)


# ---- the native form under test ----------------------------------------------------------------


TOPIC = "t"


class Registry:
    """Schema ids for the specs of a test: what ``resolve`` and ``prefix_of`` answer (the same
    for every topic; the topics asked about are kept in ``topics``)."""

    def __init__(self) -> None:
        self.by_id: dict[int, tuple[Schema, object]] = {}
        self.ids: dict[int, int] = {}  # id(schema) -> schema id
        self.calls = 0
        self.topics: list[str] = []

    def add(self, spec: Spec, schema_id: int = 1) -> Schema:
        schema = connect_of(spec)
        plan = plan_for(avro_of(spec), schema)
        assert plan is not None, spec
        self.by_id[schema_id] = (schema, plan)
        self.ids[id(schema)] = schema_id
        return schema

    def resolve(self, topic: str, schema_id: int) -> tuple[Schema | None, object] | None:
        self.calls += 1
        self.topics.append(topic)
        return self.by_id.get(schema_id)

    def prefix_of(self, topic: str, schema: Schema | None) -> tuple[bytes, object] | None:
        self.calls += 1
        self.topics.append(topic)
        if schema is None or id(schema) not in self.ids:
            return None
        schema_id = self.ids[id(schema)]
        return b"\0" + schema_id.to_bytes(4, "big"), self.by_id[schema_id][1]

    def converter(self) -> Any:
        assert native is not None
        return native.Converter.avro(self.resolve, self.prefix_of)


def avro_bytes(spec: Spec, datum: Any, schema_id: int = 1) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(
        out, fastavro.parse_schema(without_logical_types(avro_of(spec))), datum
    )
    return b"\0" + schema_id.to_bytes(4, "big") + out.getvalue()


def read_avro(spec: Spec, payload: bytes) -> Any:
    parsed = fastavro.parse_schema(without_logical_types(avro_of(spec)))
    return fastavro.schemaless_reader(io.BytesIO(payload), parsed, None)


def encode(conv: Any, schema: Schema | None, value: Any, topic: str | None = TOPIC) -> Any:
    out, _ = conv.encode_values([(schema, value)], FALLBACK, topic=topic)
    return out[0]


def decode(conv: Any, data: bytes | None, topic: str | None = TOPIC) -> Any:
    out, _ = conv.decode_values([data], SchemaAndValue, FALLBACK, topic=topic)
    return out[0]


def check_round(spec: Spec, value: Any) -> None:
    """The native bytes of ``value`` (or of ``value(schema)``: a struct must be of the very
    schema registered) are fastavro's; reading them back gives the reference's."""
    reg = Registry()
    schema = reg.add(spec)
    if callable(value):
        value = value(schema)
    conv = reg.converter()
    try:
        expected = avro_bytes(spec, to_datum(spec, schema, value))
    except (OverflowError, struct.error, ValueError, TypeError, UnicodeError):
        assert encode(conv, schema, value) is FALLBACK
        return
    got = encode(conv, schema, value)
    assert got == expected, (spec, value)
    back = decode(conv, got)
    assert back is not FALLBACK, (spec, value, got)
    assert back.schema is schema
    ref = from_datum(spec, schema, read_avro(spec, got[5:]))
    assert canon(back.value) == canon(ref), (spec, value)


# ---- plan_for (both paths) -----------------------------------------------------------------


def test_plans_of_every_node() -> None:
    spec: Spec = (
        "record",
        "R",
        (
            ("a", ("prim", "int8")),
            ("b", ("opt", True, ("prim", "string"))),
            ("c", ("opt", False, ("prim", "date"))),
            ("d", ("decimal", 2, 0)),
            ("e", ("decimal", 3, 8)),
            ("f", ("enum", ("X", "Y"))),
            ("g", ("fixed", 4)),
            ("h", ("array", ("prim", "float32"))),
            ("i", ("map", ("prim", "float64"))),
            ("j", ("entries", ("prim", "int32"), ("prim", "boolean"))),
            ("k", ("record", "Inner", (("x", ("prim", "timestamp")),))),
        ),
    )
    assert plan_for(avro_of(spec), connect_of(spec)) == (
        "record",
        (
            ("int",),
            ("optional", 0, ("string",)),
            ("optional", 1, ("int",)),
            ("decimal", 2, 0),
            ("decimal", 3, 8),
            ("enum", ("X", "Y")),
            ("fixed", 4),
            ("array", ("float",)),
            ("map", ("double",)),
            ("map_entries", ("int",), ("boolean",)),
            ("record", (("long",),)),
        ),
    )


def test_plans_follow_named_references_and_namespaces() -> None:
    inner = SchemaBuilder.struct().name("a.Inner").field("x", Schema.INT32_SCHEMA).build()
    fixed = SchemaBuilder.bytes().parameter("connect.fixed.size", "2").build()
    outer = (
        SchemaBuilder.struct()
        .name("a.Outer")
        .field("i1", inner)
        .field("i2", inner)
        .field("f1", fixed)
        .field("f2", fixed)
        .field("i3", inner)
        .build()
    )
    avro: dict[str, Any] = {
        "type": "record",
        "name": "Outer",
        "namespace": "a",
        "fields": [
            {
                "name": "i1",
                "type": {
                    "type": "record",
                    "name": "Inner",
                    "fields": [{"name": "x", "type": "int"}],
                },
            },
            {"name": "i2", "type": "Inner"},  # resolved in namespace a
            {"name": "f1", "type": {"type": "fixed", "name": "b.F", "size": 2}},
            {"name": "f2", "type": "b.F"},
            {"name": "i3", "type": {"type": "a.Inner"}},
        ],
    }
    rec = ("record", (("int",),))
    assert plan_for(avro, outer) == ("record", (rec, rec, ("fixed", 2), ("fixed", 2), rec))
    # an unknown name, a name defined twice
    bad = copy.deepcopy(avro)
    bad["fields"][1]["type"] = "Nope"
    assert plan_for(bad, outer) is None
    twice = copy.deepcopy(avro)
    twice["fields"][1]["type"] = copy.deepcopy(avro["fields"][0]["type"])
    assert plan_for(twice, outer) is None


def test_no_plan_for_what_the_native_codec_leaves_to_python() -> None:
    s = SchemaBuilder.struct().name("N").field("v", Schema.INT32_SCHEMA).build()
    assert (
        plan_for({"type": "record", "name": "N", "fields": [{"name": "v", "type": "int"}]}, None)
        is None
    )
    # a general union, a single-branch union, null alone
    assert plan_for(["null", "int", "string"], Schema.OPTIONAL_INT32_SCHEMA) is None
    assert plan_for(["int"], Schema.INT32_SCHEMA) is None
    assert plan_for("null", Schema.OPTIONAL_STRING_SCHEMA) is None
    # recursion
    node = (
        SchemaBuilder.struct()
        .name("L")
        .field(
            "next",
            SchemaBuilder.struct().name("L").optional().field("v", Schema.INT32_SCHEMA).build(),
        )
        .build()
    )
    recursive = {
        "type": "record",
        "name": "L",
        "fields": [{"name": "next", "type": ["null", "L"]}],
    }
    assert plan_for(recursive, node) is None
    # types that do not fit the Connect schema, fields in another order, a map with optional keys
    assert plan_for("long", Schema.INT32_SCHEMA) is None
    assert plan_for("string", Decimal.schema(2)) is None
    two = (
        SchemaBuilder.struct()
        .name("T")
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.INT32_SCHEMA)
        .build()
    )
    swapped = {
        "type": "record",
        "name": "T",
        "fields": [{"name": "b", "type": "int"}, {"name": "a", "type": "int"}],
    }
    assert plan_for(swapped, two) is None
    assert plan_for({"type": "record", "name": "N", "fields": []}, s) is None
    opt_keys = SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    assert plan_for({"type": "map", "values": "int"}, opt_keys) is None
    assert plan_for({"type": "wat"}, s) is None
    assert plan_for(42, s) is None


def test_plan_of_a_schema_as_avro_data_writes_it() -> None:
    """Connect's properties, defaults and docs beside the types change nothing."""
    connect = (
        SchemaBuilder.struct()
        .name("com.example.Order")
        .field("id", Schema.INT8_SCHEMA)
        .field("name", SchemaBuilder.string().optional().default_value("n/a").build())
        .field("amount", Decimal.schema(2))
        .field("day", Date.SCHEMA)
        .field("counts", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
        .field("more", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
        .build()
    )
    entry = {
        "type": "record",
        "name": "MapEntry",
        "namespace": "io.confluent.connect.avro",
        "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}],
    }
    avro = {
        "type": "record",
        "name": "Order",
        "namespace": "com.example",
        "fields": [
            {"name": "id", "type": {"type": "int", "connect.type": "int8"}},
            {
                "name": "name",
                "type": ["string", "null"],
                "default": "n/a",
                "doc": "who",
            },
            {
                "name": "amount",
                "type": {
                    "type": "bytes",
                    "scale": 2,
                    "precision": 64,
                    "connect.version": 1,
                    "connect.parameters": {"scale": "2"},
                    "connect.name": "org.apache.kafka.connect.data.Decimal",
                    "logicalType": "decimal",
                },
            },
            {
                "name": "day",
                "type": {
                    "type": "int",
                    "connect.version": 1,
                    "connect.name": "org.apache.kafka.connect.data.Date",
                    "logicalType": "date",
                },
            },
            {"name": "counts", "type": {"type": "array", "items": entry}},
            {
                "name": "more",
                "type": {"type": "array", "items": "io.confluent.connect.avro.MapEntry"},
            },
        ],
        "connect.name": "com.example.Order",
    }
    entries = ("map_entries", ("int",), ("string",))
    assert plan_for(avro, connect) == (
        "record",
        (("int",), ("optional", 1, ("string",)), ("decimal", 2, 0), ("int",), entries, entries),
    )


def test_plan_module_does_not_import_the_native_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import kconnect.converters.avro.native_plan; "
        "print('kconnect_native' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


# ---- the native form: each node ----------------------------------------------------------------

INT_CASES = [
    (("prim", "int8"), [-128, 0, 1, 127]),
    (("prim", "int16"), [-32768, -1, 300, 32767]),
    (("prim", "int32"), [-(1 << 31), -64, 63, 64, (1 << 31) - 1]),
    (("prim", "int64"), [-(1 << 63), -1, 0, 1 << 40, (1 << 63) - 1]),
    (("prim", "float32"), [0.0, -0.0, 1.5, 0.1, float("inf"), float("-inf"), 3.4e38]),
    (("prim", "float64"), [0.0, -0.0, 0.1, 1e308, float("-inf"), 5e-324]),
    (("prim", "boolean"), [True, False]),
    (("prim", "string"), ["", "a", "héllo wörld", "日本語", "\U0001f600", "x" * 300, "\x00"]),
    (("prim", "bytes"), [b"", b"\x00", bytes(range(256))]),
    (
        ("prim", "date"),
        [dt.date(1970, 1, 1), dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 2, 29)],
    ),
    (("prim", "time"), [dt.time(0), dt.time(23, 59, 59, 999000), dt.time(12, 0, 0, 1000)]),
    (
        ("prim", "timestamp"),
        [
            dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
            dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC),
            dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC),
            dt.datetime(1, 1, 1, tzinfo=dt.UTC),
        ],
    ),
    (("enum", ("A", "B", "C_9")), ["A", "B", "C_9"]),
    (("fixed", 3), [b"abc", b"\x00\x00\x00"]),
    (("fixed", 0), [b""]),
]


@needs_native
@pytest.mark.parametrize(("spec", "values"), INT_CASES, ids=lambda x: str(x)[:40])
def test_each_type_plain_and_optional(spec: Spec, values: list[Any]) -> None:
    for v in values:
        check_round(spec, v)
        for null_first in (True, False):
            opt: Spec = ("opt", null_first, spec)
            check_round(opt, v)
    # inside a record, an array and a map, optional there too
    for null_first in (True, False):
        rec: Spec = ("record", "R", (("v", ("opt", null_first, spec)), ("w", spec)))
        for v in values:
            check_round(rec, lambda s, v=v: Struct(s).put("v", v).put("w", v))
            check_round(rec, lambda s, v=v: Struct(s).put("v", None).put("w", v))
        check_round(("array", ("opt", null_first, spec)), [*values, None, values[0]])
        check_round(
            ("map", ("opt", null_first, spec)), {f"k{i}": v for i, v in enumerate([*values, None])}
        )


@needs_native
def test_bytes_and_fixed_are_java_byte_buffers_on_both_paths() -> None:
    """AvroData hands Avro ``bytes`` and ``fixed`` on as ``ByteBuffer.wrap(...)``: both paths
    read them as the reference's ``ByteBuffer``, which prints and hashes as Java's buffer (what
    FileStreamSink writes for it); the native record path keeps it a buffer and renders it so."""
    raw = b"\x01\x02\xff"
    for spec in (("prim", "bytes"), ("fixed", 3)):
        reg = Registry()
        reg.add(spec)
        data = avro_bytes(spec, raw)
        back = decode(reg.converter(), data)
        assert type(back.value) is ByteBuffer and back.value == raw
        python = AVRO_DATA.to_connect_data(
            parse_avro_schema(json.dumps(avro_of(spec))), read_avro(spec, data[5:])
        )
        assert type(python.value) is ByteBuffer and python.value == raw
        assert string_value_of(back.value) == "java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]"
        assert hash_code(back.value) == 28893  # ByteBuffer.hashCode(), as jshell prints it
    schema = SchemaBuilder.struct().field("b", Schema.BYTES_SCHEMA).build()
    records = [
        SinkRecord("t", 0, None, None, schema, Struct(schema).put("b", ByteBuffer(raw)), 1),
        SinkRecord("t", 0, None, None, schema, Struct(schema).put("b", raw), 2),
    ]
    batch = native.RecordBatch.from_records(records)
    lines = batch.render_values(_text).decode("utf-8").splitlines()
    assert lines[0] == "Struct{b=java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]}"
    assert lines[1].startswith("Struct{b=[B@")
    back_records = batch[:]
    assert type(back_records[0].value.get("b")) is ByteBuffer
    assert type(back_records[1].value.get("b")) is bytes


@needs_native
def test_decimals_of_many_scales_and_signs() -> None:
    unscaled = [
        0,
        1,
        -1,
        127,
        128,
        -128,
        -129,
        255,
        256,
        32767,
        -32768,
        10**18,
        -(10**18),
        (1 << 119) - 1,
        -(1 << 119),
    ]
    for scale in (0, 1, 2, 5, 18, 30):
        for size in (0, 16, 17):
            spec: Spec = ("decimal", scale, size)
            for u in unscaled:
                v = dec(u, scale)
                check_round(spec, v)
                check_round(("opt", True, spec), v)
    # a fixed too small for the value, a value of another scale, one beyond 128 bits: FALLBACK
    reg = Registry()
    schema = reg.add(("decimal", 2, 2))
    conv = reg.converter()
    assert encode(conv, schema, decimal.Decimal("1000.00")) is FALLBACK
    assert encode(conv, schema, decimal.Decimal("1.5")) is FALLBACK
    reg = Registry()
    schema = reg.add(("decimal", 0, 0))
    conv = reg.converter()
    assert encode(conv, schema, decimal.Decimal(1 << 130)) is FALLBACK
    big = (1 << 130).to_bytes(17, "big", signed=True)
    assert decode(conv, b"\0\0\0\0\1" + bytes([len(big) * 2]) + big) is FALLBACK
    assert decode(conv, b"\0\0\0\0\1\0") is FALLBACK  # no bytes: BigInteger refuses them


@needs_native
def test_nested_records_and_nulls_in_every_optional_position() -> None:
    inner: Spec = (
        "record",
        "In",
        (("a", ("opt", True, ("prim", "int32"))), ("b", ("opt", False, ("prim", "string")))),
    )
    spec: Spec = (
        "record",
        "Out",
        (
            ("r", ("opt", False, inner)),
            ("rs", ("array", ("opt", True, inner))),
            ("m", ("opt", True, ("map", ("opt", False, inner)))),
            (
                "e",
                (
                    "opt",
                    True,
                    ("entries", ("opt", False, ("prim", "string")), ("opt", True, inner)),
                ),
            ),
        ),
    )

    def values(schema: Schema) -> list[Struct]:
        in_schema = field_schema(schema, "r")
        rs_item = field_schema(schema, "rs").value_schema
        m_value = field_schema(schema, "m").value_schema
        e_value = field_schema(schema, "e").value_schema

        def mk(s: Schema, a: Any, b: Any) -> Struct:
            return Struct(s).put("a", a).put("b", b)

        return [
            Struct(schema),
            Struct(schema)
            .put("r", mk(in_schema, None, None))
            .put("rs", [])
            .put("m", {})
            .put("e", {}),
            Struct(schema)
            .put("r", mk(in_schema, 1, "x"))
            .put("rs", [None, mk(rs_item, None, "y"), mk(rs_item, 2, None)])
            .put("m", {"k": None, "l": mk(m_value, 3, "z")})
            .put("e", {None: None, "q": mk(e_value, None, None)}),
        ]

    for i in range(3):
        check_round(spec, lambda s, i=i: values(s)[i])


@needs_native
def test_unicode_keys_and_empty_collections() -> None:
    check_round(("array", ("prim", "int32")), [])
    check_round(("map", ("prim", "int32")), {})
    check_round(("entries", ("prim", "int64"), ("prim", "string")), {})
    check_round(
        ("map", ("prim", "string")), {"é": "ü", "日本": "語", "\U0001f600": "", "": "empty"}
    )
    check_round(("entries", ("prim", "string"), ("prim", "int32")), {"": 1, "ç": 2})
    check_round(("entries", ("prim", "int32"), ("array", ("prim", "int32"))), {3: [], -1: [1, 2]})


def blocks(*chunks: tuple[bool, list[bytes]]) -> bytes:
    """Array/map blocks of already encoded items: (negative count with size?, items), then 0."""
    out = bytearray()
    for negative, items in chunks:
        body = b"".join(items)
        if negative:
            out += zigzag(-len(items)) + zigzag(len(body))
        else:
            out += zigzag(len(items))
        out += body
    return bytes(out + b"\0")


def zigzag(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def avro_str(s: str) -> bytes:
    b = s.encode()
    return zigzag(len(b)) + b


@needs_native
def test_multi_block_arrays_and_maps() -> None:
    reg = Registry()
    reg.add(("array", ("prim", "int32")), 1)
    reg.add(("map", ("prim", "int32")), 2)
    reg.add(("entries", ("prim", "int32"), ("prim", "string")), 3)
    conv = reg.converter()
    ints = [zigzag(i) for i in range(7)]
    data = b"\0\0\0\0\1" + blocks(
        (False, ints[:2]), (True, ints[2:5]), (False, ints[5:6]), (True, ints[6:])
    )
    got = decode(conv, data)
    assert got.value == list(range(7))
    assert got.value == read_avro(("array", ("prim", "int32")), data[5:])

    keys = [f"key{i}" for i in range(20)]
    entries = [avro_str(k) + zigzag(i) for i, k in enumerate(keys)]
    data = b"\0\0\0\0\2" + blocks((True, entries[:3]), (False, entries[3:10]), (True, entries[10:]))
    got = decode(conv, data)
    assert got.value == read_avro(("map", ("prim", "int32")), data[5:])
    # Java's order: HashMap<Utf8>(first block's count) copied into HashMap<String>(n)
    first = hash_map_order([(k, i) for i, k in enumerate(keys)], None, java_table(20, 3))
    assert list(got.value.items()) == hash_map_order(first, None, java_table(20, 20))

    pairs = [zigzag(k) + avro_str(f"v{k}") for k in (40, -3, 17, 0, 5)]
    data = b"\0\0\0\0\3" + blocks((False, pairs[:1]), (True, pairs[1:]))
    got = decode(conv, data)
    assert got.value == {40: "v40", -3: "v-3", 17: "v17", 0: "v0", 5: "v5"}
    assert list(got.value) == [
        k
        for k, _ in hash_map_order(
            [(k, 0) for k in (40, -3, 17, 0, 5)], Schema.INT32_SCHEMA, java_table(5, 5)
        )
    ]


@needs_native
def test_map_orders_are_java_hash_map_orders() -> None:
    for keys in (
        ["zeta", "alpha", "Aa", "BB", "mid", "x", "y", "q" * 30, "k1", "k2", "k3", "k4", "k5"],
        ["ü", "日本", "a", "\U0001f600", "é"],
    ):
        reg = Registry()
        schema = reg.add(("map", ("prim", "int32")))
        conv = reg.converter()
        value = {k: i for i, k in enumerate(keys)}
        got = encode(conv, schema, value)
        # AvroData's new HashMap<>() written in its iteration order
        order = [k for k, _ in hash_map_order(list(value.items()), None, java_table(len(keys)))]
        assert got == avro_bytes(("map", ("prim", "int32")), {k: value[k] for k in order})
        back = decode(conv, got)
        assert back.value == value
        if all(k.isascii() for k in keys):  # Avro's Utf8 hashes as String's for ASCII
            n = len(keys)
            read = [(k, 0) for k in order]
            assert list(back.value) == [k for k, _ in hash_map_order(read, None, java_table(n, n))]


@needs_native
def test_nulls() -> None:
    reg = Registry()
    schema = reg.add(("opt", True, ("prim", "int32")))
    required = Schema.INT32_SCHEMA
    conv = reg.converter()
    # a tombstone; a null of an optional schema writes no bytes; of a required one: Python's
    assert encode(conv, None, None) is None
    assert encode(conv, schema, None) is None
    assert encode(conv, required, None) is FALLBACK
    got = decode(conv, None)
    assert got.schema is None and got.value is None
    # a datum that is null at the top: AvroData's null SchemaAndValue, left to Python
    assert decode(conv, b"\0\0\0\0\1\0") is FALLBACK
    # a null struct field with a default: Struct.get gives the default, left to Python
    with_default = SchemaBuilder.int32().optional().default_value(7).build()
    rs = SchemaBuilder.struct().name("D").field("a", with_default).build()
    reg2 = Registry()
    reg2.by_id[1] = (rs, ("record", (("optional", 0, ("int",)),)))
    reg2.ids[id(rs)] = 1
    conv2 = reg2.converter()
    assert encode(conv2, rs, Struct(rs)) is FALLBACK
    assert encode(conv2, rs, Struct(rs).put("a", 3)) == b"\0\0\0\0\1\2\6"


@needs_native
def test_malformed_and_foreign_input_falls_back() -> None:
    spec: Spec = (
        "record",
        "M",
        (
            ("i", ("prim", "int32")),
            ("s", ("opt", True, ("prim", "string"))),
            ("b", ("prim", "boolean")),
            ("e", ("enum", ("A", "B"))),
            ("a", ("array", ("prim", "int64"))),
        ),
    )
    reg = Registry()
    schema = reg.add(spec)
    conv = reg.converter()
    value = Struct(schema).put("i", 5).put("s", "hé").put("b", True).put("e", "B").put("a", [1, 2])
    good = encode(conv, schema, value)
    assert good is not FALLBACK and decode(conv, good).value == value
    # every truncation, trailing bytes
    for n in range(len(good)):
        assert decode(conv, good[:n]) is FALLBACK, n
    assert decode(conv, good + b"\0") is FALLBACK
    # another magic byte, an id Python handles, an unknown id
    assert decode(conv, b"\1" + good[1:]) is FALLBACK
    assert decode(conv, b"\0\0\0\0\2" + good[5:]) is FALLBACK
    body = good[5:]
    head = b"\0\0\0\0\1"
    i32 = zigzag(5)
    rest = body[len(i32) :]
    cases = {
        "overlong int": head + b"\x80\x80\x80\x80\x80\x00" + rest,
        "int beyond 32 bits": head + zigzag(1 << 31) + rest,
        "bad union index": head + i32 + b"\4" + rest[1:],
        "negative length": head + i32 + b"\2" + zigzag(-1) + rest[2 + len("hé".encode()) :],
        "invalid utf-8": head + i32 + b"\2" + zigzag(2) + b"\xff\xfe" + rest[2 + 3 :],
    }
    for what, data in cases.items():
        assert decode(conv, data) is FALLBACK, what
    # a boolean byte that is neither 0 nor 1, an enum index out of range
    after_s = rest[2 + 3 :]
    assert decode(conv, head + i32 + b"\2" + avro_str("hé") + b"\2" + after_s[1:]) is FALLBACK
    assert (
        decode(conv, head + i32 + b"\2" + avro_str("hé") + b"\1" + zigzag(2) + after_s[2:])
        is FALLBACK
    )
    # an array block claiming more items than bytes left
    assert decode(conv, head + i32 + b"\0" + b"\1\2" + zigzag(1000) + b"\2\4\0") is FALLBACK
    # items of no bytes: a few are read, a bomb of them is handed back
    check_round(("array", ("fixed", 0)), [b"", b"", b""])
    reg0 = Registry()
    reg0.add(("array", ("fixed", 0)))
    assert decode(reg0.converter(), b"\0\0\0\0\1" + zigzag(10**9) + b"\0") is FALLBACK
    # not bytes: the Python path
    out, misses = conv.decode_values(
        [bytearray(good), memoryview(good)], SchemaAndValue, FALLBACK, TOPIC
    )
    assert out == [FALLBACK, FALLBACK] and misses == 2


@needs_native
def test_values_the_plan_cannot_write_fall_back() -> None:
    reg = Registry()
    spec: Spec = (
        "record",
        "W",
        (
            ("i", ("prim", "int8")),
            ("e", ("enum", ("A",))),
            ("f", ("fixed", 2)),
            ("x", ("prim", "float32")),
        ),
    )
    schema = reg.add(spec)
    conv = reg.converter()

    def val(i: Any = 1, e: Any = "A", f: Any = b"ab", x: Any = 1.0) -> Struct:
        return Struct.trusted(schema, [i, e, f, x])

    assert encode(conv, schema, val()) == avro_bytes(spec, {"i": 1, "e": "A", "f": b"ab", "x": 1.0})
    assert encode(conv, schema, val(i=300)) is FALLBACK
    assert encode(conv, schema, val(i="1")) is FALLBACK
    assert encode(conv, schema, val(e="Z")) is FALLBACK
    assert encode(conv, schema, val(f=b"abc")) is FALLBACK
    assert encode(conv, schema, val(x=1e39)) is FALLBACK  # struct.pack refuses it
    assert encode(conv, schema, val(x=1)) is FALLBACK
    # a struct of another schema object, a schema Python does not hand over, a schemaless value
    other = connect_of(spec)
    assert encode(conv, schema, Struct.trusted(other, [1, "A", b"ab", 1.0])) is FALLBACK
    assert encode(conv, other, Struct.trusted(other, [1, "A", b"ab", 1.0])) is FALLBACK
    assert encode(conv, None, {"a": 1}) is FALLBACK


@needs_native
def test_callbacks_are_asked_once_and_failures_are_not_remembered() -> None:
    reg = Registry()
    schema = reg.add(("prim", "string"))
    conv = reg.converter()
    data = encode(conv, schema, "x")
    for _ in range(3):
        assert encode(conv, schema, "y") is not FALLBACK
        assert decode(conv, data).value == "x"
    assert reg.calls == 2

    failing = {"n": 0}

    def resolve(topic: str, schema_id: int) -> Any:
        failing["n"] += 1
        if failing["n"] == 1:
            raise RuntimeError("registry down")
        return reg.resolve(topic, schema_id)

    assert native is not None
    conv = native.Converter.avro(resolve, reg.prefix_of)
    assert decode(conv, data) is FALLBACK
    assert decode(conv, data).value == "x"
    # a plan that does not fit its Connect schema: every record falls back
    conv = native.Converter.avro(lambda t, i: (Schema.INT32_SCHEMA, ("string",)), lambda t, s: None)
    assert decode(conv, data) is FALLBACK


# ---- hypothesis: random Connect schemas and values ---------------------------------------------

texts = st.text(max_size=8) | st.sampled_from(["é", "日本", "\U0001f600", "\ud800"])
PRIM_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "int8": st.integers(-(1 << 7), (1 << 7) - 1),
    "int16": st.integers(-(1 << 15), (1 << 15) - 1),
    "int32": st.integers(-(1 << 31), (1 << 31) - 1),
    "int64": st.integers(-(1 << 63), (1 << 63) - 1),
    "float32": st.floats(width=32, allow_nan=False) | st.floats(allow_nan=False),
    "float64": st.floats(allow_nan=False),
    "boolean": st.booleans(),
    "string": texts,
    "bytes": st.binary(max_size=10),
    "date": st.dates(),
    "time": st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000, fold=0)),
    "timestamp": st.datetimes(timezones=st.just(dt.UTC)).map(
        lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000, fold=0)
    ),
}
KEY_KINDS = ["int32", "int64", "string", "boolean"]


def specs(depth: int = 0) -> st.SearchStrategy[Spec]:
    leaves = st.one_of(
        st.sampled_from(sorted(PRIM_VALUES)).map(lambda k: ("prim", k)),
        st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=1, max_size=4, unique=True).map(
            lambda s: ("enum", tuple(s))
        ),
        st.integers(0, 5).map(lambda n: ("fixed", n)),
        st.tuples(st.integers(0, 12), st.sampled_from([0, 6, 16])).map(lambda t: ("decimal", *t)),
    )
    if depth >= 3:
        return leaves
    sub = st.deferred(lambda: specs(depth + 1))
    return st.one_of(
        leaves,
        leaves,
        st.tuples(st.just("opt"), st.booleans(), sub).filter(lambda t: t[2][0] != "opt"),
        st.tuples(st.just("array"), sub),
        st.tuples(st.just("map"), sub),
        st.tuples(
            st.just("entries"),
            st.sampled_from(KEY_KINDS).map(lambda k: ("prim", k))
            | st.sampled_from(KEY_KINDS).map(lambda k: ("opt", True, ("prim", k))),
            sub,
        ),
        st.lists(sub, min_size=1, max_size=4).map(
            lambda fs: ("record", "R", tuple((f"f{i}", f) for i, f in enumerate(fs)))
        ),
    )


def values_of(spec: Spec, schema: Schema) -> st.SearchStrategy[Any]:
    tag = spec[0]
    if tag == "prim":
        return PRIM_VALUES[spec[1]]
    if tag == "enum":
        return st.sampled_from(spec[1])
    if tag == "fixed":
        return st.binary(min_size=spec[1], max_size=spec[1])
    if tag == "decimal":
        scale, size = spec[1], spec[2]
        bits = min(8 * size - 1, 120) if size else 120
        return st.integers(-(1 << bits), (1 << bits) - 1).map(lambda u: dec(u, scale))
    if tag == "opt":
        return st.none() | values_of(spec[2], schema)
    if tag == "array":
        return st.lists(values_of(spec[1], schema.value_schema), max_size=4)
    if tag == "map":
        return st.dictionaries(texts, values_of(spec[1], schema.value_schema), max_size=4)
    if tag == "entries":
        return st.dictionaries(
            values_of(spec[1], schema.key_schema),
            values_of(spec[2], schema.value_schema),
            max_size=4,
        )
    fields = [values_of(f, field_schema(schema, n)) for n, f in spec[2]]
    return st.tuples(*fields).map(lambda vs: Struct.trusted(schema, list(vs)))


@st.composite
def cases(draw: Any) -> tuple[Spec, Schema, Any]:
    spec = draw(specs())
    schema = connect_of(spec)
    # a top-level null has its own test
    value = draw(values_of(spec[2] if spec[0] == "opt" else spec, schema))
    return spec, schema, value


@needs_native
@SETTINGS
@given(cases())
def test_random_schemas_and_values(case: tuple[Spec, Schema, Any]) -> None:
    spec, schema, value = case
    reg = Registry()
    reg.by_id[1] = (schema, plan_for(avro_of(spec), schema))
    assert reg.by_id[1][1] is not None
    reg.ids[id(schema)] = 1
    conv = reg.converter()
    try:
        expected = avro_bytes(spec, to_datum(spec, schema, value))
    except (OverflowError, struct.error, ValueError, TypeError, UnicodeError):
        assert encode(conv, schema, value) is FALLBACK
        return
    got = encode(conv, schema, value)
    if got is FALLBACK:
        # only a value native values cannot hold exactly (a lone surrogate, a float32 field's
        # float beyond float32) may be handed back
        assert "\ud800" in repr(value) or "float32" in repr(spec), (spec, value)
        return
    assert got == expected
    back = decode(conv, got)
    assert back is not FALLBACK
    assert canon(back.value) == canon(from_datum(spec, schema, read_avro(spec, got[5:])))


@needs_native
@SETTINGS
@given(cases(), st.data())
def test_random_damage_is_read_right_or_handed_back(
    case: tuple[Spec, Schema, Any], data: st.DataObject
) -> None:
    """Bytes changed, cut or extended anywhere: what the native form still reads is what
    fastavro reads (all of the bytes); everything else is handed back, nothing crashes."""
    spec, schema, value = case
    reg = Registry()
    reg.by_id[1] = (schema, plan_for(avro_of(spec), schema))
    reg.ids[id(schema)] = 1
    conv = reg.converter()
    good = encode(conv, schema, value)
    if good is FALLBACK:
        return
    damaged = bytearray(good)
    for _ in range(data.draw(st.integers(1, 3))):
        how = data.draw(st.sampled_from(["set", "cut", "add"]))
        at = data.draw(st.integers(5, len(damaged)))
        if how == "set" and at < len(damaged):
            damaged[at] = data.draw(st.integers(0, 255))
        elif how == "cut":
            del damaged[at:]
        else:
            damaged[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    got = decode(conv, bytes(damaged))
    if got is FALLBACK:
        return
    payload = io.BytesIO(bytes(damaged[5:]))
    parsed = fastavro.parse_schema(without_logical_types(avro_of(spec)))
    datum = fastavro.schemaless_reader(payload, parsed, None)
    assert payload.tell() == len(damaged) - 5
    assert canon(got.value) == canon(from_datum(spec, schema, datum))


# ---- topics: subjects, and with them ids and versions, depend on the record's topic ------------


class TopicRegistry:
    """A registry whose subjects are per topic (TopicNameStrategy): schema id 7 is version 1 of
    ``a-value`` and version 2 of ``b-value`` -- a Connect schema per (topic, id) -- and the one
    Connect schema ``SHARED`` is registered with id 10 on topic a and 20 on topic b."""

    SPEC: Spec = ("record", "test.ns.Rec", (("s", ("prim", "string")),))

    def __init__(self) -> None:
        self.plan = plan_for(avro_of(self.SPEC), connect_of(self.SPEC))
        self.read_schemas = {
            topic: builder_of(self.SPEC).version(version).build()
            for topic, version in (("a", 1), ("b", 2))
        }
        self.shared = connect_of(self.SPEC)
        self.write_ids = {"a": 10, "b": 20}
        self.asked: list[tuple[str, str, object]] = []

    def resolve(self, topic: str, schema_id: int) -> tuple[Schema, object] | None:
        self.asked.append(("resolve", topic, schema_id))
        schema = self.read_schemas.get(topic)
        return None if schema is None or schema_id != 7 else (schema, self.plan)

    def prefix_of(self, topic: str, schema: Schema | None) -> tuple[bytes, object] | None:
        self.asked.append(("prefix_of", topic, schema))
        if schema is not self.shared or topic not in self.write_ids:
            return None
        return b"\0" + self.write_ids[topic].to_bytes(4, "big"), self.plan

    def converter(self) -> Any:
        assert native is not None
        return native.Converter.avro(self.resolve, self.prefix_of)


# ---- schemaless values: Confluent's Anything record ---------------------------------------------
#
# The reference is the Python path itself: AvroData's schemaless rules and the pure-Python codec.
# The callbacks below take the schema id / Connect schema as their last argument, whatever comes
# before it.

ANY_JSON: Any = json.loads(ANYTHING_SCHEMA.to_json())
ANY_ID = 9
ANY_PREFIX = b"\0" + ANY_ID.to_bytes(4, "big")
AVRO_DATA = AvroData(AvroDataConfig.from_configs({}))
WRITE_ANY = compile_writer(ANY_JSON)
READ_ANY = compile_reader(ANY_JSON)
PYTHON_ERRORS = (DataException, AvroCodecError)


class SchemalessRegistry:
    """What the AvroConverter answers for schemaless records: id 9 is the Anything schema."""

    def __init__(self) -> None:
        self.calls = 0

    def resolve(self, *args: Any) -> tuple[Schema | None, object] | None:
        self.calls += 1
        return (None, plan_for(ANY_JSON, None)) if args[-1] == ANY_ID else None

    def prefix_of(self, *args: Any) -> tuple[bytes, object] | None:
        self.calls += 1
        return (ANY_PREFIX, plan_for(ANY_JSON, None)) if args[-1] is None else None

    def converter(self) -> Any:
        assert native is not None
        return native.Converter.avro(self.resolve, self.prefix_of)


def rec_bytes(text: str, schema_id: int = 7) -> bytes:
    return b"\0" + schema_id.to_bytes(4, "big") + avro_str(text)


@needs_native
def test_callbacks_get_the_topic_and_are_asked_once_per_topic() -> None:
    reg = TopicRegistry()
    conv = reg.converter()
    data = rec_bytes("x")
    for _ in range(2):
        for topic in ("a", "b", "a"):
            out, misses = conv.decode_values([data, data], SchemaAndValue, FALLBACK, topic)
            assert misses == 0
            assert [r.schema for r in out] == [reg.read_schemas[topic]] * 2
            assert out[0].schema.version == {"a": 1, "b": 2}[topic]
            assert out[0].value.get("s") == "x"
    assert reg.asked == [("resolve", "a", 7), ("resolve", "b", 7)]

    value = Struct(reg.shared).put("s", "y")
    reg.asked.clear()
    for _ in range(2):
        for topic in ("b", "a"):
            out, misses = conv.encode_values([(reg.shared, value)], FALLBACK, topic=topic)
            assert misses == 0
            assert out == [b"\0" + reg.write_ids[topic].to_bytes(4, "big") + avro_str("y")]
    assert reg.asked == [("prefix_of", "b", reg.shared), ("prefix_of", "a", reg.shared)]

    # a topic the registry knows nothing of: its records (only) are handed back
    out, misses = conv.decode_values([data], SchemaAndValue, FALLBACK, "c")
    assert out == [FALLBACK] and misses == 1
    out, _ = conv.decode_values([data], SchemaAndValue, FALLBACK, "a")
    assert out[0].schema is reg.read_schemas["a"]


@needs_native
def test_no_topic_hands_every_avro_item_back_and_other_forms_ignore_it() -> None:
    reg = TopicRegistry()
    conv = reg.converter()
    value = Struct(reg.shared).put("s", "y")
    out, misses = conv.decode_values([rec_bytes("x"), None], SchemaAndValue, FALLBACK)
    assert out == [FALLBACK, FALLBACK] and misses == 2
    out, misses = conv.encode_values([(reg.shared, value), (None, None)], FALLBACK)
    assert out == [FALLBACK, FALLBACK] and misses == 2
    assert reg.asked == []
    # with a topic, a null is a null
    out, misses = conv.decode_values([None], SchemaAndValue, FALLBACK, "a")
    assert misses == 0 and out[0].schema is None and out[0].value is None

    assert native is not None
    utf8 = native.Converter.utf8(Schema.OPTIONAL_STRING_SCHEMA)
    for topic in (None, "a"):
        out, misses = utf8.decode_values([b"x"], SchemaAndValue, FALLBACK, topic)
        assert misses == 0 and out[0].value == "x"
        out, misses = utf8.encode_values([(None, "x")], FALLBACK, topic)
        assert out == [b"x"] and misses == 0


def _messages(topics_values: list[tuple[str, bytes | None]], headers: Any = None) -> list[Any]:
    import confluent_kafka as ck

    return [
        ck.Message(
            topic=t,
            partition=0,
            offset=i,
            key=None,
            value=v,
            timestamp=(1, 1000 + i),
            headers=headers,
        )
        for i, (t, v) in enumerate(topics_values)
    ]


@needs_native
def test_a_consumed_batch_decodes_each_record_with_its_topics_schema() -> None:
    assert native is not None
    reg = TopicRegistry()
    vc = reg.converter()
    kc = native.Converter.byte_array(Schema.OPTIONAL_BYTES_SCHEMA)
    topics = ["a", "b", "b", "a", "c", "b"]
    msgs = _messages([(t, rec_bytes(f"v{i}")) for i, t in enumerate(topics)])
    batch, redo_keys, redo_values, with_headers = native.RecordBatch.from_messages(msgs, kc, vc)
    assert redo_keys == [] and with_headers == []
    assert redo_values == [4]  # topic c: its subject has no such id
    for i, (r, t) in enumerate(zip(batch[:], topics, strict=True)):
        assert r.topic == t
        if t == "c":
            continue
        assert r.value_schema is reg.read_schemas[t]
        assert r.value.schema is reg.read_schemas[t]
        assert r.value.get("s") == f"v{i}"
    assert [a for a in reg.asked if a[0] == "resolve"] == [
        ("resolve", "a", 7),
        ("resolve", "b", 7),
        ("resolve", "c", 7),
    ]

    # an Avro form as the header converter is told no topic: the headers take the Python path
    msgs = _messages([("a", rec_bytes("h"))], headers=[("h", rec_bytes("x"))])
    hc = TopicRegistry().converter()
    _, _, redo_values, with_headers = native.RecordBatch.from_messages(msgs, kc, vc, hc)
    assert redo_values == [] and with_headers == [0]


@needs_native
def test_a_source_batch_encodes_each_record_with_its_topics_prefix() -> None:
    from kconnect.api import Headers, SourceRecord

    assert native is not None
    reg = TopicRegistry()
    vc = reg.converter()
    kc = native.Converter.byte_array(Schema.OPTIONAL_BYTES_SCHEMA)
    topics = ["b", "a", "a", "c", "b"]
    records = [
        SourceRecord({}, {}, t, 0, None, None, reg.shared, Struct(reg.shared).put("s", f"v{i}"))
        for i, t in enumerate(topics)
    ]
    batch = native.RecordBatch.from_records(records)
    entries, redo = batch.encode(kc, vc)
    assert redo == [3]  # topic c: no id for the schema there
    for i, (entry, t) in enumerate(zip(entries, topics, strict=True)):
        if t == "c":
            assert entry is None
            continue
        topic, _, key, value, _, _ = entry
        assert topic == t and key is None
        assert value == b"\0" + reg.write_ids[t].to_bytes(4, "big") + avro_str(f"v{i}")
    assert [a[1] for a in reg.asked] == ["b", "a", "c"]

    # headers through an Avro header form: handed back (a header's subject is not the topic's)
    headers = Headers()
    headers.add("h", Struct(reg.shared).put("s", "x"), reg.shared)
    record = SourceRecord(
        {}, {}, "a", 0, None, None, reg.shared, Struct(reg.shared).put("s", "v"), headers=headers
    )
    batch = native.RecordBatch.from_records([record])
    entries, redo = batch.encode(kc, vc, TopicRegistry().converter())
    assert redo == [0] and entries == [None]


def test_avro_converter_has_one_native_form_and_none_as_a_header_converter() -> None:
    pytest.importorskip("kconnect.converters.avro.avro_data")
    pytest.importorskip("kconnect.converters.avro.avro_codec")
    from kconnect.converters.avro.avro_converter import AvroConverter

    url = {"schema.registry.url": "http://127.0.0.1:1"}  # never asked here
    for is_key in (True, False):
        c = AvroConverter()
        c.configure(url, is_key)
        form = c.native_converter()
        assert (form is None) == (native is None)
        assert c.native_converter() is form
    header = AvroConverter()
    header.configure(url)
    assert header.native_converter() is None


def python_encode(value: Any) -> bytes:
    """The Python path's bytes of a schemaless value (raises its errors)."""
    return ANY_PREFIX + WRITE_ANY(AVRO_DATA.from_connect_data(None, value))


def python_decode(data: bytes) -> SchemaAndValue:
    """The Python path's reading of an Anything record (raises its errors)."""
    datum, end = READ_ANY(data, 5)
    if end != len(data):
        raise AvroCodecError("trailing bytes")
    result: SchemaAndValue = AVRO_DATA.to_connect_data(ANYTHING_SCHEMA, datum)
    return result


def ordered(v: Any) -> Any:
    """A comparable form that keeps maps' orders and tells classes (bool/int, float/Float32)
    and -0.0 apart."""
    if isinstance(v, dict):
        return ("map", [(ordered(k), ordered(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [ordered(x) for x in v])
    if isinstance(v, float):
        return (type(v).__name__, struct.pack("<d", v))
    return (type(v).__name__, v)


def has_nan_key(v: Any) -> bool:
    """A map keyed by a NaN (the native form leaves those to Python: no NaN equals another)."""
    if isinstance(v, dict):
        return any(
            (isinstance(k, float) and k != k) or has_nan_key(k) or has_nan_key(x)
            for k, x in v.items()
        )
    if isinstance(v, list):
        return any(has_nan_key(x) for x in v)
    return False


def check_schemaless(conv: Any, value: Any) -> None:
    """Native bytes of ``value`` are the Python path's, and so is reading them back (values,
    classes, map orders); what the Python path refuses is handed back."""
    if value is None:
        assert encode(conv, None, value) is None  # a tombstone, as the converter writes it
        return
    try:
        expected = python_encode(value)
    except PYTHON_ERRORS:
        assert encode(conv, None, value) is FALLBACK, value
        return
    got = encode(conv, None, value)
    if got is FALLBACK:
        assert has_nan_key(value), value
        return
    assert got == expected, value
    back = decode(conv, got)
    ref = python_decode(got)
    if back is FALLBACK:
        assert has_nan_key(value) or ref.value is None, value
        return
    assert back.schema is None and ref.schema is None
    assert ordered(back.value) == ordered(ref.value), value


def anything(field: str | None = None, value: Any = None, **more: Any) -> dict[str, Any]:
    """An Anything datum with ``field`` (and the fields ``more``) set."""
    rec: dict[str, Any] = dict.fromkeys(f["name"] for f in ANY_JSON["fields"])
    if field is not None:
        rec[field] = value
    rec.update(more)
    return rec


def any_bytes(datum: dict[str, Any]) -> bytes:
    return ANY_PREFIX + WRITE_ANY(datum)


def entry(k: dict[str, Any], v: dict[str, Any]) -> dict[str, Any]:
    return {"key": k, "value": v}


def test_plan_of_the_anything_schema() -> None:
    assert plan_for(ANY_JSON, None) == ("anything",)
    # the same layout written otherwise: a full name, types as objects, docs, other properties
    variant = copy.deepcopy(ANY_JSON)
    variant["name"] = "io.confluent.connect.avro.Anything"
    del variant["namespace"]
    variant["doc"] = "anything"
    variant["fields"][0]["type"][1] = {"type": "boolean"}
    variant["fields"][7]["type"][1]["items"] = "io.confluent.connect.avro.Anything"
    variant["fields"][8]["type"][1]["items"]["fields"][1]["type"] = {"type": "Anything"}
    assert plan_for(variant, None) == ("anything",)

    # another layout: no plan
    def changed(how: Callable[[Any], None]) -> Any:
        s = copy.deepcopy(ANY_JSON)
        how(s)
        return s

    def null_last(s: Any) -> None:
        s["fields"][2]["type"].reverse()

    def long_for_int(s: Any) -> None:
        s["fields"][4]["type"][1] = "long"

    def logical(s: Any) -> None:
        s["fields"][5]["type"][1] = {"type": "long", "logicalType": "timestamp-millis"}

    def renamed(s: Any) -> None:
        s["name"] = "Something"
        s["fields"][7]["type"][1]["items"] = "Something"
        for f in s["fields"][8]["type"][1]["items"]["fields"]:
            f["type"] = "Something"

    def extra_field(s: Any) -> None:
        s["fields"].append({"name": "more", "type": ["null", "int"], "default": None})

    def entry_swapped(s: Any) -> None:
        s["fields"][8]["type"][1]["items"]["fields"].reverse()

    def array_of_strings(s: Any) -> None:
        s["fields"][7]["type"][1]["items"] = "string"

    def map_as_avro_map(s: Any) -> None:
        s["fields"][8]["type"][1] = {"type": "map", "values": "Anything"}

    for how in (null_last, long_for_int, logical, renamed, extra_field, entry_swapped,
                array_of_strings, map_as_avro_map):  # fmt: skip
        assert plan_for(changed(how), None) is None, how.__name__
    # a typed Connect schema over Anything (recursive), a schemaless value of another schema
    st_schema = SchemaBuilder.struct().name("io.confluent.connect.avro.Anything").build()
    assert plan_for(ANY_JSON, st_schema) is None
    assert plan_for("string", None) is None
    assert plan_for({"type": "map", "values": "string"}, None) is None


@needs_native
def test_schemaless_values_as_the_python_path() -> None:
    conv = SchemalessRegistry().converter()
    values: list[Any] = [
        True,
        False,
        0,
        -1,
        (1 << 63) - 1,
        -(1 << 63),
        1 << 63,  # beyond a long: the Python path refuses it
        0.0,
        -0.0,
        1.5,
        float("inf"),
        float("nan"),
        "",
        "héllo 日本 \U0001f600",
        "\ud800",  # no UTF-8 encoding: the Python path refuses it
        [],
        [None, 1, "a", [2.5, [True]], {}],
        {},
        {"a": 1, "b": None, "c": [1, 2], "d": {"e": "f"}},
        {None: 1, True: 2, 3: 3, 4.5: 4, "x": 5, -7: 6, -0.5: None},
        {str(i): i for i in range(40)},  # a table grown past its first size
        {i * 16: i for i in range(20)},  # keys sharing buckets
        {float("nan"): 1},
        b"raw",  # AvroData: "Unknown Java type for schemaless data"
        decimal.Decimal("1.5"),
        dt.date(2024, 1, 1),
        {"k": b"raw"},
    ]
    for value in values:
        check_schemaless(conv, value)
    assert encode(conv, None, None) is None
    # a tuple: no native value (the Python path writes it as an array)
    assert encode(conv, None, (1, 2)) is FALLBACK
    assert python_encode((1, 2)) == python_encode([1, 2])


@needs_native
def test_schemaless_float32_is_left_to_python() -> None:
    """A Float32 (Java's Float in schemaless data) the Python path writes in the double field,
    with the double its object holds, which the native value (a float32) may not."""
    conv = SchemalessRegistry().converter()
    for value in (Float32(1.25), {"f": Float32(-3.5)}, [Float32(0.1)]):
        assert encode(conv, None, value) is FALLBACK
        python_encode(value)


@needs_native
def test_schemaless_records_as_java_writes_them() -> None:
    """Records Confluent's AvroData writes and kconnect's does not: int and float fields,
    bytes, several fields set, keys that are one to Python, keys that are lists."""
    conv = SchemalessRegistry().converter()

    def same(datum: dict[str, Any]) -> Any:
        data = any_bytes(datum)
        back = decode(conv, data)
        ref = python_decode(data)
        assert back is not FALLBACK, datum
        assert back.schema is None and ordered(back.value) == ordered(ref.value), datum
        return back.value

    def handed_back(datum: dict[str, Any]) -> None:
        assert decode(conv, any_bytes(datum)) is FALLBACK, datum

    assert same(anything("int", -5)) == -5
    assert same(anything("bytes", b"\0\1")) == b"\0\1"
    # negative int keys: hashed as the Python path hashes an int (a Long)
    ints = [entry(anything("int", -i), anything("long", i)) for i in range(1, 30)]
    same(anything("map", ints))
    # the first field set is the value
    assert same(anything("string", "s", long=5, array=[])) == 5
    assert same(anything("boolean", False, string="s")) is False
    same(anything("map", [entry(anything("string", "k"), anything("long", 1, string="x"))]))
    # a float: Java's Float, the Python path's double -- the Python path decides
    handed_back(anything("float", 1.5))
    handed_back(anything("array", [anything("float", 1.5)]))
    # keys: a list (AvroData refuses it), bytes (an identity hash), one key twice, True and 1
    handed_back(anything("map", [entry(anything("array", []), anything())]))
    handed_back(anything("map", [entry(anything("bytes", b"k"), anything())]))
    twice = [entry(anything("string", "k"), anything("long", i)) for i in range(2)]
    handed_back(anything("map", twice))
    one = [entry(anything("boolean", True), anything()), entry(anything("long", 1), anything())]
    handed_back(anything("map", one))
    # a null at the top: (None, None) on the Python path, left to it
    handed_back(anything())
    assert python_decode(any_bytes(anything())).value is None


@needs_native
def test_schemaless_malformed_input_falls_back() -> None:
    conv = SchemalessRegistry().converter()
    good = python_encode({"a": [1, "x", None], "b": {"c": True}})
    assert decode(conv, good) is not FALLBACK
    for n in range(5, len(good)):
        assert decode(conv, good[:n]) is FALLBACK, n
    assert decode(conv, good + b"\0") is FALLBACK
    # a union index beyond the two branches; a boolean byte that is neither 0 nor 1
    assert decode(conv, ANY_PREFIX + b"\4" + b"\0" * 8) is FALLBACK
    assert decode(conv, ANY_PREFIX + b"\2\2" + b"\0" * 8) is FALLBACK
    # an overlong union index is still an index
    data = ANY_PREFIX + b"\x82\x00\1" + b"\0" * 8
    assert decode(conv, data).value is True
    # nested deeper than the native form goes
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    assert encode(conv, None, deep) is FALLBACK
    data = ANY_PREFIX + (b"\0" * 7 + b"\2\2") * 300 + b"\0" * 8 + b"\2\2" + b"\0" * 3
    data += (b"\0" + b"\0") * 300
    assert decode(conv, data) is FALLBACK


@needs_native
def test_schemaless_callbacks() -> None:
    reg = SchemalessRegistry()
    conv = reg.converter()
    data = encode(conv, None, {"a": 1})
    for _ in range(3):
        assert encode(conv, None, [1]) is not FALLBACK
        assert decode(conv, data).value == {"a": 1}
    assert reg.calls == 2
    # no Anything plan: the Python path (remembered)
    assert native is not None
    asked: list[object] = []

    def prefix_of(*args: Any) -> Any:
        asked.append(args[-1])
        return (ANY_PREFIX, None)

    conv = native.Converter.avro(reg.resolve, prefix_of)
    assert encode(conv, None, 1) is FALLBACK
    assert encode(conv, None, 2) is FALLBACK
    assert asked == [None]
    # a typed plan for a schemaless record, an Anything plan for a typed schema: no plan
    conv = native.Converter.avro(
        lambda *a: (Schema.INT32_SCHEMA, ("anything",)),
        lambda *a: (ANY_PREFIX, ("long",)),
    )
    assert decode(conv, any_bytes(anything("long", 1))) is FALLBACK
    assert encode(conv, None, 1) is FALLBACK
    conv = native.Converter.avro(reg.resolve, lambda *a: (ANY_PREFIX, ("anything",)))
    assert encode(conv, Schema.INT64_SCHEMA, 1) is FALLBACK
    assert encode(conv, None, 1) == python_encode(1)


def _bench_workloads() -> Any:
    bench = Path(__file__).resolve().parents[3] / "bench"
    if str(bench) not in sys.path:
        sys.path.insert(0, str(bench))
    import workloads

    return workloads


@needs_native
def test_schemaless_bench_workload() -> None:
    """The bench's schemaless shape (tracking events: nested maps, lists, nulls, unicode)."""
    conv = SchemalessRegistry().converter()
    generated = _bench_workloads().records("schemaless", 300)
    values = [g.value for g in generated] + [g.key for g in generated if g.key is not None]
    out, misses = conv.encode_values([(None, v) for v in values], FALLBACK, topic=TOPIC)
    assert misses == 0
    assert out == [python_encode(v) for v in values]
    back, misses = conv.decode_values(out, SchemaAndValue, FALLBACK, topic=TOPIC)
    assert misses == 0
    for b, data in zip(back, out, strict=True):
        assert b.schema is None
        assert ordered(b.value) == ordered(python_decode(data).value)


keys_any = st.none() | st.booleans() | st.integers() | st.floats() | texts
scalars_any = (
    st.none()
    | st.booleans()
    | st.integers(-(1 << 63), (1 << 63) - 1)
    | st.integers()
    | st.floats()
    | texts
)
values_any = st.recursive(
    scalars_any,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys_any, inner, max_size=6),
    max_leaves=30,
)


@needs_native
@SETTINGS
@given(values_any)
def test_random_schemaless_values(value: Any) -> None:
    check_schemaless(SchemalessRegistry().converter(), value)


@needs_native
@SETTINGS
@given(values_any, st.data())
def test_random_schemaless_damage(value: Any, data: st.DataObject) -> None:
    """Changed, cut or extended bytes: what the native form reads, the Python path reads
    alike; nothing crashes."""
    conv = SchemalessRegistry().converter()
    good = encode(conv, None, value)
    if good is FALLBACK or good is None:
        return
    damaged = bytearray(good)
    for _ in range(data.draw(st.integers(1, 3))):
        how = data.draw(st.sampled_from(["set", "cut", "add"]))
        at = data.draw(st.integers(5, len(damaged)))
        if how == "set" and at < len(damaged):
            damaged[at] = data.draw(st.integers(0, 255))
        elif how == "cut":
            del damaged[at:]
        else:
            damaged[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    got = decode(conv, bytes(damaged))
    if got is FALLBACK:
        return
    ref = python_decode(bytes(damaged))
    assert ordered(got.value) == ordered(ref.value)
