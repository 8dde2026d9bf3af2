"""Worker-level metric groups: ``connect-worker-metrics`` (with and without the connector
tag), ``connector-metrics`` and ``connect-worker-rebalance-metrics``, and the bundle of a
task's groups (:class:`TaskMetricsBundle`). :class:`~kconnect.runtime.metrics.connect_metrics.
ConnectMetrics` owns them all.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache, partial

from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics.client_metrics import ClientMetrics
from kconnect.runtime.metrics.plugin_metrics import (
    RegistryDomainMetrics,
    RegistryPluginMetrics,
    plugin_tags,
)
from kconnect.runtime.metrics.rebalance_history import RebalanceHistory
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry, Sensor, constant
from kconnect.runtime.metrics.stats import Avg, CumulativeSum, Frequencies, Max
from kconnect.runtime.metrics.task_metrics import (
    ErrorHandlingMetrics,
    SinkTaskMetrics,
    SourceTaskMetrics,
    TaskMetrics,
)

__all__ = [
    "ConnectorMetrics",
    "RebalanceMetrics",
    "TaskMetricsBundle",
    "WorkerMetrics",
    "detached_task_metrics",
]

TASK_STATES = ("running", "paused", "failed", "unassigned", "destroyed", "restarting")


def _startup(g: MetricGroup, kind: str) -> tuple[Sensor, Sensor, Sensor, Sensor]:
    attempts = g.sensor(
        f"{kind}-startup-attempts",
        (f"{kind}-startup-attempts-total", f"The total number of {kind} startups that this "
         "worker has attempted.", CumulativeSum()),
    )  # fmt: skip
    successes = g.sensor(
        f"{kind}-startup-successes",
        (f"{kind}-startup-success-total", f"The total number of {kind} starts that "
         "succeeded.", CumulativeSum()),
    )  # fmt: skip
    failures = g.sensor(
        f"{kind}-startup-failures",
        (f"{kind}-startup-failure-total", f"The total number of {kind} starts that failed.",
         CumulativeSum()),
    )  # fmt: skip
    results = g.frequencies(
        f"{kind}-startup-results",
        {
            f"{kind}-startup-success-percentage": (
                f"The average percentage of this worker's {kind}s starts that succeeded.",
                1.0,
            ),
            f"{kind}-startup-failure-percentage": (
                f"The average percentage of this worker's {kind}s starts that failed.",
                0.0,
            ),
        },
        Frequencies.for_booleans(),
    )
    return attempts, successes, failures, results


class WorkerMetrics:
    """``connect-worker-metrics``: connector/task counts, startup attempts and outcomes, and
    per connector the number of its tasks on this worker in each state."""

    def __init__(self, registry: MetricsRegistry) -> None:
        self.registry = registry
        self._lock = threading.Lock()
        self.connectors: set[str] = set()
        self.task_states: dict[ConnectorTaskId, str] = {}
        # the same states by connector: a connector's counts read only its own tasks (a scrape
        # reads 7 counts per connector, so counting over every task made it quadratic)
        self._by_connector: dict[str, dict[ConnectorTaskId, str]] = {}
        self._per_connector: dict[str, MetricGroup] = {}
        g = self.group = MetricGroup(registry, "connect-worker-metrics")
        g.gauge(
            "connector-count",
            "The number of connectors run in this worker.",
            lambda: float(len(self.connectors)),
        )
        g.gauge(
            "task-count",
            "The number of tasks run in this worker.",
            lambda: float(len(self.task_states)),
        )
        self._connector_startup = _startup(g, "connector")
        self._task_startup = _startup(g, "task")

    @staticmethod
    def _record(sensors: tuple[Sensor, Sensor, Sensor, Sensor], ok: bool) -> None:
        _attempts, successes, failures, results = sensors
        (successes if ok else failures).record()
        results.record(1.0 if ok else 0.0)

    def record_connector_startup_attempt(self) -> None:
        self._connector_startup[0].record()

    def record_connector_startup(self, ok: bool) -> None:
        self._record(self._connector_startup, ok)

    def record_task_startup_attempt(self) -> None:
        self._task_startup[0].record()

    def record_task_startup(self, ok: bool) -> None:
        self._record(self._task_startup, ok)

    def running_here(self) -> tuple[list[str], dict[str, str]]:
        """(connectors, task id → state) this worker runs now: a consistent copy."""
        with self._lock:
            return sorted(self.connectors), {str(t): s for t, s in self.task_states.items()}

    # -- per-connector task counts ---------------------------------------------------------------

    def connector_added(self, name: str) -> None:
        with self._lock:
            self.connectors.add(name)

    def connector_removed(self, name: str) -> None:
        with self._lock:
            self.connectors.discard(name)
            self._maybe_close(name)

    def task_added(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            self.task_states[task_id] = "unassigned"
            name = task_id.connector
            self._by_connector.setdefault(name, {})[task_id] = "unassigned"
            if name not in self._per_connector:
                g = MetricGroup(self.registry, "connect-worker-metrics", {"connector": name})
                g.gauge(
                    "connector-total-task-count",
                    "The number of tasks of the connector on the worker.",
                    lambda: self._count(name, None),
                )
                for state in TASK_STATES:
                    g.gauge(
                        f"connector-{state}-task-count",
                        f"The number of {state} tasks of the connector on the worker.",
                        partial(self._count, name, state),
                    )
                self._per_connector[name] = g

    def task_state(self, task_id: ConnectorTaskId, state: str) -> None:
        with self._lock:
            if task_id in self.task_states:
                self.task_states[task_id] = state
                self._by_connector[task_id.connector][task_id] = state

    def task_removed(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            self.task_states.pop(task_id, None)
            tasks = self._by_connector.get(task_id.connector)
            if tasks is not None:
                tasks.pop(task_id, None)
                if not tasks:
                    del self._by_connector[task_id.connector]
            self._maybe_close(task_id.connector)

    def _maybe_close(self, name: str) -> None:
        if name in self.connectors or name in self._by_connector:
            return
        g = self._per_connector.pop(name, None)
        if g is not None:
            g.close()

    def _count(self, name: str, state: str | None) -> float:
        with self._lock:
            tasks = self._by_connector.get(name, {})
            if state is None:
                return float(len(tasks))
            return float(sum(1 for s in tasks.values() if s == state))


class ConnectorMetrics:
    """``connector-metrics``: status, type, class and version of one connector."""

    def __init__(
        self, registry: MetricsRegistry, name: str, info: Mapping[str, str] | None = None
    ) -> None:
        self.state = "unassigned"
        self.group = g = MetricGroup(registry, "connector-metrics", {"connector": name})
        #: the connector's own (``ConnectorContext.plugin_metrics()``), closed with these
        self.plugin = RegistryPluginMetrics(registry, plugin_tags(name))
        g.gauge(
            "status",
            "The status of the connector. One of 'unassigned', 'running', 'paused', "
            "'stopped', 'failed', or 'restarting'.",
            lambda: self.state,
        )
        info = dict(info or {})
        for key in ("connector-class", "connector-type", "connector-version"):
            value = info.get(key, "unknown")
            g.gauge(key, f"The {key.replace('-', ' ')} of the connector.", constant(value))

    def close(self) -> None:
        self.group.close()
        self.plugin.close()


class RebalanceMetrics:
    """``connect-worker-rebalance-metrics``. The distributed herder calls
    :meth:`rebalance_started` when it (re)joins the group and :meth:`rebalance_completed`
    once the new assignment is in place; a standalone worker never rebalances and reports
    protocol ``standalone``, epoch 0, no rebalances. :attr:`history` keeps the last
    rebalances themselves (when, how long, what this worker gained and lost)."""

    def __init__(self, registry: MetricsRegistry, protocol: str, leader: str) -> None:
        self.clock = registry.clock
        self.protocol = protocol
        self.leader = leader
        self.epoch = 0
        self.rebalancing = False
        self._started_at: float | None = None
        self._started_wall_ms: int | None = None
        self._completed_at: float | None = None
        self.history = RebalanceHistory()
        g = self.group = MetricGroup(registry, "connect-worker-rebalance-metrics")
        g.gauge("connect-protocol", "The Connect protocol used by this cluster",
                lambda: self.protocol)  # fmt: skip
        g.gauge("leader-name", "The name of the group leader.", lambda: self.leader)
        g.gauge("epoch", "The epoch or generation number of this worker.",
                lambda: float(self.epoch))  # fmt: skip
        g.gauge("rebalancing", "Whether this worker is currently rebalancing.",
                lambda: self.rebalancing)  # fmt: skip
        self.completed = g.sensor(
            "completed-rebalance-count",
            ("completed-rebalances-total", "The total number of rebalances completed by this "
             "worker.", CumulativeSum()),
        )  # fmt: skip
        self.time = g.sensor(
            "rebalance-time",
            ("rebalance-max-time-ms", "The maximum time in milliseconds spent by this worker "
             "to rebalance.", Max()),
            ("rebalance-avg-time-ms", "The average time in milliseconds spent by this worker "
             "to rebalance.", Avg()),
        )  # fmt: skip
        g.gauge(
            "time-since-last-rebalance-ms",
            "The time in milliseconds since this worker completed the most recent rebalance.",
            self._since_last,
        )

    def _since_last(self) -> float:
        if self._completed_at is None:
            return math.inf
        return self.clock.monotonic_ms() - self._completed_at

    def rebalance_started(self) -> None:
        """The worker's group membership is being (re)negotiated (herder thread)."""
        self._started_at = self.clock.monotonic_ms()
        self._started_wall_ms = self.clock.milliseconds()
        self.rebalancing = True

    def rebalance_completed(
        self,
        generation: int,
        leader: str,
        protocol: str,
        *,
        connectors: Iterable[str] = (),
        tasks: Iterable[object] = (),
        leader_url: str | None = None,
    ) -> None:
        """A new assignment for ``generation`` was received and applied (herder thread).
        ``leader`` is the leader's URL, ``protocol`` Kafka's protocol name (``eager``,
        ``compatible``, ``sessioned``; reported upper-case as Kafka's enum name).
        ``connectors`` and ``tasks`` (ConnectorTaskIds or ``(connector, n)`` pairs) are the
        worker's whole assignment now, for :attr:`history`; ``leader_url`` the leader's REST
        URL when ``leader`` is its member id."""
        now = self.clock.monotonic_ms()
        wall = self.clock.milliseconds()
        started = self._started_at if self._started_at is not None else now
        self.epoch = int(generation)
        self.leader = leader
        self.protocol = protocol.upper()
        self.rebalancing = False
        self.completed.record(1.0)
        self.time.record(max(0.0, now - started))
        self.history.record(
            generation=self.epoch,
            started_ms=self._started_wall_ms if self._started_wall_ms is not None else wall,
            completed_ms=wall,
            duration_ms=max(0.0, now - started),
            leader=leader_url or leader,
            protocol=self.protocol,
            connectors=connectors,
            tasks=map(_task_name, tasks),
        )
        self._completed_at = now
        self._started_at = None
        self._started_wall_ms = None


