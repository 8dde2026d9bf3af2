"""Tasks: ``Task``, ``SourceTask``, ``SinkTask`` and the contexts the runtime gives them.

Each task runs on its own thread, created by the worker. Lifecycle:

* **SourceTask**: ``initialize(context)`` → ``start(props)`` → repeated ``poll()`` (on the
  task thread; may block briefly, should return within about a second so pause/stop are
  noticed) → ``stop()``. ``stop`` is called once, usually from *another* thread to interrupt
  a blocking ``poll``, so it must be thread-safe and should only signal; it is made on the
  task thread when the task failed, or when the stop came while ``start`` ran (it never runs
  beside ``start``, as in Kafka Connect). No ``poll`` follows it. ``commit()`` is called after offsets
  were flushed; ``commit_record(record, metadata)`` after the producer acknowledged a record,
  or -- for a task that overrides it -- ``commit_records(records, offsets)`` once per source
  partition and batch. kconnect makes all three calls on the task thread, between polls (an
  exactly-once task's, once its transaction committed); Java makes them on other threads, so
  a portable task makes them thread-safe anyway.
* **SinkTask**: ``initialize(context)`` → ``start(props)`` → ``open(partitions)`` on
  assignment → repeated ``put(records)`` → ``pre_commit(offsets)``/``flush(offsets)`` at
  each commit → ``close(partitions)`` on revocation → ``stop()``. All calls happen on the
  task thread.

Exceptions: :class:`~kconnect.api.errors.RetriableException` from ``poll``/``put`` makes the
runtime retry (a sink batch is redelivered); any other exception fails the task, its message
and trace shown in the task status.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from kconnect.api.plugin_metrics import DomainMetrics, PluginMetrics
from kconnect.api.records import RecordMetadata, SinkRecord, SourceRecord, TopicPartition

__all__ = [
    "ErrantRecordReporter",
    "OffsetAndMetadata",
    "OffsetStorageReader",
    "SinkTask",
    "SinkTaskContext",
    "SourceTask",
    "SourceTaskContext",
    "Task",
    "TransactionContext",
    "partition_key",
]


class OffsetAndMetadata(int):
    """A committed consumer offset (the next offset to read). A plain ``int`` subclass."""


class OffsetStorageReader(ABC):
    """Reads the last committed source offsets. Thread-safe; may block on the backing store."""

    def offset(self, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        """The committed offset of one source partition, or None."""
        return self.offsets([partition]).get(_freeze(partition))

    @abstractmethod
    def offsets(
        self, partitions: Collection[Mapping[str, Any]]
    ) -> dict[tuple[tuple[str, Any], ...], dict[str, Any]]:
        """Committed offsets of several partitions, keyed by :func:`partition_key` of each."""


def _freeze(partition: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(partition.items()))


partition_key = _freeze


class ErrantRecordReporter(ABC):
    """Reports a record a sink task could not write (KIP-610): to the dead letter queue and/or
    the log, per the connector's ``errors.*`` configuration. Thread-safe."""

    @abstractmethod
    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        """Report ``record`` with the error that stopped it. With ``errors.tolerance=none`` this
        raises, failing the task. The returned future completes when the report is durable;
        the runtime waits for it before committing the record's offset."""


class TransactionContext(ABC):
    """Where a source task's producer transactions end (KIP-618), for connectors configured
    with ``transaction.boundary=connector`` on a worker with exactly-once source support.

    A request takes effect after the record it names was dispatched (``record`` given) or
    after the current batch from ``poll()`` (no record): the transaction is committed with
    the offsets of every record dispatched so far, or aborted -- its records are dropped, but
    their offsets are still committed so the task does not read them again. Call from the
    task thread (``poll``) only.
    """

    @abstractmethod
    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit after ``record`` was dispatched, or after the current batch."""

    @abstractmethod
    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort after ``record`` was dispatched, or after the current batch."""


