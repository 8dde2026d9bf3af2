"""The JDBC sink on native record batches gives what it gives on lists of SinkRecords.

A ``put`` on the native hot path gets a ``kconnect_native.RecordBatch``; the buffers then hold
positions in it and make rows -- or a binary COPY insert's whole stream -- from its native
values. Here the same records go through :class:`BufferedRecords` as a list and as a batch,
into a writer that records what it is asked to write (no database): the statements, their
rows and order must be the same, the native COPY stream must be the bytes psycopg writes for
the list path's rows, and a batch whose schemas the writer already planned for must not make
a single Python record. The buffers' statements must also be what adding the records one by
one gives (``add_all`` takes runs by position; on the pure-Python path only this runs).
SQLite (a real writer, nothing running) checks the whole ``put``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import sqlite3
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kconnect._hot_path import native
from kconnect.api import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.data.schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
)
from kconnect.connectors.jdbc.common.identifiers import TableId, rules_for
from kconnect.connectors.jdbc.sink.buffered_records import BufferedRecords, RowPlan
from kconnect.connectors.jdbc.sink.fields_metadata import FieldsMetadata
from kconnect.connectors.jdbc.sink.sink_config import JdbcSinkConfig
from kconnect.connectors.jdbc.sink.sink_dialect import (
    ColumnInfo,
    PostgresSinkDialect,
    SinkDialect,
    TableInfo,
)
from kconnect.connectors.jdbc.sink.sink_task import JdbcSinkTask
from kconnect.testing.fakes import FakeSinkTaskContext

needs_native = pytest.mark.skipif(
    native is None, reason="native record batches need kconnect_native"
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# PostgreSQL column (base type, OID) a Connect schema maps to; by column name where a test
# wants another one (varchar, bpchar, timestamptz, float8 for a FLOAT32).
_PG_TYPES: dict[object, tuple[str, int]] = {
    Type.INT8: ("int2", 21),
    Type.INT16: ("int2", 21),
    Type.INT32: ("int4", 23),
    Type.INT64: ("int8", 20),
    Type.FLOAT32: ("float4", 700),
    Type.FLOAT64: ("float8", 701),
    Type.BOOLEAN: ("bool", 16),
    Type.STRING: ("text", 25),
    Type.BYTES: ("bytea", 17),
    DECIMAL_LOGICAL_NAME: ("numeric", 1700),
    DATE_LOGICAL_NAME: ("date", 1082),
    TIME_LOGICAL_NAME: ("time", 1083),
    TIMESTAMP_LOGICAL_NAME: ("timestamp", 1114),
}
_BY_NAME = {
    "vc": ("varchar", 1043),
    "bp": ("bpchar", 1042),
    "tstz": ("timestamptz", 1184),
    "f32_wide": ("float8", 701),
}


class RecordingWriter:
    """The ``RowWriter`` of the buffers: tables described from the records' schemas, and
    every statement recorded as ``(kind, table, columns, rows, defer)``; a binary COPY insert
    of a batch also records its native stream in ``streams``."""

    def __init__(self, props: dict[str, str]) -> None:
        self.config = JdbcSinkConfig({"connection.url": "jdbc:postgresql://h/db", **props})
        self.dialect: SinkDialect = PostgresSinkDialect(rules_for("postgresql", "always"))
        self.log: list[tuple[Any, ...]] = []
        self.streams: list[tuple[RowPlan, bytes | None, list[Any]]] = []
        self._plans: dict[TableId, tuple[object, object, RowPlan]] = {}

    def ensure_table(
        self, conn: Any, table: TableId, meta: FieldsMetadata, record: SinkRecord
    ) -> TableInfo:
        cols = {}
        for c in meta.columns:
            schema = c.schema
            assert schema is not None
            kind: object = schema.name if schema.name in _PG_TYPES else schema.type
            base, oid = _BY_NAME.get(c.name) or _PG_TYPES[kind]
            cols[c.name] = ColumnInfo(c.name, base, base, oid, True)
        return TableInfo(table, "TABLE", cols)

    def known_plan(self, table: TableId, key_schema: object, shape: object) -> RowPlan | None:
        got = self._plans.get(table)
        if got is not None and got[0] == key_schema and got[1] == shape:
            return got[2]
        return None

    def keep_plan(self, table: TableId, key_schema: object, shape: object, plan: RowPlan) -> None:
        self._plans[table] = (key_schema, shape, plan)

    def last_plan(self, table: TableId) -> tuple[object, object, RowPlan] | None:
        return self._plans.get(table)

    def write_rows(
        self,
        conn: Any,
        table: TableId,
        plan: RowPlan,
        records: Sequence[SinkRecord],
        use_copy: bool,
        defer: bool = False,
    ) -> None:
        rows = [tuple(r) for r in plan.rows(records)]
        self.log.append(("write", table.table, tuple(plan.sql_cols), rows, defer))
        if plan.oids is not None:
            self.streams.append((plan, plan.copy_stream(records), rows))

    def delete_rows(
        self, conn: Any, table: TableId, plan: RowPlan, key_rows: list[Any], use_copy: bool
    ) -> None:
        self.log.append(("delete", table.table, tuple(plan.sql_cols[: plan.n_keys]), key_rows))


def buffer_all(writer: RecordingWriter, records: Sequence[SinkRecord], table: str = "t") -> None:
    """What ``JdbcDbWriter.write`` does with one table's run of records."""
    buffer = BufferedRecords(writer, TableId(None, None, table), None, use_copy=True)
    buffer.add_all(records)
    buffer.flush(defer=True)