@lru_cache(maxsize=1 << 14)
def _task_name(task: object) -> str:
    """``<connector>-<n>`` of a task id (cached: a worker names its whole assignment at every
    rebalance)."""
    return str(ConnectorTaskId(*task)) if isinstance(task, tuple) else str(task)


class TaskMetricsBundle:
    """Every metric group of one task; :meth:`close` removes them all (task stop)."""

    def __init__(
        self,
        registry: MetricsRegistry,
        task: TaskMetrics,
        errors: ErrorHandlingMetrics,
        source: SourceTaskMetrics | None = None,
        sink: SinkTaskMetrics | None = None,
    ) -> None:
        self.registry = registry
        self.task = task
        self.errors = errors
        self.source = source
        self.sink = sink
        self.clients: list[ClientMetrics] = []
        self.plugin_groups: list[MetricGroup] = []
        self._task_id = task.task_id
        self._plugins: list[RegistryPluginMetrics] = []

    def source_metrics(self) -> SourceTaskMetrics:
        """``source-task-metrics`` (a source task's bundle always has them)."""
        if self.source is None:
            raise ValueError("not the metrics of a source task")
        return self.source

    def sink_metrics(self) -> SinkTaskMetrics:
        """``sink-task-metrics`` (a sink task's bundle always has them)."""
        if self.sink is None:
            raise ValueError("not the metrics of a sink task")
        return self.sink

    def add_stage_info(
        self, task_id: ConnectorTaskId, kind: str, alias: str, cls: str, version: str
    ) -> None:
        """4.1's ``connector-transform-metrics`` / ``connector-predicate-metrics`` (``kind``
        is ``transform`` or ``predicate``): the class and version of one chain stage."""
        g = MetricGroup(
            self.registry,
            f"connector-{kind}-metrics",
            {"connector": task_id.connector, "task": str(task_id.task), kind: alias},
        )
        g.gauge(f"{kind}-class", f"The class name of the {kind}.", lambda: cls)
        g.gauge(f"{kind}-version", f"The version of the {kind}.", lambda: version)
        self.plugin_groups.append(g)

    def domain_metrics(self) -> RegistryDomainMetrics:
        """Where the task registers metrics under names of its own
        (``context.domain_metrics()``); closed with the bundle."""
        return RegistryDomainMetrics(self.registry, self.plugin_groups.append, self._task_id)

    def plugin_metrics(self, **plugin: str) -> RegistryPluginMetrics:
        """KIP-877 ``PluginMetrics`` of the task (no arguments: ``context.plugin_metrics()``)
        or of one plugin of its chain (``converter="key"``, ``transformation=alias``...);
        closed with the bundle."""
        pm = RegistryPluginMetrics(
            self.registry, plugin_tags(self._task_id.connector, self._task_id, **plugin)
        )
        self._plugins.append(pm)
        return pm

    def client(self, client_id: str, client_type: str) -> ClientMetrics:
        """Metrics for one of the task's Kafka clients; a sink task's consumer also feeds
        ``sink-record-lag-max``."""
        on_lag = None
        if client_type == "consumer" and self.sink is not None:
            on_lag = self.sink.lag.record
        cm = ClientMetrics(self.registry, client_id, client_type, on_lag)
        self.clients.append(cm)
        return cm

    def close(self) -> None:
        for g in (
            self.task,
            self.errors,
            self.source,
            self.sink,
            *self.clients,
            *self.plugin_groups,
            *self._plugins,
        ):
            if g is not None:
                g.close()


def detached_task_metrics(
    task_id: ConnectorTaskId, sink: bool, clock: Clock | None = None
) -> TaskMetricsBundle:
    """Metrics for a task built outside a Worker (tests): a private registry nobody reads."""
    registry = MetricsRegistry(None, clock or SystemClock())
    return TaskMetricsBundle(
        registry,
        TaskMetrics(registry, task_id),
        ErrorHandlingMetrics(registry, task_id),
        None if sink else SourceTaskMetrics(registry, task_id),
        SinkTaskMetrics(registry, task_id) if sink else None,
    )
