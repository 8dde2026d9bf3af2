"""``ExactlyOnceWorkerSourceTask``: a source task whose records and offsets commit together.

Runs on a distributed worker with ``exactly.once.source.support=enabled`` (KIP-618, Java's
``ExactlyOnceWorkerSourceTask``). The task's producer is transactional
(``transactional.id`` = ``<group.id>-<connector>-<task>``); its source offsets go, through a
:class:`~kconnect.runtime.storage.transactional_offset_store.TransactionalOffsetStore`, into the
same transaction as the records they describe, so a crash, a kill -9 or a zombie task never
leaves records whose offsets were not committed (duplicates on restart) or offsets whose
records were not (loss): ``read_committed`` consumers see each record once.

Lifecycle on the task thread:

1. **preflight** (:class:`ExactlyOncePreflight`): before the producer is initialized, the
   leader fences out the producers of earlier task generations (zombie fencing, a round trip
   to the leader); ``init_transactions`` then fences any older instance of this task and
   aborts its open transaction; finally the worker checks that the task's configs are still
   the newest generation and the task is still assigned here. A failure fails the task.
2. **offsets**: the offset store is started (reads the offsets topic to its end,
   ``read_committed``) before the task is initialized, so the task resumes from the last
   committed transaction.
3. **send loop**: a transaction begins lazily with the first record dispatched; the offset of
   every record the producer accepted is recorded (dropped records' offsets are not, as in
   Java). Transactions end at the ``transaction.boundary``: after every polled batch
   (``poll``, the default), every ``transaction.boundary.interval.ms`` (``interval``, default
   ``offset.flush.interval.ms``) or where the task's
   :class:`~kconnect.api.task.TransactionContext` asks (``connector``). A commit writes the
   offsets in the transaction, then commits it (flushing every record); ``SourceTask.commit``
   and ``commit_record`` follow. A failed commit fails the task (the transaction is aborted;
   its records are never read committed).
4. **pause and stop** commit the open transaction (unless the task failed). A record for the
   task's own offsets topic fails the task (it would deadlock its own offset reads).

Differences from the at-least-once :class:`~kconnect.runtime.worker.worker_source_task.
WorkerSourceTask`: a record the producer refuses synchronously fails the task even with
``errors.tolerance=all`` (it cannot be left out of a committed transaction silently), and
there is no separate offset flush.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.api.plugin_metrics import DomainMetrics, PluginMetrics
from kconnect.api.records import RecordMetadata, SourceRecord
from kconnect.api.task import SourceTask, TransactionContext
from kconnect.kafka.errors import InvalidProducerEpochError, KafkaClientError
from kconnect.kafka.producer import Producer, delivery_error
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SourceConnectorConfig
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.storage.transactional_offset_store import TransactionalOffsetStore
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.worker_source_task import (
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
        self.offset_store = offset_store
        self.preflight = preflight
        self.boundary = config.transaction_boundary
        interval = config.transaction_boundary_interval_ms
        self.boundary_interval_ms = commit.interval_ms if interval is None else interval
        self.transactions = WorkerTransactionContext() if self.boundary == "connector" else None
        self._commit_timeout_s = max(transaction_timeout_ms, 1000) / 1000.0
        self._transaction_open = False
        self._transaction_records = 0
        self._last_commit = 0.0
        self._offsets_initialized = False
        self._committable: list[tuple[SourceRecord, RecordMetadata | None]] = []

    # -- start ----------------------------------------------------------------------------------

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

    # -- the send loop --------------------------------------------------------------------------

    def _maybe_commit_on_interval(self) -> None:
        """Transactions end at their boundary, after a batch (see ``_batch_dispatched``)."""

    def _prepare(self, records: list[SourceRecord]) -> list[Any]:
        topic = self.offset_store.topic
        for r in records:
            if r.topic == topic:
                raise ConnectException(
                    "Source tasks may not produce to their own offsets topics when "
                    "exactly-once support is enabled"
                )
        return super()._prepare(records)

    def _send_records(self) -> bool:
        records = self._to_send
        assert records is not None
        if self._prepared is None:
            self._prepared = self._prepare(records)
        prepared = self._prepared
        n = len(prepared)
        record_requests = self.transactions is not None and self.transactions.has_record_requests()
        while self._send_index < n:
            start = self._send_index
            end = self._next_record_boundary(records, start) if record_requests else n
            if any(prepared[i] is not None for i in range(start, end)):
                self._begin_transaction()
            sent = self._send_range(end)
            self._record_dispatched(records, prepared, start, self._send_index)
            if not sent:
                return False
            if record_requests:
                self._record_boundary(records[end - 1])
        self._end_batch()
        self._batch_dispatched()
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

    def _record_dispatched(
        self, records: Sequence[SourceRecord], prepared: Sequence[Any], start: int, end: int
    ) -> None:
        """Offsets of the records the producer accepted, in this transaction (a dropped
        record's offset is not committed, as in Java's ``recordDropped``)."""
        dispatched = [records[i] for i in range(start, end) if prepared[i] is not None]
        self.offset_writer.offset_batch((r.source_partition, r.source_offset) for r in dispatched)
        self._transaction_records += len(dispatched)

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

    def _batch_dispatched(self) -> None:
        if self.boundary == "poll":
            self._commit_transaction()
        elif self.boundary == "interval":
            now = self.clock.monotonic_ms()
            if now >= self._last_commit + self.boundary_interval_ms:
                self._last_commit = now
                self._commit_transaction()
        else:
            tx = self.transactions
            assert tx is not None
            if tx.should_abort_batch():
                self.log.info("Aborting transaction for batch as requested by connector")
                self._abort_transaction()
                self._commit_transaction()
            elif tx.should_commit_batch():
                self._commit_transaction()

    # -- transactions ---------------------------------------------------------------------------

    def _begin_transaction(self) -> None:
        if not self._transaction_open:
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

    def commit_offsets(self) -> bool:
        """Commit the open transaction (pause, stop): its offsets and records together."""
        if not self._offsets_initialized:
            return True
        self._commit_transaction()
        return True

    def _commit_transaction(self) -> None:
        """Offsets into the transaction, then commit it; raises (failing the task) if the
        transaction could not be committed."""
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
        error: BaseException | None = None
        flushed = writer.do_flush() if should_flush else None
        if flushed is not None and flushed.done() and flushed.exception() is not None:
            error = flushed.exception()
        if error is None:
            try:
                # flushes every record and offset first, serving their delivery callbacks
                self.producer.commit_transaction(self._commit_timeout_s)
            except KafkaClientError as e:
                error = e
            self._transaction_open = False
            if error is None and flushed is not None and flushed.done():
                error = flushed.exception()
        if error is None and self._producer_error is not None:
            error = self._producer_error
        if error is not None:
            self.metrics.task.record_commit_failure(self.clock.monotonic_ms() - started)
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
        self._source_metrics.transaction_size.record(self._transaction_records)
        self._transaction_records = 0
        self.metrics.task.record_commit_success(self.clock.monotonic_ms() - started)
        self.submitted.committable_offsets()  # every record is acknowledged: drop the entries
        committable, self._committable = self._committable, []
        for record, metadata in committable:
            super()._commit_record(record, metadata)
        self._commit_source_task()

    def _abort_quietly(self) -> None:
        try:
            self.producer.abort_transaction(min(self._commit_timeout_s, 10.0))
        except KafkaClientError as e:
            self.log.debug("Aborting the failed transaction failed too: %s", e)
        self._transaction_open = False
        self._transaction_records = 0

    def _commit_source_task(self) -> None:
        if self._task_started:
            try:
                self.task.commit()
            except Exception:
                self.log.exception("Exception thrown while calling task.commit()")

    # -- delivery -------------------------------------------------------------------------------

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

    def _tolerate_produce_failure(self, record: SourceRecord, error: KafkaClientError) -> None:
        raise ConnectException(f"Unrecoverable exception trying to send: {error}") from error

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        # after the transaction commits, as Java calls commitRecord
        self._committable.append((record, metadata))

    # -- close ----------------------------------------------------------------------------------

    def _close(self) -> None:
        failed = self._failed or self._producer_error is not None
        try:
            if self._task_started:
                self._stop_task()
            if self._offsets_initialized and not failed:
                try:
                    # it is safe to commit here: only offsets of dispatched records are tracked
                    self._commit_transaction()
                except Exception as e:
                    self.log.error("Failed to commit the final transaction: %s", e)
            elif self._transaction_open:
                self._abort_quietly()
        finally:
            self.offset_reader.close()
            self.offset_store.stop()
            self.producer.close(0 if failed else self.flush_timeout_ms / 1000.0)
            self._close_plugins()
