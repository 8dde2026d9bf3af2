"""The rebalance history behind the dashboard: what each rebalance gave and took from this
worker, when and for how long; and app-info's start time (the worker's uptime)."""

from __future__ import annotations

from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics import ConnectMetrics, MetricConfig
from kconnect.runtime.metrics.rebalance_history import RebalanceHistory


def test_history_records_what_moved_and_how_long() -> None:
    clock = MockClock(1_700_000_000_000)
    cm = ConnectMetrics("w1:8083", MetricConfig(2, 60_000), clock)
    cm.rebalance.rebalance_started()
    clock.advance(120)
    cm.rebalance.rebalance_completed(
        1, "member-1", "sessioned", connectors=["src", "sink"],
        tasks=[("src", 0), ("sink", 1), ("sink", 0)], leader_url="http://w1:8083/",
    )  # fmt: skip
    clock.advance(5_000)
    cm.rebalance.rebalance_started()
    clock.advance(30)
    cm.rebalance.rebalance_completed(
        2, "member-1", "sessioned", connectors=["src"],
        tasks=[ConnectorTaskId("src", 0), ConnectorTaskId("sink", 10)],
    )  # fmt: skip
    first, second = (r.to_json() for r in cm.rebalance.history.records())
    assert first["generation"] == 1 and first["leader"] == "http://w1:8083/"
    assert first["started_ms"] == 1_700_000_000_000
    assert first["completed_ms"] == 1_700_000_000_120 and first["duration_ms"] == 120
    assert first["assigned"] == {
        "connectors": ["sink", "src"],
        "tasks": ["sink-0", "sink-1", "src-0"],
    }
    assert first["revoked"] == {"connectors": [], "tasks": []}
    assert second["protocol"] == "SESSIONED" and second["leader"] == "member-1"
    assert second["duration_ms"] == 30
    assert second["assigned"] == {"connectors": [], "tasks": ["sink-10"]}
    assert second["revoked"] == {"connectors": ["sink"], "tasks": ["sink-0", "sink-1"]}
    assert (second["connectors"], second["tasks"]) == (1, 2)


def test_history_is_bounded() -> None:
    history = RebalanceHistory(size=3)
    for generation in range(5):
        history.record(
            generation=generation, started_ms=0, completed_ms=1, duration_ms=1.0,
            leader="l", protocol="EAGER", connectors=[f"c{generation}"], tasks=[],
        )  # fmt: skip
    kept = history.records()
    assert [r.generation for r in kept] == [2, 3, 4]
    assert kept[0].assigned_connectors == ("c2",) and kept[0].revoked_connectors == ("c1",)


def test_app_info_reports_the_start_time() -> None:
    clock = MockClock(1_700_000_000_000)
    cm = ConnectMetrics("w1:8083", MetricConfig(2, 60_000), clock)
    info = {n.name: v for n, v in cm.registry.snapshot() if n.group == "app-info"}
    assert info["start-time-ms"] == 1_700_000_000_000
    assert info["commit-id"] == "kconnect" and isinstance(info["version"], str)
    assert cm.start_time_ms == 1_700_000_000_000
