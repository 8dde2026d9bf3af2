"""Internal topics shared with Apache Kafka Connect 4.1.2 (``ConnectDistributed``), both ways.

One Java worker runs per module on fresh internal topics:

* before it starts, kconnect's stores write a connector (config, task configs + commit,
  target state STOPPED) and its source offsets; the Java worker's REST API must show them;
* through Java's REST API a FileStreamSource connector is created, commits offsets and is
  paused; after Java stops, kconnect's stores must read its config, task configs, target
  state, statuses, session key and offsets, and re-encoding what they read must give back
  Java's exact record bytes.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from confluent_kafka import Consumer, TopicPartition

from kconnect.kafka.tools.admin_ping import delete_topics
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import ConnectorStatus, State, TargetState
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.config_records import (
    decode_target_state,
    encode_commit,
    encode_config,
    encode_session_key,
    encode_target_state,
)
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
from kconnect.runtime.storage.kafka_status_store import (
    KafkaStatusBackingStore,
    decode_status,
    decode_topic_status,
    encode_status,
    encode_topic_status,
)
from kconnect.runtime.storage.offset_utils import serialize_key, serialize_offset
from kconnect.testing.java_worker import CONNECT_VERSION, JavaWorker
from kconnect.testing.java_worker import eventually as _eventually
from kconnect.testing.ports import free_port

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


def _raw_all(bootstrap: str, topic: str) -> list[tuple[bytes, bytes | None]]:
    """Every record in ``topic`` (partition by partition, in offset order)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "raw-" + uuid.uuid4().hex})
    out: list[tuple[bytes, bytes | None]] = []
    for p in c.list_topics(topic, timeout=10).topics[topic].partitions:
        lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
        if hi <= lo:
            continue
        c.assign([TopicPartition(topic, p, lo)])
        got = 0
        while got < hi - lo:
            for m in c.consume(hi - lo - got, 5):
                if m.error() is None:
                    out.append((m.key(), m.value()))
                    got += 1
    c.close()
    return out


def _raw_latest(bootstrap: str, topic: str) -> dict[bytes, bytes | None]:
    """The newest value per key in ``topic``."""
    return dict(_raw_all(bootstrap, topic))


