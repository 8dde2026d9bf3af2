"""Metrics a task registers with the worker: ``SourceTaskContext.metrics()`` /
``SinkTaskContext.metrics()``.

A plugin names each metric as Kafka names one -- JMX domain, group (the MBean's ``type``), tags
in their order, metric name -- and feeds it from a :class:`PluginSensor`. The worker serves
what a task registers at ``GET /metrics`` beside its own metrics (from task processes too) and
removes it when the task is removed; a context without metrics (one built by a test) answers
None. Unlike Kafka's KIP-877 ``PluginMetrics``, nothing is added to the tags and the domain is
the plugin's choice: MirrorMaker 2's metrics keep Java's ``kafka.connect.mirror`` names.

Record once per batch on the hot path: ``record_many`` takes a batch's values under one lock
and leaves every stat as recording them one by one would.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

__all__ = ["CONNECT_DOMAIN", "PluginMetric", "PluginMetrics", "PluginSensor", "Stat"]

#: Kafka Connect's JMX domain (the default of :meth:`PluginMetrics.sensor`).
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


class PluginMetrics(ABC):
    """The metrics of one task (see the module docstring)."""

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
