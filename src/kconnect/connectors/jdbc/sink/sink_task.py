"""``JdbcSinkTask``: writes each ``put`` batch to the database in one transaction.

Lifecycle (all on the task thread): ``initialize(context)`` → ``start(props)`` opens nothing
yet (the connection is opened on the first write, with ``connection.attempts`` retries) →
``put(records)`` writes the batch in one transaction → ``pre_commit`` returns the offsets of
what is committed in the database, and the runtime commits those (at-least-once) →
``stop()`` closes the connection.

On the native hot path ``records`` is a ``kconnect_native.RecordBatch``: the writer reads it
by position and writes rows (or a COPY insert's whole binary stream) made from its native
values, without Python records (:mod:`~kconnect.connectors.jdbc.sink.record_pieces`). What
needs the records themselves -- the retry one by one, the errant record reporter, the offsets
``pre_commit`` holds back -- reads them through its ``Sequence`` interface, which makes only
the records read.

A large put to PostgreSQL in insert mode (:data:`DEFER_MIN_RECORDS`) returns once its COPY is
sent, and its result is read and committed at the start of the next ``put`` (or in
``pre_commit``/``close``/``stop``): the database ingests a batch while the runtime converts
the next, instead of one waiting for the other. If the database refuses such a batch, it is
written again, synchronously, at the next put, where the handling below applies; until then
``pre_commit`` holds its partitions back at the batch's first offsets.

Failures, as Confluent's ``JdbcSinkTask.put``:

* a database error that may go away (connection lost, deadlock, serialization failure, …):
  up to ``max.retries`` times the connection is reset, ``context.timeout(retry.backoff.ms)`` is
  set and :class:`RetriableException` raised, so the runtime redelivers the same batch;
* when retries are exhausted, or at once for an error retrying cannot fix (a value too long for
  its column, a constraint violation, a missing column — Confluent retries these too, which only
  delays the outcome by ``max.retries * retry.backoff.ms``), and with an errant record reporter
  (DLQ or error log configured): the batch is written record by record; each record that still
  fails is reported with the database's message, the others are committed;
* without a reporter the task fails with a :class:`ConnectException` naming the table, the
  column when the database says which, and the first failing record (topic/partition/offset).

A missing table/column that may not be created (``TableAlterOrCreateException``) goes to the
reporter record by record, or fails the task. Other errors (bad configuration of keys, a
tombstone without ``delete.enabled``) fail the task, as in Confluent.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence

from kconnect.api import (
    ConnectException,
    ErrantRecordReporter,
    RetriableException,
    SinkRecord,
    SinkTask,
    TopicPartition,
)
from kconnect.connectors.jdbc.common.version import VERSION
from kconnect.connectors.jdbc.sink.ddl import TableAlterOrCreateException
from kconnect.connectors.jdbc.sink.fields_metadata import record_where
from kconnect.connectors.jdbc.sink.sink_config import JdbcSinkConfig
from kconnect.connectors.jdbc.sink.writer import JdbcDbWriter, PendingWrite, SqlWriteError

__all__ = ["JdbcSinkTask"]

log = logging.getLogger(__name__)

#: A put of at least this many records to PostgreSQL in insert mode returns once its COPY is
#: sent; the result is read and the transaction committed at the next put (or pre_commit), so
#: the database ingests one batch while the runtime converts the next (measured: +18% rows/s
#: with Kafka's default 500-record polls, +30% with 3,000). Smaller puts — a trickle, where
#: throughput does not matter — are committed before put returns.
DEFER_MIN_RECORDS = 100


class JdbcSinkTask(SinkTask):
    """Sink task of :class:`~kconnect.connectors.jdbc.sink.sink_connector.JdbcSinkConnector`."""

    __kconnect_class_name__ = "io.confluent.connect.jdbc.sink.JdbcSinkTask"

    def __init__(self) -> None:
        self.config: JdbcSinkConfig | None = None
        self.writer: JdbcDbWriter | None = None
        self.remaining_retries = 0
        # The deferred write of the last put (committed at the next put or pre_commit), and
        # a batch whose deferred write failed, to write again at the next put.
        self._pending: PendingWrite | None = None
        self._redo: Sequence[SinkRecord] | None = None

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        """Parse the configuration (raises ConfigException); the database is opened lazily."""
        self.config = JdbcSinkConfig(props)
        self.writer = JdbcDbWriter(self.config)
        self.remaining_retries = self.config.max_retries

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write ``records``. See the module docstring."""
        writer, config = self.writer, self.config
        assert writer is not None and config is not None, "put() before start()"
        # The previous put's records are released only once this batch is sent: freeing a
        # batch of records is a sizeable share of a put, and done here the database ingests
        # this batch meanwhile instead of waiting for it.
        done = self._complete_pending()
        if self._redo is not None:
            redo, self._redo = self._redo, None
            self._write(redo, redo=True)
        if records:
            self._write(records, defer=len(records) >= DEFER_MIN_RECORDS)
        del done

    def _write(
        self, records: Sequence[SinkRecord], defer: bool = False, redo: bool = False
    ) -> None:
        """Write a batch; ``redo``: a batch of an earlier put whose deferred write failed (it is
        kept for the next put when the write must be retried)."""
        writer, config = self.writer, self.config
        assert writer is not None and config is not None
        try:
            pending = writer.write(records, defer=defer)
        except TableAlterOrCreateException as e:
            reporter = self._reporter()
            if reporter is None:
                raise
            log.warning("Write of %d records failed (%s); retrying one by one", len(records), e)
            self._unroll(records)
        except SqlWriteError as e:
            if e.transient and self.remaining_retries > 0:
                self.remaining_retries -= 1
                log.warning(
                    "Write of %d records failed, remaining retries=%d: %s",
                    len(records),
                    self.remaining_retries,
                    e,
                )
                writer.reconnect()
                self.context.timeout(config.retry_backoff_ms)
                if redo:
                    self._redo = records  # written again first at the next put
                raise RetriableException(str(e)) from e
            if self._reporter() is not None:
                log.warning(
                    "Write of %d records failed (%s); writing them one by one and reporting "
                    "the ones that fail",
                    len(records),
                    e,
                )
                self._unroll(records)
            else:
                raise self._batch_failure(records, e) from e
        else:
            if pending is not None:
                self._pending = pending
                return  # retries are reset once it is committed
        self.remaining_retries = config.max_retries

    def _complete_pending(self) -> PendingWrite | None:
        """Finish the deferred write of the previous put, if any, and return it. When the
        database refused it, its records become the batch to write again (``_redo``),
        synchronously, at the next put, where the usual retry/report/fail handling applies
        (and None is returned)."""
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        try:
            pending.complete()
        except SqlWriteError as e:
            log.warning(
                "Write of %d records failed when committing (%s); they are written again",
                len(pending.records),
                e,
            )
            self._redo = pending.records
            return None
        assert self.config is not None
        self.remaining_retries = self.config.max_retries
        return pending

    def _reporter(self) -> ErrantRecordReporter | None:
        context = getattr(self, "context", None)
        return context.errant_record_reporter() if context is not None else None

    def _unroll(self, records: Sequence[SinkRecord]) -> None:
        """Confluent's ``unrollAndRetry``: each record alone; failures go to the reporter."""
        assert self.writer is not None
        reporter = self._reporter()
        assert reporter is not None
        failures = self.writer.write_each(records, commit=True)
        for record, error in failures:
            reporter.report(record, error)

    def _batch_failure(self, records: Sequence[SinkRecord], e: SqlWriteError) -> ConnectException:
        """The error that fails the task: names the first record the database refuses, found
        by writing the records one by one in a transaction that is then rolled back."""
        assert self.writer is not None
        culprit: tuple[SinkRecord, ConnectException] | None = None
        try:
            failures = self.writer.write_each(records, commit=False)
            culprit = failures[0] if failures else None
        except ConnectException as diag_error:  # the diagnosis itself failed; report the batch
            log.debug("Could not find the failing record: %s", diag_error)
        if culprit is None:
            return ConnectException(
                f"{e}\nThe batch of {len(records)} records from {record_where(records[0])} to "
                f"{record_where(records[-1])} was not written."
            )
        record, error = culprit
        column = getattr(error, "column", None) or e.column
        detail = str(error)
        if column and f"column '{column}'" not in detail:
            detail += f"\n(column '{column}')"
        return ConnectException(
            f"{detail}\nThe batch of {len(records)} records was not written; the first record "
            f"the database refused is at {record_where(record)}. Fix the data or the table, "
            "or configure errors.tolerance=all with a dead letter queue to skip such records."
        )

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        """Finish the deferred write of the last put, if any (see :meth:`pre_commit`)."""
        self._complete_pending()

    def pre_commit(
        self, current_offsets: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, int]:
        """The offsets that are safe to commit: all of ``current_offsets`` once the last
        deferred write is committed; when a batch still has to be written again, its
        partitions stay at the batch's first offsets."""
        self._complete_pending()
        if self._redo is None:
            return dict(current_offsets)
        first: dict[TopicPartition, int] = {}
        for r in self._redo:
            tp = TopicPartition(r.original_topic, r.original_kafka_partition)
            if tp not in first:
                first[tp] = r.original_kafka_offset
        return {tp: first.get(tp, off) for tp, off in current_offsets.items()}

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """Finish the deferred write; records of ``partitions`` still to be written again are
        dropped (their offsets were not committed: the partitions' next owner reads them)."""
        self._complete_pending()
        if self._redo is not None:
            closed = {TopicPartition(*tp) for tp in partitions}
            kept = [
                r
                for r in self._redo
                if TopicPartition(r.original_topic, r.original_kafka_partition) not in closed
            ]
            self._redo = kept or None

    def stop(self) -> None:
        """Finish the deferred write (a failure is only logged: its offsets were not
        committed, so the records are read again), then close the database connection."""
        try:
            self._complete_pending()
        except Exception as e:
            log.warning("The last write did not complete: %s", e)
        if self.writer is not None:
            self.writer.close()
            self.writer = None