@pytest.fixture(scope="module")
def shared(
    kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """Run the Java worker once: kconnect writes first, Java reads; Java writes, then stops."""
    u = uuid.uuid4().hex[:10]
    work = tmp_path_factory.mktemp("java-interop")
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": f"interop-{u}",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "config.storage.topic": f"interop-configs-{u}",
        "offset.storage.topic": f"interop-offsets-{u}",
        "status.storage.topic": f"interop-status-{u}",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "5",
        "status.storage.partitions": "2",
        "offset.flush.interval.ms": "500",
        "listeners": f"http://127.0.0.1:{free_port()}",
        "rest.advertised.host.name": "127.0.0.1",
    }
    config = DistributedConfig(props)
    out: dict[str, Any] = {"config": config, "bootstrap": kafka_bootstrap, "work": work}

    # --- kconnect writes first ---------------------------------------------------------------
    py_file = work / "py-input.txt"
    py_file.write_text("a\nb\n")
    py_config = {
        "connector.class": FILE_SOURCE,
        "tasks.max": "1",
        "file": str(py_file),
        "topic": f"interop-py-{u}",
        "name": "py-conn",
    }
    py_partition = {"filename": str(py_file)}
    cfg = KafkaConfigBackingStore(config)
    off = KafkaOffsetBackingStore(config)
    cfg.start()
    off.start()
    try:
        cfg.put_connector_config("py-conn", py_config, TargetState.STOPPED)
        cfg.put_task_configs("py-conn", [{**py_config, "task.class": "x"}])
        off.set({serialize_key("py-conn", py_partition): serialize_offset({"position": 4})}).result(
            10
        )
    finally:
        cfg.stop()
        off.stop()
    out["py_config"] = py_config
    out["py_partition"] = py_partition

    # --- Java reads, then writes ------------------------------------------------------------
    java = JavaWorker(props, work)
    try:
        java.wait_ready()
        base = java.url
        out["py_config_rest"] = _eventually(
            lambda: (
                httpx.get(f"{base}/connectors/py-conn/config", timeout=5).json()
                if httpx.get(f"{base}/connectors/py-conn/config", timeout=5).status_code == 200
                else None
            ),
            30,
            "py-conn config on Java",
        )
        out["py_status_rest"] = _eventually(
            lambda: (
                httpx.get(f"{base}/connectors/py-conn/status", timeout=5).json()
                if httpx.get(f"{base}/connectors/py-conn/status", timeout=5).status_code == 200
                else None
            ),
            30,
            "py-conn status on Java",
        )
        out["py_offsets_rest"] = httpx.get(f"{base}/connectors/py-conn/offsets", timeout=10).json()

        java_file = work / "java-input.txt"
        java_file.write_text("one\ntwo\nthree\n")
        java_config = {
            "connector.class": FILE_SOURCE,
            "tasks.max": "1",
            "file": str(java_file),
            "topic": f"interop-java-{u}",
        }
        r = httpx.post(
            f"{base}/connectors",
            json={"name": "java-conn", "config": java_config},
            timeout=30,
        )
        assert r.status_code == 201, r.text

        def committed() -> bool:
            body = httpx.get(f"{base}/connectors/java-conn/offsets", timeout=5).json()
            offs = body.get("offsets", [])
            return bool(offs) and offs[0]["offset"].get("position") == len("one\ntwo\nthree\n")

        _eventually(committed, 30, "java-conn offsets commit")
        assert httpx.put(f"{base}/connectors/java-conn/pause", timeout=10).status_code == 202

        def paused() -> bool:
            body = httpx.get(f"{base}/connectors/java-conn/status", timeout=5).json()
            states = [body["connector"]["state"], *(t["state"] for t in body["tasks"])]
            return states == ["PAUSED", "PAUSED"]

        _eventually(paused, 30, "java-conn and its task PAUSED")
        out["java_status_rest"] = httpx.get(f"{base}/connectors/java-conn/status", timeout=5).json()
        out["java_tasks_rest"] = httpx.get(f"{base}/connectors/java-conn/tasks", timeout=5).json()
        out["java_file"] = java_file
    finally:
        java.stop()
    out["raw_config"] = _raw_latest(kafka_bootstrap, config.config_topic)
    out["raw_status"] = _raw_latest(kafka_bootstrap, config.status_topic)
    out["raw_status_all"] = _raw_all(kafka_bootstrap, config.status_topic)
    out["raw_offsets"] = _raw_latest(kafka_bootstrap, config.offset_topic)
    try:
        yield out
    finally:
        delete_topics(
            kafka_bootstrap,
            [config.config_topic, config.offset_topic, config.status_topic],
        )


# -- kconnect -> Java ------------------------------------------------------------------------------


def test_java_reads_config_and_target_state_written_by_kconnect(shared: dict[str, Any]) -> None:
    assert shared["py_config_rest"] == shared["py_config"]
    assert shared["py_status_rest"]["connector"]["state"] == "STOPPED"


def test_java_reads_offsets_written_by_kconnect(shared: dict[str, Any]) -> None:
    assert shared["py_offsets_rest"] == {
        "offsets": [{"partition": shared["py_partition"], "offset": {"position": 4}}]
    }


# -- Java -> kconnect ------------------------------------------------------------------------------


