"""Connector configs, task configs and target states in ``config.storage.topic``.

The distributed twin of :class:`~kconnect.runtime.storage.config_store.MemoryConfigBackingStore`, with
Kafka Connect's exact keys and JSON values (``KafkaConfigBackingStore``, reference §4.1), so
Apache Kafka Connect and kconnect workers can share one config topic:

=========================== ==============================================================
key                         value
=========================== ==============================================================
``connector-<c>``           ``{"properties":{...}}``; null = connector deleted
``task-<c>-<n>``            ``{"properties":{...}}``; held back until the commit record
``commit-<c>``              ``{"tasks":N}``: applies the held-back task configs atomically
                            if tasks 0..N-1 are all present, else marks ``<c>`` inconsistent
``target-state-<c>``        ``{"state":"STARTED|PAUSED","state.v2":"STARTED|PAUSED|STOPPED"}``
``session-key``             ``{"key":"<base64>","algorithm":"HmacSHA256","creation-timestamp":ms}``
``restart-connector-<c>``   ``{"include-tasks":b,"only-failed":b}``
``tasks-fencing-<c>``       ``{"task-count":N}``
``logger-cluster-<ns>``     ``{"level":"DEBUG"}``
=========================== ==============================================================

With ``exactly.once.source.support`` ``preparing`` or ``enabled`` the leader writes the
records only the leader may write (connector and task configs, task count records, the
session key, restart requests) in transactions of a producer whose ``transactional.id`` is
``connect-cluster-<group.id>`` (Kafka's fencable writer): a leader that lost its leadership
but does not know it yet is fenced out by the new one's :meth:`claim_write_privileges`, and its
write fails with :class:`PrivilegedWriteException` instead of landing. Target states and logger
levels, which any worker writes, keep the plain producer. With ``enabled`` the topic is read
``read_committed``.

Every worker applies the records in topic order on the log thread; a ``snapshot()`` is a
consistent, immutable view whose ``offset`` is the config offset workers compare during
rebalances (the offset of the next record to read). Writes block (30 s at most) until the
broker acknowledged them and, for config writes, until this worker read them back.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import orjson

from kconnect.api.errors import ConnectException
from kconnect.kafka.clients.producer import Producer
from kconnect.kafka.log.kafka_based_log import KafkaBasedLog, RecordPosition
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.config_records import (
    COMMIT_TASKS_PREFIX,
    CONNECTOR_PREFIX,
    LOGGER_CLUSTER_PREFIX,
    RESTART_PREFIX,
    SESSION_KEY_KEY,
    TARGET_STATE_PREFIX,
    TASK_COUNT_RECORD_PREFIX,
    TASK_PREFIX,
    commit_key,
    connector_key,
    decode_target_state,
    encode_commit,
    encode_config,
    encode_logger_level,
    encode_restart_request,
    encode_session_key,
    encode_target_state,
    encode_task_count,
    logger_key,
    parse_task_key,
    restart_key,
    target_state_key,
    task_count_key,
    task_key,
)
from kconnect.runtime.storage.config_store import (
    ClusterConfigState,
    ConfigBackingStore,
    ConfigUpdateListener,
)
from kconnect.runtime.storage.internal_topics import (
    AdminFactory,
    build_internal_log,
    client_id_base,
    verify_single_partition,
)

__all__ = ["KafkaClusterConfigState", "KafkaConfigBackingStore", "PrivilegedWriteException"]

log = logging.getLogger(__name__)

READ_WRITE_TOTAL_TIMEOUT_S = 30.0


class PrivilegedWriteException(ConnectException):
    """A leader-only write to the config topic failed on the fencable writer (e.g. another
    leader fenced this one out); the write privileges are gone until claimed again."""


# -- snapshot and listener ------------------------------------------------------------------------


@dataclass(frozen=True)
class KafkaClusterConfigState(ClusterConfigState):
    """A :class:`ClusterConfigState` read from the config topic.

    ``offset``: the config offset (next record to read; -1 before anything was read).
    ``inconsistent``: connectors whose latest commit record lacked some task configs; their
    task list is empty until the leader rewrites the task configs.
    """

    session_key: SessionKey | None = None
    inconsistent: frozenset[str] = frozenset()
    task_count_records: Mapping[str, int] = field(default_factory=dict)
    task_config_generations: Mapping[str, int] = field(default_factory=dict)
    pending_fencing: frozenset[str] = frozenset()


# -- the store ------------------------------------------------------------------------------------


class KafkaConfigBackingStore(ConfigBackingStore):
    """The config store of a distributed worker; thread-safe.

    ``start()`` (herder thread) creates/verifies the topic and reads it to the end; write
    methods block until acknowledged (config writes also until read back) and raise
    :class:`~kconnect.api.errors.ConnectException` after 30 s or on a failed write.
    """

    def __init__(
        self,
        config: DistributedConfig,
        admin_factory: AdminFactory | None = None,
        log_factory: Any = None,
        clock: Clock | None = None,
    ) -> None:
        self.topic = config.config_topic
        self._clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._started = False
        self._listener: ConfigUpdateListener = ConfigUpdateListener()
        self._offset = -1
        self._session_key: SessionKey | None = None
        self._connector_configs: dict[str, dict[str, str]] = {}
        self._task_counts: dict[str, int] = {}
        self._task_configs: dict[ConnectorTaskId, dict[str, str]] = {}
        self._deferred: dict[str, dict[ConnectorTaskId, dict[str, str]]] = {}
        self._target_states: dict[str, TargetState] = {}
        self._inconsistent: set[str] = set()
        self._applied: dict[str, dict[str, str]] = {}
        self._task_count_records: dict[str, int] = {}
        self._generations: dict[str, int] = {}
        self._pending_fencing: set[str] = set()
        # the maps of snapshot(), built on first use after a change (None: changed since)
        self._snapshot_maps: dict[str, Any] | None = None
        # each connector's read-only views in those maps, remade only for the connectors whose
        # records arrived since (a change to one of thousands of connectors rebuilds one entry)
        self._views = _ConnectorViews()
        self._uses_fencable_writer = config.transactional_leader_enabled
        self._fencable: Producer | None = None
        self._fenced = False
        client_id = client_id_base(config) + "configs"
        self._fencable_props: dict[str, object] = {
            **config.internal_client_props(),
            "client.id": client_id + "-leader",
            "acks": "all",
            "max.in.flight.requests.per.connection": 5,
            "enable.idempotence": "true",
            "transactional.id": config.transactional_producer_id(),
        }
        factory = log_factory or build_internal_log
        self._log: KafkaBasedLog = factory(
            config,
            config.config_topic_spec(),
            client_id,
            self._on_record,
            None,
            admin_factory,
            {"isolation.level": "read_committed"} if config.exactly_once_source_enabled else None,
        )

    def set_update_listener(self, listener: ConfigUpdateListener) -> None:
        """Set before :meth:`start`; receives changes read after start."""
        self._listener = listener

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        log.info("Starting KafkaConfigBackingStore")
        self._log.start()
        verify_single_partition(self.topic, self._log.partition_count())
        self._started = True
        log.info("Started KafkaConfigBackingStore")

    def stop(self) -> None:
        log.info("Closing KafkaConfigBackingStore")
        self.relinquish_write_privileges()
        self._log.stop()
        log.info("Closed KafkaConfigBackingStore")

    # -- reads --------------------------------------------------------------------------------

    def snapshot(self) -> KafkaClusterConfigState:
        """The current config state, immutable. Its maps are built once per change of the
        store (a REST read of every connector's status and info calls this several times per
        connector: rebuilding a thousand connectors' maps each time made that read quadratic);
        the offset and session key are the current ones."""
        with self._lock:
            maps = self._snapshot_maps
            if maps is None:
                maps = self._snapshot_maps = self._build_snapshot_maps()
            return KafkaClusterConfigState(
                offset=self._offset, session_key=self._session_key, **maps
            )

    def _build_snapshot_maps(self) -> dict[str, Any]:
        """The maps of :meth:`snapshot` (under the lock)."""
        views = self._views
        for connector in views.take_changed():
            config = self._connector_configs.get(connector)
            views.set(views.configs, connector, config)
            views.set(views.applied, connector, self._applied.get(connector))
            count = self._task_counts.get(connector)
            tasks = None
            if count is not None and connector not in self._inconsistent:
                configs = [
                    self._task_configs.get(ConnectorTaskId(connector, i)) for i in range(count)
                ]
                if all(c is not None for c in configs):
                    tasks = tuple(MappingProxyType(c) for c in configs if c is not None)
            if tasks is None:
                views.tasks.pop(connector, None)
            else:
                views.tasks[connector] = tasks
        return {
            "connector_configs": MappingProxyType(dict(views.configs)),
            "task_configs": MappingProxyType(dict(views.tasks)),
            "target_states": MappingProxyType(dict(self._target_states)),
            "applied_connector_configs": MappingProxyType(dict(views.applied)),
            "inconsistent": frozenset(self._inconsistent),
            "task_count_records": MappingProxyType(dict(self._task_count_records)),
            "task_config_generations": MappingProxyType(dict(self._generations)),
            "pending_fencing": frozenset(self._pending_fencing),
        }

    def contains(self, connector: str) -> bool:
        with self._lock:
            return connector in self._connector_configs

    def refresh(self, timeout_s: float) -> None:
        """Read the topic to its current end.

        Raises:
            TimeoutError: not caught up within ``timeout_s``.
        """
        self._log.read_to_end(timeout_s)

    # -- write privileges (leader, exactly-once source) -----------------------------------------

    @property
    def uses_fencable_writer(self) -> bool:
        return self._uses_fencable_writer

    def claim_write_privileges(self) -> None:
        """Leader (herder thread): start the fencable writer, fencing out any earlier leader's.
        A no-op unless exactly-once source is ``preparing`` or ``enabled``.

        Raises:
            ConnectException: the transactional producer could not be initialized.
        """
        if not self._uses_fencable_writer or self._fencable is not None:
            self._fenced = False
            return
        try:
            producer = Producer(self._fencable_props)
            self._fencable = producer
            producer.init_transactions(READ_WRITE_TOTAL_TIMEOUT_S)
        except Exception as e:
            self.relinquish_write_privileges()
            raise ConnectException(
                "Failed to create and initialize fencable producer for config topic"
            ) from e
        self._fenced = False

    def relinquish_write_privileges(self) -> None:
        self._fenced = False
        producer, self._fencable = self._fencable, None
        if producer is not None:
            try:
                producer.close(0)
            except Exception:
                log.debug("Closing the fencable producer failed", exc_info=True)

    @property
    def write_privileges_lost(self) -> bool:
        """A privileged write failed since the privileges were last claimed."""
        return self._fenced

    # -- writes -------------------------------------------------------------------------------

    def _now_s(self) -> float:
        return self._clock.monotonic_ms() / 1000.0

    def _send_all(self, records: list[tuple[str, bytes | None]], deadline: float) -> None:
        futures: list[Future[RecordPosition]] = [
            self._log.send(k.encode("utf-8"), v) for k, v in records
        ]
        for f in futures:
            f.result(max(0.0, deadline - self._now_s()))

    def _read_to_end(self, deadline: float) -> None:
        self._log.read_to_end(max(0.0, deadline - self._now_s()))

    def _send_privileged(self, records: list[tuple[str, bytes | None]], deadline: float) -> None:
        """Leader-only records: one transaction of the fencable writer when it is in use."""
        if not self._uses_fencable_writer:
            self._send_all(records, deadline)
            return
        producer = self._fencable
        if producer is None:
            raise ConnectException(
                "Cannot produce to config topic without claiming write privileges first"
            )
        try:
            producer.begin_transaction()
            for key, value in records:
                producer.produce(self.topic, value, key.encode("utf-8"))
            producer.commit_transaction(max(1.0, deadline - self._now_s()))
        except Exception as e:
            log.warning("Failed to perform fencable send to config topic: %s", e)
            self.relinquish_write_privileges()
            self._fenced = True
            raise PrivilegedWriteException(
                "Failed to write to config topic; this may be due to a transient error and the "
                "request can be safely retried"
            ) from e

    def _write(
        self,
        what: str,
        records: list[tuple[str, bytes | None]],
        read_back: bool,
        privileged: bool = True,
    ) -> None:
        deadline = self._now_s() + READ_WRITE_TOTAL_TIMEOUT_S
        try:
            if privileged:
                self._send_privileged(records, deadline)
            else:
                self._send_all(records, deadline)
            if read_back:
                self._read_to_end(deadline)
        except (FutureTimeout, TimeoutError) as e:
            raise ConnectException(
                f"Error writing {what} to Kafka topic {self.topic}: timed out after "
                f"{READ_WRITE_TOTAL_TIMEOUT_S:.0f} s"
            ) from e
        except PrivilegedWriteException:
            raise
        except ConnectException as e:
            raise ConnectException(f"Error writing {what} to Kafka topic {self.topic}: {e}") from e

    def put_connector_config(
        self, connector: str, config: Mapping[str, str], target_state: TargetState | None
    ) -> None:
        """Write the config (after the target state, if given) and read it back."""
        records: list[tuple[str, bytes | None]] = []
        if target_state is not None:
            records.append((target_state_key(connector), encode_target_state(target_state)))
        records.append((connector_key(connector), encode_config(config)))
        self._write(f"connector configuration for {connector}", records, True)

    def remove_connector_config(self, connector: str) -> None:
        """Tombstone the connector config and its target state; task configs stay (as in Kafka)."""
        self._write(
            f"removal of connector {connector}",
            [(connector_key(connector), None), (target_state_key(connector), None)],
            True,
        )

    def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Write ``task-<c>-<n>`` for every config, then ``commit-<c>``, then read to the end."""
        deadline = self._now_s() + READ_WRITE_TOTAL_TIMEOUT_S
        what = f"task configurations for {connector}"
        try:
            # Be at the end of the log first: nothing lagging may interleave with our batch.
            self._read_to_end(deadline)
            records: list[tuple[str, bytes | None]] = [
                (task_key(ConnectorTaskId(connector, i)), encode_config(c))
                for i, c in enumerate(configs)
            ]
            commit = (commit_key(connector), encode_commit(len(configs)))
            if self._uses_fencable_writer:
                self._send_privileged([*records, commit], deadline)  # one transaction, as Kafka
            else:
                # The task records are acknowledged before the commit is sent, so the commit
                # cannot land before them. Kafka also reads to the end between the two; that
                # read adds a round trip to every connector created and orders nothing more
                # (design-notes.md, issue 34).
                self._send_all(records, deadline)
                self._send_all([commit], deadline)
            self._read_to_end(deadline)
        except (FutureTimeout, TimeoutError) as e:
            raise ConnectException(
                f"Error writing {what} to Kafka topic {self.topic}: timed out"
            ) from e
        except PrivilegedWriteException:
            raise
        except ConnectException as e:
            raise ConnectException(f"Error writing {what} to Kafka topic {self.topic}: {e}") from e

    def remove_task_configs(self, connector: str) -> None:
        """Not supported by the config topic (as in Kafka): task configs are replaced by the
        next commit, and ignored once the connector config is gone."""
        raise ConnectException("Removal of tasks is not currently supported")

    def put_target_state(self, connector: str, state: TargetState) -> None:
        """Write a target state; returns once acknowledged (any worker may call this)."""
        self._write(
            f"target state of {connector}",
            [(target_state_key(connector), encode_target_state(state))],
            False,
            privileged=False,
        )

    def put_task_count_record(self, connector: str, task_count: int) -> None:
        self._write(
            f"task count record of {connector}",
            [(task_count_key(connector), encode_task_count(task_count))],
            True,
        )

    def put_session_key(self, key: SessionKey) -> None:
        self._write("session key", [(SESSION_KEY_KEY, encode_session_key(key))], True)

    def put_restart_request(self, request: RestartRequest) -> None:
        self._write(
            str(request), [(restart_key(request.connector), encode_restart_request(request))], True
        )

    def put_logger_level(self, namespace: str, level: str) -> None:
        self._write(
            f"logger level of {namespace}",
            [(logger_key(namespace), encode_logger_level(level))],
            False,
            privileged=False,
        )

    # -- the log thread -----------------------------------------------------------------------

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, offset: int) -> None:
        if raw_key is None:
            log.error("Discarding config record at offset %d without a key", offset)
            return
        key = raw_key.decode("utf-8", "replace")
        try:
            value = None if raw_value is None else orjson.loads(raw_value)
        except orjson.JSONDecodeError as e:
            log.error("Failed to convert config data at offset %d (key %s): %s", offset, key, e)
            return
        self._offset = offset + 1
        if key.startswith(TARGET_STATE_PREFIX):
            self._target_state_record(key[len(TARGET_STATE_PREFIX) :], value)
        elif key.startswith(CONNECTOR_PREFIX):
            self._connector_record(key[len(CONNECTOR_PREFIX) :], value)
        elif key.startswith(TASK_PREFIX):
            task_id = parse_task_key(key)
            if task_id is None:
                log.error("Ignoring task configuration because %s couldn't be parsed", key)
            else:
                self._task_record(task_id, value)
        elif key.startswith(COMMIT_TASKS_PREFIX):
            self._commit_record(key[len(COMMIT_TASKS_PREFIX) :], value)
        elif key.startswith(RESTART_PREFIX):
            self._restart_record(key[len(RESTART_PREFIX) :], value)
        elif key.startswith(TASK_COUNT_RECORD_PREFIX):
            self._task_count_record(key[len(TASK_COUNT_RECORD_PREFIX) :], value)
        elif key == SESSION_KEY_KEY:
            self._session_key_record(value)
        elif key.startswith(LOGGER_CLUSTER_PREFIX):
            self._logger_record(key[len(LOGGER_CLUSTER_PREFIX) :], value)
        else:
            log.error("Discarding config update record with invalid key: %s", key)

    def _target_state_record(self, connector: str, value: Any) -> None:
        removed = False
        changed = True
        with self._lock:
            self._snapshot_maps = None
            if value is None:
                self._target_states.pop(connector, None)
                removed = True
                # Each existing connector always has a target state.
                if connector in self._connector_configs:
                    self._target_states[connector] = TargetState.STARTED
            else:
                state = decode_target_state(value) if isinstance(value, dict) else None
                if state is None:
                    log.error("Invalid target state for connector '%s': %r", connector, value)
                    return
                changed = self._target_states.get(connector) is not state
                self._target_states[connector] = state
            exists = connector in self._connector_configs
        if self._started and not removed and changed and exists:
            self._listener.on_connector_target_state_change(connector)

    def _connector_record(self, connector: str, value: Any) -> None:
        with self._lock:
            self._snapshot_maps = None
            self._views.changed(connector)
            if value is None:
                self._remove_connector(connector)
                log.info("Successfully processed removal of connector '%s'", connector)
            else:
                props = value.get("properties") if isinstance(value, dict) else None
                if not isinstance(props, dict):
                    log.error("Ignoring configuration for connector '%s': wrong format", connector)
                    return
                self._connector_configs[connector] = props
                self._target_states.setdefault(connector, TargetState.STARTED)
        if self._started:
            if value is None:
                self._listener.on_connector_config_remove(connector)
            else:
                self._listener.on_connector_config_update(connector)

    def _task_record(self, task_id: ConnectorTaskId, value: Any) -> None:
        props = value.get("properties") if isinstance(value, dict) else None
        if not isinstance(props, dict):
            log.error("Ignoring task configuration for task %s: null or wrong format", task_id)
            return
        with self._lock:
            self._deferred.setdefault(task_id.connector, {})[task_id] = props

    def _commit_record(self, connector: str, value: Any) -> None:
        updated: list[ConnectorTaskId] = []
        with self._lock:
            self._snapshot_maps = None
            self._views.changed(connector)
            config = self._connector_configs.get(connector)
            if config is None:
                # Deleted connector whose config and tombstone were compacted away.
                self._remove_connector(connector)
                log.debug("Ignoring task configs for deleted connector %s", connector)
                return
            count = value.get("tasks") if isinstance(value, dict) else None
            if not isinstance(count, int) or isinstance(count, bool):
                log.error("Ignoring task commit for connector '%s': wrong format", connector)
                return
            deferred = self._deferred.get(connector, {})
            present = {t.task for t in deferred}
            if not all(i in present for i in range(count)):
                # Some task configs were compacted away: unusable until the leader rewrites.
                self._inconsistent.add(connector)
            else:
                self._task_configs.update(deferred)
                updated.extend(deferred)
                if deferred:
                    self._generations[connector] = self._generations.get(connector, -1) + 1
                self._inconsistent.discard(connector)
                self._applied[connector] = config
            deferred.clear()
            self._task_counts[connector] = count
            self._pending_fencing.add(connector)
        if self._started:
            self._listener.on_task_config_update(updated)

    def _restart_record(self, connector: str, value: Any) -> None:
        if not isinstance(value, dict):
            log.error("Ignoring restart request because the value is not a Map: %r", value)
            return
        only_failed = value.get("only-failed")
        include_tasks = value.get("include-tasks")
        request = RestartRequest(
            connector,
            only_failed if isinstance(only_failed, bool) else False,
            include_tasks if isinstance(include_tasks, bool) else False,
        )
        if self._started:
            self._listener.on_restart_request(request)

    def _task_count_record(self, connector: str, value: Any) -> None:
        count = value.get("task-count") if isinstance(value, dict) else None
        if not isinstance(count, int):
            log.error("Ignoring task count record for connector '%s': wrong format", connector)
            return
        with self._lock:
            self._snapshot_maps = None
            self._task_count_records[connector] = count
            self._pending_fencing.discard(connector)

    def _session_key_record(self, value: Any) -> None:
        if not isinstance(value, dict):
            log.error("Ignoring session key because the value is null or not a Map")
            return
        raw, algorithm, created = (
            value.get("key"),
            value.get("algorithm"),
            value.get("creation-timestamp"),
        )
        if (
            not isinstance(raw, str)
            or not isinstance(algorithm, str)
            or not isinstance(created, int)
        ):
            log.error("Ignoring session key with invalid fields")
            return
        key = SessionKey(base64.b64decode(raw), algorithm, created)
        with self._lock:
            self._session_key = key
        if self._started:
            self._listener.on_session_key_update(key)

    def _logger_record(self, namespace: str, value: Any) -> None:
        level = value.get("level") if isinstance(value, dict) else None
        if not isinstance(level, str):
            log.error("Ignoring logging level for namespace %s: null or wrong format", namespace)
            return
        if self._started:
            self._listener.on_logger_level(namespace, level)

    def _remove_connector(self, connector: str) -> None:
        self._views.removed(connector)
        self._connector_configs.pop(connector, None)
        self._task_counts.pop(connector, None)
        for task_id in [t for t in self._task_configs if t.connector == connector]:
            del self._task_configs[task_id]
        self._deferred.pop(connector, None)
        self._applied.pop(connector, None)


