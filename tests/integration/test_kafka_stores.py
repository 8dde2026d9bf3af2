"""Kafka-backed config/status/offset stores against the real broker: what one store instance
writes, a second one (another worker) reads back; topic creation and compaction checks."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from kconnect.api.errors import ConfigException
from kconnect.kafka.tools.admin_ping import create_topic, delete_topics
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import ConnectorStatus, State, TargetState, TaskStatus
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
from kconnect.runtime.storage.kafka_status_store import KafkaStatusBackingStore
from kconnect.runtime.storage.offset_utils import serialize_key, serialize_offset
from kconnect.runtime.storage.status_store import TopicStatus
from kconnect.testing.fakes import RecordingConfigListener

pytestmark = pytest.mark.kafka


@pytest.fixture
def worker_config(kafka_bootstrap: str) -> Iterator[DistributedConfig]:
    u = uuid.uuid4().hex[:10]
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": f"stores-{u}",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "config.storage.topic": f"stores-configs-{u}",
        "offset.storage.topic": f"stores-offsets-{u}",
        "status.storage.topic": f"stores-status-{u}",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "5",
        "status.storage.partitions": "3",
    }
    config = DistributedConfig(props)
    yield config
    delete_topics(kafka_bootstrap, [config.config_topic, config.offset_topic, config.status_topic])


def eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def raw_records(bootstrap: str, topic: str) -> list[tuple[bytes | None, bytes | None]]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "raw-" + topic})
    md = c.list_topics(topic, timeout=10).topics[topic]
    out = []
    for p in md.partitions:
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


def test_internal_topics_created_compacted_with_configured_partitions(
    worker_config: DistributedConfig, kafka_bootstrap: str
) -> None:
    cfg = KafkaConfigBackingStore(worker_config)
    st = KafkaStatusBackingStore(worker_config)
    off = KafkaOffsetBackingStore(worker_config)
    for s in (cfg, st, off):
        s.start()
    try:
        admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
        md = admin.list_topics(timeout=10).topics
        assert len(md[worker_config.config_topic].partitions) == 1
        assert len(md[worker_config.offset_topic].partitions) == 5
        assert len(md[worker_config.status_topic].partitions) == 3
        from confluent_kafka.admin import ConfigResource

        for topic in (worker_config.config_topic, worker_config.offset_topic):
            res = ConfigResource("topic", topic)
            conf = admin.describe_configs([res])[res].result(10)
            assert conf["cleanup.policy"].value == "compact"
    finally:
        for s in (cfg, st, off):
            s.stop()


def test_existing_non_compacted_topic_is_refused(
    worker_config: DistributedConfig, kafka_bootstrap: str
) -> None:
    create_topic(kafka_bootstrap, worker_config.status_topic, partitions=1)
    store = KafkaStatusBackingStore(worker_config)
    with pytest.raises(ConfigException) as info:
        store.start()
    message = str(info.value)
    assert f"Topic '{worker_config.status_topic}'" in message
    assert "'status.storage.topic'" in message
    assert "cleanup.policy=compact" in message
    assert "cleanup.policy=delete" in message


def test_config_written_by_one_store_is_read_by_another(
    worker_config: DistributedConfig, kafka_bootstrap: str
) -> None:
    listener = RecordingConfigListener()
    writer = KafkaConfigBackingStore(worker_config)
    writer.start()
    reader = KafkaConfigBackingStore(worker_config)
    reader.set_update_listener(listener)
    reader.start()
    try:
        writer.put_connector_config(
            "src-a", {"name": "src-a", "tasks.max": "2"}, TargetState.PAUSED
        )
        writer.put_task_configs("src-a", [{"task": "0"}, {"task": "1"}])
        writer.put_target_state("src-a", TargetState.STOPPED)
        writer.put_session_key(SessionKey(b"s" * 32, "HmacSHA256", 1234))
        writer.put_restart_request(RestartRequest("src-a", only_failed=True, include_tasks=True))
        end = writer.snapshot().offset  # each put above read its record back
        assert end == 8  # 2 (target + config) + 2 tasks + commit + target + key + restart
        # not read back (as Java's putLoggerLevel): the snapshot may or may not count it yet
        writer.put_logger_level("org.example", "DEBUG")
        reader.refresh(10)
        eventually(lambda: len(listener.events) >= 6)
        snap = reader.snapshot()
        assert snap.offset >= end
        assert snap.raw_connector_config("src-a") == {"name": "src-a", "tasks.max": "2"}
        assert [snap.raw_task_config(t) for t in snap.tasks("src-a")] == [
            {"task": "0"},
            {"task": "1"},
        ]
        assert snap.target_state("src-a") is TargetState.STOPPED
        assert snap.session_key == SessionKey(b"s" * 32, "HmacSHA256", 1234)
        assert listener.events == [
            ("config", "src-a"),
            ("tasks", [ConnectorTaskId("src-a", 0), ConnectorTaskId("src-a", 1)]),
            ("target", "src-a"),
            ("session", SessionKey(b"s" * 32, "HmacSHA256", 1234)),
            ("restart", RestartRequest("src-a", only_failed=True, include_tasks=True)),
            ("logger", ("org.example", "DEBUG")),
        ]

        # A third worker starting now sees the same state from the topic alone.
        late = KafkaConfigBackingStore(worker_config)
        late.start()
        try:
            assert late.snapshot().tasks("src-a") == snap.tasks("src-a")
            assert late.snapshot().target_state("src-a") is TargetState.STOPPED
        finally:
            late.stop()

        writer.remove_connector_config("src-a")
        reader.refresh(10)
        assert not reader.snapshot().contains("src-a")
        assert reader.snapshot().tasks("src-a") == []
    finally:
        writer.stop()
        reader.stop()

    keys = [k for k, _ in raw_records(kafka_bootstrap, worker_config.config_topic)]
    assert keys[:5] == [
        b"target-state-src-a",
        b"connector-src-a",
        b"task-src-a-0",
        b"task-src-a-1",
        b"commit-src-a",
    ]


def test_task_configs_without_commit_are_not_applied(
    worker_config: DistributedConfig, kafka_bootstrap: str
) -> None:
    # Simulate a leader that died after writing task configs but before the commit record.
    writer = KafkaConfigBackingStore(worker_config)
    writer.start()
    try:
        writer.put_connector_config("c", {"name": "c"}, None)
        writer.put_task_configs("c", [{"v": "1"}])
        writer._log.send(b"task-c-0", b'{"properties":{"v":"2"}}').result(10)
        writer._log.send(b"task-c-1", b'{"properties":{"v":"3"}}').result(10)
        reader = KafkaConfigBackingStore(worker_config)
        reader.start()
        try:
            snap = reader.snapshot()
            assert [snap.raw_task_config(t) for t in snap.tasks("c")] == [{"v": "1"}]
            writer.put_task_configs("c", [{"v": "4"}, {"v": "5"}])
            reader.refresh(10)
            snap = reader.snapshot()
            assert [snap.raw_task_config(t) for t in snap.tasks("c")] == [{"v": "4"}, {"v": "5"}]
        finally:
            reader.stop()
    finally:
        writer.stop()


def test_statuses_round_trip_and_put_safe_generations(worker_config: DistributedConfig) -> None:
    w1 = KafkaStatusBackingStore(worker_config)
    w2 = KafkaStatusBackingStore(worker_config)
    w1.start()
    w2.start()
    try:
        t0 = ConnectorTaskId("c", 0)
        w1.put(ConnectorStatus("c", State.RUNNING, "w1:8083", 4, None, "1.0"))
        w1.put(TaskStatus(t0, State.RUNNING, "w1:8083", 4))
        w1.put_topic(TopicStatus("orders", "c", 0, 1700000000000))
        w1.flush()
        w2.refresh(10)
        assert w2.get_connector("c") == ConnectorStatus(
            "c", State.RUNNING, "w1:8083", 4, None, "1.0"
        )
        assert w2.get_task(t0) == TaskStatus(t0, State.RUNNING, "w1:8083", 4)
        assert w2.get_all_topics("c") == [TopicStatus("orders", "c", 0, 1700000000000)]

        # w2 (an older generation) may not overwrite w1's newer status with put_safe...
        w2.put_safe(TaskStatus(t0, State.FAILED, "w2:8083", 3, "boom"))
        # ...but may with a newer generation.
        w2.put_safe(ConnectorStatus("c", State.UNASSIGNED, "w2:8083", 5))
        w2.flush()
        w1.refresh(10)
        task = w1.get_task(t0)
        assert task is not None and task.state is State.RUNNING
        conn = w1.get_connector("c")
        assert conn is not None and (conn.state, conn.worker_id) == (State.UNASSIGNED, "w2:8083")

        w1.put(ConnectorStatus("c", State.DESTROYED, "w1:8083", 6))
        w1.delete_topic("c", "orders")
        w1.flush()
        w2.refresh(10)
        assert w2.get_connector("c") is None
        assert w2.get_all_topics("c") == []
    finally:
        w1.stop()
        w2.stop()


def test_offsets_round_trip_and_tombstones(worker_config: DistributedConfig) -> None:
    a = KafkaOffsetBackingStore(worker_config)
    b = KafkaOffsetBackingStore(worker_config)
    a.start()
    b.start()
    try:
        keys = [serialize_key("src", {"filename": f"/tmp/f{i}"}) for i in range(20)]
        a.set({k: serialize_offset({"position": i}) for i, k in enumerate(keys)}).result(10)
        got = b.get(keys)
        assert got == {k: serialize_offset({"position": i}) for i, k in enumerate(keys)}
        assert sorted(b.all_keys_for("src")) == sorted(keys)
        a.set({keys[0]: None}).result(10)
        assert b.get([keys[0]]) == {keys[0]: None}
        assert keys[0] not in b.all_keys()
    finally:
        a.stop()
        b.stop()
    # A restarted worker rebuilds the same map from the topic.
    c = KafkaOffsetBackingStore(worker_config)
    c.start()
    try:
        assert len(c.all_keys()) == 19
    finally:
        c.stop()
