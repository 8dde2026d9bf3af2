"""The Prometheus view of the registry: JMX-exporter names, string and boolean values."""

from __future__ import annotations

import math
import re

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families

from kconnect.api.metrics_sources import MetricOwner
from kconnect.rest.metrics_resource import (
    connector_metrics,
    exposition,
    prometheus_name,
    safe_name,
)
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.metrics import MetricGroup, MetricName, MetricsRegistry
from kconnect.runtime.metrics.stats import CumulativeSum, Max


def _scrape(reg: MetricsRegistry) -> dict[str, list]:
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(exposition(reg).decode()):
        for s in family.samples:
            out.setdefault(s.name, []).append(s)
    return out


def test_prometheus_names_follow_the_jmx_exporter_default() -> None:
    assert (
        prometheus_name(MetricName("source-record-poll-rate", "source-task-metrics"))
        == "kafka_connect_source_task_metrics_source_record_poll_rate"
    )
    assert (
        prometheus_name(
            MetricName("outgoing-byte-rate", "producer-metrics", domain="kafka.producer")
        )
        == "kafka_producer_producer_metrics_outgoing_byte_rate"
    )


def test_collector_values_labels_strings_and_nan() -> None:
    reg = MetricsRegistry(clock=MockClock(0))
    tags = {"connector": "c", "task": "0"}
    g = MetricGroup(reg, "source-task-metrics", tags)
    g.sensor("poll", ("source-record-poll-total", "polled", CumulativeSum())).record(7)
    g.sensor("t", ("poll-batch-max-time-ms", "", Max()))
    s = MetricGroup(reg, "connector-task-metrics", tags)
    s.gauge("status", "", lambda: "running")
    MetricGroup(reg, "connect-worker-rebalance-metrics").gauge("rebalancing", "", lambda: True)
    MetricGroup(reg, "producer-metrics", {"client-id": "p-1"}, "kafka.producer").gauge(
        "connection-count", "", lambda: 2.0
    )
    got = _scrape(reg)
    (total,) = got["kafka_connect_source_task_metrics_source_record_poll_total"]
    assert total.labels == {"connector": "c", "task": "0"} and total.value == 7
    assert math.isnan(got["kafka_connect_source_task_metrics_poll_batch_max_time_ms"][0].value)
    (status,) = got["kafka_connect_connector_task_metrics_status"]
    assert status.labels == {"connector": "c", "task": "0", "status": "running"}
    assert status.value == 1
    assert got["kafka_connect_connect_worker_rebalance_metrics_rebalancing"][0].value == 1
    (conn,) = got["kafka_producer_producer_metrics_connection_count"]
    assert conn.labels == {"client_id": "p-1"} and conn.value == 2


def test_connector_view_groups_by_task_and_attaches_clients() -> None:
    reg = MetricsRegistry(clock=MockClock(0))
    MetricGroup(reg, "connector-metrics", {"connector": "c"}).gauge("status", "", lambda: "paused")
    MetricGroup(reg, "sink-task-metrics", {"connector": "c", "task": "1"}).gauge(
        "partition-count", "", lambda: 3.0
    )
    MetricGroup(reg, "sink-task-metrics", {"connector": "other", "task": "0"}).gauge(
        "partition-count", "", lambda: 9.0
    )
    MetricGroup(
        reg, "consumer-metrics", {"client-id": "connector-consumer-c-1"}, "kafka.consumer"
    ).gauge("connection-count", "", lambda: float("nan"))
    assert connector_metrics(reg, "c") == {
        "name": "c",
        "connector": {"connector-metrics": {"status": "paused"}},
        "tasks": [
            {
                "id": 1,
                "metrics": {
                    "sink-task-metrics": {"partition-count": 3.0},
                    "kafka.consumer:consumer-metrics": {"connection-count": None},
                },
            }
        ],
    }


# the JMX exporter's own expectations of toSafeName (collector/src/test/.../ToSafeNameTest)
SAFE_NAMES = [
    ("test-test", "test_test"),
    ("test-_test", "test_test"),
    ("test-_-test", "test_test"),
    ("-_-", "_"),
    ("", ""),
    ("---", "_"),
    ("__test", "_test"),
    ("test", "test"),
    ("001", "_001"),
    ("test_swedish_chars_åäö", "test_swedish_chars_"),
    ("test@test", "test_test"),
    ("test:test", "test:test"),
]


