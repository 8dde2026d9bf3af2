"""Worker-level groups: status listeners feeding counts and ratios, startup outcomes,
rebalance hooks, librdkafka statistics and the retry operator's error counts."""

from __future__ import annotations

import math

import orjson
import pytest

from kconnect.api.errors import RetriableException
from kconnect.kafka.clients.client_stats import parse_client_stats
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.connector_config import ToleranceType
from kconnect.runtime.metrics import ConnectMetrics, MetricConfig
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.testing.fakes import RecordingStatusListener


def values(cm: ConnectMetrics, group: str, **tags: str) -> dict[str, object]:
    return {
        n.name: v
        for n, v in cm.registry.snapshot()
        if n.group == group and all(n.tag_dict.get(k) == t for k, t in tags.items())
    }


@pytest.fixture
def clock() -> MockClock:
    return MockClock(0)


def test_task_listener_tracks_states_counts_and_startups(clock: MockClock) -> None:
    cm = ConnectMetrics("w1", MetricConfig(2, 60_000), clock)
    inner = RecordingStatusListener()
    t0, t1 = ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)
    l0, _ = cm.task_started(t0, inner, {"task-class": "T"}, sink=False)
    l1, _ = cm.task_started(t1, inner, {}, sink=True)
    l0.on_startup(t0)
    l1.on_failure(t1, RuntimeError("boom"))
    clock.advance(3000)
    l0.on_pause(t0)
    clock.advance(1000)
    assert inner.calls == ["startup", "failure", "pause"]  # delegated in order
    per_connector = values(cm, "connect-worker-metrics", connector="c")
    assert per_connector["connector-total-task-count"] == 2
    assert per_connector["connector-paused-task-count"] == 1
    assert per_connector["connector-failed-task-count"] == 1
    assert per_connector["connector-running-task-count"] == 0
    worker = values(cm, "connect-worker-metrics")
    assert worker["task-count"] == 2
    assert worker["task-startup-attempts-total"] == 2
    assert worker["task-startup-success-total"] == 1
    assert worker["task-startup-failure-total"] == 1
    assert worker["task-startup-success-percentage"] == 0.5
    t0_metrics = values(cm, "connector-task-metrics", connector="c", task="0")
    assert t0_metrics["status"] == "paused"
    assert t0_metrics["running-ratio"] == pytest.approx(0.75)
    assert t0_metrics["pause-ratio"] == pytest.approx(0.25)
    assert t0_metrics["task-class"] == "T"
    assert math.isnan(t0_metrics["batch-size-avg"])  # type: ignore[arg-type]
    assert values(cm, "connect-coordinator-metrics")["assigned-tasks"] == 2
    cm.task_removed(t0)
    cm.task_removed(t1)
    assert values(cm, "connect-worker-metrics", connector="c") == {}
    assert values(cm, "connector-task-metrics") == {}
    assert values(cm, "source-task-metrics") == {}


def test_connector_listener_status_and_startup_outcomes(clock: MockClock) -> None:
    cm = ConnectMetrics("w1", clock=clock)
    inner = RecordingStatusListener()
    info = {"connector-class": "X", "connector-type": "source", "connector-version": "1"}
    listener = cm.connector_listener("c", inner, info)
    assert values(cm, "connector-metrics", connector="c")["status"] == "unassigned"
    listener.on_startup("c")
    listener.on_pause("c")
    listener.on_stop("c")
    m = values(cm, "connector-metrics", connector="c")
    assert m == {
        "status": "stopped",
        "connector-class": "X",
        "connector-type": "source",
        "connector-version": "1",
    }
    cm.connector_startup_failed()
    w = values(cm, "connect-worker-metrics")
    assert (w["connector-startup-attempts-total"], w["connector-startup-success-total"]) == (2, 1)
    assert w["connector-startup-failure-percentage"] == 0.5
    assert w["connector-count"] == 1
    cm.connector_removed("c")
    assert values(cm, "connector-metrics") == {}
    assert values(cm, "connect-worker-metrics")["connector-count"] == 0


