"""Kafka client metrics from librdkafka statistics, named as the Java clients name them.

Group ``producer-metrics`` (domain ``kafka.producer``) or ``consumer-metrics`` (domain
``kafka.consumer``), tag ``client-id``: ``connection-count``, ``incoming-byte-rate``/``-total``,
``outgoing-byte-rate``/``-total``, ``request-rate``/``-total``, ``response-rate``/``-total``.
A sink task's consumer also feeds ``sink-record-lag-max``.

:meth:`ClientMetrics.on_stats` is the ``stats_listener`` given to the kconnect.kafka client;
it runs on the thread that polls the client, once per ``statistics.interval.ms``.
"""

from __future__ import annotations

from collections.abc import Callable

from kconnect.kafka.clients.client_stats import ClientStats
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry, Sensor
from kconnect.runtime.metrics.stats import CumulativeSum, Rate

__all__ = ["ClientMetrics"]


class ClientMetrics:
    def __init__(
        self,
        registry: MetricsRegistry,
        client_id: str,
        client_type: str,
        on_lag: Callable[[int], None] | None = None,
    ) -> None:
        self.group = g = MetricGroup(
            registry, f"{client_type}-metrics", {"client-id": client_id}, f"kafka.{client_type}"
        )
        self.connections = 0
        g.gauge("connection-count", "The current number of active connections.",
                lambda: float(self.connections))  # fmt: skip

        def pair(what: str, unit: str) -> Sensor:
            return g.sensor(
                what,
                (f"{what}-rate", f"The number of {unit} per second.", Rate()),
                (f"{what}-total", f"The total number of {unit}.", CumulativeSum()),
            )

        self.incoming = pair("incoming-byte", "bytes read off all sockets")
        self.outgoing = pair("outgoing-byte", "outgoing bytes sent to all servers")
        self.requests = pair("request", "requests sent")
        self.responses = pair("response", "responses received")
        self._last: ClientStats | None = None
        self._on_lag = on_lag

    def on_stats(self, stats: ClientStats) -> None:
        last = self._last
        self._last = stats
        self.connections = stats.connection_count
        for sensor, now, before in (
            (self.incoming, stats.bytes_received, last.bytes_received if last else 0),
            (self.outgoing, stats.bytes_sent, last.bytes_sent if last else 0),
            (self.requests, stats.requests_sent, last.requests_sent if last else 0),
            (self.responses, stats.responses_received, last.responses_received if last else 0),
        ):
            sensor.record(max(0, now - before))
        if self._on_lag is not None:
            lag = stats.max_consumer_lag
            if lag is not None:
                self._on_lag(lag)

    def close(self) -> None:
        self.group.close()
