"""Which source offsets are safe to commit (``SubmittedRecords``).

Records are submitted in the order ``SourceTask.poll`` returned them; each is acknowledged
when the producer confirms it (or when it was filtered or tolerated). An offset of a source
partition becomes committable only when every record of that partition submitted before it
was acknowledged too, so a crash never skips an unwritten record. Partitions are independent:
a stuck Kafka partition holds back only the source partitions that feed it.

Threading: ``submit`` and ``committable_offsets`` on the task thread; ``ack`` from the
producer callback (which kconnect serves on the task thread too). A lock keeps it correct if
a caller acks from elsewhere.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NOTHING_COMMITTABLE", "CommittableOffsets", "SubmittedRecord", "SubmittedRecords"]

_Key = tuple[tuple[str, Any], ...]


def _key(partition: Mapping[str, Any] | None) -> _Key:
    return () if partition is None else tuple(sorted(partition.items()))


class SubmittedRecord:
    """One submitted record (or a group of consecutive records of one source partition)."""

    __slots__ = ("_owner", "acked", "key", "offset", "partition")

    def __init__(
        self,
        owner: SubmittedRecords,
        key: _Key,
        partition: Mapping[str, Any] | None,
        offset: Mapping[str, Any] | None,
    ) -> None:
        self._owner = owner
        self.key = key
        self.partition = partition
        self.offset = offset
        self.acked = False

    def ack(self) -> None:
        """Written (or deliberately skipped): its offset may be committed once it is in order."""
        with self._owner._lock:
            if not self.acked:
                self.acked = True
                self._owner._unacked -= 1
                if self._owner._unacked == 0:
                    self._owner._all_acked.notify_all()

    def drop(self) -> bool:
        """Forget a record the producer rejected synchronously; True if it was the last one."""
        return self._owner._remove(self)


@dataclass(frozen=True)
class CommittableOffsets:
    """Offsets ready to commit, keyed by frozen partition → (partition map, offset map)."""

    offsets: dict[_Key, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]
    num_committable: int
    num_uncommittable: int
    num_deques: int
    largest_deque_size: int

    def is_empty(self) -> bool:
        return not self.offsets


NOTHING_COMMITTABLE = CommittableOffsets({}, 0, 0, 0, 0)
"""What :meth:`SubmittedRecords.committable_offsets` returns with nothing submitted (its
``offsets`` are never written to)."""


class SubmittedRecords:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._all_acked = threading.Condition(self._lock)
        self._records: dict[_Key, deque[SubmittedRecord]] = {}
        self._unacked = 0

    def submit(
        self, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None
    ) -> SubmittedRecord:
        """Track a record about to be sent; ack it from the delivery callback."""
        key = _key(partition)
        rec = SubmittedRecord(self, key, partition, offset)
        with self._lock:
            self._records.setdefault(key, deque()).append(rec)
            self._unacked += 1
        return rec

    def _remove(self, rec: SubmittedRecord) -> bool:
        with self._lock:
            dq = self._records.get(rec.key)
            if dq is None:
                return False
            try:
                # Rejections happen right after submit, so the record is near the tail.
                for i in range(len(dq) - 1, -1, -1):
                    if dq[i] is rec:
                        del dq[i]
                        break
                else:
                    return False
            finally:
                if not dq:
                    del self._records[rec.key]
            if not rec.acked:
                self._unacked -= 1
                if self._unacked == 0:
                    self._all_acked.notify_all()
            return True

    def committable_offsets(self) -> CommittableOffsets:
        """Pop every acknowledged record at the head of each partition's queue and return the
        latest such offset per partition (:data:`NOTHING_COMMITTABLE`, shared, when no record
        was submitted since: an idle task's commit every ``offset.flush.interval.ms``)."""
        if not self._records:  # only the task thread adds; a stale "not empty" costs a pass
            return NOTHING_COMMITTABLE
        offsets: dict[_Key, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]] = {}
        committable = 0
        uncommittable = 0
        largest = 0
        with self._lock:
            for key in list(self._records):
                dq = self._records[key]
                last: SubmittedRecord | None = None
                while dq and dq[0].acked:
                    last = dq.popleft()
                    committable += 1
                if last is not None:
                    offsets[key] = (last.partition, last.offset)
                uncommittable += len(dq)
                largest = max(largest, len(dq))
                if not dq:
                    del self._records[key]
            num_deques = len(self._records)
        return CommittableOffsets(offsets, committable, uncommittable, num_deques, largest)

    def await_all_messages(self, timeout_s: float) -> bool:
        """Wait until every submitted record is acked; False on timeout."""
        with self._all_acked:
            return self._all_acked.wait_for(lambda: self._unacked == 0, timeout_s)

    def has_unacked(self) -> bool:
        """Whether a submitted record awaits its acknowledgement (a read without the lock: the
        idle loop's check)."""
        return self._unacked > 0

    @property
    def unacked(self) -> int:
        with self._lock:
            return self._unacked
