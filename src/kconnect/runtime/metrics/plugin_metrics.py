"""Plugins' own metrics in the worker's registry: :class:`kconnect.api.PluginMetrics` (Kafka
4.1's KIP-877, group ``plugins``) and :class:`kconnect.api.DomainMetrics` (names the plugin
chooses whole).

Lifecycle: a :class:`RegistryPluginMetrics` is made for one plugin instance with its tags
(:func:`plugin_tags`) by whoever owns that instance's metrics -- the task's
:class:`TaskMetricsBundle` for a task and the converters, transformations and predicates of
its chain, the connector's ``ConnectorMetrics`` for a connector -- and closed by it when the
task or connector is removed: closing removes everything the plugin registered, and any later
call raises as Kafka's does. :class:`RegistryDomainMetrics` hands each group it makes to its
owner (the task's bundle), which closes the groups with the task. A task process's registry is
merged into the worker's ``/metrics`` like every task-level group, so both are served
whichever process runs the task.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from kconnect.api.metrics_sources import MetricOwner
from kconnect.api.plugin_metrics import (
    CONNECT_DOMAIN,
    DomainMetrics,
    MetricName,
    MetricValueProvider,
    PluginMetric,
    PluginMetrics,
    PluginSensor,
)
from kconnect.api.plugin_metrics import Stat as PluginStat
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry, Sensor
from kconnect.runtime.metrics.registry import MetricName as RegistryName
from kconnect.runtime.metrics.stats import (
    Avg,
    CumulativeCount,
    CumulativeSum,
    Max,
    MeasurableStat,
    Min,
    Rate,
    Value,
)

__all__ = ["PLUGINS_GROUP", "RegistryDomainMetrics", "RegistryPluginMetrics", "plugin_tags"]

#: The group of every KIP-877 plugin metric (``kafka.connect:type=plugins,...``).
PLUGINS_GROUP = "plugins"

#: A new stat for each kind (Kafka's Value starts at 0; Connect's own Values here at NaN).
_STATS: dict[PluginStat, Callable[[], MeasurableStat]] = {
    PluginStat.VALUE: lambda: Value(0.0),
    PluginStat.MAX: Max,
    PluginStat.MIN: Min,
    PluginStat.AVG: Avg,
    PluginStat.RATE: Rate,
    PluginStat.TOTAL: CumulativeSum,
    PluginStat.COUNT: CumulativeCount,
}


def plugin_tags(
    connector: str, task_id: ConnectorTaskId | None = None, **plugin: str
) -> dict[str, str]:
    """The tags Kafka's ``ConnectMetrics`` gives a plugin's metrics, in its order:
    ``connector``, ``task`` (a task and its chain's plugins), then what the plugin is --
    ``converter=key|value|header``, ``transformation=<alias>`` or ``predicate=<alias>``."""
    tags = {"connector": connector}
    if task_id is not None:
        tags["task"] = str(task_id.task)
    tags.update(plugin)
    return tags


class _RegistrySensor(PluginSensor):
    __slots__ = ("_domain", "_on_name", "_registry", "_sensor")

    def __init__(
        self,
        registry: MetricsRegistry,
        sensor: Sensor,
        domain: str,
        on_name: Callable[[RegistryName], None],
    ) -> None:
        self._registry = registry
        self._sensor = sensor
        self._domain = domain
        self._on_name = on_name

    def record(self, value: float = 1.0) -> None:
        self._sensor.record(value)

    def record_many(self, values: Sequence[float]) -> None:
        self._sensor.record_many(values)

    def add(self, name: MetricName, stat: PluginStat) -> None:
        n = RegistryName(name.name, name.group, name.tags, name.description, self._domain)
        self._registry.add_stat(self._sensor, n, _STATS[stat]())
        self._on_name(n)


class RegistryDomainMetrics(DomainMetrics):
    """The :class:`DomainMetrics` of one task: every group it makes is handed to ``on_group``
    (the task's bundle, which closes it with the task). With ``task_id``, its gauges also show
    in that task's ``GET /connectors/{name}/metrics``, grouped by the JMX object name
    (``debezium.postgres:type=connector-metrics,context=streaming,server=pg``) as a Java
    plugin's MBean does."""

    def __init__(
        self,
        registry: MetricsRegistry,
        on_group: Callable[[MetricGroup], None],
        task_id: ConnectorTaskId | None = None,
    ) -> None:
        self._registry = registry
        self._on_group = on_group
        self._task_id = task_id

    def sensor(
        self,
        group: str,
        tags: Mapping[str, str],
        metrics: Sequence[PluginMetric],
        *,
        domain: str = CONNECT_DOMAIN,
    ) -> PluginSensor:
        g = MetricGroup(self._registry, group, tags, domain)
        self._on_group(g)
        sensor = g.sensor(
            f"{domain}:{group}:{g.tags}",
            *((m.name, m.description, _STATS[m.stat]()) for m in metrics),
        )
        return _RegistrySensor(self._registry, sensor, domain, g.adopt)

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
        g = MetricGroup(self._registry, group, tags, domain)
        self._on_group(g)
        owner = None
        if self._task_id is not None:  # shown in the task's JSON metrics, under the bean's name
            bean = f"{domain}:type={group}" + "".join(f",{k}={v}" for k, v in g.tags)
            owner = MetricOwner(self._task_id.connector, self._task_id.task, bean, name)
        metric = RegistryName(name, group, g.tags, description or name, domain, owner)
        self._registry.add_gauge(metric, provider)
        g.adopt(metric)


class RegistryPluginMetrics(PluginMetrics):
    """Kafka's ``PluginMetricsImpl`` over the worker's registry: one plugin instance's metrics,
    tagged ``tags`` (from :func:`plugin_tags`), removed by :meth:`close`. Sensors are this
    plugin's own: two plugins' sensors of one name are two sensors (in Java they are one
    sensor of the worker's ``Metrics``, so each would feed the other's metrics)."""

    def __init__(self, registry: MetricsRegistry, tags: Mapping[str, str]) -> None:
        self._registry = registry
        self._tags = tuple((k, str(v)) for k, v in tags.items())
        self._tag_keys = frozenset(tags)
        self._lock = threading.Lock()
        self._metrics: dict[MetricName, RegistryName] = {}
        self._sensors: dict[str, list[RegistryName]] = {}
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("This PluginMetrics instance is closed")

    def metric_name(
        self, name: str, description: str, tags: Mapping[str, str] | None = None
    ) -> MetricName:
        self._check_open()
        own = tuple((k, str(v)) for k, v in (tags or {}).items())
        for k, _ in own:
            if k in self._tag_keys:
                raise ValueError(f"Cannot use {k} as a tag name")
        return MetricName(name, PLUGINS_GROUP, description, self._tags + own)

    def add_metric(self, name: MetricName, provider: MetricValueProvider) -> None:
        with self._lock:
            self._check_open()
            if name in self._metrics:
                raise ValueError(f"Metric {name} already exists")
            n = _registry_name(name)
            self._metrics[name] = n
        self._registry.add_gauge(n, provider)

    def remove_metric(self, name: MetricName) -> None:
        with self._lock:
            self._check_open()
            n = self._metrics.pop(name, None)
            if n is None:
                raise ValueError(f"Unknown metric {name}")
        self._registry.remove([n])

    def add_sensor(self, name: str) -> PluginSensor:
        with self._lock:
            self._check_open()
            if name in self._sensors:
                raise ValueError(f"Sensor {name} already exists")
            names: list[RegistryName] = []
            self._sensors[name] = names
        return _RegistrySensor(
            self._registry, self._registry.sensor(name), CONNECT_DOMAIN, names.append
        )

    def remove_sensor(self, name: str) -> None:
        with self._lock:
            self._check_open()
            names = self._sensors.pop(name, None)
            if names is None:
                raise ValueError(f"Unknown sensor {name}")
        self._registry.remove(names)

    def close(self) -> None:
        """Remove every metric and sensor of the plugin; later calls raise."""
        with self._lock:
            self._closed = True
            names = list(self._metrics.values())
            for sensor_names in self._sensors.values():
                names.extend(sensor_names)
            self._metrics.clear()
            self._sensors.clear()
        self._registry.remove(names)


def _registry_name(name: MetricName) -> RegistryName:
    return RegistryName(name.name, name.group, name.tags, name.description, CONNECT_DOMAIN)
