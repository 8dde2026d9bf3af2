"""``MirrorHeartbeatTask``: a heartbeat (source alias, target alias, now) every
``emit.heartbeats.interval.seconds``, to partition 0 of the ``heartbeats`` topic, with source
partition ``{sourceClusterAlias, targetClusterAlias}`` and source offset ``{offset: 0}``, as
Java's task writes them. ``poll`` returns within a second whatever the interval, so pausing
and stopping are noticed promptly."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence

from kconnect.api import Schema, SourceRecord, SourceTask
from kconnect.connectors.mirror._version import VERSION
from kconnect.connectors.mirror.formats import Heartbeat
from kconnect.connectors.mirror.heartbeat_config import MirrorHeartbeatConfig

__all__ = ["MirrorHeartbeatTask"]

_MAX_WAIT_S = 1.0


class MirrorHeartbeatTask(SourceTask):
    """See the module docstring."""

    __kconnect_class_name__ = (
        "org.apache.kafka.connect.mirror.MirrorHeartbeatTask"  # task.class as Java's
    )

    def __init__(self) -> None:
        self._stopped = threading.Event()
        self._next = 0.0
        self._interval_s = 1.0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        config = MirrorHeartbeatConfig(props)
        self._stopped.clear()
        self._source = config.source_cluster_alias
        self._target = config.target_cluster_alias
        self._topic = config.heartbeats_topic
        self._interval_s = config.emit_heartbeats_interval_s or 1.0
        self._next = time.monotonic() + self._interval_s

    def poll(self) -> Sequence[SourceRecord] | None:
        wait = self._next - time.monotonic()
        if wait > 0 and self._stopped.wait(min(wait, _MAX_WAIT_S)):
            return None
        if self._stopped.is_set() or time.monotonic() < self._next:
            return None
        self._next = time.monotonic() + self._interval_s
        timestamp = int(time.time() * 1000)
        heartbeat = Heartbeat(self._source, self._target, timestamp)
        record = SourceRecord(
            heartbeat.connect_partition(),
            {"offset": 0},
            self._topic,
            0,
            Schema.BYTES_SCHEMA,
            heartbeat.record_key(),
            Schema.BYTES_SCHEMA,
            heartbeat.record_value(),
            timestamp,
        )
        return [record]

    def stop(self) -> None:
        self._stopped.set()
