"""The consumer side of a sink task: subscription, assignment, polling, pausing and seeking.

:class:`SinkConsumer` wraps the task's Kafka consumer and keeps what the consumer side knows:
the assigned partitions, why partitions are paused and the offsets to seek to. Two kinds of
pause exist, as in Kafka's ``WorkerSinkTask``:

* **every assigned partition**, for one or more :class:`PauseReason` (the target state is
  PAUSED/STOPPED; a put raised RetriableException and the same batch is redelivered later);
  the group membership stays alive because the loop keeps polling;
* **some partitions**, because the task asked through ``SinkTaskContext.pause``; they stay
  paused when the other pauses end.

Messages fetched before a pause took effect are not handed out: the partition is rewound to
the first of them, so nothing is skipped. Rebalance callbacks run inside :meth:`consume` on
the task thread; ``on_open`` gets newly assigned partitions, ``on_close`` revoked ones, and
the owner calls :meth:`forget` once it has closed them.

Task thread only (like the consumer it wraps).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from kconnect.api.errors import IllegalWorkerStateException
from kconnect.api.records import TopicPartition
from kconnect.kafka.clients.consumer import Consumer
from kconnect.kafka.clients.errors import consume_error_is_transient, from_kafka_error
from kconnect.runtime.common.log_context import ContextLogger

__all__ = ["PauseReason", "SinkConsumer"]


class PauseReason(enum.Enum):
    """Why every assigned partition is paused."""

    TARGET_STATE = "target state"
    REDELIVERY = "redelivery"


class SinkConsumer:
    def __init__(
        self,
        consumer: Consumer,
        max_poll_records: int,
        log: ContextLogger,
    ) -> None:
        self.consumer = consumer
        self.max_poll_records = max_poll_records
        self.log = log
        self.assigned: set[TopicPartition] = set()
        #: Partitions the task paused through its context.
        self.task_paused: set[TopicPartition] = set()
        self._reasons: set[PauseReason] = set()
        self._repause = False
        self._rewinds: dict[TopicPartition, int] = {}
        self._on_open: Callable[[set[TopicPartition]], None] = lambda _: None
        self._on_close: Callable[[set[TopicPartition]], None] = lambda _: None

    # -- subscription and assignment ------------------------------------------------------------

    def subscribe(
        self,
        topics: list[str],
        regex: str | None,
        on_open: Callable[[set[TopicPartition]], None],
        on_close: Callable[[set[TopicPartition]], None],
    ) -> None:
        """Subscribe to ``topics`` (or ``regex``); ``on_open`` / ``on_close`` receive the
        partitions assigned / revoked (inside :meth:`consume`)."""
        self._on_open, self._on_close = on_open, on_close
        self.consumer.subscribe(topics or None, regex or None, self._assigned_cb, self._revoked_cb)

    def _assigned_cb(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int] | None:
        new = set(partitions) - self.assigned
        self.assigned |= new
        if self._reasons:
            # Pause once the assignment is in place (next iteration); leaked messages rewind.
            self._repause = True
        starts = {tp: self._rewinds.pop(tp) for tp in list(self._rewinds) if tp in new}
        self._on_open(new)
        return starts or None

    def _revoked_cb(self, partitions: list[TopicPartition]) -> None:
        gone = set(partitions) & self.assigned
        if gone:
            self._on_close(gone)

    def forget(self, partitions: Collection[TopicPartition]) -> None:
        """The owner closed ``partitions``: they are no longer assigned or paused."""
        self.assigned -= set(partitions)
        self.task_paused -= set(partitions)

    # -- polling --------------------------------------------------------------------------------

    def consume(self, timeout_s: float) -> list[Any]:
        """Up to ``max.poll.records`` messages; error events are logged or raised, messages of
        paused partitions are held back (their partition rewinds to them).

        Raises ConnectException for a consumer error that is not transient.
        """
        msgs = self.consumer.consume(self.max_poll_records, timeout_s)
        if not msgs:
            return msgs
        if not (self._reasons or self.task_paused):
            # Usual case: nothing paused, so only error events need to be taken out.
            good = [m for m in msgs if m.error() is None]
            if len(good) == len(msgs):
                return good
        good = []
        leaked: dict[TopicPartition, int] = {}
        all_paused = bool(self._reasons)
        for m in msgs:
            err = m.error()
            if err is not None:
                if consume_error_is_transient(err):
                    if err.name() != "_PARTITION_EOF":
                        self.log.debug("Consumer reported %s; it keeps retrying", err.str())
                    continue
                raise from_kafka_error(err, "Error while consuming records")
            tp = TopicPartition(m.topic(), m.partition())
            if (all_paused or tp in self.task_paused) and tp in self.assigned:
                # Fetched before the pause took effect: rewind so nothing is skipped.
                if tp not in leaked:
                    leaked[tp] = m.offset()
                continue
            good.append(m)
        for tp, off in leaked.items():
            self.seek(tp, off)
        return good

    def commit(self, offsets: Mapping[TopicPartition, int], sync: bool) -> None:
        self.consumer.commit(offsets, asynchronous=not sync)

    def close(self) -> None:
        self.consumer.close()

    # -- pausing --------------------------------------------------------------------------------

    def is_paused_for(self, reason: PauseReason) -> bool:
        return reason in self._reasons

    def pause_all(self, reason: PauseReason) -> bool:
        """Pause every assigned partition for ``reason``; False if already paused for it."""
        if reason in self._reasons:
            return False
        self._reasons.add(reason)
        self.consumer.pause(self.assigned)
        return True

    def resume_all(self, reason: PauseReason) -> bool:
        """End the pause for ``reason``; partitions resume (except those the task paused) when
        no other reason holds them. False if not paused for ``reason``."""
        if reason not in self._reasons:
            return False
        self._reasons.discard(reason)
        if not self._reasons:
            self.consumer.resume(self.assigned - self.task_paused)
        return True

    def reapply_pause(self) -> None:
        """After a rebalance during a pause, pause the new assignment too (loop, each turn)."""
        if self._repause:
            self._repause = False
            if self._reasons:
                self.consumer.pause(self.assigned)

    def pause_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        """``SinkTaskContext.pause``. Raises IllegalWorkerStateException for a partition that
        is not assigned."""
        parts = self._assigned_only(partitions, "pause")
        self.task_paused.update(parts)
        if not self._reasons:
            self.consumer.pause(parts)

    def resume_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        """``SinkTaskContext.resume``. Raises IllegalWorkerStateException for a partition that
        is not assigned."""
        parts = self._assigned_only(partitions, "resume")
        self.task_paused.difference_update(parts)
        if not self._reasons:
            self.consumer.resume(parts)

    def _assigned_only(
        self, partitions: Iterable[TopicPartition], verb: str
    ) -> list[TopicPartition]:
        parts = [TopicPartition(*tp) for tp in partitions]
        for tp in parts:
            if tp not in self.assigned:
                raise IllegalWorkerStateException(
                    f"SinkTasks can not {verb} partitions that are not assigned to them"
                )
        return parts

    # -- seeking --------------------------------------------------------------------------------

    def request_rewinds(self, offsets: Mapping[TopicPartition, int]) -> None:
        """``SinkTaskContext.offset``: seek there before the next poll (or when assigned)."""
        self._rewinds.update({TopicPartition(*tp): int(o) for tp, o in offsets.items()})

    def apply_rewinds(self) -> dict[TopicPartition, int]:
        """Seek the requested partitions that are assigned; returns what was applied."""
        if not self._rewinds:
            return {}
        rewinds, self._rewinds = self._rewinds, {}
        applied: dict[TopicPartition, int] = {}
        for tp, off in rewinds.items():
            if tp in self.assigned:
                self.seek(tp, off)
                applied[tp] = off
            else:
                self.log.warning("Cannot rewind %s: the partition is not assigned to this task", tp)
        return applied

    def seek(self, tp: TopicPartition, offset: int) -> None:
        try:
            self.consumer.seek(tp, offset)
        except Exception as e:
            # The partition may not be fetching yet; try again at the next iteration.
            self.log.debug("Seek of %s to %d deferred: %s", tp, offset, e)
            self._rewinds[tp] = offset
