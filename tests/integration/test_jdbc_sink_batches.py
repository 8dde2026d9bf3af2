"""JdbcSinkTask on native record batches writes what it writes from lists, in a real PostgreSQL.

On the native hot path a ``put`` gets a ``kconnect_native.RecordBatch``, and the sink makes
rows -- or a COPY insert's whole binary stream -- straight from its native values. Each test
puts the same records once as a list and once as a batch (``RecordBatch.from_records``), into
two tables, and compares what landed: every row as PostgreSQL prints it (``t::text``: numeric
scales, timestamps, bytea, padding), the column types, and for the error paths what the
errant record reporter got and which offsets ``pre_commit`` gives.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from kconnect._hot_path import native
from kconnect.api import (
    ConnectException,
    Date,
    Decimal,
    RetriableException,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Time,
    Timestamp,
    TopicPartition,
)
from kconnect.connectors.jdbc.sink.sink_task import DEFER_MIN_RECORDS
from kconnect.testing.fakes import RecordingErrantReporter
from tests.integration.test_jdbc_sink_postgres import VALUE, jdbc_url, row, start

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(native is None, reason="native record batches need kconnect_native"),
]

HOW = ("list", "batch")


@pytest.fixture
def prefix(db: psycopg.Connection[Any]) -> Iterator[str]:
    """A fresh table-name prefix; every table starting with it is dropped after the test."""
    name = "bsink_" + uuid.uuid4().hex[:8]
    yield name
    for (t,) in db.execute(
        "SELECT tablename FROM pg_tables WHERE tablename LIKE %s", (name + "%",)
    ).fetchall():
        db.execute(f'DROP TABLE IF EXISTS "{t}"')


def put_all(
    pg_dsn: str,
    props: dict[str, Any],
    puts: list[list[SinkRecord]],
    how: str,
    reporter: RecordingErrantReporter | None = None,
) -> list[Any]:
    """Start a task writing topic ``T`` to table ``T_<how>``, put each of ``puts`` (as a list,
    or as a native batch), flush, stop. Returns what was put."""
    topic = puts[0][0].topic
    task, _ = start(
        {**jdbc_url(pg_dsn), "topics": topic, "table.name.format": "${topic}_" + how, **props},
        reporter,
    )
    sent: list[Any] = []
    try:
        for records in puts:
            batch = records if how == "list" else native.RecordBatch.from_records(records)
            sent.append(batch)
            task.put(batch)
        task.flush({})
    finally:
        task.stop()
    return sent


def landed(db: psycopg.Connection[Any], table: str) -> list[str]:
    """Every row of ``table`` as PostgreSQL prints it, sorted."""
    return [r[0] for r in db.execute(f'SELECT t::text FROM "{table}" t ORDER BY 1').fetchall()]


def column_types(db: psycopg.Connection[Any], table: str) -> list[tuple[Any, ...]]:
    return db.execute(
        "SELECT column_name, data_type, numeric_precision, numeric_scale, "
        "character_maximum_length, is_nullable FROM information_schema.columns "
        "WHERE table_name = %s ORDER BY ordinal_position",
        (table,),
    ).fetchall()


def same_tables(db: psycopg.Connection[Any], topic: str) -> list[str]:
    """Assert the list-written and batch-written tables of ``topic`` are alike; their rows."""
    got = {how: landed(db, f"{topic}_{how}") for how in HOW}
    assert got["batch"] == got["list"]
    assert column_types(db, f"{topic}_batch") == column_types(db, f"{topic}_list")
    return got["list"]


# ----------------------------------------------------------------------------- every type

EVERY = (
    SchemaBuilder.struct()
    .name("every")
    .field("id", Schema.INT64_SCHEMA)
    .field("i8", Schema.OPTIONAL_INT8_SCHEMA)
    .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
    .field("i32", Schema.OPTIONAL_INT32_SCHEMA)
    .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
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
# the columns a user might have made for it (char(n), varchar(n), constrained and free numerics)
EVERY_DDL = (
    "id bigint PRIMARY KEY, i8 smallint, i16 smallint, i32 integer, f32 real, "
    "f64 double precision, flag boolean, txt text, vc varchar(12), bp char(6), blob bytea, "
    "d0 numeric, d2 numeric(40,2), d9 numeric, day date, tod time, ts timestamp, tstz timestamptz"
)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
D = decimal.Decimal
EDGES: list[dict[str, Any]] = [
    {},  # every optional field null
    {
        "i8": -128,
        "i16": -32768,
        "i32": -(2**31),
        "f32": -0.0,
        "f64": float("-inf"),
        "flag": False,
        "txt": "",
        "vc": "",
        "bp": "",
        "blob": b"",
        "d0": D("-99999999999999999999999999999"),
        "d2": D("-0.01"),
        "d9": D("-0.000000001"),
        "day": dt.date(1, 1, 1),
        "tod": dt.time(0),
        "ts": dt.datetime(1, 1, 1, tzinfo=dt.UTC),
        "tstz": EPOCH - dt.timedelta(milliseconds=1),
    },
    {
        "i8": 127,
        "i16": 32767,
        "i32": 2**31 - 1,
        "f32": 3.4028234663852886e38,
        "f64": float("nan"),
        "flag": True,
        "txt": "é😀中文\u0301 \\ \t\n'\"",
        "vc": "ünïcødé 😀",
        "bp": "ab😀",
        "blob": bytes(range(256)),
        "d0": D("12345678901234567890123456789"),
        "d2": D("10000.00"),
        "d9": D("1.000000000"),
        "day": dt.date(9999, 12, 31),
        "tod": dt.time(23, 59, 59, 999_000),
        # the latest instant whose Tokyo wall time Python can still write
        "ts": dt.datetime(9999, 12, 31, 14, 59, 59, 999_000, tzinfo=dt.UTC),
        "tstz": dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
    },
    {
        "i8": 0,
        "i16": 0,
        "i32": 0,
        "f32": 1.5,
        "f64": 5e-324,
        "txt": "x" * 5000,
        "d0": D("0"),
        "d2": D("0.00"),
        "d9": D("123456789.123456789"),
        "day": dt.date(1969, 12, 31),
        "tod": dt.time(12, 34, 56, 789_000),
        "ts": EPOCH,
        "tstz": dt.datetime(2000, 2, 29, 12, 0, 0, 1_000, tzinfo=dt.UTC),
    },
    {
        "d0": D("10000"),
        "d2": D("-12345.67"),
        "d9": D("0E-9"),
        "day": dt.date(2000, 1, 1),
        "ts": dt.datetime(1999, 12, 31, 23, 59, 59, 999_000, tzinfo=dt.UTC),
        "tstz": dt.datetime(1, 1, 1, tzinfo=dt.UTC),
    },
]


def every_records(topic: str, n: int = 300) -> list[SinkRecord]:
    """The edge rows, then ``n`` ordinary ones (enough for a deferred COPY)."""
    out = []
    for i in range(len(EDGES) + n):
        fields = (
            EDGES[i]
            if i < len(EDGES)
            else {
                "i32": i,
                "f64": i / 7,
                "txt": f"row {i} é",
                "vc": f"v{i}",
                "d2": D(i).scaleb(-2),
                "d9": D(i * 1_000_003).scaleb(-9),
                "day": dt.date(2024, 1, 1) + dt.timedelta(days=i),
                "ts": EPOCH + dt.timedelta(milliseconds=i * 86_400_123),
                "tstz": EPOCH + dt.timedelta(milliseconds=-i * 3_600_007),
                "flag": i % 3 == 0,
            }
        )
        v = Struct(EVERY).put("id", i)
        for name, x in fields.items():
            v.put(name, x)
        out.append(SinkRecord(topic, 0, None, None, EVERY, v, i))
    return out


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo"])
def test_every_type_and_edge_lands_as_from_a_list(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str, zone: str
) -> None:
    for how in HOW:
        db.execute(f'CREATE TABLE "{prefix}_{how}" ({EVERY_DDL})')
    records = every_records(prefix)
    sent = {how: put_all(pg_dsn, {"db.timezone": zone}, [records], how) for how in HOW}
    rows = same_tables(db, prefix)
    assert len(rows) == len(records)
    # the batch made one Python record: the first, to plan its schemas
    assert sent["batch"][0].python_count() == 1


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo", "-05:00"])
def test_timestamps_in_any_zone_land_as_from_a_list(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str, zone: str
) -> None:
    stamps = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("ts", Timestamp.builder().optional().build())
        .field("tstz", Timestamp.builder().optional().build())
        .build()
    )
    for how in HOW:
        db.execute(f'CREATE TABLE "{prefix}_{how}" (id int, ts timestamp, tstz timestamptz)')
    at = [
        EPOCH - dt.timedelta(milliseconds=1),
        EPOCH,
        dt.datetime(2024, 2, 29, 23, 30, tzinfo=dt.UTC),
    ]
    records = [
        SinkRecord(
            prefix,
            0,
            None,
            None,
            stamps,
            Struct(stamps).put("id", i).put("ts", t).put("tstz", t),
            i,
        )
        for i, t in enumerate(at * 50)
    ]
    for how in HOW:
        put_all(pg_dsn, {"db.timezone": zone}, [records], how)
    rows = same_tables(db, prefix)
    wall = {"UTC": "2024-02-29 23:30:00", "Asia/Tokyo": "2024-03-01 08:30:00"}
    wall["-05:00"] = "2024-02-29 18:30:00"
    assert any(f'"{wall[zone]}"' in r for r in rows)


ARRAYS = (
    SchemaBuilder.struct()
    .name("arrays")
    .field("id", Schema.INT32_SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
    .field("nums", SchemaBuilder.array(Schema.INT64_SCHEMA).optional().build())
    .field("ds", SchemaBuilder.array(Decimal.schema(2)).optional().build())
    .build()
)


def test_arrays_of_values_land_as_from_a_list(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    """One-dimensional arrays go by binary COPY too: empty, with null items, unicode."""
    for how in HOW:
        db.execute(
            f'CREATE TABLE "{prefix}_{how}" (id int, tags text[], nums bigint[], ds numeric[])'
        )
    cases: list[dict[str, Any]] = [
        {},
        {"tags": [], "nums": [], "ds": []},
        {"tags": ["a", None, "é😀", ""], "nums": [-(2**63), 0, 2**63 - 1], "ds": [D("-0.01")]},
    ]
    records = []
    for i in range(200):
        v = Struct(ARRAYS).put("id", i)
        fields = cases[i] if i < len(cases) else {"tags": [f"t{i}", "x"], "nums": [i]}
        for name, x in fields.items():
            v.put(name, x)
        records.append(SinkRecord(prefix, 0, None, None, ARRAYS, v, i))
    sent = {how: put_all(pg_dsn, {}, [records], how) for how in HOW}
    rows = same_tables(db, prefix)
    assert len(rows) == len(records)
    assert [r for r in rows if r.startswith("(2,")] == [
        '(2,"{a,NULL,é😀,""""}","{-9223372036854775808,0,9223372036854775807}",{-0.01})'
    ]
    assert sent["batch"][0].python_count() == 1  # the first record, to plan with


