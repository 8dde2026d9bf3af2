"""Debezium's connector metrics (its snapshot and streaming MBeans), served by the worker under
the JMX exporter's names of the jar's beans.

``debezium.<connector>:type=connector-metrics,context=snapshot|streaming,server=<topic.prefix>``
becomes ``debezium_<connector>_connector_metrics_<Attribute>{context=...,server=...}`` on
``/metrics``; a ``Map`` attribute (``RowsScanned``) one sample per table with label ``key``.
Only what the exporter shows is kept: numbers and booleans (strings, arrays and string maps are
left out, as the exporter leaves them out).

Lifecycle: a task makes one :class:`DebeziumMetrics` at start (from its context's
``domain_metrics()``; with None, e.g. a task built by a test, nothing is served but the
counters still count), then calls the ``snapshot_*`` and ``streaming_*`` methods from its poll
thread. Every value is read by a gauge when the registry is read: the counters are plain
attributes, written by one thread and read by another (a read may be one event behind).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from kconnect.api import DomainMetrics

__all__ = ["DebeziumMetrics", "EventCounters", "context_metrics"]

GROUP = "connector-metrics"


def context_metrics(context: Any) -> DomainMetrics | None:
    """Where a task's context lets it register metrics; None when it keeps none (a context
    built by a test)."""
    metrics = getattr(context, "domain_metrics", None)
    return metrics() if metrics is not None else None


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


#: How many of the latest lags (one per committed transaction) the MilliSecondsBehindSource
#: min, max, average and percentiles are taken over.
LAG_WINDOW = 1024


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def _percentile(q: float) -> Callable[[list[int]], float]:
    def stat(values: list[int]) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return stat


class EventCounters:
    """What both contexts count (Debezium's ``CommonEventMeter`` and queue attributes)."""

    __slots__ = ("creates", "deletes", "erroneous", "filtered", "last_event_ms", "total", "updates")

    def __init__(self) -> None:
        self.total = 0
        self.creates = 0
        self.updates = 0
        self.deletes = 0
        self.filtered = 0
        self.erroneous = 0
        self.last_event_ms = -1

    def seen(self, ops: Iterable[str | None]) -> None:
        """Change events by their ``op`` (``r``, ``c``, ``u``, ``d``; None for what is not a
        change event: tombstones, heartbeats)."""
        n = c = u = d = 0
        for op in ops:
            if op is None:
                continue
            n += 1
            if op == "c":
                c += 1
            elif op == "u":
                u += 1
            elif op == "d":
                d += 1
        if n:
            self.total += n
            self.creates += c
            self.updates += u
            self.deletes += d
            self.last_event_ms = _now_ms()

    def since_last_event_ms(self) -> int:
        return -1 if self.last_event_ms < 0 else _now_ms() - self.last_event_ms


class DebeziumMetrics:
    """The snapshot and streaming beans of one Debezium task (see the module)."""

    def __init__(
        self,
        metrics: DomainMetrics | None,
        connector: str,
        server: str,
        *,
        queue_capacity: int,
        max_queue_bytes: int = 0,
    ) -> None:
        self._metrics = metrics
        self._domain = f"debezium.{connector}"
        self._server = server
        self.snapshot = EventCounters()
        self.streaming = EventCounters()
        # snapshot
        self.total_tables = 0
        self.remaining_tables = 0
        self.snapshot_running = False
        self.snapshot_completed = False
        self.snapshot_aborted = False
        self.snapshot_skipped = False
        self._snapshot_started_ms = 0
        self._snapshot_ended_ms = 0
        self._paused_ms = self._paused_since_ms = 0  # incremental snapshots' pauses
        self._rows: dict[str, int] = {}
        # streaming
        self.connected = False
        self.behind_source_ms = -1
        self.committed_transactions = 0
        self._lags: deque[int] = deque(maxlen=LAG_WINDOW)
        if metrics is None:
            return
        for context, counters in (("snapshot", self.snapshot), ("streaming", self.streaming)):
            self._common(context, counters, queue_capacity, max_queue_bytes)
        self._gauges("snapshot", {
            "TotalTableCount": lambda: self.total_tables,
            "RemainingTableCount": lambda: self.remaining_tables,
            "SnapshotRunning": lambda: self.snapshot_running,
            "SnapshotPaused": lambda: self._paused_since_ms > 0,
            "SnapshotCompleted": lambda: self.snapshot_completed,
            "SnapshotAborted": lambda: self.snapshot_aborted,
            "SnapshotSkipped": lambda: self.snapshot_skipped,
            "SnapshotDurationInSeconds": self._snapshot_seconds,
            "SnapshotPausedDurationInSeconds": self._paused_seconds,
        })  # fmt: skip
        self._gauges("streaming", {
            "Connected": lambda: self.connected,
            "MilliSecondsBehindSource": lambda: self.behind_source_ms,
            "NumberOfCommittedTransactions": lambda: self.committed_transactions,
            "NumberOfUnchangedEventsSkipped": lambda: -1,  # as the jar: not counted for PostgreSQL
            "MilliSecondsBehindSourceMinValue": lambda: self._lag_stat(min),
            "MilliSecondsBehindSourceMaxValue": lambda: self._lag_stat(max),
            "MilliSecondsBehindSourceAverageValue": lambda: self._lag_stat(_mean),
            "MilliSecondsBehindSourceP50": lambda: self._lag_stat(_percentile(0.50)),
            "MilliSecondsBehindSourceP95": lambda: self._lag_stat(_percentile(0.95)),
            "MilliSecondsBehindSourceP99": lambda: self._lag_stat(_percentile(0.99)),
        })  # fmt: skip

    def _common(self, context: str, counters: EventCounters, capacity: int, max_bytes: int) -> None:
        self._gauges(context, {
            "MilliSecondsSinceLastEvent": counters.since_last_event_ms,
            "TotalNumberOfEventsSeen": lambda: counters.total,
            "TotalNumberOfCreateEventsSeen": lambda: counters.creates,
            "TotalNumberOfUpdateEventsSeen": lambda: counters.updates,
            "TotalNumberOfDeleteEventsSeen": lambda: counters.deletes,
            "NumberOfEventsFiltered": lambda: counters.filtered,
            "NumberOfErroneousEvents": lambda: counters.erroneous,
            # records go straight from the task's poll to the worker: nothing waits in a queue
            "QueueTotalCapacity": lambda: capacity,
            "QueueRemainingCapacity": lambda: capacity,
            "MaxQueueSizeInBytes": lambda: max_bytes,
            "CurrentQueueSizeInBytes": lambda: 0,
        })  # fmt: skip

    def _gauges(self, context: str, gauges: dict[str, Callable[[], Any]], **tags: str) -> None:
        assert self._metrics is not None
        all_tags = {"context": context, "server": self._server, **tags}
        for name, provider in gauges.items():
            self._metrics.gauge(GROUP, all_tags, name, provider, domain=self._domain)

    def _lag_stat(self, stat: Callable[[list[int]], float]) -> float:
        lags = list(self._lags)
        return stat(lags) if lags else 0

    def _snapshot_seconds(self) -> int:
        if not self._snapshot_started_ms:
            return 0
        end = self._snapshot_ended_ms or _now_ms()
        return (end - self._snapshot_started_ms) // 1000

    # -- the snapshot ---------------------------------------------------------------------------

    def snapshot_started(self, tables: Iterable[str]) -> None:
        """A snapshot of ``tables`` (``schema.table``) begins: each shows 0 rows scanned."""
        names = list(tables)
        self.total_tables = self.remaining_tables = len(names)
        self.snapshot_running = True
        self.snapshot_completed = self.snapshot_aborted = self.snapshot_skipped = False
        self._snapshot_started_ms, self._snapshot_ended_ms = _now_ms(), 0
        self._paused_ms = self._paused_since_ms = 0
        for name in names:
            self._rows[name] = 0
            if self._metrics is not None:
                self._gauges("snapshot", {"RowsScanned": self._rows_of(name)}, key=name)

    def snapshot_paused(self, paused: bool) -> None:
        """An incremental snapshot was paused or resumed (``pause-snapshot`` / ``resume-snapshot``
        signals)."""
        now = _now_ms()
        if paused and not self._paused_since_ms:
            self._paused_since_ms = now
        elif not paused and self._paused_since_ms:
            self._paused_ms += now - self._paused_since_ms
            self._paused_since_ms = 0

    def _paused_seconds(self) -> int:
        running = _now_ms() - self._paused_since_ms if self._paused_since_ms else 0
        return (self._paused_ms + running) // 1000

    def _rows_of(self, table: str) -> Callable[[], int]:
        return lambda: self._rows[table]

    def rows_scanned(self, table: str, rows: int) -> None:
        self._rows[table] = self._rows.get(table, 0) + rows

    def table_done(self) -> None:
        self.remaining_tables = max(0, self.remaining_tables - 1)

    def snapshot_ended(self, *, completed: bool) -> None:
        """The snapshot completed, or was aborted (the task stopped or failed during it)."""
        self.snapshot_running = False
        self.snapshot_completed, self.snapshot_aborted = completed, not completed
        self._snapshot_ended_ms = _now_ms()

    def snapshot_not_taken(self) -> None:
        """No snapshot this time (``snapshot.mode``, or one completed before)."""
        self.snapshot_skipped = True

    # -- streaming ------------------------------------------------------------------------------

    def streaming_connected(self, connected: bool) -> None:
        self.connected = connected

    def streaming_transaction_committed(self, commit_ms: int) -> None:
        """A transaction's changes were all read; ``commit_ms`` its commit time."""
        self.committed_transactions += 1
        self.behind_source_ms = lag = max(0, _now_ms() - commit_ms)
        self._lags.append(lag)
