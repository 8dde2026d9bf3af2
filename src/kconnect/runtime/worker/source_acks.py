"""How a source task hears that its records were written: the three commit modes, and the
delivery callbacks that count a batch's acknowledgements without an object per record.

**Commit modes** (:class:`CommitMode`, chosen once per task from the ``SourceTask`` methods its
class overrides; this is the one place the choice is made):

* ``OFFSETS`` -- the task overrides neither hook and only needs its offsets committed. One
  :class:`PartitionAcks` per source partition per polled batch is the delivery callback of
  every record of that partition.
* ``RECORD`` -- the task overrides ``commit_record``: each record gets its own callback
  (``partial(acks.with_record, record)``) that calls ``commit_record(record, metadata)``; a
  record a transformation or converter dropped gets ``commit_record(record, None)`` as soon as
  the batch is tracked.
* ``RECORDS`` -- the task overrides ``commit_records`` (a kconnect extension, which wins over
  ``commit_record``): the PartitionAcks collects the records sent and the Kafka offset each got,
  and calls ``commit_records(records, offsets)`` once per source partition per batch. A record
  sent to an explicit Kafka partition is matched by send order (one :class:`DestinationAcks`
  per destination partition); one without gets ``partial(acks.with_index, i)``.

:func:`track_batch` submits a polled batch's offsets to
:class:`~kconnect.runtime.worker.submitted_records.SubmittedRecords` and builds those callbacks.
When the last record of a source partition is acknowledged its
:class:`~kconnect.runtime.worker.submitted_records.SubmittedRecord` is acked (the offset can be
committed); :class:`WriteCounter` records the batch as written (``source-record-write-*``) once
every record is acknowledged or skipped.

**Threading.** The callbacks run on the thread that serves the producer's delivery reports:
the task thread (producer ``poll``/``flush``) for an at-least-once task; for an exactly-once
task the committer thread, inside ``commit_transaction``, while the task thread polls the next
batch. What they touch is safe there: ``SubmittedRecord.ack`` and ``SourceTaskMetrics`` lock;
the exactly-once task's :class:`DeliveryOwner` methods only append to lists that the task
thread reads after waiting for the commit. :func:`track_batch` runs on the task thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from functools import partial
from typing import Any, Protocol

from kconnect.api.records import RecordMetadata, SourceRecord
from kconnect.api.task import SourceTask
from kconnect.kafka.clients.producer import DeliveryCallback
from kconnect.runtime.metrics.task_metrics import SourceTaskMetrics
from kconnect.runtime.worker.submitted_records import SubmittedRecord, SubmittedRecords

__all__ = [
    "CommitMode",
    "DeliveryOwner",
    "DestinationAcks",
    "PartitionAcks",
    "WriteCounter",
    "partition_key",
    "track_batch",
]

PartitionKey = tuple[tuple[str, Any], ...]


class CommitMode(Enum):
    """How a task is told its records were written (see the module docstring)."""

    OFFSETS = "offsets"
    RECORD = "commit_record"
    RECORDS = "commit_records"

    @classmethod
    def of(cls, task: SourceTask) -> CommitMode:
        """The mode of ``task``: ``commit_records`` wins over ``commit_record``."""
        kind = type(task)
        if kind.commit_records is not SourceTask.commit_records:
            return cls.RECORDS
        if kind.commit_record is not SourceTask.commit_record:
            return cls.RECORD
        return cls.OFFSETS


def partition_key(partition: Mapping[str, Any] | None) -> PartitionKey:
    """A source partition as a dict key (the key SubmittedRecords groups records by)."""
    return () if partition is None else tuple(sorted(partition.items()))


class DeliveryOwner(Protocol):
    """What the acknowledgements call back on (the source task)."""

    def _delivery_failed(self, err: Any, msg: Any, record: SourceRecord | None) -> bool: ...

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None: ...

    def _commit_records(self, records: list[SourceRecord], offsets: list[int]) -> None: ...


class WriteCounter:
    """Counts a polled batch's acknowledgements; when the last one arrives the batch is
    recorded as written (``source-record-write-*``), minus the records skipped (Kafka's
    ``SourceRecordWriteCounter``)."""

    __slots__ = ("metrics", "remaining", "size", "skipped")

    def __init__(self, metrics: SourceTaskMetrics, size: int) -> None:
        self.metrics = metrics
        self.size = size
        self.remaining = size
        self.skipped = 0

    def skip(self, n: int = 1) -> None:
        self.skipped += n
        self.done(n)

    def done(self, n: int = 1) -> None:
        self.remaining -= n
        if self.remaining == 0:
            self.metrics.record_write(self.size, self.skipped)


class PartitionAcks:
    """Acknowledgements of one source partition's records in one batch (one callback object)."""

    __slots__ = ("counter", "failed", "offsets", "owner", "records", "remaining", "submitted")

    def __init__(
        self,
        owner: DeliveryOwner,
        submitted: SubmittedRecord,
        counter: WriteCounter,
        collect: bool = False,
    ) -> None:
        self.owner = owner
        self.submitted = submitted
        self.counter = counter
        self.remaining = 0
        self.failed = False
        # with ``collect`` (the task overrides commit_records): the records sent, in order, and
        # the offset each was written at, filled in by DestinationAcks / with_index
        self.records: list[SourceRecord] | None = [] if collect else None
        self.offsets: list[int] | None = [] if collect else None

    def _finished(self) -> None:
        self.submitted.ack()
        if self.records:
            assert self.offsets is not None
            self.owner._commit_records(self.records, self.offsets)

    def done_one(self, skipped: bool = False) -> None:
        self.remaining -= 1
        if skipped:
            self.counter.skip()
        else:
            self.counter.done()
        if self.remaining == 0 and not self.failed:
            self._finished()

    def __call__(self, err: Any, msg: Any) -> None:
        """Delivery callback of every record (see the module docstring for the thread)."""
        if err is not None:
            if not self.owner._delivery_failed(err, msg, None):
                self.failed = True
                return
            self.done_one(skipped=True)
            return
        # done_one() and WriteCounter.done() inlined: this runs once per record.
        self.remaining -= 1
        counter = self.counter
        counter.remaining -= 1
        if counter.remaining == 0:
            counter.metrics.record_write(counter.size, counter.skipped)
        if self.remaining == 0 and not self.failed:
            self._finished()

    def with_index(self, index: int, err: Any, msg: Any) -> None:
        """Callback of a collected record sent without an explicit partition (its offset
        cannot be matched by partition order)."""
        assert self.offsets is not None
        self.offsets[index] = msg.offset() if err is None else -1
        self(err, msg)

    def with_record(self, record: SourceRecord, err: Any, msg: Any) -> None:
        if err is not None:
            if not self.owner._delivery_failed(err, msg, record):
                self.failed = True
                return
            self.owner._commit_record(record, None)
            self.done_one(skipped=True)
            return
        self.owner._commit_record(
            record,
            RecordMetadata(msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1]),
        )
        self.done_one()

    def refused(self, record: SourceRecord, callback: Any) -> None:
        """``record`` (sent with ``callback``) was refused synchronously and the refusal was
        tolerated: no delivery report will come for it, it counts as skipped."""
        if isinstance(callback, DestinationAcks):
            sent = self.records or []
            callback.skip(next(j for j, r in enumerate(sent) if r is record))
        self.done_one(skipped=True)


