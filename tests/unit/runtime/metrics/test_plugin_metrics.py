"""A task's own metrics (``context.metrics()``): batch recording equals recording each value,
names carry the plugin's domain, group and tags, and they go with the task's bundle."""

from __future__ import annotations

import math
import random

import pytest

from kconnect.api import PluginMetric, Stat
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics.registry import MetricsRegistry
from kconnect.runtime.metrics.stats import (
    Avg,
    Batch,
    CumulativeCount,
    CumulativeSum,
    Max,
    MeasurableStat,
    MetricConfig,
    Min,
    Rate,
    Value,
    WindowedCount,
)
from kconnect.runtime.metrics.worker_metrics import detached_task_metrics

CFG = MetricConfig(samples=2, window_ms=1000)

ALL_STATS = [Avg, CumulativeCount, CumulativeSum, Max, Min, Rate, Value, WindowedCount]


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


@pytest.mark.parametrize("make", ALL_STATS, ids=lambda c: c.__name__)
def test_record_many_leaves_every_stat_as_record_of_each_does(make: type) -> None:
    rng = random.Random(7)
    one: MeasurableStat = make()
    many: MeasurableStat = make()
    now = 0.0
    for _ in range(40):
        batch = [rng.uniform(-50, 500) for _ in range(rng.randrange(0, 6))]
        for v in batch:
            one.record(CFG, v, now)
        if batch:  # a sensor never hands its stats an empty batch
            many.record_many(CFG, Batch(batch), now)
        assert _same(one.measure(CFG, now), many.measure(CFG, now))
        now += rng.uniform(0, 700)  # windows complete and expire along the way


def test_sensor_record_many_feeds_all_its_stats_once() -> None:
    clock = MockClock()
    registry = MetricsRegistry(CFG, clock)
    bundle = detached_task_metrics(ConnectorTaskId("c", 0), False, clock)
    bundle.registry = registry  # only the plugin's metrics in the registry read below
    pm = bundle.plugin_metrics()
    metrics = [
        PluginMetric("lat", Stat.VALUE, "last"),
        PluginMetric("lat-max", Stat.MAX),
        PluginMetric("lat-min", Stat.MIN),
        PluginMetric("lat-avg", Stat.AVG),
        PluginMetric("lat-rate", Stat.RATE),
        PluginMetric("lat-total", Stat.TOTAL),
    ]
    s = pm.sensor("G", {"b": "2", "a": "1"}, metrics, domain="x.y")
    names = {n.name: n for n in registry.names()}
    assert set(names) == {m.name for m in metrics}
    n = names["lat"]
    assert (n.domain, n.group, n.tags, n.description) == (
        "x.y",
        "G",
        (("b", "2"), ("a", "1")),
        "last",
    )
    # before any value: Kafka's Value is 0, the windowed ones NaN
    assert registry.measure(n) == 0.0
    assert math.isnan(registry.measure(names["lat-max"]))
    s.record_many([5.0, 1.0, 3.0])
    s.record(7.0)
    got = {k: registry.measure(v) for k, v in names.items()}
    assert got["lat"] == 7.0
    assert got["lat-max"] == 7.0 and got["lat-min"] == 1.0 and got["lat-avg"] == 4.0
    assert got["lat-total"] == 16.0
    assert got["lat-rate"] == pytest.approx(16.0)  # a young window counts as one second
    s.record_many([])  # nothing recorded, nothing changed
    assert registry.measure(names["lat-avg"]) == 4.0
    # the task's bundle owns them: closing it (the task removed) removes them
    bundle.close()
    assert registry.names() == []


def test_stat_values_are_kafkas_starting_points() -> None:
    assert math.isnan(Value().measure(CFG, 0))  # Connect's own metrics: NaN until recorded
    assert Value(0.0).measure(CFG, 0) == 0.0
