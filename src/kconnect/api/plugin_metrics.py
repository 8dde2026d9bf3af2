"""Metrics plugins register with the worker, served at ``GET /metrics`` beside its own.

Two ways in, for two purposes:

- :class:`PluginMetrics` is Kafka 4.1's (KIP-877): ``context.plugin_metrics()`` of a
  connector's or a task's context, and ``with_plugin_metrics`` of a converter, header
  converter, transformation or predicate that is :class:`Monitorable`. Every metric is in
  group ``plugins`` of domain ``kafka.connect`` and carries the plugin's tags first, in Java's
  order: ``connector``, then ``task``, then ``converter`` (``key``/``value``/``header``),
  ``transformation`` or ``predicate`` (the alias), then the plugin's own -- the JMX name
  ``kafka.connect:type=plugins,connector=c,task=0,...`` a Java plugin's metric has. What a
  plugin registers is removed when it stops (connector stop, task stop).
- :class:`DomainMetrics` (``context.domain_metrics()`` of a task) is for a plugin that keeps
  metrics under its own JMX domain and tags, as Java's MirrorMaker 2 keeps its own ``Metrics``
  (``kafka.connect.mirror``): nothing is added to the names. Removed with the task.

Either context answers None when it keeps no metrics (one built by a test). Record once per
batch on the hot path: ``record_many`` takes a batch's values under one lock and leaves every
stat as recording them one by one would.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "CONNECT_DOMAIN",
    "DomainMetrics",
    "MetricName",
    "Monitorable",
    "PluginMetric",
    "PluginMetrics",
    "PluginSensor",
    "Stat",
]

#: Kafka Connect's JMX domain (the default of :meth:`DomainMetrics.sensor`).
CONNECT_DOMAIN = "kafka.connect"


class Stat(Enum):
    """What a metric shows of the values its sensor records (Kafka's stats of that name)."""

    VALUE = "value"
    """The last value recorded (0 before the first)."""
    MAX = "max"
    """The largest value in the sample window (NaN when nothing was recorded in it)."""
    MIN = "min"
    """The smallest value in the sample window (NaN when nothing was recorded in it)."""
    AVG = "avg"
    """The mean of the values in the sample window (NaN when nothing was recorded in it)."""
    RATE = "rate"
    """The sum of the values recorded per second over the sample window (a ``Meter``'s rate:
    events per second when each event records 1)."""
    TOTAL = "total"
    """The sum of every value recorded (a ``Meter``'s total: a count when each records 1)."""
    COUNT = "count"
    """How many values were recorded (Kafka's ``CumulativeCount``)."""


@dataclass(frozen=True)
class MetricName:
    """A metric's identity in group ``group`` (Kafka's ``MetricName``): made by
    :meth:`PluginMetrics.metric_name`; ``tags`` in their order (the JMX key order)."""

    name: str
    group: str
    description: str = field(compare=False)
    tags: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        # as Java's MetricName.toString (error messages name metrics this way)
        tags = ", ".join(f"{k}={v}" for k, v in self.tags)
        return (
            f"MetricName [name={self.name}, group={self.group}, "
            f"description={self.description}, tags={{{tags}}}]"
        )


@dataclass(frozen=True)
class PluginMetric:
    """One metric a sensor feeds: its name, the stat it shows and its description."""

    name: str
    stat: Stat
    description: str = ""


class PluginSensor(ABC):
    """Feeds the metrics it was made with; thread-safe."""

    @abstractmethod
    def record(self, value: float = 1.0) -> None:
        """Record one value (one event: 1)."""

    @abstractmethod
    def record_many(self, values: Sequence[float]) -> None:
        """Record a batch's values at once, as ``record`` would each of them in order."""

    @abstractmethod
    def add(self, name: MetricName, stat: Stat) -> None:
        """Feed one more metric, ``name`` (from :meth:`PluginMetrics.metric_name`), showing
        ``stat`` of the values recorded from now on (Kafka's ``Sensor.add``)."""


MetricValueProvider = Callable[[], "float | int | str | bool"]
"""What :meth:`PluginMetrics.add_metric` reads at each measurement (Kafka's ``Gauge`` /
``Measurable``): cheap and thread-safe, called from the REST thread."""


class PluginMetrics(ABC):
    """Kafka 4.1's ``PluginMetrics`` (KIP-877): the metrics of one plugin instance, in group
    ``plugins`` with the plugin's tags (see the module docstring). Methods raise
    ``RuntimeError("This PluginMetrics instance is closed")`` once the plugin stopped."""

    @abstractmethod
    def metric_name(
        self, name: str, description: str, tags: Mapping[str, str] | None = None
    ) -> MetricName:
        """The name of a metric of this plugin: the plugin's tags, then ``tags``. A tag the
        runtime sets (``connector``, ``task``...) raises ValueError ("Cannot use connector as a
        tag name"), as Kafka's IllegalArgumentException."""

    @abstractmethod
    def add_metric(self, name: MetricName, provider: MetricValueProvider) -> None:
        """Serve ``provider()`` as metric ``name``; ValueError if this plugin added it
        already."""

    @abstractmethod
    def remove_metric(self, name: MetricName) -> None:
        """Stop serving a metric :meth:`add_metric` added; ValueError for any other."""

    @abstractmethod
    def add_sensor(self, name: str) -> PluginSensor:
        """A new sensor without metrics (:meth:`PluginSensor.add` gives it some); ValueError
        if this plugin has a sensor of that name already."""

    @abstractmethod
    def remove_sensor(self, name: str) -> None:
        """Remove a sensor :meth:`add_sensor` made, with its metrics; ValueError for any
        other."""


class Monitorable(ABC):
    """A converter, header converter, transformation or predicate with metrics of its own
    (Kafka's ``Monitorable``): the runtime calls :meth:`with_plugin_metrics` once, after
    ``configure`` and before the first record, with the plugin's :class:`PluginMetrics`."""

    @abstractmethod
    def with_plugin_metrics(self, metrics: PluginMetrics) -> None:
        """Register the plugin's metrics (keep ``metrics`` to add more later)."""


class DomainMetrics(ABC):
    """The metrics of one task under names it chooses whole (see the module docstring)."""

    @abstractmethod
    def sensor(
        self,
        group: str,
        tags: Mapping[str, str],
        metrics: Sequence[PluginMetric],
        *,
        domain: str = CONNECT_DOMAIN,
    ) -> PluginSensor:
        """A sensor feeding ``metrics``, each named ``domain:type=group,<tags...>`` /
        ``metric.name``. Registering a name again replaces the earlier metric."""

    def gauge(
        self,
        group: str,
        tags: Mapping[str, str],
        name: str,
        provider: MetricValueProvider,
        *,
        description: str = "",
        domain: str = CONNECT_DOMAIN,
    ) -> None:
        """Serve ``provider()`` (read at each measurement: cheap, thread-safe) as metric
        ``name`` of ``domain:type=group,<tags...>`` -- a JMX bean's attribute read when asked
        (``MilliSecondsSinceLastEvent``). Registering a name again replaces the earlier
        metric. An implementation that keeps no gauges raises NotImplementedError."""
        raise NotImplementedError(f"{type(self).__name__} keeps no gauges")
