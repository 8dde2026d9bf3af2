"""Debezium's PostgreSQL connector (the real jar, :data:`~kconnect.testing.java.DEBEZIUM_VERSION`)
on the test PostgreSQL, as the side-by-side tests run it on kconnect and on Kafka Connect.

- :func:`create_varied_table` -- a fresh table of :data:`ROWS` rows of varied types to
  capture; :func:`apply_changes` -- inserts, updates and deletes on it;
- :func:`postgres_connector_config` -- the connector's config for one table, with a
  replication slot and publication of its own;
- :func:`drop_replication` -- those slots and publications dropped once their connector is
  gone; :func:`confirmed_flush_lsn` -- where a slot stands.

Needs psycopg (``kconnect[jdbc]``), imported on first use.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence

__all__ = [
    "POSTGRES_CONNECTOR",
    "ROWS",
    "apply_changes",
    "confirmed_flush_lsn",
    "create_varied_table",
    "drop_replication",
    "end_offset",
    "postgres_connector_config",
    "without_run_fields",
]

POSTGRES_CONNECTOR = "io.debezium.connector.postgresql.PostgresConnector"
#: The rows :func:`create_varied_table` inserts.
ROWS = 300
#: Fields of Debezium's envelope, and of its ``source`` block, that differ between two runs
#: of the same changes.
RUN_FIELDS = ("ts_ms", "ts_us", "ts_ns")
SOURCE_RUN_FIELDS = ("ts_ms", "ts_us", "ts_ns", "txId", "lsn", "xmin", "sequence")


def without_run_fields(payload: object) -> None:
    """Remove, in place, what two runs of the same changes write differently from an
    envelope's JSON payload (:data:`RUN_FIELDS`, and :data:`SOURCE_RUN_FIELDS` of its
    ``source``); anything but a dict is left as it is."""
    if not isinstance(payload, dict):
        return
    for field in RUN_FIELDS:
        payload.pop(field, None)
    source = payload.get("source")
    if isinstance(source, dict):
        for field in SOURCE_RUN_FIELDS:
            source.pop(field, None)


def create_varied_table(pg_dsn: str) -> str:
    """The name of a fresh table of :data:`ROWS` varied rows: unicode, nulls, numerics, times,
    JSON, arrays (``id serial PRIMARY KEY``)."""
    import psycopg

    table = f"dbz_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {table} (id serial PRIMARY KEY, name text NOT NULL, "
            "amount numeric(12,3), price double precision, qty integer, big bigint, "
            "active boolean, born date, seen timestamptz, local_ts timestamp, at_time time, "
            "doc jsonb, tags text[], note text)"
        )
        conn.execute(
            f"INSERT INTO {table} (name, amount, price, qty, big, active, born, seen, "
            "local_ts, at_time, doc, tags, note) "
            "SELECT 'name-' || i || CASE WHEN i % 7 = 0 THEN ' ünïcødé ✓' ELSE '' END, "
            "i * 1.125, i / 3.0, i % 11, i::bigint * 1000000007, i % 2 = 0, "
            "DATE '2000-01-01' + i, TIMESTAMPTZ '2024-03-01 12:00:00+00' + i * INTERVAL '1 min', "
            "TIMESTAMP '2024-03-01 12:00:00.123456' + i * INTERVAL '1 s', "
            "TIME '08:00:00' + i * INTERVAL '1 s', "
            "jsonb_build_object('k', i, 'tags', jsonb_build_array('a', i)), "
            "ARRAY['t' || (i % 5), 'u'], CASE WHEN i % 5 = 0 THEN NULL ELSE 'note ' || i END "
            f"FROM generate_series(1, {ROWS}) i"
        )
    return table


def apply_changes(pg_dsn: str, table: str) -> None:
    """On a :func:`create_varied_table` table: 2 inserts, 3 rows updated (two of them in one
    transaction), rows 5 and 6 deleted."""
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {table} (name, amount, note) VALUES ('new-1', 1.5, NULL), "
            "('new-2 ✓', NULL, 'x')"
        )
        with conn.transaction():
            conn.execute(f"UPDATE {table} SET name = 'updated', amount = 2.25 WHERE id IN (2, 3)")
            conn.execute(f"UPDATE {table} SET note = NULL, tags = NULL WHERE id = 4")
        conn.execute(f"DELETE FROM {table} WHERE id IN (5, 6)")


def postgres_connector_config(
    pg_dsn: str, table: str, prefix: str, slot: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Debezium's PostgreSQL connector (one task, ``pgoutput``) capturing ``public.<table>``
    of the database ``pg_dsn`` names, into ``<prefix>.public.<table>``; its replication slot
    ``slot`` and publication ``<slot>_pub`` (created for that table); decimals as
    ``precise``; then ``extra``."""
    import psycopg

    conninfo = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    return {
        "connector.class": POSTGRES_CONNECTOR,
        "tasks.max": "1",
        "database.hostname": str(conninfo.get("host", "127.0.0.1")),
        "database.port": str(conninfo.get("port", "5432")),
        "database.user": str(conninfo["user"]),
        "database.password": str(conninfo["password"]),
        "database.dbname": str(conninfo["dbname"]),
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "table.include.list": f"public.{table}",
        "slot.name": slot,
        "publication.name": f"{slot}_pub",
        "publication.autocreate.mode": "filtered",
        "decimal.handling.mode": "precise",
        **(extra or {}),
    }


def drop_replication(pg_dsn: str, slots: Sequence[str], publications: Sequence[str]) -> None:
    """Drop replication ``slots`` (each once it is no longer active: up to 30 s) and
    ``publications`` (those that exist)."""
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for slot in slots:
            for _ in range(30):  # a slot stays active until its walsender notices the end
                row = conn.execute(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)
                ).fetchone()
                if row is None:
                    break
                if not row[0]:
                    conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
                    break
                time.sleep(1)
        for publication in publications:
            conn.execute(f"DROP PUBLICATION IF EXISTS {publication}")


def confirmed_flush_lsn(pg_dsn: str, slot: str) -> int:
    """The slot's ``confirmed_flush_lsn`` as an integer (0 when the slot or its position is
    missing)."""
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = %s",
            (slot,),
        ).fetchone()
    if row is None or row[0] is None:
        return 0
    high, _, low = row[0].partition("/")
    return (int(high, 16) << 32) | int(low, 16)


def end_offset(bootstrap: str, topic: str) -> int:
    """The end offset of partition 0 of ``topic`` (0 before the topic exists): how many records
    a one-partition topic holds, asked without reading them."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"e-{uuid.uuid4().hex}"})
    try:
        if topic not in c.list_topics(timeout=10).topics:
            return 0
        return int(c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1])
    finally:
        c.close()


def takeover_worker_props(
    bootstrap: str, group: str, plugin_path: str, *, offset_partitions: int = 2
) -> dict[str, str]:
    """Distributed worker properties for the take-over tests, where a kconnect worker and a
    Kafka Connect worker run the same connector in turn in group ``group``: a free REST port,
    offsets flushed every 500 ms, short session and rebalance delays, ``plugin_path``."""
    from kconnect.testing.java_worker import distributed_props
    from kconnect.testing.ports import free_port

    return distributed_props(bootstrap, group, {
        "listeners": f"http://127.0.0.1:{free_port()}",
        "offset.storage.partitions": str(offset_partitions),
        "status.storage.partitions": "1",
        "offset.flush.interval.ms": "500",
        "session.timeout.ms": "6000",
        "heartbeat.interval.ms": "1000",
        "scheduled.rebalance.max.delay.ms": "2000",
        "plugin.path": plugin_path,
    })  # fmt: skip
