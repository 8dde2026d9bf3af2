"""Offset syncs in memory and offset translation (Java's ``OffsetSyncStore``).

Per source partition 64 syncs are kept, spaced roughly exponentially back from the latest one,
so a consumer group anywhere in the topic -- not only near its end -- translates to a nearby
downstream offset. The invariants of Java's store hold here too (syncs[0] is the latest sync;
for i < j, syncs[i] is no more than 2^j - 2^i and at least 2^(i-2) upstream offsets later than
syncs[j]); arrays are replaced, never changed in place, so readers on other threads see a
consistent array.

Translation (``translate_downstream``) is conservative, as since Kafka 3.5: a group exactly at
a sync's upstream offset translates to its downstream offset, a group past it to the downstream
offset plus one (records in between may or may not have been replicated); a group older than
every sync kept gives -1 (cannot translate), and nothing is translated before the offset-syncs
topic was read to its end once.

:class:`OffsetSyncStore` reads the offset-syncs topic (partition 0) on a thread of its own
after :meth:`~OffsetSyncStore.start` read it to the end.
"""

from __future__ import annotations

import logging
import threading
import time

from kconnect.api import TopicPartition
from kconnect.api.kafka_clients import Consumer, KafkaClientException
from kconnect.connectors.mirror.formats import FormatError, OffsetSync

__all__ = ["SYNCS_PER_PARTITION", "OffsetSyncStore", "SyncArrays", "end_offset"]

log = logging.getLogger(__name__)

SYNCS_PER_PARTITION = 64
_MASK = (1 << 64) - 1
_SIGN = 1 << 63


def _long(value: int) -> int:
    """``value`` as a Java ``long`` (two's complement wrap-around)."""
    value &= _MASK
    return value - (1 << 64) if value & _SIGN else value


def _shift(bits: int) -> int:
    return _long(1 << bits)


def _invariant_b(i_sync: OffsetSync, j_sync: OffsetSync, i: int, j: int) -> bool:
    bound = _long(j_sync.upstream_offset + _shift(j) - _shift(i))
    return i_sync is j_sync or bound < 0 or i_sync.upstream_offset <= bound


def _invariant_c(i_sync: OffsetSync, j_sync: OffsetSync, i: int) -> bool:
    bound = _long(j_sync.upstream_offset + _shift(max(i - 2, 0)))
    return i_sync is j_sync or (bound >= 0 and i_sync.upstream_offset >= bound)


def end_offset(
    consumer: Consumer, tp: TopicPartition, deadline: float, stop: threading.Event
) -> int:
    """The end offset of ``tp``, waiting (until ``deadline``) for a topic that was created a
    moment ago and is not known everywhere yet."""
    while True:
        try:
            return consumer.end_offsets([tp], max(1.0, deadline - time.monotonic()))[tp]
        except KafkaClientException as e:
            if time.monotonic() > deadline or stop.is_set():
                raise
            log.debug("End offset of %s not known yet (%s); retrying", tp, e)
            stop.wait(0.5)


