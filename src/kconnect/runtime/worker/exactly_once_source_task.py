"""``ExactlyOnceWorkerSourceTask``: a source task whose records and offsets commit together.

Runs on a distributed worker with ``exactly.once.source.support=enabled`` (KIP-618, Java's
``ExactlyOnceWorkerSourceTask``). The task's producer is transactional
(``transactional.id`` = ``<group.id>-<connector>-<task>``); its source offsets go, through a
:class:`~kconnect.runtime.storage.transactional_offset_store.TransactionalOffsetStore`, into the
same transaction as the records they describe, so a crash, a kill -9 or a zombie task never
leaves records whose offsets were not committed (duplicates on restart) or offsets whose
records were not (loss): ``read_committed`` consumers see each record once.

**Lifecycle** (task thread unless said otherwise), on top of
:class:`~kconnect.runtime.worker.worker_source_task.WorkerSourceTask`'s five steps per batch
(poll, convert, track, send, batch done):

1. *preflight* (``_prepare_to_initialize``, :class:`ExactlyOncePreflight`): before the producer
   is initialized, the leader fences out the producers of earlier task generations (zombie
   fencing, a round trip to the leader); ``init_transactions`` then fences any older instance
   of this task and aborts its open transaction; finally the worker checks that the task's
   configs are still the newest generation and the task is still assigned here. A failure
   fails the task. The offset store is then started (reads the offsets topic to its end,
   ``read_committed``), so the task resumes from the last committed transaction.
2. *track* (``_track``): a record for the task's own offsets topic fails the task (it would
   deadlock its own offset reads). Then the task thread **waits for the commit in flight**
   (``_await_commit``) and settles it, before anything of the new batch touches the producer
   or the acknowledgements.
3. *send* (``_send``): a transaction begins with the first record dispatched (no sooner than
   :data:`NEXT_TRANSACTION_DELAY_MS` after the previous commit returned); the offset of
   every record the producer accepted goes into the transaction (dropped records' offsets do
   not, as in Java). Under ``transaction.boundary=connector`` a batch is sent in ranges that
   end at each record the task's :class:`~kconnect.api.task.TransactionContext` named; such a
   commit (or abort) happens on the spot.
4. *batch done* (``_batch_done``): the transaction ends at its ``transaction.boundary`` --
   after every polled batch (``poll``, the default), every ``transaction.boundary.interval.ms``
   (``interval``, default ``offset.flush.interval.ms``) or where the task asked (``connector``).
   The commit **starts** right away (``_start_commit``): the offsets are written into the
   transaction on the task thread, then ``commit_transaction`` (which flushes every record and
   serves the delivery reports) runs on the task's *committer thread* while the task thread
   goes on to poll and convert the next batch. Nothing waits for the next poll, so a
   ``read_committed`` reader sees the batch as soon as a synchronous commit would have shown it.
5. *settling a commit* (``_await_commit``, task thread, at step 2, an empty poll, pause, stop
   and before any other commit): as a synchronous commit would -- a failure aborts the
   transaction and fails the task (before the next batch is dispatched); a success records the
   metrics, then calls ``commit_record``/``commit_records`` for the transaction's records and
   ``SourceTask.commit()``, in that order, on the task thread.
6. *pause and stop* settle the commit in flight and commit the open transaction (unless the
   task failed; a failed task's open transaction is aborted).

**Threads.** While a commit is in flight, the committer thread alone uses the producer, and the
task thread only polls the task and converts records (steps 1-2 up to the wait); neither
touches the other's data. librdkafka's transactional calls never overlap a ``produce``. The
delivery reports served during the commit (committer thread) only acknowledge records
(:mod:`~kconnect.runtime.worker.source_acks`: locked offset tracking and metrics), note a
failure and queue ``commit_record``/``commit_records`` calls for the task thread; everything
they leave is read by the task thread after it waited for the commit (an Event: it
happens-before). A task that overrides neither ``commit_record`` nor ``commit_records`` sends
its records without delivery callbacks at all: the transaction's commit is their
acknowledgement (a record whose delivery fails fails the commit), and they are counted as
written when it succeeds.

Differences from the at-least-once task: a record the producer refuses synchronously fails the
task even with ``errors.tolerance=all`` (it cannot be left out of a committed transaction
silently), a failed delivery is never tolerated, and there is no separate offset flush.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.api.plugin_metrics import DomainMetrics, PluginMetrics
from kconnect.api.records import RecordMetadata, SourceRecord
from kconnect.api.task import SourceTask, TransactionContext
from kconnect.kafka.clients.errors import InvalidProducerEpochError, KafkaClientError
from kconnect.kafka.clients.producer import Producer, delivery_error
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SourceConnectorConfig
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.storage.transactional_offset_store import TransactionalOffsetStore
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.source_acks import CommitMode, WriteCounter
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.worker_source_task import (
    IDLE_POLL_S,
    SourceBatch,
    WorkerSourceTask,
    WorkerSourceTaskContext,
)
from kconnect.runtime.worker.worker_task import CommitSettings, TaskPlugins, TaskServices

__all__ = [
    "ExactlyOncePreflight",
    "ExactlyOnceWorkerSourceTask",
    "WorkerTransactionContext",
    "transaction_timeout_error",
]

#: librdkafka's delivery errors for records an aborted transaction purged.
_PURGED = frozenset({"_PURGE_QUEUE", "_PURGE_INFLIGHT"})

_TOPIC = attrgetter("topic")
_PARTITION = attrgetter("source_partition")
_OFFSET = attrgetter("source_offset")

#: The least time between a commit's end and the next transaction's first record. That record
#: registers the transaction's partitions with the coordinator (AddPartitionsToTxn), which
#: refuses with CONCURRENT_TRANSACTIONS while it still writes the previous transaction's
#: markers; librdkafka then retries only 20 ms later. A task that polled and converted its next
#: batch during the commit sends the moment the commit returns, and paid those 20 ms in 1-9% of
#: its transactions on a local broker; 0.3 ms brought that down to what a synchronous commit
#: (which polls in between) sees.
NEXT_TRANSACTION_DELAY_MS = 0.3

#: How long ``init_transactions`` may take (Java: max.block.ms, unlimited in Connect).
INIT_TRANSACTIONS_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ExactlyOncePreflight:
    """The herder's checks around the start of an exactly-once task (task thread, blocking).

    ``before_producer``: zombie fencing by the leader (forwarded to it from a follower);
    ``after_producer``: the task's configs are still the newest generation and the task is
    still assigned to this worker. Each raises to fail the task."""

    before_producer: Callable[[], None]
    after_producer: Callable[[], None]


class WorkerTransactionContext(TransactionContext):
    """The :class:`~kconnect.api.task.TransactionContext` of ``transaction.boundary=connector``:
    records the task's requests; the task applies them on its thread."""

    def __init__(self) -> None:
        self._commit_batch = False
        self._abort_batch = False
        self._commit_on: set[int] = set()
        self._abort_on: set[int] = set()

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        if record is None:
            self._commit_batch = True
        else:
            self._commit_on.add(id(record))

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        if record is None:
            self._abort_batch = True
        else:
            self._abort_on.add(id(record))

    def has_record_requests(self) -> bool:
        return bool(self._commit_on or self._abort_on)

    def should_commit_on(self, record: SourceRecord) -> bool:
        return _take(self._commit_on, record)

    def should_abort_on(self, record: SourceRecord) -> bool:
        return _take(self._abort_on, record)

    def should_commit_batch(self) -> bool:
        requested, self._commit_batch = self._commit_batch, False
        return requested

    def should_abort_batch(self) -> bool:
        requested, self._abort_batch = self._abort_batch, False
        return requested