def test_kconnect_reads_java_configs_and_bytes_match(shared: dict[str, Any]) -> None:
    config: DistributedConfig = shared["config"]
    store = KafkaConfigBackingStore(config)
    store.start()
    try:
        snap = store.snapshot()
    finally:
        store.stop()
    raw: dict[bytes, bytes | None] = shared["raw_config"]

    java_config = snap.raw_connector_config("java-conn")
    assert java_config is not None
    assert java_config["file"] == str(shared["java_file"])
    assert java_config["name"] == "java-conn"
    assert snap.target_state("java-conn") is TargetState.PAUSED
    tasks = snap.tasks("java-conn")
    assert tasks == [ConnectorTaskId("java-conn", 0)]
    assert snap.raw_task_config(tasks[0]) == shared["java_tasks_rest"][0]["config"]
    assert snap.offset >= len(raw)
    assert snap.session_key is not None and snap.session_key.algorithm == "HmacSHA256"

    # What kconnect would write for the same data is byte-identical to Java's records.
    def props(value: bytes | None) -> dict[str, str]:
        assert value is not None
        return dict(orjson.loads(value)["properties"])

    assert encode_config(props(raw[b"connector-java-conn"])) == raw[b"connector-java-conn"]
    assert encode_config(props(raw[b"task-java-conn-0"])) == raw[b"task-java-conn-0"]
    assert encode_commit(1) == raw[b"commit-java-conn"]
    ts = raw[b"target-state-java-conn"]
    assert ts is not None
    assert decode_target_state(orjson.loads(ts)) is TargetState.PAUSED
    assert encode_target_state(TargetState.PAUSED) == ts
    assert encode_session_key(snap.session_key) == raw[b"session-key"]
    # And kconnect's STOPPED target state was the bytes it documents.
    assert raw[b"target-state-py-conn"] == encode_target_state(TargetState.STOPPED)


def test_kconnect_reads_java_statuses_and_bytes_match(shared: dict[str, Any]) -> None:
    config: DistributedConfig = shared["config"]
    store = KafkaStatusBackingStore(config)
    store.start()
    try:
        conn = store.get_connector("java-conn")
        task = store.get_task(ConnectorTaskId("java-conn", 0))
    finally:
        store.stop()
    raw: dict[bytes, bytes | None] = shared["raw_status"]
    # After a clean shutdown the Java worker marked its work UNASSIGNED.
    assert conn is not None and task is not None
    assert conn.state in (State.UNASSIGNED, State.PAUSED)
    assert conn.worker_id == f"127.0.0.1:{shared['config'].rest_listeners[0].port}"
    assert encode_status(conn) == raw[b"status-connector-java-conn"]
    task_records = [v for k, v in shared["raw_status_all"] if k == b"status-task-java-conn-0"]
    assert encode_status(task) in task_records, task_records

    # Every status record Java wrote (RUNNING with the 4.1 "version", PAUSED, UNASSIGNED...)
    # decodes and re-encodes to the same bytes.
    seen = set()
    for key, value in shared["raw_status_all"]:
        if value is None:
            continue
        if key.startswith(b"status-topic-"):
            topic_status = decode_topic_status(value)
            assert topic_status is not None and encode_topic_status(topic_status) == value
            continue
        d = decode_status(value)
        assert d is not None, value
        status = ConnectorStatus("x", d.state, d.worker_id, d.generation, d.trace, d.version)
        assert encode_status(status) == value
        seen.add((d.state, d.version))
    assert (State.RUNNING, CONNECT_VERSION) in seen
    assert shared["java_status_rest"]["tasks"][0]["state"] == "PAUSED"


def test_kconnect_reads_java_offsets_and_key_bytes_match(shared: dict[str, Any]) -> None:
    config: DistributedConfig = shared["config"]
    store = KafkaOffsetBackingStore(config)
    store.start()
    try:
        key = serialize_key("java-conn", {"filename": str(shared["java_file"])})
        got = store.get([key])
    finally:
        store.stop()
    size = len("one\ntwo\nthree\n")
    assert got == {key: serialize_offset({"position": size})}
    assert shared["raw_offsets"][key] == b'{"position":%d}' % size