def same(a: object, b: object) -> bool:
    """Equal, NaN included (and -0.0 told from 0.0): compared by repr."""
    return repr(a) == repr(b)


def psycopg_stream(rows: list[Any], oids: list[int]) -> bytes:
    """The binary COPY stream psycopg writes for ``rows`` (the list path's reference)."""
    from psycopg._copy_base import _binary_signature, _binary_trailer, format_row_binary
    from psycopg.adapt import Transformer
    from psycopg.pq import Format

    tx = Transformer()
    tx.set_dumper_types(oids, Format.BINARY)
    buf = bytearray(_binary_signature)
    for r in rows:
        format_row_binary(r, tx, buf)
    return bytes(buf + _binary_trailer)


# ------------------------------------------------------------------------- every column type

WIDE = (
    SchemaBuilder.struct()
    .name("wide")
    .field("id", Schema.INT64_SCHEMA)
    .field("i8", Schema.OPTIONAL_INT8_SCHEMA)
    .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
    .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
    .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
    .field("f32_wide", Schema.OPTIONAL_FLOAT32_SCHEMA)
    .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
    .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
    .field("txt", Schema.OPTIONAL_STRING_SCHEMA)
    .field("vc", Schema.OPTIONAL_STRING_SCHEMA)
    .field("bp", Schema.OPTIONAL_STRING_SCHEMA)
    .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("d0", Decimal.builder(0).optional().build())
    .field("d2", Decimal.builder(2).optional().build())
    .field("d9", Decimal.builder(9).optional().build())
    .field("day", Date.builder().optional().build())
    .field("tod", Time.builder().optional().build())
    .field("ts", Timestamp.builder().optional().build())
    .field("tstz", Timestamp.builder().optional().build())
    .build()
)
KEY = SchemaBuilder.struct().name("k").field("id", Schema.INT64_SCHEMA).build()

_MS = 1000
texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
# float32 values as a FLOAT32 field holds them (the converters round to single precision)
f32s = st.floats(width=32).map(lambda f: struct.unpack("f", struct.pack("f", f))[0])


def decimals(scale: int) -> st.SearchStrategy[decimal.Decimal]:
    return st.integers(-(10**30), 10**30).map(lambda u: decimal.Decimal(u).scaleb(-scale))


EDGE_DAYS = [dt.date(1, 1, 1), dt.date(1969, 12, 31), dt.date(1970, 1, 1), dt.date(2000, 1, 1)]
EDGE_DAYS += [dt.date(2000, 2, 29), dt.date(1999, 12, 31), dt.date(9999, 12, 31)]
EDGE_TIMES = [dt.time(0), dt.time(23, 59, 59, 999_000), dt.time(12, 0, 0, 1_000)]
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EDGE_INSTANTS = [
    dt.datetime(1, 1, 1, tzinfo=dt.UTC),
    EPOCH - dt.timedelta(milliseconds=1),
    EPOCH,
    dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
    dt.datetime(1999, 12, 31, 23, 59, 59, 999_000, tzinfo=dt.UTC),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999_000, tzinfo=dt.UTC),
]

FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "i8": st.integers(-(2**7), 2**7 - 1),
    "i16": st.integers(-(2**15), 2**15 - 1),
    "i32": st.integers(-(2**31), 2**31 - 1),
    "f32": f32s,
    "f32_wide": f32s,
    "f64": st.floats(),
    "flag": st.booleans(),
    "txt": texts,
    "vc": texts,
    "bp": texts,
    "blob": st.binary(max_size=6),
    "d0": decimals(0),
    "d2": decimals(2),
    "d9": decimals(9),
    "day": st.sampled_from(EDGE_DAYS) | st.dates(),
    "tod": st.sampled_from(EDGE_TIMES)
    | st.integers(0, 86_399_999).map(lambda ms: Time.to_logical(Time.SCHEMA, ms)),
    "ts": st.sampled_from(EDGE_INSTANTS)
    | st.integers(-62_135_596_800_000, 253_402_300_799_999).map(
        lambda ms: EPOCH + dt.timedelta(milliseconds=ms)
    ),
}
FIELDS["tstz"] = FIELDS["ts"]
rows_strategy = st.lists(
    st.fixed_dictionaries({n: st.none() | s for n, s in FIELDS.items()}), min_size=1, max_size=6
)


def wide_records(values: list[dict[str, Any]], topic: str = "t") -> list[SinkRecord]:
    out = []
    for i, fields in enumerate(values):
        v = Struct(WIDE).put("id", i)
        for name, x in fields.items():
            v.put(name, x)
        k = Struct(KEY).put("id", i)
        out.append(SinkRecord(topic, 0, KEY, k, WIDE, v, 100 + i))
    return out


MODES = {
    "none": {},
    "kafka": {"pk.mode": "kafka"},
    "record_key": {"pk.mode": "record_key", "pk.fields": "id"},
    "record_value": {"pk.mode": "record_value", "pk.fields": "id"},
}


@needs_native
@SETTINGS
@given(st.sampled_from(sorted(MODES)), rows_strategy)
def test_rows_and_copy_stream_of_a_batch_are_the_lists(mode: str, values: Any) -> None:
    records = wide_records(values)
    listed = RecordingWriter(MODES[mode])
    buffer_all(listed, records)
    batched = RecordingWriter(MODES[mode])
    batch = native.RecordBatch.from_records(records)
    buffer_all(batched, batch)
    assert same(batched.log, listed.log)
    [(plan, stream, rows)] = batched.streams
    assert plan.copy_native  # db.timezone is UTC: timestamps go as they are
    assert stream is not None, "a batch of plain values is encoded natively"
    assert plan.oids is not None
    assert stream == psycopg_stream(rows, plan.oids)
    # the first record was read to plan; a second batch of the same schemas reads none
    assert batch.python_count() == 1
    again = native.RecordBatch.from_records(records)
    buffer_all(batched, again)
    assert again.python_count() == 0
    assert same(batched.log[-1], listed.log[-1])
    assert batched.streams[-1][1] == stream


@needs_native
def test_values_the_native_stream_does_not_take_go_by_rows() -> None:
    # out of range for int2 (psycopg refuses it too: the database is asked by the rows path)
    wide_i8 = SchemaBuilder.struct().field("i8", Schema.INT64_SCHEMA).build()
    rec = SinkRecord("t", 0, None, None, wide_i8, Struct(wide_i8).put("i8", 70_000), 0)
    writer = RecordingWriter({})
    writer.ensure_table = lambda conn, table, meta, record: TableInfo(  # type: ignore[method-assign]
        table, "TABLE", {"i8": ColumnInfo("i8", "int2", "int2", 21, True)}
    )
    buffer_all(writer, native.RecordBatch.from_records([rec]))
    [(_, stream, rows)] = writer.streams
    assert stream is None and rows == [(70_000,)]


