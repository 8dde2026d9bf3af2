"""Delivery acknowledgements of a source batch. For a task that takes its records' offsets in
bulk (``SourceTask.commit_records``): one DestinationAcks per explicit destination partition
matches the n-th report to the n-th record sent there; the task gets one call per source
partition, with the records in poll order and their offsets, once all were acknowledged.
The commit mode follows the hooks a task overrides, and ``track_batch`` builds a batch's
callbacks per source partition."""

from __future__ import annotations

from typing import Any

from kconnect.api import RecordMetadata, SourceRecord, SourceTask
from kconnect.runtime.worker.source_acks import (
    CommitMode,
    DestinationAcks,
    PartitionAcks,
    WriteCounter,
    partition_key,
    track_batch,
)
from kconnect.runtime.worker.submitted_records import SubmittedRecords


class Owner:
    def __init__(self, tolerate: bool = True) -> None:
        self.calls: list[tuple[list[SourceRecord], list[int]]] = []
        self.tolerate = tolerate

    def _delivery_failed(self, err: Any, msg: Any, record: SourceRecord | None) -> bool:
        return self.tolerate

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        raise AssertionError("bulk tasks get no commit_record")

    def _commit_records(self, records: list[SourceRecord], offsets: list[int]) -> None:
        self.calls.append((list(records), list(offsets)))


class Metrics:
    def __init__(self) -> None:
        self.writes: list[tuple[int, int]] = []

    def record_write(self, size: int, skipped: int) -> None:
        self.writes.append((size, skipped))


class Msg:
    """A delivered message, as the producer's delivery report hands it over."""

    def __init__(self, topic: str, partition: int, offset: int) -> None:
        self._t, self._p, self._o = topic, partition, offset

    def topic(self) -> str:
        return self._t

    def partition(self) -> int:
        return self._p

    def offset(self) -> int:
        return self._o

    def timestamp(self) -> tuple[int, int]:
        return (1, 0)


def _batch(owner: Owner, n: int) -> tuple[PartitionAcks, list[SourceRecord], Metrics]:
    metrics = Metrics()
    submitted = SubmittedRecords()
    acks = PartitionAcks(
        owner, submitted.submit({"p": 1}, {"o": n}), WriteCounter(metrics, n), True
    )  # type: ignore[arg-type]
    records = [SourceRecord({"p": 1}, {"o": i}, "t", i % 2) for i in range(n)]
    return acks, records, metrics


def _collect(acks: PartitionAcks, record: SourceRecord, dest: DestinationAcks) -> None:
    assert acks.records is not None and acks.offsets is not None
    dest.indexes.append(len(acks.records))
    acks.records.append(record)
    acks.offsets.append(-1)
    acks.remaining += 1


def test_offsets_are_matched_per_destination_partition_in_send_order() -> None:
    owner = Owner()
    acks, records, metrics = _batch(owner, 4)
    to0, to1 = DestinationAcks(acks), DestinationAcks(acks)
    for r in records:
        _collect(acks, r, to0 if r.kafka_partition == 0 else to1)
    # partition 1's reports arrive first; each partition's in send order
    to1(None, Msg("t", 1, 70))
    to0(None, Msg("t", 0, 50))
    to1(None, Msg("t", 1, 71))
    assert owner.calls == []  # not every record is acknowledged yet
    to0(None, Msg("t", 0, 51))
    assert owner.calls == [(records, [50, 70, 51, 71])]
    assert metrics.writes == [(4, 0)]


def test_a_tolerated_failure_is_offset_minus_one_and_a_refused_send_is_skipped() -> None:
    owner = Owner(tolerate=True)
    acks, records, _ = _batch(owner, 3)
    dest = DestinationAcks(acks)
    for r in records:
        _collect(acks, r, dest)
    dest.skip(1)  # refused synchronously: never reported
    acks.done_one(skipped=True)
    dest(None, Msg("t", 0, 9))
    dest("broker said no", Msg("t", 0, -1))
    assert owner.calls == [(records, [9, -1, -1])]


def test_records_without_an_explicit_partition_report_by_index() -> None:
    owner = Owner()
    acks, records, _ = _batch(owner, 2)
    assert acks.records is not None and acks.offsets is not None
    for r in records:
        acks.records.append(r)
        acks.offsets.append(-1)
        acks.remaining += 1
    acks.with_index(1, None, Msg("t", 3, 12))
    acks.with_index(0, None, Msg("t", 0, 40))
    assert owner.calls == [(records, [40, 12])]


def test_plain_tasks_collect_nothing() -> None:
    owner = Owner()
    metrics = Metrics()
    acks = PartitionAcks(owner, SubmittedRecords().submit({}, {}), WriteCounter(metrics, 1))  # type: ignore[arg-type]
    acks.remaining = 1
    acks(None, Msg("t", 0, 1))
    assert acks.records is None and owner.calls == [] and metrics.writes == [(1, 0)]


class RecordTask(SourceTask):
    def poll(self) -> list[SourceRecord] | None:
        return None

    def start(self, props: Any) -> None: ...

    def stop(self) -> None: ...

    def version(self) -> str:
        return "1"

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None: ...


class RecordsTask(RecordTask):
    def commit_records(self, records: Any, offsets: Any) -> None: ...


class OffsetsTask(SourceTask):
    def poll(self) -> list[SourceRecord] | None:
        return None

    def start(self, props: Any) -> None: ...

    def stop(self) -> None: ...

    def version(self) -> str:
        return "1"


def test_the_commit_mode_follows_the_overridden_hooks() -> None:
    assert CommitMode.of(OffsetsTask()) is CommitMode.OFFSETS
    assert CommitMode.of(RecordTask()) is CommitMode.RECORD
    # commit_records wins over commit_record
    assert CommitMode.of(RecordsTask()) is CommitMode.RECORDS


class RecordOwner(Owner):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[Any, int | None]] = []

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.records.append((record.value, None if metadata is None else metadata.offset))


class TimestampedMsg(Msg):
    def timestamp(self) -> tuple[int, int]:
        return (1, 5)


def test_track_batch_groups_by_source_partition_and_acks_dropped_records_at_once() -> None:
    owner = RecordOwner()
    metrics = Metrics()
    submitted = SubmittedRecords()
    batch = [
        SourceRecord({"p": 1}, {"o": 0}, "t", value="a"),
        SourceRecord({"p": 2}, {"o": 0}, "t", value="b"),
        SourceRecord({"p": 1}, {"o": 1}, "t", value="c"),
    ]
    entries: list[Any] = [("t", None, b"k", b"a", 0, None), None, ("t", None, b"k", b"c", 0, None)]
    callbacks, acks = track_batch(
        owner,
        CommitMode.RECORD,
        batch,
        entries,
        submitted,
        WriteCounter(metrics, 3),  # type: ignore[arg-type]
    )
    assert set(acks) == {partition_key({"p": 1}), partition_key({"p": 2})}
    assert callbacks[1] is None
    # the dropped record: commit_record(record, None) right away, its partition acked
    assert owner.records == [("b", None)]
    assert submitted.committable_offsets().offsets == {
        partition_key({"p": 2}): ({"p": 2}, {"o": 0})
    }
    for i in (0, 2):
        callback = callbacks[i]
        assert callback is not None
        callback(None, TimestampedMsg("t", 0, 10 + i))
    assert owner.records == [("b", None), ("a", 10), ("c", 12)]
    # the partition's last offset is committable once all its records were acknowledged
    assert submitted.committable_offsets().offsets == {
        partition_key({"p": 1}): ({"p": 1}, {"o": 1})
    }
    assert metrics.writes == [(3, 1)]
