"""JDBC source against the real PostgreSQL (``pg_dsn``)."""

from __future__ import annotations

import datetime as dt
import decimal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlparse

import psycopg
import pytest

from kconnect.api import Type
from kconnect.connectors.jdbc.source.source_connector import JdbcSourceConnector
from kconnect.connectors.jdbc.source.source_task import JdbcSourceTask
from kconnect.testing.fakes import FakeConnectorContext, FakeSourceTaskContext, MemoryOffsetReader

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg(pg_dsn: str) -> Iterator[tuple[psycopg.Connection, dict[str, str], str]]:
    """(autocommit connection, connection.* props, unique schema) — the schema is dropped."""
    u = urlparse(pg_dsn)
    schema = "src_" + uuid.uuid4().hex[:10]
    conn = psycopg.connect(pg_dsn, autocommit=True)
    conn.execute(f'CREATE SCHEMA "{schema}"')
    props = {
        "connection.url": f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}",
        "connection.user": u.username or "",
        "connection.password": u.password or "",
        "schema.pattern": schema,
    }
    yield conn, props, schema
    conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    conn.close()


def _task(props: dict[str, str], reader: MemoryOffsetReader | None = None) -> JdbcSourceTask:
    task = JdbcSourceTask()
    task.initialize(FakeSourceTaskContext(props, reader or MemoryOffsetReader()))
    task.start(props)
    return task


def _drain(task: JdbcSourceTask, polls: int) -> list:
    out = []
    for _ in range(polls):
        out.extend(task.poll() or [])
    return out


def test_seed_connector_json_two_tables_five_tasks(pg) -> None:
    conn, cprops, schema = pg
    for t in ("table01", "table02"):
        conn.execute(f'CREATE TABLE "{schema}".{t} (id serial PRIMARY KEY, user_id int NOT NULL)')
        conn.execute(f'INSERT INTO "{schema}".{t} (user_id) VALUES (7), (8)')
    # The seed walkthrough's connector config, verbatim except the database address and a
    # schema.pattern that keeps this test's tables apart from everything else in the database.
    seed = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": "jdbc:postgresql://pg01:5432/kcdb",
        "connection.user": "kcuser",
        "connection.password": "kcpw",
        "topic.prefix": "dst_",
        "poll.interval.ms": "5000",
        "table.poll.interval.ms": "60000",
        "table.whitelist": "table01,table02",
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "tasks.max": "5",
        "transforms": "createKey,extractInt",
        "transforms.createKey.type": "org.apache.kafka.connect.transforms.ValueToKey",
        "transforms.createKey.fields": "user_id",
        "transforms.extractInt.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
        "transforms.extractInt.field": "user_id",
    }
    props = {**seed, **cprops}
    c = JdbcSourceConnector()
    c.initialize(FakeConnectorContext())
    c.start(props)
    try:
        configs = c.task_configs(int(props["tasks.max"]))
    finally:
        c.stop()
    assert [cfg["tables"] for cfg in configs] == [
        f'"{schema}"."table01"',
        f'"{schema}"."table02"',
    ]
    task = _task(configs[1])
    recs = _drain(task, 1)
    task.stop()
    assert [r.value.get("user_id") for r in recs] == [7, 8]
    assert recs[0].topic == "dst_table02"
    assert recs[0].source_partition == {"protocol": "1", "table": f"{schema}.table02"}
    assert recs[1].source_offset == {"incrementing": 2}


