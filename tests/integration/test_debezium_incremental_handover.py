"""An incremental snapshot handed over between kconnect's native Debezium PostgreSQL source and
Debezium 3.6.1's jar on Kafka Connect 4.1.2, both ways, in the middle of the snapshot: the
offsets each writes carry the snapshot's state in Debezium's format (Java-serialized keys, the
queue as JSON), and the other goes on after the last delivered key -- every row read once, in
key order, none read again.

One distributed group, one connector (``snapshot.mode=no_data``, a signal table,
``incremental.snapshot.chunk.size=100`` over 300 rows). An ``execute-snapshot`` signal followed
at once by ``pause-snapshot`` makes the running side deliver exactly one chunk and hold; its
worker is stopped, the other side's worker joins, restores the snapshot from the offsets (the
pause is not kept in them, as in Debezium) and reads the remaining 200 rows.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from confluent_kafka import Consumer, TopicPartition

from kconnect.testing.debezium import (
    ROWS,
    create_varied_table,
    drop_replication,
    end_offset,
    postgres_connector_config,
    takeover_worker_props,
)
from kconnect.testing.java import java_plugin_path
from kconnect.testing.java_worker import (
    DISTRIBUTED,
    JavaWorker,
    KconnectWorker,
    WorkerProcess,
    connector_running,
    eventually,
    put_connector,
)

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.java, pytest.mark.slow]

CHUNK = 100


def _props(bootstrap: str, group: str, plugins: Path) -> dict[str, str]:
    return takeover_worker_props(bootstrap, group, str(plugins), offset_partitions=1)


def _reads(bootstrap: str, topic: str) -> list[int]:
    """The ``after.id`` of every ``op=r`` record of the one-partition ``topic``, in order."""
    high = end_offset(bootstrap, topic)
    if high <= 0:
        return []
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "inc-" + uuid.uuid4().hex,
                  "enable.auto.commit": False})  # fmt: skip
    out: list[int] = []
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        seen, deadline = 0, time.monotonic() + 60
        while seen < high and time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            seen += 1
            value = m.value()
            payload = None if value is None else json.loads(value)["payload"]
            if payload is not None and payload.get("op") == "r":
                out.append(int(payload["after"]["id"]))
    finally:
        c.close()
    return out


def _signal(pg_dsn: str, signals: str, *kinds: tuple[str, dict[str, object]]) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for kind, data in kinds:
            conn.execute(f"INSERT INTO {signals} VALUES (%s, %s, %s)",
                         (str(uuid.uuid4()), kind, json.dumps(data)))  # fmt: skip


def test_an_incremental_snapshot_moves_between_kconnect_and_kafka_connect(
    pg_dsn: str, kafka_bootstrap: str, tmp_path: Path
) -> None:
    plugins = java_plugin_path(tmp_path / "plugins")
    table = create_varied_table(pg_dsn)
    signals = f"{table}_signal"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {signals} (id varchar(42) PRIMARY KEY, "
                     "type varchar(32) NOT NULL, data varchar(2048))")  # fmt: skip
    prefix = f"inc{uuid.uuid4().hex[:6]}"
    group = f"inc-group-{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.{table}"
    slot = f"{prefix}_slot"
    config = postgres_connector_config(pg_dsn, table, prefix, slot, {
        "snapshot.mode": "no_data",
        "signal.data.collection": f"public.{signals}",
        "incremental.snapshot.chunk.size": str(CHUNK),
    })  # fmt: skip
    execute = ("execute-snapshot", {"data-collections": [f"public.{table}"]})
    pause = ("pause-snapshot", {})
    workers: list[WorkerProcess] = []

    def first_chunk_then_hold(expected: list[int]) -> None:
        _signal(pg_dsn, signals, execute, pause)
        eventually(lambda: _reads(kafka_bootstrap, topic) == expected, 120, "the first chunk")
        time.sleep(3)  # held by the pause: nothing more, and offset flushes after the chunk
        assert _reads(kafka_bootstrap, topic) == expected

    try:
        # kconnect reads the first chunk natively and holds ...
        kc = KconnectWorker(_props(kafka_bootstrap, group, plugins), tmp_path,
                            mode="distributed", name="kc-1")  # fmt: skip
        workers.append(kc)
        kc.wait_ready()
        put_connector(kc.url, prefix, config)
        eventually(lambda: connector_running(kc.url, prefix), 120, "running on kconnect")
        time.sleep(2)  # the stream is open
        first_chunk_then_hold(list(range(1, CHUNK + 1)))
        kc.stop()

        # ... Debezium's jar restores the snapshot from kconnect's offsets and finishes it
        java = JavaWorker(_props(kafka_bootstrap, group, plugins), tmp_path,
                          main_class=DISTRIBUTED, name="java-1")  # fmt: skip
        workers.append(java)
        java.wait_ready()
        eventually(lambda: connector_running(java.url, prefix), 180, "running on Java")
        once = list(range(1, ROWS + 1))
        eventually(lambda: _reads(kafka_bootstrap, topic) == once, 180, "Java finishing it")

        # Java takes a second snapshot's first chunk and holds ...
        first_chunk_then_hold(once + list(range(1, CHUNK + 1)))
        java.stop()

        # ... and kconnect restores it from Java's offsets and finishes it
        kc2 = KconnectWorker(_props(kafka_bootstrap, group, plugins), tmp_path,
                             mode="distributed", name="kc-2")  # fmt: skip
        workers.append(kc2)
        kc2.wait_ready()
        eventually(lambda: connector_running(kc2.url, prefix), 180, "running on kconnect again")
        eventually(lambda: _reads(kafka_bootstrap, topic) == once + once, 180,
                   "kconnect finishing it")  # fmt: skip
    finally:
        for worker in workers:
            worker.stop()
        drop_replication(pg_dsn, [slot], [f"{slot}_pub"])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {table}, {signals}")
