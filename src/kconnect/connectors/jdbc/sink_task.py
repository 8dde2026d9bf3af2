"""``JdbcSinkTask``: writes each ``put`` batch to the database in one transaction.

Lifecycle (all on the task thread): ``initialize(context)`` → ``start(props)`` opens nothing
yet (the connection is opened on the first write, with ``connection.attempts`` retries) →
``put(records)`` writes and commits the batch before returning, so ``flush`` has nothing left
to do and the runtime may commit the consumer offsets (at-least-once) → ``stop()`` closes the
connection.

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
from collections.abc import Mapping, Sequence

from kconnect.api import (
    ConnectException,
    ErrantRecordReporter,
    RetriableException,
    SinkRecord,
    SinkTask,
    TopicPartition,
)
from kconnect.connectors.jdbc.ddl import TableAlterOrCreateException
from kconnect.connectors.jdbc.fields_metadata import record_where
from kconnect.connectors.jdbc.sink_config import JdbcSinkConfig
from kconnect.connectors.jdbc.writer import JdbcDbWriter, SqlWriteError

__all__ = ["JdbcSinkTask"]

log = logging.getLogger(__name__)

VERSION = "10.8.9-kconnect"


class JdbcSinkTask(SinkTask):
    """Sink task of :class:`~kconnect.connectors.jdbc.sink_connector.JdbcSinkConnector`."""

    __kconnect_class_name__ = "io.confluent.connect.jdbc.sink.JdbcSinkTask"

    def __init__(self) -> None:
        self.config: JdbcSinkConfig | None = None
        self.writer: JdbcDbWriter | None = None
        self.remaining_retries = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        """Parse the configuration (raises ConfigException); the database is opened lazily."""
        self.config = JdbcSinkConfig(props)
        self.writer = JdbcDbWriter(self.config)
        self.remaining_retries = self.config.max_retries

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write ``records`` (committed when this returns). See the module docstring."""
        if not records:
            return
        writer, config = self.writer, self.config
        assert writer is not None and config is not None, "put() before start()"
        try:
            writer.write(records)
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
        self.remaining_retries = config.max_retries

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
        """Nothing to do: every ``put`` committed its batch before returning."""

    def stop(self) -> None:
        """Close the database connection."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
