"""JDBC source and sink through a real ``kconnect standalone`` worker (subprocess, REST on a
free port, JsonConverter with schemas): table → Kafka → table for every supported PostgreSQL
type, source offsets across a clean restart, upsert exactness across ``kill -9``, and the seed
walkthrough's dead letter queue case with its context headers read back from Kafka.

Every test uses its own tables, topics and connector names, so runs may overlap.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

psycopg = pytest.importorskip("psycopg")

from kconnect.testing.ports import free_port  # noqa: E402
from tests.integration.worker_support import read_topic  # noqa: E402

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

JSON = "org.apache.kafka.connect.json.JsonConverter"


def _wait(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
            if value:
                return value
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.2)


class Standalone:
    """A ``kconnect standalone`` subprocess with JsonConverter (schemas on) for keys and values,
    or the converter settings given (``converters``: worker properties)."""

    def __init__(self, tmp_path: Path, bootstrap: str, converters: str | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.props = tmp_path / "worker.properties"
        json_converters = (
            f"key.converter={JSON}\nvalue.converter={JSON}\n"
            "key.converter.schemas.enable=true\nvalue.converter.schemas.enable=true\n"
        )
        self.props.write_text(
            f"bootstrap.servers={bootstrap}\n"
            f"{converters or json_converters}"
            f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
            "offset.flush.interval.ms=300\n"
            f"listeners=http://127.0.0.1:{self.port}\n"
        )
        self.log = tmp_path / "worker.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kconnect.cli.main", "standalone", str(self.props)],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait(lambda: httpx.get(self.url + "/health").status_code == 200, what="worker health")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=60)

    def put(self, name: str, config: dict[str, str]) -> None:
        r = httpx.put(f"{self.url}/connectors/{name}/config", json=config, timeout=30)
        assert r.status_code in (200, 201), r.text

    def running(self, name: str, tasks: int = 1) -> None:
        def ok() -> bool:
            s = httpx.get(f"{self.url}/connectors/{name}/status").json()
            states = [t["state"] for t in s.get("tasks", [])]
            assert "FAILED" not in states, json.dumps(s)[:3000]
            return (
                s.get("connector", {}).get("state") == "RUNNING" and states == ["RUNNING"] * tasks
            )

        _wait(ok, what=f"{name} running with {tasks} task(s)")


@pytest.fixture
def worker(tmp_path: Path, kafka_bootstrap: str):  # type: ignore[no-untyped-def]
    w = Standalone(tmp_path, kafka_bootstrap)
    w.start()
    yield w
    w.stop(signal.SIGKILL)


@pytest.fixture
def db(pg_dsn: str):  # type: ignore[no-untyped-def]
    conn = psycopg.connect(pg_dsn, autocommit=True)
    created: list[str] = []
    conn.created = created  # type: ignore[attr-defined]
    yield conn
    for t in created:
        conn.execute(f'DROP TABLE IF EXISTS "{t}"')
    conn.close()


def _jdbc(pg_dsn: str) -> dict[str, str]:
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    return {
        "connection.url": (
            f"jdbc:postgresql://{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/"
            f"{info['dbname']}"
        ),
        "connection.user": str(info.get("user", "")),
        "connection.password": str(info.get("password", "")),
    }


def _source(pg_dsn: str, table: str, prefix: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        **_jdbc(pg_dsn),
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "table.whitelist": table,
        "topic.prefix": prefix,
        "poll.interval.ms": "200",
        "tasks.max": "1",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
        **extra,
    }


def _sink(pg_dsn: str, topic: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        **_jdbc(pg_dsn),
        "topics": topic,
        "tasks.max": "1",
        **extra,
    }


def _count(db: Any, table: str) -> int:
    try:
        return int(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
    except psycopg.errors.UndefinedTable:
        return 0


def _name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


# -- (a) every type, table → Kafka → auto-created table ---------------------------------------

_TYPES = [
    ("c_uuid", "uuid"),
    ("c_json", "json"),
    ("c_jsonb", "jsonb"),
    ("c_int2", "int2"),
    ("c_int4", "int4"),
    ("c_int8", "int8"),
    ("c_num", "numeric(10,2)"),
    ("c_float4", "float4"),
    ("c_float8", "float8"),
    ("c_text", "text"),
    ("c_varchar", "varchar(20)"),
    ("c_bool", "bool"),
    ("c_bytea", "bytea"),
    ("c_date", "date"),
    ("c_time", "time"),
    ("c_ts", "timestamp"),
    ("c_tstz", "timestamptz"),
    ("c_int_arr", "int4[]"),
    ("c_bigint_arr", "int8[]"),
    ("c_text_arr", "text[]"),
    ("c_float_arr", "float8[]"),
    ("c_bool_arr", "bool[]"),
    ("c_num_arr", "numeric(10,2)[]"),
]

# Connect's Time and Timestamp carry milliseconds, so the values do too.
_ROWS: list[tuple[Any, ...]] = [
    (
        uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        '{"b": 1, "a": [1, 2, {"x": null}]}',
        '{"k": "v", "n": 1.5, "nested": {"deep": [true, false]}}',
        -32768,
        2147483647,
        -9223372036854775808,
        decimal.Decimal("12345678.91"),
        3.25,
        2.718281828459045,
        'héllo\tworld\n\\ "quoted" ∑',
        "varchar-ü",
        True,
        b"\x00\x01\xff\\x",
        dt.date(2024, 2, 29),
        dt.time(23, 59, 58, 123000),
        dt.datetime(2024, 1, 2, 3, 4, 5, 678000),
        dt.datetime(2024, 6, 30, 12, 0, 0, 1000, tzinfo=dt.UTC),
        [1, None, -3],
        [9223372036854775807, 0],
        ["a", "b,c", 'd"e', None, "{}"],
        [1.5, -0.25],
        [True, False, None],
        [decimal.Decimal("1.10"), decimal.Decimal("-99999999.99")],
    ),
    (
        uuid.UUID("00000000-0000-0000-0000-000000000000"),
        "[]",
        "{}",
        0,
        0,
        0,
        decimal.Decimal("0.00"),
        0.0,
        -1e300,
        "",
        "",
        False,
        b"",
        dt.date(1970, 1, 1),
        dt.time(0, 0),
        dt.datetime(1999, 12, 31, 23, 59, 59, 999000),
        dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
        [],
        [],
        [],
        [],
        [],
        [],
    ),
    tuple([None] * len(_TYPES)),
]


def _normalize(column: str, value: Any) -> Any:
    """Values of a source column and its auto-created twin, made comparable: json/jsonb/uuid
    may arrive as text (Connect STRING), timestamptz as a UTC timestamp."""
    if value is None:
        return None
    if column in ("c_json", "c_jsonb"):
        return json.loads(value) if isinstance(value, str) else value
    if column == "c_uuid":
        return str(value)
    if column == "c_tstz":
        return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value
    if column == "c_bytea":
        return bytes(value)
    return value


def test_every_type_round_trips_through_the_worker(worker, db, pg_dsn):  # type: ignore[no-untyped-def]
    every_type_round_trip(worker, db, pg_dsn)


def every_type_round_trip(worker: Standalone, db: Any, pg_dsn: str) -> None:
    """Every supported PostgreSQL type: table -> JDBC source -> Kafka -> JDBC sink -> an
    auto-created table and a pre-created one, whatever converters the worker uses."""
    src, prefix = _name("rt_src"), _name("rt") + "_"
    topic = prefix + src
    dst, typed = _name("rt_dst"), _name("rt_typed")
    db.created += [src, dst, typed]
    cols = ", ".join(f"{c} {t}" for c, t in _TYPES)
    db.execute(f"CREATE TABLE {src} (id serial PRIMARY KEY, {cols})")
    # A second sink writes into a table created beforehand with the source's exact types.
    db.execute(f"CREATE TABLE {typed} (id int PRIMARY KEY, {cols})")
    names = ", ".join(c for c, _ in _TYPES)
    marks = ", ".join(["%s"] * len(_TYPES))
    with db.cursor() as cur:
        cur.executemany(f"INSERT INTO {src} ({names}) VALUES ({marks})", _ROWS)

    worker.put(_name("rt-source"), _source(pg_dsn, src, prefix))
    sink = _name("rt-sink")
    worker.put(
        sink,
        _sink(
            pg_dsn,
            topic,
            **{
                "table.name.format": dst,
                "auto.create": "true",
                "pk.mode": "record_value",
                "pk.fields": "id",
            },
        ),
    )
    typed_sink = _name("rt-typed-sink")
    worker.put(typed_sink, _sink(pg_dsn, topic, **{"table.name.format": typed}))
    worker.running(sink)
    worker.running(typed_sink)
    _wait(lambda: _count(db, dst) == len(_ROWS), what=f"{len(_ROWS)} rows in {dst}")
    _wait(lambda: _count(db, typed) == len(_ROWS), what=f"{len(_ROWS)} rows in {typed}")

    expected = db.execute(f"SELECT id, {names} FROM {src} ORDER BY id").fetchall()
    actual = db.execute(f"SELECT id, {names} FROM {dst} ORDER BY id").fetchall()
    assert len(actual) == len(expected)
    for e_row, a_row in zip(expected, actual, strict=True):
        assert a_row[0] == e_row[0]
        for (column, _), e, a in zip(_TYPES, e_row[1:], a_row[1:], strict=True):
            assert _normalize(column, a) == _normalize(column, e), (column, e, a)

    # Into the pre-created table every value lands exactly as it was, json/jsonb/uuid included.
    assert db.execute(f"SELECT id, {names} FROM {typed} ORDER BY id").fetchall() == expected
    as_text = ", ".join(f"{c}::text" for c, _ in _TYPES)
    assert (
        db.execute(f"SELECT {as_text} FROM {typed} ORDER BY id").fetchall()
        == db.execute(f"SELECT {as_text} FROM {src} ORDER BY id").fetchall()
    )

    # The created table has fitting types: exact numeric, arrays as arrays, dates as dates.
    types = dict(
        db.execute(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
            "WHERE a.attrelid = %s::regclass AND a.attnum > 0",
            (dst,),
        ).fetchall()
    )
    assert types["id"] == "integer"
    assert types["c_int2"] == "smallint" and types["c_int8"] == "bigint"
    assert types["c_num"] == "numeric(10,2)"
    assert types["c_float4"] == "real" and types["c_float8"] == "double precision"
    assert types["c_bytea"] == "bytea" and types["c_bool"] == "boolean"
    assert types["c_date"] == "date"
    assert types["c_time"] == "time without time zone"
    assert types["c_ts"] == "timestamp without time zone"
    assert types["c_int_arr"] == "integer[]" and types["c_text_arr"] == "text[]"
    assert types["c_bigint_arr"] == "bigint[]" and types["c_bool_arr"] == "boolean[]"
    assert types["c_float_arr"] == "double precision[]"
    assert types["c_num_arr"] == "numeric(10,2)[]"


# -- (b) source offsets across a clean restart -----------------------------------------------


def _ids_in_topic(bootstrap: str, topic: str, at_least: int) -> list[int]:
    msgs = read_topic(bootstrap, topic, at_least, timeout=60)
    # Give a duplicate the chance to show up after the expected count was reached.
    msgs += read_topic(bootstrap, topic, 10**6, timeout=2)[len(msgs) :]
    return [json.loads(m.value())["payload"]["id"] for m in msgs]


def test_source_offsets_resume_after_restart(tmp_path, kafka_bootstrap, db, pg_dsn):  # type: ignore[no-untyped-def]
    src, prefix = _name("off_src"), _name("off") + "_"
    topic = prefix + src
    db.created.append(src)
    db.execute(f"CREATE TABLE {src} (id serial PRIMARY KEY, v text)")
    db.execute(f"INSERT INTO {src} (v) SELECT 'a' || g FROM generate_series(1, 50) g")
    name = _name("off-source")
    config = _source(pg_dsn, src, prefix)
    w = Standalone(tmp_path, kafka_bootstrap)
    w.start()
    try:
        w.put(name, config)
        w.running(name)
        assert sorted(_ids_in_topic(kafka_bootstrap, topic, 50)) == list(range(1, 51))
        time.sleep(1.0)  # > offset.flush.interval.ms: the last offsets are on disk
        w.stop(signal.SIGTERM)
        assert w.proc is not None and w.proc.returncode == 0, w.log.read_text()[-3000:]

        db.execute(f"INSERT INTO {src} (v) SELECT 'b' || g FROM generate_series(1, 50) g")
        w.start()
        w.put(name, config)  # standalone keeps no connector configs; offsets are in the file
        w.running(name)
        ids = _ids_in_topic(kafka_bootstrap, topic, 100)
        assert sorted(ids) == list(range(1, 101)), "rows lost or sent twice across the restart"
    finally:
        w.stop(signal.SIGKILL)


# -- (c) kill -9 mid-stream: upsert stays exact, insert loses nothing ----------------------------


@pytest.mark.parametrize("mode", ["upsert", "insert"])
def test_pipeline_after_kill_9(tmp_path, kafka_bootstrap, db, pg_dsn, mode):  # type: ignore[no-untyped-def]
    """upsert: every row exactly once. insert (batches large enough for the deferred COPY
    commit, see JdbcSinkTask): every row at least once — offsets are committed only for rows
    the database committed, so what was in flight is written again (duplicates allowed, as
    with Confluent's insert mode)."""
    src, prefix, dst = _name("k9_src"), _name("k9") + "_", _name("k9_dst")
    topic = prefix + src
    db.created += [src, dst]
    db.execute(f"CREATE TABLE {src} (id serial PRIMARY KEY, user_id varchar(10), n int8)")
    key = "PRIMARY KEY" if mode == "upsert" else ""
    db.execute(f"CREATE TABLE {dst} (id int {key}, user_id varchar(10), n int8)")
    total = 60_000
    db.execute(
        f"INSERT INTO {src} (user_id, n) SELECT 'u' || (g % 97), g * 7 "
        f"FROM generate_series(1, {total // 2}) g"
    )
    source, sink = _name("k9-source"), _name("k9-sink")
    source_cfg = _source(pg_dsn, src, prefix, **{"batch.max.rows": "500"})
    overrides = {"table.name.format": dst, "insert.mode": mode}
    if mode == "upsert":
        overrides |= {"pk.mode": "record_value", "pk.fields": "id"}
        overrides["consumer.override.max.poll.records"] = "500"
    else:
        overrides["consumer.override.max.poll.records"] = "2000"
    sink_cfg = _sink(pg_dsn, topic, **overrides)
    w = Standalone(tmp_path, kafka_bootstrap)
    w.start()
    try:
        w.put(source, source_cfg)
        w.put(sink, sink_cfg)
        _wait(lambda: _count(db, dst) > 0, what="the sink's first rows")
        w.stop(signal.SIGKILL)  # mid-stream: neither source offsets nor consumer offsets final
        landed = _count(db, dst)
        db.execute(
            f"INSERT INTO {src} (user_id, n) SELECT 'u' || (g % 97), g * 7 "
            f"FROM generate_series({total // 2 + 1}, {total}) g"
        )
        w.start()
        w.put(source, source_cfg)
        w.put(sink, sink_cfg)
        distinct = f"SELECT count(*) FROM (SELECT DISTINCT id, user_id, n FROM {dst}) d"
        _wait(
            lambda: db.execute(distinct).fetchone()[0] >= total,
            timeout=180,
            what=f"{total} rows in {dst}",
        )
        time.sleep(2.0)  # redelivered duplicates, if any, would land now
        if mode == "upsert":
            assert _count(db, dst) == total
        assert db.execute(distinct).fetchone()[0] == total
        missing = db.execute(
            f"SELECT count(*) FROM (SELECT id, user_id, n FROM {src} EXCEPT "
            f"SELECT id, user_id, n FROM {dst}) d"
        ).fetchone()[0]
        extra = db.execute(
            f"SELECT count(*) FROM (SELECT id, user_id, n FROM {dst} EXCEPT "
            f"SELECT id, user_id, n FROM {src}) d"
        ).fetchone()[0]
        assert (missing, extra) == (0, 0)
        assert landed < total, "kill -9 came after the whole stream; the test proved nothing"
    finally:
        w.stop(signal.SIGKILL)


# -- (d) the seed's dead letter queue case -----------------------------------------------------


def test_seed_dlq_case_through_the_worker(worker, db, pg_dsn, kafka_bootstrap):  # type: ignore[no-untyped-def]
    src = _name("table01")
    topic = "dst_" + src
    dlq = _name("dlq-jdbc-sink-postgresql")
    db.created += [src, topic]
    db.execute(
        f"CREATE TABLE {src} (id serial NOT NULL, user_id varchar(10), item varchar(20), "
        "PRIMARY KEY (id))"
    )
    db.execute(
        f'CREATE TABLE "{topic}" (id integer NOT NULL, user_id varchar(10), item varchar(10), '
        "PRIMARY KEY (id))"
    )
    source = _name("jdbc_source_postgresql")
    worker.put(
        source,
        _source(
            pg_dsn,
            src,
            "dst_",
            **{
                "tasks.max": "5",
                "topic.creation.default.partitions": "2",
                "transforms": "createKey,extractInt",
                "transforms.createKey.type": "org.apache.kafka.connect.transforms.ValueToKey",
                "transforms.createKey.fields": "user_id",
                "transforms.extractInt.type": (
                    "org.apache.kafka.connect.transforms.ExtractField$Key"
                ),
                "transforms.extractInt.field": "user_id",
            },
        ),
    )
    sink = _name("jdbc_sink_postgresql")
    worker.put(
        sink,
        _sink(
            pg_dsn,
            topic,
            **{
                "tasks.max": "5",
                "errors.tolerance": "all",
                "errors.deadletterqueue.topic.name": dlq,
                "errors.deadletterqueue.topic.replication.factor": "1",
                "errors.deadletterqueue.context.headers.enable": "true",
            },
        ),
    )
    worker.running(sink, tasks=5)
    db.execute(
        f"INSERT INTO {src} (user_id, item) VALUES ('user01', 'apple'), ('user01', 'orange'), "
        "('user02', 'banana'), ('user02', 'melon')"
    )
    _wait(lambda: _count(db, topic) == 4, what="the first 4 rows")
    db.execute(f"INSERT INTO {src} (user_id, item) VALUES ('user01', 'super-apple-0000')")
    db.execute(f"INSERT INTO {src} (user_id, item) VALUES ('user01', 'kiwi'), ('user02', 'grape')")
    _wait(lambda: _count(db, topic) == 6, what="the 2 rows after the bad one")

    rows = db.execute(f'SELECT id, user_id, item FROM "{topic}" ORDER BY id').fetchall()
    assert rows == [
        (1, "user01", "apple"),
        (2, "user01", "orange"),
        (3, "user02", "banana"),
        (4, "user02", "melon"),
        (6, "user01", "kiwi"),
        (7, "user02", "grape"),
    ]
    (msg,) = read_topic(kafka_bootstrap, dlq, 1, timeout=30)
    assert read_topic(kafka_bootstrap, dlq, 2, timeout=2)[1:] == []
    assert json.loads(msg.key()) == {
        "schema": {"type": "string", "optional": True},
        "payload": "user01",
    }
    assert json.loads(msg.value())["payload"] == {
        "id": 5,
        "user_id": "user01",
        "item": "super-apple-0000",
    }
    headers = {k: (v.decode() if v is not None else None) for k, v in msg.headers()}
    assert headers["__connect.errors.topic"] == topic
    # user01's records all go to one partition; the bad one is its 3rd (offset 2, as the seed).
    assert headers["__connect.errors.partition"] in ("0", "1")
    assert headers["__connect.errors.offset"] == "2"
    assert headers["__connect.errors.connector.name"] == sink
    assert headers["__connect.errors.task.id"] in {str(i) for i in range(5)}
    assert headers["__connect.errors.stage"] == "TASK_PUT"
    assert headers["__connect.errors.class.name"] == "org.apache.kafka.connect.sink.SinkTask"
    assert headers["__connect.errors.exception.class.name"]
    assert "character varying(10)" in headers["__connect.errors.exception.message"]
    assert "__connect.errors.exception.stacktrace" in headers