def _take(ids: set[int], record: SourceRecord) -> bool:
    key = id(record)
    if key in ids:
        ids.discard(key)
        return True
    return False


class _ExactlyOnceContext(WorkerSourceTaskContext):
    def __init__(
        self,
        props: Mapping[str, str],
        reader: OffsetStorageReaderImpl,
        transactions: WorkerTransactionContext | None,
        metrics: DomainMetrics | None = None,
        plugin_metrics: PluginMetrics | None = None,
    ) -> None:
        super().__init__(props, reader, metrics, plugin_metrics)
        self._transactions = transactions

    def transaction_context(self) -> TransactionContext | None:
        return self._transactions


def transaction_timeout_error(task_id: ConnectorTaskId, cause: BaseException) -> ConnectException:
    """Java's message for a transaction the broker aborted because it ran too long."""
    error = ConnectException(
        f"The task {task_id} was unable to finish writing records to Kafka before its producer "
        "transaction expired. It may be necessary to reconfigure this connector in order for it "
        "to run healthily with exactly-once support. Options for this include: tune the "
        "connector's producer configuration for higher throughput, increase the transaction "
        "timeout for the connector's producers, decrease the offset commit interval (if using "
        "interval-based transaction boundaries), or use the 'poll' transaction boundary (if the "
        "connector is not already configured to use it)."
    )
    error.__cause__ = cause
    return error


