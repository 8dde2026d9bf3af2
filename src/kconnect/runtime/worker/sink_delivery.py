"""The delivery side of a sink task: consumed messages to SinkRecords, ``put``, offset commits.

:class:`SinkDelivery` turns each consumed batch into SinkRecords -- keys and values converted
with one batch call per topic (stages KEY_CONVERTER, VALUE_CONVERTER), headers
(HEADER_CONVERTER), then the transformation chain over the batch (TRANSFORMATION); a record
that fails and is tolerated is left out, but its offset counts as consumed -- and hands the
batch to ``SinkTask.put``:

* a RetriableException pauses every partition and the SAME batch is redelivered after
  ``SinkTaskContext.timeout`` (or at the next commit, as Kafka does);
* any other exception fails the task ("Exiting WorkerSinkTask due to unrecoverable
  exception.");
* only after a successful put do the batch's offsets become current (committable).

Commits wait for outstanding DLQ / errant-record reports, ask ``SinkTask.pre_commit(current)``
and commit what is assigned, not ahead of what was consumed and changed since the last commit.
:class:`WorkerErrantRecordReporter` is KIP-610's reporter. Task thread only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from functools import partial
from typing import Any

from kconnect._hot_path import native
from kconnect.api.errors import ConnectException, RetriableException
from kconnect.api.records import SinkRecord, TimestampType, TopicPartition
from kconnect.api.task import ErrantRecordReporter, SinkTask
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.log_context import ContextLogger
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RawRecord,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.record_batches import (
    connect_headers,
    native_forms,
    sink_batch,
    transform_native,
)
from kconnect.runtime.worker.record_conversion import (
    SKIP,
    by_topic,
    convert_column,
    transform_batch,
)
from kconnect.runtime.worker.record_conversion import raw_headers as converter_headers
from kconnect.runtime.worker.sink_consumer import PauseReason, SinkConsumer
from kconnect.runtime.worker.worker_task import TaskPlugins

__all__ = ["SinkDelivery", "WorkerErrantRecordReporter", "raw_record"]

# Kafka reports errant records with the SinkTask interface as the executing class.
SINK_TASK_CLASS = "org.apache.kafka.connect.sink.SinkTask"
_TS_TYPES = {
    0: TimestampType.NO_TIMESTAMP_TYPE,
    1: TimestampType.CREATE_TIME,
    2: TimestampType.LOG_APPEND_TIME,
}
_TS_TYPE_LIST = (_TS_TYPES[0], _TS_TYPES[1], _TS_TYPES[2])


def raw_record(msg: Any) -> RawRecord:
    """The consumed message as a :class:`RawRecord` (built only for error reports)."""
    ts_type, ts = msg.timestamp()
    return RawRecord(
        msg.topic(),
        msg.partition(),
        msg.offset(),
        ts if ts_type else None,
        _TS_TYPES.get(ts_type, TimestampType.NO_TIMESTAMP_TYPE),
        msg.key(),
        msg.value(),
        msg.headers(),
    )


class SinkDelivery:
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        plugins: TaskPlugins,
        operator: RetryWithToleranceOperator,
        consumer: SinkConsumer,
        metrics: TaskMetricsBundle,
        clock: Clock,
        log: ContextLogger,
        *,
        errant_reporter_enabled: bool,
        flush_timeout_ms: int,
        topic_tracker: Callable[[str, str], None] | None = None,
    ) -> None:
        self.id = task_id
        self.task = task
        self.plugins = plugins
        self.operator = operator
        self.consumer = consumer
        self.metrics = metrics
        self._sink_metrics = metrics.sink_metrics()
        self.clock = clock
        self.log = log
        self.flush_timeout_ms = flush_timeout_ms
        self.topic_tracker = topic_tracker
        self.errant_reporter = WorkerErrantRecordReporter(self) if errant_reporter_enabled else None
        self._known_topics: set[str] = set()
        # The batch waiting for (re)delivery: records, the messages they came from, and the
        # next offset per partition once it is put.
        self._batch: Sequence[SinkRecord] = []
        # The converters' native forms (None: not looked up yet; False: none)
        self._forms: Any = None
        self._batch_msgs: list[Any] = []
        self._batch_offsets: dict[TopicPartition, int] = {}
        self._raw_index: dict[tuple[str, int, int], int] | None = None
        self._current_offsets: dict[TopicPartition, int] = {}
        self._last_committed: dict[TopicPartition, int] = {}
        # For sink-record-active-count: next offset read, and the baseline per partition
        # (last committed, else the first offset read since assignment).
        self._consumed: dict[TopicPartition, int] = {}
        self._active_base: dict[TopicPartition, int] = {}
        self._commit_seq = 0
        #: ``SinkTaskContext.timeout``: how long to wait before redelivering (-1: not set).
        self.context_timeout_ms = -1
        self.redeliver_at = 0.0
        #: The last put had records (the next poll then does not wait).
        self.put_nonempty = False

    @property
    def awaiting_redelivery(self) -> bool:
        return self.consumer.is_paused_for(PauseReason.REDELIVERY)

    # -- conversion -----------------------------------------------------------------------------

    def convert(self, msgs: list[Any]) -> None:
        """Add consumed messages to the batch as SinkRecords (converted and transformed)."""
        # Per-batch work: columns are pulled out of the messages with list comprehensions,
        # keys and values are converted with one batch call per topic, the chain runs over the
        # batch, offsets are taken per partition after the loop; the per-record loop only
        # builds the SinkRecord.
        n = len(msgs)
        self._sink_metrics.read.record(n)
        self.metrics.task.record_activity()
        contexts: dict[int, ProcessingContext] = {}

        def ctx(i: int) -> ProcessingContext:
            c = contexts.get(i)
            if c is None:
                c = contexts[i] = ProcessingContext(consumer_record=raw_record(msgs[i]))
            return c

        # On the native path the message columns come out in one pass (the same lists).
        columns = (
            native.message_columns(msgs)
            if native is not None and n and msgs.__class__ is list
            else None
        )
        if columns is not None:
            topics, raw_keys, raw_values, parts, offs = columns
        else:
            topics = [m.topic() for m in msgs]
            raw_keys = [m.key() for m in msgs]
            raw_values = [m.value() for m in msgs]
            parts = [m.partition() for m in msgs]
            offs = [m.offset() for m in msgs]
        groups = by_topic(topics, range(n))
        for t in groups:
            if t not in self._known_topics:
                self._known_topics.add(t)
                if self.topic_tracker is not None:
                    self.topic_tracker(self.id.connector, t)
        records = self._native_records(msgs, ctx)
        if records is None:
            records = self._python_records(
                msgs, ctx, groups, topics, raw_keys, raw_values, parts, offs
            )
        # (the batch is empty here unless a redelivery is pending, which stops consumption)
        self._batch = [*self._batch, *records] if self._batch else records
        self._batch_msgs.extend(msgs)
        self._raw_index = None
        # Next offset per partition: the last message of each partition in the batch
        # (offsets of skipped records count as consumed too).
        if len(groups) == 1 and parts.count(parts[0]) == n:
            last: dict[tuple[str, int], int] = {(topics[0], parts[0]): offs[-1]}
        else:
            last = {}
            for tpo in zip(topics, parts, offs, strict=True):
                last[tpo[0], tpo[1]] = tpo[2]
        new_offsets = {TopicPartition(t, p): o + 1 for (t, p), o in last.items()}
        self._batch_offsets.update(new_offsets)
        base = self._active_base
        if any(tp not in base for tp in new_offsets):
            # First records of a partition since assignment (rare): find their first offset.
            for t, p, o in zip(topics, parts, offs, strict=True):
                tp = TopicPartition(t, p)
                if tp not in base:
                    base[tp] = self._last_committed.get(tp, o)
        self._consumed.update(new_offsets)
        self._record_active()

    def _native_records(
        self, msgs: list[Any], ctx: Callable[[int], ProcessingContext]
    ) -> Sequence[SinkRecord] | None:
        """The batch on the native record path (see :mod:`record_batches`), transformed; None
        when it does not apply (the native path is off, a converter has no native form, the
        messages are of another kind)."""
        if self._forms is None:
            self._forms = native_forms(self.plugins) or False
        if self._forms is False or msgs.__class__ is not list:
            return None
        fallbacks = self.metrics.task.record_python_fallbacks
        batch = sink_batch(msgs, self._forms, self.plugins, self.operator, ctx, fallbacks)
        if batch is None:
            return None
        chain = self.plugins.chain
        if chain is not None:
            transform_native(chain, batch, self.operator, ctx, fallbacks)
        return batch

    def _python_records(
        self,
        msgs: list[Any],
        ctx: Callable[[int], ProcessingContext],
        groups: dict[str, list[int]],
        topics: list[str],
        raw_keys: list[Any],
        raw_values: list[Any],
        parts: list[int],
        offs: list[int],
    ) -> list[SinkRecord]:
        """The batch on the pure-Python path: keys and values with one batch call per topic,
        headers, a SinkRecord per message, then the chain over the batch."""
        plugins = self.plugins
        n = len(msgs)
        kc, vc, hc = plugins.key_converter, plugins.value_converter, plugins.header_converter
        operator = self.operator
        keys = convert_column(
            operator,
            ctx,
            groups,
            raw_keys,
            kc.to_connect_batch,
            kc.to_connect_data,
            Stage.KEY_CONVERTER,
            kc,
            [None] * n,
            lambda i: converter_headers(msgs[i]),
        )
        values = convert_column(
            operator,
            ctx,
            groups,
            raw_values,
            vc.to_connect_batch,
            vc.to_connect_data,
            Stage.VALUE_CONVERTER,
            vc,
            [None] * n,
            lambda i: converter_headers(msgs[i]),
        )
        records: list[SinkRecord] = []
        append = records.append
        ts_types = _TS_TYPE_LIST
        skip = SKIP
        chain = plugins.chain
        # Batch index of each record, for the transformation stage's error contexts.
        index: list[int] | None = [] if chain is not None else None
        # On the native path the records of a batch with no headers and no tolerated failure
        # are built in one call, as the loop below builds them.
        built = (
            native.sink_records(
                msgs, keys, values, topics, parts, offs, ts_types, TimestampType.NO_TIMESTAMP_TYPE
            )
            if native is not None
            and msgs.__class__ is list
            and keys.__class__ is list
            and values.__class__ is list
            else None
        )
        if built is not None:
            records = built
            if index is not None:
                index = list(range(n))
        for i, m in enumerate(msgs if built is None else ()):
            k = keys[i]
            v = values[i]
            if k is skip or v is skip:
                continue
            raw_headers = m.headers()
            headers = None
            if raw_headers:
                headers = operator.execute(
                    ctx(i),
                    partial(connect_headers, hc, topics[i], raw_headers),
                    Stage.HEADER_CONVERTER,
                    hc,
                )
                if ctx(i).failed:
                    continue
            ts_type, ts = m.timestamp()
            append(
                SinkRecord(
                    topics[i],
                    parts[i],
                    k.schema,
                    k.value,
                    v.schema,
                    v.value,
                    offs[i],
                    ts if ts_type else None,
                    ts_types[ts_type] if 0 <= ts_type < 3 else TimestampType.NO_TIMESTAMP_TYPE,
                    headers,
                )
            )
            if index is not None:
                index.append(i)
        if chain is not None and index is not None:
            out = transform_batch(chain, operator, lambda j: ctx(index[j]), records)
            records = [r for r in out if r is not None]
        return records

    def _record_active(self) -> None:
        """``sink-record-active-count``: records read but not yet committed."""
        base = self._active_base
        active = sum(max(0, off - base.get(tp, off)) for tp, off in self._consumed.items())
        self._sink_metrics.active.record(active)

    # -- put ------------------------------------------------------------------------------------

    def deliver(self, next_commit_ms: float) -> None:
        """``SinkTask.put`` of the batch (possibly empty). A RetriableException pauses every
        partition until ``redeliver_at`` (``SinkTaskContext.timeout``, at most until the next
        commit at ``next_commit_ms``).

        Raises ConnectException when put fails otherwise (the task fails).
        """
        batch = self._batch
        started = self.clock.monotonic_ms()
        try:
            self.task.put(batch)
        except RetriableException as e:
            self.log.error("RetriableException from SinkTask %s: %s", self.id, e)
            self.consumer.pause_all(PauseReason.REDELIVERY)
            backoff = next_commit_ms - self.clock.monotonic_ms()
            if self.context_timeout_ms > 0:
                backoff = min(backoff, self.context_timeout_ms)
                self.context_timeout_ms = -1
            self.redeliver_at = self.clock.monotonic_ms() + max(0.0, backoff)
            return
        except Exception as e:
            self.log.error(
                "Task threw an uncaught and unrecoverable exception. Task is being "
                "killed and will not recover until manually restarted. Error: %s",
                e,
            )
            raise ConnectException("Exiting WorkerSinkTask due to unrecoverable exception.") from e
        self.put_nonempty = bool(batch)
        if batch:  # empty puts (idle polls) would dilute the batch averages
            sm = self._sink_metrics
            sm.put_time.record(self.clock.monotonic_ms() - started)
            sm.send.record(len(batch))
            self.metrics.task.record_batch(len(batch))
        self._current_offsets.update(self._batch_offsets)
        self._batch = []
        self._batch_msgs = []
        self._batch_offsets = {}
        self._raw_index = None
        self.consumer.resume_all(PauseReason.REDELIVERY)

    def raw_for(self, record: SinkRecord) -> RawRecord:
        """The consumed bytes of ``record`` (from the current batch, else re-serialized)."""
        if self._raw_index is None:
            self._raw_index = {
                (m.topic(), m.partition(), m.offset()): i for i, m in enumerate(self._batch_msgs)
            }
        i = self._raw_index.get(
            (record.original_topic, record.original_kafka_partition, record.original_kafka_offset)
        )
        if i is not None:
            return raw_record(self._batch_msgs[i])
        topic = record.topic
        plugins = self.plugins
        headers = [
            (h.key, plugins.header_converter.from_connect_header(topic, h.key, h.schema, h.value))
            for h in record.headers
        ]
        return RawRecord(
            record.original_topic,
            record.original_kafka_partition,
            record.original_kafka_offset,
            record.timestamp,
            record.timestamp_type,
            plugins.key_converter.from_connect_data(topic, record.key_schema, record.key),
            plugins.value_converter.from_connect_data(topic, record.value_schema, record.value),
            headers or None,
        )

    # -- offsets --------------------------------------------------------------------------------

    def rewound(self, offsets: dict[TopicPartition, int]) -> None:
        """The consumer seeked these partitions (``SinkTaskContext.offset``)."""
        self._current_offsets.update(offsets)

    def commit(self, sync: bool, partitions: Collection[TopicPartition] | None = None) -> None:
        """Commit the current offsets of ``partitions`` (default: every assigned one)."""
        if not self.consumer.assigned:
            return
        self._commit_seq += 1
        self._sink_metrics.commit_seq.record(self._commit_seq)
        started = self.clock.monotonic_ms()
        try:
            committed = self._commit(sync, partitions)
        except BaseException:
            self.metrics.task.record_commit_failure(self.clock.monotonic_ms() - started)
            raise
        if committed is None:
            self.metrics.task.record_commit_failure(self.clock.monotonic_ms() - started)
            return
        self.metrics.task.record_commit_success(self.clock.monotonic_ms() - started)
        self._sink_metrics.commit_completion.record(1.0)
        if committed:
            self._active_base.update(committed)
            self._record_active()

    def _commit(
        self, sync: bool, partitions: Collection[TopicPartition] | None
    ) -> dict[TopicPartition, int] | None:
        """The offsets committed ({} when nothing changed); None when ``pre_commit`` failed."""
        self.operator.await_pending(self.flush_timeout_ms / 1000.0)
        assigned = self.consumer.assigned
        scope = assigned if partitions is None else set(partitions) & assigned
        current = {tp: off for tp, off in self._current_offsets.items() if tp in scope}
        try:
            provided = self.task.pre_commit(dict(current))
        except Exception as e:
            self.log.error("Offset commit failed, rewinding to last committed offsets: %s", e)
            for tp, off in self._last_committed.items():
                if tp in scope:
                    self.consumer.seek(tp, off)
                    self._current_offsets[tp] = off
            return None
        commit: dict[TopicPartition, int] = {}
        for tp, off in (provided or {}).items():
            tp = TopicPartition(*tp)
            if tp not in scope:
                self.log.warning(
                    "Ignoring invalid task provided offset %s/%s -- partition not "
                    "assigned, assignment=%s",
                    tp,
                    off,
                    sorted(assigned),
                )
                continue
            cur = current.get(tp)
            if cur is None or int(off) > cur:
                self.log.warning(
                    "Ignoring invalid task provided offset %s/%s -- not yet "
                    "consumed, taskOffset=%s currentOffset=%s",
                    tp,
                    off,
                    off,
                    cur,
                )
                continue
            if self._last_committed.get(tp) != int(off):
                commit[tp] = int(off)
        if not commit:
            return commit
        self.consumer.commit(commit, sync)
        self._last_committed.update(commit)
        return commit

    # -- assignment -----------------------------------------------------------------------------

    def opened(self, partitions: set[TopicPartition]) -> None:
        """Partitions were assigned: ``SinkTask.open``."""
        self._sink_metrics.partition_count = len(self.consumer.assigned)
        if partitions:
            self.task.open(sorted(partitions))

    def close_partitions(self, partitions: set[TopicPartition], failed: bool) -> None:
        """Partitions are revoked (or the task stops): commit them synchronously unless the
        task failed, ``SinkTask.close``, then forget their offsets and queued records."""
        if not partitions:
            return
        try:
            if not failed:
                self.commit(sync=True, partitions=partitions)
        except Exception:
            self.log.exception("Offset commit on partition revocation failed")
        try:
            self.task.close(sorted(partitions))
        finally:
            self.consumer.forget(partitions)
            self._sink_metrics.partition_count = len(self.consumer.assigned)
            for tp in partitions:
                self._consumed.pop(tp, None)
                self._active_base.pop(tp, None)
                self._current_offsets.pop(tp, None)
                self._last_committed.pop(tp, None)
                self._batch_offsets.pop(tp, None)
            if self._batch:
                self._batch = [
                    r
                    for r in self._batch
                    if TopicPartition(r.original_topic, r.original_kafka_partition)
                    not in partitions
                ]


class WorkerErrantRecordReporter(ErrantRecordReporter):
    """KIP-610: a sink task reports a record it could not write; it goes to the configured
    reporters (log, DLQ) with stage TASK_PUT. With ``errors.tolerance=none`` ``report``
    raises, failing the task. Offsets are committed only after the returned futures complete.
    """

    def __init__(self, owner: SinkDelivery) -> None:
        self._owner = owner

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        owner = self._owner
        ctx = ProcessingContext(consumer_record=owner.raw_for(record))
        op = owner.operator
        before = len(op.pending)
        op.execute_failed(ctx, Stage.TASK_PUT, SINK_TASK_CLASS, error)
        futures = op.pending[before:]
        result: Future[None] = _AllReported(futures)
        if not futures:
            result.set_result(None)
            return result
        remaining = [len(futures)]

        def done(f: Future[None]) -> None:
            if result.done():
                return
            if f.exception() is not None:
                result.set_exception(f.exception())
                return
            remaining[0] -= 1
            if remaining[0] == 0:
                result.set_result(None)

        for f in futures:
            f.add_done_callback(done)
        return result


class _AllReported(Future[None]):
    """Done when every reporter's future is (the first failure fails it). Waiting for it waits
    for each of them, so a reporter's own way of waiting applies (the DLQ's
    :class:`~kconnect.runtime.worker.errors.reporters.DeliveryFuture` polls its producer): a task
    that waits inside ``put`` does not wait for the task thread that is running it."""

    def __init__(self, parts: list[Future[None]]) -> None:
        super().__init__()
        self._parts = parts

    def _wait(self, timeout: float | None) -> float | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        for part in self._parts:
            if self.done():
                break
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                part.exception(left)
            except FutureTimeout:
                break
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def result(self, timeout: float | None = None) -> None:
        return super().result(self._wait(timeout))

    def exception(self, timeout: float | None = None) -> BaseException | None:
        return super().exception(self._wait(timeout))