def test_every_postgres_type(pg) -> None:
    conn, cprops, schema = pg
    conn.execute(
        f"""CREATE TABLE "{schema}".types (
            id bigserial PRIMARY KEY, u uuid, j json, jb jsonb, s2 int2, s4 int4 NOT NULL,
            s8 int8, n numeric(10,2), nu numeric, f4 float4, f8 float8, t text, vc varchar(20),
            b bool, by bytea, d date, tm time, ts timestamp, tz timestamptz,
            ai int[], at text[], iv interval)"""
    )
    uid = uuid.uuid4()
    conn.execute(
        f"""INSERT INTO "{schema}".types (u, j, jb, s2, s4, s8, n, nu, f4, f8, t, vc, b, by, d,
            tm, ts, tz, ai, at, iv) VALUES (%s, '{{"a": 1}}', '{{"b": [1, 2]}}', 3, 4, 5, 12.34,
            1.000000001, 1.5, 2.25, 'txt', 'vc', true, '\\x0102', '2024-02-29', '12:34:56.789',
            '2024-01-01 10:00:00.123456', '2024-01-01 10:00:00+02', '{{1,NULL,3}}',
            '{{"a","b c"}}', '1 day')""",
        (uid,),
    )
    props = {**cprops, "mode": "bulk", "tables": f'"{schema}"."types"', "tables.fetched": "true"}
    task = _task(props)
    (rec,) = _drain(task, 1)
    task.stop()
    s, v = rec.value_schema, rec.value
    assert rec.source_partition == {"table": "types"} and rec.source_offset is None

    def ftype(name: str) -> Type:
        return s.field(name).schema.type

    assert (ftype("u"), v.get("u")) == (Type.STRING, str(uid))
    assert (ftype("j"), v.get("j")) == (Type.STRING, '{"a": 1}')
    assert (ftype("jb"), v.get("jb")) == (Type.STRING, '{"b": [1, 2]}')
    assert [ftype(n) for n in ("id", "s2", "s4", "s8")] == [
        Type.INT64,
        Type.INT16,
        Type.INT32,
        Type.INT64,
    ]
    assert not s.field("s4").schema.optional and s.field("s2").schema.optional
    assert s.field("n").schema.parameters == {"scale": "2", "connect.decimal.precision": "10"}
    assert v.get("n") == decimal.Decimal("12.34")
    assert s.field("nu").schema.parameters == {"scale": "127"}
    assert v.get("nu") == decimal.Decimal("1.000000001")
    assert (ftype("f4"), v.get("f4"), ftype("f8"), v.get("f8")) == (
        Type.FLOAT32,
        1.5,
        Type.FLOAT64,
        2.25,
    )
    assert (v.get("t"), v.get("vc"), v.get("b"), v.get("by")) == ("txt", "vc", True, b"\x01\x02")
    assert s.field("d").schema.name == "org.apache.kafka.connect.data.Date"
    assert v.get("d") == dt.date(2024, 2, 29)
    assert s.field("tm").schema.name == "org.apache.kafka.connect.data.Time"
    assert v.get("tm") == dt.time(12, 34, 56, 789000)
    assert s.field("ts").schema.name == "org.apache.kafka.connect.data.Timestamp"
    assert v.get("ts") == dt.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=dt.UTC)
    assert v.get("tz") == dt.datetime(2024, 1, 1, 8, 0, tzinfo=dt.UTC)
    assert ftype("ai") is Type.ARRAY and s.field("ai").schema.value_schema.type is Type.INT32
    assert v.get("ai") == [1, None, 3]
    assert v.get("at") == ["a", "b c"]
    assert (ftype("iv"), v.get("iv")) == (Type.STRING, "1 day, 0:00:00")
    rec.value.validate()


def test_timestamp_incrementing_shared_timestamps_and_live_inserts(pg) -> None:
    conn, cprops, schema = pg
    conn.execute(
        f'CREATE TABLE "{schema}"."Odd ""Name""" (id serial PRIMARY KEY, '
        "upd timestamp NOT NULL, v text)"
    )
    table = f'"{schema}"."Odd ""Name"""'
    same = "2024-01-01 00:00:00"
    for i in range(5):
        conn.execute(f"INSERT INTO {table} (upd, v) VALUES (%s, %s)", (same, f"r{i}"))
    props = {
        **cprops,
        "mode": "timestamp+incrementing",
        "timestamp.column.name": "upd",
        "tables": table,
        "tables.fetched": "true",
        "batch.max.rows": "2",
        "poll.interval.ms": "10",
        "topic.prefix": "p_",
    }
    reader = MemoryOffsetReader()
    task = _task(props, reader)
    first = _drain(task, 3)
    assert [r.value.get("v") for r in first] == ["r0", "r1", "r2", "r3", "r4"]
    assert first[-1].source_offset == {
        "incrementing": 5,
        "timestamp": 1704067200000,
        "timestamp_nanos": 0,
    }
    assert first[0].topic == 'p_Odd "Name"'
    # Rows arriving while the task runs, one sharing the last timestamp.
    conn.execute(
        f"INSERT INTO {table} (upd, v) VALUES (%s, 'r5'), (now() - interval '1 s', 'r6')", (same,)
    )
    later = _drain(task, 5)
    assert [r.value.get("v") for r in later] == ["r5", "r6"]
    reader.commit(first + later[:1])
    task.stop()
    # Restart from the stored offset: only what came after r5.
    task = _task(props, reader)
    again = _drain(task, 3)
    task.stop()
    assert [r.value.get("v") for r in again] == ["r6"]


