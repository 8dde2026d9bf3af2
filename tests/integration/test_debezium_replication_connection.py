"""The replication connection of the native Debezium PostgreSQL source against the real
PostgreSQL: a slot created with an exported snapshot that another session reads the database
through; the changes committed after it streamed as pgoutput messages with their LSNs; the slot's
``confirmed_flush_lsn`` moved by an acknowledgement and nowhere else; a new stream resuming after
the acknowledged transaction; keepalives answered while nothing happens."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from kconnect.api.errors import ConnectException
from kconnect.connectors.debezium.postgres.replication.connection import (
    ReplicationConnection,
    publications_option,
)
from kconnect.connectors.debezium.postgres.replication.protocol import XLogData
from kconnect.testing.debezium import confirmed_flush_lsn, drop_replication

pytestmark = pytest.mark.postgres


@pytest.fixture
def captured(pg_dsn: str) -> Iterator[tuple[str, str, str]]:
    """A table with two rows, a publication of it and the name for a slot (dropped after)."""
    suffix = uuid.uuid4().hex[:8]
    table, publication, slot = f"repl_{suffix}", f"repl_pub_{suffix}", f"repl_slot_{suffix}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, name text)")
        conn.execute(f"INSERT INTO {table} VALUES (1, 'before'), (2, 'before')")
        conn.execute(f"CREATE PUBLICATION {publication} FOR TABLE {table}")
    try:
        yield table, publication, slot
    finally:
        drop_replication(pg_dsn, [slot], [publication])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {table}")


def _options(publication: str) -> dict[str, str]:
    return {"proto_version": "1", "publication_names": publications_option([publication])}


def _read_until(repl: ReplicationConnection, tag: bytes, limit_s: float = 20.0) -> list[XLogData]:
    got: list[XLogData] = []
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        message = repl.read(0.5)
        if message is not None:
            got.append(message)
            if message.payload[:1] == tag:
                return got
    raise AssertionError(
        f"no {tag!r} message within {limit_s} s; got {[m.payload[:1] for m in got]}"
    )


def _execute(pg_dsn: str, *statements: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def test_a_slot_streams_what_was_committed_after_its_snapshot(
    pg_dsn: str, captured: tuple[str, str, str]
) -> None:
    table, publication, slot = captured
    repl = ReplicationConnection.connect(pg_dsn, settings={"application_name": "kconnect-test"})
    try:
        identity = repl.identify_system()
        created = repl.create_slot(slot, export_snapshot=True)
        assert created.name == slot and created.plugin == "pgoutput"
        assert created.snapshot_name
        assert created.consistent_point >= identity.xlog_position > 0

        # changes after the slot: in the stream, not in the exported snapshot
        _execute(pg_dsn, f"INSERT INTO {table} VALUES (3, 'after')")
        with psycopg.connect(pg_dsn) as reader:
            reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            reader.execute(f"SET TRANSACTION SNAPSHOT '{created.snapshot_name}'")
            seen = reader.execute(f"SELECT id FROM {table} ORDER BY id").fetchall()
            reader.rollback()
        assert seen == [(1,), (2,)]
        _execute(pg_dsn, f"UPDATE {table} SET name = 'ü' WHERE id = 1")

        repl.start(slot, created.consistent_point, _options(publication))
        first = _read_until(repl, b"C")
        second = _read_until(repl, b"C")
    finally:
        repl.close()

    assert [m.payload[:1] for m in first] == [b"B", b"R", b"I", b"C"]
    assert [m.payload[:1] for m in second] == [b"B", b"U", b"C"]
    assert first[1].wal_start == 0  # a Relation message has no LSN of its own
    lsns = [m.wal_start for m in first + second if m.wal_start]
    assert lsns == sorted(lsns) and lsns[0] >= created.consistent_point
    assert "ü".encode() in second[1].payload


def test_the_slot_moves_only_when_acknowledged_and_a_new_stream_resumes_there(
    pg_dsn: str, captured: tuple[str, str, str]
) -> None:
    table, publication, slot = captured
    repl = ReplicationConnection.connect(pg_dsn)
    try:
        created = repl.create_slot(slot)
        _execute(pg_dsn, f"INSERT INTO {table} VALUES (10, 'one')")
        _execute(pg_dsn, f"INSERT INTO {table} VALUES (11, 'two')")
        repl.start(slot, created.consistent_point, _options(publication))
        first = _read_until(repl, b"C")
        _read_until(repl, b"C")
        assert confirmed_flush_lsn(pg_dsn, slot) == created.consistent_point

        commit_lsn = first[-1].wal_start  # the end of the first transaction's commit
        repl.acknowledge(commit_lsn)
        repl.acknowledge(created.consistent_point)  # never backwards
        deadline = time.monotonic() + 10
        while confirmed_flush_lsn(pg_dsn, slot) != commit_lsn and time.monotonic() < deadline:
            repl.read(0.2)
        assert confirmed_flush_lsn(pg_dsn, slot) == commit_lsn
        assert repl.flushed_lsn == commit_lsn
    finally:
        repl.close()

    again = ReplicationConnection.connect(pg_dsn)
    try:
        again.start(slot, 0, _options(publication))  # the server starts at the confirmed LSN
        resumed = _read_until(again, b"C")
    finally:
        again.close()
    inserts = [m for m in resumed if m.payload[:1] == b"I"]
    assert len(inserts) == 1 and b"two" in inserts[0].payload


def test_an_idle_stream_answers_keepalives_and_keeps_its_slot_active(
    pg_dsn: str, captured: tuple[str, str, str]
) -> None:
    _, publication, slot = captured
    # the walsender ends a connection silent for 2 s; it asks for a reply after 1 s, and
    # the connection's own status updates are a minute apart: only the answers keep it alive
    repl = ReplicationConnection.connect(
        pg_dsn, settings={"options": "-c wal_sender_timeout=2s"}, status_interval_s=60.0
    )
    try:
        created = repl.create_slot(slot)
        repl.start(slot, created.consistent_point, _options(publication))
        deadline = time.monotonic() + 5  # > wal_sender_timeout: the server would end it
        while time.monotonic() < deadline:
            assert repl.read(0.5) is None
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            active: Any = conn.execute(
                "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)
            ).fetchone()
        assert active == (True,)
    finally:
        repl.close()


def test_a_stream_ended_by_the_server_says_why(pg_dsn: str, captured: tuple[str, str, str]) -> None:
    _, publication, slot = captured
    repl = ReplicationConnection.connect(pg_dsn)
    try:
        created = repl.create_slot(slot)
        repl.start(slot, created.consistent_point, _options(publication))
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots "
                "WHERE slot_name = %s",
                (slot,),
            )
        with pytest.raises(ConnectException, match="replication stream ended"):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                repl.read(0.5)
    finally:
        repl.close()
