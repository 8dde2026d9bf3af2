"""Metrics measured outside the worker's registry, read at every scrape.

A plugin runtime that keeps metrics of its own -- the Java plugin host, whose plugins register
JMX MBeans and KIP-877 metrics in a JVM -- registers a *source* here once per process with
:func:`add_metrics_source`. Every worker registry of the process reads every source at each
snapshot (``GET /metrics``, ``GET /connectors/{name}/metrics``, the dashboard's history, and
in a task process the metrics it hands to its worker), after its own metrics.

A source is called on the reading thread (a REST request's, the dashboard's sampler): it must
answer within about a second whatever the state of what it measures (keep a short timeout and
a cache), and should not raise (an exception is logged by the reader and the source skipped
for that read). It returns :class:`ForeignMetric` values already named as the worker serves
them; the worker adds nothing to their names.

Thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = [
    "ForeignMetric",
    "MetricOwner",
    "MetricsSource",
    "add_metrics_source",
    "metrics_sources",
    "remove_metrics_source",
]


@dataclass(frozen=True)
class MetricOwner:
    """The connector (and task) a metric belongs to when its tags do not say so, and where it
    shows in that connector's ``GET /connectors/{name}/metrics``: in group ``group`` (an
    MBean's object name) as ``key`` (its attribute)."""

    connector: str
    task: int | None
    group: str
    key: str


@dataclass(frozen=True)
class ForeignMetric:
    """One current value: identified like the worker's own metrics (``domain``, ``group`` --
    JMX's first key value, Kafka's ``type`` -- ``name`` and ``tags`` in JMX key order), so
    ``GET /metrics`` names it ``<domain>_<group>_<name>`` with the tags as labels."""

    domain: str
    group: str
    name: str
    tags: tuple[tuple[str, str], ...]
    value: float | bool | str
    description: str = ""
    owner: MetricOwner | None = None


MetricsSource = Callable[[], Iterable[ForeignMetric]]

_lock = threading.Lock()
_sources: list[MetricsSource] = []


def add_metrics_source(source: MetricsSource) -> None:
    """Read ``source`` at every snapshot of every worker registry of this process (once, however
    often it is added)."""
    with _lock:
        if source not in _sources:
            _sources.append(source)


def remove_metrics_source(source: MetricsSource) -> None:
    with _lock:
        if source in _sources:
            _sources.remove(source)


def metrics_sources() -> list[MetricsSource]:
    """The sources registered now, in order."""
    with _lock:
        return list(_sources)
