"""The native Debezium PostgreSQL source when its worker is killed (SIGKILL, no shutdown):

* mid-stream, on a distributed worker with ``exactly.once.source.support=enabled`` and the
  connector's ``exactly.once.support=required``: a new worker process of the same group takes
  the connector over from the committed offsets and a ``read_committed`` consumer sees every
  change exactly once;
* mid-snapshot: the snapshot is taken again from its start (its offset says it did not finish,
  as Debezium's does) and every row arrives, then the stream goes on.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

from kconnect.testing.debezium import drop_replication, end_offset, postgres_connector_config
from kconnect.testing.exactly_once import committed_records
from kconnect.testing.java_worker import (
    KconnectWorker,
    distributed_props,
    eventually,
    put_connector,
)
from kconnect.testing.ports import free_port

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]


class _Cluster:
    """Distributed kconnect workers of one group, started one after another in ``work``."""

    def __init__(self, bootstrap: str, work: Path, settings: dict[str, str]) -> None:
        self.bootstrap, self.work = bootstrap, work
        self.group = f"dbz-crash-{uuid.uuid4().hex[:8]}"
        self.settings = settings
        self.started = 0

    def start(self) -> KconnectWorker:
        self.started += 1
        port = free_port()
        props = distributed_props(self.bootstrap, self.group, {
            "listeners": f"http://127.0.0.1:{port}",
            "offset.flush.interval.ms": "500",
            "offset.storage.partitions": "1",
            **self.settings,
        })  # fmt: skip
        worker = KconnectWorker(props, self.work, mode="distributed",
                                name=f"worker{self.started}")  # fmt: skip
        worker.wait_ready()
        return worker


@contextmanager
def _table(pg_dsn: str, rows: int) -> Iterator[tuple[str, str, str]]:
    """(table, slot, topic prefix): a table of ``rows`` rows (id, note), dropped at the end
    with the slot and publication."""
    table = f"crash_{uuid.uuid4().hex[:8]}"
    slot, prefix = f"{table}_slot", f"crash{uuid.uuid4().hex[:6]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, note text)")
        if rows:
            conn.execute(f"INSERT INTO {table} SELECT i, repeat('x', 200) || i "
                         f"FROM generate_series(1, {rows}) i")  # fmt: skip
    try:
        yield table, slot, prefix
    finally:
        drop_replication(pg_dsn, [slot], [f"{slot}_pub"])
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {table}")


def _ids(bootstrap: str, topic: str) -> list[int]:
    """The row ids of every committed change record of ``topic`` (tombstones aside)."""
    out = []
    for m in committed_records(bootstrap, topic, idle_s=1.5):
        if m.value():
            payload: dict[str, Any] = json.loads(m.value())["payload"]
            out.append(payload["after"]["id"])
    return out


def _kill(worker: KconnectWorker) -> None:
    """SIGKILL: no task stop, no offset flush, no slot release by the worker."""
    worker.proc.kill()
    worker.proc.wait(30)


def test_a_worker_killed_mid_stream_delivers_each_change_exactly_once(
    pg_dsn: str, kafka_bootstrap: str, tmp_path: Path
) -> None:
    transactions, per_tx = 30, 5000
    with _table(pg_dsn, 10) as (table, slot, prefix):
        # the killed worker's open transaction holds read_committed readers (the next worker
        # reading the offsets topic) until the broker aborts it after transaction.timeout.ms
        cluster = _Cluster(kafka_bootstrap, tmp_path, {
            "exactly.once.source.support": "enabled",
            "producer.transaction.timeout.ms": "10000",
        })  # fmt: skip
        config = postgres_connector_config(pg_dsn, table, prefix, slot, {
            "exactly.once.support": "required",
            "max.batch.size": "500",
        })  # fmt: skip
        topic = f"{prefix}.public.{table}"
        first = cluster.start()
        try:
            put_connector(first.url, "dbz", config)
            eventually(lambda: len(_ids(kafka_bootstrap, topic)) >= 10, 90, "the snapshot")
            with psycopg.connect(pg_dsn, autocommit=True) as conn:
                for start in range(11, 11 + transactions * per_tx, per_tx):
                    conn.execute(f"INSERT INTO {table} SELECT i, 'row ' || i FROM "
                                 f"generate_series({start}, {start + per_tx - 1}) i")  # fmt: skip
            expected = list(range(1, 11 + transactions * per_tx))
            eventually(lambda: end_offset(kafka_bootstrap, topic) > 10 + per_tx, 90,
                       "the stream moving")  # fmt: skip
        finally:
            _kill(first)
        at_kill = len(_ids(kafka_bootstrap, topic))
        second = cluster.start()
        try:
            eventually(lambda: len(_ids(kafka_bootstrap, topic)) >= len(expected), 180,
                       "every change after the take-over")  # fmt: skip
            time.sleep(3)  # anything delivered twice would be committed by now
            got = _ids(kafka_bootstrap, topic)
        finally:
            second.stop()
    assert at_kill < len(expected), "the kill must hit while changes are still streaming"
    assert sorted(got) == expected, "lost or repeated changes"
    assert len(got) == len(set(got))


def test_a_worker_killed_mid_snapshot_takes_the_snapshot_again(
    pg_dsn: str, kafka_bootstrap: str, tmp_path: Path
) -> None:
    rows = 300_000
    with _table(pg_dsn, rows) as (table, slot, prefix):
        cluster = _Cluster(kafka_bootstrap, tmp_path, {})
        config = postgres_connector_config(pg_dsn, table, prefix, slot, {"max.batch.size": "500"})
        topic = f"{prefix}.public.{table}"
        first = cluster.start()
        try:
            put_connector(first.url, "dbz", config)
            eventually(lambda: end_offset(kafka_bootstrap, topic) > 0, 90, "the snapshot moving")
        finally:
            _kill(first)
        at_kill = len(set(_ids(kafka_bootstrap, topic)))
        second = cluster.start()
        try:
            eventually(lambda: set(_ids(kafka_bootstrap, topic)) >= set(range(1, rows + 1)), 180,
                       "every row after the take-over")  # fmt: skip
            with psycopg.connect(pg_dsn, autocommit=True) as conn:
                conn.execute(f"INSERT INTO {table} VALUES ({rows + 1}, 'streamed')")
            eventually(lambda: rows + 1 in _ids(kafka_bootstrap, topic), 90, "the stream after")
        finally:
            second.stop()
    assert at_kill < rows, "the kill must hit mid-snapshot"