class SyncArrays:
    """The per-partition sync arrays and translation, without any Kafka client."""

    def __init__(self) -> None:
        self._syncs: dict[TopicPartition, list[OffsetSync]] = {}
        self.initialization_must_read_to_end = True
        self.read_to_end = False

    def handle(self, sync: OffsetSync) -> None:
        """Take one sync from the topic (in topic order)."""
        current = self._syncs.get(sync.topic_partition)
        if current is None:
            self._syncs[sync.topic_partition] = [sync] * SYNCS_PER_PARTITION
            return
        updated = list(current)
        self._update(updated, current, sync)
        self._syncs[sync.topic_partition] = updated

    def _update(
        self, syncs: list[OffsetSync], original: list[OffsetSync], sync: OffsetSync
    ) -> None:
        upstream = sync.upstream_offset
        only_load_last = not self.read_to_end and self.initialization_must_read_to_end
        if only_load_last or upstream < syncs[0].upstream_offset:
            syncs[:] = [sync] * SYNCS_PER_PARTITION  # a rewind invalidates everything older
            return
        replacement = sync
        replacement_index = 0
        syncs[0] = replacement
        for current in range(1, SYNCS_PER_PARTITION):
            previous = current - 1
            while True:
                old = original[replacement_index]
                is_recent = _invariant_b(syncs[previous], old, previous, current)
                separated_from_previous = _invariant_c(syncs[previous], old, previous)
                nxt = current + 1
                separated_from_next = nxt >= SYNCS_PER_PARTITION or _invariant_c(
                    old, syncs[nxt], current
                )
                nxt_replacement = replacement_index + 1
                duplicate = (
                    nxt_replacement < SYNCS_PER_PARTITION and old is original[nxt_replacement]
                )
                promote = is_recent and separated_from_previous and separated_from_next
                if promote:
                    replacement = old
                skip = duplicate or not separated_from_previous
                if promote or skip:
                    replacement_index += 1
                if not (replacement_index < current and skip):
                    break
            if _invariant_b(syncs[previous], syncs[current], previous, current):
                break  # it holds for every later index too
            syncs[current] = replacement

    def latest_sync(self, tp: TopicPartition, upstream: int) -> OffsetSync | None:
        syncs = self._syncs.get(tp)
        if syncs is None:
            return None
        for sync in syncs:
            if sync.upstream_offset <= upstream:
                return sync
        return syncs[-1]

    def translate_downstream(self, group: str, tp: TopicPartition, upstream: int) -> int | None:
        """The downstream offset for ``group`` at ``upstream`` on source partition ``tp``:
        None when unknown (no sync yet, or the topic not read to its end), -1 when the group
        is older than every sync kept."""
        if not self.read_to_end:
            log.debug("translateDownstream(%s,%s,%d): Skipped (initial offset syncs read still "
                      "in progress)", group, tp, upstream)  # fmt: skip
            return None
        sync = self.latest_sync(tp, upstream)
        if sync is None:
            log.debug("translateDownstream(%s,%s,%d): Skipped (offset sync not found)",
                      group, tp, upstream)  # fmt: skip
            return None
        if sync.upstream_offset > upstream:
            log.debug("translateDownstream(%s,%s,%d): Skipped (%s is ahead of upstream consumer "
                      "group %d)", group, tp, upstream, sync, upstream)  # fmt: skip
            return -1
        step = 0 if upstream == sync.upstream_offset else 1
        return sync.downstream_offset + step

    def sync_for(self, tp: TopicPartition, index: int) -> OffsetSync:
        return self._syncs[tp][index]


class OffsetSyncStore(SyncArrays):
    """:class:`SyncArrays` fed from the offset-syncs topic by ``consumer`` (see the module
    docstring). ``start`` blocks until the topic was read to its end once."""

    def __init__(self, consumer: Consumer, topic: str, poll_timeout_s: float) -> None:
        super().__init__()
        self._consumer = consumer
        self._tp = TopicPartition(topic, 0)
        self._poll_timeout_s = poll_timeout_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._consumer_lock = threading.Lock()

    def start(self, initialization_must_read_to_end: bool, timeout_s: float = 60.0) -> None:
        self.initialization_must_read_to_end = initialization_must_read_to_end
        log.debug("OffsetSyncStore starting - must read to OffsetSync end = %s",
                  initialization_must_read_to_end)  # fmt: skip
        with self._consumer_lock:
            self._consumer.assign({self._tp: 0})
            deadline = time.monotonic() + timeout_s
            end = end_offset(self._consumer, self._tp, deadline, self._stop)
            while not self._stop.is_set():
                position = self._consumer.position([self._tp]).get(self._tp)
                if position is not None and position >= end:
                    break
                if time.monotonic() > deadline:
                    raise KafkaClientException(
                        f"Timed out reading offset syncs topic {self._tp.topic} to its end",
                        "TIMED_OUT", True,
                    )  # fmt: skip
                self._read_once()
        self.read_to_end = True
        self._thread = threading.Thread(
            target=self._run, name=f"offset-syncs-reader {self._tp.topic}", daemon=True
        )
        self._thread.start()

    def _read_once(self) -> None:
        for record in self._consumer.poll(10_000, self._poll_timeout_s):
            try:
                self.handle(OffsetSync.from_record(record.key(), record.value()))
            except FormatError as e:
                log.warning("Ignored invalid offset sync at offset %s: %s", record.offset(), e)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with self._consumer_lock:
                    if self._stop.is_set():
                        return
                    self._read_once()
            except KafkaClientException as e:
                log.warning("Reading offset syncs from %s failed (will retry): %s", self._tp, e)
                self._stop.wait(1.0)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self._poll_timeout_s + 5.0)
        with self._consumer_lock:
            self._consumer.close()
