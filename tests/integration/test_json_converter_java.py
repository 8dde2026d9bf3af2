"""kconnect's JsonConverter against Apache Kafka's real JsonConverter jar, byte for byte.

One JVM per test session runs ``tests/java/JsonHarness.java`` (compiled with javac into the
kconnect cache against ``connect-json:<KAFKA_VERSION>`` resolved from Maven Central). For every
case of a deterministic corpus (hand-picked edge cases + seeded random schemas/values) and four
converter configurations:

1. Java builds the schema/value from a neutral description (not via any converter) and
   encodes it; Python encodes the same schema/value: the bytes must be equal;
2. Python decodes Java's bytes back to the original schema and value;
3. Java decodes Python's bytes and re-encodes them: the bytes must be equal again (skipped for
   maps with several entries, whose order Java's HashMap does not keep).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import random
import re
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.converters.json_converter import JsonConverter
from kconnect.testing.java import HarnessProcess, classpath, compile_harness, kafka_artifacts

pytestmark = pytest.mark.java

HARNESS_SRC = Path(__file__).resolve().parents[1] / "java" / "JsonHarness.java"

CONFIGS: list[dict[str, str]] = [
    {"schemas.enable": "true", "decimal.format": "BASE64"},
    {"schemas.enable": "true", "decimal.format": "NUMERIC"},
    {"schemas.enable": "false", "decimal.format": "BASE64"},
    {"schemas.enable": "false", "decimal.format": "numeric", "replace.null.with.default": "false"},
]


# ----------------------------------------------------------------------------- the JVM


class JavaHarness(HarnessProcess):
    """The long-lived harness process; one request line in, one answer line out."""

    def call(self, request: dict[str, Any]) -> tuple[str, bytes | None]:
        line = self.ask(orjson.dumps(request).decode())
        if not line:
            raise RuntimeError("Java harness died; see its stderr")
        if line.startswith("OK "):
            return "OK", base64.b64decode(line[3:])
        if line == "NULL":
            return "OK", None
        return line, None


@pytest.fixture(scope="session")
def java() -> Iterator[JavaHarness]:
    from kconnect.local import maven

    artifacts = kafka_artifacts("connect-json", version=maven.KAFKA_VERSION)
    harness = JavaHarness(
        "JsonHarness",
        artifacts=artifacts,
        classes=[compile_harness(HARNESS_SRC, classpath(artifacts))],
        name="Java JSON harness",
    )
    try:
        yield harness
    finally:
        harness.close()


# ----------------------------------------------------------------------------- neutral form

_TYPE_NAMES = {
    Type.INT8: "int8",
    Type.INT16: "int16",
    Type.INT32: "int32",
    Type.INT64: "int64",
    Type.FLOAT32: "float32",
    Type.FLOAT64: "float64",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
    Type.BYTES: "bytes",
    Type.ARRAY: "array",
    Type.MAP: "map",
    Type.STRUCT: "struct",
}


def neutral_schema(s: Schema | None) -> Any:
    if s is None:
        return None
    d: dict[str, Any] = {"t": _TYPE_NAMES[s.type], "opt": s.optional}
    if s.type is Type.ARRAY:
        d["items"] = neutral_schema(s.value_schema)
    elif s.type is Type.MAP:
        d["keys"] = neutral_schema(s.key_schema)
        d["values"] = neutral_schema(s.value_schema)
    elif s.type is Type.STRUCT:
        d["fields"] = [[f.name, neutral_schema(f.schema)] for f in s.fields]
    if s.name is not None:
        d["name"] = s.name
    if s.version is not None:
        d["ver"] = s.version
    if s.doc is not None:
        d["doc"] = s.doc
    if s.parameters is not None:
        d["params"] = [[k, v] for k, v in s.parameters.items()]
    if s.default_value is not None:
        d["def"] = neutral_value(s, s.default_value)
    return d


def _bits64(x: float) -> str:
    return format(struct.unpack(">Q", struct.pack(">d", x))[0], "x")


def _bits32(x: float) -> str:
    return format(struct.unpack(">I", struct.pack(">f", x))[0], "x")


def neutral_value(s: Schema | None, v: Any) -> Any:
    if v is None:
        return None
    name = s.name if s is not None else None
    if name == Decimal.LOGICAL_NAME:
        sign, digits, exp = v.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        return {"k": "dec", "v": str(unscaled), "s": -exp}
    if name == Date.LOGICAL_NAME:
        return {"k": "date", "v": Date.from_logical(s, v)}
    if name == Time.LOGICAL_NAME:
        return {"k": "time", "v": Time.from_logical(s, v)}
    if name == Timestamp.LOGICAL_NAME:
        return {"k": "ts", "v": Timestamp.from_logical(s, v)}
    t = s.type if s is not None else _infer(v)
    if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return {"k": "i" + _TYPE_NAMES[t][3:], "v": str(v)}
    if t is Type.FLOAT32:
        return {"k": "f32", "v": _bits32(v)}
    if t is Type.FLOAT64:
        return {"k": "f64", "v": _bits64(v)}
    if t is Type.BOOLEAN:
        return {"k": "bool", "v": v}
    if t is Type.STRING:
        return {"k": "str", "v": v}
    if t is Type.BYTES:
        return {"k": "bytes", "v": bytes(v).hex()}
    if t is Type.ARRAY:
        item = s.value_schema if s is not None else None
        return {"k": "arr", "v": [neutral_value(item, e) for e in v]}
    if t is Type.MAP:
        ks = s.key_schema if s is not None else None
        vs = s.value_schema if s is not None else None
        pairs = v.items() if isinstance(v, Mapping) else v
        return {"k": "map", "v": [[neutral_value(ks, a), neutral_value(vs, b)] for a, b in pairs]}
    assert s is not None
    return {
        "k": "struct",
        "v": [neutral_value(f.schema, v.get_without_default(f)) for f in s.fields],
    }


def _infer(v: Any) -> Type:
    if isinstance(v, bool):
        return Type.BOOLEAN
    if isinstance(v, int):
        return Type.INT64
    if isinstance(v, float):
        return Type.FLOAT64
    if isinstance(v, str):
        return Type.STRING
    if isinstance(v, bytes):
        return Type.BYTES
    if isinstance(v, list):
        return Type.ARRAY
    return Type.MAP


# ----------------------------------------------------------------------------- corpus

NASTY_STRINGS = [
    "",
    "plain",
    'quote" backslash\\ slash/',
    "".join(chr(i) for i in range(0x20)) + "\x7f",
    "日本語テキスト",
    "emoji 😀 astral 𝄞 \U0010ffff",
    "\u2028\u2029\ufeff",
    "\\u001a literal",
]
SPECIAL_DOUBLES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    0.001,
    0.0001,
    1e7,
    1e-3,
    9999999.0,
    10000000.0,
    1e10,
    1e-5,
    1e21,
    1e22,
    1e23,
    2.0**53,
    2.0**60,
    2.0**63,
    2.0**64,
    -(2.0**62),
    123456789012345.67,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    math.pi,
    -math.e,
    1 / 3,
    2 / 3,
    100.0,
    math.nan,
    math.inf,
    -math.inf,
]
SPECIAL_FLOATS = [
    0.0,
    -0.0,
    0.1,
    1.1,
    3.4028234663852886e38,
    1.401298464324817e-45,
    1e10,
    1.0e-5,
    16777216.0,
    0.3,
    math.nan,
    math.inf,
    -math.inf,
]


def _f32(x: float) -> float:
    try:
        return struct.unpack(">f", struct.pack(">f", x))[0]
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def hand_picked() -> list[tuple[str, Schema | None, Any]]:
    cases: list[tuple[str, Schema | None, Any]] = []
    table01 = (
        SchemaBuilder.struct()
        .name("table01")
        .field("id", Schema.INT32_SCHEMA)
        .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    cases.append(("seed table01", table01, Struct(table01).put("id", 1).put("item", "apple")))
    for i, s in enumerate(NASTY_STRINGS):
        cases.append((f"string {i}", Schema.STRING_SCHEMA, s))
    cases.append(("doubles", SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build(), SPECIAL_DOUBLES))
    cases.append(
        (
            "floats",
            SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(),
            [_f32(x) for x in SPECIAL_FLOATS],
        )
    )
    for t, lo, hi in (
        (Type.INT8, -128, 127),
        (Type.INT16, -32768, 32767),
        (Type.INT32, -(2**31), 2**31 - 1),
        (Type.INT64, -(2**63), 2**63 - 1),
    ):
        cases.append(
            (
                f"{t.name} range",
                SchemaBuilder.array(SchemaBuilder(t).build()).build(),
                [lo, -1, 0, 1, hi],
            )
        )
    cases.append(("bytes", Schema.BYTES_SCHEMA, bytes(range(256))))
    cases.append(("empty bytes", Schema.BYTES_SCHEMA, b""))
    for scale in (0, 2, 10, -3):
        for text in (
            "0",
            "1",
            "-1",
            "123.456",
            "-99999999999999999999999999999999.5",
            "0.000000001",
            "1E+5",
        ):
            q = decimal.Decimal(text).quantize(
                decimal.Decimal(1).scaleb(-scale), context=decimal.Context(prec=100)
            )
            cases.append((f"decimal {scale} {text}", Decimal.schema(scale), q))
    for d in (
        dt.date(1970, 1, 1),
        dt.date(1969, 12, 31),
        dt.date(1, 1, 1),
        dt.date(9999, 12, 31),
        dt.date(1900, 2, 28),
    ):
        cases.append((f"date {d}", Date.SCHEMA, d))
    for ms in (0, 1, 86_399_999, 43_200_000):
        cases.append((f"time {ms}", Time.SCHEMA, Time.to_logical(Time.SCHEMA, ms)))
    for ms in (0, -1, -86_400_001, 1_700_000_000_123, -62_135_596_800_000, 253_402_300_799_999):
        cases.append((f"ts {ms}", Timestamp.SCHEMA, Timestamp.to_logical(Timestamp.SCHEMA, ms)))
    inner = SchemaBuilder.struct().name("inner").field("a", Schema.INT32_SCHEMA).build()
    struct_keys = SchemaBuilder.map(inner, Schema.OPTIONAL_STRING_SCHEMA).build()
    cases.append(
        (
            "map struct keys",
            struct_keys,
            [(Struct(inner).put("a", 1), "x"), (Struct(inner).put("a", 2), None)],
        )
    )
    cases.append(
        (
            "map int keys",
            SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.STRING_SCHEMA).build(),
            {1: "a"},
        )
    )
    cases.append(
        (
            "map string keys",
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
            {"k": 1},
        )
    )
    cases.append(
        ("empty map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), {})
    )
    cases.append(("empty array", SchemaBuilder.array(Schema.STRING_SCHEMA).build(), []))
    cases.append(
        ("empty struct", SchemaBuilder.struct().build(), Struct(SchemaBuilder.struct().build()))
    )
    defaults = (
        SchemaBuilder.struct()
        .name("with.defaults")
        .version(7)
        .doc('doc with "quotes" and é')
        .parameter("p1", "v1")
        .parameter("a", "")
        .field("i", SchemaBuilder.int32().optional().default_value(42).build())
        .field("s", SchemaBuilder.string().default_value("dflt").doc("field doc").build())
        .field("f", SchemaBuilder.float64().optional().default_value(1e10).build())
        .field("d", Decimal.builder(2).optional().default_value(decimal.Decimal("1.50")).build())
        .field(
            "ts",
            Timestamp.builder()
            .optional()
            .default_value(dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
            .build(),
        )
        .field(
            "arr", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().default_value([1, 2]).build()
        )
        .build()
    )
    cases.append(("defaults used", defaults, Struct(defaults)))
    cases.append(
        ("defaults overridden", defaults, Struct(defaults).put("i", 1).put("s", "x").put("f", 0.5))
    )
    cases.append(
        ("schemaless map", None, {"a": 1, "b": [1.5, "x", None, True], "c": {"d": b"\x00"}})
    )
    cases.append(("schemaless nonstring keys", None, {1: "a"}))
    cases.append(("schemaless scalar", None, 12345678901234))
    cases.append(("schemaless double", None, 1e-7))
    return cases


class RandomCorpus:
    """Seeded random schemas and values."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def schema(self, depth: int = 0) -> Schema:
        r = self.r
        kind = r.random()
        if depth >= 3 or kind < 0.55:
            choice = r.choice(
                [
                    "i8",
                    "i16",
                    "i32",
                    "i64",
                    "f32",
                    "f64",
                    "bool",
                    "str",
                    "bytes",
                    "dec",
                    "date",
                    "time",
                    "ts",
                ]
            )
            b = {
                "i8": SchemaBuilder.int8,
                "i16": SchemaBuilder.int16,
                "i32": SchemaBuilder.int32,
                "i64": SchemaBuilder.int64,
                "f32": SchemaBuilder.float32,
                "f64": SchemaBuilder.float64,
                "bool": SchemaBuilder.bool,
                "str": SchemaBuilder.string,
                "bytes": SchemaBuilder.bytes,
                "dec": lambda: Decimal.builder(r.choice([0, 1, 4, 18])),
                "date": Date.builder,
                "time": Time.builder,
                "ts": Timestamp.builder,
            }[choice]()
        elif kind < 0.7:
            b = SchemaBuilder.array(self.schema(depth + 1))
        elif kind < 0.8:
            key = self.schema(depth + 1) if r.random() < 0.5 else Schema.STRING_SCHEMA
            b = SchemaBuilder.map(key, self.schema(depth + 1))
        else:
            b = SchemaBuilder.struct()
            for i in range(r.randint(0, 5)):
                b.field(r.choice(["f", "field_", "ü", "名"]) + str(i), self.schema(depth + 1))
            if r.random() < 0.5:
                b.name(f"com.example.S{r.randint(0, 99)}")
            if r.random() < 0.3:
                b.version(r.randint(1, 5)).doc(r.choice(NASTY_STRINGS))
        if r.random() < 0.3:
            b.optional()
        if r.random() < 0.15 and b.build().type is not Type.STRUCT:
            b.parameter("p", r.choice(NASTY_STRINGS))
        if r.random() < 0.1 and b.build().type not in (Type.STRUCT, Type.MAP):
            b.default_value(self.value(b.build(), allow_null=False))
        return b.build()

    def value(self, s: Schema, allow_null: bool = True) -> Any:
        r = self.r
        if allow_null and s.optional and r.random() < 0.2:
            return None
        if s.name == Decimal.LOGICAL_NAME:
            digits = r.randint(1, 40)
            unscaled = r.randint(-(10**digits), 10**digits)
            sign, ds, _ = decimal.Decimal(unscaled).as_tuple()
            return decimal.Decimal((sign, ds, -Decimal.scale(s)))  # exact, no context rounding
        if s.name == Date.LOGICAL_NAME:
            return dt.date(1970, 1, 1) + dt.timedelta(days=r.randint(-700_000, 2_900_000))
        if s.name == Time.LOGICAL_NAME:
            return Time.to_logical(s, r.randint(0, 86_399_999))
        if s.name == Timestamp.LOGICAL_NAME:
            return Timestamp.to_logical(s, r.randint(-62_135_596_800_000, 253_402_300_799_999))
        t = s.type
        bits = {Type.INT8: 7, Type.INT16: 15, Type.INT32: 31, Type.INT64: 63}.get(t)
        if bits is not None:
            return r.choice([r.randint(-(1 << bits), (1 << bits) - 1), r.randint(-100, 100)])
        if t is Type.FLOAT64:
            return self.double()
        if t is Type.FLOAT32:
            return _f32(self.double())
        if t is Type.BOOLEAN:
            return r.random() < 0.5
        if t is Type.STRING:
            return r.choice([*NASTY_STRINGS, "".join(chr(r.randint(1, 12287)) for _ in range(8))])
        if t is Type.BYTES:
            return r.randbytes(r.randint(0, 20))
        if t is Type.ARRAY:
            return [self.value(s.value_schema) for _ in range(r.randint(0, 3))]
        if t is Type.MAP:
            n = r.randint(0, 3)
            ks = s.key_schema
            pairs = [
                (self.value(ks, allow_null=False), self.value(s.value_schema)) for _ in range(n)
            ]
            if ks.type in (Type.STRUCT, Type.ARRAY, Type.MAP):
                return pairs
            out = {}
            for k, v in pairs:
                if k not in out and not (isinstance(k, float) and k != k):
                    out[k] = v
            return out
        values: dict[str, Any] = {}
        for f in s.fields:
            fv = self.value(f.schema)
            if fv is None and not f.schema.optional:
                fv = self.value(f.schema, allow_null=False)
            values[f.name] = fv
        # trusted: maps with struct keys are pair lists, which Struct.put would refuse
        return Struct.trusted(s, values)

    def double(self) -> float:
        r = self.r
        m = r.random()
        if m < 0.3:
            return struct.unpack(">d", struct.pack(">Q", r.getrandbits(64)))[0]
        if m < 0.5:
            return round(r.uniform(-1e6, 1e6), r.randint(0, 6))
        if m < 0.7:
            return r.uniform(-1, 1) * 10.0 ** r.randint(-30, 30)
        if m < 0.8:
            return float(r.randint(-(2**63), 2**63))
        return r.choice(SPECIAL_DOUBLES)


