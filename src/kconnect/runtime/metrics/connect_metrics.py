"""``ConnectMetrics``: the per-worker entry point to the metrics, owner of the registry.

The worker creates one; the REST layer exposes its registry at ``/metrics``. Statuses are
tracked by wrapping the herder's status listener of every connector and task
(:meth:`ConnectMetrics.connector_listener` / :meth:`ConnectMetrics.task_started`, see
:mod:`~kconnect.runtime.metrics.status_listeners`), as Kafka's ``WorkerMetricsGroup`` does,
so the counts reflect what runs on this worker. Thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Protocol

import kconnect
from kconnect.api.plugin_metrics import PluginMetrics
from kconnect.runtime.common.child_processes import (
    resident_memory_bytes,
    running_child_processes,
)
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener
from kconnect.runtime.metrics.foreign_metrics import foreign_metrics
from kconnect.runtime.metrics.registry import (
    MetricFilter,
    MetricGroup,
    MetricName,
    MetricsRegistry,
    MetricValue,
    constant,
)
from kconnect.runtime.metrics.stats import MetricConfig
from kconnect.runtime.metrics.status_listeners import ConnectorStatusMetrics, TaskStatusMetrics
from kconnect.runtime.metrics.task_metrics import (
    KCONNECT_DOMAIN,
    ErrorHandlingMetrics,
    SinkTaskMetrics,
    SourceTaskMetrics,
    TaskMetrics,
)
from kconnect.runtime.metrics.worker_metrics import (
    ConnectorMetrics,
    RebalanceMetrics,
    TaskMetricsBundle,
    WorkerMetrics,
)

__all__ = ["PROCESS_GROUPS", "ConnectMetrics", "Settings"]

#: Groups that describe the whole worker: a task process has them too, but only the worker
#: process exports them (the task-level groups of a task process are merged into /metrics).
PROCESS_GROUPS = frozenset(
    {
        "connect-worker-metrics",
        "connect-coordinator-metrics",
        "connect-worker-rebalance-metrics",
        "connector-metrics",
        "app-info",
    }
)


class Settings(Protocol):
    """What the metrics read of the worker config (``metrics.*`` keys)."""

    def get(self, key: str) -> object: ...


class ConnectMetrics:
    """The metrics of one worker process (Kafka's ``ConnectMetrics``).

    Created by the :class:`~kconnect.runtime.worker.worker.Worker`; the REST layer reads
    :attr:`registry`; the distributed herder calls :attr:`rebalance`'s hooks.
    """

    def __init__(
        self,
        worker_id: str,
        config: MetricConfig | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.worker_id = worker_id
        self.registry = MetricsRegistry(config, clock or SystemClock())
        self.worker = WorkerMetrics(self.registry)
        self.rebalance = RebalanceMetrics(self.registry, "standalone", worker_id)
        # Kafka's AppInfoParser.registerAppInfo("kafka.connect", workerId, ...): when this
        # worker started (its uptime), and what it runs.
        self.start_time_ms = self.registry.clock.milliseconds()
        app_info = MetricGroup(self.registry, "app-info", {"client-id": worker_id})
        app_info.gauge("version", "The version of kconnect.", constant(kconnect.__version__))
        app_info.gauge("commit-id", "The commit id (kconnect).", constant("kconnect"))
        app_info.gauge(
            "start-time-ms",
            "The time the worker started, in ms since the epoch.",
            constant(float(self.start_time_ms)),
        )
        # WorkerCoordinator's group: what the group assigned to this member is what it runs.
        coordinator = MetricGroup(
            self.registry, "connect-coordinator-metrics", {"client-id": worker_id}
        )
        coordinator.gauge(
            "assigned-connectors",
            "The number of connector instances currently assigned to this consumer",
            lambda: float(len(self.worker.connectors)),
        )
        coordinator.gauge(
            "assigned-tasks",
            "The number of tasks currently assigned to this consumer",
            lambda: float(len(self.worker.task_states)),
        )
        self._connectors: dict[str, ConnectorMetrics] = {}
        self._tasks: dict[ConnectorTaskId, TaskMetricsBundle] = {}
        self._lock = threading.Lock()
        # what this process's plugin runtimes measure (the Java plugin host's MBeans)
        self.registry.add_source(foreign_metrics)
        # kconnect extension: this process's helper processes (a JVM plugin host); a task
        # process's reach the worker's /metrics with its task metrics
        self.registry.add_source(self._child_processes)

    @classmethod
    def from_worker_config(
        cls, worker_id: str, config: Settings, clock: Clock | None = None
    ) -> ConnectMetrics:
        """Use ``metrics.num.samples`` and ``metrics.sample.window.ms`` of a WorkerConfig."""

        def setting(key: str, default: int) -> int:
            try:
                value = config.get(key)
            except Exception:
                return default
            return default if value is None else int(str(value))

        return cls(
            worker_id,
            MetricConfig(
                setting("metrics.num.samples", 2), setting("metrics.sample.window.ms", 30000)
            ),
            clock,
        )

    def _child_processes(
        self, only: MetricFilter | None = None
    ) -> Iterator[tuple[MetricName, MetricValue]]:
        for kind, pid in running_child_processes():
            rss = resident_memory_bytes(pid)
            if rss is None:
                continue
            name = MetricName(
                "resident-memory-bytes",
                "child-process",
                (("worker-id", self.worker_id), ("kind", kind), ("pid", str(pid))),
                "kconnect extension: resident memory of a helper process of the worker "
                "(kind java-plugin-host: the JVM running Java plugins), from /proc.",
                KCONNECT_DOMAIN,
            )
            yield name, float(rss)

    # -- connectors ----------------------------------------------------------------------------

    def connector_listener(
        self, name: str, inner: StatusListener, info: Mapping[str, str]
    ) -> StatusListener:
        """Register ``connector-metrics`` for ``name`` (one startup attempt) and return the
        listener to hand to the WorkerConnector."""
        with self._lock:
            old = self._connectors.pop(name, None)
            if old is not None:
                old.close()
            cm = self._connectors[name] = ConnectorMetrics(self.registry, name, info)
        self.worker.connector_added(name)
        self.worker.record_connector_startup_attempt()
        return ConnectorStatusMetrics(inner, self.worker, cm)

    def connector_plugin_metrics(self, name: str) -> PluginMetrics | None:
        """The KIP-877 ``PluginMetrics`` of connector ``name`` (registered by
        :meth:`connector_listener`), removed with its other metrics."""
        with self._lock:
            cm = self._connectors.get(name)
        return cm.plugin if cm is not None else None

    def connector_startup_failed(self) -> None:
        """The connector could not even be instantiated (its listener was never built)."""
        self.worker.record_connector_startup_attempt()
        self.worker.record_connector_startup(False)

    def connector_removed(self, name: str) -> None:
        with self._lock:
            cm = self._connectors.pop(name, None)
        if cm is not None:
            cm.close()
        self.worker.connector_removed(name)

    # -- tasks ---------------------------------------------------------------------------------

    def task_started(
        self, task_id: ConnectorTaskId, inner: StatusListener, info: Mapping[str, str], sink: bool
    ) -> tuple[StatusListener, TaskMetricsBundle]:
        """Register a task's groups (one startup attempt); the wrapped listener and bundle."""
        self.worker.record_task_startup_attempt()
        tm = TaskMetrics(self.registry, task_id, info)
        bundle = TaskMetricsBundle(
            self.registry,
            tm,
            ErrorHandlingMetrics(self.registry, task_id),
            None if sink else SourceTaskMetrics(self.registry, task_id),
            SinkTaskMetrics(self.registry, task_id) if sink else None,
        )
        with self._lock:
            old = self._tasks.pop(task_id, None)
            self._tasks[task_id] = bundle
        if old is not None:
            old.close()
        self.worker.task_added(task_id)
        return TaskStatusMetrics(inner, self.worker, tm), bundle

    def remote_task_started(
        self, task_id: ConnectorTaskId, inner: StatusListener
    ) -> StatusListener:
        """A task started in a task process, whose own registry has the task's groups: count
        the startup attempt and track its state in ``connect-worker-metrics`` only."""
        self.worker.record_task_startup_attempt()
        self.worker.task_added(task_id)
        return TaskStatusMetrics(inner, self.worker, None)

    def task_startup_failed(self, task_id: ConnectorTaskId) -> None:
        """The task could not be built; its groups are dropped and the start counts failed."""
        self.worker.record_task_startup(False)
        self.task_removed(task_id)

    def task_removed(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            bundle = self._tasks.pop(task_id, None)
        if bundle is not None:
            bundle.close()
        self.worker.task_removed(task_id)
