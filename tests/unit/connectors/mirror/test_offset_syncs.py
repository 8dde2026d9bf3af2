"""Offset syncs: when a source task writes one (PartitionState, offset.lag.max) and how the
checkpoint side keeps and translates them (SyncArrays: Java's OffsetSyncStore invariants and
conservative translation). tests/integration/test_mirror_java_harness.py feeds the same syncs
to Java's OffsetSyncStore and compares every translation."""

from __future__ import annotations

import random
from typing import Any

from kconnect.api import TopicPartition
from kconnect.api.kafka_clients import Producer
from kconnect.connectors.mirror.formats import OffsetSync
from kconnect.connectors.mirror.offset_sync_store import SYNCS_PER_PARTITION, SyncArrays
from kconnect.connectors.mirror.offset_sync_writer import OffsetSyncWriter, PartitionState

TP = TopicPartition("t", 0)


def store(*syncs: tuple[int, int], read_to_end: bool = True) -> SyncArrays:
    s = SyncArrays()
    s.read_to_end = read_to_end
    for up, down in syncs:
        s.handle(OffsetSync(TP, up, down))
    return s


def test_partition_state_syncs_first_record_lag_skips_and_truncation() -> None:
    state = PartitionState(max_offset_lag=100)
    assert state.update(0, 0)  # first record of this task's lifetime
    state.should_sync = False
    assert not state.update(1, 1)
    # upstream offsets skipped (compaction, transaction markers)
    assert state.update(5, 2)
    state.should_sync = False
    # downstream ran offset.lag.max past the last sync (+1: translation goes one past it)
    results = [state.update(5 + i, 2 + i) for i in range(1, 120)]
    assert results.index(True) + 1 == 101  # downstream 103 = last sync 2 + 1 + 100
    state.should_sync = False
    # the downstream topic was truncated
    assert state.update(200, 0)


def test_nothing_translates_before_the_topic_was_read_to_its_end() -> None:
    s = store((100, 200), read_to_end=False)
    assert s.translate_downstream("g", TP, 100) is None
    s.read_to_end = True
    assert s.translate_downstream("g", TP, 100) == 200


def test_translation_is_conservative() -> None:
    s = store((100, 200))
    assert s.translate_downstream("g", TP, 100) == 200  # exactly at the sync
    assert s.translate_downstream("g", TP, 150) == 201  # past it: one past the sync only
    assert s.translate_downstream("g", TP, 50) == -1  # older than every sync kept
    assert s.translate_downstream("g", TopicPartition("t", 1), 100) is None  # no sync at all


def test_an_upstream_rewind_forgets_older_syncs() -> None:
    s = store((100, 200), (200, 300), (50, 400))
    assert s.translate_downstream("g", TP, 150) == 401
    assert s.translate_downstream("g", TP, 40) == -1


def test_only_the_last_sync_is_loaded_while_initial_read_must_reach_the_end() -> None:
    s = SyncArrays()
    s.initialization_must_read_to_end = True
    for up in range(0, 1000, 10):
        s.handle(OffsetSync(TP, up, up))
    s.read_to_end = True
    assert s.translate_downstream("g", TP, 500) == -1  # only 990 was kept
    assert s.translate_downstream("g", TP, 995) == 991


def _check_invariants(s: SyncArrays) -> None:
    syncs = [s.sync_for(TP, i) for i in range(SYNCS_PER_PARTITION)]
    for i in range(SYNCS_PER_PARTITION - 1):
        j = i + 1
        a, b = syncs[i], syncs[j]
        if a is b:
            continue
        assert a.upstream_offset <= b.upstream_offset + (1 << j) - (1 << i), (i, a, b)
        assert a.upstream_offset >= b.upstream_offset + (1 << max(i - 2, 0)), (i, a, b)


def test_many_syncs_keep_the_invariants_and_translate_below_the_truth() -> None:
    rnd = random.Random(7)
    s = SyncArrays()
    s.read_to_end = True
    up = down = 0
    truth: dict[int, int] = {}
    for _ in range(3000):
        up += rnd.randint(1, 30)
        down += rnd.randint(1, 30)
        truth[up] = down
        s.handle(OffsetSync(TP, up, down))
        _check_invariants(s)
    assert s.sync_for(TP, 0).upstream_offset == up  # invariant A: the latest sync first
    ups = sorted(truth)
    for query in rnd.sample(range(ups[0], up), 500):
        got = s.translate_downstream("g", TP, query)
        assert got is not None
        if got == -1:
            continue
        exact = max(u for u in ups if u <= query)
        assert got <= truth[exact] + 1  # never ahead of what was replicated


class RecordingProducer(Producer):
    """Keeps what was sent; delivers it successfully at the next poll."""

    def __init__(self) -> None:
        self.sent: list[OffsetSync] = []
        self._due: list[Any] = []

    def send(self, topic: str, partition: int | None, key: bytes | None,
             value: bytes | None, on_delivery: Any = None) -> None:  # fmt: skip
        self.sent.append(OffsetSync.from_record(key, value))
        self._due.append(on_delivery)

    def poll(self, timeout_s: float = 0.0) -> int:
        due, self._due = self._due, []
        for callback in due:
            callback(None, None)
        return len(due)

    def flush(self, timeout_s: float) -> int:
        self.poll()
        return 0

    def close(self, timeout_s: float = 30.0) -> None:
        self.flush(timeout_s)


def _sent(writer: OffsetSyncWriter, producer: RecordingProducer) -> list[tuple[int, int]]:
    writer.promote_delayed()
    writer.fire_pending()
    return [(s.upstream_offset, s.downstream_offset) for s in producer.sent]


def test_bulk_queueing_sends_the_syncs_record_by_record_queueing_sends() -> None:
    rnd = random.Random(11)
    ups, downs = [], []
    up = 0
    for down in range(1, 2001):
        up += rnd.choice([1, 1, 1, 3])
        ups.append(up)
        downs.append(down if rnd.random() > 0.01 else -1)  # a few tolerated failures
    one, bulk = RecordingProducer(), RecordingProducer()
    w_one, w_bulk = OffsetSyncWriter(one, "s", 100), OffsetSyncWriter(bulk, "s", 100)
    for u, d in zip(ups, downs, strict=True):
        if d >= 0 and w_one.maybe_queue(TP, u, d):
            w_one.fire_pending()
    for start in range(0, len(ups), 137):  # batches of one poll
        w_bulk.queue_many(TP, ups[start : start + 137], downs[start : start + 137])
    assert _sent(w_bulk, bulk) == _sent(w_one, one)
    assert len(bulk.sent) > 20
