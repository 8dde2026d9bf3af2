"""The native Debezium PostgreSQL source's streaming against the real PostgreSQL, below the task:
pgoutput messages from a real slot decoded and turned into Debezium's change records -- inserts,
updates (with and without the old row, and of the key), deletes with tombstones, truncates
skipped by default, unchanged TOASTed values, offsets and source blocks."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from kconnect.api import SourceRecord
from kconnect.connectors.debezium.postgres.catalog import read_table
from kconnect.connectors.debezium.postgres.change_events import ChangeEvents
from kconnect.connectors.debezium.postgres.publication import TableId
from kconnect.connectors.debezium.postgres.replication.connection import (
    ReplicationConnection,
    publications_option,
)
from kconnect.connectors.debezium.postgres.replication.pgoutput import Relation, decode
from kconnect.connectors.debezium.postgres.snapshot import RecordContext
from kconnect.connectors.debezium.postgres.source_info import SourceInfo
from kconnect.connectors.debezium.postgres.table_schema import TableSchema, build_table_schema
from kconnect.connectors.debezium.postgres.text_values import ValueOptions
from kconnect.testing.debezium import drop_replication

pytestmark = pytest.mark.postgres


@pytest.fixture
def names(pg_dsn: str) -> Iterator[tuple[str, str, str]]:
    suffix = uuid.uuid4().hex[:8]
    table, publication, slot = f"strm_{suffix}", f"strm_pub_{suffix}", f"strm_slot_{suffix}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {table} (id int PRIMARY KEY, name text NOT NULL, big text, n int)"
        )
        conn.execute(f"ALTER TABLE {table} ALTER COLUMN big SET STORAGE EXTERNAL")
        conn.execute(f"CREATE PUBLICATION {publication} FOR TABLE {table}")
    try:
        yield table, publication, slot
    finally:
        drop_replication(pg_dsn, [slot], [publication])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {table}")


def _stream(pg_dsn: str, slot: str, publication: str, statements: list[str], commits: int,
            **events: Any) -> list[SourceRecord]:  # fmt: skip
    repl = ReplicationConnection.connect(pg_dsn)
    context = RecordContext("native", "0", "run", True, lambda: 1_700_000_000_000_000_000)
    with psycopg.connect(pg_dsn, autocommit=True) as catalog:

        def describe(relation: Relation) -> TableSchema:
            table = read_table(catalog, TableId(relation.namespace, relation.name))
            table = table.with_columns([c.name for c in relation.columns])
            return build_table_schema(table, "native", ValueOptions())

        changes = ChangeEvents(context, SourceInfo("native", "kcdb"), describe, **events)
        try:
            created = repl.create_slot(slot)
            for statement in statements:
                catalog.execute(statement)
            repl.start(slot, created.consistent_point,
                       {"proto_version": "1", "publication_names": publications_option([publication])})  # fmt: skip
            out: list[SourceRecord] = []
            seen = 0
            for _ in range(200):
                message = repl.read(0.5)
                if message is None:
                    continue
                decoded = decode(message.payload)
                out.extend(changes.on_message(message.wal_start, decoded))
                if message.payload[:1] == b"C":
                    seen += 1
                    if seen == commits:
                        return out
            raise AssertionError(f"saw {seen} of {commits} commits")
        finally:
            repl.close()


def test_inserts_updates_deletes_and_key_changes(pg_dsn: str, names: tuple[str, str, str]) -> None:
    table, publication, slot = names
    big = "x" * 20_000
    records = _stream(
        pg_dsn, slot, publication,
        [
            f"INSERT INTO {table} VALUES (1, 'one', '{big}', 1), (2, 'two', NULL, NULL)",
            f"UPDATE {table} SET n = 5 WHERE id = 1",
            f"UPDATE {table} SET id = 3 WHERE id = 2",
            f"DELETE FROM {table} WHERE id = 1",
            f"TRUNCATE {table}",
        ],
        commits=5,
    )  # fmt: skip
    ops = [(r.value.get("op") if r.value is not None else None, r.key.get("id")) for r in records]
    assert ops == [("c", 1), ("c", 2), ("u", 1), ("d", 2), (None, 2), ("c", 3), ("d", 1), (None, 1)]

    insert, update = records[0], records[2]
    assert insert.value.get("after").get("big") == big and insert.value.get("before") is None
    after = update.value.get("after")
    assert after.get("n") == 5 and after.get("big") == "__debezium_unavailable_value"
    assert update.value.get("before") is None  # REPLICA IDENTITY DEFAULT: no old row

    source = insert.value.get("source")
    assert source.get("snapshot") == "false" and source.get("txId") > 0 and source.get("lsn") > 0
    assert insert.source_offset["lsn"] == insert.source_offset["lsn_proc"] == source.get("lsn")
    assert list(insert.source_offset) == ["lsn_proc", "messageType", "lsn", "txId", "ts_usec"]
    assert list(update.source_offset) == [
        "lsn_proc",
        "messageType",
        "lsn_commit",
        "lsn",
        "txId",
        "ts_usec",
    ]
    assert update.source_offset["messageType"] == "UPDATE"
    assert update.source_offset["lsn_commit"] > insert.source_offset["lsn"]

    key_delete, _, key_create = records[3:6]
    assert next(h.key for h in key_delete.headers) == "__debezium.newkey"
    assert next(iter(key_delete.headers)).value.get("id") == 3
    assert next(h.key for h in key_create.headers) == "__debezium.oldkey"
    assert key_delete.value.get("before").get("name") == ""  # NOT NULL, not in the key: fallback

    delete = records[6]
    assert delete.value.get("before").get("id") == 1 and delete.value.get("before").get("n") is None
    tombstone = records[7]
    assert tombstone.value is None and tombstone.value_schema is None
    assert tombstone.source_offset == delete.source_offset


def test_full_identity_truncates_and_skipped_operations(
    pg_dsn: str, names: tuple[str, str, str]
) -> None:
    table, publication, slot = names
    records = _stream(
        pg_dsn, slot, publication,
        [
            f"ALTER TABLE {table} REPLICA IDENTITY FULL",
            f"INSERT INTO {table} VALUES (1, 'one', 'b', 1)",
            f"UPDATE {table} SET name = 'uno' WHERE id = 1",
            f"DELETE FROM {table} WHERE id = 1",
            f"TRUNCATE {table}",
        ],
        commits=4, skipped_operations=frozenset({"c"}), tombstones_on_delete=False,
    )  # fmt: skip
    assert [r.value.get("op") for r in records] == ["u", "d", "t"]
    assert records[0].value.get("before").get("name") == "one"
    assert records[1].value.get("before").get("big") == "b"
    truncate = records[2]
    assert truncate.key is None and truncate.key_schema is None
    assert truncate.value.get("before") is None and truncate.value.get("after") is None
    assert truncate.source_offset["messageType"] == "TRUNCATE"