# ------------------------------------------------------------------------------------ defaults

DEFAULTS = (
    SchemaBuilder.struct()
    .field("id", Schema.INT32_SCHEMA)
    .field("qty", SchemaBuilder.int32().optional().default_value(7).build())
    .field("note", SchemaBuilder.string().optional().default_value("n/a").build())
    .build()
)


@needs_native
@pytest.mark.parametrize("replace", ["true", "false"])
@pytest.mark.parametrize("nulls", [False, True])
def test_defaults_replace_nulls_as_the_list_path(replace: str, nulls: bool) -> None:
    records = [
        SinkRecord(
            "t",
            0,
            None,
            None,
            DEFAULTS,
            Struct(DEFAULTS)
            .put("id", i)
            .put("qty", None if nulls and i % 2 else i)
            .put("note", None if nulls and i == 2 else f"x{i}"),
            i,
        )
        for i in range(5)
    ]
    props = {"replace.null.with.default": replace}
    listed, batched = RecordingWriter(props), RecordingWriter(props)
    buffer_all(listed, records)
    buffer_all(batched, native.RecordBatch.from_records(records))
    assert batched.log == listed.log
    rows = listed.log[0][3]
    if nulls and replace == "true":
        assert rows[1] == (1, 7, "x1") and rows[2] == (2, 2, "n/a")
    [(plan, stream, got_rows)] = batched.streams
    if nulls and replace == "true":
        assert stream is None  # a default is filled in: the rows path does it
    else:
        assert stream == psycopg_stream(got_rows, plan.oids or [])


# ------------------------------------------------------------------ conversions kept in Python

STAMPED = (
    SchemaBuilder.struct()
    .field("id", Schema.INT32_SCHEMA)
    .field("ts", Timestamp.builder().optional().build())
    .field("tstz", Timestamp.builder().optional().build())
    .field("millis", Schema.OPTIONAL_INT64_SCHEMA)
    .build()
)
TIMED = SchemaBuilder.struct().field("tod", Time.builder().optional().build()).build()


@needs_native
@pytest.mark.parametrize(
    "props",
    [
        {"db.timezone": "Asia/Tokyo"},
        {"db.timezone": "UTC", "timestamp.fields.list": "millis"},
    ],
)
def test_other_zones_and_timestamp_fields_keep_the_python_conversions(
    props: dict[str, str],
) -> None:
    records = [
        SinkRecord(
            "t",
            0,
            None,
            None,
            STAMPED,
            Struct(STAMPED)
            .put("id", i)
            .put("ts", EPOCH + dt.timedelta(hours=i))
            .put("tstz", EDGE_INSTANTS[i])
            .put("millis", 1_700_000_000_000 + i),
            i,
        )
        for i in range(5)
    ]
    times = [
        SinkRecord("u", 0, None, None, TIMED, Struct(TIMED).put("tod", EDGE_TIMES[i]), i)
        for i in range(3)
    ]
    listed, batched = RecordingWriter(props), RecordingWriter(props)
    for recs in (records, times):
        buffer_all(listed, recs, recs[0].topic)
        buffer_all(batched, native.RecordBatch.from_records(recs), recs[0].topic)
    assert batched.log == listed.log
    for plan, stream, _ in batched.streams:
        if plan.meta.columns[0].name == "tod" and "timestamp.fields.list" in props:
            assert plan.copy_native and stream is not None  # UTC: a Time goes as it is
        else:
            assert not plan.copy_native and stream is None
    if "timestamp.fields.list" not in props:
        # Tokyo wall time in the timestamp column, the instant in the timestamptz one
        row = listed.log[0][3][1]
        assert row[1] == dt.datetime(1970, 1, 1, 10, 0)
        assert row[2] == EDGE_INSTANTS[1]
        assert listed.log[1][3][0] == (dt.time(9, 0),)


# ------------------------------------------------- order: tombstones, schemas, Python records

