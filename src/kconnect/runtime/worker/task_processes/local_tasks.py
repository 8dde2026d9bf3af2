"""``LocalTasks``: a worker's tasks on threads of this process.

The in-process :class:`~kconnect.runtime.worker.task_processes.task_executor.TaskExecutor`: each task runs on
its own thread (:class:`~kconnect.runtime.worker.worker_source_task.WorkerSourceTask`,
:class:`~kconnect.runtime.worker.worker_sink_task.WorkerSinkTask`), built by the
:class:`~kconnect.runtime.worker.task_builder.TaskBuilder` from the worker and connector
configs, with its metric groups registered in ``metrics``. A worker with ``task.processes`` 0
or 1 uses it directly; every task process runs one too. Thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping

from kconnect.api.config_types import class_name
from kconnect.api.connector import Connector, SinkConnector
from kconnect.api.errors import ConnectException
from kconnect.api.plugin_metrics import Monitorable
from kconnect.api.task import SinkTask, SourceTask
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.connector_config import (
    CONNECTOR_CLASS_CONFIG,
    ConnectorConfig,
    SinkConnectorConfig,
    SourceConnectorConfig,
)
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.worker.errors.stage import executing_class_name
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.task_builder import TaskBuilder
from kconnect.runtime.worker.task_processes.task_executor import TaskExecutor
from kconnect.runtime.worker.worker_task import TaskPlugins, TaskServices, WorkerTask

__all__ = ["LocalTasks", "connector_info", "new_connector", "plugin_version_of"]

log = logging.getLogger(__name__)


def new_connector(plugins: Plugins, props: Mapping[str, str]) -> Connector:
    """A new, unstarted instance of the connector ``props`` name."""
    # The class comes first: which ConnectorConfig applies (sink or source) depends on it.
    cls = (props.get(CONNECTOR_CLASS_CONFIG) or "").strip()
    if not cls:
        raise ConnectException(f"Connector config is missing '{CONNECTOR_CLASS_CONFIG}'")
    return plugins.new_connector(cls)


class LocalTasks(TaskExecutor):
    """``topic_tracker(connector, topic)`` is told about every topic a task uses (KIP-558)."""

    def __init__(
        self,
        config: WorkerConfig,
        plugins: Plugins,
        offset_store: OffsetBackingStore,
        metrics: ConnectMetrics,
        clock: Clock,
        topic_tracker: Callable[[str, str], None] | None = None,
    ) -> None:
        self.config = config
        self.plugins = plugins
        self.metrics = metrics
        self.clock = clock
        self.builder = TaskBuilder(config, plugins, offset_store, clock)
        self._tracker = topic_tracker
        self._lock = threading.RLock()
        self._tasks: dict[ConnectorTaskId, WorkerTask] = {}

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        status_listener: StatusListener,
        target_state: TargetState,
        preflight: ExactlyOncePreflight | None = None,
    ) -> bool:
        with self._lock:
            if task_id in self._tasks:
                raise ConnectException(f"Task already exists in this worker: {task_id}")
        log.info("[%s|task-%d] Creating task %s", task_id.connector, task_id.task, task_id)
        listener = status_listener
        try:
            connector = new_connector(self.plugins, connector_props)
            task = connector.task_class()()
            is_sink = isinstance(connector, SinkConnector)
            config = ConnectorConfig.for_connector(connector_props, is_sink)
            listener, bundle = self.metrics.task_started(
                task_id, status_listener, connector_info(connector, task), is_sink
            )
            services = TaskServices(listener, self.clock, bundle, self._tracker)
            if isinstance(config, SourceConnectorConfig) and isinstance(task, SourceTask):
                wt: WorkerTask = (
                    self.builder.source_task(
                        task_id, task, config, task_props, target_state, services
                    )
                    if preflight is None
                    else self.builder.exactly_once_source_task(
                        task_id, task, config, task_props, target_state, services, preflight
                    )
                )
            elif isinstance(config, SinkConnectorConfig) and isinstance(task, SinkTask):
                wt = self.builder.sink_task(
                    task_id, task, config, task_props, target_state, services
                )
            else:
                raise ConnectException(
                    f"{type(connector).__name__} is neither a source nor a sink connector"
                )
            try:
                _monitor_plugins(wt.plugins, bundle)
            except BaseException:
                wt.plugins.close(wt.log)
                raise
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
                task_id,
                "transform",
                stage.alias,
                stage.class_name,
                plugin_version_of(stage.transformation),
            )
            if stage.predicate is not None:
                bundle.add_stage_info(
                    task_id,
                    "predicate",
                    str(stage.predicate_alias),
                    executing_class_name(stage.predicate),
                    plugin_version_of(stage.predicate),
                )
        with self._lock:
            self._tasks[task_id] = wt
        wt.start()
        return True

    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
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

    def transition(self, connector: str, state: TargetState) -> None:
        for task_id, task in list(self._tasks.items()):
            if task_id.connector == connector:
                task.transition_to(state)

    def plugin_version(self, task_id: ConnectorTaskId) -> str | None:
        task = self._tasks.get(task_id)
        plugin = getattr(task, "task", None) if task is not None else None
        return None if plugin is None else plugin_version_of(plugin)


def plugin_version_of(plugin: object) -> str:
    """A plugin's ``version()``, ``undefined`` when it has none or it raises."""
    fn = getattr(plugin, "version", None)
    if callable(fn):
        try:
            return str(fn())
        except Exception:
            return "undefined"
    return "undefined"


def connector_info(connector: Connector, task: object | None = None) -> dict[str, str]:
    """Kafka's (4.1) class/version info metrics of a connector and, with ``task``, its task."""
    info = {
        "connector-class": class_name(type(connector)),
        "connector-type": "sink" if isinstance(connector, SinkConnector) else "source",
        "connector-version": plugin_version_of(connector),
    }
    if task is not None:
        info["task-class"] = class_name(type(task))
        info["task-version"] = plugin_version_of(task)
    return info


def _converter_info(plugins: TaskPlugins) -> dict[str, str]:
    info: dict[str, str] = {}
    for kind, converter in (
        ("key", plugins.key_converter),
        ("value", plugins.value_converter),
        ("header", plugins.header_converter),
    ):
        info[f"{kind}-converter-class"] = executing_class_name(converter)
        info[f"{kind}-converter-version"] = plugin_version_of(converter)
    return info


def _monitor_plugins(plugins: TaskPlugins, bundle: TaskMetricsBundle) -> None:
    """Hand each :class:`~kconnect.api.Monitorable` converter, transformation and predicate
    of a task its ``PluginMetrics`` (Kafka's ``ConnectMetrics.wrap``), once, after it was
    configured and before the task starts; the task's bundle removes them with the task."""
    for kind, converter in (
        ("key", plugins.key_converter),
        ("value", plugins.value_converter),
        ("header", plugins.header_converter),
    ):
        if isinstance(converter, Monitorable):
            converter.with_plugin_metrics(bundle.plugin_metrics(converter=kind))
    for stage in plugins.chain.stages if plugins.chain is not None else ():
        if isinstance(stage.transformation, Monitorable):
            stage.transformation.with_plugin_metrics(
                bundle.plugin_metrics(transformation=stage.alias)
            )
        if isinstance(stage.predicate, Monitorable):
            stage.predicate.with_plugin_metrics(
                bundle.plugin_metrics(predicate=str(stage.predicate_alias))
            )
