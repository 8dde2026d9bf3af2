"""The snapshot reads of the native Debezium PostgreSQL source against the real PostgreSQL: the
rows as of the slot's exported snapshot (not the changes committed after it), every column as
PostgreSQL's text output with the session settings the parsers expect, NULLs as None."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from kconnect.connectors.debezium.postgres.catalog import read_table
from kconnect.connectors.debezium.postgres.publication import TableId
from kconnect.connectors.debezium.postgres.replication.connection import ReplicationConnection
from kconnect.connectors.debezium.postgres.snapshot_reader import (
    SnapshotIsolation,
    begin_snapshot,
    read_rows,
    snapshot_position,
)
from kconnect.testing.debezium import drop_replication

pytestmark = pytest.mark.postgres


@pytest.fixture
def table(pg_dsn: str) -> Iterator[TableId]:
    t = TableId("public", f"snap_{uuid.uuid4().hex[:8]}")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {t.quoted()} (id int PRIMARY KEY, code char(4), note text, "
            "amount numeric(8,2), at timestamptz, span interval, raw bytea, tags text[], "
            "ratio float8)"
        )
        conn.execute(
            f"INSERT INTO {t.quoted()} VALUES "
            "(1, 'ab', E'tab\\there \\\\ ünï', 12.50, '2024-03-01 12:00:00.5+02', "
            "'1 year 2 mons 3 days 04:05:06.78', '\\x00ff', '{a,\"b c\",NULL}', 0.1), "
            "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
        )
    try:
        yield t
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP TABLE {t.quoted()}")


def test_rows_as_of_the_exported_snapshot_in_text(pg_dsn: str, table: TableId) -> None:
    slot = f"snap_{uuid.uuid4().hex[:8]}"
    repl = ReplicationConnection.connect(pg_dsn)
    try:
        created = repl.create_slot(slot, export_snapshot=True)
        with psycopg.connect(pg_dsn, autocommit=True) as other:
            other.execute(f"INSERT INTO {table.quoted()} (id) VALUES (3)")
            other.execute(f"UPDATE {table.quoted()} SET note = 'changed' WHERE id = 1")
        with psycopg.connect(pg_dsn) as conn:
            begin_snapshot(conn, created.snapshot_name)
            position = snapshot_position(conn, created.consistent_point)
            described = read_table(conn, table)
            rows = sorted(read_rows(conn, described), key=lambda r: int(r[0] or 0))
            some = list(read_rows(conn, described, ["note", "id"]))
            conn.rollback()
    finally:
        repl.close()
        drop_replication(pg_dsn, [slot], [])

    assert position.lsn == created.consistent_point and position.tx_id > 0
    assert position.started_us > 1_700_000_000 * 10**6
    assert rows == [
        (
            "1", "ab  ", "tab\there \\ ünï", "12.50", "2024-03-01 10:00:00.5+00",
            "1 year 2 mons 3 days 04:05:06.78", "\\x00ff", '{a,"b c",NULL}', "0.1",
        ),
        ("2", None, None, None, None, None, None, None, None),
    ]  # fmt: skip
    assert sorted(some, key=lambda r: r[1] or "") == [("tab\there \\ ünï", "1"), (None, "2")]


def test_without_a_new_slot_the_snapshot_is_isolated_as_configured(
    pg_dsn: str, table: TableId
) -> None:
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        begin_snapshot(conn, None, SnapshotIsolation.REPEATABLE_READ)
        level: Any = conn.execute("SHOW transaction_isolation").fetchone()
        position = snapshot_position(conn, None)
        first = list(read_rows(conn, read_table(conn, table), ["id"]))
        with psycopg.connect(pg_dsn, autocommit=True) as other:
            other.execute(f"INSERT INTO {table.quoted()} (id) VALUES (4)")
        again = list(read_rows(conn, read_table(conn, table), ["id"]))
        conn.rollback()
        conn.execute(SnapshotIsolation.SERIALIZABLE.statement())
        serializable = conn.execute(
            "SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')"
        ).fetchone()
        conn.rollback()
    assert level == ("repeatable read",)
    assert position.lsn > 0
    assert sorted(first) == sorted(again) == [("1",), ("2",)]
    assert serializable == ("serializable", "on")
