"""Helpers for the worker integration tests: a recording StatusListener, a worker factory
against the real broker, and small Kafka read helpers (tests may use confluent-kafka)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener
from kconnect.runtime.config.worker_config import StandaloneConfig
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_store import FileOffsetBackingStore
from kconnect.runtime.worker.worker import Worker

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


class RecordingListener(StatusListener):
    """Records (event, key, error) tuples in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, BaseException | None]] = []
        self._lock = threading.Lock()

    def _add(self, event: str, key: Any, error: BaseException | None = None) -> None:
        with self._lock:
            self.events.append((event, key, error))

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        self._add("startup", key)

    def on_pause(self, key: str | ConnectorTaskId) -> None:
        self._add("pause", key)

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        self._add("resume", key)

    def on_stop(self, key: str | ConnectorTaskId) -> None:
        self._add("stop", key)

    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None:
        self._add("failure", key, error)

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        self._add("shutdown", key)

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        self._add("deletion", key)

    def on_restart(self, key: str | ConnectorTaskId) -> None:
        self._add("restart", key)

    def of(self, key: Any) -> list[str]:
        with self._lock:
            return [e for e, k, _ in self.events if k == key]

    def failure(self, key: Any) -> BaseException | None:
        with self._lock:
            for e, k, err in self.events:
                if e == "failure" and k == key:
                    return err
        return None


def make_worker(bootstrap: str, tmp_path: Path, **overrides: str) -> Worker:
    props = {
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
    worker: Worker, name: str, props: dict[str, str], listener: RecordingListener
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
