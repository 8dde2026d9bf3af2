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

__all__ = ["DeliveryOwner", "PartitionAcks", "WriteCounter"]


class DeliveryOwner(Protocol):
    """What the acknowledgements call back on (the source task)."""

    def _delivery_failed(self, err: Any, msg: Any, record: SourceRecord | None) -> bool: ...

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None: ...


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

    __slots__ = ("counter", "failed", "owner", "remaining", "submitted")

    def __init__(
        self, owner: DeliveryOwner, submitted: SubmittedRecord, counter: WriteCounter
    ) -> None:
        self.owner = owner
        self.submitted = submitted
        self.counter = counter
        self.remaining = 0
        self.failed = False

    def done_one(self, skipped: bool = False) -> None:
        self.remaining -= 1
        if skipped:
            self.counter.skip()
        else:
            self.counter.done()
        if self.remaining == 0 and not self.failed:
            self.submitted.ack()

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
            self.submitted.ack()

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
