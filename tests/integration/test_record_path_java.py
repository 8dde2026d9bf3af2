"""kconnect's sink record path against Apache Kafka Connect 4.1.2's, record by record.

A seeded generator makes cases: JsonConverter settings for key and value, records as bytes
(random schemas over the whole Connect data model -- every integer width, floats, booleans,
strings with escapes and non-ASCII text, bytes, Decimal of any scale, Date, Time, Timestamp,
arrays, maps with string and other keys, nested and optional structs, nulls, defaults -- and
schemaless JSON documents), headers, and a chain of the 16 built-in SMTs and 3 predicates whose
settings are drawn from the record each stage will see (field names, types). Each case runs

* through kconnect: ``JsonConverter.to_connect_batch`` for keys and values,
  ``SimpleHeaderConverter`` for headers, ``TransformationChain.from_config(...).apply_batch``,
  then FileStreamSink's rendering (``sink_task._text``) and ``JsonConverter.from_connect_batch``
  (headers through ``from_connect_header``);
* through Kafka's own classes in one JVM (:mod:`tests.integration.record_harness`);

and every record must come out the same: dropped by the same stage, failing in the same stage
with the same message (kconnect prefixes its own with the SMT's name and may say more after
Java's text; see :func:`_same_message`), or with the same topic, partition, timestamp, schemas,
key and value text (``[B@...`` identities compared by shape), key and value bytes and headers.
A mismatch is shrunk (records, stages, keys, headers dropped while it persists) and printed
with everything needed to reproduce it (the case's seed reproduces it too: ``Gen(seed).case()``).

The pure-Python and the native hot paths both run it (``KCONNECT_NATIVE=0`` / ``=1``); on the
native path each case also goes through the native record path the task loops run
(``RecordBatch.from_messages``, ``transform_native``, ``render_values``, ``encode``) and must
give Java's records and FileStreamSink text too. Records that differ for a reason listed in
:data:`KNOWN` (Python's datetime range, Java's lenient date parsing, Java's boxed narrow
integers in schemaless values) are counted, not failed. The seeds are fixed, so a run is deterministic.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import random
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from kconnect import _hot_path
from kconnect.api import (
    Date,
    Decimal,
    Header,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.data.java_numbers import to_float32
from kconnect.api.data.java_strings import string_value_of
from kconnect.api.records import TimestampType
from kconnect.connectors.file.sink_task import _text
from kconnect.converters.json_converter import JsonConverter
from kconnect.converters.simple_header_converter import SimpleHeaderConverter
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.transformation_chain import TransformationChain
from tests.integration.record_harness import RecordJava, record_java

pytestmark = pytest.mark.java
__all__ = ["record_java"]  # the fixture, imported for pytest

CASES = 1500
SEED = 20260529
T = "org.apache.kafka.connect.transforms."
P = T + "predicates."

# ------------------------------------------------------------------------------ text pools

NAMES = [
    "id", "name", "email", "score", "created", "zz", "a", "b", "c", "x1", "f0", "f1",
    "user_id", "amount", "ts", "tags", "count", "ü", "名字", "a.b", "with space", "k$1",
    "orders", "Aa", "BB", "polygenelubricants", "z",
]  # fmt: skip
STRINGS = [
    "", "x", "hello world", "héllo wörld", "日本語", "emoji \U0001f600", 'quote " and \\',
    "tab\tnew\nline", "\x00\x1f\x7f", "\u2028\u2029", "</script>", "12", "-7", "3.5",
    "true", "2024-02-29", "2024-02-29 13:14:15.678", "1700000000000", "null", "[1, 2]",
]  # fmt: skip
HEADER_TEXTS = [
    "abc", "42", "-7", "3.5", "true", "false", "hello world", "2024-01-02", "x-y", "",
    "[1,2,3]", '{"a":1}', "null", "9999999999", "1.5E10",
]  # fmt: skip
HEADER_NAMES = ["h1", "h2", "trace", "x-id", "content-type"]
TOPICS = ["orders", "orders-eu", "customers", "t.x", "日本-eu"]
DATE_FORMATS = [
    "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ssZ", "dd/MM/yy HH:mm",
    "EEE, d MMM yyyy HH:mm:ss Z", "yyyyMMddHHmmssSSS", "HH:mm", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
]  # fmt: skip
INSERT_LITERALS = ["abc", "42", "true", "3.25", "2024-01-02", "[1,2]", '{"k":"v"}', "x y z"]


# ------------------------------------------------------------------------------ generator


class Gen:
    """Random schemas, values, JSON documents, records and chains for one case."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    # -- schemas and values
    def schema(self, depth: int = 0, top: bool = False) -> Schema:
        r = self.r
        k = r.random()
        if top or (depth < 3 and k < 0.12):
            b = SchemaBuilder.struct()
            if r.random() < 0.6:
                b.name(r.choice(["com.example.Rec", "rec", "com.example.Inner"]))
            if r.random() < 0.2:
                b.version(r.randint(1, 9)).doc(r.choice(STRINGS))
            for n in r.sample(NAMES, r.randint(1 if depth else 2, 9 if top else 4)):
                b.field(n, self.schema(depth + 1))
        elif depth < 3 and k < 0.2:
            b = SchemaBuilder.array(self.schema(depth + 1))
        elif depth < 3 and k < 0.27:
            if r.random() < 0.7:
                key = Schema.STRING_SCHEMA
            else:
                key = r.choice(
                    [
                        *(SchemaBuilder.type(t).build() for t in (Type.INT8, Type.INT16)),
                        *(SchemaBuilder.type(t).build() for t in (Type.INT32, Type.INT64)),
                        Schema.BOOLEAN_SCHEMA,
                        Schema.FLOAT64_SCHEMA,
                        Schema.FLOAT32_SCHEMA,
                        Date.SCHEMA,
                        Timestamp.SCHEMA,
                        Decimal.schema(2),
                    ]
                )
            b = SchemaBuilder.map(key, self.schema(depth + 1))
        else:
            b = self._primitive()
        if not top and r.random() < 0.35:
            b.optional()
        if r.random() < 0.12 and b.build().type is not Type.STRUCT:
            b.default_value(self.value(b.build(), allow_null=False))
        return b.build()

    def _primitive(self) -> SchemaBuilder:
        r = self.r
        c = r.random()
        if c < 0.2:
            return r.choice(
                [
                    lambda: Decimal.builder(r.choice([0, 1, 2, 4, 10, -2])),
                    Date.builder,
                    Time.builder,
                    Timestamp.builder,
                ]
            )()
        return SchemaBuilder.type(
            r.choice(
                [
                    *(Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64),
                    *(Type.BOOLEAN, Type.STRING, Type.STRING, Type.STRING, Type.BYTES),
                ]
            )
        )

    def value(self, s: Schema, allow_null: bool = True, in_struct: bool = False) -> Any:
        r = self.r
        if allow_null and s.optional and r.random() < 0.2:
            return None
        if in_struct and s.default_value is not None and r.random() < 0.2:
            return None  # the producer writes the default
        name = s.name
        if name == Decimal.LOGICAL_NAME:
            scale = Decimal.scale(s)
            unscaled = r.choice(
                [0, 1, -1, r.randint(-(10**6), 10**6), r.randint(-(10**30), 10**30)]
            )
            sign, digits, _ = decimal.Decimal(unscaled).as_tuple()
            return decimal.Decimal((sign, digits, -scale))  # exact, no context rounding
        if name == Date.LOGICAL_NAME:
            return dt.date(1970, 1, 1) + dt.timedelta(days=r.randint(-25_000, 50_000))
        if name == Time.LOGICAL_NAME:
            return Time.to_logical(s, r.randint(0, 86_399_999))
        if name == Timestamp.LOGICAL_NAME:
            return Timestamp.to_logical(s, r.randint(-2_000_000_000_000, 4_000_000_000_000))
        t = s.type
        if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            bits = {Type.INT8: 7, Type.INT16: 15, Type.INT32: 31, Type.INT64: 63}[t]
            return r.choice([r.randint(-(1 << bits), (1 << bits) - 1), r.randint(-100, 100), 0])
        if t is Type.FLOAT64:
            return self.double()
        if t is Type.FLOAT32:
            return to_float32(self.double(max_exp=30))
        if t is Type.BOOLEAN:
            return r.random() < 0.5
        if t is Type.STRING:
            return r.choice(STRINGS)
        if t is Type.BYTES:
            return r.randbytes(r.randint(0, 8))
        if t is Type.ARRAY:
            return [self.value(s.value_schema) for _ in range(r.randint(0, 3))]
        if t is Type.MAP:
            out: dict[Any, Any] = {}
            for _ in range(r.randint(0, 14)):
                key = (
                    r.choice(NAMES + STRINGS)
                    if s.key_schema.type is Type.STRING
                    else self.value(s.key_schema, allow_null=False)
                )
                out[key] = self.value(s.value_schema)
            return out
        values = {f.name: self.value(f.schema, in_struct=True) for f in s.fields}
        for f in s.fields:
            if values[f.name] is None and not f.schema.optional and f.schema.default_value is None:
                values[f.name] = self.value(f.schema, allow_null=False)
        return Struct.trusted(s, values)

    def double(self, max_exp: int = 300) -> float:
        r = self.r
        m = r.random()
        if m < 0.3:
            return round(r.uniform(-1e6, 1e6), r.randint(0, 4))
        if m < 0.6:
            return r.uniform(-1, 1) * 10.0 ** r.randint(-max_exp // 10, max_exp // 10)
        if m < 0.8:
            return float(r.randint(-(10**9), 10**9))
        return r.choice(
            [0.0, 1.0, 0.1, 1e7, 1e-3, 123456789.125, 1e21, 5e-324 if max_exp > 100 else 1e-30]
        )

    # -- schemaless JSON text
    def json_value(self, depth: int = 0) -> str:
        r = self.r
        k = r.random()
        if depth < 3 and k < 0.25:
            return self.json_object(depth + 1)
        if depth < 3 and k < 0.35:
            items = [self.json_value(depth + 1) for _ in range(r.randint(0, 3))]
            return "[" + self._sep() + ",".join(items) + "]"
        scalars: list[Callable[[], str]] = [
            lambda: str(r.randint(-(1 << 63), (1 << 63) - 1)),
            lambda: r.choice(["9223372036854775808", "-9223372036854775809", "1" * 25]),
            lambda: str(r.randint(-1000, 1000)),
            lambda: repr(self.double()),
            lambda: r.choice(["1.0", "1e5", "1E-3", "0.5", "12345678901234567890.5"]),
            lambda: r.choice(["true", "false", "null"]),
            lambda: json.dumps(r.choice(STRINGS), ensure_ascii=r.random() < 0.5),
        ]
        return r.choice(scalars)()

    def json_object(self, depth: int = 0) -> str:
        r = self.r
        n = r.choice([0, 1, 2, 3, 5, 8, 12, 13, 20])
        keys = [r.choice(NAMES) if r.random() < 0.8 else f"k{r.randint(0, 99)}" for _ in range(n)]
        parts = [
            json.dumps(k, ensure_ascii=r.random() < 0.5)
            + ":"
            + self._sep()
            + self.json_value(depth)
            for k in keys
        ]  # (repeated keys: the last value wins, in the first one's place)
        return "{" + self._sep() + ("," + self._sep()).join(parts) + "}"

    def _sep(self) -> str:
        return self.r.choice(["", "", "", " ", "\n  "])

    # -- cases
    def case(self) -> Case:
        r = self.r
        schemaless = r.random() < 0.35
        value_cfg = self.converter_cfg(schemaless)
        key_cfg = self.converter_cfg(schemaless)
        topic = r.choice(TOPICS)
        records: list[dict[str, Any]] = []
        shown: list[tuple[Any, Any]] = []
        value_schema = None if schemaless else self.schema(top=r.random() < 0.8)
        key_kind = r.choice(["none", "string", "int", "struct", "schemaless"])
        key_schema: Schema | None = None
        if key_kind == "string":
            key_schema = Schema.STRING_SCHEMA
        elif key_kind == "int":
            key_schema = Schema.OPTIONAL_INT64_SCHEMA
        elif key_kind == "struct":
            key_schema = self.schema(top=True)
        # the producer's decimal.format need not be the consumer's: Kafka reads both
        producer = {True: JsonConverter(), False: JsonConverter()}
        for is_key in (True, False):
            fmt = r.choice(["BASE64", "NUMERIC"])
            producer[is_key].configure({"schemas.enable": "true", "decimal.format": fmt}, is_key)
        for _ in range(r.randint(1, 4)):
            key_bytes: bytes | None
            if key_kind == "none" or r.random() < 0.05:
                key_bytes, key_shown = None, None
            elif key_kind == "schemaless":
                text = self.json_object()
                key_bytes, key_shown = self._schemaless_bytes(text, key_cfg), text
            else:
                assert key_schema is not None
                kv = self.value(key_schema, allow_null=False)
                key_bytes = self._bytes(producer[True], key_cfg, key_schema, kv)
                key_shown = kv
            value_bytes: bytes | None
            if r.random() < 0.08:
                value_bytes, value_shown = None, None  # a tombstone
            elif value_schema is None:
                text = self.json_object() if r.random() < 0.9 else self.json_value(2)
                value_bytes, value_shown = self._schemaless_bytes(text, value_cfg), text
            else:
                v = self.value(value_schema, allow_null=False)
                value_bytes = self._bytes(producer[False], value_cfg, value_schema, v)
                value_shown = v
            headers = [
                [r.choice(HEADER_NAMES), _b64(r.choice(HEADER_TEXTS).encode())]
                for _ in range(r.choice([0, 0, 1, 2, 3]))
            ]
            records.append(
                {
                    "topic": topic if r.random() < 0.8 else r.choice(TOPICS),
                    "partition": r.randint(0, 5),
                    "offset": r.randint(0, 10**12),
                    "ts": None if r.random() < 0.1 else r.randint(0, 2_000_000_000_000),
                    "key": _b64(key_bytes),
                    "value": _b64(value_bytes),
                    "headers": headers,
                }
            )
            shown.append((key_shown, value_shown))
        case = Case(key_cfg, value_cfg, {}, records, (key_schema, value_schema), shown)
        case.props = self.chain(case)
        return case

    def converter_cfg(self, schemaless: bool) -> dict[str, str]:
        r = self.r
        cfg = {"schemas.enable": "false" if schemaless and r.random() < 0.8 else "true"}
        if r.random() < 0.4:
            cfg["decimal.format"] = r.choice(["BASE64", "NUMERIC"])
        if r.random() < 0.3:
            cfg["replace.null.with.default"] = r.choice(["true", "false"])
        return cfg

    def _schemaless_bytes(self, text: str, cfg: dict[str, str]) -> bytes:
        if cfg["schemas.enable"] == "true":
            text = '{"schema":null,"payload":' + text + "}"
        return text.encode()

    @staticmethod
    def _bytes(producer: JsonConverter, cfg: dict[str, str], schema: Schema, v: Any) -> bytes:
        data = producer.from_connect_data("t", schema, v)
        assert data is not None
        if cfg["schemas.enable"] == "false":
            data = json.dumps(json.loads(data)["payload"]).encode()  # payload only
        return data

    # -- chains
    def chain(self, case: Case) -> dict[str, str]:
        """A chain of 1-5 stages, each configured for the record it will receive (the first
        record of the case through the stages before it, on kconnect's path)."""
        r = self.r
        props: dict[str, str] = {}
        aliases: list[str] = []
        predicates: list[str] = []
        for n in range(r.choice([1, 1, 2, 2, 3, 4, 5])):
            probe = first_record(case, props)
            alias = f"s{n}"
            maker = r.choice(list(SMTS.values()))
            settings = maker(self, probe)
            aliases.append(alias)
            props["transforms"] = ",".join(aliases)
            for k, v in settings.items():
                props[f"transforms.{alias}.{k}"] = v
            if r.random() < 0.25 or settings["type"] == T + "Filter":
                p = f"p{n}"
                predicates.append(p)
                props["predicates"] = ",".join(predicates)
                for k, v in self.predicate(probe).items():
                    props[f"predicates.{p}.{k}"] = v
                props[f"transforms.{alias}.predicate"] = p
                if r.random() < 0.4:
                    props[f"transforms.{alias}.negate"] = "true"
        return props

    def predicate(self, probe: SinkRecord | None) -> dict[str, str]:
        r = self.r
        kind = r.choice(["HasHeaderKey", "RecordIsTombstone", "TopicNameMatches"])
        if kind == "HasHeaderKey":
            return {"type": P + kind, "name": r.choice(HEADER_NAMES)}
        if kind == "TopicNameMatches":
            return {"type": P + kind, "pattern": r.choice(["orders.*", ".*-eu", "t\\.x", "c.*s"])}
        return {"type": P + kind}

    def fields_of(self, schema: Schema | None, value: Any) -> list[tuple[str, Schema | None, Any]]:
        """(name, schema, value) of the fields of a Struct or map value."""
        if isinstance(value, Struct):
            return [(f.name, f.schema, value.get(f)) for f in value.schema.fields]
        if isinstance(value, dict):
            return [(str(k), None, v) for k, v in value.items()]
        if schema is not None and schema.type is Type.STRUCT:
            return [(f.name, f.schema, None) for f in schema.fields]
        return []

    def pick_fields(self, fields: list[Any], most: int = 3) -> list[str]:
        r = self.r
        names = [f[0] for f in fields]
        chosen = r.sample(names, min(len(names), r.randint(1, most))) if names else []
        if not chosen or r.random() < 0.15:
            chosen.append(r.choice(NAMES))  # sometimes one the record does not have
        if r.random() < 0.1:
            chosen.append(r.choice(chosen))  # and sometimes one twice
        return chosen


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


class Case:
    """One case: converter settings, connector properties of the chain, records as bytes."""

    def __init__(
        self,
        key_cfg: dict[str, str],
        value_cfg: dict[str, str],
        props: dict[str, str],
        records: list[dict[str, Any]],
        schemas: tuple[Schema | None, Schema | None],
        shown: list[tuple[Any, Any]],
    ) -> None:
        self.key_cfg = key_cfg
        self.value_cfg = value_cfg
        self.props = props
        self.records = records
        self.schemas = schemas
        self.shown = shown

    def request(self) -> dict[str, Any]:
        return {
            "key_cfg": self.key_cfg,
            "value_cfg": self.value_cfg,
            "props": self.props,
            "records": self.records,
        }

    def describe(self) -> str:
        key_schema, value_schema = self.schemas
        lines = [
            f"key converter: {self.key_cfg}",
            f"value converter: {self.value_cfg}",
            f"key schema: {key_schema!r}",
            f"value schema: {value_schema!r}",
            "chain: " + json.dumps(self.props, ensure_ascii=False, indent=None),
        ]
        for rec, (k, v) in zip(self.records, self.shown, strict=True):
            lines.append(
                f"record topic={rec['topic']} partition={rec['partition']} ts={rec['ts']} "
                f"headers={[(h[0], base64.b64decode(h[1] or '')) for h in rec['headers']]}"
            )
            lines.append(f"  key: {k!r}")
            lines.append(f"  value: {v!r}")
            lines.append(f"  value bytes: {base64.b64decode(rec['value'] or '')!r}")
        return "\n".join(lines)


# ---- per-SMT settings, drawn from the record the stage receives


def _side(g: Gen, probe: SinkRecord | None) -> tuple[str, Schema | None, Any]:
    """Key or value (mostly the one holding a struct or map), with its schema and value."""
    if probe is None:
        return ("Value" if g.r.random() < 0.75 else "Key"), None, None
    fits = [isinstance(v, Struct | dict) for v in (probe.key, probe.value)]
    chance = 0.25 if fits[0] == fits[1] else (0.85 if fits[0] else 0.1)
    if g.r.random() < chance:
        return "Key", probe.key_schema, probe.key
    return "Value", probe.value_schema, probe.value


def _rnwd(g: Gen, out: dict[str, str]) -> dict[str, str]:
    if g.r.random() < 0.25:
        out["replace.null.with.default"] = g.r.choice(["true", "false"])
    return out


CAST_TYPES = ["int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string"]


def smt_cast(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, schema, value = _side(g, probe)
    fields = g.fields_of(schema, value)
    if fields and (g.r.random() < 0.95 or isinstance(value, Struct | dict)):
        castable = [
            f
            for f in fields
            if f[1] is None or f[1].type not in (Type.ARRAY, Type.MAP, Type.STRUCT)
        ] or fields
        spec = ",".join(f"{n}:{g.r.choice(CAST_TYPES)}" for n in g.pick_fields(castable))
    else:
        spec = g.r.choice(CAST_TYPES)
    return _rnwd(g, {"type": f"{T}Cast${side}", "spec": spec})


def smt_drop_headers(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    names = g.r.sample(HEADER_NAMES, g.r.randint(1, 3))
    return {"type": T + "DropHeaders", "headers": ",".join(names)}


def smt_extract_field(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, schema, value = _side(g, probe)
    fields = g.fields_of(schema, value)
    name = g.pick_fields(fields, 1)[0] if fields else g.r.choice(NAMES)
    out = {"type": f"{T}ExtractField${side}", "field": name}
    nested = [
        (n, s, v) for n, s, v in fields if isinstance(v, Struct | dict) and "." not in n
    ]  # a path into a nested struct or map, in the V2 syntax
    if nested and g.r.random() < 0.4:
        n, s, v = g.r.choice(nested)
        inner = g.fields_of(s, v)
        if inner:
            out["field"] = n + "." + g.r.choice(inner)[0]
            out["field.syntax.version"] = "V2"
    return _rnwd(g, out)


def smt_filter(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    return {"type": T + "Filter"}


def smt_flatten(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, _, _ = _side(g, probe)
    out = {"type": f"{T}Flatten${side}"}
    if g.r.random() < 0.5:
        out["delimiter"] = g.r.choice([".", "_", "#", "->"])
    return out


def smt_header_from(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, schema, value = _side(g, probe)
    fields = g.pick_fields(g.fields_of(schema, value))
    headers = [g.r.choice(HEADER_NAMES) for _ in fields]
    return _rnwd(
        g,
        {
            "type": f"{T}HeaderFrom${side}",
            "fields": ",".join(fields),
            "headers": ",".join(headers),
            "operation": g.r.choice(["move", "copy"]),
        },
    )


def smt_hoist_field(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, _, _ = _side(g, probe)
    return {"type": f"{T}HoistField${side}", "field": g.r.choice(NAMES)}


def smt_insert_field(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, _, _ = _side(g, probe)
    r = g.r
    out = {"type": f"{T}InsertField${side}"}
    for key in ("topic.field", "partition.field", "offset.field", "timestamp.field"):
        if r.random() < 0.45:
            out[key] = r.choice(["t", "p", "o", "when", "id", "zz", "meta_" + key[:3]]) + r.choice(
                ["", "", "?", "!"]
            )
    if r.random() < 0.4 or len(out) == 1:
        out["static.field"] = r.choice(["source", "env", "name"])
        out["static.value"] = r.choice(["kconnect", "prod", "héllo"])
    return _rnwd(g, out)


def smt_insert_header(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    return {
        "type": T + "InsertHeader",
        "header": g.r.choice(HEADER_NAMES),
        "value.literal": g.r.choice(INSERT_LITERALS),
    }


def smt_mask_field(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, schema, value = _side(g, probe)
    fields = g.pick_fields(g.fields_of(schema, value), 4)
    out = {"type": f"{T}MaskField${side}", "fields": ",".join(fields)}
    if g.r.random() < 0.3:
        out["replacement"] = g.r.choice(["0", "42", "-1.5", "****", "abc", "1e3"])
    return _rnwd(g, out)


def smt_regex_router(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    regex, replacement = g.r.choice(
        [("(.*)", "$1-routed"), ("orders-(.*)", "$1"), ("(.*)-(.*)", "$2_$1"), ("c.*", "x")]
    )
    return {"type": T + "RegexRouter", "regex": regex, "replacement": replacement}


def smt_replace_field(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, schema, value = _side(g, probe)
    fields = g.fields_of(schema, value)
    r = g.r
    out = {"type": f"{T}ReplaceField${side}"}
    if r.random() < 0.4:
        out["exclude"] = ",".join(g.pick_fields(fields))
    if r.random() < 0.4:
        out["include"] = ",".join(g.pick_fields(fields, 5))
    if r.random() < 0.6:
        pairs = [f"{n}:{r.choice(NAMES)}_r" for n in g.pick_fields(fields, 2)]
        if r.random() < 0.2:
            pairs.append(f"{r.choice(NAMES)}:{r.choice(NAMES)}")  # onto another name
        out["renames"] = ",".join(pairs)
    return _rnwd(g, out)


def smt_set_schema_metadata(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, _, _ = _side(g, probe)
    if probe is not None and g.r.random() < 0.8:
        structs = [
            n for n, s in (("Key", probe.key_schema), ("Value", probe.value_schema))
            if s is not None and s.type is Type.STRUCT
        ]  # fmt: skip
        side = g.r.choice(structs) if structs else side
    out = {"type": f"{T}SetSchemaMetadata${side}"}
    if g.r.random() < 0.7:
        out["schema.name"] = g.r.choice(["com.example.Renamed", "x"])
    if g.r.random() < 0.5 or len(out) == 1:
        out["schema.version"] = str(g.r.randint(1, 9))
    return out


def smt_timestamp_converter(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    side, schema, value = _side(g, probe)
    r = g.r
    fields = g.fields_of(schema, value)
    timely = [
        f
        for f in fields
        if (f[1] is not None and f[1].type in (Type.INT64, Type.STRING, Type.INT32))
        or isinstance(f[2], int | str)
    ]
    out = {
        "type": f"{T}TimestampConverter${side}",
        "target.type": r.choice(["string", "unix", "Date", "Time", "Timestamp"]),
    }
    whole_fits = isinstance(value, int | str | dt.date | dt.time) and not isinstance(value, bool)
    if timely and (r.random() < 0.9 or not whole_fits):
        out["field"] = r.choice(timely)[0]
    if out["target.type"] == "string" or r.random() < 0.3:
        out["format"] = r.choice(DATE_FORMATS)
    if r.random() < 0.3:
        out["unix.precision"] = r.choice(["seconds", "milliseconds", "microseconds", "nanoseconds"])
    return _rnwd(g, out)


def smt_timestamp_router(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    return {
        "type": T + "TimestampRouter",
        "topic.format": g.r.choice(["${topic}-${timestamp}", "${timestamp}", "x_${topic}"]),
        "timestamp.format": g.r.choice(["yyyyMMdd", "yyyy-MM-dd'T'HH", "EEE", "yy_MM"]),
    }


def smt_value_to_key(g: Gen, probe: SinkRecord | None) -> dict[str, str]:
    schema = probe.value_schema if probe else None
    value = probe.value if probe else None
    fields = g.pick_fields(g.fields_of(schema, value), 6)
    return _rnwd(g, {"type": T + "ValueToKey", "fields": ",".join(fields)})


SMTS: dict[str, Callable[[Gen, SinkRecord | None], dict[str, str]]] = {
    "Cast": smt_cast,
    "DropHeaders": smt_drop_headers,
    "ExtractField": smt_extract_field,
    "Filter": smt_filter,
    "Flatten": smt_flatten,
    "HeaderFrom": smt_header_from,
    "HoistField": smt_hoist_field,
    "InsertField": smt_insert_field,
    "InsertHeader": smt_insert_header,
    "MaskField": smt_mask_field,
    "RegexRouter": smt_regex_router,
    "ReplaceField": smt_replace_field,
    "SetSchemaMetadata": smt_set_schema_metadata,
    "TimestampConverter": smt_timestamp_converter,
    "TimestampRouter": smt_timestamp_router,
    "ValueToKey": smt_value_to_key,
}


# ------------------------------------------------------------------------------ kconnect's path

_PLUGINS: Plugins | None = None


def _plugins() -> Plugins:
    global _PLUGINS
    if _PLUGINS is None:
        _PLUGINS = Plugins.load()
    return _PLUGINS


def _converter(cfg: dict[str, str], is_key: bool) -> JsonConverter:
    c = JsonConverter()
    c.configure(cfg, is_key)
    return c


def _decode_all(conv: JsonConverter, recs: list[dict[str, Any]], side: str) -> list[Any]:
    """Each record's SchemaAndValue, or the exception decoding it raised; a batch call per
    topic, record by record where it fails (as the worker does)."""
    out: list[Any] = [None] * len(recs)
    by_topic: dict[str, list[int]] = {}
    for i, rec in enumerate(recs):
        by_topic.setdefault(rec["topic"], []).append(i)
    for topic, idx in by_topic.items():
        data = [None if recs[i][side] is None else base64.b64decode(recs[i][side]) for i in idx]
        try:
            for i, sv in zip(idx, conv.to_connect_batch(topic, data), strict=True):
                out[i] = sv
        except Exception:
            for i, d in zip(idx, data, strict=True):
                try:
                    out[i] = conv.to_connect_batch(topic, [d])[0]
                except Exception as e:
                    out[i] = e
    return out


def _sink_records(case: Case) -> tuple[list[Any], JsonConverter, JsonConverter]:
    """The case's records as kconnect's sink loop builds them (or the decode error)."""
    keys_conv = _converter(case.key_cfg, True)
    values_conv = _converter(case.value_cfg, False)
    keys = _decode_all(keys_conv, case.records, "key")
    values = _decode_all(values_conv, case.records, "value")
    hc = SimpleHeaderConverter()
    out: list[Any] = []
    for rec, k, v in zip(case.records, keys, values, strict=True):
        if isinstance(k, Exception):
            out.append(("decode_error", "key", k))
            continue
        if isinstance(v, Exception):
            out.append(("decode_error", "value", v))
            continue
        headers = Headers()
        for name, raw in rec["headers"]:
            sv = hc.to_connect_header(
                rec["topic"], name, None if raw is None else base64.b64decode(raw)
            )
            headers.add_header(Header(name, sv.schema, sv.value))
        record = SinkRecord(
            rec["topic"], rec["partition"], k.schema, k.value, v.schema, v.value,
            rec["offset"], rec["ts"], TimestampType.CREATE_TIME, headers,
        )  # fmt: skip
        out.append(record)
    return out, keys_conv, values_conv


def first_record(case: Case, props: dict[str, str]) -> SinkRecord | None:
    """The case's first record after the chain ``props`` on kconnect's path (None when it
    does not get through), for drawing the next stage's settings."""
    records, _, _ = _sink_records(case)
    rec = records[0]
    if not isinstance(rec, SinkRecord):
        return None
    if not props:
        return rec
    try:
        chain = TransformationChain.from_config(props, _plugins())
        return chain.apply_batch([rec])[0]  # type: ignore[no-any-return]
    except Exception:
        return None


def _signature(s: Schema | None) -> str | None:
    if s is None:
        return None
    out = s.type.name
    if s.name is not None:
        out += " " + s.name
    if s.optional:
        out += " optional"
    return out


def _encoded(fn: Callable[[], bytes | None]) -> dict[str, Any]:
    try:
        b = fn()
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
    return {"null": True} if b is None else {"b64": base64.b64encode(b).decode()}


def _shown(value: Any, schema: Schema | None) -> str:
    return value if isinstance(value, str) else string_value_of(value, schema)


def kconnect_answer(case: Case) -> dict[str, Any]:
    """kconnect's answer to the case, in the harness's format."""
    try:
        chain = TransformationChain.from_config(case.props, _plugins())
    except Exception as e:
        return {"config_error": f"{type(e).__name__}: {e}"}
    records, keys_conv, values_conv = _sink_records(case)
    live = [(i, r) for i, r in enumerate(records) if isinstance(r, SinkRecord)]
    errors: dict[int, dict[str, Any]] = {}
    stage_index = {id(s): n for n, s in enumerate(chain.stages)}

    def on_error(i: int, stage: Any, record: Any, e: Exception) -> None:
        errors[live[i][0]] = {
            "stage": stage_index[id(stage)],
            "alias": stage.alias,
            "class": type(e).__name__,
            "message": str(e),
        }

    done = chain.apply_batch([r for _, r in live], on_error)
    out: list[dict[str, Any]] = []
    by_index = dict(zip((i for i, _ in live), done, strict=True))
    for i, rec in enumerate(records):
        if not isinstance(rec, SinkRecord):
            out.append({"decode_error": f"{rec[1]}: {type(rec[2]).__name__}: {rec[2]}"})
        elif i in errors:
            out.append({"error": errors[i]})
        elif by_index[i] is None:
            out.append({"dropped": None})
        else:
            out.append(_result(by_index[i], keys_conv, values_conv))
    chain.close()
    return {"results": out}


def _result(
    r: SinkRecord,
    keys: JsonConverter,
    values: JsonConverter,
    encoded: tuple[Any, Any, list[Any]] | None = None,
) -> dict[str, Any]:
    """A transformed record in the harness's format; ``encoded`` gives the key, value and
    SimpleHeaderConverter header bytes (as from the native batch) instead of asking the
    Python converters."""
    topic = r.topic
    if encoded is None:
        hc = SimpleHeaderConverter()
        encoded = (
            _encoded(lambda: keys.from_connect_batch(topic, [(r.key_schema, r.key)])[0]),
            _encoded(lambda: values.from_connect_batch(topic, [(r.value_schema, r.value)])[0]),
            [
                _encoded(partial(hc.from_connect_header, topic, h.key, h.schema, h.value))
                for h in r.headers
            ],
        )
    return {
        "topic": topic,
        "partition": r.kafka_partition,
        "ts": r.timestamp,
        "key_schema": _signature(r.key_schema),
        "value_schema": _signature(r.value_schema),
        "key_text": _shown(r.key, r.key_schema),
        "value_text": _text(r),
        "key": encoded[0],
        "value": encoded[1],
        "headers": [
            [
                h.key,
                _signature(h.schema),
                _shown(h.value, h.schema),
                _encoded(partial(values.from_connect_header, topic, h.key, h.schema, h.value)),
                simple,
            ]
            for h, simple in zip(r.headers, encoded[2], strict=True)
        ],
    }


# ---- the native record path (KCONNECT_NATIVE=1): what the sink and source loops run


class _Operator:
    """Stands in for the RetryWithToleranceOperator under ``transform_native``: notes each
    failing record's stage and error (``contexts(i)`` is ``i``) and drops the record."""

    def __init__(self, stages: list[Any]) -> None:
        self.index = {id(s): n for n, s in enumerate(stages)}
        self.errors: dict[int, dict[str, Any]] = {}

    def execute(
        self, i: int, op: Any, stage: Any, executing: object, first_error: Exception | None = None
    ) -> Any:
        try:
            if first_error is not None:
                raise first_error
            return op()
        except Exception as e:
            s = op.func.__self__  # partial(stage.apply, record)
            self.errors[i] = {
                "stage": self.index[id(s)],
                "alias": s.alias,
                "class": type(e).__name__,
                "message": str(e),
            }
            return None


def kconnect_native_answer(case: Case) -> tuple[dict[str, Any], str]:
    """kconnect's answer on the native record path -- a ``RecordBatch`` decoded by the
    converters' native forms, the chain's native stages (``transform_native``), keys, values
    and headers encoded by ``RecordBatch.encode`` -- and FileStreamSink's text of the batch
    (``render_values``)."""
    from confluent_kafka import Message

    from kconnect.runtime.worker.record_batches import connect_headers, transform_native

    native = _hot_path.native
    assert native is not None
    chain = TransformationChain.from_config(case.props, _plugins())
    keys, values = _converter(case.key_cfg, True), _converter(case.value_cfg, False)
    hc = SimpleHeaderConverter()
    forms = (keys.native_converter(), values.native_converter(), hc.native_converter())
    msgs = [
        Message(
            topic=r["topic"],
            partition=r["partition"],
            offset=r["offset"],
            key=_raw(r["key"]),
            value=_raw(r["value"]),
            headers=[(n, _raw(v)) for n, v in r["headers"]] or None,
            timestamp=(0, -1) if r["ts"] is None else (1, r["ts"]),
        )
        for r in case.records
    ]
    made = native.RecordBatch.from_messages(msgs, *forms)
    assert made is not None
    batch, redo_keys, redo_values, with_headers = made
    failed: dict[int, str] = {}
    for redo, conv, side in ((redo_keys, keys, "key"), (redo_values, values, "value")):
        for i in redo:
            if i in failed:
                continue
            m = msgs[i]
            try:
                sv = conv.to_connect_data(m.topic(), m.key() if side == "key" else m.value())
            except Exception as e:
                failed[i] = f"{side}: {type(e).__name__}: {e}"
                batch.drop(i)
                continue
            (batch.set_key if side == "key" else batch.set_value)(i, sv.schema, sv.value)
    for i in with_headers:
        if i not in failed:
            batch.set_headers(i, connect_headers(hc, msgs[i].topic(), msgs[i].headers()))
    operator = _Operator(chain.stages)
    transform_native(chain, batch, operator, _index)  # type: ignore[arg-type]
    text = batch.render_values(_text).decode("utf-8")
    entries, redo = batch.encode(*forms)
    records = batch.all_records()
    out: list[dict[str, Any]] = []
    for i, rec in enumerate(records):
        if i in failed:
            out.append({"decode_error": failed[i]})
        elif i in operator.errors:
            out.append({"error": operator.errors[i]})
        elif rec is None:
            out.append({"dropped": None})
        elif i in redo:
            out.append(_result(rec, keys, values))  # encoded by the Python converters
        else:
            _, _, key, value, _, headers = entries[i]
            simple = [{"null": True} if b is None else _b64e(b) for _, b in headers or []]
            out.append(_result(rec, keys, values, (_b64e(key), _b64e(value), simple)))
    chain.close()
    return {"results": out}, text


def _index(i: int) -> Any:
    return i  # (the "processing context" _Operator is given: the record's index)


def _raw(b64: str | None) -> bytes | None:
    return None if b64 is None else base64.b64decode(b64)


def _b64e(b: bytes | None) -> dict[str, Any]:
    return {"null": True} if b is None else {"b64": base64.b64encode(b).decode()}


# ------------------------------------------------------------------------------ comparison

_IDENTITY = re.compile(r"\[B@[0-9a-f]+")


# Java class names in Kafka's messages, and the Python type names kconnect's say instead
_JAVA_TYPES = {
    "java.lang.String": "str",
    "java.lang.Long": "int",
    "java.lang.Integer": "int",
    "java.lang.Short": "int",
    "java.lang.Byte": "int",
    "java.lang.Boolean": "bool",
    "java.lang.Double": "float",
    "java.lang.Float": "float",
    "java.util.HashMap": "dict",
    "java.util.LinkedHashMap": "dict",
    "java.util.ArrayList": "list",
    "org.apache.kafka.connect.data.Struct": "Struct",
    "java.math.BigDecimal": "Decimal",
    "java.util.Date": "datetime",
    "[B": "bytes",
    # kconnect names a logical type where Kafka names the class of its values
    "org.apache.kafka.connect.data.Date": "datetime",
    "org.apache.kafka.connect.data.Time": "datetime",
    "org.apache.kafka.connect.data.Timestamp": "datetime",
    "org.apache.kafka.connect.data.Decimal": "Decimal",
}
_JAVA_CLASS = re.compile(r"(?:class )?(\[B|(?:java|org)\.[\w.$]+\w)")
_SCHEMA_TYPES = {
    **dict.fromkeys(("INT8", "INT16", "INT32", "INT64"), "int"),
    **dict.fromkeys(("FLOAT32", "FLOAT64"), "float"),
    **{"BOOLEAN": "bool", "STRING": "str", "BYTES": "bytes", "ARRAY": "list", "MAP": "dict"},
    "STRUCT": "Struct",
}
_SCHEMA_TYPE = re.compile(r"\b(?:" + "|".join(_SCHEMA_TYPES) + r")\b")
_PY_DATES = re.compile(r"\b(?:date|time)\b(?= objects| which| for|$)")
# exceptions where Java fails by accident (kconnect says what is wrong instead)
_JAVA_CRASHES = ("NullPointerException", "ClassCastException")


def _same_message(java: str, py: str) -> bool:
    """Whether kconnect's message says what Java's does. kconnect's messages are Kafka's with
    the SMT's name in front (``Cast$Value: ``), Python type names where Kafka prints a Java
    class (``str`` for ``java.lang.String``, a schema type such as ``BYTES`` where the value's
    schema is known), and often more detail after Kafka's text (the field concerned); a
    record in the message is shown as Python shows it. So: the same text, or Kafka's text
    followed by more, once those are accounted for (case aside)."""
    py = re.sub(r"^[A-Z]\w*(\$\w+)?: ", "", py)
    py = _SCHEMA_TYPE.sub(lambda m: _SCHEMA_TYPES[m.group(0)], _PY_DATES.sub("datetime", py))
    py = _JAVA_CLASS.sub(lambda m: _JAVA_TYPES.get(m.group(1), m.group(1)), py)
    j = _JAVA_CLASS.sub(lambda m: _JAVA_TYPES.get(m.group(1), m.group(1)), java)
    j = _SCHEMA_TYPE.sub(lambda m: _SCHEMA_TYPES[m.group(0)], j)
    for record in ("SinkRecord{", "ConnectRecord{"):
        if record in j:
            j, py = j[: j.index(record)], py[: len(j[: j.index(record)])]
    j = j.rstrip(".")
    return py.lower().startswith(j.lower())


KNOWN = {
    "datetime range": "Python's date and time types hold the years 1 to 9999; a java.util.Date "
    "any long of milliseconds, so a TimestampConverter result beyond that fails in kconnect",
    "lenient date parsing": "Java's SimpleDateFormat parses leniently text that does not match "
    "its pattern (abutting numeric fields take '-0' and roll over); kconnect's parser refuses "
    "such text",
    "schemaless narrow ints": "a schemaless value cast to int8, int16 or int32 is a Byte, Short "
    "or Integer in Java, which TimestampConverter refuses as a unix time (Long only); in "
    "kconnect it is an int, which it takes",
}
_NARROW_INTS = re.compile(r"does not support class java\.lang\.(?:Byte|Short|Integer) objects")


def known_difference(j: dict[str, Any], p: dict[str, Any]) -> str | None:
    """Which of :data:`KNOWN` explains that a record differs, if one does."""
    py_error = p.get("error", {})
    if "outside the range of Python's datetime" in py_error.get("message", "") and (
        "error" not in j or j["error"]["stage"] >= py_error["stage"]
    ):
        return "datetime range"
    if _NARROW_INTS.search(j.get("error", {}).get("message", "")) and "error" not in p:
        return "schemaless narrow ints"
    if "Could not parse timestamp" in py_error.get("message", "") and (
        "error" not in j or j["error"]["stage"] > py_error["stage"]
    ):
        return "lenient date parsing"
    return None


def differences(
    java: dict[str, Any],
    py: dict[str, Any],
    known: dict[str, int] | None = None,
    props: dict[str, str] | None = None,
) -> list[str]:
    """What differs between the two answers, one line per difference; records that differ
    for a reason in :data:`KNOWN` are only counted in ``known``."""
    if "config_error" in java or "config_error" in py:
        if ("config_error" in java) != ("config_error" in py):
            return [
                f"config: java {java.get('config_error')!r}, kconnect {py.get('config_error')!r}"
            ]
        return []
    out = []
    for n, (j, p) in enumerate(zip(java["results"], py["results"], strict=True)):
        lines = _record_differences(j, p, props or {})
        if not lines:
            continue
        reason = known_difference(j, p)
        if reason is not None:
            if known is not None:
                known[reason] = known.get(reason, 0) + 1
            continue
        out += [f"record {n}: {line}" for line in lines]
    return out


def _record_differences(j: dict[str, Any], p: dict[str, Any], props: dict[str, str]) -> list[str]:
    jk, pk = _kind(j), _kind(p)
    if jk != pk:
        return [f"java {jk} {_brief(j)}, kconnect {pk} {_brief(p)}"]
    out = []
    if jk == "error":
        je, pe = j["error"], p["error"]
        if je["stage"] != pe["stage"]:
            out.append(f"error in stage {je['stage']} vs {pe['stage']}: {je} / {pe}")
        elif je["class"] not in _JAVA_CRASHES and not _same_message(je["message"], pe["message"]):
            out.append(
                f"error message of {je['alias']}:\n    java  {je['class']}: {je['message']}\n"
                f"    kconn {pe['class']}: {pe['message']}"
            )
        return out
    if jk != "ok":
        return out
    for field in ("topic", "partition", "ts", "key_schema", "value_schema"):
        if j[field] != p[field]:
            out.append(f"{field}: java {j[field]!r}, kconnect {p[field]!r}")
    for field in ("key_text", "value_text"):
        if _IDENTITY.sub("[B@", j[field]) != _IDENTITY.sub("[B@", p[field]):
            out.append(f"{field}:\n    java  {j[field]}\n    kconn {p[field]}")
    for field in ("key", "value"):
        if not _same_encoding(j[field], p[field]):
            out.append(
                f"{field} bytes:\n    java  {_bytes_of(j[field])}\n    kconn {_bytes_of(p[field])}"
            )
    jh = [(*h[:2], _IDENTITY.sub("[B@", h[2]), *map(_header_bytes, h[3:])) for h in j["headers"]]
    ph = [(*h[:2], _IDENTITY.sub("[B@", h[2]), *map(_header_bytes, h[3:])) for h in p["headers"]]
    if jh != ph:
        out.append(f"headers:\n    java  {jh}\n    kconn {ph}")
    return out


def _kind(result: dict[str, Any]) -> str:
    for k in ("decode_error", "dropped", "error"):
        if k in result:
            return k
    return "ok"


def _brief(result: dict[str, Any]) -> str:
    if "decode_error" in result:
        return str(result["decode_error"])
    if "error" in result:
        return (
            f"{result['error']['alias']} {result['error']['class']}: {result['error']['message']}"
        )
    if "dropped" in result:
        return ""
    return f"value {result['value_text']!r}"


def _same_encoding(j: dict[str, Any], p: dict[str, Any]) -> bool:
    if "error" in j or "error" in p:
        return ("error" in j) == ("error" in p)
    return j == p


def _header_bytes(e: dict[str, Any]) -> str:
    """A header's bytes, or that it could not be written (the messages are not compared)."""
    return "(error)" if "error" in e else _bytes_of(e)


def _bytes_of(e: dict[str, Any]) -> str:
    if "b64" in e:
        return repr(base64.b64decode(e["b64"]))
    return "null" if "null" in e else f"error {e['error']}"


def _shrink(java: RecordJava, case: Case) -> Case:
    """A smaller case that still differs: records left out one by one, then stages, then the
    keys and headers of the records (and the predicates no stage uses)."""

    def differs(c: Case) -> bool:
        try:
            return bool(_all_differences(java, c))
        except Exception:
            return False

    def with_(props: dict[str, str] | None = None, records: list[Any] | None = None,
              shown: list[Any] | None = None) -> Case:  # fmt: skip
        return Case(case.key_cfg, case.value_cfg, case.props if props is None else props,
                    case.records if records is None else records, case.schemas,
                    case.shown if shown is None else shown)  # fmt: skip

    changed = True
    while changed:
        changed = False
        candidates = [
            with_(
                records=case.records[:i] + case.records[i + 1 :],
                shown=case.shown[:i] + case.shown[i + 1 :],
            )
            for i in range(len(case.records))
            if len(case.records) > 1
        ]
        aliases = [a for a in case.props.get("transforms", "").split(",") if a]
        for a in aliases:
            props = {
                k: v
                for k, v in case.props.items()
                if not k.startswith(f"transforms.{a}.") and k != "transforms"
            }
            if len(aliases) > 1:
                props["transforms"] = ",".join(x for x in aliases if x != a)
            candidates.append(with_(props=props))
        if any(r["key"] is not None for r in case.records):
            candidates.append(
                with_(
                    records=[{**r, "key": None} for r in case.records],
                    shown=[(None, v) for _, v in case.shown],
                )
            )
        if any(r["headers"] for r in case.records):
            candidates.append(with_(records=[{**r, "headers": []} for r in case.records]))
        for smaller in candidates:
            if differs(smaller):
                case, changed = smaller, True
                break
    used = {v for k, v in case.props.items() if k.endswith(".predicate")}
    return with_(
        props={
            k: v
            for k, v in case.props.items()
            if k != "predicates"
            and not (k.startswith("predicates.") and k.split(".")[1] not in used)
        }
        | ({"predicates": ",".join(sorted(used))} if used else {})
    )


# ------------------------------------------------------------------------------ the test


def _native_differences(
    java: dict[str, Any], case: Case, known: dict[str, int] | None = None
) -> list[str]:
    """What differs between Java's answer and the native record path's (nothing when the
    native path is off)."""
    if _hot_path.native is None or "results" not in java:
        return []
    answer, text = kconnect_native_answer(case)
    diff = differences(java, answer, known, case.props)
    out = ["(native record batch) " + d for d in diff]
    # FileStreamSink's text of the batch (when every record agrees: a known gap may show in
    # the records read from the batch and not in its text, or the other way round)
    if any(
        _record_differences(j, p, case.props)
        for j, p in zip(java["results"], answer["results"], strict=True)
    ):
        return out
    want = "".join(r["value_text"] + "\n" for r in java["results"] if _kind(r) == "ok")
    if _IDENTITY.sub("[B@", want) != _IDENTITY.sub("[B@", text):
        out.append(
            f"(native record batch) FileStreamSink text:\n    java  {want!r}\n    kconn {text!r}"
        )
    return out


def _all_differences(
    java: RecordJava, case: Case, known: dict[str, int] | None = None
) -> list[str]:
    answer = java.run(case.request())
    python = kconnect_answer(case)
    return differences(answer, python, known, case.props) + _native_differences(answer, case, known)


def test_records_through_kconnect_are_java_records(record_java: RecordJava) -> None:
    mismatches: list[str] = []
    outcomes: dict[str, int] = {}
    known: dict[str, int] = {}
    for n in range(CASES):
        case = Gen(SEED + n).case()
        java = record_java.run(case.request())
        for result in java.get("results", [{"config_error": 1}]):
            outcomes[_kind(result)] = outcomes.get(_kind(result), 0) + 1
        python = kconnect_answer(case)
        diff = differences(java, python, known, case.props)
        diff += _native_differences(java, case, known)
        if diff:
            small = _shrink(record_java, case)
            shown = _all_differences(record_java, small) or diff
            mismatches.append(
                f"--- case {n} (seed {SEED + n}, {_hot_path.describe()}):\n"
                + small.describe()
                + "\n"
                + "\n".join(shown)
            )
    # the generator must reach every outcome, or the comparison proves little
    assert outcomes.get("ok", 0) > CASES, outcomes
    assert outcomes.get("error", 0) > 100 and outcomes.get("dropped", 0) > 30, outcomes
    assert not mismatches, f"{len(mismatches)} of {CASES} cases differ (known: {known}):\n" + (
        "\n\n".join(mismatches[:15])
    )