def test_auto_created_tables_are_alike(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    records = every_records(prefix, n=20)
    props = {"auto.create": "true", "pk.mode": "record_value", "pk.fields": "id"}
    for how in HOW:
        put_all(pg_dsn, props, [records[:3], records[3:]], how)
    assert len(same_tables(db, prefix)) == len(records)


def test_upsert_and_update_write_the_last_record_per_key(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    for mode in ("upsert", "update"):
        topic = f"{prefix}{mode}"
        # the same keys again, changed, twice within one batch
        again = [
            SinkRecord(topic, 0, None, None, EVERY, Struct(EVERY).put("id", i).put("txt", t), i)
            for t in ("changed", "last")
            for i in range(0, 40, 3)
        ]
        props = {
            "auto.create": "true",
            "insert.mode": mode,
            "pk.mode": "record_value",
            "pk.fields": "id",
        }
        for how in HOW:
            first = every_records(topic, n=50)
            put_all(pg_dsn, {**props, "insert.mode": "insert"}, [first], how)
            put_all(pg_dsn, props, [again], how)
        rows = same_tables(db, topic)
        assert len(rows) == len(EDGES) + 50
        assert sum(",last," in r for r in rows) == len(range(0, 40, 3))


# ------------------------------------------------------------------------------ defaults

DEFAULTS = (
    SchemaBuilder.struct()
    .name("defaults")
    .field("id", Schema.INT32_SCHEMA)
    .field("qty", SchemaBuilder.int32().optional().default_value(7).build())
    .field("note", SchemaBuilder.string().optional().default_value("n/a").build())
    .field("at", Timestamp.builder().optional().default_value(EPOCH).build())
    .build()
)


@pytest.mark.parametrize("replace", ["true", "false"])
def test_defaults_replace_nulls_as_from_a_list(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str, replace: str
) -> None:
    def rec(i: int, nulls: bool) -> SinkRecord:
        v = Struct(DEFAULTS).put("id", i)
        v.put("qty", None if nulls else i).put("note", None if nulls else f"n{i}")
        v.put("at", None if nulls else EPOCH + dt.timedelta(days=i))
        return SinkRecord(prefix, 0, None, None, DEFAULTS, v, i)

    # a put without nulls (the native COPY stream), then one with nulls in the middle
    puts = [
        [rec(i, False) for i in range(150)],
        [rec(i, 150 <= i < 160) for i in range(150, 300)],
    ]
    props = {"auto.create": "true", "replace.null.with.default": replace}
    for how in HOW:
        put_all(pg_dsn, props, puts, how)
    rows = same_tables(db, prefix)
    filled = [r for r in rows if r.startswith("(155,")]
    if replace == "true":
        assert filled == ['(155,7,n/a,"1970-01-01 00:00:00")']
    else:
        assert filled == ["(155,,,)"]


# ------------------------------------------------- tombstones, two tables, schema changes

KEY = SchemaBuilder.struct().name("key").field("id", Schema.INT32_SCHEMA).build()
V2 = (
    SchemaBuilder.struct()
    .name("table01")
    .field("id", Schema.INT32_SCHEMA)
    .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .field("qty", Decimal.builder(3).optional().build())
    .build()
)


def keyed(topic: str, off: int, id_: int, item: str | None, schema: Any = VALUE) -> SinkRecord:
    key = Struct(KEY).put("id", id_)
    if item is None:
        return SinkRecord(topic, 0, KEY, key, None, None, off)
    v = Struct(schema).put("id", id_).put("user_id", f"u{id_ % 5}").put("item", item)
    if schema is V2:
        v.put("qty", D(off).scaleb(-3))
    return SinkRecord(topic, 0, KEY, key, schema, v, off)


def test_tombstones_in_the_middle_delete_as_from_a_list(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    records = [keyed(prefix, i, i % 40, f"i{i}") for i in range(200)]
    for at in (50, 51, 120, 199):  # a tombstone alone, two in a row, one at the end
        records[at] = keyed(prefix, at, at % 40, None)
    props = {
        "auto.create": "true",
        "insert.mode": "upsert",
        "pk.mode": "record_key",
        "delete.enabled": "true",
    }
    for how in HOW:
        put_all(pg_dsn, props, [records], how)
    rows = same_tables(db, prefix)
    assert len(rows) == 39  # id 39's last record is the final tombstone


def test_two_tables_and_a_schema_change_mid_batch(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    a, b = f"{prefix}a", f"{prefix}b"
    records = []
    for off in range(400):
        topic = a if (off // 30) % 3 != 2 else b
        schema = V2 if 100 <= off < 250 else VALUE  # evolves, then back to the older schema
        records.append(keyed(topic, off, off, f"x{off}", schema))
    props = {
        "topics": f"{a},{b}",
        "auto.create": "true",
        "auto.evolve": "true",
        "pk.mode": "record_key",
    }
    for how in HOW:
        put_all(pg_dsn, props, [records[:150], records[150:]], how)
    assert len(same_tables(db, a)) + len(same_tables(db, b)) == 400


def test_records_a_python_stage_replaced_or_dropped(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    records = [keyed(prefix, i, i, f"i{i}") for i in range(300)]
    replaced = keyed(prefix, 10, 10, "from python")
    live = [replaced if i == 10 else r for i, r in enumerate(records) if i % 50 != 7]
    props = {"auto.create": "true", "pk.mode": "record_key"}
    put_all(pg_dsn, props, [live], "list")
    batch = native.RecordBatch.from_records(records)
    batch.put(10, replaced)
    for i in range(7, 300, 50):
        batch.drop(i)
    task, _ = start({**jdbc_url(pg_dsn), "table.name.format": "${topic}_batch", **props})
    task.put(batch)
    task.stop()
    assert '(10,u0,"from python")' in same_tables(db, prefix)


def test_schemaless_records_and_text_copy(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    # a jsonb and a uuid column: no binary COPY, the rows go by text COPY
    for how in HOW:
        db.execute(
            f'CREATE TABLE "{prefix}_{how}" (id integer PRIMARY KEY, name text, doc jsonb, u uuid)'
        )
    records = [
        SinkRecord(
            prefix,
            0,
            None,
            None,
            None,
            {"id": i, "name": f"n{i} é", "doc": {"a": [i, None, "x"]}, "u": str(uuid.UUID(int=i))},
            i,
        )
        for i in range(150)
    ]
    for how in HOW:
        put_all(pg_dsn, {}, [records[:10], records[10:]], how)
    assert len(same_tables(db, prefix)) == 150


# ---------------------------------------------------------------- errors and deferred COPY


def test_a_value_the_database_refuses_goes_to_the_reporter(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    reported: dict[str, list[tuple[Any, ...]]] = {}
    n = DEFER_MIN_RECORDS + 50  # a deferred COPY: refused when the next put completes it
    for how in HOW:
        table = f"{prefix}_{how}"
        db.execute(
            f'CREATE TABLE "{table}" (id integer PRIMARY KEY, user_id text, item varchar(10))'
        )
        reporter = RecordingErrantReporter()
        task, _ = start(
            {**jdbc_url(pg_dsn), "topics": prefix, "table.name.format": table},
            reporter,
        )
        records = [row(prefix, i, i, "u", "x" * 20 if i in (3, 70) else f"i{i}") for i in range(n)]
        put = records if how == "list" else native.RecordBatch.from_records(records)
        tp = TopicPartition(prefix, 0)
        task.put(put)
        assert task.pre_commit({tp: n}) == {tp: 0}  # refused: held at the first offset
        task.put([])
        assert task.pre_commit({tp: n}) == {tp: n}
        task.stop()
        reported[how] = [
            (r.topic, r.kafka_offset, r.value.get("item"), "value too long" in str(e))
            for r, e in reporter.reported
        ]
        if how == "batch":
            assert all(r is put[r.kafka_offset] for r, _ in reporter.reported)
    assert reported["batch"] == reported["list"]
    assert [r[1] for r in reported["list"]] == [3, 70]
    assert same_tables(db, prefix) and len(landed(db, f"{prefix}_batch")) == n - 2


def test_without_a_reporter_the_failure_names_the_same_record(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    messages = {}
    for how in HOW:
        table = f"{prefix}_{how}"
        db.execute(
            f'CREATE TABLE "{table}" (id integer PRIMARY KEY, user_id text, item varchar(10))'
        )
        task, _ = start({**jdbc_url(pg_dsn), "topics": prefix, "table.name.format": table})
        records = [row(prefix, i, i, "u", "x" * 20 if i == 7 else "ok") for i in range(30)]
        with pytest.raises(ConnectException) as info:
            task.put(records if how == "list" else native.RecordBatch.from_records(records))
        task.stop()
        messages[how] = str(info.value).replace(table, "T")
    assert messages["batch"] == messages["list"]
    assert "offset 7" in messages["batch"]


def test_a_deferred_batch_cut_off_before_its_commit_is_written_again(
    pg_dsn: str, db: psycopg.Connection[Any], prefix: str
) -> None:
    app = f"kc-batches-{prefix}"
    url = jdbc_url(pg_dsn)["connection.url"] + f"?ApplicationName={app}"
    table = f"{prefix}_batch"
    task, ctx = start(
        {
            **jdbc_url(pg_dsn),
            "connection.url": url,
            "topics": prefix,
            "table.name.format": table,
            "auto.create": "true",
            "retry.backoff.ms": "10",
        }
    )
    tp = TopicPartition(prefix, 0)
    n = DEFER_MIN_RECORDS + 100
    try:
        task.put(
            native.RecordBatch.from_records([row(prefix, i, i, "u", f"i{i}") for i in range(n)])
        )
        cut = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            (app,),
        ).fetchall()
        assert cut
        assert task.pre_commit({tp: n}) == {tp: 0}
        second = native.RecordBatch.from_records(
            [row(prefix, i, i, "u", f"i{i}") for i in range(n, n + 10)]
        )
        for _ in range(3):
            try:
                task.put(second)
                break
            except RetriableException:
                assert ctx.timeouts[-1] == 10
        task.put([])
        assert task.pre_commit({tp: n + 10}) == {tp: n + 10}
    finally:
        task.stop()
    got = db.execute(f'SELECT count(*), count(DISTINCT id) FROM "{table}"').fetchone()
    assert got == (n + 10, n + 10)
