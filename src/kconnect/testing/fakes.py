"""Test fakes for the runtime's and the plugin API's collaborators, each defined once.

A fake stands in for something the code under test *talks to* (a listener it notifies, the
context a task is given, the worker a herder drives), records what it was told and does nothing
else; none talks to Kafka or a database. Use them to drive one piece in isolation -- an
assignor, a herder's status listener, a connector's task -- never in place of the broker or the
database in an integration test.

======================================  =========================================================
fake                                    stands in for
======================================  =========================================================
:func:`config_snapshot`                 a :class:`ClusterConfigState` of N connectors with empty
                                        configs and task configs, at a config offset
:class:`RecordingStatusListener`        a :class:`StatusListener` (the herder, for the worker)
:class:`RecordingConfigListener`        a :class:`ConfigUpdateListener` of the config topic
:class:`FakeWorker`                     the worker surface the herders call (plugin versions,
                                        running connectors, task configs)
:class:`RecordingErrantReporter`        a sink task's :class:`ErrantRecordReporter` (DLQ)
:class:`FakeSinkTaskContext`            the runtime's :class:`SinkTaskContext`
:class:`MemoryOffsetReader`             an :class:`OffsetStorageReader` over a dict
:class:`FakeSourceTaskContext`          the runtime's :class:`SourceTaskContext`
:class:`FakeConnectorContext`           a source or sink connector's context
======================================  =========================================================

Every recording fake is thread-safe: the runtime calls listeners and reporters from its own
threads while the test reads what they recorded.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from kconnect.api import (
    ErrantRecordReporter,
    OffsetStorageReader,
    SinkConnectorContext,
    SinkRecord,
    SinkTaskContext,
    SourceConnectorContext,
    SourceRecord,
    SourceTaskContext,
    TopicPartition,
)
from kconnect.api.task import partition_key
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import StatusListener
from kconnect.runtime.storage.config_store import ClusterConfigState, ConfigUpdateListener

__all__ = [
    "FakeConnectorContext",
    "FakeSinkTaskContext",
    "FakeSourceTaskContext",
    "FakeWorker",
    "MemoryOffsetReader",
    "RecordingConfigListener",
    "RecordingErrantReporter",
    "RecordingStatusListener",
    "config_snapshot",
]

Key = str | ConnectorTaskId
PartitionKey = tuple[tuple[str, Any], ...]


# -- cluster state ------------------------------------------------------------------------------


def config_snapshot(task_counts: Mapping[str, int], offset: int = -1) -> ClusterConfigState:
    """The config state an assignor or group member sees: every connector in ``task_counts``
    with an empty config and that many empty task configs, read up to config ``offset``."""
    return ClusterConfigState(
        connector_configs={c: {} for c in task_counts},
        task_configs={c: tuple({} for _ in range(n)) for c, n in task_counts.items()},
        offset=offset,
    )


# -- listeners ----------------------------------------------------------------------------------


class RecordingStatusListener(StatusListener):
    """Records every callback as ``(event, key, error)`` in call order; ``event`` is the
    callback's name without ``on_`` (``startup``, ``failure``, ...), ``error`` is set for
    ``failure`` only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[tuple[str, Key, BaseException | None]] = []

    def _add(self, event: str, key: Key, error: BaseException | None = None) -> None:
        with self._lock:
            self.events.append((event, key, error))

    def on_startup(self, key: Key) -> None:
        self._add("startup", key)

    def on_pause(self, key: Key) -> None:
        self._add("pause", key)

    def on_resume(self, key: Key) -> None:
        self._add("resume", key)

    def on_stop(self, key: Key) -> None:
        self._add("stop", key)

    def on_failure(self, key: Key, error: BaseException) -> None:
        self._add("failure", key, error)

    def on_shutdown(self, key: Key) -> None:
        self._add("shutdown", key)

    def on_deletion(self, key: Key) -> None:
        self._add("deletion", key)

    def on_restart(self, key: Key) -> None:
        self._add("restart", key)

    @property
    def calls(self) -> list[str]:
        """The events' names, in order, whatever their key."""
        with self._lock:
            return [e for e, _, _ in self.events]

    def of(self, key: Key) -> list[str]:
        """The events of one connector or task, in order."""
        with self._lock:
            return [e for e, k, _ in self.events if k == key]

    def failure(self, key: Key) -> BaseException | None:
        """The error of ``key``'s first failure, or None."""
        with self._lock:
            for e, k, err in self.events:
                if e == "failure" and k == key:
                    return err
        return None


