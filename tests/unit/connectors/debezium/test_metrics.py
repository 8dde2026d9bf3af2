"""Debezium's snapshot and streaming beans as the native connector serves them: the JMX
exporter's names of the jar's beans, Debezium's values (-1 before the first event, booleans as
1/0, one RowsScanned sample per table)."""

from __future__ import annotations

from kconnect.connectors.debezium.common.metrics import DebeziumMetrics
from kconnect.rest.metrics_resource import exposition
from kconnect.runtime.metrics.plugin_metrics import RegistryDomainMetrics
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry

M = "debezium_postgres_connector_metrics_"


def _samples(registry: MetricsRegistry) -> dict[str, float]:
    out = {}
    for line in exposition(registry).decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def _metrics() -> tuple[MetricsRegistry, list[MetricGroup], DebeziumMetrics]:
    registry = MetricsRegistry()
    groups: list[MetricGroup] = []
    dbz = DebeziumMetrics(RegistryDomainMetrics(registry, groups.append), "postgres", "pg",
                          queue_capacity=8192)  # fmt: skip
    return registry, groups, dbz


SNAP = '{context="snapshot",server="pg"}'
STREAM = '{context="streaming",server="pg"}'


def test_before_anything_happens() -> None:
    registry, _, _ = _metrics()
    s = _samples(registry)
    assert s[M + "MilliSecondsSinceLastEvent" + SNAP] == -1
    assert s[M + "MilliSecondsSinceLastEvent" + STREAM] == -1
    assert s[M + "MilliSecondsBehindSource" + STREAM] == -1
    assert s[M + "Connected" + STREAM] == 0
    assert s[M + "SnapshotRunning" + SNAP] == 0
    assert s[M + "QueueTotalCapacity" + STREAM] == 8192
    assert s[M + "QueueRemainingCapacity" + SNAP] == 8192


def test_a_snapshot_then_streaming() -> None:
    registry, groups, dbz = _metrics()
    dbz.snapshot_started(["public.a", "public.b"])
    dbz.rows_scanned("public.a", 3)
    dbz.table_done()
    s = _samples(registry)
    assert s[M + 'RowsScanned{context="snapshot",key="public.a",server="pg"}'] == 3
    assert s[M + 'RowsScanned{context="snapshot",key="public.b",server="pg"}'] == 0
    assert (s[M + "TotalTableCount" + SNAP], s[M + "RemainingTableCount" + SNAP]) == (2, 1)
    assert s[M + "SnapshotRunning" + SNAP] == 1
    dbz.snapshot.seen(["r", "r", "r"])
    dbz.table_done()
    dbz.snapshot_ended(completed=True)
    dbz.streaming_connected(True)
    dbz.streaming.seen(["c", "u", "d", None, "t"])
    dbz.streaming_transaction_committed(0)
    s = _samples(registry)
    assert s[M + "SnapshotCompleted" + SNAP] == 1 and s[M + "SnapshotRunning" + SNAP] == 0
    assert s[M + "TotalNumberOfEventsSeen" + SNAP] == 3
    assert s[M + "TotalNumberOfCreateEventsSeen" + SNAP] == 0
    assert s[M + "TotalNumberOfEventsSeen" + STREAM] == 4  # the tombstone is no event
    for kind in ("Create", "Update", "Delete"):
        assert s[M + f"TotalNumberOf{kind}EventsSeen" + STREAM] == 1
    assert s[M + "Connected" + STREAM] == 1
    assert s[M + "NumberOfCommittedTransactions" + STREAM] == 1
    assert s[M + "MilliSecondsBehindSource" + STREAM] > 0
    lag = s[M + "MilliSecondsBehindSource" + STREAM]
    for stat in ("MinValue", "MaxValue", "AverageValue", "P50", "P95", "P99"):
        assert s[M + "MilliSecondsBehindSource" + stat + STREAM] == lag
    assert s[M + "NumberOfUnchangedEventsSkipped" + STREAM] == -1
    assert 0 <= s[M + "MilliSecondsSinceLastEvent" + STREAM] < 60_000
    for group in groups:  # the task stops: its beans go
        group.close()
    assert not [k for k in _samples(registry) if k.startswith(M)]


def test_a_stop_during_the_snapshot_aborts_it_and_a_skipped_one_says_so() -> None:
    registry, _, dbz = _metrics()
    dbz.snapshot_started(["public.a"])
    dbz.snapshot_ended(completed=False)
    s = _samples(registry)
    assert (s[M + "SnapshotAborted" + SNAP], s[M + "SnapshotCompleted" + SNAP]) == (1, 0)
    registry, _, dbz = _metrics()
    dbz.snapshot_not_taken()
    assert _samples(registry)[M + "SnapshotSkipped" + SNAP] == 1


def test_without_a_metrics_context_it_still_counts() -> None:
    dbz = DebeziumMetrics(None, "postgres", "pg", queue_capacity=10)
    dbz.streaming.seen(["c"])
    assert dbz.streaming.total == 1


def test_an_incremental_snapshot_paused_and_resumed() -> None:
    registry, _, dbz = _metrics()
    dbz.snapshot_started(["public.a"])
    dbz.snapshot_paused(True)
    s = _samples(registry)
    assert s[M + "SnapshotPaused" + SNAP] == 1
    dbz._paused_since_ms -= 2_500  # paused 2.5 s ago
    assert _samples(registry)[M + "SnapshotPausedDurationInSeconds" + SNAP] == 2
    dbz.snapshot_paused(False)
    s = _samples(registry)
    assert s[M + "SnapshotPaused" + SNAP] == 0
    assert s[M + "SnapshotPausedDurationInSeconds" + SNAP] == 2
