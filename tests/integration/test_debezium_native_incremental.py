"""Incremental snapshots of the native Debezium PostgreSQL source against the real PostgreSQL: the
task driven in process (poll, acknowledge, commit, as the worker does) while signals are
inserted into its signal table -- chunks in key order between watermarks, rows changed inside
a window taken from the stream instead, a restart resuming after the last delivered key,
``stop-snapshot``, ``pause-snapshot`` / ``resume-snapshot``, keyless and unknown tables
skipped, ``additional-conditions``."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from kconnect.api import SourceRecord
from kconnect.connectors.debezium.common.java_serialization import from_hex
from kconnect.connectors.debezium.postgres import incremental_snapshot
from kconnect.connectors.debezium.postgres.task import PostgresConnectorTask
from kconnect.testing.debezium import drop_replication, postgres_connector_config
from kconnect.testing.fakes import FakeSourceTaskContext, MemoryOffsetReader

pytestmark = pytest.mark.postgres


class _Setup:
    def __init__(self, pg_dsn: str) -> None:
        suffix = uuid.uuid4().hex[:8]
        self.pg_dsn = pg_dsn
        self.table, self.signals, self.other = f"inc_{suffix}", f"sig_{suffix}", f"nokey_{suffix}"
        self.slot = f"inc_slot_{suffix}"
        self.prefix = f"inc{suffix}"
        self.reader = MemoryOffsetReader()

    def config(self, **extra: str) -> dict[str, str]:
        config = postgres_connector_config(self.pg_dsn, self.table, self.prefix, self.slot, {
            "snapshot.mode": "no_data",
            "table.include.list": f"public.{self.table},public.{self.other}",
            "signal.data.collection": f"public.{self.signals}",
            "incremental.snapshot.chunk.size": "3",
            "poll.interval.ms": "100",
        })  # fmt: skip
        return {**config, **extra}

    def sql(self, *statements: str) -> None:
        with psycopg.connect(self.pg_dsn, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def signal(self, kind: str, data: dict[str, Any] | None = None) -> None:
        self.sql(
            f"INSERT INTO {self.signals} VALUES ('{uuid.uuid4()}', '{kind}', "
            f"'{json.dumps(data or {})}')"
        )


@pytest.fixture
def setup(pg_dsn: str) -> Iterator[_Setup]:
    s = _Setup(pg_dsn)
    s.sql(
        f"CREATE TABLE {s.table} (id int PRIMARY KEY, name text, n int)",
        f"INSERT INTO {s.table} SELECT i, 'row ' || i, i * 10 FROM generate_series(1, 10) i",
        f"CREATE TABLE {s.signals} (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, "
        "data varchar(2048))",
        f"CREATE TABLE {s.other} (label text)",
        f"INSERT INTO {s.other} VALUES ('a'), ('b')",
    )
    try:
        yield s
    finally:
        drop_replication(pg_dsn, [s.slot], [f"{s.slot}_pub"])
        s.sql(f"DROP TABLE IF EXISTS {s.table}, {s.signals}, {s.other}")


def _start(setup: _Setup, **extra: str) -> PostgresConnectorTask:
    task = PostgresConnectorTask()
    task.initialize(FakeSourceTaskContext(reader=setup.reader))
    task.start(setup.config(**extra))
    return task


def _poll_until(
    task: PostgresConnectorTask,
    setup: _Setup,
    done: Callable[[list[SourceRecord]], bool],
    seen: list[SourceRecord] | None = None,
    polls: int = 300,
) -> list[SourceRecord]:
    """Poll, acknowledge and commit (as the worker does) until ``done(records so far)``."""
    out = [] if seen is None else seen
    for _ in range(polls):
        if done(out):
            return out
        batch = task.poll() or []
        for record in batch:
            task.commit_record(record, None)
        setup.reader.commit(batch)
        task.commit()
        out.extend(batch)
    raise AssertionError(f"not done after {polls} polls: {[_brief(r) for r in out]}")


def _brief(record: SourceRecord) -> tuple[str, str | None, Any]:
    value = record.value
    op = value.get("op") if value is not None else None
    key = None if record.key is None else dict(record.key.items())
    return record.topic.rsplit(".", 1)[-1], op, key


def _reads(records: list[SourceRecord], setup: _Setup) -> list[int]:
    return [
        r.key.get("id")
        for r in records
        if r.topic.endswith("." + setup.table) and r.value is not None and r.value.get("op") == "r"
    ]


def _streaming(task: PostgresConnectorTask, setup: _Setup) -> None:
    """Poll until the stream runs (an empty poll)."""
    for _ in range(50):
        if not task.poll():
            return
    raise AssertionError("the stream did not start")


def test_an_incremental_snapshot_reads_every_row_in_chunks_between_watermarks(
    setup: _Setup,
) -> None:
    task = _start(setup)
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {"data-collections": ["public\\.inc_.*",
                                                                f"public.{setup.other}",
                                                                "public.missing"]})  # fmt: skip
        records = _poll_until(task, setup, lambda out: len(_reads(out, setup)) == 10)
        _poll_until(task, setup, lambda out: _closes(out, setup) >= 5, records)
    finally:
        task.stop()
    assert _reads(records, setup) == list(range(1, 11))
    reads = [r for r in records if r.topic.endswith(setup.table)]
    source = reads[0].value.get("source")
    assert source.get("snapshot") == "incremental"
    assert source.get("lsn") is None and source.get("txId") is None
    assert json.loads(source.get("sequence"))[1] is not None
    offset = reads[0].source_offset
    assert offset["snapshot"] == "INCREMENTAL" and offset["messageType"] == "INSERT"
    assert from_hex(offset["incremental_snapshot_primary_key"]) == [1]
    assert from_hex(offset["incremental_snapshot_maximum_key"]) == [10]
    collections = json.loads(offset["incremental_snapshot_collections"])
    assert [c["incremental_snapshot_collections_id"] for c in collections] == [
        f"public.{setup.table}",
        f"public.{setup.other}",
        "public.missing",
    ]
    # the watermarks of four chunks of 3, 3, 3 and 1 rows, and the last (empty) window
    watermarks = [r.value.get("after").get("id") for r in records
                  if r.topic.endswith(setup.signals) and r.value.get("after").get("type")
                  .startswith("snapshot-window")]  # fmt: skip
    assert len(watermarks) == 10
    assert all(w.endswith("-open") for w in watermarks[::2])
    assert all(w.endswith("-close") for w in watermarks[1::2])
    data = json.loads(records[-1].value.get("after").get("data"))
    assert set(data) == {"openWindowTimestamp", "closeWindowTimestamp"}
    # the snapshot is over: the last offsets no longer carry its state
    assert "incremental_snapshot_collections" not in records[-1].source_offset


def _closes(records: list[SourceRecord], setup: _Setup) -> int:
    return sum(
        1
        for r in records
        if r.topic.endswith(setup.signals) and r.value is not None
        and str(r.value.get("after").get("id")).endswith("-close")
    )  # fmt: skip


def test_a_row_changed_inside_the_window_comes_from_the_stream_not_the_chunk(
    setup: _Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunk = incremental_snapshot.IncrementalSnapshot._chunk
    changed: list[int] = []

    def chunk_then_change(self: Any, *args: Any) -> Any:
        rows = chunk(self, *args)
        if not changed:  # committed after the open watermark, before the close one
            changed.append(2)
            setup.sql(f"UPDATE {setup.table} SET name = 'changed' WHERE id = 2")
        return rows

    monkeypatch.setattr(incremental_snapshot.IncrementalSnapshot, "_chunk", chunk_then_change)
    task = _start(setup)
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {"data-collections": [f"public.{setup.table}"]})
        records = _poll_until(task, setup, lambda out: len(_reads(out, setup)) == 9)
        _poll_until(task, setup, lambda out: _closes(out, setup) >= 5, records)
    finally:
        task.stop()
    assert _reads(records, setup) == [1, 3, 4, 5, 6, 7, 8, 9, 10]
    updates = [r for r in records if r.topic.endswith(setup.table) and r.value.get("op") == "u"]
    assert [u.key.get("id") for u in updates] == [2]
    assert updates[0].value.get("after").get("name") == "changed"


def test_a_restarted_task_goes_on_after_the_last_delivered_key(setup: _Setup) -> None:
    task = _start(setup)
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {"data-collections": [f"public.{setup.table}"]})
        first = _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 3)
    finally:
        task.stop()
    assert _reads(first, setup) == [1, 2, 3]
    task = _start(setup)
    try:
        second = _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 7)
    finally:
        task.stop()
    assert _reads(second, setup) == [4, 5, 6, 7, 8, 9, 10]


def _quiet(task: PostgresConnectorTask, records: list[SourceRecord], polls: int = 10) -> None:
    for _ in range(polls):
        records.extend(task.poll() or [])


def test_pause_holds_the_next_chunks_until_resume(setup: _Setup) -> None:
    task = _start(setup, **{"incremental.snapshot.chunk.size": "2"})
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {"data-collections": [f"public.{setup.table}"]})
        records = _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 2)
        # the second chunk's watermarks were written before the pause, the third's after it
        # (when the second closed): both are emitted, then nothing until resumed
        setup.signal("pause-snapshot")
        _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 6, records)
        _quiet(task, records)
        assert _reads(records, setup) == [1, 2, 3, 4, 5, 6]
        setup.signal("resume-snapshot")
        _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 10, records)
    finally:
        task.stop()
    assert _reads(records, setup) == list(range(1, 11))


def test_stop_ends_the_snapshot_after_the_chunk_in_flight(setup: _Setup) -> None:
    task = _start(setup, **{"incremental.snapshot.chunk.size": "2"})
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {"data-collections": [f"public.{setup.table}"]})
        setup.signal("stop-snapshot", {"data-collections": [f"public.{setup.table}"]})
        records = _poll_until(task, setup, lambda out: _closes(out, setup) >= 1)
        _quiet(task, records)
    finally:
        task.stop()
    assert _reads(records, setup) == [1, 2]
    assert _closes(records, setup) == 1  # the stop leaves no window after the first chunk
    assert "incremental_snapshot_collections" not in records[-1].source_offset


def test_additional_conditions_filter_the_rows(setup: _Setup) -> None:
    task = _start(setup)
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {
            "data-collections": [f"public.{setup.table}"],
            "additional-conditions": [{"data-collection": f"PUBLIC.{setup.table.upper()}",
                                       "filter": "n >= 50 AND n <> 70"}],
        })  # fmt: skip
        records = _poll_until(task, setup, lambda out: _closes(out, setup) >= 3)
    finally:
        task.stop()
    assert _reads(records, setup) == [5, 6, 8, 9, 10]
    assert (
        json.loads(records[0].source_offset["incremental_snapshot_collections"])[0][
            "incremental_snapshot_collections_additional_condition"
        ]
        == "(n >= 50 AND n <> 70)"
    )


def test_a_table_whose_sql_fails_is_skipped_and_the_next_is_read(setup: _Setup) -> None:
    setup.sql(f"CREATE TABLE {setup.other}_k (id int PRIMARY KEY)",
              f"INSERT INTO {setup.other}_k VALUES (1), (2)")  # fmt: skip
    try:
        task = _start(setup, **{"table.include.list": f"public.{setup.table},"
                                                      f"public.{setup.other}_k"})  # fmt: skip
        try:
            _streaming(task, setup)
            setup.signal("execute-snapshot", {
                "data-collections": [f"public.{setup.table}", f"public.{setup.other}_k"],
                "additional-conditions": [{"data-collection": f"public.{setup.table}",
                                           "filter": "no_such_column = 1"}],
            })  # fmt: skip
            records = _poll_until(task, setup, lambda out: any(
                r.topic.endswith(f"{setup.other}_k") for r in out))  # fmt: skip
            _quiet(task, records)
        finally:
            task.stop()
        assert _reads(records, setup) == []
        assert [r.key.get("id") for r in records if r.topic.endswith(f"{setup.other}_k")] == [1, 2]
    finally:
        setup.sql(f"DROP TABLE IF EXISTS {setup.other}_k")


def test_a_connection_lost_mid_chunk_reads_the_chunk_again_and_loses_nothing(
    setup: _Setup, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    chunk = incremental_snapshot.IncrementalSnapshot._chunk
    killed: list[int] = []

    def chunk_after_a_kill(self: Any, conn: Any, *args: Any) -> Any:
        if len(killed) < 1 and self.state.chunk_end is not None:  # the second chunk, once
            pid = conn.info.backend_pid
            killed.append(pid)
            # the task's stream and the chunk's session go, as in a database restart
            setup.sql(
                f"SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots "
                f"WHERE slot_name = '{setup.slot}'",
                f"SELECT pg_terminate_backend({pid})",
            )
        return chunk(self, conn, *args)

    monkeypatch.setattr(incremental_snapshot.IncrementalSnapshot, "_chunk", chunk_after_a_kill)
    task = _start(setup, **{"retriable.restart.connector.wait.ms": "200"})
    try:
        _streaming(task, setup)
        setup.signal("execute-snapshot", {"data-collections": [f"public.{setup.table}"]})
        records = _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 10)
        _quiet(task, records)
    finally:
        task.stop()
    assert killed
    assert "the connection to PostgreSQL was lost" in caplog.text
    assert _reads(records, setup) == list(range(1, 11))


def test_signals_are_read_when_creates_are_skipped(setup: _Setup) -> None:
    task = _start(setup, **{"skipped.operations": "c"})
    try:
        _streaming(task, setup)
        setup.sql(f"INSERT INTO {setup.table} VALUES (11, 'skipped', 0)")
        setup.signal("execute-snapshot", {"data-collections": [f"public.{setup.table}"]})
        records = _poll_until(task, setup, lambda out: len(_reads(out, setup)) >= 11)
        _quiet(task, records)
    finally:
        task.stop()
    assert _reads(records, setup) == list(range(1, 12))
    assert not [r for r in records if r.value is not None and r.value.get("op") == "c"]
