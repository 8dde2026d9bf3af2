"""Debezium's JDBC sink connector (the real jar) run by kconnect beside Kafka Connect 4.1.2.

Debezium's PostgreSQL connector captures a table of varied columns (snapshot, then inserts,
updates and deletes) into a topic; Debezium's JDBC sink connector, given the same config on a
standalone kconnect worker (in its Java plugin host) and on a standalone Kafka Connect worker,
writes that topic into two PostgreSQL tables (upserts by the record key, deletes applied,
tables created by the sink). Both tables must hold the same rows, and the rows of the source
table.

Debezium's JDBC sink is taken at :data:`~kconnect.testing.java.DEBEZIUM_JDBC_SINK_VERSION`:
3.6.1.Final of that one artifact is not served by this machine's Maven mirror.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from kconnect.kafka.tools.admin_ping import create_topic
from kconnect.testing.debezium import (
    ROWS,
    apply_changes,
    create_varied_table,
    drop_replication,
    postgres_connector_config,
)
from kconnect.testing.java import java_plugin_path
from kconnect.testing.java_worker import (
    connector_running,
    eventually,
    put_connector,
    standalone_pair,
)

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.java, pytest.mark.slow]

JDBC_SINK = "io.debezium.connector.jdbc.JdbcSinkConnector"


@pytest.fixture(scope="module")
def workers(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[tuple[str, str]]:
    """(Kafka Connect's URL, kconnect's URL) on a plugin.path with both Debezium connectors."""
    plugins = java_plugin_path(tmp_path_factory.mktemp("plugin-path"), jdbc_sink=True)
    with standalone_pair(kafka_bootstrap, tmp_path_factory.mktemp("jdbc-sink-workers"), plugins,
                         settings={"offset.flush.interval.ms": "1000"}) as urls:  # fmt: skip
        yield urls


def _sink(pg_dsn: str, topic: str, table: str) -> dict[str, str]:
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    return {
        "connector.class": JDBC_SINK,
        "tasks.max": "1",
        "topics": topic,
        "connection.url": f"jdbc:postgresql://{info.get('host', '127.0.0.1')}:"
        f"{info.get('port', '5432')}/{info['dbname']}",
        "connection.username": str(info["user"]),
        "connection.password": str(info["password"]),
        "insert.mode": "upsert",
        "primary.key.mode": "record_key",
        "delete.enabled": "true",
        "schema.evolution": "basic",
        "collection.name.format": table,
    }


def _rows(pg_dsn: str, table: str, columns: str = "*") -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()
        if exists is None or exists[0] is None:
            return []
        return [tuple(r) for r in conn.execute(f"SELECT {columns} FROM {table} ORDER BY id")]


def test_debezium_jdbc_sink_writes_the_rows_kafka_connect_writes(
    workers: tuple[str, str], pg_dsn: str, kafka_bootstrap: str
) -> None:
    java_url, kc_url = workers
    source = create_varied_table(pg_dsn)
    prefix = f"dbz{uuid.uuid4().hex[:6]}"
    slot = f"{prefix}_src"
    topic = f"{prefix}.public.{source}"
    targets = {"java": f"{source}_java", "kc": f"{source}_kc"}
    # The topic exists before the sinks subscribe: Java's consumer would otherwise find it
    # only at its next metadata refresh (metadata.max.age.ms, 5 minutes).
    create_topic(kafka_bootstrap, topic, partitions=1)
    put_connector(
        kc_url, f"{prefix}-source", postgres_connector_config(pg_dsn, source, prefix, slot)
    )
    # each sink its own name, so its own consumer group (connect-<name>)
    put_connector(java_url, f"{prefix}-sink-java", _sink(pg_dsn, topic, targets["java"]))
    put_connector(kc_url, f"{prefix}-sink-kc", _sink(pg_dsn, topic, targets["kc"]))
    wanted = "id, name, amount, qty, big, active, note"
    try:
        for url, name in ((kc_url, f"{prefix}-source"), (kc_url, f"{prefix}-sink-kc"),
                          (java_url, f"{prefix}-sink-java")):  # fmt: skip
            eventually(lambda u=url, n=name: connector_running(u, n), 120, f"{name} running")
        counts: dict[str, int] = {}

        def snapshots_written() -> bool:
            counts.update({t: len(_rows(pg_dsn, t, "id")) for t in targets.values()})
            return set(counts.values()) == {ROWS}

        try:
            eventually(snapshots_written, 180, "both snapshots")
        except AssertionError as e:
            raise AssertionError(f"rows written: {counts}") from e
        apply_changes(pg_dsn, source)
        expected = _rows(pg_dsn, source, wanted)
        for table in targets.values():
            eventually(
                lambda t=table: _rows(pg_dsn, t, wanted) == expected, 120, f"{table} changes"
            )
        # every column as the sink wrote it (types it chose included): the same on both
        assert _rows(pg_dsn, targets["kc"]) == _rows(pg_dsn, targets["java"])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            columns = {
                table: conn.execute(
                    "SELECT column_name, data_type FROM information_schema.columns "
                    "WHERE table_name = %s ORDER BY ordinal_position",
                    (table,),
                ).fetchall()
                for table in targets.values()
            }
        assert columns[targets["kc"]] == columns[targets["java"]]
    finally:
        httpx.delete(f"{kc_url}/connectors/{prefix}-source", timeout=60)
        httpx.delete(f"{kc_url}/connectors/{prefix}-sink-kc", timeout=60)
        httpx.delete(f"{java_url}/connectors/{prefix}-sink-java", timeout=60)
        drop_replication(pg_dsn, [slot], [f"{slot}_pub"])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            for table in targets.values():
                conn.execute(f"DROP TABLE IF EXISTS {table}")