class RecordingConfigListener(ConfigUpdateListener):
    """Records config-topic changes as ``(kind, payload)`` in arrival order:

    ``("config", connector)``, ``("remove", connector)``, ``("tasks", sorted task ids)``,
    ``("target", connector)``, ``("session", SessionKey)``, ``("restart", RestartRequest)``,
    ``("logger", (namespace, level))``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[tuple[str, Any]] = []

    def _add(self, kind: str, payload: Any) -> None:
        with self._lock:
            self.events.append((kind, payload))

    def on_connector_config_update(self, connector: str) -> None:
        self._add("config", connector)

    def on_connector_config_remove(self, connector: str) -> None:
        self._add("remove", connector)

    def on_task_config_update(self, task_ids: list[ConnectorTaskId]) -> None:
        self._add("tasks", sorted(task_ids))

    def on_connector_target_state_change(self, connector: str) -> None:
        self._add("target", connector)

    def on_session_key_update(self, key: SessionKey) -> None:
        self._add("session", key)

    def on_restart_request(self, request: RestartRequest) -> None:
        self._add("restart", request)

    def on_logger_level(self, namespace: str, level: str) -> None:
        self._add("logger", (namespace, level))

    def of(self, kind: str) -> list[Any]:
        """The payloads of one kind of event, in order."""
        with self._lock:
            return [p for k, p in self.events if k == kind]


# -- the worker, as a herder sees it --------------------------------------------------------------


class FakeWorker:
    """What the herders call on their worker, answered from fixed data.

    ``versions`` maps a connector name or task id to the version of the plugin running it
    (``plugin_version``); ``running`` names the connectors ``is_running`` confirms (None: every
    one); ``task_configs`` is what ``connector_task_configs`` returns (default: one empty task
    config), and ``task_config_calls`` records the connectors it was asked for.
    """

    def __init__(
        self,
        versions: Mapping[Key, str] | None = None,
        running: Collection[str] | None = None,
        task_configs: Sequence[Mapping[str, str]] | None = None,
    ) -> None:
        self.versions = dict(versions or {})
        self.running = None if running is None else set(running)
        self.task_configs = [dict(c) for c in task_configs] if task_configs is not None else [{}]
        self.task_config_calls: list[str] = []
        self.logger_levels: list[tuple[str, str]] = []
        self.metrics = None  # no worker metrics: /metrics shows the process only

    def plugin_version(self, key: Key) -> str | None:
        return self.versions.get(key)

    def is_running(self, name: str) -> bool:
        return self.running is None or name in self.running

    def connector_task_configs(self, name: str, config: object) -> list[dict[str, str]]:
        self.task_config_calls.append(name)
        return [dict(c) for c in self.task_configs]

    def set_logger_level(self, namespace: str, level: str) -> None:
        self.logger_levels.append((namespace, level))


# -- sink side ----------------------------------------------------------------------------------


class RecordingErrantReporter(ErrantRecordReporter):
    """Keeps every reported ``(record, error)``; the returned future is already complete."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reported: list[tuple[SinkRecord, BaseException]] = []

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        with self._lock:
            self.reported.append((record, error))
        done: Future[None] = Future()
        done.set_result(None)
        return done


class FakeSinkTaskContext(SinkTaskContext):
    """A sink task's context: ``reporter`` is the errant record reporter (None: the connector
    has no DLQ / error reporting); every request the task makes is recorded in ``timeouts``,
    ``offsets``, ``paused`` and ``commit_requests``."""

    def __init__(
        self,
        reporter: ErrantRecordReporter | None = None,
        configs: Mapping[str, str] | None = None,
        assignment: Iterable[TopicPartition] = (),
    ) -> None:
        self.reporter = reporter
        self._configs = dict(configs or {})
        self._assignment = set(assignment)
        self.timeouts: list[int] = []
        self.offsets: dict[TopicPartition, int] = {}
        self.paused: set[TopicPartition] = set()
        self.commit_requests = 0

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.offsets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeouts.append(timeout_ms)

    def assignment(self) -> set[TopicPartition]:
        return set(self._assignment)

    def pause(self, *partitions: TopicPartition) -> None:
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused.difference_update(partitions)

    def request_commit(self) -> None:
        self.commit_requests += 1

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self.reporter


# -- source side --------------------------------------------------------------------------------


class MemoryOffsetReader(OffsetStorageReader):
    """Committed source offsets in a dict keyed by :func:`~kconnect.api.task.partition_key`
    (``store``); :meth:`commit` keeps what the runtime would commit for acknowledged records.

    For the runtime's real reader over a backing store (exact offsets-topic bytes), use
    :class:`~kconnect.runtime.storage.offset_reader.OffsetStorageReaderImpl`.
    """

    def __init__(self, offsets: dict[PartitionKey, dict[str, Any]] | None = None) -> None:
        self.store: dict[PartitionKey, dict[str, Any]] = offsets if offsets is not None else {}

    def put(self, partition: Mapping[str, Any], offset: Mapping[str, Any] | None) -> None:
        """Commit one offset (a None offset is not stored)."""
        if offset is not None:
            self.store[partition_key(partition)] = dict(offset)

    def commit(self, records: Iterable[SourceRecord]) -> None:
        """What the runtime does once records are acknowledged: keep the last offset of each
        source partition."""
        for r in records:
            if r.source_partition is not None:
                self.put(r.source_partition, r.source_offset)

    def offsets(
        self, partitions: Collection[Mapping[str, Any]]
    ) -> dict[PartitionKey, dict[str, Any]]:
        keys = [partition_key(p) for p in partitions]
        return {k: self.store[k] for k in keys if k in self.store}


class FakeSourceTaskContext(SourceTaskContext):
    """A source task's context: its ``configs`` and an offset ``reader`` (default: an empty
    :class:`MemoryOffsetReader`)."""

    def __init__(
        self,
        configs: Mapping[str, str] | None = None,
        reader: OffsetStorageReader | None = None,
    ) -> None:
        self._configs = dict(configs or {})
        self.reader: OffsetStorageReader = reader if reader is not None else MemoryOffsetReader()

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.reader


class FakeConnectorContext(SourceConnectorContext, SinkConnectorContext):
    """A connector's context (source or sink): counts ``reconfigurations`` requested, keeps the
    ``errors`` raised, and offers an offset ``reader`` (default: an empty
    :class:`MemoryOffsetReader`)."""

    def __init__(self, reader: OffsetStorageReader | None = None) -> None:
        self._lock = threading.Lock()
        self.reconfigurations = 0
        self.errors: list[BaseException] = []
        self.reader: OffsetStorageReader = reader if reader is not None else MemoryOffsetReader()

    def request_task_reconfiguration(self) -> None:
        with self._lock:
            self.reconfigurations += 1

    def raise_error(self, error: BaseException) -> None:
        with self._lock:
            self.errors.append(error)

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.reader
