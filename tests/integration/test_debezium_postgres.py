"""Debezium's PostgreSQL connector run natively by kconnect (its own implementation, registered
under Debezium's class name) beside Kafka Connect 4.1.2 running Debezium 3.6.1.Final's jar, with
the same connector JSON and the same table.

* **Equal topics**: a standalone kconnect worker and a standalone Java worker each run the
  connector on the same table (their own replication slot and publication), routed by
  ``RegexRouter`` to their own topic; snapshot, then inserts, updates and deletes (tombstones
  included), with Debezium's envelope and with ``ExtractNewRecordState`` (the Java SMT, run by
  kconnect's plugin host on the native records). Keys, values (schemas included) and header
  names are equal; timestamps, LSNs and transaction ids are set aside.
* **Take-over both ways**: a distributed kconnect worker snapshots and streams natively, is
  killed with SIGKILL; a Java worker joins the same group and internal topics and goes on
  streaming with the jar from kconnect's offsets (no new snapshot, nothing lost); then kconnect
  takes it back natively from the jar's offsets. Pause, resume and restart on kconnect along
  the way.
"""

from __future__ import annotations

import json
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from confluent_kafka import Consumer, TopicPartition

from kconnect.testing.debezium import (
    ROWS,
    apply_changes,
    create_varied_table,
    drop_replication,
    end_offset,
    postgres_connector_config,
    takeover_worker_props,
    without_run_fields,
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
    standalone_pair,
)

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.java, pytest.mark.slow]

#: Fields of Debezium's envelope that differ between two runs of the same changes.
_RUN_HEADERS = ("__debezium.context.runId",)


# -- PostgreSQL ----------------------------------------------------------------------------------


# -- Kafka ---------------------------------------------------------------------------------------