@dataclass(eq=False)
class _Commit:
    """A transaction whose commit started (task thread) and may still be running on the
    committer thread. ``done`` is set once ``commit_transaction`` returned or raised
    (``error``) at ``finished_ms``; only then does the task thread read the rest."""

    started_ms: float
    records: int
    flushed: Future[None] | None
    written: list[tuple[WriteCounter, int]]
    error: BaseException | None = None
    finished_ms: float = 0.0
    done: threading.Event = field(default_factory=threading.Event)


class _Committer:
    """The task's committer thread: runs one job at a time, handed over by the task thread.

    A daemon thread started on first use (so a commit stuck until its timeout never holds up
    the process's exit), with the starting thread's context variables (the log context).
    :meth:`close` ends it after the job it runs, if any.

    :meth:`run` returns only once the committer thread took the job. Without that handshake
    the task thread, going straight on to Python work (poll, convert), would keep the GIL
    from the woken committer thread for up to the interpreter's switch interval (5 ms) --
    longer than the commit itself. With it, the committer thread holds the GIL only until
    the job enters ``commit_transaction``, which releases it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._cond = threading.Condition()
        self._job: Callable[[], None] | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def run(self, job: Callable[[], None]) -> None:
        """Start ``job`` on the committer thread; the previous job must have finished."""
        with self._cond:
            if self._closed or self._job is not None:
                raise RuntimeError(f"{self._name} cannot take a job now")
            self._job = job
            if self._thread is None:
                self._thread = threading.Thread(
                    target=contextvars.copy_context().run,
                    args=(self._loop,),
                    name=self._name,
                    daemon=True,
                )
                self._thread.start()
            self._cond.notify()
            while self._job is not None:
                self._cond.wait()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._job is None and not self._closed:
                    self._cond.wait()
                job, self._job = self._job, None
                self._cond.notify_all()
            if job is None:
                return
            job()


class ExactlyOnceWorkerSourceTask(WorkerSourceTask):
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
        producer: Producer,
        *,
        offset_store: TransactionalOffsetStore,
        topic_creation: TopicCreation | None,
        commit: CommitSettings,
        preflight: ExactlyOncePreflight,
        transaction_timeout_ms: int,
    ) -> None:
        super().__init__(
            task_id,
            task,
            task_props,
            config,
            initial_state,
            services,
            plugins,
            operator,
            producer,
            offset_reader=OffsetStorageReaderImpl(offset_store, task_id.connector),
            offset_writer=OffsetStorageWriter(offset_store, task_id.connector),
            topic_creation=topic_creation,
            commit=commit,
        )
        self.producer: Producer = producer  # its own, transactional: never shared
        self.offset_store = offset_store
        self.preflight = preflight
        self.boundary = config.transaction_boundary
        interval = config.transaction_boundary_interval_ms
        self.boundary_interval_ms = commit.interval_ms if interval is None else interval
        self.transactions = WorkerTransactionContext() if self.boundary == "connector" else None
        self._commit_timeout_s = max(transaction_timeout_ms, 1000) / 1000.0
        self._offsets_initialized = False
        self._last_commit = 0.0
        # Only the commit modes that report per record need delivery callbacks.
        self._delivery_callbacks = self._commit_mode is not CommitMode.OFFSETS
        # The open transaction: whether it began, how many records it holds, and (without
        # delivery callbacks) the batches' records to count as written when it commits.
        self._transaction_open = False
        self._transaction_records = 0
        self._unwritten: list[tuple[WriteCounter, int]] = []
        # commit_record / commit_records calls for after the commit (delivery callbacks).
        self._after_commit: list[Callable[[], None]] = []
        self._in_flight: _Commit | None = None
        self._last_commit_end = 0.0
        self._committer = _Committer(f"task-committer-{task_id}")

    # -- start and stop -------------------------------------------------------------------------

    def _prepare_to_initialize(self) -> None:
        self.preflight.before_producer()
        if self.is_stopping():
            # do not initialize a producer that might fence out a newer generation
            return
        self.producer.init_transactions(INIT_TRANSACTIONS_TIMEOUT_S)
        self.preflight.after_producer()
        self.offset_store.start()
        self._offsets_initialized = True
        self._last_commit = self.clock.monotonic_ms()

    def _new_context(self) -> WorkerSourceTaskContext:
        return _ExactlyOnceContext(
            self.task_props,
            self.offset_reader,
            self.transactions,
            self.metrics.domain_metrics(),
            self.metrics.plugin_metrics(),
        )

    def _execute(self) -> None:
        super()._execute()
        # The loop ends (stopping) right after starting a commit: its failure still fails
        # the task, as it did when commits were synchronous.
        self._await_commit()

    def _close(self) -> None:
        failed = self._failed
        try:
            if self._task_started:
                self._stop_task()
            try:
                self._await_commit()
            except Exception as e:
                self.log.error("Failed to commit the last transaction: %s", e)
                failed = True
            failed = failed or self._producer_error is not None
            if self._offsets_initialized and not failed:
                try:
                    # it is safe to commit here: only offsets of dispatched records are tracked
                    self._commit_transaction()
                except Exception as e:
                    self.log.error("Failed to commit the final transaction: %s", e)
                    failed = True
            elif self._transaction_open:
                self._abort_quietly()
        finally:
            self._committer.close()
            self.offset_reader.close()
            self.offset_store.stop()
            self.producer.close(0 if failed else self.flush_timeout_ms / 1000.0)
            self._close_plugins()

    # -- the send loop --------------------------------------------------------------------------

    def _maybe_commit_on_interval(self) -> None:
        """Transactions end at their boundary, after a batch (see ``_batch_done``)."""

    def _check_producer(self) -> None:
        # While a commit is in flight, its delivery reports may be noting a failure on the
        # committer thread: that failure is settled with the commit (``_await_commit``).
        if self._in_flight is None:
            super()._check_producer()

    def _track(self, batch: SourceBatch) -> None:
        if self.offset_store.topic in map(_TOPIC, batch.records):
            raise ConnectException(
                "Source tasks may not produce to their own offsets topics when "
                "exactly-once support is enabled"
            )
        self._await_commit()
        super()._track(batch)

    def _send(self, batch: SourceBatch) -> bool:
        """Into the open transaction (begun with the first record), in ranges that end at the
        records the task asked to commit or abort on."""
        n = len(batch.entries)
        by_record = self.transactions is not None and self.transactions.has_record_requests()
        while batch.sent < n:
            start = batch.sent
            end = self._next_record_boundary(batch.records, start) if by_record else n
            if any(batch.entries[i] is not None for i in range(start, end)):
                self._begin_transaction()
            sent = self._produce(batch, end)
            self._dispatched(batch, start, batch.sent)
            if not sent:
                return False
            if by_record:
                self._record_boundary(batch.records[end - 1])
        return True

    def _next_record_boundary(self, records: Sequence[SourceRecord], start: int) -> int:
        """The end (exclusive) of the next range: just after a record the task asked to
        commit or abort on, or the batch's end."""
        tx = self.transactions
        assert tx is not None
        for i in range(start, len(records)):
            key = id(records[i])
            if key in tx._commit_on or key in tx._abort_on:
                return i + 1
        return len(records)

    def _dispatched(self, batch: SourceBatch, start: int, end: int) -> None:
        """The offsets of the records from ``start`` to ``end`` that the producer accepted go
        into the transaction (a dropped record's offset is not committed, as in Java's
        ``recordDropped``)."""
        records, entries = batch.records, batch.entries
        if None in entries[start:end]:
            dispatched = [records[i] for i in range(start, end) if entries[i] is not None]
        else:
            dispatched = records[start:end]
        if not dispatched:
            return
        partitions = list(map(_PARTITION, dispatched))
        if len(set(map(id, partitions))) == 1:
            # the usual range: one source partition object, whose last offset is what counts
            self.offset_writer.offset(partitions[-1], dispatched[-1].source_offset)
        else:
            self.offset_writer.offset_batch(zip(partitions, map(_OFFSET, dispatched), strict=True))
        self._transaction_records += len(dispatched)
        if not self._delivery_callbacks:
            assert batch.counter is not None
            self._unwritten.append((batch.counter, len(dispatched)))

    def _record_boundary(self, record: SourceRecord) -> None:
        tx = self.transactions
        assert tx is not None
        if tx.should_abort_on(record):
            self.log.info(
                "Aborting transaction for record on topic %s as requested by connector",
                record.topic,
            )
            self._abort_transaction()
            self._commit_transaction()
        elif tx.should_commit_on(record):
            self._commit_transaction()

    def _batch_done(self, dispatched: bool) -> None:
        """The transaction boundary: start the commit when the boundary says so."""
        if not dispatched:
            # an empty poll: the producer is this thread's again
            self._await_commit()
            self.producer.poll(IDLE_POLL_S)
        if self.boundary == "poll":
            self._start_commit(background=True)
        elif self.boundary == "interval":
            now = self.clock.monotonic_ms()
            if now >= self._last_commit + self.boundary_interval_ms:
                self._last_commit = now
                self._start_commit(background=True)
        else:
            tx = self.transactions
            assert tx is not None
            if tx.should_abort_batch():
                self.log.info("Aborting transaction for batch as requested by connector")
                self._abort_transaction()
                self._start_commit(background=True)
            elif tx.should_commit_batch():
                self._start_commit(background=True)
        if dispatched and self._in_flight is None:
            self.producer.poll(0)

    # -- transactions ---------------------------------------------------------------------------

    def _begin_transaction(self) -> None:
        if not self._transaction_open:
            self.clock.sleep_ms(
                self._last_commit_end + NEXT_TRANSACTION_DELAY_MS - self.clock.monotonic_ms()
            )
            self.producer.begin_transaction()
            self._transaction_open = True

    def _abort_transaction(self) -> None:
        if not self._transaction_open:
            self.log.warning(
                "Ignoring request by task to abort transaction as the current transaction is empty"
            )
            return
        self.producer.abort_transaction(self._commit_timeout_s)
        self._transaction_open = False
        self._transaction_records = 0
        for counter, n in self._unwritten:
            counter.skip(n)
        self._unwritten = []

    def commit_offsets(self) -> bool:
        """Commit the open transaction (pause, stop): its offsets and records together."""
        if not self._offsets_initialized:
            return True
        self._commit_transaction()
        return True

    def _commit_transaction(self) -> None:
        """Commit the open transaction now, after settling the one in flight; raises (failing
        the task) if either could not be committed."""
        self._await_commit()
        self._start_commit(background=False)
        self._await_commit()

    def _start_commit(self, background: bool) -> None:
        """End the open transaction: write its offsets into it, then ``commit_transaction`` --
        on the committer thread when ``background``, else right here. Settled by
        :meth:`_await_commit`. With no transaction open and no offset to write there is
        nothing to commit: ``SourceTask.commit()`` is called at once."""
        assert self._in_flight is None, "a commit is already in flight"
        started = self.clock.monotonic_ms()
        writer = self.offset_writer
        should_flush = writer.begin_flush()
        if not self._transaction_open and not should_flush:
            self.metrics.task.record_commit_success(self.clock.monotonic_ms() - started)
            self._commit_source_task()
            return
        self._check_producer()
        # after an abort, the offsets still need a transaction of their own
        self._begin_transaction()
        commit = _Commit(
            started,
            self._transaction_records,
            writer.do_flush() if should_flush else None,
            self._unwritten,
        )
        self._in_flight = commit
        self._transaction_open = False
        self._transaction_records = 0
        self._unwritten = []
        flushed = commit.flushed
        if flushed is not None and flushed.done() and flushed.exception() is not None:
            # the offsets could not even be serialized: do not commit the records alone
            commit.error = flushed.exception()
            commit.finished_ms = started
            commit.done.set()
        elif background:
            try:
                self._committer.run(partial(self._run_commit, commit))
            except BaseException as e:  # no committer thread: the commit failed
                commit.error = e
                commit.finished_ms = self.clock.monotonic_ms()
                commit.done.set()
        else:
            self._run_commit(commit)

    def _run_commit(self, commit: _Commit) -> None:
        """``commit_transaction`` (committer thread, or the task thread for a synchronous
        commit): flushes every record and offset first, serving their delivery reports."""
        try:
            self.producer.commit_transaction(self._commit_timeout_s)
        except BaseException as e:
            commit.error = e
        finally:
            commit.finished_ms = self.clock.monotonic_ms()
            commit.done.set()

    def _await_commit(self) -> None:
        """Wait for the commit in flight, if any, and settle it: raise when it failed (the
        transaction is aborted), else record it and make the task's commit calls."""
        commit = self._in_flight
        if commit is None:
            return
        commit.done.wait()
        self._in_flight = None
        writer = self.offset_writer
        duration = commit.finished_ms - commit.started_ms
        error = commit.error
        if error is None and commit.flushed is not None and commit.flushed.done():
            error = commit.flushed.exception()
        if error is None and self._producer_error is not None:
            error = self._producer_error
        if error is not None:
            self.metrics.task.record_commit_failure(duration)
            writer.cancel_flush()
            self._abort_quietly()
            if isinstance(error, InvalidProducerEpochError) or isinstance(
                error.__cause__, InvalidProducerEpochError
            ):
                raise transaction_timeout_error(self.id, error)
            raise ConnectException(
                f"Failed to flush offsets and/or records for task {self.id}: {error}"
            ) from error
        writer.complete_flush()
        self._last_commit_end = commit.finished_ms
        self._source_metrics.transaction_size.record(commit.records)
        self.metrics.task.record_commit_success(duration)
        for counter, n in commit.written:
            counter.done(n)
        self.submitted.committable_offsets()  # every record is acknowledged: drop the entries
        after, self._after_commit = self._after_commit, []
        for call in after:
            call()
        self._commit_source_task()

    def _abort_quietly(self) -> None:
        try:
            self.producer.abort_transaction(min(self._commit_timeout_s, 10.0))
        except KafkaClientError as e:
            self.log.debug("Aborting the failed transaction failed too: %s", e)
        self._transaction_open = False
        self._transaction_records = 0
        self._unwritten = []

    def _commit_source_task(self) -> None:
        if self._task_started:
            try:
                self.task.commit()
            except Exception:
                self.log.exception("Exception thrown while calling task.commit()")

    # -- delivery outcome (may run on the committer thread) ------------------------------------

    def _delivery_failed(self, err: Any, msg: Any, record: SourceRecord | None) -> bool:
        """Never tolerated: the transaction's commit fails and so does the task. Records an
        abort purged from the producer's queue were dropped on purpose."""
        name = err.name() if hasattr(err, "name") else ""
        if name in _PURGED:
            return True
        error = delivery_error(err, msg.topic() if msg is not None else "?")
        self.log.error("Failed to send record to topic '%s': %s",
                       msg.topic() if msg is not None else "?", error)  # fmt: skip
        if self._producer_error is None:
            self._producer_error = error
        return False

    def _send_refused(self, batch: SourceBatch, i: int, error: KafkaClientError) -> None:
        raise ConnectException(f"Unrecoverable exception trying to send: {error}") from error

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        # after the transaction commits, as Java calls commitRecord
        self._after_commit.append(partial(super()._commit_record, record, metadata))

    def _commit_records(self, records: list[SourceRecord], offsets: list[int]) -> None:
        # after the transaction commits, like commit_record
        self._after_commit.append(partial(super()._commit_records, records, offsets))