def test_resume_from_java_offset_and_legacy_partition(pg) -> None:
    conn, cprops, schema = pg
    conn.execute(f'CREATE TABLE "{schema}".t (id int PRIMARY KEY, v text)')
    conn.execute(f"INSERT INTO \"{schema}\".t VALUES (1,'a'),(2,'b'),(3,'c')")
    reader = MemoryOffsetReader()
    reader.put({"table": "t"}, {"incrementing": 1})  # legacy V0 partition from an old deployment
    props = {**cprops, "mode": "incrementing", "incrementing.column.name": "id",
             "tables": f'"{schema}"."t"', "tables.fetched": "true"}  # fmt: skip
    task = _task(props, reader)
    assert [r.value.get("v") for r in _drain(task, 2)] == ["b", "c"]
    task.stop()
    reader.put({"protocol": "1", "table": f"{schema}.t"}, {"incrementing": 2})
    task = _task(props, reader)
    assert [r.value.get("v") for r in _drain(task, 2)] == ["c"]
    task.stop()


class _Gate:
    """Holds the thread that calls :meth:`wait_here` until :meth:`open`; ``reached`` tells
    the test that it got there (once armed)."""

    def __init__(self) -> None:
        self.armed = False
        self.reached = threading.Event()
        self._open = threading.Event()

    def wait_here(self) -> None:
        if self.armed:
            self.reached.set()
            assert self._open.wait(30), "the test never opened the gate"

    def open(self) -> None:
        self._open.set()


