"""Writes offset syncs for a source task (Java's ``OffsetSyncWriter``).

For each replicated record the task learns its upstream offset and, once the worker's producer
acknowledged it, its downstream offset. A sync (upstream -> downstream) is sent at once when
the partition has none yet in this task's lifetime, when the downstream offset is
``offset.lag.max`` or more past the last sync, when upstream offsets skipped (compaction,
transaction markers) or when the downstream topic was truncated; otherwise the latest pair is
kept and sent at the next offset commit, so quiet topics do not stay behind. At most 10 syncs
are in flight; the rest wait, the newest per partition winning.

Thread-safety: ``maybe_queue`` and ``fire_pending`` run on the task thread, ``close`` may run on
another; a lock guards the queues and the producer.
"""

from __future__ import annotations

import logging
import threading

from kconnect.api import RecordMetadata, TopicPartition
from kconnect.api.kafka_clients import KafkaClientException, Producer
from kconnect.connectors.mirror.formats import OffsetSync

__all__ = ["MAX_OUTSTANDING_OFFSET_SYNCS", "OffsetSyncWriter", "PartitionState"]

log = logging.getLogger(__name__)

MAX_OUTSTANDING_OFFSET_SYNCS = 10


class PartitionState:
    """What one partition's last records and sync were (Java's ``PartitionState``)."""

    __slots__ = (
        "last_sync_downstream",
        "max_offset_lag",
        "previous_downstream",
        "previous_upstream",
        "should_sync",
    )

    def __init__(self, max_offset_lag: int) -> None:
        self.previous_upstream = -1
        self.previous_downstream = -1
        self.last_sync_downstream = -1
        self.max_offset_lag = max_offset_lag
        self.should_sync = False

    def update(self, upstream: int, downstream: int) -> bool:
        """Record a replicated record; True if a sync should be sent now."""
        # translation goes one offset past the last sync, hence the + 1
        if (
            self.last_sync_downstream == -1
            or downstream - (self.last_sync_downstream + 1) >= self.max_offset_lag
            or upstream - self.previous_upstream != 1
            or downstream < self.previous_downstream
        ):
            self.last_sync_downstream = downstream
            self.should_sync = True
        self.previous_upstream = upstream
        self.previous_downstream = downstream
        return self.should_sync


class OffsetSyncWriter:
    """See the module docstring. ``producer`` writes to the offset-syncs topic's cluster."""

    def __init__(self, producer: Producer, topic: str, max_offset_lag: int) -> None:
        self._producer = producer
        self.topic = topic
        self.max_offset_lag = max_offset_lag
        self._states: dict[TopicPartition, PartitionState] = {}
        # (upstream, downstream) per partition; OffsetSync objects are made only when sent
        self._delayed: dict[TopicPartition, tuple[int, int]] = {}
        self._pending: dict[TopicPartition, tuple[int, int]] = {}
        self._outstanding = 0
        self._lock = threading.Lock()
        self._closed = False

    def maybe_queue(self, tp: TopicPartition, upstream: int, downstream: int) -> bool:
        """A record of source partition ``tp`` at ``upstream`` was written at ``downstream``;
        True when a sync is now due at once (call :meth:`fire_pending`, as Java does)."""
        state = self._states.get(tp)
        if state is None:
            state = self._states[tp] = PartitionState(self.max_offset_lag)
        if state.update(upstream, downstream):
            state.should_sync = False
            with self._lock:
                self._delayed.pop(tp, None)
                self._pending[tp] = (upstream, downstream)
            return True
        self._delayed[tp] = (upstream, downstream)
        return False

    def queue_many(self, tp: TopicPartition, upstream: list[int], downstream: list[int]) -> None:
        """``maybe_queue`` for consecutive records of one partition (-1 downstream: not
        written), sending each sync that is due at once before the next can replace it."""
        state = self._states.get(tp)
        if state is None:
            state = self._states[tp] = PartitionState(self.max_offset_lag)
        update = state.update
        last = None
        for up, down in zip(upstream, downstream, strict=True):
            if down < 0:
                continue
            if update(up, down):
                state.should_sync = False
                with self._lock:
                    self._delayed.pop(tp, None)
                    self._pending[tp] = (up, down)
                self.fire_pending()
                last = None
            else:
                last = (up, down)
        if last is not None:
            self._delayed[tp] = last

    def promote_delayed(self) -> None:
        """Send the held-back syncs too (at every offset commit)."""
        with self._lock:
            self._pending.update(self._delayed)
            self._delayed.clear()

    def fire_pending(self) -> None:
        """Send queued syncs while fewer than 10 are in flight; serve delivery reports."""
        with self._lock:
            if self._closed:
                return
            self._producer.poll(0)
            while self._pending and self._outstanding < MAX_OUTSTANDING_OFFSET_SYNCS:
                tp = next(iter(self._pending))
                upstream, downstream = self._pending.pop(tp)
                if not self._send(OffsetSync(tp, upstream, downstream)):
                    break

    def _send(self, sync: OffsetSync) -> bool:
        def done(error: KafkaClientException | None, _meta: RecordMetadata | None) -> None:
            self._outstanding -= 1
            if error is not None:
                log.error("Failure sending offset sync %s: %s", sync, error)
            else:
                log.debug("Sync'd offsets for %s: %d==%d", sync.topic_partition,
                          sync.upstream_offset, sync.downstream_offset)  # fmt: skip

        try:
            self._producer.send(self.topic, 0, sync.record_key(), sync.record_value(), done)
        except KafkaClientException as e:
            # a full queue or a rejected record: keep the sync for the next attempt
            log.debug("Offset sync for %s not sent yet: %s", sync.topic_partition, e)
            self._pending.setdefault(
                sync.topic_partition, (sync.upstream_offset, sync.downstream_offset)
            )
            return False
        self._outstanding += 1
        return True

    def serve(self) -> None:
        """Serve delivery reports only."""
        with self._lock:
            if not self._closed:
                self._producer.poll(0)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._producer.close(5.0)

    # for tests
    def pending(self) -> dict[TopicPartition, tuple[int, int]]:
        return dict(self._pending)

    def delayed(self) -> dict[TopicPartition, tuple[int, int]]:
        return dict(self._delayed)