def test_names_are_made_safe_as_the_jmx_exporter_does() -> None:
    for raw, safe in SAFE_NAMES:
        assert safe_name(raw) == safe, raw
    assert (
        prometheus_name(MetricName("Usage_used", "source-stats", domain="kconnect.test"))
        == "kconnect_test_source_stats_Usage_used"
    )


def test_one_name_with_different_labels_and_repeats_left_out() -> None:
    reg = MetricsRegistry(clock=MockClock(0))
    reg.add_source(
        lambda _only: [
            (MetricName("Connected", "connector-metrics", (("context", "streaming"),),
                        domain="debezium.postgres"), True),
            (MetricName("Connected", "connector-metrics", (("server", "a"), ("key", "t")),
                        domain="debezium.postgres"), False),
            (MetricName("Connected", "connector-metrics", (("server", "a"), ("key", "t")),
                        domain="debezium.postgres"), 5.0),
        ]
    )  # fmt: skip
    samples = _scrape(reg)["debezium_postgres_connector_metrics_Connected"]
    assert [(s.labels, s.value) for s in samples] == [
        ({"context": "streaming"}, 1.0),
        ({"server": "a", "key": "t"}, 0.0),
    ]


def test_a_metric_with_an_owner_shows_with_its_connector() -> None:
    bean = "debezium.postgres:type=connector-metrics,context=streaming,server=pg"
    reg = MetricsRegistry(clock=MockClock(0))
    reg.add_source(
        lambda _only: [
            (MetricName("Connected", "connector-metrics", (("context", "streaming"),),
                        domain="debezium.postgres", owner=MetricOwner("c", 0, bean, "Connected")),
             True),
            (MetricName("Other", "t", domain="x", owner=MetricOwner("d", None, "x:type=t", "Other")),
             1.0),
        ]
    )  # fmt: skip
    assert connector_metrics(reg, "c") == {
        "name": "c",
        "connector": {},
        "tasks": [{"id": 0, "metrics": {bean: {"Connected": True}}}],
    }
    assert connector_metrics(reg, "d")["connector"] == {"x:type=t": {"Other": 1.0}}


def test_the_text_is_what_prometheus_client_writes_for_the_same_gauges() -> None:
    """Byte for byte: HELP escaping, labels sorted by name and escaped, Go float text, a name
    served once per label set."""
    reg = MetricsRegistry(clock=MockClock(0))
    tags = {"connector": 'we"ird\\name\nx', "task": "0"}
    g = MetricGroup(reg, "source-task-metrics", tags)
    g.gauge("big", "line one\nback\\slash", lambda: 12345678.5)
    g.gauge("ratio", "", lambda: float("inf"))
    g.gauge("status", "", lambda: "running")
    MetricGroup(reg, "connect-worker-metrics").gauge("connector-count", "n", lambda: 3)
    MetricGroup(reg, "connect-worker-metrics").gauge("connector-count", "again", lambda: 4)
    MetricGroup(reg, "x", {"z": "1", "a": "2"}, "kafka.producer").gauge("n", "", lambda: 1e21)

    class Families:  # the same samples through prometheus_client's own writer
        def collect(self):  # type: ignore[no-untyped-def]
            fams: dict[str, GaugeMetricFamily] = {}
            seen = set()
            for name, value in reg.snapshot():
                prom = prometheus_name(name)
                labels = {safe_name(k, re.compile(r"[^a-zA-Z0-9]+")): v for k, v in name.tags}
                if isinstance(value, str):
                    labels[safe_name(name.name, re.compile(r"[^a-zA-Z0-9]+"))] = value
                    value = 1.0
                key = (prom, tuple(sorted(labels.items())))
                if key in seen:
                    continue
                seen.add(key)
                fam = fams.setdefault(prom, GaugeMetricFamily(prom, name.description or name.name))
                fam.add_sample(prom, labels, float(value))
            yield from fams.values()

    prom = CollectorRegistry(auto_describe=False)
    prom.register(Families())  # type: ignore[arg-type]
    assert exposition(reg) == generate_latest(prom)
