"""``WorkerSinkTask``: runs a SinkTask — consume, convert, transform, put, commit offsets.

Each iteration (task thread):

1. commit offsets when ``offset.flush.interval.ms`` passed or the task asked for it:
   wait for outstanding DLQ/errant-record reports, ``SinkTask.pre_commit(current)`` (default
   ``flush``), keep only offsets of assigned partitions that are not ahead of what was
   consumed and changed since the last commit, ``commit`` (async; sync on revocation/stop);
2. apply target state (PAUSED pauses every assigned partition and keeps polling so the group
   membership stays alive) and offset resets asked through ``SinkTaskContext.offset``;
3. ``consume`` a batch (without waiting right after a put of records, so that a task which
   completes a write at its next ``put`` gets that call at once); convert keys and values per topic with one batch call each
   (stages KEY_CONVERTER, VALUE_CONVERTER), headers (HEADER_CONVERTER), build SinkRecords,
   run the transformation chain (TRANSFORMATION); a record that fails and is tolerated is
   left out, but its offset counts as consumed;
4. ``SinkTask.put(batch)``. RetriableException pauses all partitions and redelivers the SAME
   batch after ``context.timeout`` (or until the next commit, as Kafka); any other exception
   fails the task with "Exiting WorkerSinkTask due to unrecoverable exception.". Only after a
   successful put do the batch's offsets become current (committable).

Rebalance callbacks run inside ``consume`` on this thread: ``open`` on assignment; on
revocation a synchronous commit, then ``close``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from functools import partial
from typing import Any

from kconnect.api.converter import Converter, HeaderConverter
from kconnect.api.errors import ConnectException, IllegalWorkerStateException, RetriableException
from kconnect.api.headers import Header, Headers
from kconnect.api.records import SinkRecord, TimestampType, TopicPartition
from kconnect.api.task import ErrantRecordReporter, SinkTask, SinkTaskContext
from kconnect.kafka.consumer import Consumer
from kconnect.kafka.errors import consume_error_is_transient, from_kafka_error
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.metrics.task_metrics import SinkTaskMetrics
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RawRecord,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.record_conversion import SKIP, by_topic, convert_column
from kconnect.runtime.worker.worker_task import WorkerTask

__all__ = ["WorkerErrantRecordReporter", "WorkerSinkTask", "WorkerSinkTaskContext"]

MAX_POLL_S = 1.0
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


class WorkerSinkTaskContext(SinkTaskContext):
    """The SinkTaskContext handed to the task; call from the task thread only."""

    def __init__(self, owner: WorkerSinkTask) -> None:
        self._owner = owner

    def configs(self) -> Mapping[str, str]:
        return self._owner.task_props

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self._owner._rewinds.update({TopicPartition(*tp): int(o) for tp, o in offsets.items()})

    def timeout(self, timeout_ms: int) -> None:
        self._owner._context_timeout_ms = int(timeout_ms)

    def assignment(self) -> set[TopicPartition]:
        return set(self._owner._assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        owner = self._owner
        parts = [TopicPartition(*tp) for tp in partitions]
        for tp in parts:
            if tp not in owner._assigned:
                raise IllegalWorkerStateException(
                    "SinkTasks can not pause partitions that are not assigned to them"
                )
        owner._context_paused.update(parts)
        if not owner._all_paused:
            owner.consumer.pause(parts)

    def resume(self, *partitions: TopicPartition) -> None:
        owner = self._owner
        parts = [TopicPartition(*tp) for tp in partitions]
        for tp in parts:
            if tp not in owner._assigned:
                raise IllegalWorkerStateException(
                    "SinkTasks can not resume partitions that are not assigned to them"
                )
        owner._context_paused.difference_update(parts)
        if not owner._all_paused:
            owner.consumer.resume(parts)

    def request_commit(self) -> None:
        self._owner._commit_requested = True

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._owner.errant_reporter


class WorkerErrantRecordReporter(ErrantRecordReporter):
    """KIP-610: a sink task reports a record it could not write; it goes to the configured
    reporters (log, DLQ) with stage TASK_PUT. With ``errors.tolerance=none`` ``report``
    raises, failing the task. Offsets are committed only after the returned futures complete.
    """

    def __init__(self, owner: WorkerSinkTask) -> None:
        self._owner = owner

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        owner = self._owner
        ctx = ProcessingContext(consumer_record=owner._raw_for(record))
        op = owner.operator
        before = len(op.pending)
        op.execute_failed(ctx, Stage.TASK_PUT, SINK_TASK_CLASS, error)
        futures = op.pending[before:]
        result: Future[None] = Future()
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


class WorkerSinkTask(WorkerTask):
    _is_sink = True

    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        task_props: Mapping[str, str],
        connector_props: Mapping[str, str],
        status_listener: StatusListener,
        initial_state: TargetState,
        *,
        key_converter: Converter,
        value_converter: Converter,
        header_converter: HeaderConverter,
        transformation_chain: Any | None,
        consumer: Consumer,
        retry_operator: RetryWithToleranceOperator,
        errant_reporter_enabled: bool,
        offset_flush_interval_ms: int,
        offset_flush_timeout_ms: int,
        max_poll_records: int = 500,
        topic_tracker: Callable[[str, str], None] | None = None,
        clock: Clock | None = None,
        on_close: Callable[[], None] | None = None,
        converter_class_names: tuple[str, str, str] | None = None,
        metrics: TaskMetricsBundle | None = None,
    ) -> None:
        super().__init__(task_id, status_listener, initial_state, clock, metrics)
        self._sink_metrics: SinkTaskMetrics = self.metrics.sink  # type: ignore[assignment]
        # For sink-record-active-count: next offset read, and the baseline per partition
        # (last committed, else the first offset read since assignment).
        self._consumed: dict[TopicPartition, int] = {}
        self._active_base: dict[TopicPartition, int] = {}
        self._commit_seq = 0
        self.task = task
        self.task_props = dict(task_props)
        self.connector_props = dict(connector_props)
        self.key_converter = key_converter
        self.value_converter = value_converter
        self.header_converter = header_converter
        self.chain = transformation_chain
        self.consumer = consumer
        self.operator = retry_operator
        self.errant_reporter = WorkerErrantRecordReporter(self) if errant_reporter_enabled else None
        self.flush_interval_ms = offset_flush_interval_ms
        self.flush_timeout_ms = offset_flush_timeout_ms
        self.max_poll_records = max_poll_records
        self.topic_tracker = topic_tracker
        self._on_close_cb = on_close
        # Names reported in DLQ headers/logs (Java names for Kafka's built-in converters).
        self.converter_names: tuple[Any, Any, Any] = converter_class_names or (
            key_converter,
            value_converter,
            header_converter,
        )
        self._task_started = False
        self._assigned: set[TopicPartition] = set()
        self._current_offsets: dict[TopicPartition, int] = {}
        self._last_committed: dict[TopicPartition, int] = {}
        self._batch: list[SinkRecord] = []
        self._batch_msgs: list[Any] = []
        self._batch_offsets: dict[TopicPartition, int] = {}
        self._raw_index: dict[tuple[str, int, int], int] | None = None
        self._rewinds: dict[TopicPartition, int] = {}
        self._context_paused: set[TopicPartition] = set()
        self._context_timeout_ms = -1
        self._commit_requested = False
        self._paused_for_redelivery = False
        self._paused_for_target = False
        self._redeliver_at = 0.0
        self._next_commit = 0.0
        self._known_topics: set[str] = set()
        self._closing = False
        self._repause = False
        self.records_put = 0
        self._put_nonempty = False

    @property
    def _all_paused(self) -> bool:
        return self._paused_for_redelivery or self._paused_for_target

    # -- lifecycle ------------------------------------------------------------------------------

    def _initialize_and_start(self) -> None:
        self.task.initialize(WorkerSinkTaskContext(self))
        self._task_started = True
        self.task.start(self.task_props)
        topics = [
            t.strip()
            for t in self.task_props.get("topics", self.connector_props.get("topics", "")).split(
                ","
            )
            if t.strip()
        ]
        regex = (
            self.task_props.get("topics.regex") or self.connector_props.get("topics.regex") or ""
        ).strip()
        if not topics and not regex:
            raise ConnectException(
                "Sink tasks require a list of topics or a topics.regex; set "
                "'topics' or 'topics.regex' in the connector config."
            )
        self.consumer.subscribe(topics or None, regex or None, self._on_assigned, self._on_revoked)
        self.log.info("Sink task finished initialization and start")
        self._next_commit = self.clock.monotonic_ms() + self.flush_interval_ms

    def _execute(self) -> None:
        while not self.is_stopping():
            self._iteration()

    def _close(self) -> None:
        self._closing = True
        try:
            if self._task_started:
                try:
                    self._close_partitions(set(self._assigned))
                finally:
                    try:
                        self.task.stop()
                    except Exception:
                        self.log.exception("Exception thrown while calling task.stop()")
        finally:
            try:
                self.consumer.close()
            except Exception:
                self.log.exception("Failed to close consumer")
            self._close_plugins(
                (self.chain, self.key_converter, self.value_converter, self.header_converter),
                self.operator,
                self._on_close_cb,
            )

    # -- the loop -------------------------------------------------------------------------------

    def _iteration(self) -> None:
        now = self.clock.monotonic_ms()
        if self._commit_requested or now >= self._next_commit:
            self._commit_requested = False
            self._commit_offsets(sync=False)
            self._next_commit = self.clock.monotonic_ms() + self.flush_interval_ms
        self._apply_target_state()
        if self._repause:
            self._repause = False
            if self._all_paused:
                self.consumer.pause(self._assigned)
        self._apply_rewinds()
        if self._paused_for_redelivery:
            if self.clock.monotonic_ms() >= self._redeliver_at:
                self._deliver()
                return
            wait_ms = min(self._redeliver_at - self.clock.monotonic_ms(), MAX_POLL_S * 1000)
            self._consume(max(0.0, wait_ms) / 1000.0)  # keeps group membership; paused
            return
        if self._put_nonempty:
            # Right after a put of records, look only at what is already fetched: when nothing
            # is, put([]) comes at once, so a task that finishes its last write in the next put
            # (see SinkTask.put) does not wait for a poll timeout.
            timeout_ms = 0.0
        else:
            timeout_ms = max(0.0, self._next_commit - self.clock.monotonic_ms())
            timeout_ms = min(timeout_ms, MAX_POLL_S * 1000)
        msgs = self._consume(timeout_ms / 1000.0)
        if self._paused_for_target:
            return
        if msgs:
            self._convert_messages(msgs)
        self._deliver()

    def _consume(self, timeout_s: float) -> list[Any]:
        msgs = self.consumer.consume(self.max_poll_records, timeout_s)
        if not msgs:
            return msgs
        if not (self._paused_for_redelivery or self._paused_for_target or self._context_paused):
            # Usual case: nothing paused, so only error events need to be taken out.
            good = [m for m in msgs if m.error() is None]
            if len(good) == len(msgs):
                return good
        good = []
        leaked: dict[TopicPartition, int] = {}
        for m in msgs:
            err = m.error()
            if err is not None:
                if consume_error_is_transient(err):
                    if err.name() != "_PARTITION_EOF":
                        self.log.debug("Consumer reported %s; it keeps retrying", err.str())
                    continue
                raise from_kafka_error(err, "Error while consuming records")
            tp = TopicPartition(m.topic(), m.partition())
            if (self._all_paused or tp in self._context_paused) and tp in self._assigned:
                # Fetched before the pause took effect: rewind so nothing is skipped.
                if tp not in leaked:
                    leaked[tp] = m.offset()
                continue
            good.append(m)
        for tp, off in leaked.items():
            self._seek(tp, off)
        return good

    def _apply_target_state(self) -> None:
        if self.should_pause():
            if not self._paused_for_target:
                self._paused_for_target = True
                self.consumer.pause(self._assigned)
                self._commit_offsets(sync=False)
                self._report_pause()
        elif self._paused_for_target:
            self._paused_for_target = False
            if not self._paused_for_redelivery:
                self.consumer.resume(self._assigned - self._context_paused)
            self._report_resume()

    def _apply_rewinds(self) -> None:
        if not self._rewinds:
            return
        rewinds, self._rewinds = self._rewinds, {}
        for tp, off in rewinds.items():
            if tp in self._assigned:
                self._seek(tp, off)
                self._current_offsets[tp] = off
            else:
                self.log.warning("Cannot rewind %s: the partition is not assigned to this task", tp)

    def _seek(self, tp: TopicPartition, offset: int) -> None:
        try:
            self.consumer.seek(tp, offset)
        except Exception as e:
            # The partition may not be fetching yet; try again at the next iteration.
            self.log.debug("Seek of %s to %d deferred: %s", tp, offset, e)
            self._rewinds[tp] = offset

    # -- conversion -----------------------------------------------------------------------------

    def _convert_messages(self, msgs: list[Any]) -> None:
        # Per-batch work: columns are pulled out of the messages with list comprehensions,
        # keys and values are converted with one batch call per topic, offsets are taken
        # per partition after the loop; the per-record loop only builds the SinkRecord.
        n = len(msgs)
        self._sink_metrics.read.record(n)
        self.metrics.task.record_activity()
        contexts: dict[int, ProcessingContext] = {}

        def ctx(i: int) -> ProcessingContext:
            c = contexts.get(i)
            if c is None:
                c = contexts[i] = ProcessingContext(consumer_record=raw_record(msgs[i]))
            return c

        topics = [m.topic() for m in msgs]
        groups = by_topic(topics, range(n))
        for t in groups:
            if t not in self._known_topics:
                self._known_topics.add(t)
                if self.topic_tracker is not None:
                    self.topic_tracker(self.id.connector, t)
        kc, vc, hc = self.key_converter, self.value_converter, self.header_converter
        operator = self.operator
        keys = convert_column(
            operator,
            ctx,
            groups,
            [m.key() for m in msgs],
            kc.to_connect_batch,
            kc.to_connect_data,
            Stage.KEY_CONVERTER,
            self.converter_names[0],
            [None] * n,
        )
        values = convert_column(
            operator,
            ctx,
            groups,
            [m.value() for m in msgs],
            vc.to_connect_batch,
            vc.to_connect_data,
            Stage.VALUE_CONVERTER,
            self.converter_names[1],
            [None] * n,
        )
        parts = [m.partition() for m in msgs]
        offs = [m.offset() for m in msgs]
        records: list[SinkRecord] = []
        append = records.append
        chain = self.chain
        ts_types = _TS_TYPE_LIST
        skip = SKIP
        for i, m in enumerate(msgs):
            k = keys[i]
            v = values[i]
            if k is skip or v is skip:
                continue
            raw_headers = m.headers()
            headers = None
            if raw_headers:
                headers = operator.execute(
                    ctx(i),
                    partial(_connect_headers, hc, topics[i], raw_headers),
                    Stage.HEADER_CONVERTER,
                    self.converter_names[2],
                )
                if ctx(i).failed:
                    continue
            ts_type, ts = m.timestamp()
            rec = SinkRecord(
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
            if chain is not None:
                transformed = self._transform(rec, i, ctx)
                if transformed is None:
                    continue
                rec = transformed
            append(rec)
        self._batch.extend(records)
        self._batch_msgs.extend(msgs)
        self._raw_index = None
        # Next offset per partition: the last message of each partition in the batch
        # (offsets of skipped records count as consumed too).
        batch_offsets = self._batch_offsets
        if len(groups) == 1 and parts.count(parts[0]) == n:
            last: dict[tuple[str, int], int] = {(topics[0], parts[0]): offs[-1]}
        else:
            last = {}
            for tpo in zip(topics, parts, offs, strict=True):
                last[tpo[0], tpo[1]] = tpo[2]
        new_offsets = {TopicPartition(t, p): o + 1 for (t, p), o in last.items()}
        batch_offsets.update(new_offsets)
        base = self._active_base
        if any(tp not in base for tp in new_offsets):
            # First records of a partition since assignment (rare): find their first offset.
            for t, p, o in zip(topics, parts, offs, strict=True):
                tp = TopicPartition(t, p)
                if tp not in base:
                    base[tp] = self._last_committed.get(tp, o)
        self._consumed.update(new_offsets)
        self._record_active()

    def _record_active(self) -> None:
        """``sink-record-active-count``: records read but not yet committed."""
        base = self._active_base
        active = sum(max(0, off - base.get(tp, off)) for tp, off in self._consumed.items())
        self._sink_metrics.active.record(active)

    def _transform(
        self, rec: SinkRecord, i: int, ctx: Callable[[int], ProcessingContext]
    ) -> SinkRecord | None:
        try:
            return self.chain.apply(rec)  # type: ignore[union-attr,no-any-return]
        except Exception:
            pass
        out: Any = rec
        for stage in self.chain.stages:  # type: ignore[union-attr]
            c = ctx(i)
            out = self.operator.execute(
                c, partial(stage.apply, out), Stage.TRANSFORMATION, stage.class_name
            )
            if c.failed or out is None:
                return None
        return out  # type: ignore[no-any-return]

    # -- delivery -------------------------------------------------------------------------------

    def _deliver(self) -> None:
        batch = self._batch
        started = self.clock.monotonic_ms()
        try:
            self.task.put(batch)
        except RetriableException as e:
            self.log.error("RetriableException from SinkTask %s: %s", self.id, e)
            if not self._paused_for_redelivery:
                self._paused_for_redelivery = True
                self.consumer.pause(self._assigned)
            backoff = self._next_commit - self.clock.monotonic_ms()
            if self._context_timeout_ms > 0:
                backoff = min(backoff, self._context_timeout_ms)
                self._context_timeout_ms = -1
            self._redeliver_at = self.clock.monotonic_ms() + max(0.0, backoff)
            return
        except Exception as e:
            self.log.error(
                "Task threw an uncaught and unrecoverable exception. Task is being "
                "killed and will not recover until manually restarted. Error: %s",
                e,
            )
            raise ConnectException("Exiting WorkerSinkTask due to unrecoverable exception.") from e
        self.records_put += len(batch)
        self._put_nonempty = bool(batch)
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
        if self._paused_for_redelivery:
            self._paused_for_redelivery = False
            if not self._paused_for_target:
                self.consumer.resume(self._assigned - self._context_paused)

    def _raw_for(self, record: SinkRecord) -> RawRecord:
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
        headers = [
            (h.key, self.header_converter.from_connect_header(topic, h.key, h.schema, h.value))
            for h in record.headers
        ]
        return RawRecord(
            record.original_topic,
            record.original_kafka_partition,
            record.original_kafka_offset,
            record.timestamp,
            record.timestamp_type,
            self.key_converter.from_connect_data(topic, record.key_schema, record.key),
            self.value_converter.from_connect_data(topic, record.value_schema, record.value),
            headers or None,
        )

    # -- offsets and rebalances -----------------------------------------------------------------

    def _commit_offsets(self, sync: bool, partitions: set[TopicPartition] | None = None) -> None:
        if not self._assigned:
            return
        self._commit_seq += 1
        self._sink_metrics.commit_seq.record(self._commit_seq)
        started = self.clock.monotonic_ms()
        try:
            committed = self._do_commit_offsets(sync, partitions)
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

    def _do_commit_offsets(
        self, sync: bool, partitions: set[TopicPartition] | None
    ) -> dict[TopicPartition, int] | None:
        """The offsets committed ({} when nothing changed); None when ``pre_commit`` failed."""
        self.operator.await_pending(self.flush_timeout_ms / 1000.0)
        scope = self._assigned if partitions is None else partitions & self._assigned
        current = {tp: off for tp, off in self._current_offsets.items() if tp in scope}
        try:
            provided = self.task.pre_commit(dict(current))
        except Exception as e:
            self.log.error("Offset commit failed, rewinding to last committed offsets: %s", e)
            for tp, off in self._last_committed.items():
                if tp in scope:
                    self._seek(tp, off)
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
                    sorted(self._assigned),
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
        self.consumer.commit(commit, asynchronous=not sync)
        self._last_committed.update(commit)
        return commit

    def _on_assigned(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int] | None:
        new = set(partitions) - self._assigned
        self._assigned |= new
        if self._all_paused:
            # Pause once the assignment is in place (next iteration); leaked messages rewind.
            self._repause = True
        starts = {tp: self._rewinds.pop(tp) for tp in list(self._rewinds) if tp in new}
        self._sink_metrics.partition_count = len(self._assigned)
        if new:
            self.task.open(sorted(new))
        return starts or None

    def _on_revoked(self, partitions: list[TopicPartition]) -> None:
        gone = set(partitions) & self._assigned
        if not gone:
            return
        self._close_partitions(gone)

    def _close_partitions(self, partitions: set[TopicPartition]) -> None:
        if not partitions:
            return
        try:
            if not self._failed:
                self._commit_offsets(sync=True, partitions=partitions)
        except Exception:
            self.log.exception("Offset commit on partition revocation failed")
        try:
            self.task.close(sorted(partitions))
        finally:
            self._assigned -= partitions
            self._context_paused -= partitions
            self._sink_metrics.partition_count = len(self._assigned)
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


def _connect_headers(
    hc: HeaderConverter, topic: str, raw: list[tuple[str, bytes | None]]
) -> Headers:
    return Headers(_connect_header(hc, topic, k, v) for k, v in raw)


def _connect_header(hc: HeaderConverter, topic: str, key: str, value: bytes | None) -> Header:
    sv = hc.to_connect_header(topic, key, value)
    return Header(key, sv.schema, sv.value)
