"""JdbcSinkTask against SQLite temp files (nothing running), and the sink's config rules."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kconnect.api import (
    ConfigException,
    ConnectException,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
)
from kconnect.connectors.jdbc.sink.buffered_records import BufferedRecords, RowPlan
from kconnect.connectors.jdbc.sink.sink_config import CONFIG_DEF, JdbcSinkConfig
from kconnect.connectors.jdbc.sink.sink_connector import JdbcSinkConnector
from kconnect.connectors.jdbc.sink.sink_task import JdbcSinkTask
from kconnect.testing.fakes import FakeSinkTaskContext, RecordingErrantReporter

VALUE = (
    SchemaBuilder.struct()
    .field("id", Schema.INT32_SCHEMA)
    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)


def make_task(
    path: Path, reporter: RecordingErrantReporter | None = None, **props: str
) -> JdbcSinkTask:
    task = JdbcSinkTask()
    task.initialize(FakeSinkTaskContext(reporter))
    task.start({"connection.url": f"jdbc:sqlite:{path}", "topics": "t", **props})
    return task


def rec(offset: int, id_: int, name: str | None) -> SinkRecord:
    return SinkRecord(
        "orders", 0, None, None, VALUE, Struct(VALUE).put("id", id_).put("name", name), offset
    )


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_auto_create_and_insert(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    task = make_task(db, **{"auto.create": "true"})
    task.put([rec(i, i, f"n{i}") for i in range(5)])
    task.stop()
    assert rows(db, "SELECT id, name FROM orders ORDER BY id") == [(i, f"n{i}") for i in range(5)]
    assert [r[1:3] for r in rows(db, "PRAGMA table_info(orders)")] == [
        ("id", "INTEGER"),
        ("name", "TEXT"),
    ]


def test_upsert_twice_no_duplicates(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    props = {
        "auto.create": "true",
        "insert.mode": "upsert",
        "pk.mode": "record_value",
        "pk.fields": "id",
    }
    task = make_task(db, **props)
    task.put([rec(i, i, "a") for i in range(5)])
    task.put([rec(i, i, "b") for i in range(5)])
    task.stop()
    assert rows(db, "SELECT count(*), min(name), max(name) FROM orders") == [(5, "b", "b")]


def test_not_null_violation_goes_to_reporter_others_land(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    reporter = RecordingErrantReporter()
    task = make_task(db, reporter)
    batch = [rec(0, 1, "a"), rec(1, 2, None), rec(2, 3, "c")]
    task.put(batch)
    task.stop()
    assert rows(db, "SELECT id FROM orders ORDER BY id") == [(1,), (3,)]
    assert [r for r, _ in reporter.reported] == [batch[1]]
    assert "NOT NULL" in str(reporter.reported[0][1])


def test_schemaless_dicts_and_missing_column(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER, name TEXT)")
    task = make_task(db)
    task.put([SinkRecord("orders", 0, None, None, None, {"id": 1, "name": "x"}, 0)])
    with pytest.raises(ConnectException, match=r"no column 'other'.*offset 1"):
        task.put([SinkRecord("orders", 0, None, None, None, {"id": 2, "other": 1}, 1)])
    task.stop()
    assert rows(db, "SELECT * FROM orders") == [(1, "x")]


def test_tombstone_without_delete_enabled_fails(tmp_path: Path) -> None:
    task = make_task(tmp_path / "e.db", **{"auto.create": "true"})
    with pytest.raises(ConnectException, match=r"delete\.enabled is false"):
        task.put([rec(0, 1, "a"), SinkRecord("orders", 0, None, "k", None, None, 1)])
    task.stop()


def test_delete_needs_record_key() -> None:
    with pytest.raises(ConfigException, match="Primary key mode must be 'record_key'"):
        JdbcSinkConfig({"connection.url": "jdbc:sqlite:x", "delete.enabled": "true"})
    result = JdbcSinkConnector().validate(
        {"connection.url": "jdbc:sqlite:x", "delete.enabled": "true"}
    )
    errors = {v.name: v.error_messages for v in result.config_values()}
    assert errors["delete.enabled"] == [
        "Primary key mode must be 'record_key' when delete support is enabled"
    ]


def test_config_defaults_match_confluent() -> None:
    d = CONFIG_DEF.default_values()
    assert (
        d["insert.mode"],
        d["pk.mode"],
        d["batch.size"],
        d["max.retries"],
        d["retry.backoff.ms"],
    ) == ("insert", "none", 3000, 10, 3000)
    assert d["table.name.format"] == "${topic}" and d["quote.sql.identifiers"] == "always"
    c = JdbcSinkConfig(
        {"connection.url": "jdbc:sqlite:x", "pk.mode": "KAFKA", "insert.mode": "UPSERT"}
    )
    assert c.kafka_pk_names() == ("__connect_topic", "__connect_partition", "__connect_offset")
    with pytest.raises(ConfigException, match=r"insert\.mode"):
        JdbcSinkConfig({"connection.url": "jdbc:sqlite:x", "insert.mode": "merge"})


def test_puts_alternating_schemas_reuse_and_remake_row_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table's row plan is kept for the next put of the same schemas and remade when the
    schemas change (the table evolving on the way), so every put lands its own columns."""
    db = tmp_path / "evolve.db"
    wider = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .field("city", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )

    def wide(offset: int, id_: int) -> SinkRecord:
        value = Struct(wider).put("id", id_).put("name", f"w{id_}").put("city", "Osaka")
        return SinkRecord("orders", 0, None, None, wider, value, offset)

    made: list[object] = []
    make_plan = BufferedRecords._make_plan

    def counting(self: BufferedRecords, record: SinkRecord) -> RowPlan:
        made.append(record.value_schema)
        return make_plan(self, record)

    monkeypatch.setattr(BufferedRecords, "_make_plan", counting)
    task = make_task(db, **{"auto.create": "true", "auto.evolve": "true"})
    task.put([rec(0, 0, "a"), rec(1, 1, "b")])
    task.put([rec(2, 2, "c")])  # same schema: the plan of the first put
    task.put([wide(3, 3), wide(4, 4)])  # a new column: a new plan, the table evolves
    task.put([rec(5, 5, "d")])  # the first schema again
    task.put([wide(6, 6)])
    assert made == [VALUE, wider, VALUE, wider]  # the second put reused the first's plan
    writer = task.writer
    assert writer is not None
    # the last plan made for the table is the one kept
    table = writer.destination("orders")
    assert writer.known_plan(table, None, wider) is not None
    assert writer.known_plan(table, None, VALUE) is None
    task.stop()
    assert rows(db, "SELECT id, name, city FROM orders ORDER BY id") == [
        (0, "a", None),
        (1, "b", None),
        (2, "c", None),
        (3, "w3", "Osaka"),
        (4, "w4", "Osaka"),
        (5, "d", None),
        (6, "w6", "Osaka"),
    ]
