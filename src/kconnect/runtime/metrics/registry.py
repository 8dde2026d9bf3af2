"""The metrics registry: named metrics in groups with tags, fed by sensors.

Shape follows Kafka's ``org.apache.kafka.common.metrics.Metrics`` as Connect uses it
(``ConnectMetrics.MetricGroup``): a metric is identified by (domain, group, name, tags), e.g.
``kafka.connect`` / ``source-task-metrics`` / ``source-record-poll-rate`` /
``{connector: x, task: 0}``. A :class:`Sensor` records a value into one or more stats at once
(``poll.record(len(batch))`` updates both the rate and the total); a gauge is a callable read
at measurement time (status strings, counts computed from other state).

Threading: sensors are recorded on task threads and measured on the REST thread; each
sensor has its own lock (uncontended on the hot path, held for a few additions). The
registry's own lock only guards adding/removing metrics. Record once per batch, not per record.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from kconnect.api.metrics_sources import MetricOwner
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.metrics.stats import Batch, Frequencies, MeasurableStat, MetricConfig

__all__ = [
    "ColumnSource",
    "MetricColumns",
    "MetricFilter",
    "MetricGroup",
    "MetricLayout",
    "MetricName",
    "MetricSource",
    "MetricValue",
    "MetricsRegistry",
    "Sensor",
    "constant",
]


CONNECT_DOMAIN = "kafka.connect"

MetricValue = float | str | bool


@dataclass(frozen=True, slots=True)
class MetricName:
    """Identity of one metric; ``tags`` keep their declaration order (JMX key order).
    ``owner``: the connector (and task) it belongs to when its tags do not say (a Java
    plugin's MBean), not part of its identity. Slotted: a worker with a thousand tasks holds
    some 70,000 of them."""

    name: str
    group: str
    tags: tuple[tuple[str, str], ...] = ()
    description: str = field(default="", compare=False)
    domain: str = CONNECT_DOMAIN
    owner: MetricOwner | None = field(default=None, compare=False)

    @property
    def tag_dict(self) -> dict[str, str]:
        return dict(self.tags)

    def __reduce__(self) -> tuple[type[MetricName], tuple[object, ...]]:
        # A task process sends its metric names to the worker: as constructor arguments,
        # not through the slotted dataclass's __getstate__ (which lists its fields each time).
        return MetricName, (
            self.name, self.group, self.tags, self.description, self.domain, self.owner
        )  # fmt: skip


MetricFilter = frozenset[tuple[str, str]]
"""The ``(group, name)`` pairs a :meth:`MetricsRegistry.snapshot` is limited to."""

LayoutFilter = Callable[["MetricName"], bool]
"""A predicate on names that :meth:`MetricsRegistry.layout` keeps (a module-level function:
layouts are cached by it)."""

MetricColumns = tuple[Sequence[MetricName], Sequence[MetricValue]]
"""Metric names and their values, position by position (:meth:`MetricsRegistry.snapshot_columns`)."""

ColumnSource = Callable[[MetricFilter | None], Iterable[MetricColumns]]
"""A :data:`MetricSource` read as columns (:meth:`MetricsRegistry.add_source`)."""

MetricSource = Callable[[MetricFilter | None], Iterable[tuple[MetricName, MetricValue]]]
"""Metrics measured elsewhere (:meth:`MetricsRegistry.add_source`), given the snapshot's
filter."""


class _Metric:
    """One registered metric: a stat's ``measure(config, now)`` under its ``sensor``'s lock
    (after the values the sensor was given to record later), or (``sensor`` None, ``gauge``
    True) a gauge's ``fn()``, called without arguments."""

    __slots__ = ("gauge", "measure", "name", "sensor")

    def __init__(
        self,
        name: MetricName,
        measure: Callable[..., MetricValue],
        sensor: Sensor | None,
        gauge: bool = False,
    ) -> None:
        self.name = name
        self.measure = measure
        self.sensor = sensor
        self.gauge = gauge


class MetricLayout:
    """The metrics one :meth:`MetricsRegistry.snapshot` reads, in order: the registry's
    ``generation`` when it was built, the ``names`` and the metrics to measure. Built once per
    filter and kept until a metric is added or removed, so a periodic snapshot (the dashboard's
    chart history, a scrape) neither scans nor sends the names again: a task process answers
    the worker with its values and the generation, and its names only when the worker does
    not have that generation's yet."""

    __slots__ = ("generation", "metrics", "names")

    def __init__(self, generation: int, metrics: tuple[_Metric, ...]) -> None:
        self.generation = generation
        self.metrics = metrics
        self.names = tuple(m.name for m in metrics)


#: values a sensor keeps to record later (:meth:`Sensor.record_later`) before it records them
LATER_MAX = 16


class Sensor:
    """Records values into its stats under one lock; ``record`` is the hot-path call."""

    __slots__ = ("_clock", "_config", "_later", "_lock", "_stats", "name")

    def __init__(self, name: str, config: MetricConfig, clock: Clock) -> None:
        self.name = name
        self._config = config
        self._clock = clock
        self._lock = threading.Lock()
        self._stats: list[MeasurableStat] = []
        #: the values :meth:`record_later` keeps, as (value, time) pairs; None while there are
        #: none (most sensors never have any: an empty array is ~80 bytes, a thousand tasks)
        self._later: array[float] | None = None

    def record(self, value: float = 1.0, now_ms: float | None = None) -> None:
        """Record ``value`` (default 1: one event) into every stat of this sensor."""
        if now_ms is None:
            now_ms = self._clock.monotonic_ms()
        config = self._config
        with self._lock:
            if self._later is not None:
                self._record_later_values()
            for stat in self._stats:
                stat.record(config, value, now_ms)

    def record_later(self, value: float, now_ms: float) -> None:
        """Record ``value`` at ``now_ms`` -- when the sensor is next measured or recorded, or
        once :data:`LATER_MAX` values wait. Each value keeps its own time, so every stat reads
        exactly as if it had been recorded now. For a record that must cost next to nothing
        where it happens: an idle task's offset commit, once a second per task (a thousand
        tasks on a worker), recorded on a thread whose caches are cold, where the stats' code
        cost ~20 µs; the values then go in together, in a warm loop. They wait as two doubles
        each (16 bytes), not as objects."""
        with self._lock:
            later = self._later
            if later is None:
                later = self._later = array("d")
            later.append(value)
            later.append(now_ms)
            if len(later) >= 2 * LATER_MAX:
                self._record_later_values()

    def _record_later_values(self) -> None:
        """Record the values :meth:`record_later` kept, in order (the lock held)."""
        later = self._later
        self._later = None
        if later is None:
            return
        config = self._config
        stats = self._stats
        for i in range(0, len(later), 2):
            value, now_ms = later[i], later[i + 1]
            for stat in stats:
                stat.record(config, value, now_ms)

    def record_many(self, values: Sequence[float], now_ms: float | None = None) -> None:
        """Record a batch's values under one lock, as ``record`` of each would (one call per
        batch on the hot path)."""
        if not values:
            return
        if now_ms is None:
            now_ms = self._clock.monotonic_ms()
        config = self._config
        batch = Batch(values)
        with self._lock:
            if self._later is not None:
                self._record_later_values()
            for stat in self._stats:
                stat.record_many(config, batch, now_ms)


def _frequency(stat: Frequencies, center: float, config: MetricConfig, now: float) -> float:
    return stat.frequency(config, now, center)


def constant(value: MetricValue) -> Callable[[], MetricValue]:
    """A gauge function always returning ``value`` (class names, versions)."""
    return partial(_identity, value)


def _identity(value: MetricValue) -> MetricValue:
    return value


class MetricsRegistry:
    """All metrics of one worker process; measured on demand (scrape, REST)."""

    def __init__(self, config: MetricConfig | None = None, clock: Clock | None = None) -> None:
        self.config = config or MetricConfig()
        self.clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._metrics: dict[MetricName, _Metric] = {}
        self._sources: list[tuple[MetricSource, ColumnSource | None]] = []
        self._generation = 0  # + 1 at each metric added or removed
        self._layouts: dict[tuple[MetricFilter | None, LayoutFilter | None], MetricLayout] = {}

    # -- building ------------------------------------------------------------------------------

    def sensor(self, name: str) -> Sensor:
        return Sensor(name, self.config, self.clock)

    def add_stat(self, sensor: Sensor, name: MetricName, stat: MeasurableStat) -> None:
        """Register ``stat`` under ``name`` and feed it from ``sensor``."""
        sensor._stats.append(stat)
        self._add(_Metric(name, stat.measure, sensor))

    def add_frequencies(
        self,
        sensor: Sensor,
        stat: Frequencies,
        buckets: Mapping[MetricName, float],
    ) -> None:
        """Register one metric per bucket center (e.g. success=1.0, failure=0.0)."""
        sensor._stats.append(stat)
        for name, center in buckets.items():
            self._add(
                _Metric(
                    name,
                    partial(_frequency, stat, center),
                    sensor,
                )
            )

    def add_gauge(self, name: MetricName, fn: Callable[[], MetricValue]) -> None:
        """A metric read by calling ``fn`` (must be cheap and thread-safe)."""
        self._add(_Metric(name, fn, None, gauge=True))

    def _add(self, metric: _Metric) -> None:
        with self._lock:
            self._metrics[metric.name] = metric
            self._changed()

    def _changed(self) -> None:
        """A metric was added or removed (under the lock): the layouts are stale."""
        self._generation += 1
        self._layouts.clear()

    def add_source(self, source: MetricSource, columns: ColumnSource | None = None) -> None:
        """Metrics measured elsewhere (a worker's task processes), read at every
        :meth:`snapshot` after this registry's own. The source is given the snapshot's
        ``only`` and may use it to measure (or send) less; what it returns is filtered again.
        ``columns``, when given, is the same source read as :data:`MetricColumns` by
        :meth:`snapshot_columns` (and must return only what ``only`` holds)."""
        self._sources.append((source, columns))

    def remove(self, names: list[MetricName]) -> None:
        with self._lock:
            removed = [self._metrics.pop(n, None) for n in names]
            if any(m is not None for m in removed):
                self._changed()

    # -- reading -------------------------------------------------------------------------------

    def names(self) -> list[MetricName]:
        with self._lock:
            return list(self._metrics)

    def measure(self, name: MetricName) -> MetricValue:
        with self._lock:
            metric = self._metrics.get(name)
        if metric is None:
            raise KeyError(name)
        return self._measure(metric, self.clock.monotonic_ms())

    def _measure(self, metric: _Metric, now: float) -> MetricValue:
        sensor = metric.sensor
        if sensor is None:
            return metric.measure() if metric.gauge else metric.measure(self.config, now)
        with sensor._lock:
            if sensor._later is not None:
                sensor._record_later_values()
            return metric.measure(self.config, now)

    def layout(
        self, only: MetricFilter | None = None, keep: LayoutFilter | None = None
    ) -> MetricLayout:
        """The metrics whose ``(group, name)`` ``only`` holds (all without it) and that ``keep``
        accepts, as a :class:`MetricLayout` -- the same object until a metric is added or
        removed. Measure it with :meth:`measure_layout`. This registry's own metrics only."""
        with self._lock:
            key = (only, keep)
            layout = self._layouts.get(key)
            if layout is None:
                metrics = tuple(
                    m
                    for m in self._metrics.values()
                    if (only is None or (m.name.group, m.name.name) in only)
                    and (keep is None or keep(m.name))
                )
                layout = self._layouts[key] = MetricLayout(self._generation, metrics)
            return layout

    def measure_layout(self, layout: MetricLayout) -> list[MetricValue]:
        """The current values of ``layout``'s metrics, in its order (a failing one reads NaN)."""
        now = self.clock.monotonic_ms()
        values: list[MetricValue] = []
        append = values.append
        for m in layout.metrics:
            try:
                append(self._measure(m, now))
            except Exception:
                append(float("nan"))
        return values

    def snapshot(
        self, only: MetricFilter | None = None
    ) -> Iterator[tuple[MetricName, MetricValue]]:
        """Every metric with its current value (a failing gauge reads NaN); with ``only``, just
        the metrics whose ``(group, name)`` it holds, the others not even measured (the
        dashboard's history samples a few metrics of every task every few seconds)."""
        layout = self.layout(only)
        yield from zip(layout.names, self.measure_layout(layout), strict=True)
        for source, _ in list(self._sources):
            yield from _source_rows(source, only)

    def snapshot_columns(self, only: MetricFilter | None = None) -> list[MetricColumns]:
        """:meth:`snapshot` as columns: ``(names, values)`` pairs, this registry's own first,
        then each source's. The names of a layout that did not change are the same sequence
        object from one call to the next (this registry's, and a task process's as the worker
        keeps them), so a periodic reader can keep what it derives from them by identity
        (the dashboard's chart history)."""
        layout = self.layout(only)
        out: list[MetricColumns] = [(layout.names, self.measure_layout(layout))]
        for source, columns in list(self._sources):
            if columns is not None:
                out.extend(columns(only))
                continue
            rows = list(_source_rows(source, only))
            if rows:
                out.append((tuple(n for n, _ in rows), [v for _, v in rows]))
        return out


def _source_rows(
    source: MetricSource, only: MetricFilter | None
) -> Iterable[tuple[MetricName, MetricValue]]:
    """What ``source`` gives for ``only``, filtered again by it."""
    if only is None:
        return source(None)
    return ((n, v) for n, v in source(only) if (n.group, n.name) in only)


class MetricGroup:
    """Metrics sharing a group name and tags (Connect's ``MetricGroup``); :meth:`close`
    removes them all, e.g. when a task stops."""

    def __init__(
        self,
        registry: MetricsRegistry,
        group: str,
        tags: Mapping[str, str] | None = None,
        domain: str = CONNECT_DOMAIN,
    ) -> None:
        self.registry = registry
        self.group = group
        self.tags = tuple((k, str(v)) for k, v in (tags or {}).items())
        self.domain = domain
        self._names: list[MetricName] = []

    def name(self, metric: str, description: str = "") -> MetricName:
        n = MetricName(metric, self.group, self.tags, description, self.domain)
        self._names.append(n)
        return n

    def sensor(self, name: str, *stats: tuple[str, str, MeasurableStat]) -> Sensor:
        """A sensor feeding ``(metric name, description, stat)`` triples."""
        sensor = self.registry.sensor(name)
        for metric, description, stat in stats:
            self.registry.add_stat(sensor, self.name(metric, description), stat)
        return sensor

    def frequencies(
        self, name: str, buckets: Mapping[str, tuple[str, float]], stat: Frequencies
    ) -> Sensor:
        sensor = self.registry.sensor(name)
        self.registry.add_frequencies(
            sensor, stat, {self.name(m, d): c for m, (d, c) in buckets.items()}
        )
        return sensor

    def gauge(self, metric: str, description: str, fn: Callable[[], MetricValue]) -> None:
        self.registry.add_gauge(self.name(metric, description), fn)

    def adopt(self, name: MetricName) -> None:
        """Remove ``name`` (registered by someone else, e.g. a plugin's sensor) with the
        group's own metrics on :meth:`close`."""
        self._names.append(name)

    def close(self) -> None:
        self.registry.remove(self._names)
        self._names = []
