"""Kafka Connect's metrics (``ConnectMetricsRegistry`` names, Kafka's stat semantics).

:class:`ConnectMetrics` is the per-worker entry point; the REST layer exposes its
:class:`MetricsRegistry` at ``/metrics`` (see ``docs/metrics.md`` for the Prometheus names). ``registry`` and ``stats`` hold the
windowed stats; ``worker_metrics``, ``task_metrics`` and ``client_metrics`` the metric groups;
``foreign_metrics`` what plugin runtimes measure outside the registry (the Java plugin host).
Imports only ``common``, :mod:`kconnect.api` and :mod:`kconnect.kafka` (client statistics).
"""

from kconnect.runtime.metrics.connect_metrics import ConnectMetrics
from kconnect.runtime.metrics.registry import MetricGroup, MetricName, MetricsRegistry, Sensor
from kconnect.runtime.metrics.stats import MetricConfig
from kconnect.runtime.metrics.worker_metrics import RebalanceMetrics

__all__ = [
    "ConnectMetrics",
    "MetricConfig",
    "MetricGroup",
    "MetricName",
    "MetricsRegistry",
    "RebalanceMetrics",
    "Sensor",
]