def random_cases(n: int) -> list[tuple[str, Schema | None, Any]]:
    corpus = RandomCorpus(20240611)
    out: list[tuple[str, Schema | None, Any]] = []
    for i in range(n):
        s = corpus.schema()
        out.append((f"random {i}", s, corpus.value(s)))
    big = RandomCorpus(7)
    out.append(
        (
            "5000 doubles",
            SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build(),
            [big.double() for _ in range(5000)],
        )
    )
    out.append(
        (
            "5000 floats",
            SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(),
            [_f32(big.double()) for _ in range(5000)],
        )
    )
    return out


CASES = hand_picked() + random_cases(400)


def _has_multi_entry_map(s: Schema | None, v: Any) -> bool:
    if v is None:
        return False
    if s is None:
        if isinstance(v, dict):
            return len(v) > 1 or any(_has_multi_entry_map(None, x) for x in v.values())
        if isinstance(v, list):
            return any(_has_multi_entry_map(None, x) for x in v)
        return False
    if s.type is Type.MAP:
        pairs = list(v.items()) if isinstance(v, Mapping) else list(v)
        return len(pairs) > 1 or any(
            _has_multi_entry_map(s.key_schema, a) or _has_multi_entry_map(s.value_schema, b)
            for a, b in pairs
        )
    if s.type is Type.ARRAY:
        return any(_has_multi_entry_map(s.value_schema, x) for x in v)
    if s.type is Type.STRUCT:
        return any(_has_multi_entry_map(f.schema, v.get_without_default(f)) for f in s.fields)
    return bool(s.default_value is not None and s.type is Type.MAP)