class DestinationAcks:
    """Delivery callback of the collected records of one PartitionAcks sent to one explicit
    Kafka partition: the producer reports a partition's deliveries in send order, so the n-th
    report is the n-th record sent there, and no per-record callback object is needed."""

    __slots__ = ("acks", "indexes", "position")

    def __init__(self, acks: PartitionAcks) -> None:
        self.acks = acks
        self.indexes: list[int] = []
        self.position = 0

    def skip(self, index: int) -> None:
        """Record ``index`` was never sent (refused synchronously): no report will come."""
        self.indexes.remove(index)
        assert self.acks.offsets is not None
        self.acks.offsets[index] = -1

    def __call__(self, err: Any, msg: Any) -> None:
        acks = self.acks
        assert acks.offsets is not None
        acks.offsets[self.indexes[self.position]] = msg.offset() if err is None else -1
        self.position += 1
        acks(err, msg)


def track_batch(
    owner: DeliveryOwner,
    mode: CommitMode,
    records: Sequence[SourceRecord],
    entries: Sequence[Any],
    submitted: SubmittedRecords,
    counter: WriteCounter,
) -> tuple[list[DeliveryCallback | None], dict[PartitionKey, PartitionAcks]]:
    """Submit a polled batch's offsets and build its delivery callbacks (task thread).

    ``entries[i]`` is what the producer sends for ``records[i]`` (``entries[i][0]`` the topic,
    ``entries[i][1]`` the partition or None), or None for a record that was dropped or whose
    failure was tolerated: it counts as skipped at once. One submitted entry per source
    partition of the batch, in poll order, carrying the partition's last offset. Returns the
    callback of each record (None for a dropped one) and the PartitionAcks of each source
    partition, by :func:`partition_key`.
    """
    n = len(records)
    callbacks: list[DeliveryCallback | None] = [None] * n
    acks_by_partition: dict[PartitionKey, PartitionAcks] = {}
    record_mode = mode is CommitMode.RECORD
    records_mode = mode is CommitMode.RECORDS
    destinations: dict[tuple[int, str, int], DestinationAcks] = {}
    # Consecutive records usually share one partition object: skip the key lookup for them.
    last: tuple[Any, PartitionAcks] | None = None
    for i in range(n):
        original = records[i]
        sp = original.source_partition
        if last is not None and last[0] is sp:
            acks = last[1]
        else:
            pkey = partition_key(sp)
            found = acks_by_partition.get(pkey)
            if found is None:
                found = acks_by_partition[pkey] = PartitionAcks(
                    owner, submitted.submit(sp, original.source_offset), counter, records_mode
                )
            acks = found
            last = (sp, acks)
        acks.submitted.offset = original.source_offset
        entry = entries[i]
        if entry is None:
            if record_mode:
                owner._commit_record(original, None)
            counter.skip()
            continue
        acks.remaining += 1
        callback: Any = acks
        if record_mode:
            callback = partial(acks.with_record, original)
        elif records_mode:
            collected = acks.records
            assert collected is not None and acks.offsets is not None
            index = len(collected)
            collected.append(original)
            acks.offsets.append(-1)
            p = entry[1]
            if p is not None and p >= 0:
                dkey = (id(acks), entry[0], p)
                callback = destinations.get(dkey)
                if callback is None:
                    callback = destinations[dkey] = DestinationAcks(acks)
                callback.indexes.append(index)
            else:
                callback = partial(acks.with_index, index)
        callbacks[i] = callback
    for acks in acks_by_partition.values():
        if acks.remaining == 0:
            acks.submitted.ack()
    return callbacks, acks_by_partition
