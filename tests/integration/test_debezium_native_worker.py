"""The native Debezium PostgreSQL connector run by a real kconnect standalone worker on the real
Kafka and PostgreSQL, by Debezium's class name with no jar anywhere:
the snapshot and the changes reach the topic; the slot moves only after the worker committed
the offsets; a worker stopped and started again goes on from its offsets -- nothing delivered
twice, nothing lost; with ``provide.transaction.metadata`` the BEGIN and END events reach their
topic."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from confluent_kafka import Consumer, TopicPartition

from kconnect.testing.debezium import (
    ROWS,
    confirmed_flush_lsn,
    create_varied_table,
    drop_replication,
    postgres_connector_config,
)
from kconnect.testing.java_worker import KconnectWorker, eventually, put_connector, standalone_props

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]


def _values(bootstrap: str, topic: str) -> list[Any]:
    """Every record value of a one-partition topic, in order, parsed (None for tombstones)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "n-" + uuid.uuid4().hex,
                  "enable.auto.commit": False})  # fmt: skip
    try:
        if topic not in c.list_topics(timeout=10).topics:
            return []
        tp = TopicPartition(topic, 0)
        _, high = c.get_watermark_offsets(tp, timeout=10)
        out: list[Any] = []
        c.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 60
        while len(out) < high and time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            out.append(None if m.value() is None else json.loads(m.value())["payload"])
        return out
    finally:
        c.close()


def _events(values: list[Any]) -> list[tuple[str, Any]]:
    return [
        ("tombstone", None) if v is None
        else (v["op"], (v["after"] or v["before"])["id"])
        for v in values
    ]  # fmt: skip


def test_snapshot_stream_restart_and_slot(
    pg_dsn: str, kafka_bootstrap: str, tmp_path: Path
) -> None:
    table = create_varied_table(pg_dsn)
    prefix = f"native{uuid.uuid4().hex[:6]}"
    slot = f"native_{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.{table}"
    config = postgres_connector_config(pg_dsn, table, prefix, slot,
                                       {"provide.transaction.metadata": "true"})  # fmt: skip
    props = standalone_props(kafka_bootstrap, tmp_path, "native",
                             settings={"offset.flush.interval.ms": "1000"})  # fmt: skip
    try:
        worker = KconnectWorker(props, tmp_path)
        try:
            worker.wait_ready()
            put_connector(worker.url, "native-dbz", config)
            eventually(lambda: len(_values(kafka_bootstrap, topic)) >= ROWS, 90, "the snapshot")
            start = confirmed_flush_lsn(pg_dsn, slot)
            with psycopg.connect(pg_dsn, autocommit=True) as conn:
                conn.execute(f"INSERT INTO {table} (name) VALUES ('streamed-1')")
                conn.execute(f"UPDATE {table} SET name = 'changed' WHERE id = 1")
                conn.execute(f"DELETE FROM {table} WHERE id = 2")
            eventually(lambda: len(_values(kafka_bootstrap, topic)) >= ROWS + 4, 60, "the changes")
            # offsets committed every second; the next poll confirms them to the slot
            with psycopg.connect(pg_dsn, autocommit=True) as conn:
                conn.execute(f"UPDATE {table} SET note = 'nudge' WHERE id = 3")
            eventually(lambda: confirmed_flush_lsn(pg_dsn, slot) > start, 60, "the slot to move")
        finally:
            worker.stop()

        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"INSERT INTO {table} (name) VALUES ('while-stopped')")
        again = KconnectWorker(props, tmp_path, name="native-again")
        try:
            again.wait_ready()
            put_connector(again.url, "native-dbz", config)
            eventually(lambda: any(v and v["after"] and v["after"]["name"] == "while-stopped"
                                   for v in _values(kafka_bootstrap, topic)), 90, "the resumed stream")  # fmt: skip
            time.sleep(3)  # anything delivered twice would be here by now
        finally:
            again.stop()
    finally:
        drop_replication(pg_dsn, [slot], [f"{slot}_pub"])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP TABLE {table}")

    values = _values(kafka_bootstrap, topic)
    events = _events(values)
    assert [op for op, _ in events[:ROWS]] == ["r"] * ROWS
    assert (
        values[0]["source"]["snapshot"] == "first"
        and values[ROWS - 1]["source"]["snapshot"] == "last"
    )
    streamed = events[ROWS:]
    assert streamed == [
        ("c", ROWS + 1),
        ("u", 1),
        ("d", 2),
        ("tombstone", None),
        ("u", 3),
        ("c", ROWS + 2),
    ]
    assert values[-1]["source"]["snapshot"] == "false" and values[-1]["source"]["lsn"] > 0
    # provide.transaction.metadata: a BEGIN and an END per transaction (five, none twice), and
    # each streamed change's block in its transaction
    transactions = _values(kafka_bootstrap, f"{prefix}.transaction")
    assert [t["status"] for t in transactions] == ["BEGIN", "END"] * 5
    assert [t["event_count"] for t in transactions[1::2]] == [1, 1, 1, 1, 1]
    assert all(v["transaction"]["total_order"] == 1 for v in values[ROWS:] if v)
