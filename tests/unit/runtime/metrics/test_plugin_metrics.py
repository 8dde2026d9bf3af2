"""Plugins' own metrics: batch recording equals recording each value; ``DomainMetrics``
names carry the plugin's domain, group and tags; KIP-877 ``PluginMetrics`` names carry the
runtime's tags first, refuse them as the plugin's own, answer Java's errors, and every one of
them goes with the task's bundle or the connector's metrics."""

from __future__ import annotations

import math
import random

import pytest

from kconnect.api import MetricName, PluginMetric, Stat
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics.connect_metrics import ConnectMetrics
from kconnect.runtime.metrics.plugin_metrics import RegistryPluginMetrics, plugin_tags
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
    pm = bundle.domain_metrics()
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


def _plugin_names(
    registry: MetricsRegistry,
) -> dict[str, tuple[str, str, tuple[tuple[str, str], ...]]]:
    return {n.name: (n.domain, n.group, n.tags) for n in registry.names() if n.group == "plugins"}


def test_kip877_names_carry_the_runtime_tags_first_then_the_plugins() -> None:
    assert plugin_tags("c") == {"connector": "c"}
    tid = ConnectorTaskId("c", 3)
    assert plugin_tags("c", tid) == {"connector": "c", "task": "3"}
    assert list(plugin_tags("c", tid, transformation="t1").items()) == [
        ("connector", "c"),
        ("task", "3"),
        ("transformation", "t1"),
    ]
    registry = MetricsRegistry(CFG, MockClock())
    pm = RegistryPluginMetrics(registry, plugin_tags("c", tid, converter="value"))
    name = pm.metric_name("hits", "Hits.", {"z": "1", "a": "2"})
    assert name == MetricName(
        "hits",
        "plugins",
        "Hits.",
        (("connector", "c"), ("task", "3"), ("converter", "value"), ("z", "1"), ("a", "2")),
    )
    assert str(name) == (
        "MetricName [name=hits, group=plugins, description=Hits., "
        "tags={connector=c, task=3, converter=value, z=1, a=2}]"
    )
    pm.add_metric(name, lambda: 42)
    sensor = pm.add_sensor("s")
    sensor.add(pm.metric_name("size-avg", "Avg."), Stat.AVG)
    sensor.add(pm.metric_name("size-count", "Count."), Stat.COUNT)
    sensor.record_many([2.0, 4.0])
    sensor.record(6.0)
    values = {n.name: registry.measure(n) for n in registry.names()}
    assert values == {"hits": 42, "size-avg": 4.0, "size-count": 3.0}
    assert all(d == "kafka.connect" for d, _, _ in _plugin_names(registry).values())


def test_kip877_errors_are_javas() -> None:
    registry = MetricsRegistry(CFG, MockClock())
    pm = RegistryPluginMetrics(registry, plugin_tags("c", ConnectorTaskId("c", 0)))
    with pytest.raises(ValueError, match=r"^Cannot use task as a tag name$"):
        pm.metric_name("m", "", {"task": "x"})
    name = pm.metric_name("m", "d")
    pm.add_metric(name, lambda: 1.0)
    with pytest.raises(ValueError, match=r"^Metric MetricName \[name=m, group=plugins, .* exists$"):
        pm.add_metric(pm.metric_name("m", "another description"), lambda: 2.0)
    other = pm.metric_name("other", "")
    with pytest.raises(ValueError, match=r"^Unknown metric MetricName \[name=other,"):
        pm.remove_metric(other)
    pm.add_sensor("s")
    with pytest.raises(ValueError, match=r"^Sensor s already exists$"):
        pm.add_sensor("s")
    with pytest.raises(ValueError, match=r"^Unknown sensor t$"):
        pm.remove_sensor("t")
    pm.remove_metric(name)
    assert _plugin_names(registry) == {}
    pm.close()
    for call in (
        lambda: pm.metric_name("m", ""),
        lambda: pm.add_metric(name, lambda: 1.0),
        lambda: pm.remove_metric(name),
        lambda: pm.add_sensor("x"),
        lambda: pm.remove_sensor("s"),
    ):
        with pytest.raises(RuntimeError, match=r"^This PluginMetrics instance is closed$"):
            call()


def test_kip877_metrics_go_with_their_sensor_their_task_and_their_connector() -> None:
    clock = MockClock()
    bundle = detached_task_metrics(ConnectorTaskId("c", 1), True, clock)
    registry = bundle.registry
    task_pm = bundle.plugin_metrics()
    t_pm = bundle.plugin_metrics(transformation="route")
    s = task_pm.add_sensor("s")
    s.add(task_pm.metric_name("a", ""), Stat.TOTAL)
    s.add(task_pm.metric_name("b", ""), Stat.MAX)
    task_pm.add_metric(task_pm.metric_name("g", ""), lambda: "up")
    t_pm.add_metric(t_pm.metric_name("g", ""), lambda: "up")
    assert sorted(n.name for n in registry.names() if n.group == "plugins") == ["a", "b", "g", "g"]
    task_pm.remove_sensor("s")
    assert sorted(n.name for n in registry.names() if n.group == "plugins") == ["g", "g"]
    bundle.close()
    assert _plugin_names(registry) == {}
    with pytest.raises(RuntimeError):
        t_pm.add_sensor("x")

    metrics = ConnectMetrics("w", CFG, clock)
    metrics.connector_listener("c", _Listener(), {})  # type: ignore[arg-type]
    cpm = metrics.connector_plugin_metrics("c")
    assert cpm is not None and metrics.connector_plugin_metrics("nope") is None
    cpm.add_metric(cpm.metric_name("tables", "Tables."), lambda: 7)
    assert _plugin_names(metrics.registry) == {
        "tables": ("kafka.connect", "plugins", (("connector", "c"),))
    }
    metrics.connector_removed("c")
    assert _plugin_names(metrics.registry) == {}


class _Listener:
    def __getattr__(self, name: str) -> object:
        return lambda *a, **k: None
