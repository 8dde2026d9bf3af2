"""``MetricsRegistry.layout``: what a periodic snapshot reads, built once per filter and kept
until a metric is added or removed; ``MetricName`` pickles to an equal name."""

from __future__ import annotations

import math
import pickle

from kconnect.api.metrics_sources import MetricOwner
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.metrics.registry import MetricName, MetricsRegistry, constant
from kconnect.runtime.metrics.stats import CumulativeSum

RATE = ("source-task-metrics", "poll-total")
ONLY = frozenset({RATE})


def _registry() -> tuple[MetricsRegistry, MetricName, MetricName]:
    reg = MetricsRegistry(clock=MockClock())
    total = MetricName("poll-total", "source-task-metrics", (("connector", "a"), ("task", "0")))
    sensor = reg.sensor("polls")
    reg.add_stat(sensor, total, CumulativeSum())
    sensor.record(3.0)
    status = MetricName("status", "connector-task-metrics", (("connector", "a"), ("task", "0")))
    reg.add_gauge(status, constant("running"))
    return reg, total, status


def test_a_layout_is_kept_until_a_metric_is_added_or_removed() -> None:
    reg, total, status = _registry()
    first = reg.layout(ONLY)
    assert first.names == (total,)
    assert reg.layout(ONLY) is first  # no scan, the same names
    assert reg.measure_layout(first) == [3.0]
    assert set(reg.layout().names) == {total, status}

    other = MetricName("poll-total", "source-task-metrics", (("connector", "b"), ("task", "0")))
    reg.add_gauge(other, constant(7.0))
    second = reg.layout(ONLY)
    assert second is not first and second.generation > first.generation
    assert second.names == (total, other)
    assert reg.measure_layout(second) == [3.0, 7.0]

    reg.remove([MetricName("no-such", "x")])  # nothing removed: the layout stays
    assert reg.layout(ONLY) is second
    reg.remove([other])
    third = reg.layout(ONLY)
    assert third.generation > second.generation and third.names == (total,)


def test_a_layout_keeps_what_the_predicate_accepts_and_a_failing_metric_reads_nan() -> None:
    reg, total, status = _registry()

    def boom() -> float:
        raise RuntimeError("gauge failed")

    broken = MetricName("broken", "connector-task-metrics")
    reg.add_gauge(broken, boom)
    layout = reg.layout(None, _not_status)
    assert layout.names == (total, broken)
    values = reg.measure_layout(layout)
    assert values[0] == 3.0 and math.isnan(float(values[1]))
    assert dict(reg.snapshot())[status] == "running"


def _not_status(name: MetricName) -> bool:
    return name.name != "status"


def test_a_metric_name_pickles_to_an_equal_name_with_its_description_and_owner() -> None:
    name = MetricName(
        "m", "g", (("connector", "c"), ("task", "1")), "the description", "kafka.other",
        MetricOwner("c", 1, "kafka.other:type=x", "m"),
    )  # fmt: skip
    back = pickle.loads(pickle.dumps(name))
    assert back == name
    assert (back.description, back.domain, back.owner) == (
        name.description,
        name.domain,
        name.owner,
    )


def test_snapshot_columns_reuse_the_names_and_read_row_sources_filtered() -> None:
    reg, total, _ = _registry()
    remote = MetricName("poll-total", "source-task-metrics", (("connector", "r"), ("task", "0")))
    other = MetricName("other", "source-task-metrics")
    reg.add_source(lambda only: [(remote, 5.0), (other, 1.0)])
    first = reg.snapshot_columns(ONLY)
    second = reg.snapshot_columns(ONLY)
    assert [(list(n), list(v)) for n, v in first] == [([total], [3.0]), ([remote], [5.0])]
    assert second[0][0] is first[0][0]  # this registry's names: the same object
    assert dict(reg.snapshot(ONLY)) == {total: 3.0, remote: 5.0}

    names = (remote,)
    reg.add_source(lambda only: [], lambda only: [(names, [9.0])])
    assert reg.snapshot_columns(ONLY)[-1][0] is names