class _ConnectorViews:
    """Read-only views of each connector's config, applied config and task configs, as the
    snapshot maps hold them, with the connectors changed since they were last made."""

    __slots__ = ("_changed", "applied", "configs", "tasks")

    def __init__(self) -> None:
        self.configs: dict[str, MappingProxyType[str, str]] = {}
        self.applied: dict[str, MappingProxyType[str, str]] = {}
        self.tasks: dict[str, tuple[Mapping[str, str], ...]] = {}
        # the connectors changed since the views were made, in the order of their records
        # (a new connector's views come after the others', as in the store's own dicts)
        self._changed: dict[str, None] = {}

    def changed(self, connector: str) -> None:
        self._changed[connector] = None

    def removed(self, connector: str) -> None:
        """Forget ``connector``'s views now (made again, last, if it comes back)."""
        for views in (self.configs, self.applied, self.tasks):
            views.pop(connector, None)
        self._changed[connector] = None

    def take_changed(self) -> list[str]:
        got, self._changed = self._changed, {}
        return list(got)

    @staticmethod
    def set(
        views: dict[str, MappingProxyType[str, str]], connector: str, config: dict[str, str] | None
    ) -> None:
        if config is None:
            views.pop(connector, None)
        else:
            views[connector] = MappingProxyType(config)
