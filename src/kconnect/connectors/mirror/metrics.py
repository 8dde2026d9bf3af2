"""MirrorMaker 2's own metrics, under Java's names (``kafka.connect.mirror`` domain).

``MirrorSourceConnector`` group, per replicated topic-partition (the remote topic's name),
tags ``source``, ``target``, ``topic``, ``partition``: ``record-count`` / ``record-rate`` and
``byte-count`` / ``byte-rate`` (Java's ``Meter``s), ``record-age-ms`` (-max, -min, -avg: how old
a record was when the task polled it) and ``replication-latency-ms`` (-max, -min, -avg: from the
record's timestamp to the target's acknowledgement). ``MirrorCheckpointConnector`` group, per
consumer group and topic-partition, tags ``source``, ``target``, ``group``, ``topic``,
``partition``: ``checkpoint-latency-ms`` (-max, -min, -avg). The worker serves them at
``/metrics``, e.g. ``kafka_connect_mirror_MirrorSourceConnector_replication_latency_ms_avg``.

A task whose context keeps no metrics (``context.domain_metrics()`` is None) records nothing. Values
are recorded once per partition and batch (``record_many``), not once per record.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from kconnect.api import DomainMetrics, PluginMetric, PluginSensor, Stat

__all__ = [
    "DOMAIN",
    "MirrorCheckpointMetrics",
    "MirrorSourceMetrics",
    "PartitionMetrics",
    "context_metrics",
]

DOMAIN = "kafka.connect.mirror"
SOURCE_GROUP = "MirrorSourceConnector"
CHECKPOINT_GROUP = "MirrorCheckpointConnector"

_TO_TARGET = "replicated to the target cluster"


def _meter(rate: str, total: str, what: str, rate_text: str) -> list[PluginMetric]:
    return [PluginMetric(rate, Stat.RATE, rate_text), PluginMetric(total, Stat.TOTAL, what)]


def _spread(name: str, texts: tuple[str, str, str, str]) -> list[PluginMetric]:
    """``name`` (the last value) with ``-max``, ``-min`` and ``-avg``."""
    value, high, low, mean = texts
    return [
        PluginMetric(name, Stat.VALUE, value),
        PluginMetric(f"{name}-max", Stat.MAX, high),
        PluginMetric(f"{name}-min", Stat.MIN, low),
        PluginMetric(f"{name}-avg", Stat.AVG, mean),
    ]


_RECORDS = _meter(
    "record-rate",
    "record-count",
    f"Number of source records {_TO_TARGET}.",
    f"Average number of source records {_TO_TARGET} per second.",
)
_BYTES = _meter(
    "byte-rate",
    "byte-count",
    "Number of bytes replicated to the target cluster.",
    "Average number of bytes replicated per second.",
)
_AGE = _spread(
    "record-age-ms",
    (
        f"The age of incoming source records when {_TO_TARGET}.",
        f"The max age of incoming source records when {_TO_TARGET}.",
        f"The min age of incoming source records when {_TO_TARGET}.",
        f"The average age of incoming source records when {_TO_TARGET}.",
    ),
)
_LATENCY = _spread(
    "replication-latency-ms",
    (
        "Time it takes records to replicate from source to target cluster.",
        "Max time it takes records to replicate from source to target cluster.",
        "Min time it takes records to replicate from source to target cluster.",
        "Average time it takes records to replicate from source to target cluster.",
    ),
)
_CHECKPOINT_LATENCY = _spread(
    "checkpoint-latency-ms",
    (
        "Time it takes consumer group offsets to replicate from source to target cluster.",
        "Max time it takes consumer group offsets to replicate from source to target cluster.",
        "Min time it takes consumer group offsets to replicate from source to target cluster.",
        "Average time it takes consumer group offsets to replicate from source to target cluster.",
    ),
)


def context_metrics(context: Any) -> DomainMetrics | None:
    """Where a task's context lets it register metrics; None when it keeps none (or is a test
    double without ``domain_metrics``)."""
    metrics = getattr(context, "domain_metrics", None)
    return metrics() if metrics is not None else None


def now_ms() -> int:
    """Wall-clock milliseconds, as ``System.currentTimeMillis`` (record timestamps are)."""
    return time.time_ns() // 1_000_000


class PartitionMetrics:
    """The sensors of one replicated topic-partition."""

    __slots__ = ("_age", "_bytes", "_latency", "_records")

    def __init__(self, metrics: DomainMetrics, tags: dict[str, str]) -> None:
        def sensor(group: list[PluginMetric]) -> PluginSensor:
            return metrics.sensor(SOURCE_GROUP, tags, group, domain=DOMAIN)

        self._records = sensor(_RECORDS)
        self._bytes = sensor(_BYTES)
        self._age = sensor(_AGE)
        self._latency = sensor(_LATENCY)

    def polled(self, now: int, timestamps: Sequence[int], nbytes: int) -> None:
        """Records polled from the source: their timestamps, and the size of their values
        (a null value is 0 bytes)."""
        self._age.record_many([now - t for t in timestamps])
        # a Meter's rate and total take the sum of what is recorded: one value is the same
        self._bytes.record(nbytes)

    def acknowledged(self, count: int, latencies: Sequence[int]) -> None:
        """``count`` records the target acknowledged, and their replication latencies (a
        record without a timestamp counts, but has none)."""
        self._records.record(count)
        if latencies:
            self._latency.record_many(latencies)


class MirrorSourceMetrics:
    """A MirrorSourceTask's metrics, per remote topic-partition."""

    def __init__(self, metrics: DomainMetrics, source: str, target: str) -> None:
        self._metrics = metrics
        self._source = source
        self._target = target
        self._partitions: dict[tuple[str, int], PartitionMetrics] = {}

    def partition(self, topic: str, partition: int) -> PartitionMetrics:
        """The sensors of remote topic-partition ``topic``/``partition`` (made on first use;
        the task makes those of its assignment at start, as Java does)."""
        pm = self._partitions.get((topic, partition))
        if pm is None:
            tags = {
                "source": self._source,
                "target": self._target,
                "topic": topic,
                "partition": str(partition),
            }
            pm = self._partitions[(topic, partition)] = PartitionMetrics(self._metrics, tags)
        return pm


class MirrorCheckpointMetrics:
    """A MirrorCheckpointTask's metrics, per consumer group and (upstream) topic-partition."""

    def __init__(self, metrics: DomainMetrics, source: str, target: str) -> None:
        self._metrics = metrics
        self._source = source
        self._target = target
        self._groups: dict[tuple[str, str, int], PluginSensor] = {}

    def checkpoint_latency(self, group: str, topic: str, partition: int, millis: int) -> None:
        key = (group, topic, partition)
        sensor = self._groups.get(key)
        if sensor is None:
            tags = {
                "source": self._source,
                "target": self._target,
                "group": group,
                "topic": topic,
                "partition": str(partition),
            }
            sensor = self._groups[key] = self._metrics.sensor(
                CHECKPOINT_GROUP, tags, _CHECKPOINT_LATENCY, domain=DOMAIN
            )
        sensor.record(millis)
