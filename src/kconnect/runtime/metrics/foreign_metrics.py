"""The metrics measured outside the worker's registry (:mod:`kconnect.api.metrics_sources`:
the Java plugin host's MBeans and KIP-877 metrics), as registry entries.

:class:`~kconnect.runtime.metrics.ConnectMetrics` adds :func:`foreign_metrics` to its registry's
sources, so every snapshot of a worker (or task process) registry ends with them. A source
that raises is logged and skipped for that snapshot; it never breaks ``/metrics``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from kconnect.api.metrics_sources import metrics_sources
from kconnect.runtime.metrics.registry import MetricFilter, MetricName, MetricValue

__all__ = ["foreign_metrics"]

log = logging.getLogger(__name__)


def foreign_metrics(only: MetricFilter | None = None) -> Iterator[tuple[MetricName, MetricValue]]:
    """Every registered source's current metrics (a registry source: ``only`` is applied by
    the registry)."""
    for source in metrics_sources():
        try:
            metrics = list(source())
        except Exception:
            log.warning("A metrics source failed; its metrics are left out", exc_info=True)
            continue
        for m in metrics:
            name = MetricName(m.name, m.group, m.tags, m.description, m.domain, m.owner)
            yield name, m.value
