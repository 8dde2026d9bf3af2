"""``WorkerSourceTask``: runs a SourceTask — poll, transform, convert, produce, commit offsets.

Per batch from ``SourceTask.poll()`` (task thread):

1. transformation chain (stage TRANSFORMATION) over the batch in one pass
   (:func:`~kconnect.runtime.worker.record_conversion.transform_batch`) — a dropped record
   still counts as handled for offsets;
2. header, key and value converters (stages HEADER/KEY/VALUE_CONVERTER), one batch call per
   topic for keys and values;
3. ``topic.creation.*`` (KIP-158) for topics seen for the first time, then
   ``producer.produce`` for each record. Delivery callbacks are served by ``poll(0)`` on this
   thread; one callback object per source partition per batch counts the acknowledgements
   (a per-record callback only when the task overrides ``commit_record``; one per destination
   partition, and one ``commit_records`` call per source partition, when it overrides
   ``commit_records``). A full producer
   queue keeps the rest of the batch and retries; a failed delivery is stage KAFKA_PRODUCE
   (skipped under ``errors.tolerance=all``, otherwise the task fails).
4. offsets: :class:`~kconnect.runtime.worker.submitted_records.SubmittedRecords` makes an offset
   committable only when every earlier record of its source partition was acknowledged.
   Every ``offset.flush.interval.ms`` (and on pause and stop) committable offsets go through
   the :class:`~kconnect.runtime.storage.offset_writer.OffsetStorageWriter` to the store (waiting at
   most ``offset.flush.timeout.ms``), then ``SourceTask.commit()`` is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from kconnect.api.errors import ConnectException, RetriableException
from kconnect.api.plugin_metrics import DomainMetrics, PluginMetrics
from kconnect.api.records import RecordMetadata, SourceRecord
from kconnect.api.task import SourceTask, SourceTaskContext
from kconnect.kafka.errors import KafkaClientError
from kconnect.kafka.producer import Producer, delivery_error
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
from kconnect.runtime.worker.source_acks import DestinationAcks, PartitionAcks, WriteCounter
from kconnect.runtime.worker.submitted_records import SubmittedRecords
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.worker_task import (
    CommitSettings,
    TaskPlugins,
    TaskServices,
    WorkerTask,
)

__all__ = ["WorkerSourceTask", "WorkerSourceTaskContext"]

SEND_FAILED_BACKOFF_MS = 100
IDLE_POLL_S = 0.01
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
        producer: Producer,
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
        self._task_started = False
        self._task_stopped = False
        self._to_send: list[SourceRecord] | None = None
        self._prepared: list[Any] | None = None
        self._send_index = 0
        self._producer_error: BaseException | None = None
        self._known_topics: set[str] = set()
        # commit_records (kconnect extension) wins over commit_record: offsets in bulk
        self._batch_commit = type(task).commit_records is not SourceTask.commit_records
        self._per_record_commit = (
            not self._batch_commit and type(task).commit_record is not SourceTask.commit_record
        )
        self._next_commit = 0.0
        # The converters' native forms (None: not looked up yet; False: none)
        self._forms: Any = None

    # -- lifecycle ------------------------------------------------------------------------------

    def _initialize_and_start(self) -> None:
        self._prepare_to_initialize()
        if self.is_stopping():
            return
        self.task.initialize(self._new_context())
        self._task_started = True
        self.task.start(self.task_props)
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
        self._stop_task()

    def _stop_task(self) -> None:
        if self._task_started and not self._task_stopped:
            self._task_stopped = True
            try:
                self.task.stop()
            except Exception:
                self.log.exception("Exception thrown while calling task.stop()")

    def _execute(self) -> None:
        while not self.is_stopping():
            self._check_producer()
            if self.should_pause():
                self.commit_offsets()
                self._report_pause()
                if not self.await_unpause():
                    break
                self._report_resume()
                continue
            self._maybe_commit_on_interval()
            if self._to_send is None:
                started = self.clock.monotonic_ms()
                records = self._poll()
                if records is not None:
                    # Once per batch: poll count/time, batch size, active count.
                    n = len(records)
                    self._source_metrics.record_poll(n, self.clock.monotonic_ms() - started)
                    self.metrics.task.record_batch(n)
                    if n:
                        self.metrics.task.record_activity()
                if not records:
                    self.producer.poll(IDLE_POLL_S)
                    self._batch_dispatched()
                    continue
                self._to_send = list(records)
                self._prepared = None
                self._send_index = 0
            if not self._send_records():
                self.producer.poll(SEND_FAILED_BACKOFF_MS / 1000.0)
            else:
                self.producer.poll(0)

    def _maybe_commit_on_interval(self) -> None:
        """Commit offsets every ``offset.flush.interval.ms`` (task thread)."""
        if self.clock.monotonic_ms() >= self._next_commit:
            self.commit_offsets()
            self._next_commit = self.clock.monotonic_ms() + self.flush_interval_ms

    def _batch_dispatched(self) -> None:
        """After a polled batch was handed to the producer, or a poll returned nothing."""

    def _poll(self) -> Sequence[SourceRecord] | None:
        try:
            return self.task.poll()
        except RetriableException as e:
            self.log.warning(
                "Retriable exception thrown while polling for records; will retry: %s", e
            )
            return None

    def _check_producer(self) -> None:
        if self._producer_error is not None:
            raise ConnectException(
                "Unrecoverable exception from producer send callback"
            ) from self._producer_error

    def _close(self) -> None:
        failed = self._failed or self._producer_error is not None
        try:
            if self._task_started:
                self._stop_task()
                if not failed:
                    remaining = self.producer.flush(self.flush_timeout_ms / 1000.0)
                    if remaining:
                        self.log.warning(
                            "%d records were not acknowledged within "
                            "offset.flush.timeout.ms; their offsets are not "
                            "committed",
                            remaining,
                        )
                else:
                    self.producer.poll(0)
                self.commit_offsets()
        finally:
            self.offset_reader.close()
            self.producer.close(0 if failed else self.flush_timeout_ms / 1000.0)
            self._close_plugins()

    # -- batches --------------------------------------------------------------------------------

    def _send_records(self) -> bool:
        """Produce the current batch from where it stopped; False to back off and retry."""
        records = self._to_send
        assert records is not None
        if self._prepared is None:
            self._prepared = self._prepare(records)
        if not self._send_range(len(self._prepared)):
            return False
        self._end_batch()
        self._batch_dispatched()
        return True

    def _end_batch(self) -> None:
        self._to_send = None
        self._prepared = None
        self._send_index = 0

    def _send_range(self, end: int) -> bool:
        """Produce the prepared records from ``_send_index`` up to ``end``; False (with
        ``_send_index`` at the first record not sent) when the producer's queue is full or
        the send failed transiently."""
        records = self._to_send
        prepared = self._prepared
        assert records is not None and prepared is not None
        produce = self.producer.produce
        i = self._send_index
        while i < end:
            entry = prepared[i]
            if entry is not None:
                topic, partition, key, value, ts, headers, callback, acks = entry
                try:
                    produce(topic, value, key, partition, ts, headers, callback)
                except BufferError:
                    self._send_index = i
                    return False
                except KafkaClientError as e:
                    if e.retriable:
                        self._send_index = i
                        return False
                    self._tolerate_produce_failure(records[i], e)
                    if isinstance(callback, DestinationAcks):
                        sent = acks.records or []
                        callback.skip(next(j for j, r in enumerate(sent) if r is records[i]))
                    acks.done_one(skipped=True)
            i += 1
        self._send_index = i
        return True

    def _prepare(self, records: list[SourceRecord]) -> list[Any]:
        """Transform and convert a batch; returns produce arguments per record (None = skip)
        and submits the batch's offsets."""
        n = len(records)
        contexts: dict[int, ProcessingContext] = {}

        def ctx(i: int) -> ProcessingContext:
            c = contexts.get(i)
            if c is None:
                c = contexts[i] = ProcessingContext(source_record=records[i])
            return c

        entries = self._native_entries(records, ctx)
        if entries is None:
            entries = self._python_entries(records, ctx)
        for entry in entries:
            if entry is None:
                continue
            topic = entry[0]
            if topic not in self._known_topics:
                if self.topic_creation is not None:
                    self.topic_creation.maybe_create(topic)
                self._known_topics.add(topic)
                if self.topic_tracker is not None:
                    self.topic_tracker(self.id.connector, topic)
        # Offsets: one submitted entry per source partition of the batch, in poll order.
        acks_by_partition: dict[Any, PartitionAcks] = {}
        counter = WriteCounter(self._source_metrics, n)
        out: list[Any] = [None] * n
        last: tuple[Any, PartitionAcks] | None = None
        per_record_commit = self._per_record_commit
        batch_commit = self._batch_commit
        destinations: dict[tuple[int, str, int], DestinationAcks] = {}
        for i in range(n):
            original = records[i]
            sp = original.source_partition
            if last is not None and last[0] is sp:
                acks = last[1]
            else:
                pkey = () if sp is None else tuple(sorted(sp.items()))
                found = acks_by_partition.get(pkey)
                if found is None:
                    found = acks_by_partition[pkey] = PartitionAcks(
                        self, self.submitted.submit(sp, original.source_offset), counter,
                        batch_commit,
                    )  # fmt: skip
                acks = found
                last = (sp, acks)
            acks.submitted.offset = original.source_offset
            entry = entries[i]
            if entry is None:
                if per_record_commit:
                    self._commit_record(original, None)
                counter.skip()
                continue
            acks.remaining += 1
            callback: Any = acks
            if per_record_commit:
                callback = partial(acks.with_record, original)
            elif batch_commit:
                collected = acks.records
                assert collected is not None and acks.offsets is not None
                index = len(collected)
                collected.append(original)
                acks.offsets.append(-1)
                p = entry[1]
                if p is not None and p >= 0:
                    dkey = (id(acks), entry[0], p)
                    callback = destinations.get(dkey)
                    if callback is None:
                        callback = destinations[dkey] = DestinationAcks(acks)
                    callback.indexes.append(index)
                else:
                    callback = partial(acks.with_index, index)
            out[i] = (*entry, callback, acks)
        for acks in acks_by_partition.values():
            if acks.remaining == 0:
                acks.submitted.ack()
        return out

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

    # -- delivery ------------------------------------------------------------------------------

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

    def _tolerate_produce_failure(self, record: SourceRecord, error: KafkaClientError) -> None:
        ctx = ProcessingContext(source_record=record)
        self.operator.execute_failed(ctx, Stage.KAFKA_PRODUCE, WORKER_SOURCE_TASK_CLASS, error)

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
        duration = self.clock.monotonic_ms() - started
        if ok:
            self.metrics.task.record_commit_success(duration)
        else:
            self.metrics.task.record_commit_failure(duration)
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