class _TaskMetricsContext:
    """The metrics a source or sink task context offers."""

    def plugin_metrics(self) -> PluginMetrics | None:
        """The task's :class:`~kconnect.api.PluginMetrics` (Kafka 4.1, KIP-877: group
        ``plugins``, tagged ``connector`` and ``task``), or None when the runtime keeps no
        metrics (a context built by a test)."""
        return None

    def domain_metrics(self) -> DomainMetrics | None:
        """Where the task registers metrics under names it chooses whole
        (:class:`~kconnect.api.DomainMetrics`, as MirrorMaker 2 keeps Java's), or None when
        the runtime keeps none."""
        return None


class SourceTaskContext(_TaskMetricsContext, ABC):
    """What the runtime offers a source task."""

    @abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""

    @abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of this connector's committed source offsets (to resume after a restart)."""

    def transaction_context(self) -> TransactionContext | None:
        """The task's :class:`TransactionContext`, or None unless exactly-once source support
        is enabled on the worker and the connector sets ``transaction.boundary=connector``."""
        return None


class SinkTaskContext(_TaskMetricsContext, ABC):
    """What the runtime offers a sink task. Call only from the task thread."""

    @abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""

    @abstractmethod
    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Reset the consumer position of these partitions (e.g. from offsets kept in the sink)."""

    @abstractmethod
    def timeout(self, timeout_ms: int) -> None:
        """After a RetriableException, wait this long before redelivering the batch."""

    @abstractmethod
    def assignment(self) -> set[TopicPartition]:
        """The partitions currently assigned to this task."""

    @abstractmethod
    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching from these partitions until :meth:`resume`."""

    @abstractmethod
    def resume(self, *partitions: TopicPartition) -> None:
        """Fetch again from these partitions."""

    @abstractmethod
    def request_commit(self) -> None:
        """Ask for an offset commit as soon as possible."""

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """The reporter for bad records, or None when the connector configures neither a DLQ
        nor error logging."""
        return None


class Task(ABC):
    """Base class of source and sink tasks."""

    def version(self) -> str:
        return "undefined"

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with the task configuration (task thread; may block)."""

    @abstractmethod
    def stop(self) -> None:
        """Stop. Source tasks: called from another thread, must only signal."""


class SourceTask(Task):
    """Reads from an external system. See the module docstring for the lifecycle."""

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        self.context = context

    @abstractmethod
    def poll(self) -> Sequence[SourceRecord] | None:
        """The next batch of records, or None/empty if none is ready yet."""

    def commit(self) -> None:
        """Offsets up to the last acknowledged records were committed."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """``record`` was written to Kafka (``metadata`` None if it was filtered out)."""

    def commit_records(self, records: Sequence[SourceRecord], offsets: Sequence[int]) -> None:
        """kconnect extension: the records of one source partition from one ``poll`` were
        written; ``offsets[i]`` is the Kafka offset ``records[i]`` got (-1: its delivery failed
        and was tolerated). Records a transformation or converter dropped are left out.

        For tasks that need every record's offset (MirrorMaker 2's offset syncs) without one
        call per record. Called on the task thread, once every record of the group was
        acknowledged. A task that overrides it gets no ``commit_record`` calls from kconnect's
        worker (other runtimes call ``commit_record`` only, so keep both in step).
        """


class SinkTask(Task):
    """Writes records consumed from Kafka. See the module docstring for the lifecycle."""

    context: SinkTaskContext

    TOPICS_CONFIG = "topics"
    TOPICS_REGEX_CONFIG = "topics.regex"

    def initialize(self, context: SinkTaskContext) -> None:
        self.context = context

    @abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write (or buffer) a batch of records.

        Called from the task thread for every poll, with an empty batch when nothing new
        arrived — right after a non-empty batch, the next call comes without waiting for new
        records. A task may therefore return before a write completes and finish it at the next
        call, as long as :meth:`pre_commit` only returns offsets of records made durable.
        """

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything passed to ``put`` durable before these offsets are committed."""

    def pre_commit(
        self, current_offsets: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, int]:
        """The offsets safe to commit (default: flush, then all of ``current_offsets``)."""
        self.flush(current_offsets)
        return dict(current_offsets)

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """These partitions were assigned to the task."""

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """These partitions were revoked: drop any state kept for them."""