def test_rebalance_hooks(clock: MockClock) -> None:
    cm = ConnectMetrics("w1", MetricConfig(2, 60_000), clock)
    m = values(cm, "connect-worker-rebalance-metrics")
    assert m["connect-protocol"] == "standalone"
    assert m["leader-name"] == "w1"
    assert m["epoch"] == 0 and m["rebalancing"] is False
    assert m["completed-rebalances-total"] == 0
    assert math.isinf(m["time-since-last-rebalance-ms"])  # type: ignore[arg-type]
    cm.rebalance.rebalance_started()
    assert values(cm, "connect-worker-rebalance-metrics")["rebalancing"] is True
    clock.advance(250)
    cm.rebalance.rebalance_completed(3, "http://leader:8083/", "sessioned")
    cm.rebalance.rebalance_started()
    clock.advance(50)
    cm.rebalance.rebalance_completed(4, "http://leader:8083/", "sessioned")
    clock.advance(1000)
    m = values(cm, "connect-worker-rebalance-metrics")
    assert m["rebalancing"] is False
    assert (m["epoch"], m["leader-name"], m["connect-protocol"]) == (
        4,
        "http://leader:8083/",
        "SESSIONED",
    )
    assert m["completed-rebalances-total"] == 2
    assert m["rebalance-max-time-ms"] == 250
    assert m["rebalance-avg-time-ms"] == 150
    assert m["time-since-last-rebalance-ms"] == 1000


STATS = {
    "name": "rdkafka#consumer-1",
    "client_id": "connector-consumer-s-0",
    "type": "consumer",
    "time": 1700000000,
    "tx": 10,
    "tx_bytes": 1000,
    "rx": 9,
    "rx_bytes": 5000,
    "brokers": {
        "127.0.0.1:9092/bootstrap": {"state": "UP", "nodeid": -1},
        "127.0.0.1:9092/1": {"state": "UP", "nodeid": 1},
        "127.0.0.1:9093/2": {"state": "DOWN", "nodeid": 2},
    },
    "topics": {
        "t": {
            "partitions": {
                "0": {"fetch_state": "active", "consumer_lag": 7},
                "1": {"fetch_state": "active", "consumer_lag": 42},
                "2": {"fetch_state": "none", "consumer_lag": -1},
                "-1": {"fetch_state": "none", "consumer_lag": -1},
            }
        }
    },
}


def test_client_stats_feed_client_metrics_and_sink_lag(clock: MockClock) -> None:
    stats = parse_client_stats(orjson.dumps(STATS))
    assert stats.connection_count == 2
    assert stats.consumer_lag == {("t", 0): 7, ("t", 1): 42}
    assert stats.max_consumer_lag == 42
    cm = ConnectMetrics("w1", MetricConfig(2, 1000), clock)
    tid = ConnectorTaskId("s", 0)
    _, bundle = cm.task_started(tid, RecordingStatusListener(), {}, sink=True)
    client = bundle.client("connector-consumer-s-0", "consumer")
    client.on_stats(stats)
    clock.advance(1000)
    later = dict(STATS, tx=30, tx_bytes=3000)
    client.on_stats(parse_client_stats(orjson.dumps(later)))
    m = values(cm, "consumer-metrics", **{"client-id": "connector-consumer-s-0"})
    assert m["connection-count"] == 2
    assert m["request-total"] == 30
    assert m["outgoing-byte-total"] == 3000
    assert m["outgoing-byte-rate"] == pytest.approx(3000.0)  # 3000 bytes over 1 s
    assert values(cm, "sink-task-metrics")["sink-record-lag-max"] == 42
    with pytest.raises(ValueError):
        parse_client_stats(b"[]")


def test_retry_operator_counts_like_kafka(clock: MockClock) -> None:
    cm = ConnectMetrics("w1", clock=clock)
    tid = ConnectorTaskId("c", 0)
    _, bundle = cm.task_started(tid, RecordingStatusListener(), {}, sink=True)
    op = RetryWithToleranceOperator(1000, 60000, ToleranceType.ALL, clock)
    op.metrics = bundle.errors
    attempts = iter([RetriableException("again"), RetriableException("again"), None])

    def flaky() -> str:
        e = next(attempts)
        if e is not None:
            raise e
        return "ok"

    assert op.execute(ProcessingContext(), flaky, Stage.TRANSFORMATION, "T") == "ok"

    def bad() -> None:
        raise ValueError("bad record")

    assert op.execute(ProcessingContext(), bad, Stage.VALUE_CONVERTER, "C") is None
    op.execute_failed(ProcessingContext(), Stage.TASK_PUT, "S", ValueError("put"))
    m = values(cm, "task-error-metrics")
    assert m["total-record-failures"] == 4  # 2 retriable attempts, 1 converter, 1 put
    assert m["total-retries"] == 2
    assert m["total-record-errors"] == 1
    assert m["total-records-skipped"] == 1
    assert m["last-error-timestamp"] == clock.milliseconds()
