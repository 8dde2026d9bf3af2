"""Delivery acknowledgements of a source task's batches, counted without a callback per record.

One :class:`PartitionAcks` per source partition per polled batch is every record's producer
delivery callback (a per-record callback only when the task overrides ``commit_record``): when
the last of its records is acknowledged, its :class:`~kconnect.runtime.worker.submitted_records.
SubmittedRecord` is acked and the offset can be committed. :class:`WriteCounter` records the
batch as written (``source-record-write-*``) once every record is acknowledged or skipped.
Callbacks run on the task thread (producer ``poll``).
"""

from __future__ import annotations

from typing import Any, Protocol

from kconnect.api.records import RecordMetadata, SourceRecord
from kconnect.runtime.metrics.task_metrics import SourceTaskMetrics
from kconnect.runtime.worker.submitted_records import SubmittedRecord

__all__ = ["DeliveryOwner", "DestinationAcks", "PartitionAcks", "WriteCounter"]


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
        """Delivery callback of every record (producer poll, task thread)."""
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