def _with_defaults(s: Schema | None, v: Any) -> Any:
    """What Kafka's reader yields for ``v``: nulls replaced by their schema's default."""
    if s is None:
        return v
    if v is None:
        return s.default_value
    if s.type is Type.ARRAY:
        return [_with_defaults(s.value_schema, e) for e in v]
    if s.type is Type.MAP:
        pairs = [
            (_with_defaults(s.key_schema, a), _with_defaults(s.value_schema, b))
            for a, b in (v.items() if isinstance(v, Mapping) else v)
        ]
        return dict(pairs) if isinstance(v, Mapping) else pairs
    if s.type is Type.STRUCT:
        return Struct.trusted(
            s, {f.name: _with_defaults(f.schema, v.get_without_default(f)) for f in s.fields}
        )
    return v


_LOST_ON_JAVA_READ = re.compile(rb'[:,\[]-0\.0(?=[,\]}])|[:,\[]"(?:-?Infinity|NaN)"')


def _java_read_loses(data: bytes) -> bool:
    """Kafka's reader turns "NaN"/"Infinity" and -0.0 into 0.0, so it cannot write them back."""
    return _LOST_ON_JAVA_READ.search(data) is not None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, Struct) and isinstance(b, Struct):
        return a.schema == b.schema and all(
            _same(a.get_without_default(f), b.get_without_default(f)) for f in a.schema.fields
        )
    return bool(a == b)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_python_bytes_equal_java_bytes(java: JavaHarness, cfg: dict[str, str]) -> None:
    py = JsonConverter()
    py.configure(cfg, False)
    enveloped = cfg["schemas.enable"] == "true"
    mismatches: list[str] = []
    checked = 0
    for label, schema, value in CASES:
        status, java_bytes = java.call(
            {
                "op": "encode",
                "cfg": cfg,
                "schema": neutral_schema(schema),
                "value": neutral_value(schema, value),
            }
        )
        try:
            py_bytes = py.from_connect_data("t", schema, value)
        except DataException as e:
            if status == "OK":
                mismatches.append(f"{label}: Python refused ({e}) but Java encoded {java_bytes!r}")
            continue
        if status != "OK":
            mismatches.append(f"{label}: Java refused ({status}) but Python encoded {py_bytes!r}")
            continue
        checked += 1
        if py_bytes != java_bytes:
            mismatches.append(
                f"{label}: bytes differ\n  java: {java_bytes!r}\n  py:   {py_bytes!r}"
            )
            continue
        # Java's bytes decode in Python to the original schema and value
        if enveloped and schema is not None:
            back = py.to_connect_data("t", java_bytes)
            expected = _with_defaults(schema, value)
            if back.schema != schema or not _same(back.value, expected):
                mismatches.append(f"{label}: decoded {back!r}, expected {expected!r}")
            # Java decodes Python's bytes and writes them again identically
            if (
                not _has_multi_entry_map(schema, value)
                and not _has_multi_entry_map(schema, schema.default_value)
                and not _java_read_loses(py_bytes or b"")
            ):
                status, again = java.call(
                    {
                        "op": "reencode",
                        "cfg": cfg,
                        "data": base64.b64encode(py_bytes or b"").decode(),
                    }
                )
                if status != "OK" or again != py_bytes:
                    mismatches.append(
                        f"{label}: Java re-encoded {status} {again!r} != {py_bytes!r}"
                    )
    assert checked > 350, checked
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:20])
