"""librdkafka statistics (``statistics.interval.ms`` / ``stats_cb``) parsed into the few
numbers Connect's client metrics need.

librdkafka emits a JSON document per client every interval on the thread that calls
``poll``/``consume`` (for worker tasks: the task thread). Counters in it are cumulative since
the client started; :class:`ClientStats` keeps them as such and the runtime turns the
differences into rates.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = [
    "DEFAULT_STATS_INTERVAL_MS",
    "ClientStats",
    "parse_client_stats",
    "stats_callback",
]

log = logging.getLogger(__name__)

# Often enough for 30 s metric windows, rare enough to cost nothing measurable.
DEFAULT_STATS_INTERVAL_MS = 5000


@dataclass
class ClientStats:
    client_id: str
    client_type: str  # "producer" | "consumer"
    time_s: int
    connection_count: int
    requests_sent: int
    responses_received: int
    bytes_sent: int
    bytes_received: int
    # (topic, partition) -> records behind the high watermark (consumers; -1 = unknown)
    consumer_lag: dict[tuple[str, int], int] = field(default_factory=dict)

    @property
    def max_consumer_lag(self) -> int | None:
        lags = [lag for lag in self.consumer_lag.values() if lag >= 0]
        return max(lags) if lags else None


def parse_client_stats(raw: str | bytes) -> ClientStats:
    """Parse one statistics JSON document. Raises ValueError if it is not librdkafka's."""
    try:
        doc: dict[str, Any] = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise ValueError(f"librdkafka statistics are not JSON: {e}") from e
    if not isinstance(doc, dict) or "type" not in doc:
        raise ValueError("librdkafka statistics lack the 'type' field")
    brokers = doc.get("brokers") or {}
    # Bootstrap entries (nodeid -1) are the seed connections; Kafka counts every live socket.
    connections = sum(1 for b in brokers.values() if b.get("state") == "UP")
    lag: dict[tuple[str, int], int] = {}
    if doc.get("type") == "consumer":
        for topic, t in (doc.get("topics") or {}).items():
            for pid, p in (t.get("partitions") or {}).items():
                partition = int(pid)
                if partition < 0 or p.get("fetch_state") in (None, "none", "stopped"):
                    continue
                lag[(topic, partition)] = int(p.get("consumer_lag", -1))
    return ClientStats(
        client_id=str(doc.get("client_id", "")),
        client_type=str(doc.get("type")),
        time_s=int(doc.get("time", 0)),
        connection_count=connections,
        requests_sent=int(doc.get("tx", 0)),
        responses_received=int(doc.get("rx", 0)),
        bytes_sent=int(doc.get("tx_bytes", 0)),
        bytes_received=int(doc.get("rx_bytes", 0)),
        consumer_lag=lag,
    )


def stats_callback(listener: Callable[[ClientStats], None]) -> Callable[[str], None]:
    """A librdkafka ``stats_cb`` that parses the document and hands it to ``listener``.
    Failures are logged at DEBUG (metrics must never break a client)."""

    def on_stats(raw: str) -> None:
        try:
            listener(parse_client_stats(raw))
        except Exception:
            log.debug("Ignoring client statistics that could not be processed", exc_info=True)

    return on_stats
