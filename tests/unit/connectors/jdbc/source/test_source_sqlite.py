"""JDBC source against SQLite files (nothing running needed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kconnect.api import ConfigException, Type
from kconnect.connectors.jdbc.source.source_connector import JdbcSourceConnector, group_partitions
from kconnect.connectors.jdbc.source.source_task import JdbcSourceTask
from kconnect.testing.fakes import FakeConnectorContext, FakeSourceTaskContext, MemoryOffsetReader


def _db(tmp_path: Path) -> tuple[str, sqlite3.Connection]:
    path = tmp_path / "src.db"
    conn = sqlite3.connect(path, isolation_level=None)
    return f"jdbc:sqlite:{path}", conn


def _task(props: dict[str, str], reader: MemoryOffsetReader | None = None) -> JdbcSourceTask:
    task = JdbcSourceTask()
    task.initialize(FakeSourceTaskContext(props, reader or MemoryOffsetReader()))
    task.start(props)
    return task


def _drain(task: JdbcSourceTask, polls: int = 5) -> list:
    out = []
    for _ in range(polls):
        batch = task.poll() or []
        out.extend(batch)
    return out


def test_group_partitions_like_kafka() -> None:
    assert group_partitions([1, 2, 3, 4, 5], 2) == [[1, 2, 3], [4, 5]]
    assert group_partitions([1, 2], 2) == [[1], [2]]


def test_connector_splits_tables_and_reports_new_ones(tmp_path: Path) -> None:
    url, db = _db(tmp_path)
    for t in ("a", "b", "c"):
        db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, v TEXT)")
    c = JdbcSourceConnector()
    ctx = FakeConnectorContext()
    c.initialize(ctx)
    c.start({"connection.url": url, "mode": "bulk", "table.poll.interval.ms": "50"})
    try:
        configs = c.task_configs(2)
        assert [cfg["tables"] for cfg in configs] == ["`a`,`b`", "`c`"]
        assert len(c.task_configs(5)) == 3
        db.execute("CREATE TABLE d (id INTEGER PRIMARY KEY)")
        import time

        deadline = time.monotonic() + 5
        while ctx.reconfigurations == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ctx.reconfigurations >= 1
        assert [cfg["tables"] for cfg in c.task_configs(5)][-1] == "`d`"
    finally:
        c.stop()


def test_incrementing_with_autodetected_rowid_and_resume(tmp_path: Path) -> None:
    url, db = _db(tmp_path)
    db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)")
    db.executemany("INSERT INTO users (name, score) VALUES (?, ?)", [("a", 1.5), ("b", None)])
    props = {
        "connection.url": url,
        "mode": "incrementing",
        "tables": "`users`",
        "tables.fetched": "true",
        "topic.prefix": "sq_",
        "poll.interval.ms": "10",
    }
    reader = MemoryOffsetReader()
    task = _task(props, reader)
    recs = _drain(task, 2)
    assert [r.value.get("name") for r in recs] == ["a", "b"]
    r = recs[0]
    assert r.topic == "sq_users" and r.key is None and r.key_schema is None
    assert r.source_partition == {"protocol": "1", "table": "users"}
    assert [x.source_offset for x in recs] == [{"incrementing": 1}, {"incrementing": 2}]
    assert r.value_schema.name == "users"
    assert r.value_schema.field("id").schema.type is Type.INT64
    assert not r.value_schema.field("name").schema.optional
    assert r.value_schema.field("score").schema.type is Type.FLOAT64
    reader.commit(recs)
    task.stop()
    db.execute("INSERT INTO users (name) VALUES ('c')")
    task = _task(props, reader)
    recs = _drain(task, 3)
    task.stop()
    assert [x.value.get("name") for x in recs] == ["c"]


def test_timestamp_mode_conservative_offsets(tmp_path: Path) -> None:
    url, db = _db(tmp_path)
    db.execute("CREATE TABLE ev (name TEXT, ts TIMESTAMP NOT NULL)")
    rows = [("r1", "2024-01-01 00:00:01.000"), ("r2", "2024-01-01 00:00:01.000"),
            ("r3", "2024-01-01 00:00:02.000"), ("r4", "2024-01-01 00:00:02.000"),
            ("r5", "2024-01-01 00:00:03.000")]  # fmt: skip
    db.executemany("INSERT INTO ev VALUES (?, ?)", rows)
    props = {
        "connection.url": url,
        "mode": "timestamp",
        "timestamp.column.name": "ts",
        "tables": "`ev`",
        "tables.fetched": "true",
        "batch.max.rows": "2",
        "poll.interval.ms": "10",
    }
    task = _task(props)
    recs = _drain(task, 4)
    task.stop()
    assert [r.value.get("name") for r in recs] == ["r1", "r2", "r3", "r4", "r5"]
    base = 1704067200000
    got = [r.source_offset.get("timestamp") for r in recs]
    assert recs[0].source_offset == {}  # the starting offset (none stored), as Confluent
    assert got == [None, base + 1000, base + 1000, base + 2000, base + 3000]


def test_query_mode_and_suffix(tmp_path: Path) -> None:
    url, db = _db(tmp_path)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    db.executemany("INSERT INTO t (v) VALUES (?)", [("x",), ("y",), ("z",)])
    c = JdbcSourceConnector()
    c.initialize(FakeConnectorContext())
    props = {
        "connection.url": url,
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "query": "SELECT id, upper(v) AS big FROM t",
        "query.suffix": "LIMIT 2",
        "topic.prefix": "q_topic",
        "poll.interval.ms": "10",
    }
    c.start(props)
    configs = c.task_configs(4)
    c.stop()
    assert len(configs) == 1
    task = _task(configs[0])
    recs = _drain(task, 3)
    task.stop()
    assert [r.value.get("big") for r in recs] == ["X", "Y", "Z"]
    assert recs[0].topic == "q_topic" and recs[0].source_partition == {"query": "query"}
    assert recs[0].value_schema.name is None


def test_quoted_identifiers_with_spaces_and_quotes(tmp_path: Path) -> None:
    url, db = _db(tmp_path)
    db.execute('CREATE TABLE "my `odd"" table" ("the id" INTEGER PRIMARY KEY, "v;x" TEXT)')
    db.execute('INSERT INTO "my `odd"" table" ("v;x") VALUES (\'ok\')')
    c = JdbcSourceConnector()
    c.initialize(FakeConnectorContext())
    c.start({"connection.url": url, "mode": "incrementing", "incrementing.column.name": "the id"})
    cfg = c.task_configs(1)[0]
    c.stop()
    task = _task(cfg)
    recs = _drain(task, 2)
    task.stop()
    assert [r.value.get("v;x") for r in recs] == ["ok"]
    assert recs[0].topic == 'my `odd" table'


def test_task_without_tables_fails_like_confluent(tmp_path: Path) -> None:
    url, _ = _db(tmp_path)
    with pytest.raises(ConfigException, match="not assigned a table nor a query"):
        _task({"connection.url": url, "mode": "bulk", "tables": "", "tables.fetched": "true"})


def test_first_run_is_immediate_whatever_the_clock(tmp_path: Path) -> None:
    url, db = _db(tmp_path)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    db.execute("INSERT INTO t VALUES (1)")
    props = {"connection.url": url, "mode": "bulk", "tables": "`t`", "tables.fetched": "true",
             "poll.interval.ms": "3600000"}  # fmt: skip
    task = JdbcSourceTask(clock=lambda: 0.0)  # a host that booted a moment ago
    task.initialize(FakeSourceTaskContext(props, MemoryOffsetReader()))
    task.start(props)
    assert [r.value.get("id") for r in task.poll() or []] == [1]
    task.stop()
