"""Connector, task and topic statuses in ``status.storage.topic`` (``KafkaStatusBackingStore``).

Keys and values are Kafka Connect's (reference §4.2), so ``GET /connectors/<c>/status`` on an
Apache Kafka Connect worker shows what a kconnect worker wrote, and vice versa:

* ``status-connector-<c>`` / ``status-task-<c>-<n>``:
  ``{"state":"RUNNING","trace":null,"worker_id":"host:port","generation":3,"version":"1.0"}``
  (``version`` is the 4.1 addition); DESTROYED is written as a tombstone;
* ``status-topic-<topic>:connector-<c>``:
  ``{"topic":{"name":..,"connector":..,"task":0,"discoverTimestamp":ms}}``; reset = tombstone.

Writes are asynchronous (``put`` returns at once; a retriable failure is resent unless a newer
status superseded it) and the cache is updated only when the record is read back, so every
worker's view follows topic order. ``put_safe`` (used for UNASSIGNED/FAILED by workers that
may have lost their assignment) writes only if nothing is stored yet, the stored status is
from the same worker, or its generation is not newer. Readers ignore an UNASSIGNED task
status whose generation is not newer than a cached RUNNING one (a slow worker's stale news).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import orjson

from kconnect.kafka.clients.errors import KafkaClientError
from kconnect.kafka.log.kafka_based_log import KafkaBasedLog, RecordPosition
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import AutoRestartInfo, ConnectorStatus, State, TaskStatus
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.internal_topics import (
    AdminFactory,
    build_internal_log,
    client_id_base,
    internal_json,
)
from kconnect.runtime.storage.status_store import StatusBackingStore, TopicStatus

__all__ = [
    "KafkaStatusBackingStore",
    "connector_status_key",
    "decode_status",
    "decode_topic_status",
    "encode_status",
    "encode_topic_status",
    "parse_task_status_key",
    "task_status_key",
    "topic_status_key",
]

log = logging.getLogger(__name__)

#: kconnect's extra field of a status value: the automatic-restart plan.
AUTO_RESTART_FIELD = "kconnect.auto.restart"

TASK_STATUS_PREFIX = "status-task-"
CONNECTOR_STATUS_PREFIX = "status-connector-"
TOPIC_STATUS_PREFIX = "status-topic-"
TOPIC_STATUS_SEPARATOR = ":connector-"

_MAX_RETRIES = 10


def connector_status_key(connector: str) -> str:
    return CONNECTOR_STATUS_PREFIX + connector


def task_status_key(task: ConnectorTaskId) -> str:
    return f"{TASK_STATUS_PREFIX}{task.connector}-{task.task}"


def topic_status_key(topic: str, connector: str) -> str:
    return TOPIC_STATUS_PREFIX + topic + TOPIC_STATUS_SEPARATOR + connector


def parse_task_status_key(key: str) -> ConnectorTaskId | None:
    parts = key.split("-")
    if len(parts) < 4:
        return None
    try:
        number = int(parts[-1])
    except ValueError:
        return None
    return ConnectorTaskId("-".join(parts[2:-1]), number)


def encode_status(status: ConnectorStatus | TaskStatus) -> bytes | None:
    """The value bytes of a status; None (tombstone) for DESTROYED."""
    if status.state is State.DESTROYED:
        return None
    value: dict[str, object] = {
        "state": status.state.value,
        "trace": status.trace,
        "worker_id": status.worker_id,
        "generation": status.generation,
        "version": status.version,
    }
    if status.auto_restart is not None:
        # kconnect's automatic-restart plan; Java workers ignore the unknown field
        value[AUTO_RESTART_FIELD] = status.auto_restart.to_json()
    return internal_json(value)


@dataclass(frozen=True)
class _Decoded:
    state: State
    trace: str | None
    worker_id: str
    generation: int
    version: str | None
    auto_restart: AutoRestartInfo | None = None


def decode_status(value: bytes) -> _Decoded | None:
    """The fields of a status value; None (logged) if malformed."""
    try:
        parsed = orjson.loads(value)
        state = State(parsed["state"])
        trace = parsed.get("trace")
        worker = parsed["worker_id"]
        generation = parsed["generation"]
        version = parsed.get("version")
        if not isinstance(generation, int) or not isinstance(worker, str):
            raise TypeError("generation must be an integer and worker_id a string")
    except (orjson.JSONDecodeError, KeyError, ValueError, TypeError, AttributeError) as e:
        log.error("Failed to deserialize status %r: %s", value[:200], e)
        return None
    return _Decoded(state, trace if isinstance(trace, str) else None, worker, generation,
                    version if isinstance(version, str) else None,
                    AutoRestartInfo.from_json(parsed.get(AUTO_RESTART_FIELD)))  # fmt: skip


def encode_topic_status(status: TopicStatus) -> bytes:
    return internal_json(
        {
            "topic": {
                "name": status.topic,
                "connector": status.connector,
                "task": status.task,
                "discoverTimestamp": status.discover_timestamp,
            }
        }
    )


def decode_topic_status(value: bytes) -> TopicStatus | None:
    try:
        inner = orjson.loads(value)["topic"]
        return TopicStatus(
            str(inner["name"]), str(inner["connector"]), int(inner["task"]),
            int(inner["discoverTimestamp"]),
        )  # fmt: skip
    except (orjson.JSONDecodeError, KeyError, ValueError, TypeError) as e:
        log.error("Failed to deserialize topic status %r: %s", value[:200], e)
        return None


class _Entry:
    """Cached status of one connector or task, with the write sequence for safe resends."""

    __slots__ = ("deleted", "sequence", "value")

    def __init__(self) -> None:
        self.value: Any = None
        self.sequence = 0
        self.deleted = False

    def can_write_safely(
        self, status: ConnectorStatus | TaskStatus, sequence: int | None = None
    ) -> bool:
        ok = (
            self.value is None
            or self.value.worker_id == status.worker_id
            or self.value.generation <= status.generation
        )
        return ok and (sequence is None or self.sequence == sequence)


class KafkaStatusBackingStore(StatusBackingStore):
    """The status store of a distributed worker; thread-safe, writes never block."""

    def __init__(
        self,
        config: DistributedConfig,
        admin_factory: AdminFactory | None = None,
        log_factory: Any = None,
    ) -> None:
        self.topic = config.status_topic
        self._lock = threading.Lock()
        self._connectors: dict[str, _Entry] = {}
        self._tasks: dict[str, dict[int, _Entry]] = {}
        self._topics: dict[str, dict[str, TopicStatus]] = {}
        self._generation = 0
        factory = log_factory or build_internal_log
        self._log: KafkaBasedLog = factory(
            config,
            config.status_topic_spec(),
            client_id_base(config) + "statuses",
            self._on_record,
            # Retries are done here, so a superseded status is not resent.
            {"retries": 0},
            admin_factory,
        )

    def start(self) -> None:
        """Create/verify the topic and read every status (blocking)."""
        self._log.start()

    def stop(self) -> None:
        self._log.stop()

    def flush(self, timeout_s: float = 30.0) -> None:
        """Wait until every status written so far was acknowledged."""
        self._log.flush(timeout_s)

    def refresh(self, timeout_s: float) -> None:
        """Read the topic to its current end (so the cache shows every status written)."""
        self._log.read_to_end(timeout_s)

    # -- writes -------------------------------------------------------------------------------

    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        self._send_status(status, safe=False)

    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        self._send_status(status, safe=True)

    def _entry(self, status: ConnectorStatus | TaskStatus) -> _Entry:
        if isinstance(status, ConnectorStatus):
            return self._connectors.setdefault(status.connector, _Entry())
        return self._tasks.setdefault(status.id.connector, {}).setdefault(status.id.task, _Entry())

    def _send_status(self, status: ConnectorStatus | TaskStatus, safe: bool) -> None:
        key = (
            connector_status_key(status.connector)
            if isinstance(status, ConnectorStatus)
            else task_status_key(status.id)
        ).encode("utf-8")
        with self._lock:
            entry = self._entry(status)
            self._generation = status.generation
            if safe and not entry.can_write_safely(status):
                return
            entry.sequence += 1
            sequence = entry.sequence
        value = encode_status(status)

        def still_wanted() -> bool:
            with self._lock:
                return not (
                    entry.deleted
                    or status.generation != self._generation
                    or (safe and not entry.can_write_safely(status, sequence))
                )

        self._send_with_retry(key, value, still_wanted, _MAX_RETRIES)

    def _send_with_retry(
        self, key: bytes, value: bytes | None, still_wanted: Callable[[], bool], retries: int
    ) -> None:
        future = self._log.send(key, value)

        def done(f: Future[RecordPosition]) -> None:
            err = f.exception()
            if err is None:
                return
            if (
                isinstance(err, KafkaClientError)
                and err.retriable
                and retries > 0
                and still_wanted()
            ):
                log.debug("Resending status %s after a retriable error: %s", key, err)
                self._send_with_retry(key, value, still_wanted, retries - 1)
            else:
                log.error(
                    "Failed to write status update %s: %s", key.decode("utf-8", "replace"), err
                )

        future.add_done_callback(done)

    def put_topic(self, status: TopicStatus) -> None:
        """Record a topic a connector uses; not resent when this worker already saw it."""
        with self._lock:
            if self._topics.get(status.connector, {}).get(status.topic) is not None:
                return
        key = topic_status_key(status.topic, status.connector).encode("utf-8")
        self._send_with_retry(key, encode_topic_status(status), lambda: True, _MAX_RETRIES)

    def delete_topic(self, connector: str, topic: str) -> None:
        key = topic_status_key(topic, connector).encode("utf-8")
        self._send_with_retry(key, None, lambda: True, _MAX_RETRIES)

    # -- reads --------------------------------------------------------------------------------

    def get_connector(self, connector: str) -> ConnectorStatus | None:
        with self._lock:
            entry = self._connectors.get(connector)
            return None if entry is None else entry.value

    def get_task(self, task_id: ConnectorTaskId) -> TaskStatus | None:
        with self._lock:
            entry = self._tasks.get(task_id.connector, {}).get(task_id.task)
            return None if entry is None else entry.value

    def get_all(self, connector: str) -> list[TaskStatus]:
        with self._lock:
            row = self._tasks.get(connector, {})
            return [row[n].value for n in sorted(row) if row[n].value is not None]

    def connectors(self) -> set[str]:
        with self._lock:
            return set(self._connectors)

    def task_ids_from(self, connector: str, first: int) -> list[ConnectorTaskId]:
        # The leader asks for every connector at every rebalance: no list of statuses built.
        with self._lock:
            row = self._tasks.get(connector)
            if not row or max(row) < first:
                return []
            return [
                ConnectorTaskId(connector, n)
                for n in sorted(row)
                if n >= first and row[n].value is not None
            ]

    def get_all_topics(self, connector: str) -> list[TopicStatus]:
        with self._lock:
            return list(self._topics.get(connector, {}).values())

    # -- the log thread -----------------------------------------------------------------------

    def _on_record(self, raw_key: bytes | None, value: bytes | None, offset: int) -> None:
        key = (raw_key or b"").decode("utf-8", "replace")
        if key.startswith(CONNECTOR_STATUS_PREFIX):
            self._read_connector(key, value)
        elif key.startswith(TASK_STATUS_PREFIX):
            self._read_task(key, value)
        elif key.startswith(TOPIC_STATUS_PREFIX):
            self._read_topic(key, value)
        else:
            log.warning("Discarding record with invalid key %s", key)

    def _read_connector(self, key: str, value: bytes | None) -> None:
        connector = key[len(CONNECTOR_STATUS_PREFIX) :]
        if not connector:
            log.warning("Discarding record with invalid connector status key %s", key)
            return
        if value is None:
            with self._lock:
                removed = self._connectors.pop(connector, None)
                if removed is not None:
                    removed.deleted = True
                for entry in self._tasks.pop(connector, {}).values():
                    entry.deleted = True
            return
        d = decode_status(value)
        if d is None:
            return
        status = ConnectorStatus(
            connector, d.state, d.worker_id, d.generation, d.trace, d.version, d.auto_restart
        )
        with self._lock:
            self._connectors.setdefault(connector, _Entry()).value = status

    def _read_task(self, key: str, value: bytes | None) -> None:
        task_id = parse_task_status_key(key)
        if task_id is None:
            log.warning("Discarding record with invalid task status key %s", key)
            return
        if value is None:
            with self._lock:
                removed = self._tasks.get(task_id.connector, {}).pop(task_id.task, None)
                if removed is not None:
                    removed.deleted = True
            return
        d = decode_status(value)
        if d is None:
            log.warning("Failed to parse task status with key %s", key)
            return
        status = TaskStatus(
            task_id, d.state, d.worker_id, d.generation, d.trace, d.version, d.auto_restart
        )
        with self._lock:
            entry = self._tasks.setdefault(task_id.connector, {}).setdefault(task_id.task, _Entry())
            current = entry.value
            # A worker that missed the newer RUNNING status may report a stale UNASSIGNED.
            if (
                status.state is State.UNASSIGNED
                and current is not None
                and current.state is State.RUNNING
                and current.generation >= status.generation
            ):
                return
            entry.value = status

    def _read_topic(self, key: str, value: bytes | None) -> None:
        rest = key[len(TOPIC_STATUS_PREFIX) :]
        topic, sep, connector = rest.partition(TOPIC_STATUS_SEPARATOR)
        if not sep or not topic or not connector:
            log.warning("Discarding record with invalid topic status key %s", key)
            return
        with self._lock:
            if value is None:
                self._topics.get(connector, {}).pop(topic, None)
                return
        status = decode_topic_status(value)
        if status is None:
            return
        with self._lock:
            self._topics.setdefault(connector, {})[topic] = status
