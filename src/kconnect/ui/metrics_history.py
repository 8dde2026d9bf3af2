"""The last 15 minutes of a worker's task metrics, for the dashboard's charts.

Kafka Connect's metrics are current values (rates over the sample window, maxima, totals);
a chart needs their past. :class:`MetricsHistory` reads the worker's own
:class:`~kconnect.runtime.metrics.MetricsRegistry` every :data:`INTERVAL_S` seconds (what
``GET /metrics`` would show, task processes included) and keeps :data:`KEEP_S` seconds of the
chart metrics in a ring buffer. Each worker keeps its own and serves it at
``/ui/api/metrics/history``; the page's cluster charts gather every worker's through the REST
API (:mod:`kconnect.ui.cluster_view`).

Counters (errors, skipped records, DLQ produce requests) are kept as totals and served as
per-second rates between two samples.

Kept compactly, because a worker with a thousand tasks keeps some 900,000 values (181 samples
of five metrics per task): a sample is its time, its *layout* (the tuple of series keys, the
same object as the previous sample's while the set of series does not change) and an
``array('d')`` of values in layout order -- 8 bytes a value, where a dict per sample cost ~130
(bench/scale.py). The sampling thread is a daemon that holds the history
only weakly: it ends with :meth:`close`, or once the history is garbage (an app built by a
test and dropped).
"""

from __future__ import annotations

import math
import threading
import weakref
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from kconnect.runtime.metrics import MetricName, MetricsRegistry

__all__ = ["CHART_METRICS", "COUNTER_RATES", "INTERVAL_S", "KEEP_S", "MetricsHistory"]

INTERVAL_S = 5.0
KEEP_S = 15 * 60.0

#: (group, metric) pairs kept for the charts.
CHART_METRICS = frozenset(
    {
        ("source-task-metrics", "source-record-poll-rate"),
        ("source-task-metrics", "source-record-write-rate"),
        ("source-task-metrics", "poll-batch-avg-time-ms"),
        ("source-task-metrics", "source-record-active-count"),
        ("sink-task-metrics", "sink-record-read-rate"),
        ("sink-task-metrics", "sink-record-send-rate"),
        ("sink-task-metrics", "sink-record-lag-max"),
        ("sink-task-metrics", "put-batch-avg-time-ms"),
        ("sink-task-metrics", "put-batch-max-time-ms"),
        ("connector-task-metrics", "batch-size-avg"),
        ("connector-task-metrics", "batch-size-max"),
        ("connector-task-metrics", "offset-commit-avg-time-ms"),
        ("task-error-metrics", "total-record-errors"),
        ("task-error-metrics", "total-records-skipped"),
        ("task-error-metrics", "deadletterqueue-produce-requests"),
        ("task-error-metrics", "deadletterqueue-produce-failures"),
    }
)
#: Counters served as rates: total metric → the rate's name.
COUNTER_RATES = {
    "total-record-errors": "record-error-rate",
    "total-records-skipped": "record-skip-rate",
    "deadletterqueue-produce-requests": "deadletterqueue-produce-rate",
    "deadletterqueue-produce-failures": "deadletterqueue-failure-rate",
}

SeriesKey = tuple[str, int, str]  # connector, task, metric


def _series_positions(names: Sequence[MetricName]) -> list[tuple[int, SeriesKey]]:
    """The positions in ``names`` of the chart metrics of a task, with their series keys."""
    out: list[tuple[int, SeriesKey]] = []
    for i, name in enumerate(names):
        if (name.group, name.name) not in CHART_METRICS:
            continue
        tags = name.tag_dict
        task = tags.get("task")
        if "connector" in tags and task is not None and task.isdecimal():
            out.append((i, (tags["connector"], int(task), name.name)))
    return out