class _GatedReader(MemoryOffsetReader):
    """Offsets whose look-up (in the task's start()) waits at ``gate``."""

    def __init__(self, gate: _Gate) -> None:
        super().__init__()
        self.gate = gate

    def offset(self, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        self.gate.wait_here()
        return super().offset(partition)


def _sessions(conn: psycopg.Connection, app: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (app,)
    ).fetchone()
    return int(row[0]) if row else 0


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _in_thread(call: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def _stop_race_props(cprops: dict[str, str], schema: str, app: str) -> dict[str, str]:
    return {
        **cprops,
        "connection.url": f"{cprops['connection.url']}?ApplicationName={app}",
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "tables": f'"{schema}"."t"',
        "tables.fetched": "true",
        "poll.interval.ms": "600000",
    }


def test_a_stop_during_start_ends_the_task_quietly_and_closes_its_connection(pg) -> None:
    # The runtime asks a task to stop from another thread, possibly while start() still runs
    # (a task revoked or its connector stopped right after the task was started): start()
    # must not fail on a connection provider that stop() closed under it ("Connection
    # provider ... is closed" made the task FAILED), and the connection must end closed.
    conn, cprops, schema = pg
    conn.execute(f'CREATE TABLE "{schema}".t (id int PRIMARY KEY, v text)')
    app = "kc-stop-start-" + uuid.uuid4().hex[:8]
    props = _stop_race_props(cprops, schema, app)
    gate = _Gate()
    gate.armed = True
    task = JdbcSourceTask()
    task.initialize(FakeSourceTaskContext(props, _GatedReader(gate)))
    thread, errors = _in_thread(lambda: task.start(props))
    assert gate.reached.wait(30), "start() never read its offsets"
    task.stop()  # start() is between reading its offsets and connecting
    gate.open()
    thread.join(30)
    assert not thread.is_alive() and errors == []
    assert task.poll() is None
    _until(lambda: _sessions(conn, app) == 0, "the task's connection to close")


def test_a_stop_during_poll_closes_the_connection_when_the_poll_returns(pg) -> None:
    # stop() finds poll() holding the task's lock and only signals; the runtime polls no
    # more after that, so the poll itself must close the connection on its way out.
    conn, cprops, schema = pg
    conn.execute(f'CREATE TABLE "{schema}".t (id int PRIMARY KEY, v text)')
    conn.execute(f"INSERT INTO \"{schema}\".t VALUES (1, 'a')")
    app = "kc-stop-poll-" + uuid.uuid4().hex[:8]
    props = _stop_race_props(cprops, schema, app)
    gate = _Gate()

    def clock() -> float:
        gate.wait_here()
        return time.monotonic()

    task = JdbcSourceTask(clock=clock)
    task.initialize(FakeSourceTaskContext(props, MemoryOffsetReader()))
    task.start(props)
    assert [r.value.get("v") for r in _drain(task, 1)] == ["a"]
    assert _sessions(conn, app) == 1
    gate.armed = True
    thread, errors = _in_thread(task.poll)
    assert gate.reached.wait(30), "poll() never started"
    task.stop()  # poll() holds the task's lock
    gate.open()
    thread.join(30)
    assert not thread.is_alive() and errors == []
    _until(lambda: _sessions(conn, app) == 0, "the task's connection to close")


def test_incrementing_autodetects_serial_and_rejects_nullable(pg) -> None:
    conn, cprops, schema = pg
    conn.execute(f'CREATE TABLE "{schema}".a (pk bigserial PRIMARY KEY, v int)')
    conn.execute(f'INSERT INTO "{schema}".a (v) VALUES (10), (20)')
    props = {
        **cprops,
        "mode": "incrementing",
        "tables": f'"{schema}"."a"',
        "tables.fetched": "true",
    }
    task = _task(props)
    recs = _drain(task, 1)
    task.stop()
    assert [r.source_offset for r in recs] == [{"incrementing": 1}, {"incrementing": 2}]
    task = _task({**props, "incrementing.column.name": "v"})
    with pytest.raises(Exception, match="nullable"):
        task.poll()
    task.stop()


def test_streams_large_table_in_bounded_batches(pg) -> None:
    conn, cprops, schema = pg
    conn.execute(f'CREATE TABLE "{schema}".big AS SELECT g AS id, md5(g::text) AS h '
                 "FROM generate_series(1, 200000) g")  # fmt: skip
    props = {**cprops, "mode": "bulk", "tables": f'"{schema}"."big"', "tables.fetched": "true",
             "batch.max.rows": "5000", "poll.interval.ms": "600000"}  # fmt: skip
    task = _task(props)
    sizes, seen, last = [], 0, 0
    while seen < 200000:
        batch = task.poll() or []
        assert batch, "the result set must resume on the next poll"
        sizes.append(len(batch))
        seen += len(batch)
        last = batch[-1].value.get("id")
    task.stop()
    assert max(sizes) == 5000 and len(sizes) == 40 and last == 200000


def test_source_connector_and_task_do_not_import_sqlalchemy(pg) -> None:
    """The source queries through psycopg alone, like the sink: a task process's first query
    does not wait for SQLAlchemy's import (a fresh interpreter, as a task process is)."""
    conn, cprops, schema = pg
    conn.execute(f'CREATE TABLE "{schema}".t (id serial PRIMARY KEY, v text)')
    conn.execute(f"""INSERT INTO "{schema}".t (v) VALUES ('a'), ('b')""")
    props = {**cprops, "mode": "incrementing", "incrementing.column.name": "id",
             "tables": f'"{schema}"."t"', "tables.fetched": "true"}  # fmt: skip
    script = f"""
import sys
from kconnect.connectors.jdbc.source.source_connector import JdbcSourceConnector
from tests.integration.test_jdbc_source_postgres import _drain, _task
from kconnect.testing.fakes import FakeConnectorContext
c = JdbcSourceConnector()
c.initialize(FakeConnectorContext())
c.start({props!r})
c.stop()
task = _task({props!r})
print(len(_drain(task, 3)))
task.stop()
print(sorted(m for m in sys.modules if m.split(".")[0] == "sqlalchemy"))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["2", "[]"], out.stdout + out.stderr
