"""``Worker``: runs the connectors and tasks the herder assigns to this process.

The worker owns no cluster state: the herder tells it what to start and stop (see
``RUNTIME_CONTRACT.md``). Each connector and each task runs on its own thread
(:class:`~kconnect.runtime.worker.worker_connector.WorkerConnector`,
:class:`~kconnect.runtime.worker.worker_source_task.WorkerSourceTask`,
:class:`~kconnect.runtime.worker.worker_sink_task.WorkerSinkTask`); statuses are reported to the
listener the herder passes in. Building task pieces lives in
:mod:`kconnect.runtime.worker.task_builder`, the offsets API in :mod:`kconnect.runtime.worker.connector_offsets`.

All public methods are thread-safe and are called from herder/REST threads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kconnect.api.config_types import class_name
from kconnect.api.connector import Connector, SinkConnector, SourceConnector
from kconnect.api.errors import ConfigException, ConnectException
from kconnect.api.task import SinkTask, SourceTask
from kconnect.kafka.admin import Admin
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.config.connector_config import (
    CONNECTOR_CLASS_CONFIG,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    ConnectorConfig,
    SinkConnectorConfig,
    SourceConnectorConfig,
)
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.worker.connector_offsets import SinkOffsets, SourceOffsets
from kconnect.runtime.worker.errors.stage import executing_class_name
from kconnect.runtime.worker.task_builder import TaskBuilder
from kconnect.runtime.worker.worker_connector import WorkerConnector
from kconnect.runtime.worker.worker_task import TaskPlugins, TaskServices, WorkerTask

__all__ = ["CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S", "TooManyTasksException", "Worker"]

log = logging.getLogger(__name__)

CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S = 5.0
TASK_CLASS_CONFIG = "task.class"


class TooManyTasksException(ConnectException):
    """The connector produced more task configs than ``tasks.max`` (KIP-1004)."""


#: How long start_connector waits for Connector.start() before returning anyway.
CONNECTOR_START_WAIT_S = 30.0


class Worker:
    def __init__(
        self,
        worker_id: str,
        config: WorkerConfig,
        plugins: Plugins,
        offset_store: OffsetBackingStore,
        *,
        config_transformer: ConfigTransformer | None = None,
        clock: Clock | None = None,
        metrics: ConnectMetrics | None = None,
    ) -> None:
        self.worker_id = worker_id
        self.config = config
        self.plugins = plugins
        self.offset_store = offset_store
        self.config_transformer = config_transformer
        self.clock = clock or SystemClock()
        # Worker-wide metrics (``/metrics``); the distributed herder calls
        # ``metrics.rebalance.rebalance_started/completed``.
        self.metrics = metrics or ConnectMetrics.from_worker_config(worker_id, config, clock)
        self.builder = TaskBuilder(config, plugins, offset_store, self.clock)
        self._lock = threading.RLock()
        self._connectors: dict[str, WorkerConnector] = {}
        self._tasks: dict[ConnectorTaskId, WorkerTask] = {}
        self._active_topics: dict[str, set[str]] = {}
        self._cluster_id: str | None = None
        self._admin: Admin | None = None
        self._tracking = config.get_boolean("topic.tracking.enable")
        self._check_worker_converters()

    def _check_worker_converters(self) -> None:
        """Refuse to start with a worker converter class no plugin provides, as Kafka's
        WorkerConfig does (CLASS keys must resolve), naming the key and the closest names."""
        for kind in ("key", "value", "header"):
            name, _ = self.config.converter_configs(kind)
            plugin_kind = "header_converter" if kind == "header" else "converter"
            try:
                self.plugins.resolve(plugin_kind, name)
            except ConfigException as e:
                raise ConfigException(f"{kind}.converter", name, str(e)) from None

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the offset store (loads stored offsets). Called once by the herder."""
        log.info("Worker starting")
        self.offset_store.start()
        log.info("Worker started")

    def stop(self) -> None:
        """Stop every task and connector (``task.shutdown.graceful.timeout.ms`` in total for
        the tasks), then the offset store."""
        log.info("Worker stopping")
        self.stop_and_await_tasks(self.task_ids())
        for name in list(self.connector_names()):
            self.stop_and_await_connector(name)
        self.offset_store.stop()
        log.info("Worker stopped")

    def _shared_admin(self) -> Admin:
        with self._lock:
            if self._admin is None:
                self._admin = Admin(
                    {
                        **self.config.java_admin_props(),
                        "client.id": f"{self.worker_id}-shared-admin",
                    }
                )
            return self._admin

    def kafka_cluster_id(self) -> str:
        """The Kafka cluster id (cached). Raises KafkaClientError when Kafka is unreachable."""
        if self._cluster_id is None:
            self._cluster_id = self._shared_admin().cluster_id()
        return self._cluster_id

    # -- connectors -----------------------------------------------------------------------------

    def _new_connector(self, props: Mapping[str, str]) -> Connector:
        # The class comes first: which ConnectorConfig applies (sink or source) depends on it.
        cls = (props.get(CONNECTOR_CLASS_CONFIG) or "").strip()
        if not cls:
            raise ConnectException(f"Connector config is missing '{CONNECTOR_CLASS_CONFIG}'")
        return self.plugins.new_connector(cls)

    def start_connector(
        self,
        name: str,
        props: Mapping[str, str],
        status_listener: StatusListener,
        target_state: TargetState,
        request_reconfiguration: Callable[[str], None],
    ) -> None:
        """Start ``name`` on its own thread in ``target_state``.

        A connector that cannot be created is reported FAILED through the listener (no
        exception). Raises ConnectException if it already runs on this worker.
        """
        with self._lock:
            if name in self._connectors:
                raise ConnectException(f"Connector with name {name} already exists")
            try:
                connector = self._new_connector(props)
            except Exception as e:
                log.error("[%s|worker] Failed to start connector %s", name, name, exc_info=e)
                self.metrics.connector_startup_failed()
                status_listener.on_failure(name, e)
                return
            status_listener = self.metrics.connector_listener(
                name, status_listener, _connector_info(connector)
            )
            reader = (
                OffsetStorageReaderImpl(self.offset_store, name)
                if isinstance(connector, SourceConnector)
                else None
            )
            wc = WorkerConnector(
                name,
                connector,
                props,
                status_listener,
                target_state,
                request_reconfiguration,
                reader,
            )
            self._connectors[name] = wc
        log.info(
            "[%s|worker] Creating connector %s of type %s",
            name,
            name,
            class_name(type(connector)),
        )
        wc.start()
        # Like Kafka's herders, which ask for task configs only from the start callback: wait
        # (bounded) for start() so the caller's connector_task_configs finds it running; a
        # connector that takes longer requests its task reconfiguration once it has started.
        wc.await_initial_state(CONNECTOR_START_WAIT_S)

    def plugin_version(self, key: str | ConnectorTaskId) -> str | None:
        """The ``version()`` of the connector (``key`` a name) or task running here, as Kafka
        4.1 writes it into each status; None when it is not running on this worker."""
        if isinstance(key, ConnectorTaskId):
            task = self._tasks.get(key)
            plugin = getattr(task, "task", None) if task is not None else None
        else:
            wc = self._connectors.get(key)
            plugin = wc.connector if wc is not None else None
        return None if plugin is None else _version(plugin)

    def is_running(self, name: str) -> bool:
        wc = self._connectors.get(name)
        return wc is not None and wc.is_running()

    def connector_task_configs(self, name: str, props: Mapping[str, str]) -> list[dict[str, str]]:
        """Task configs from the running connector, with ``task.class`` (and, for sinks,
        ``topics``/``topics.regex``) added.

        Raises:
            ConnectException: the connector is not running here.
            TooManyTasksException: more configs than ``tasks.max`` and ``tasks.max.enforce``.
        """
        wc = self._connectors.get(name)
        if wc is None:
            raise ConnectException(f"Connector {name} not found in this worker.")
        config = ConnectorConfig(props)
        max_tasks = config.tasks_max
        connector = wc.connector
        with wc.lock:
            configs = connector.task_configs(max_tasks)
        if len(configs) > max_tasks:
            if config.tasks_max_enforce:
                error = TooManyTasksException(
                    f"The connector {name} has generated {len(configs)} tasks, which is greater "
                    f"than {max_tasks}, the maximum number of tasks it is configured to create. "
                    "This behaviour should be considered a bug and is disallowed. If necessary, "
                    "it can be permitted by reconfiguring the connector with 'tasks.max.enforce' "
                    "set to false; however, this option will be removed in a future release of "
                    "Kafka Connect."
                )
                wc._fail(error)
                raise error
            log.warning(
                "[%s|worker] The connector %s has generated %d tasks, which is greater "
                "than %d, the maximum number of tasks it is configured to create. This "
                "behaviour should be considered a bug and will be disallowed in future "
                "releases of Kafka Connect. Please report this to the maintainers of "
                "the connector and request that they adjust their connector's "
                "taskConfigs() method to respect the maxTasks parameter.",
                name,
                name,
                len(configs),
                max_tasks,
            )
        task_class = class_name(connector.task_class())
        out = []
        for c in configs:
            cfg = {str(k): str(v) for k, v in c.items()}
            cfg[TASK_CLASS_CONFIG] = task_class
            if isinstance(connector, SinkConnector):
                # Kafka copies the connector's subscription into every sink task config.
                for key in (TOPICS_CONFIG, TOPICS_REGEX_CONFIG):
                    if key in config.props:
                        cfg[key] = config.props[key]
            out.append(cfg)
        return out

    def stop_and_await_connector(self, name: str) -> None:
        """Stop the connector (``connector.stop()`` on its thread) and wait up to 5 s."""
        with self._lock:
            wc = self._connectors.pop(name, None)
        if wc is None:
            log.warning("Ignoring stop request for unowned connector %s", name)
            return
        wc.shutdown()
        self.metrics.connector_removed(name)
        if not wc.await_shutdown(CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S):
            log.error(
                "[%s|worker] Connector '%s' failed to properly shut down, has become "
                "unresponsive, and may be consuming external resources. Correct the "
                "configuration for this connector or remove the connector.",
                name,
                name,
            )

    def set_target_state(self, name: str, state: TargetState) -> None:
        """Pause/resume/stop the connector (applied before returning, up to 5 s) and move its
        tasks on this worker to the same target (tasks treat STOPPED as PAUSED; the herder
        stops them)."""
        wc = self._connectors.get(name)
        if wc is not None:
            wc.transition_to(state, CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S)
        for task_id, task in list(self._tasks.items()):
            if task_id.connector == name:
                task.transition_to(state)

    def connector_names(self) -> set[str]:
        with self._lock:
            return set(self._connectors)

    # -- tasks ----------------------------------------------------------------------------------

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        status_listener: StatusListener,
        target_state: TargetState,
    ) -> bool:
        """Build and start a task; False (and FAILED reported) if it could not be built.

        Raises ConnectException if the task already runs on this worker.
        """
        with self._lock:
            if task_id in self._tasks:
                raise ConnectException(f"Task already exists in this worker: {task_id}")
        log.info("[%s|task-%d] Creating task %s", task_id.connector, task_id.task, task_id)
        listener = status_listener
        try:
            connector = self._new_connector(connector_props)
            task = connector.task_class()()
            tracker = self._track_topic if self._tracking else None
            is_sink = isinstance(connector, SinkConnector)
            config = ConnectorConfig.for_connector(connector_props, is_sink)
            listener, bundle = self.metrics.task_started(
                task_id, status_listener, _connector_info(connector, task), is_sink
            )
            services = TaskServices(listener, self.clock, bundle, tracker)
            if isinstance(config, SourceConnectorConfig) and isinstance(task, SourceTask):
                wt: WorkerTask = self.builder.source_task(
                    task_id, task, config, task_props, target_state, services
                )
            elif isinstance(config, SinkConnectorConfig) and isinstance(task, SinkTask):
                wt = self.builder.sink_task(
                    task_id, task, config, task_props, target_state, services
                )
            else:
                raise ConnectException(
                    f"{type(connector).__name__} is neither a source nor a sink connector"
                )
        except Exception as e:
            log.error(
                "[%s|task-%d] Failed to start task %s",
                task_id.connector,
                task_id.task,
                task_id,
                exc_info=e,
            )
            if listener is status_listener:  # failed before metrics were registered
                self.metrics.worker.record_task_startup_attempt()
            self.metrics.task_startup_failed(task_id)
            status_listener.on_failure(task_id, e)
            return False
        bundle.task.add_info(_converter_info(wt.plugins))
        chain = wt.plugins.chain
        for stage in chain.stages if chain is not None else ():
            bundle.add_stage_info(
                task_id, "transform", stage.alias, stage.class_name, _version(stage.transformation)
            )
            if stage.predicate is not None:
                bundle.add_stage_info(
                    task_id,
                    "predicate",
                    str(stage.predicate_alias),
                    executing_class_name(stage.predicate),
                    _version(stage.predicate),
                )
        with self._lock:
            self._tasks[task_id] = wt
        wt.start()
        return True

    def stop_and_await_task(self, task_id: ConnectorTaskId) -> None:
        self.stop_and_await_tasks([task_id])

    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
        """Stop tasks and wait for them, ``task.shutdown.graceful.timeout.ms`` in total; a task
        still running then is cancelled (abandoned) with an error log."""
        ids = list(ids)
        stopping: list[tuple[ConnectorTaskId, WorkerTask]] = []
        for task_id in ids:
            with self._lock:
                task = self._tasks.get(task_id)
            if task is None:
                log.warning("Ignoring stop request for unowned task %s", task_id)
                continue
            log.info("[%s|task-%d] Stopping task %s", task_id.connector, task_id.task, task_id)
            task.stop()
            stopping.append((task_id, task))
        deadline = self.clock.monotonic_ms() + self.config.graceful_shutdown_timeout_ms
        for task_id, task in stopping:
            remaining = (deadline - self.clock.monotonic_ms()) / 1000.0
            if not task.await_stop(remaining):
                log.error(
                    "[%s|task-%d] Graceful stop of task %s failed.",
                    task_id.connector,
                    task_id.task,
                    task_id,
                )
                task.cancel()
            with self._lock:
                if self._tasks.get(task_id) is task:
                    del self._tasks[task_id]
            self.metrics.task_removed(task_id)

    def task_ids(self) -> set[ConnectorTaskId]:
        with self._lock:
            return set(self._tasks)

    # -- topic tracking (KIP-558) ---------------------------------------------------------------

    def _track_topic(self, connector: str, topic: str) -> None:
        with self._lock:
            self._active_topics.setdefault(connector, set()).add(topic)

    def connector_active_topics(self, name: str) -> set[str]:
        with self._lock:
            return set(self._active_topics.get(name, ()))

    def reset_connector_active_topics(self, name: str) -> None:
        with self._lock:
            self._active_topics.pop(name, None)

    # -- offsets (KIP-875) ----------------------------------------------------------------------

    def connector_offsets(self, name: str, props: Mapping[str, str]) -> list[dict[str, Any]]:
        """``[{"partition": {...}, "offset": {...}}]`` of a source or sink connector."""
        connector = self._new_connector(props)
        if isinstance(connector, SinkConnector):
            return SinkOffsets(self._shared_admin()).read(SinkConnectorConfig(props).sink_group_id)
        return SourceOffsets(self.offset_store).read(name)

    def modify_connector_offsets(
        self, name: str, props: Mapping[str, str], offsets: list[dict[str, Any]] | None
    ) -> str:
        """Alter (``offsets``) or reset (None) the connector's offsets; Kafka's message.

        Raises:
            BadRequestException: malformed offsets (400).
            ConnectException: the connector refused or the write failed.
        """
        connector = self._new_connector(props)
        if isinstance(connector, SinkConnector):
            admin = Admin(self.builder.admin_props(props))
            group = SinkConnectorConfig(props).sink_group_id
            return SinkOffsets(admin).modify(group, connector, props, offsets)
        if isinstance(connector, SourceConnector):
            return SourceOffsets(self.offset_store).modify(name, connector, props, offsets)
        raise ConnectException(
            f"{type(connector).__name__} is neither a source nor a sink connector"
        )


def _version(plugin: object) -> str:
    fn = getattr(plugin, "version", None)
    if callable(fn):
        try:
            return str(fn())
        except Exception:
            return "undefined"
    return "undefined"


def _connector_info(connector: Connector, task: object | None = None) -> dict[str, str]:
    """Kafka's (4.1) class/version info metrics of a connector and, with ``task``, its task."""
    info = {
        "connector-class": class_name(type(connector)),
        "connector-type": "sink" if isinstance(connector, SinkConnector) else "source",
        "connector-version": _version(connector),
    }
    if task is not None:
        info["task-class"] = class_name(type(task))
        info["task-version"] = _version(task)
    return info


def _converter_info(plugins: TaskPlugins) -> dict[str, str]:
    info: dict[str, str] = {}
    for kind, converter in (
        ("key", plugins.key_converter),
        ("value", plugins.value_converter),
        ("header", plugins.header_converter),
    ):
        info[f"{kind}-converter-class"] = executing_class_name(converter)
        info[f"{kind}-converter-version"] = _version(converter)
    return info
