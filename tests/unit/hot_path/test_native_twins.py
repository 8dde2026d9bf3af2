"""The native twins do what the pure-Python reference does: same bytes, values and errors.

Random schemas, values and (also malformed or unusual) JSON go through the JsonConverter's
batch methods on the native path and through its pure-Python methods (``_from_connect_batch_py``
/ ``_to_connect_batch_py``, the reference), random rows and COPY streams through the JDBC
sink's native and Python encoders. (The native record batches and chain stages have their own
twins in ``test_native_records.py``.) Runs only where the native path is on (CI builds it); the
Java-oracle and SMT tests run on both paths.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect import _hot_path
from kconnect.api import (
    DataException,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
)
from kconnect.api.data.java_strings import ByteBuffer
from kconnect.connectors.jdbc.sink.buffered_records import _schema_run_end_py
from kconnect.connectors.jdbc.sink.writer import _topic_run_end_py
from kconnect.converters.json_converter import JsonConverter

pytestmark = pytest.mark.skipif(_hot_path.native is None, reason=_hot_path.describe())

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

text = st.text(
    st.characters(codec="utf-8")
    | st.sampled_from(["\x00", "\x1f", "\x7f", '"', "\\", "\U0001f600"]),
    max_size=12,
)
PRIMS = {
    "int8": (Schema.INT8_SCHEMA, st.integers(-(1 << 7), (1 << 7) - 1)),
    "int32": (Schema.INT32_SCHEMA, st.integers(-(1 << 31), (1 << 31) - 1)),
    "int64": (Schema.INT64_SCHEMA, st.integers(-(1 << 63), (1 << 63) - 1)),
    "float64": (Schema.FLOAT64_SCHEMA, st.floats(allow_nan=False)),
    "float32": (Schema.FLOAT32_SCHEMA, st.floats(width=32, allow_nan=False)),
    "bool": (Schema.BOOLEAN_SCHEMA, st.booleans()),
    "string": (Schema.STRING_SCHEMA, text),
    "bytes": (Schema.BYTES_SCHEMA, st.binary(max_size=10)),
}


@st.composite
def field_schema(draw: Any) -> tuple[Schema, Any]:
    """A field schema (optional, with a default, inside an array or map, or plain) and a
    strategy for its values (None included where the schema allows it, and sometimes not)."""
    base, values = PRIMS[draw(st.sampled_from(sorted(PRIMS)))]
    shape = draw(st.sampled_from(["plain", "optional", "default", "array", "map"]))
    if shape == "optional":
        b = SchemaBuilder.type(base.type).optional().build()
        return b, st.none() | values
    if shape == "default":
        default = draw(values)
        return SchemaBuilder.type(base.type).default_value(default).build(), st.none() | values
    if shape == "array":
        return SchemaBuilder.array(base).build(), st.lists(values, max_size=3)
    if shape == "map":
        return SchemaBuilder.map(Schema.STRING_SCHEMA, base).build(), st.dictionaries(
            text, values, max_size=3
        )
    return base, values | st.none()  # None in a required field: an error on both paths


@st.composite
def struct_cases(draw: Any) -> tuple[Schema, list[Any]]:
    fields = draw(st.lists(field_schema(), min_size=1, max_size=5))
    builder = SchemaBuilder.struct().name("rand")
    for i, (s, _) in enumerate(fields):
        builder.field(f"f{i}", s)
    schema = builder.build()
    values = []
    for _ in range(draw(st.integers(1, 4))):
        v = Struct(schema)
        for i, (_, strat) in enumerate(fields):
            v._values[i] = draw(strat)  # unchecked on purpose: invalid values too
        values.append(v)
    return schema, values


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except DataException as e:
        return ("error", type(e), str(e))


def _converter(schemas: bool) -> JsonConverter:
    c = JsonConverter()
    c.configure({"schemas.enable": str(schemas).lower()}, False)
    return c


@SETTINGS
@given(struct_cases(), st.booleans())
def test_encode_batch_matches_the_reference(case: tuple[Schema, list[Any]], schemas: bool) -> None:
    schema, values = case
    items = [(schema, v) for v in values] + [(None, None)]
    native, ref = _converter(schemas), _converter(schemas)
    assert _outcome(native.from_connect_batch, "t", items) == _outcome(
        ref._from_connect_batch_py, "t", items
    )


def _variants(data: bytes) -> list[bytes]:
    """The record and spellings of it that orjson / the Python path read differently or not
    at all: whitespace, escapes, big and float numbers, duplicate fields, truncation."""
    head, sep, payload = data.partition(b',"payload":')
    out = [data]
    if not sep:
        return out
    for new in (
        b" " + payload.replace(b":", b" : ").replace(b",", b" ,\n"),
        payload.replace(b'"f0"', b'"f\\u0030"'),
        payload.replace(b":", b":1.0,", 1) if payload.startswith(b"{") else payload,
        payload.replace(b"{", b'{"f0":18446744073709551616,', 1),
        payload.replace(b"{", b'{"f0":null,', 1),
        payload.replace(b"{", b'{"zz":[1,{"a":-0.5e3}],', 1),
        payload.replace(b"{", b'{"zz":[1,],', 1),
        payload[:-2] + b"}",
        payload.replace(b'"', b"'", 2),
    ):
        out.append(head + sep + new)
    return out


@SETTINGS
@given(struct_cases())
def test_decode_batch_matches_the_reference(case: tuple[Schema, list[Any]]) -> None:
    schema, values = case
    writer = _converter(True)
    encoded = []
    for v in values:
        try:
            encoded.append(writer._from_connect_batch_py("t", [(schema, v)])[0])
        except DataException:
            continue
    batch = [x for e in encoded for x in _variants(e)] + [None]
    native, ref = _converter(True), _converter(True)
    # twice: the first batch teaches each converter the schema text
    for _ in range(2):
        got = [_outcome(native.to_connect_batch, "t", [d]) for d in batch]
        want = [_outcome(ref._to_connect_batch_py, "t", [d]) for d in batch]
        assert got == want
    assert _outcome(native.to_connect_batch, "t", batch) == _outcome(
        ref._to_connect_batch_py, "t", batch
    )


json_docs = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(text, kids, max_size=3),
    max_leaves=8,
)


@SETTINGS
@given(st.lists(json_docs, min_size=1, max_size=5), st.data())
def test_schemaless_decode_matches_the_reference(docs: list[Any], data: Any) -> None:
    import json

    ascii_only = data.draw(st.booleans())
    raw = [json.dumps(d, ensure_ascii=ascii_only).encode() for d in docs]
    raw += [data.draw(st.binary(max_size=8)), b" [1, 2 ] ", b"", b"nul", b'"\\ud800"', None]
    native, ref = _converter(False), _converter(False)
    assert _outcome(native.to_connect_batch, "t", raw) == _outcome(
        ref._to_connect_batch_py, "t", raw
    )


def _shape(r: Any) -> Any:
    """What a record holds, for comparing records field by field."""
    if r is None:
        return None
    return (
        type(r),
        r.topic,
        r.kafka_partition,
        r.key_schema,
        r.key,
        r.value_schema,
        r.value,
        r.timestamp,
        r.headers,
        getattr(r, "kafka_offset", None),
        getattr(r, "source_offset", None),
    )


# ------------------------------------------------------------------------------- COPY rows

COPY_OIDS = {
    21: st.integers(-(1 << 15), (1 << 15) - 1) | st.integers(),
    23: st.integers(-(1 << 31), (1 << 31) - 1) | st.integers(),
    20: st.integers(-(1 << 63), (1 << 63) - 1),
    700: st.floats(),
    701: st.floats(),
    16: st.booleans(),
    25: text,
    1043: text | st.integers(),
    17: st.binary(max_size=6) | st.binary(max_size=6).map(ByteBuffer),  # Avro's bytes too
}


@SETTINGS
@given(st.lists(st.sampled_from(sorted(COPY_OIDS)), min_size=1, max_size=6), st.data())
def test_copy_binary_is_what_psycopg_writes(oids: list[int], data: Any) -> None:
    from psycopg._copy_base import _binary_signature, _binary_trailer, format_row_binary
    from psycopg.adapt import Transformer
    from psycopg.pq import Format

    rows = data.draw(
        st.lists(
            st.tuples(*(st.none() | COPY_OIDS[o] for o in oids)).map(
                lambda t: t if data.draw(st.booleans()) else list(t)
            ),
            max_size=4,
        )
    )
    got = _hot_path.native.copy_binary(rows, oids)
    tx = Transformer()
    tx.set_dumper_types(oids, Format.BINARY)
    buf = bytearray(_binary_signature)
    try:
        for r in rows:
            format_row_binary(r, tx, buf)
    except Exception:
        assert got is None  # psycopg refuses it: the native code left it to psycopg
        return
    buf += _binary_trailer
    if got is not None:
        assert got == bytes(buf)


def test_copy_binary_handles_well_typed_rows_and_leaves_the_rest() -> None:
    oids = [23, 25, 701, 16, 17, 20]
    rows = [(1, "é😀", 1.5, True, b"\x00", None), (None, "", -0.0, False, b"", -1)]
    data = _hot_path.native.copy_binary(rows, oids)
    assert data is not None
    assert data.startswith(b"PGCOPY\n\xff\r\n\x00") and data.endswith(b"\xff\xff")
    assert _hot_path.native.copy_binary([(1.0, "", 1.5, True, b"", 1)], oids) is None
    assert _hot_path.native.copy_binary([(1, "", 1.5, 1, b"", 1)], oids) is None
    assert _hot_path.native.copy_binary([(1, "\ud800", 1.5, True, b"", 1)], oids) is None
    assert _hot_path.native.copy_binary(rows, [1042] * 6) is None  # bpchar: psycopg's call
    # a ByteBuffer (what AvroConverter reads bytes as) is written as the bytes it holds
    buffers = [(r[0], r[1], r[2], r[3], ByteBuffer(r[4]), r[5]) for r in rows]
    assert _hot_path.native.copy_binary(buffers, oids) == data


# ---------------------------------------------------------------------------- message columns


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "ü-topic"]),
            st.integers(-1, 3),
            st.integers(-1001, 2**62),
            st.one_of(st.none(), st.binary(max_size=8)),
            st.one_of(st.none(), st.binary(max_size=8)),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_message_columns_are_what_the_comprehensions_take(msgs_spec: list[Any]) -> None:
    from confluent_kafka import Message

    msgs = [Message(topic=t, partition=p, offset=o, key=k, value=v) for t, p, o, k, v in msgs_spec]
    got = _hot_path.native.message_columns(msgs)
    want = (
        [m.topic() for m in msgs],
        [m.key() for m in msgs],
        [m.value() for m in msgs],
        [m.partition() for m in msgs],
        [m.offset() for m in msgs],
    )
    assert got == want
    assert all(type(c) is list for c in got)


def test_message_columns_leave_other_batches_to_python() -> None:
    from confluent_kafka import Message

    assert _hot_path.native.message_columns([]) is None
    one = Message(topic="t", partition=0, offset=1, key=None, value=b"v")
    assert _hot_path.native.message_columns([one, object()]) is None

    class Duck:  # methods written in Python: not plain C methods
        def topic(self) -> str:
            return "t"

    assert _hot_path.native.message_columns([Duck()]) is None


# ---------------------------------------------------------------------------- sink records


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b"]),
            st.integers(0, 3),
            st.integers(0, 2**40),
            st.sampled_from([0, 1, 2]),
            st.integers(-1, 2**41),
            st.booleans(),
        ),
        max_size=6,
    ),
    st.booleans(),
)
def test_sink_records_are_what_the_python_loop_builds(msgs_spec: list[Any], skip: bool) -> None:
    from confluent_kafka import Message

    from kconnect.api import SchemaAndValue, TimestampType
    from kconnect.runtime.worker import sink_delivery
    from kconnect.runtime.worker.record_conversion import SKIP

    msgs = [
        Message(
            topic=t,
            partition=p,
            offset=o,
            key=b"k",
            value=b"v",
            timestamp=(tt, ts),
            headers=[("h", b"x")] if with_headers else None,
        )
        for t, p, o, tt, ts, with_headers in msgs_spec
    ]
    keys: list[Any] = [SchemaAndValue(Schema.STRING_SCHEMA, f"k{i}") for i in range(len(msgs))]
    values: list[Any] = [SchemaAndValue(None, {"i": i}) for i in range(len(msgs))]
    if skip and values:
        values[-1] = SKIP
    topics = [m.topic() for m in msgs]
    parts = [m.partition() for m in msgs]
    offs = [m.offset() for m in msgs]
    got = _hot_path.native.sink_records(
        msgs,
        keys,
        values,
        topics,
        parts,
        offs,
        sink_delivery._TS_TYPE_LIST,
        TimestampType.NO_TIMESTAMP_TYPE,
    )
    if (skip and values) or any(m.headers() for m in msgs):
        assert got is None  # the Python loop converts headers and leaves out tolerated failures
        return
    want = []
    for i, m in enumerate(msgs):
        ts_type, ts = m.timestamp()
        want.append(
            SinkRecord(
                topics[i],
                parts[i],
                keys[i].schema,
                keys[i].value,
                values[i].schema,
                values[i].value,
                offs[i],
                ts if ts_type else None,
                sink_delivery._TS_TYPE_LIST[ts_type],
                None,
            )
        )
    assert got is not None
    assert all(r._headers is None for r in got)  # as the loop builds them (read before _shape)
    assert [_shape(r) for r in got] == [_shape(r) for r in want]
    for a, b in zip(got, want, strict=True):
        assert (a.timestamp_type, a.original_topic, a.original_kafka_partition) == (
            b.timestamp_type,
            b.original_topic,
            b.original_kafka_partition,
        )
        assert a.original_kafka_offset == b.original_kafka_offset


# ------------------------------------------------------------------------- StringConverter


@SETTINGS
@given(
    st.lists(text | st.none() | st.integers() | st.just("\ud800x"), max_size=6),
    st.lists(st.binary(max_size=8) | st.none() | st.just(b"\xff\xfe"), max_size=6),
)
def test_string_converter_batches_match_the_reference(strs: list[Any], raw: list[Any]) -> None:
    from kconnect.converters.string_converter import StringConverter

    conv = StringConverter()
    conv.configure({}, False)
    items = [(Schema.OPTIONAL_STRING_SCHEMA, v) for v in strs]
    want_enc = [
        v.encode("utf-8", "replace") if type(v) is str else conv.from_connect_data("t", s, v)
        for s, v in items
    ]
    assert conv.from_connect_batch("t", items) == want_enc
    values = [*raw, bytearray(b"ab")]
    want_dec = [
        (Schema.OPTIONAL_STRING_SCHEMA, None if v is None else bytes(v).decode("utf-8", "replace"))
        for v in values
    ]
    got = conv.to_connect_batch("t", values)
    assert [tuple(g) for g in got] == want_dec
    assert all(type(g).__name__ == "SchemaAndValue" for g in got)


# ------------------------------------------------------------------------------ JDBC rows

ROW_VALUE = (
    SchemaBuilder.struct()
    .name("row")
    .field("id", Schema.INT32_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)
ROW_KEY = SchemaBuilder.struct().name("key").field("k", Schema.STRING_SCHEMA).build()


@SETTINGS
@given(
    st.sampled_from(["none", "kafka", "record_value", "record_key_struct", "record_key_prim"]),
    st.lists(st.tuples(st.integers(-3, 3), st.none() | text, st.booleans()), max_size=5),
)
def test_sink_rows_are_the_row_functions_rows(mode: str, specs: list[Any]) -> None:
    from kconnect.connectors.jdbc.sink.buffered_records import BufferedRecords
    from kconnect.connectors.jdbc.sink.fields_metadata import fields_metadata
    from kconnect.connectors.jdbc.sink.sink_config import JdbcSinkConfig

    props = {"connection.url": "jdbc:postgresql://h/db", "pk.mode": mode.split("_key")[0]}
    if mode.startswith("record_key"):
        props["pk.mode"] = "record_key"
        props["pk.fields"] = "k"
    if mode == "record_value":
        props["pk.fields"] = "id"
    key_schema = ROW_KEY if mode == "record_key_struct" else Schema.STRING_SCHEMA
    records = []
    for i, (id_, item, unset) in enumerate(specs):
        v = Struct(ROW_VALUE)
        v._values[ROW_VALUE.field("id").index] = id_
        if not unset:
            v._values[ROW_VALUE.field("item").index] = item  # never put: null in the row
        k: Any = Struct(ROW_KEY).put("k", f"k{i}") if key_schema is ROW_KEY else f"k{i}"
        records.append(SinkRecord("t", 0, key_schema, k, ROW_VALUE, v, 10 + i))
    if not records:
        return
    config = JdbcSinkConfig(props)
    br = BufferedRecords.__new__(BufferedRecords)
    br._config = config
    meta = fields_metadata(config, "t", records[0])
    row_of = br._row_function(meta, [None] * len(meta.columns))
    got = _hot_path.native.sink_rows(records, br._native_row_sources(meta), meta.schemaless)
    assert got is not None
    assert got == [row_of(r) for r in records]


@SETTINGS
@given(
    st.lists(
        st.tuples(st.integers(1, 10**22), st.integers(-340, 320), st.booleans(), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_float_spellings_decode_as_the_reference(spellings: list[Any]) -> None:
    """Long mantissas, huge and tiny exponents, a FLOAT32 and a FLOAT64 field."""
    schema = (
        SchemaBuilder.struct()
        .name("f")
        .field("d", Schema.FLOAT64_SCHEMA)
        .field("s", Schema.FLOAT32_SCHEMA)
        .build()
    )
    native, ref = _converter(True), _converter(True)
    head = ref._codec(schema).prefix
    batch = []
    for m, e, frac, neg in spellings:
        txt = ("-" if neg else "") + (f"0.{m}e{e}" if frac else f"{m}e{e}")
        batch.append(head + b'{"d":' + txt.encode() + b',"s":' + txt.encode() + b"}}")
    for _ in range(2):
        got = [_outcome(native.to_connect_batch, "t", [d]) for d in batch]
        want = [_outcome(ref._to_connect_batch_py, "t", [d]) for d in batch]
        assert got == want


_RUN_SCHEMAS = [
    SchemaBuilder.struct().name("a").field("x", Schema.INT32_SCHEMA).build(),
    SchemaBuilder.struct().name("a").field("x", Schema.INT32_SCHEMA).build(),  # equal, not same
    Schema.OPTIONAL_STRING_SCHEMA,
]


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["t1", "t2", "t1-copy"]),
            st.sampled_from([0, 1, 2, None]),
            st.sampled_from([0, 2, None]),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    ),
    st.data(),
)
def test_run_ends_are_the_python_loops(specs: list[Any], data: Any) -> None:
    native = _hot_path.native
    assert native is not None
    records = []
    for topic, vsi, ksi, tombstone in specs:
        # "t1-copy" is a topic equal to "t1" but another str object
        name = "".join(["t", "1"]) if topic == "t1-copy" else topic
        vs = _RUN_SCHEMAS[vsi] if vsi is not None else None
        ks = _RUN_SCHEMAS[ksi] if ksi is not None else None
        value = None if tombstone else 1
        records.append(SinkRecord(name, 0, ks, "k", vs, value, 0))
    start = data.draw(st.integers(0, len(records) - 1))
    assert native.topic_run_end(records, start) == _topic_run_end_py(records, start)
    end = data.draw(st.integers(start, len(records)))
    ks, vs = records[start].key_schema, records[start].value_schema
    got = native.schema_run_end(records, start, end, ks, vs)
    assert got == _schema_run_end_py(records, start, end, ks, vs)


def test_run_ends_leave_other_inputs_to_python() -> None:
    native = _hot_path.native
    assert native is not None

    class MyRecord(SinkRecord):
        __slots__ = ()

    plain = [SinkRecord("t", 0, None, None, None, 1, 0) for _ in range(3)]
    mixed = [*plain, MyRecord("t", 0, None, None, None, 1, 0)]
    source = [SourceRecord(None, None, "t", 0, None, None, None, 1)]
    assert native.topic_run_end(plain, 0) == 3
    assert native.topic_run_end(mixed, 0) is None  # a subclass might redefine a field
    assert native.topic_run_end(source, 0) is None
    assert native.topic_run_end(tuple(plain), 0) is None  # not a list
    assert native.topic_run_end(plain, 3) is None  # out of range
    assert native.schema_run_end(plain, 0, 3, None, None) == 3
    assert native.schema_run_end(mixed, 0, 4, None, None) is None
    assert native.schema_run_end(plain, 2, 1, None, None) is None
    assert native.schema_run_end(plain, 0, 4, None, None) is None
