"""Debezium's heartbeat records: on ``__debezium-heartbeat.<topic.prefix>`` (Kafka partition 0),
key ``io.debezium.connector.common.ServerNameKey`` ``{serverName}``, value
``io.debezium.connector.common.Heartbeat`` ``{ts_ms}``, carrying the connector's current source
offset -- which is how a connector whose tables are quiet still commits its position (and, for
PostgreSQL, lets the replication slot move on).

:class:`Heartbeat` decides when one is due (``heartbeat.interval.ms``; 0: never).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct

__all__ = ["HEARTBEAT_KEY_SCHEMA", "HEARTBEAT_VALUE_SCHEMA", "Heartbeat"]

HEARTBEAT_KEY_SCHEMA: Schema = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.ServerNameKey")
    .version(1)
    .field("serverName", Schema.STRING_SCHEMA)
    .build()
)
HEARTBEAT_VALUE_SCHEMA: Schema = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.Heartbeat")
    .version(1)
    .field("ts_ms", Schema.INT64_SCHEMA)
    .build()
)


class Heartbeat:
    """Heartbeats of one connector task; ``clock`` is monotonic seconds, ``wall_ms`` the epoch
    milliseconds written in ``ts_ms``."""

    def __init__(
        self,
        topic: str,
        server_name: str,
        interval_s: float,
        clock: Callable[[], float] = time.monotonic,
        wall_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000,
    ) -> None:
        self.topic = topic
        self._server = server_name
        self._interval_s = interval_s
        self._clock = clock
        self._wall_ms = wall_ms
        self._next = clock() + interval_s

    @property
    def enabled(self) -> bool:
        return self._interval_s > 0

    def due(self) -> bool:
        """Whether a heartbeat is due now (never when disabled)."""
        return self._interval_s > 0 and self._clock() >= self._next

    def record(
        self, partition: Mapping[str, Any], offset: Mapping[str, Any] | None
    ) -> SourceRecord | None:
        """The heartbeat carrying ``offset`` (None when there is no offset yet); the next one
        is due an interval later."""
        self._next = self._clock() + self._interval_s
        if not offset:
            return None
        key = Struct(HEARTBEAT_KEY_SCHEMA).put("serverName", self._server)
        value = Struct(HEARTBEAT_VALUE_SCHEMA).put("ts_ms", self._wall_ms())
        return SourceRecord(
            partition,
            offset,
            self.topic,
            0,
            HEARTBEAT_KEY_SCHEMA,
            key,
            HEARTBEAT_VALUE_SCHEMA,
            value,
        )
