"""A task's own metrics (:class:`kconnect.api.PluginMetrics`) in the worker's registry.

Each ``sensor`` call makes a :class:`MetricGroup` under the plugin's domain, group and tags;
the task's :class:`TaskMetricsBundle` owns it and removes it with the task's other groups when
the task is removed. A task process's registry is merged into the worker's ``/metrics`` like
every task-level group, so these metrics are served whichever process runs the task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kconnect.api.plugin_metrics import CONNECT_DOMAIN, PluginMetric, PluginMetrics, PluginSensor
from kconnect.api.plugin_metrics import Stat as PluginStat
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry, Sensor
from kconnect.runtime.metrics.stats import (
    Avg,
    CumulativeSum,
    Max,
    MeasurableStat,
    Min,
    Rate,
    Value,
)

__all__ = ["RegistryPluginMetrics"]


#: A new stat for each kind (Kafka's Value starts at 0; Connect's own Values here at NaN).
_STATS: dict[PluginStat, Callable[[], MeasurableStat]] = {
    PluginStat.VALUE: lambda: Value(0.0),
    PluginStat.MAX: Max,
    PluginStat.MIN: Min,
    PluginStat.AVG: Avg,
    PluginStat.RATE: Rate,
    PluginStat.TOTAL: CumulativeSum,
}


class _RegistrySensor(PluginSensor):
    __slots__ = ("_sensor",)

    def __init__(self, sensor: Sensor) -> None:
        self._sensor = sensor

    def record(self, value: float = 1.0) -> None:
        self._sensor.record(value)

    def record_many(self, values: Sequence[float]) -> None:
        self._sensor.record_many(values)


class RegistryPluginMetrics(PluginMetrics):
    """The :class:`PluginMetrics` of one task: every group it makes is handed to ``on_group``
    (the task's bundle, which closes it with the task)."""

    def __init__(self, registry: MetricsRegistry, on_group: Callable[[MetricGroup], None]) -> None:
        self._registry = registry
        self._on_group = on_group

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
        return _RegistrySensor(sensor)