V1 = (
    SchemaBuilder.struct()
    .name("v1")
    .field("id", Schema.INT32_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)
V2 = (
    SchemaBuilder.struct()
    .name("v2")
    .field("id", Schema.INT32_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .field("qty", Schema.OPTIONAL_INT64_SCHEMA)
    .build()
)
K = SchemaBuilder.struct().name("key").field("id", Schema.INT32_SCHEMA).build()
# a schema equal to V1 but another object: a plan is reused, runs are found by identity
V1_COPY = (
    SchemaBuilder.struct()
    .name("v1")
    .field("id", Schema.INT32_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)

steps = st.lists(
    st.tuples(
        st.sampled_from(["v1", "v1", "v1", "v2", "v1copy", "tombstone"]),
        st.integers(0, 5),
        st.sampled_from(["native", "native", "python", "dropped"]),
    ),
    min_size=1,
    max_size=25,
)


@SETTINGS
@given(steps, st.sampled_from(["1", "3", "100"]))
def test_statements_and_their_order_are_the_lists(spec: list[Any], batch_size: str) -> None:
    records: list[SinkRecord] = []
    for off, (kind, id_, _) in enumerate(spec):
        key = Struct(K).put("id", id_)
        if kind == "tombstone":
            records.append(SinkRecord("t", 0, K, key, None, None, off))
            continue
        schema = {"v1": V1, "v2": V2, "v1copy": V1_COPY}[kind]
        v = Struct(schema).put("id", id_).put("item", f"é{off}")
        if schema is V2:
            v.put("qty", off * 10)
        records.append(SinkRecord("t", 0, K, key, schema, v, off))
    batch = native.RecordBatch.from_records(records) if native is not None else None
    live = []
    for i, (_, _, state) in enumerate(spec):
        if state == "dropped":
            if batch is not None:
                batch.drop(i)
            continue
        if state == "python" and batch is not None:
            batch.put(i, records[i])  # a record a Python stage handed back: held as it is
        live.append(records[i])
    props = {
        "pk.mode": "record_key",
        "delete.enabled": "true",
        "insert.mode": "upsert",
        "batch.size": batch_size,
    }
    one_by_one, listed, batched = (RecordingWriter(props) for _ in range(3))
    buffer = BufferedRecords(one_by_one, TableId(None, None, "t"), None, use_copy=True)
    for r in live:  # the reference: add() of each record
        buffer.add(r)
    buffer.flush(defer=True)
    buffer_all(listed, live)
    assert listed.log == one_by_one.log
    if batch is None:
        return  # the pure-Python path: lists only
    buffer_all(batched, batch)
    assert batched.log == one_by_one.log
    for plan, stream, rows in batched.streams:
        if stream is not None:
            assert stream == psycopg_stream(rows, plan.oids or [])


# ---------------------------------------------------------- the whole put, on SQLite files


@needs_native
def test_a_put_of_a_batch_writes_the_tables_a_list_writes(tmp_path: Path) -> None:
    def records() -> list[SinkRecord]:
        out = []
        for off in range(40):
            topic = "a" if (off // 7) % 2 == 0 else "b"
            key = Struct(K).put("id", off % 9)
            if off % 11 == 5:
                out.append(SinkRecord(topic, 0, K, key, None, None, off))
                continue
            schema = V2 if 20 <= off < 30 else V1
            v = Struct(schema).put("id", off % 9).put("item", f"ü{off}")
            if schema is V2:
                v.put("qty", off)
            out.append(SinkRecord(topic, 0, K, key, schema, v, off))
        return out

    props = {
        "topics": "a,b",
        "auto.create": "true",
        "auto.evolve": "true",
        "insert.mode": "upsert",
        "pk.mode": "record_key",
        "delete.enabled": "true",
        "batch.size": "4",
    }
    tables = {}
    for how in ("list", "batch"):
        path = tmp_path / f"{how}.db"
        task = JdbcSinkTask()
        task.initialize(FakeSinkTaskContext())
        task.start({"connection.url": f"jdbc:sqlite:{path}", **props})
        recs = records()
        task.put(recs if how == "list" else native.RecordBatch.from_records(recs))
        task.stop()
        with sqlite3.connect(path) as conn:
            tables[how] = {
                t: conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in ("a", "b")
            }
    assert tables["batch"] == tables["list"]
    assert tables["list"]["a"] and tables["list"]["b"]