def _records(bootstrap: str, topic: str) -> list[tuple[bytes | None, bytes | None, list[Any]]]:
    """Every record of a one-partition topic, in order: (key, value, headers)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "dbz-" + uuid.uuid4().hex,
                  "enable.auto.commit": False})  # fmt: skip
    try:
        tp = TopicPartition(topic, 0)
        _, high = c.get_watermark_offsets(tp, timeout=10)
        out: list[tuple[bytes | None, bytes | None, list[Any]]] = []
        if high <= 0:
            return out
        c.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 60
        while len(out) < high and time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            out.append((m.key(), m.value(), list(m.headers() or [])))
        return out
    finally:
        c.close()


def _normalized(record: tuple[bytes | None, bytes | None, list[Any]]) -> tuple[Any, Any, Any]:
    """(key, value, headers) with what differs between two runs of the same changes removed."""
    key, value, headers = record
    parsed = None if value is None else json.loads(value)
    payload = None if parsed is None else parsed.get("payload")
    without_run_fields(payload)
    if isinstance(payload, dict):
        for field in ("__source_ts_ms", "__lsn", "__txId"):
            payload.pop(field, None)
    names = [(k, None if k in _RUN_HEADERS else v) for k, v in headers]
    return (None if key is None else json.loads(key), parsed, names)


def _op(value: bytes | None) -> str | None:
    if value is None:
        return None
    payload = json.loads(value)["payload"]
    return payload.get("op") or payload.get("__op")


# -- workers -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return java_plugin_path(tmp_path_factory.mktemp("plugin-path"))


@pytest.fixture(scope="module")
def standalone_workers(
    tmp_path_factory: pytest.TempPathFactory, plugin_path: Path, kafka_bootstrap: str
) -> Iterator[tuple[str, str]]:
    """(Kafka Connect's URL, kconnect's URL): standalone workers on the same plugin.path."""
    with standalone_pair(kafka_bootstrap, tmp_path_factory.mktemp("dbz-workers"), plugin_path,
                         settings={"offset.flush.interval.ms": "1000"}) as urls:  # fmt: skip
        yield urls


UNWRAP = {
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.add.fields": "op,table,source.ts_ms",
    "transforms.unwrap.delete.tombstone.handling.mode": "rewrite-with-tombstone",
}


@pytest.mark.parametrize("chain", ["envelope", "unwrap"])
def test_snapshot_and_streaming_topics_equal_kafka_connects(
    standalone_workers: tuple[str, str], pg_dsn: str, kafka_bootstrap: str, chain: str
) -> None:
    java_url, kc_url = standalone_workers
    table = create_varied_table(pg_dsn)
    prefix = f"dbz{uuid.uuid4().hex[:6]}"
    transforms = ("unwrap," if chain == "unwrap" else "") + "route"
    topics = {runtime: f"{prefix}-{runtime}" for runtime in ("java", "kc")}
    slots = {runtime: f"{prefix}_{runtime}" for runtime in topics}
    for runtime, url in (("java", java_url), ("kc", kc_url)):
        extra = {
            "transforms": transforms,
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": ".*",
            "transforms.route.replacement": topics[runtime],
            **(UNWRAP if chain == "unwrap" else {}),
        }
        put_connector(
            url, prefix, postgres_connector_config(pg_dsn, table, prefix, slots[runtime], extra)
        )
    try:
        for runtime, url in (("java", java_url), ("kc", kc_url)):
            eventually(
                lambda u=url: connector_running(u, prefix), 120, f"{runtime} connector running"
            )
        for topic in topics.values():
            eventually(
                lambda t=topic: end_offset(kafka_bootstrap, t) >= ROWS, 120, f"{topic} snapshot"
            )
        apply_changes(pg_dsn, table)
        # 2 inserts, 3 updated rows, 2 deletes each followed by a tombstone
        expected = ROWS + 2 + 3 + 2 * 2
        for topic in topics.values():
            eventually(
                lambda t=topic: end_offset(kafka_bootstrap, t) >= expected, 120, f"{topic} streamed"
            )
        java_records = _records(kafka_bootstrap, topics["java"])
        kc_records = _records(kafka_bootstrap, topics["kc"])
        assert len(kc_records) == len(java_records) == expected
        ops = [_op(v) for _, v, _ in kc_records]
        assert ops[:ROWS] == ["r"] * ROWS
        assert ops[ROWS:] == ["c", "c", "u", "u", "u", "d", None, "d", None]
        for i, (java_record, kc_record) in enumerate(zip(java_records, kc_records, strict=True)):
            assert _normalized(kc_record) == _normalized(java_record), f"record {i}"
    finally:
        for url in (java_url, kc_url):
            httpx.delete(f"{url}/connectors/{prefix}", timeout=60)
        drop_replication(pg_dsn, list(slots.values()), [f"{s}_pub" for s in slots.values()])


# -- take-over between runtimes ------------------------------------------------------------------


def _distributed_props(bootstrap: str, group: str, plugins: Path) -> dict[str, str]:
    return takeover_worker_props(bootstrap, group, str(plugins))


def _insert(pg_dsn: str, table: str, names: list[str]) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for name in names:
            conn.execute(f"INSERT INTO {table} (name) VALUES (%s)", (name,))


def _names_and_ops(bootstrap: str, topic: str) -> list[tuple[str | None, str | None]]:
    out = []
    for _, value, _ in _records(bootstrap, topic):
        payload = None if value is None else json.loads(value)["payload"]
        after = None if payload is None else payload.get("after")
        out.append(
            (None if after is None else after["name"], None if payload is None else payload["op"])
        )
    return out


def test_kconnect_and_kafka_connect_take_the_connector_over_from_each_other(
    plugin_path: Path, pg_dsn: str, kafka_bootstrap: str, tmp_path: Path
) -> None:
    table = create_varied_table(pg_dsn)
    prefix = f"dbz{uuid.uuid4().hex[:6]}"
    group = f"dbz-group-{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.{table}"
    slot = f"{prefix}_slot"
    config = postgres_connector_config(pg_dsn, table, prefix, slot, {})

    def seen(names: list[str]) -> bool:
        got = {n for n, _ in _names_and_ops(kafka_bootstrap, topic)}
        return set(names) <= got

    workers: list[WorkerProcess] = []
    try:
        kc = KconnectWorker(_distributed_props(kafka_bootstrap, group, plugin_path), tmp_path,
                            mode="distributed", name="kc-1")  # fmt: skip
        workers.append(kc)
        kc.wait_ready()
        put_connector(kc.url, prefix, config)
        eventually(lambda: connector_running(kc.url, prefix), 120, "connector running on kconnect")
        eventually(lambda: end_offset(kafka_bootstrap, topic) >= ROWS, 120, "snapshot on kconnect")
        _insert(pg_dsn, table, ["kc-stream-1", "kc-stream-2"])
        eventually(lambda: seen(["kc-stream-1", "kc-stream-2"]), 60, "streaming on kconnect")

        # pause: nothing moves; resume: it does; restart: no new snapshot
        assert httpx.put(f"{kc.url}/connectors/{prefix}/pause", timeout=30).status_code == 202
        eventually(
            lambda: httpx.get(f"{kc.url}/connectors/{prefix}/status", timeout=10).json()["tasks"][0]["state"] == "PAUSED",
            60, "paused",
        )  # fmt: skip
        _insert(pg_dsn, table, ["while-paused"])
        time.sleep(3)
        assert not seen(["while-paused"])
        assert httpx.put(f"{kc.url}/connectors/{prefix}/resume", timeout=30).status_code == 202
        eventually(lambda: seen(["while-paused"]), 60, "the change made while paused")
        answer = httpx.post(f"{kc.url}/connectors/{prefix}/restart?includeTasks=true", timeout=60)
        assert answer.status_code in (202, 204), answer.text
        eventually(
            lambda: connector_running(kc.url, prefix), 120, "connector running after restart"
        )
        _insert(pg_dsn, table, ["after-restart"])
        eventually(lambda: seen(["after-restart"]), 60, "streaming after the restart")
        time.sleep(2)  # two offset flushes (500 ms) after the last record

        # kill -9 of kconnect: Kafka Connect takes over from kconnect's offsets
        kc.proc.send_signal(signal.SIGKILL)
        kc.proc.wait(30)
        java = JavaWorker(_distributed_props(kafka_bootstrap, group, plugin_path), tmp_path,
                          main_class=DISTRIBUTED, name="java-1")  # fmt: skip
        workers.append(java)
        java.wait_ready()
        eventually(lambda: connector_running(java.url, prefix), 180, "connector running on Java")
        _insert(pg_dsn, table, ["java-stream-1"])
        eventually(lambda: seen(["java-stream-1"]), 120, "streaming on Java")
        time.sleep(2)
        java.stop()

        # and back to kconnect, from Java's offsets
        kc2 = KconnectWorker(_distributed_props(kafka_bootstrap, group, plugin_path), tmp_path,
                             mode="distributed", name="kc-2")  # fmt: skip
        workers.append(kc2)
        kc2.wait_ready()
        eventually(
            lambda: connector_running(kc2.url, prefix), 180, "connector running on kconnect again"
        )
        _insert(pg_dsn, table, ["kc-stream-3"])
        eventually(lambda: seen(["kc-stream-3"]), 120, "streaming on kconnect again")

        records = _names_and_ops(kafka_bootstrap, topic)
        snapshot = [n for n, op in records if op == "r"]
        assert len(snapshot) == ROWS, "one snapshot only"
        streamed = [n for n, op in records if op == "c"]
        wanted = [
            "kc-stream-1",
            "kc-stream-2",
            "while-paused",
            "after-restart",
            "java-stream-1",
            "kc-stream-3",
        ]
        # at least once across a kill -9: the changes in order, a change may repeat
        assert sorted(set(streamed)) == sorted(wanted)
        assert list(dict.fromkeys(streamed)) == wanted
    finally:
        for worker in workers:
            worker.stop()
        drop_replication(pg_dsn, [slot], [f"{slot}_pub"])
