"""The native Debezium PostgreSQL source's snapshot against the real PostgreSQL, end to end below
the task: slot with exported snapshot → catalog → table schemas → ``op=r`` records with their
markers, offsets and headers (the records' exact equality with the jar's is checked against the
captured fixture in the unit tests)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest

from kconnect.connectors.debezium.postgres.catalog import read_table
from kconnect.connectors.debezium.postgres.publication import TableId
from kconnect.connectors.debezium.postgres.replication.connection import ReplicationConnection
from kconnect.connectors.debezium.postgres.snapshot import RecordContext, snapshot_records
from kconnect.connectors.debezium.postgres.snapshot_reader import (
    begin_snapshot,
    read_rows,
    snapshot_position,
)
from kconnect.connectors.debezium.postgres.source_info import SourceInfo
from kconnect.connectors.debezium.postgres.table_schema import build_table_schema
from kconnect.connectors.debezium.postgres.text_values import ValueOptions
from kconnect.converters.json_converter import JsonConverter
from kconnect.testing.debezium import ROWS, create_varied_table, drop_replication

pytestmark = pytest.mark.postgres


def test_snapshot_records_of_two_tables(pg_dsn: str) -> None:
    varied = create_varied_table(pg_dsn)
    small = f"small_{uuid.uuid4().hex[:8]}"
    empty = f"empty_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {small} (k text PRIMARY KEY, n int NOT NULL)")
        conn.execute(f"INSERT INTO {small} VALUES ('a', 1), ('b', 2)")
        conn.execute(f"CREATE TABLE {empty} (k int PRIMARY KEY)")
    slot = f"snap_{uuid.uuid4().hex[:8]}"
    repl = ReplicationConnection.connect(pg_dsn)
    try:
        created = repl.create_slot(slot, export_snapshot=True)
        with psycopg.connect(pg_dsn) as conn:
            begin_snapshot(conn, created.snapshot_name)
            position = snapshot_position(conn, created.consistent_point)
            schemas = [
                build_table_schema(read_table(conn, TableId("public", t)), "native", ValueOptions())
                for t in (small, varied, empty)
            ]
            context = RecordContext("native", "0", "run-1", True, lambda: 1_700_000_000_123_456_789)
            records = list(
                snapshot_records(
                    schemas, lambda ts: read_rows(conn, ts.table), SourceInfo("native", "kcdb"),
                    position, context,
                )
            )  # fmt: skip
            conn.rollback()
    finally:
        repl.close()
        drop_replication(pg_dsn, [slot], [])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            for t in (varied, small, empty):
                conn.execute(f"DROP TABLE {t}")

    assert len(records) == 2 + ROWS
    markers = [r.value.get("source").get("snapshot") for r in records]
    assert markers[:3] == ["first", "last_in_data_collection", "first_in_data_collection"]
    assert set(markers[3:-1]) == {"true"} and markers[-1] == "last"
    assert [r.topic for r in records[:3]] == [f"native.public.{small}"] * 2 + [
        f"native.public.{varied}"
    ]
    assert all(r.value.get("op") == "r" and r.value.get("before") is None for r in records)
    assert records[0].key.get("k") == "a" and records[0].value.get("after").get("n") == 1
    assert records[0].source_partition == {"server": "native"}
    assert list(records[0].source_offset) == [
        "last_snapshot_record", "lsn", "txId", "ts_usec", "snapshot", "snapshot_completed",
    ]  # fmt: skip
    assert records[0].source_offset["last_snapshot_record"] is False
    assert records[-1].source_offset["last_snapshot_record"] is True
    assert records[-1].source_offset["snapshot_completed"] is True
    assert records[0].source_offset["lsn"] == created.consistent_point
    source = records[5].value.get("source")
    assert (source.get("connector"), source.get("name"), source.get("db")) == (
        "postgresql",
        "native",
        "kcdb",
    )
    assert source.get("lsn") == created.consistent_point and source.get("txId") == position.tx_id
    assert [h.key for h in records[0].headers] == [
        "__debezium.context.connectorLogicalName", "__debezium.context.taskId",
        "__debezium.context.connectorName", "__debezium.context.runId",
    ]  # fmt: skip

    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, False)
    text: Any = json.loads(
        converter.from_connect_data(records[3].topic, records[3].value_schema, records[3].value)
    )
    after = text["payload"]["after"]
    assert text["schema"]["name"] == f"native.public.{varied}.Envelope"
    assert after["name"].startswith("name-") and after["tags"][1] == "u"
    assert after["seen"].endswith("Z") and isinstance(after["local_ts"], int)