class MetricsHistory:
    """A ring buffer of chart-metric samples of one registry (see the module docstring).

    :meth:`sample` may be called directly (tests); :meth:`start` runs it every ``interval_s``
    on a daemon thread until :meth:`close`. Thread-safe.
    """

    def __init__(
        self,
        registry: MetricsRegistry,
        worker_id: str,
        *,
        interval_s: float = INTERVAL_S,
        keep_s: float = KEEP_S,
        now_ms: Callable[[], int] | None = None,
    ) -> None:
        self.registry = registry
        self.worker_id = worker_id
        self.interval_s = interval_s
        self._now_ms = now_ms or registry.clock.milliseconds
        size = max(2, int(keep_s / interval_s) + 1)
        # (time, layout, values in layout order); see the module docstring
        self._samples: deque[tuple[int, tuple[SeriesKey, ...], array[float]]] = deque(maxlen=size)
        self._layout: tuple[SeriesKey, ...] = ()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._positions: dict[int, tuple[Sequence[MetricName], list[tuple[int, SeriesKey]]]] = {}

    def sample(self) -> None:
        """Read the registry once and keep the chart metrics."""
        values: dict[SeriesKey, float] = {}
        positions: dict[int, tuple[Sequence[MetricName], list[tuple[int, SeriesKey]]]] = {}
        for names, column in self.registry.snapshot_columns(CHART_METRICS):
            # where the chart metrics are in a column: derived once per names object (the same
            # object while a process's metrics stay the same), not per value at each sample
            known = self._positions.get(id(names))
            if known is None or known[0] is not names:
                known = (names, _series_positions(names))
            positions[id(names)] = known
            for i, key in known[1]:
                value = column[i]
                if isinstance(value, str | bool):
                    continue
                number = float(value)
                if math.isfinite(number):
                    values[key] = number
        self._positions = positions  # holds the names objects, so their ids stay theirs
        layout = tuple(values)
        with self._lock:
            if layout == self._layout:
                layout = self._layout  # one tuple of keys for every sample alike
            self._layout = layout
            self._samples.append((self._now_ms(), layout, array("d", values.values())))

    def start(self) -> None:
        if self._thread is None:
            ref = weakref.ref(self)
            self._thread = threading.Thread(
                target=_run, args=(ref, self._closed, self.interval_s),
                name="dashboard-metrics-history", daemon=True,
            )  # fmt: skip
            self._thread.start()

    def close(self) -> None:
        self._closed.set()

    def to_json(self, connector: str | None = None) -> dict[str, Any]:
        """``{"worker_id", "interval_ms", "times": [ms...], "series": [{"connector", "task",
        "metric", "values": [number | null ...]}]}`` (values aligned with times; counters as
        per-second rates, null where the series had no value)."""
        with self._lock:
            samples = list(self._samples)
        times = [t for t, _, _ in samples]
        # per distinct layout (usually one), where each key's value is
        positions: dict[int, dict[SeriesKey, int]] = {}
        for _, layout, _ in samples:
            if id(layout) not in positions:
                positions[id(layout)] = {k: i for i, k in enumerate(layout)}
        keys: set[SeriesKey] = set()
        for index in positions.values():
            keys.update(k for k in index if connector is None or k[0] == connector)
        series = []
        for key in sorted(keys):
            name, task, metric = key
            raw: list[float | None] = []
            for _, layout, values in samples:
                i = positions[id(layout)].get(key)
                raw.append(None if i is None else values[i])
            if metric in COUNTER_RATES:
                metric, raw = COUNTER_RATES[metric], _rates(times, raw)
            series.append({"connector": name, "task": task, "metric": metric, "values": raw})
        return {
            "worker_id": self.worker_id,
            "interval_ms": int(self.interval_s * 1000),
            "times": times,
            "series": series,
        }


def _rates(times: list[int], totals: list[float | None]) -> list[float | None]:
    out: list[float | None] = [None]
    for i in range(1, len(totals)):
        before, now = totals[i - 1], totals[i]
        span = (times[i] - times[i - 1]) / 1000
        if before is None or now is None or span <= 0 or now < before:
            out.append(None)
        else:
            out.append((now - before) / span)
    return out[: len(totals)]


def _run(ref: weakref.ref[MetricsHistory], closed: threading.Event, interval_s: float) -> None:
    while not closed.is_set():
        history = ref()
        if history is None:
            return
        try:
            history.sample()
        except Exception:  # a registry mid-shutdown: try again at the next tick
            pass
        del history
        closed.wait(interval_s)
