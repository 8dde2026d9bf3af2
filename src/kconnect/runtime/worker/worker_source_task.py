"""``WorkerSourceTask``: runs a SourceTask -- poll, convert, produce, commit offsets.

**A batch's way through the task thread** (:meth:`WorkerSourceTask._execute`, one step each):

1. *poll* (:meth:`~WorkerSourceTask._poll`): ``SourceTask.poll()``; a RetriableException is
   logged and the task is polled again. An empty poll goes straight to step 5.
2. *convert* (:meth:`~WorkerSourceTask._convert`): the transformation chain (stage
   TRANSFORMATION), then the header, key and value converters, into what the producer sends
   for each record -- an *entry* ``(topic, partition, key, value, timestamp, headers)``, or
   None for a record a transformation dropped or whose failure ``errors.tolerance=all``
   skipped (it still counts as handled for offsets). On the native record path when both
   converters have a native form
   (:func:`~kconnect.runtime.worker.record_batches.source_entries`), else on the pure-Python
   path (:meth:`~WorkerSourceTask._python_entries`: the chain over the batch in one pass, one
   converter call per topic). The result is the :class:`SourceBatch` in flight.
3. *track* (:meth:`~WorkerSourceTask._track`): ``topic.creation.*`` (KIP-158) for topics seen
   for the first time; the batch's offsets are submitted to
   :class:`~kconnect.runtime.worker.submitted_records.SubmittedRecords` and every entry gets
   its delivery callback, per the task's
   :class:`~kconnect.runtime.worker.source_acks.CommitMode` (offsets only, ``commit_record``
   or the ``commit_records`` extension: the three modes are described in
   :mod:`~kconnect.runtime.worker.source_acks`).
4. *send* (:meth:`~WorkerSourceTask._send`): ``producer.produce`` for every entry from
   ``SourceBatch.sent`` on. A full producer queue (BufferError) or a retriable refusal keeps
   the rest of the batch: the loop serves delivery reports for 100 ms and resumes from there.
   A record refused for good is stage KAFKA_PRODUCE (skipped under ``errors.tolerance=all``,
   else the task fails).
5. *batch done* (:meth:`~WorkerSourceTask._batch_done`): serve the delivery reports that
   arrived (``producer.poll``; 10 ms after an empty poll).

Delivery reports are served on the task thread, by ``producer.poll``/``flush``; a failed
delivery is stage KAFKA_PRODUCE too (tolerated, or the task fails at the next loop turn).
An offset is committable only when every earlier record of its source partition was
acknowledged. Every ``offset.flush.interval.ms``, and on pause and stop,
:meth:`~WorkerSourceTask.commit_offsets` writes the committable offsets through the
:class:`~kconnect.runtime.storage.offset_writer.OffsetStorageWriter` (waiting at most
``offset.flush.timeout.ms``), then calls ``SourceTask.commit()``.

**Threads.** Everything above runs on the task thread, as do ``SourceTask.commit``,
``commit_record`` and ``commit_records``. ``stop()`` (another thread) only calls
``SourceTask.stop()``, which must only signal, and not while ``SourceTask.start()`` runs:
a stop requested then is made on the task thread once ``start()`` returned, as Kafka makes
it (a task may release in ``stop()`` what its ``start()`` still uses).

**Hooks.** What :class:`~kconnect.runtime.worker.exactly_once_source_task.
ExactlyOnceWorkerSourceTask` changes (called on the task thread unless said otherwise):

* ``_prepare_to_initialize()``, ``_new_context()`` -- before and for ``SourceTask.initialize``;
* ``_execute()`` -- the loop (exactly-once: then waits for the commit it left in flight);
* ``_maybe_commit_on_interval()``, ``commit_offsets()`` -- the offset flush every
  ``offset.flush.interval.ms``, on pause and stop;
* ``_check_producer()`` -- every loop turn: raise a delivery failure that was not tolerated;
* ``_track(batch)``, ``_send(batch)``, ``_batch_done(dispatched)`` -- steps 3 to 5;
* ``_send_refused`` -- a record the producer refused for good;
* ``_delivery_failed``, ``_commit_record``, ``_commit_records`` -- what a record's delivery
  report does; called by the delivery callbacks, on the thread that serves the reports
  (:mod:`~kconnect.runtime.worker.source_acks`);
* ``_close()`` -- after the loop, also after a failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import Any

from kconnect._hot_path import release_thread_memory
from kconnect.api.errors import ConnectException, RetriableException
from kconnect.api.plugin_metrics import DomainMetrics, PluginMetrics
from kconnect.api.records import RecordMetadata, SourceRecord
from kconnect.api.task import SourceTask, SourceTaskContext
from kconnect.kafka.clients.errors import KafkaClientError
from kconnect.kafka.clients.producer import DeliveryCallback, TaskProducer, delivery_error
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SourceConnectorConfig, ToleranceType
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.record_batches import convert_headers, native_forms, source_entries
from kconnect.runtime.worker.record_conversion import (
    SKIP,
    by_topic,
    convert_column,
    transform_batch,
)
from kconnect.runtime.worker.source_acks import (
    CommitMode,
    PartitionAcks,
    PartitionKey,
    WriteCounter,
    partition_key,
    track_batch,
)
from kconnect.runtime.worker.submitted_records import SubmittedRecords
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.worker_task import (
    CommitSettings,
    TaskPlugins,
    TaskServices,
    WorkerTask,
)

__all__ = ["SourceBatch", "WorkerSourceTask", "WorkerSourceTaskContext"]

SEND_FAILED_BACKOFF_MS = 100
IDLE_POLL_S = 0.01
#: How often a task whose polls wait and that has nothing in flight serves its producer's events.
IDLE_SERVE_S = 5.0
#: How long one producer poll waits while a stopping task waits for its acknowledgements.
AWAIT_POLL_S = 0.05
# Kafka reports producer failures with WorkerSourceTask as the executing class.
WORKER_SOURCE_TASK_CLASS = "org.apache.kafka.connect.runtime.WorkerSourceTask"


class WorkerSourceTaskContext(SourceTaskContext):
    def __init__(
        self,
        props: Mapping[str, str],
        reader: OffsetStorageReaderImpl,
        metrics: DomainMetrics | None = None,
        plugin_metrics: PluginMetrics | None = None,
    ) -> None:
        self._props = dict(props)
        self._reader = reader
        self._metrics = metrics
        self._plugin_metrics = plugin_metrics

    def configs(self) -> Mapping[str, str]:
        return self._props

    def offset_storage_reader(self) -> OffsetStorageReaderImpl:
        return self._reader

    def domain_metrics(self) -> DomainMetrics | None:
        return self._metrics

    def plugin_metrics(self) -> PluginMetrics | None:
        return self._plugin_metrics


@dataclass(eq=False, slots=True)
class SourceBatch:
    """A polled batch on its way to the producer (task thread only).

    ``entries[i]`` is what the producer sends for ``records[i]`` -- ``(topic, partition, key,
    value, timestamp, headers)`` -- or None for a record that was dropped or whose failure was
    tolerated. Step 3 (track) fills in ``callbacks[i]``, the delivery callback of entry ``i``
    (None: no callback), ``acks``, the acknowledgements of each source partition (by
    :func:`~kconnect.runtime.worker.source_acks.partition_key`; empty when the records have no
    callbacks), and ``counter``, which records the batch as written. ``sent`` is the index of
    the first record not handed to the producer yet.
    """

    records: list[SourceRecord]
    entries: list[Any]
    callbacks: list[DeliveryCallback | None] = field(default_factory=list)
    acks: dict[PartitionKey, PartitionAcks] = field(default_factory=dict)
    counter: WriteCounter | None = None
    sent: int = 0


class WorkerSourceTask(WorkerTask):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        task_props: Mapping[str, str],
        config: SourceConnectorConfig,
        initial_state: TargetState,
        services: TaskServices,
        plugins: TaskPlugins,
        operator: RetryWithToleranceOperator,
        producer: TaskProducer,
        *,
        offset_reader: OffsetStorageReaderImpl,
        offset_writer: OffsetStorageWriter,
        topic_creation: TopicCreation | None,
        commit: CommitSettings,
    ) -> None:
        super().__init__(task_id, initial_state, services, plugins, operator)
        self._source_metrics = self.metrics.source_metrics()
        self.task = task
        self.task_props = dict(task_props)
        self.config = config
        self.producer = producer
        self.offset_reader = offset_reader
        self.offset_writer = offset_writer
        self.topic_creation = topic_creation
        self.flush_interval_ms = commit.interval_ms
        self.flush_timeout_ms = commit.timeout_ms
        self.submitted = SubmittedRecords()
        self._poll_waited = False  # the last empty poll waited IDLE_POLL_S or more itself
        self._next_idle_serve = 0.0  # when an idle task serves its producer next (monotonic s)
        self._busy = False  # a batch was sent since the task last went idle
        self._task_started = False
        self._task_stopped = False
        # SourceTask.stop() is called once: from the stopping thread to interrupt a poll, or
        # by the task thread once start() returned when the stop came during start() (Kafka
        # never runs stop() beside start(): a task may free in stop() what start() uses).
        self._stop_lock = threading.Lock()
        self._in_start = False
        # The batch being sent (steps 3-4); kept across loop turns while the producer's
        # queue is full.
        self._batch: SourceBatch | None = None
        self._producer_error: BaseException | None = None
        self._known_topics: set[str] = set()
        self._commit_mode = CommitMode.of(task)
        # Whether records carry delivery callbacks (step 3); an exactly-once task whose
        # transaction's commit is the only acknowledgement it needs sends without them.
        self._delivery_callbacks = True
        self._next_commit = 0.0
        # The converters' native forms (None: not looked up yet; False: none)
        self._forms: Any = None

    # -- lifecycle ------------------------------------------------------------------------------

    def _initialize_and_start(self) -> None:
        self._prepare_to_initialize()
        if self.is_stopping():
            return
        self.task.initialize(self._new_context())
        with self._stop_lock:
            self._task_started = self._in_start = True
        try:
            self.task.start(self.task_props)
        finally:
            with self._stop_lock:
                self._in_start = False
        self.log.info("Source task finished initialization and start")
        self._next_commit = self.clock.monotonic_ms() + self.flush_interval_ms

    def _prepare_to_initialize(self) -> None:
        """Before the task is initialized (task thread); exactly-once tasks set up their
        transactional producer here."""

    def _new_context(self) -> WorkerSourceTaskContext:
        return WorkerSourceTaskContext(
            self.task_props,
            self.offset_reader,
            self.metrics.domain_metrics(),
            self.metrics.plugin_metrics(),
        )

    def _on_stop_requested(self) -> None:
        # SourceTask.stop is the documented way to interrupt a blocking poll; it only signals.
        # During start() it waits: the task thread calls it once start() returned (_close).
        self._stop_task(unless_starting=True)

    def _stop_task(self, *, unless_starting: bool = False) -> None:
        with self._stop_lock:
            if not self._task_started or self._task_stopped:
                return
            if unless_starting and self._in_start:
                return
            self._task_stopped = True
        try:
            self.task.stop()
        except Exception:
            self.log.exception("Exception thrown while calling task.stop()")

    def _close(self) -> None:
        failed = self._failed or self._producer_error is not None
        try:
            if self._task_started:
                self._stop_task()
                if not failed:
                    self._await_delivery(self.flush_timeout_ms / 1000.0)
                else:
                    self.producer.poll(0)
                self.commit_offsets()
        finally:
            self.offset_reader.close()
            self.producer.close(0 if failed else self.flush_timeout_ms / 1000.0)
            self._close_plugins()

    def _await_delivery(self, timeout_s: float) -> None:
        """Serve delivery reports until every record this task handed to the producer is
        acknowledged, up to ``timeout_s``. Waits on the task's own acknowledgements, not on
        the producer's queue, which a shared producer fills with other tasks' records too; the
        source partitions of a batch cut short by the stop (records never handed over) are
        not waited for."""
        batch = self._batch
        unsent = (
            len({partition_key(r.source_partition) for r in batch.records[batch.sent :]})
            if batch is not None
            else 0
        )
        deadline = time.monotonic() + timeout_s
        while self.submitted.unacked > unsent:
            left = deadline - time.monotonic()
            if left <= 0:
                self.log.warning(
                    "Records of %d source partition batches were not acknowledged within "
                    "offset.flush.timeout.ms; their offsets are not committed",
                    self.submitted.unacked - unsent,
                )
                return
            self.producer.poll(min(left, AWAIT_POLL_S))

    # -- the loop -------------------------------------------------------------------------------

    def _execute(self) -> None:
        while not self.is_stopping():
            self._check_producer()
            if self.should_pause():
                if not self._pause():
                    break
                continue
            self._maybe_commit_on_interval()
            batch = self._batch
            if batch is None:
                started = time.monotonic()
                records = self._poll()  # 1
                if not records:
                    self._poll_waited = time.monotonic() - started >= IDLE_POLL_S
                    self._batch_done(dispatched=False)  # 5
                    continue
                batch = self._batch = self._convert(list(records))  # 2
                self._track(batch)  # 3
            if not self._send(batch):  # 4
                # the producer's queue is full: serve delivery reports, then send the rest
                self.producer.poll(SEND_FAILED_BACKOFF_MS / 1000.0)
                continue
            self._batch = None
            self._batch_done(dispatched=True)  # 5

    def _pause(self) -> bool:
        """Commit, report PAUSED and wait for the resume; False when stopping instead."""
        self.commit_offsets()
        self._report_pause()
        if not self.await_unpause():
            return False
        self._report_resume()
        return True

    def _maybe_commit_on_interval(self) -> None:
        """Commit offsets every ``offset.flush.interval.ms``."""
        if self.clock.monotonic_ms() >= self._next_commit:
            self.commit_offsets()
            self._next_commit = self.clock.monotonic_ms() + self.flush_interval_ms

    def _check_producer(self) -> None:
        """Fail the task when a delivery failed and was not tolerated."""
        if self._producer_error is not None:
            raise ConnectException(
                "Unrecoverable exception from producer send callback"
            ) from self._producer_error

    # -- 1. poll --------------------------------------------------------------------------------

    def _poll(self) -> Sequence[SourceRecord] | None:
        """``SourceTask.poll()``, recording the poll's metrics for a batch."""
        started = self.clock.monotonic_ms()
        try:
            records = self.task.poll()
        except RetriableException as e:
            self.log.warning(
                "Retriable exception thrown while polling for records; will retry: %s", e
            )
            return None
        if records is not None:
            # Once per batch: poll count/time, batch size, active count.
            n = len(records)
            self._source_metrics.record_poll(n, self.clock.monotonic_ms() - started)
            self.metrics.task.record_batch(n)
            if n:
                self.metrics.task.record_activity()
        return records

    # -- 2. convert -----------------------------------------------------------------------------

    def _convert(self, records: list[SourceRecord]) -> SourceBatch:
        """Transform and convert a polled batch into the producer's entries. Touches neither
        the producer nor the offsets (an exactly-once task runs it while the previous
        transaction commits)."""
        contexts: dict[int, ProcessingContext] = {}

        def ctx(i: int) -> ProcessingContext:
            c = contexts.get(i)
            if c is None:
                c = contexts[i] = ProcessingContext(source_record=records[i])
            return c

        entries = self._native_entries(records, ctx)
        if entries is None:
            entries = self._python_entries(records, ctx)
        return SourceBatch(records, entries)

    def _native_entries(
        self, records: list[SourceRecord], ctx: Callable[[int], ProcessingContext]
    ) -> list[Any] | None:
        """The batch on the native record path (:mod:`record_batches`): transformed and
        encoded natively, what the native forms hand back by the plugins' Python methods.
        None when it does not apply (native path off, a converter without a native form)."""
        if self._forms is None:
            self._forms = native_forms(self.plugins) or False
        if self._forms is False:
            return None
        return source_entries(
            records,
            self._forms,
            self.plugins,
            self.operator,
            ctx,
            self.metrics.task.record_python_fallbacks,
        )

    def _python_entries(
        self, records: list[SourceRecord], ctx: Callable[[int], ProcessingContext]
    ) -> list[Any]:
        """The batch on the pure-Python path: the chain over the batch, then headers, keys and
        values with one converter call per topic. Per record ``(topic, partition, key,
        value, timestamp, headers)``, or None for a record dropped or tolerated."""
        n = len(records)
        chain = self.plugins.chain
        transformed = (
            transform_batch(chain, self.operator, ctx, records) if chain is not None else records
        )
        live = [i for i in range(n) if transformed[i] is not None]
        topics = [r.topic if r is not None else "" for r in transformed]
        groups = by_topic(topics, live)
        headers: list[Any] = [None] * n
        for i in live:
            r = transformed[i]
            # ``_headers`` rather than ``headers``: the property would allocate an empty
            # Headers for every record that has none (most records).
            if r._headers:
                hc = self.plugins.header_converter
                res = self.operator.execute(
                    ctx(i), partial(convert_headers, hc, r), Stage.HEADER_CONVERTER, hc
                )
                headers[i] = SKIP if ctx(i).failed else res
        kc, vc = self.plugins.key_converter, self.plugins.value_converter
        # (schema, value) columns; dropped records hold None and are in no group.
        keys = convert_column(
            self.operator,
            ctx,
            groups,
            [(r.key_schema, r.key) if r is not None else None for r in transformed],
            kc.from_connect_batch,
            lambda t, sv: kc.from_connect_data(t, sv[0], sv[1]),
            Stage.KEY_CONVERTER,
            kc,
            [None] * n,
        )
        values = convert_column(
            self.operator,
            ctx,
            groups,
            [(r.value_schema, r.value) if r is not None else None for r in transformed],
            vc.from_connect_batch,
            lambda t, sv: vc.from_connect_data(t, sv[0], sv[1]),
            Stage.VALUE_CONVERTER,
            vc,
            [None] * n,
        )
        skip = SKIP
        return [
            None
            if t is None or keys[i] is skip or values[i] is skip or headers[i] is skip
            else (t.topic, t.kafka_partition, keys[i], values[i], t.timestamp, headers[i])
            for i, t in enumerate(transformed)
        ]

    # -- 3. track -------------------------------------------------------------------------------

    def _track(self, batch: SourceBatch) -> None:
        """Create the batch's new topics, submit its offsets and give each entry its delivery
        callback (:func:`~kconnect.runtime.worker.source_acks.track_batch`)."""
        self._create_topics(batch.entries)
        n = len(batch.records)
        counter = batch.counter = WriteCounter(self._source_metrics, n)
        if self._delivery_callbacks:
            batch.callbacks, batch.acks = track_batch(
                self, self._commit_mode, batch.records, batch.entries, self.submitted, counter
            )
            return
        # No callbacks: the records are counted as written when the owner's commit says so.
        batch.callbacks = [None] * n
        dropped = batch.entries.count(None)
        if dropped:
            counter.skip(dropped)

    def _create_topics(self, entries: list[Any]) -> None:
        """KIP-158 topic creation and KIP-558 topic tracking for topics seen the first time,
        in the order the batch names them."""
        known = self._known_topics
        # the batch's topics, first-seen order, without a Python loop over its records
        for topic in dict.fromkeys(map(itemgetter(0), filter(None, entries))):
            if topic in known:
                continue
            if self.topic_creation is not None:
                self.topic_creation.maybe_create(topic)
            known.add(topic)
            if self.topic_tracker is not None:
                self.topic_tracker(self.id.connector, topic)

    # -- 4. send --------------------------------------------------------------------------------

    def _send(self, batch: SourceBatch) -> bool:
        """Produce the batch from where it stopped; False to back off and resume later."""
        return self._produce(batch, len(batch.entries))

    def _produce(self, batch: SourceBatch, end: int) -> bool:
        """Hand the entries from ``batch.sent`` up to ``end`` to the producer; False (with
        ``batch.sent`` at the first record not sent) when its queue is full or it refused a
        record for a retriable reason."""
        entries, callbacks = batch.entries, batch.callbacks
        produce = self.producer.produce
        i = batch.sent
        while i < end:
            entry = entries[i]
            if entry is not None:
                topic, partition, key, value, ts, headers = entry
                try:
                    produce(topic, value, key, partition, ts, headers, callbacks[i])
                except BufferError:
                    batch.sent = i
                    return False
                except KafkaClientError as e:
                    if e.retriable:
                        batch.sent = i
                        return False
                    self._send_refused(batch, i, e)
            i += 1
        batch.sent = i
        return True

    def _send_refused(self, batch: SourceBatch, i: int, error: KafkaClientError) -> None:
        """The producer refused record ``i`` for good: stage KAFKA_PRODUCE, skipped under
        ``errors.tolerance=all`` (raises otherwise)."""
        record = batch.records[i]
        ctx = ProcessingContext(source_record=record)
        self.operator.execute_failed(ctx, Stage.KAFKA_PRODUCE, WORKER_SOURCE_TASK_CLASS, error)
        acks = batch.acks[partition_key(record.source_partition)]
        acks.refused(record, batch.callbacks[i])

    # -- 5. batch done --------------------------------------------------------------------------

    def _batch_done(self, dispatched: bool) -> None:
        """After a batch was sent (``dispatched``) or a poll returned nothing: serve the
        delivery reports that arrived, waiting 10 ms for them after an empty poll that
        returned at once (the wait keeps a task whose poll never blocks from spinning; after a
        poll that waited itself, as FileStreamSource's second at the end of its file, a second
        wake-up per idle poll would only cost CPU: a thousand idle tasks woke 2,000 times a
        second). After a poll that waited, with none of this task's records in flight, there
        is nothing of this task's to serve: the producer is served only every
        :data:`IDLE_SERVE_S` (its other events: errors, a broker's throttling), not at each
        idle wake-up (other tasks sharing it serve their own reports). The first such poll
        after batches releases the thread's native allocator memory
        (:func:`~kconnect._hot_path.release_thread_memory`)."""
        if dispatched:
            self.producer.poll(0)
        elif not self._poll_waited:
            self.producer.poll(IDLE_POLL_S)
        else:
            now = time.monotonic()
            if now >= self._next_idle_serve or self.submitted.has_unacked():
                self._next_idle_serve = now + IDLE_SERVE_S
                self.producer.poll(0)
            if self._busy:  # idle after batches: the allocator's pages of this thread go back
                self._busy = False
                release_thread_memory()
        if dispatched:
            self._busy = True

    # -- delivery outcome (see source_acks for the thread) -------------------------------------

    def _delivery_failed(self, err: Any, msg: Any, record: SourceRecord | None) -> bool:
        """A delivery failed; True if tolerated (the record counts as handled)."""
        error = delivery_error(err, msg.topic() if msg is not None else "?")
        if self.operator.tolerance is ToleranceType.ALL:
            self.log.error(
                "Failed to send record to topic '%s'; skipping it (errors.tolerance=all): %s",
                msg.topic(),
                error,
            )
            ctx = ProcessingContext(source_record=record)
            try:
                self.operator.execute_failed(
                    ctx, Stage.KAFKA_PRODUCE, WORKER_SOURCE_TASK_CLASS, error
                )
            except ConnectException:
                pass
            return True
        self.log.error("Failed to send record to topic '%s': %s", msg.topic(), error)
        if self._producer_error is None:
            self._producer_error = error
        return False

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        try:
            self.task.commit_record(record, metadata)
        except Exception:
            self.log.exception("Exception thrown while calling task.commit_record()")

    def _commit_records(self, records: list[SourceRecord], offsets: list[int]) -> None:
        try:
            self.task.commit_records(records, offsets)
        except Exception:
            self.log.exception("Exception thrown while calling task.commit_records()")

    # -- offsets -------------------------------------------------------------------------------

    def commit_offsets(self) -> bool:
        """Write committable offsets to the store, then call ``SourceTask.commit()``."""
        started = self.clock.monotonic_ms()
        ok = self._commit_offsets()
        ended = self.clock.monotonic_ms()
        if ok:
            self.metrics.task.record_commit_success(ended - started, ended)
        else:
            self.metrics.task.record_commit_failure(ended - started, ended)
        return ok

    def _commit_offsets(self) -> bool:
        committable = self.submitted.committable_offsets()
        if committable.offsets:
            self.offset_writer.offsets(committable.offsets)
        if self.offset_writer.begin_flush():
            try:
                self.offset_writer.do_flush().result(timeout=self.flush_timeout_ms / 1000.0)
            except Exception as e:
                self.offset_writer.cancel_flush()
                self.log.warning(
                    "Failed to flush offsets to storage (will retry at the next commit): %s", e
                )
                return False
            self.offset_writer.complete_flush()
        if self._task_started:
            try:
                self.task.commit()
            except Exception:
                self.log.exception("Exception thrown while calling task.commit()")
        return True
