"""The plugin host's ``metrics`` answer (protocol v4) as the worker names it: KIP-877 metrics
with Kafka's names, MBean attributes with the JMX exporter's (first key's value, composite
path, row labels), HELP texts, non-finite values, and the owner that puts a bean in its
connector's JSON metrics. The answers here are shaped as the host writes them (the real host
is run by ``tests/integration/test_java_plugin_metrics.py``)."""

from __future__ import annotations

import math

from kconnect.api.metrics_sources import MetricOwner
from kconnect.java_host.host_metrics import parse_metrics
from kconnect.rest.metrics_resource import prometheus_name
from kconnect.runtime.metrics import MetricName

BEAN = "debezium.postgres:type=connector-metrics,context=snapshot,server=pg"

ANSWER = {
    "plugin_metrics": [
        {"name": "polls-seen", "group": "plugins", "description": "Polls",
         "tags": [["connector", "c"], ["task", "0"], ["kind", "test"]], "value": 3},
        {"name": "poll-size-max", "group": "plugins", "description": "",
         "tags": [["connector", "c"], ["task", "0"]], "value": None, "nonfinite": "NaN"},
        {"name": "mode", "group": "plugins", "description": "",
         "tags": [["connector", "c"]], "value": "fast"},
    ],
    "mbeans": [
        {
            "name": BEAN,
            "domain": "debezium.postgres",
            "keys": [["type", "connector-metrics"], ["context", "snapshot"], ["server", "pg"]],
            "owner": {"handle": "t-2", "tags": [["connector", "c"], ["task", "0"]]},
            "attributes": [
                {"path": [], "name": "SnapshotCompleted", "labels": [],
                 "description": "SnapshotCompleted", "value": True},
                {"path": [], "name": "RowsScanned", "labels": [["key", "public.t"]],
                 "description": "java.util.Map<java.lang.String, java.lang.Long>", "value": 5},
                {"path": ["Usage"], "name": "used", "labels": [], "description": None,
                 "value": 2.5},
                {"path": [], "name": "Lag", "labels": [], "description": "Lag",
                 "value": None, "nonfinite": "-Infinity"},
            ],
        },
        {
            "name": "kafka.producer:type=producer-metrics,client-id=history",
            "domain": "kafka.producer",
            "keys": [["type", "producer-metrics"], ["client-id", "history"]],
            "owner": None,
            "attributes": [
                {"path": [], "name": "record-send-rate", "labels": [],
                 "description": "The average number of records sent per second.", "value": 0.5},
            ],
        },
    ],
}  # fmt: skip


def test_kip877_metrics_keep_kafkas_names_and_values() -> None:
    metrics = parse_metrics(ANSWER)
    polls, size, mode = metrics[:3]
    assert (polls.domain, polls.group, polls.name) == ("kafka.connect", "plugins", "polls-seen")
    assert polls.tags == (("connector", "c"), ("task", "0"), ("kind", "test"))
    assert polls.value == 3.0 and polls.description == "Polls" and polls.owner is None
    assert isinstance(size.value, float) and math.isnan(size.value)
    assert mode.value == "fast"


def test_mbean_attributes_are_named_as_the_jmx_exporter_names_them() -> None:
    beans = parse_metrics(ANSWER)[3:]
    names = [
        (prometheus_name(MetricName(m.name, m.group, m.tags, domain=m.domain)), m.tags, m.value)
        for m in beans
    ]
    assert names == [
        ("debezium_postgres_connector_metrics_SnapshotCompleted",
         (("context", "snapshot"), ("server", "pg")), True),
        ("debezium_postgres_connector_metrics_RowsScanned",
         (("context", "snapshot"), ("server", "pg"), ("key", "public.t")), 5.0),
        ("debezium_postgres_connector_metrics_Usage_used",
         (("context", "snapshot"), ("server", "pg")), 2.5),
        ("debezium_postgres_connector_metrics_Lag",
         (("context", "snapshot"), ("server", "pg")), -math.inf),
        ("kafka_producer_producer_metrics_record_send_rate", (("client-id", "history"),), 0.5),
    ]  # fmt: skip


def test_help_is_the_exporters() -> None:
    completed, rows, used, _lag, rate = parse_metrics(ANSWER)[3:]
    # a description equal to the attribute's name is not repeated
    assert completed.description == (
        "debezium.postgres:name=null,type=connector-metrics,attribute=SnapshotCompleted"
    )
    assert rows.description == (
        "java.util.Map<java.lang.String, java.lang.Long> "
        "debezium.postgres:name=null,type=connector-metrics,attribute=RowsScanned"
    )
    assert used.description == "debezium.postgres:name=null,type=connector-metrics,attribute=used"
    assert rate.description == (
        "The average number of records sent per second. "
        "kafka.producer:name=null,type=producer-metrics,attribute=record-send-rate"
    )


def test_a_bean_registered_by_a_task_belongs_to_its_connector_and_task() -> None:
    completed, rows, used, _lag, rate = parse_metrics(ANSWER)[3:]
    assert completed.owner == MetricOwner("c", 0, BEAN, "SnapshotCompleted")
    assert rows.owner == MetricOwner("c", 0, BEAN, "RowsScanned{key=public.t}")
    assert used.owner == MetricOwner("c", 0, BEAN, "Usage.used")
    assert rate.owner is None


def test_an_empty_answer_is_no_metrics() -> None:
    assert parse_metrics({}) == []
    assert parse_metrics({"plugin_metrics": [], "mbeans": []}) == []
