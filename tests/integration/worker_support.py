"""Helpers for the worker integration tests: a worker factory against the real broker, starting
a connector and its tasks, and small Kafka read helpers (tests may use confluent-kafka)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.worker_config import StandaloneConfig
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_store import FileOffsetBackingStore
from kconnect.runtime.worker.worker import Worker
from kconnect.testing.fakes import RecordingStatusListener

_PLUGINS: Plugins | None = None


def plugins() -> Plugins:
    global _PLUGINS
    if _PLUGINS is None:
        _PLUGINS = Plugins.load()
    return _PLUGINS


def wait_until(
    predicate: Callable[[], Any],
    timeout: float = 30.0,
    interval: float = 0.05,
    message: str = "condition",
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


def make_worker(bootstrap: str, tmp_path: Path, **overrides: str) -> Worker:
    """An in-process worker whose tasks run on threads of the test process (``task.processes``
    1), so tests can observe their own plugin classes; pass ``task.processes`` to override."""
    props = {
        "task.processes": "1",
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "200",
        "listeners": "http://127.0.0.1:18083",
        **overrides,
    }
    config = StandaloneConfig(props)
    worker = Worker(
        config.worker_id(), config, plugins(), FileOffsetBackingStore(config.offset_storage_file)
    )
    worker.start()
    return worker


def start_connector_and_tasks(
    worker: Worker, name: str, props: dict[str, str], listener: RecordingStatusListener
) -> list[ConnectorTaskId]:
    from kconnect.runtime.common.states import TargetState

    worker.start_connector(name, props, listener, TargetState.STARTED, lambda _n: None)
    wait_until(
        lambda: worker.is_running(name) or listener.failure(name),
        10,
        message=f"connector {name} running",
    )
    assert listener.failure(name) is None, listener.failure(name)
    ids = []
    for i, cfg in enumerate(worker.connector_task_configs(name, props)):
        tid = ConnectorTaskId(name, i)
        assert worker.start_task(tid, props, cfg, listener, TargetState.STARTED)
        ids.append(tid)
    return ids


def read_topic(
    bootstrap: str, topic: str, count: int, timeout: float = 30.0, partitions: int = 1
) -> list[Any]:
    """Read ``count`` messages from the beginning of every partition of ``topic``."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[Any] = []
        deadline = time.monotonic() + timeout
        while len(out) < count and time.monotonic() < deadline:
            for m in c.consume(count - len(out), 0.5):
                if m.error() is None:
                    out.append(m)
        return out
    finally:
        c.close()


def produce(
    bootstrap: str,
    topic: str,
    records: list[tuple[bytes | None, bytes | None]],
    headers: list[tuple[str, bytes]] | None = None,
) -> None:
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap})
    for k, v in records:
        p.produce(topic, v, k, headers=headers)
    assert p.flush(30) == 0
