"""The at-least-once source task loop with an in-memory producer: each commit mode hears of
its records as documented (offsets only, ``commit_record``, ``commit_records``), a full
producer queue resumes the batch where it stopped, and a refused record is skipped under
``errors.tolerance=all`` without holding back the offsets."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect.api import RecordMetadata, SourceRecord, SourceTask
from kconnect.converters.simple_header_converter import SimpleHeaderConverter
from kconnect.converters.string_converter import StringConverter
from kconnect.kafka.clients.errors import KafkaClientError
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SourceConnectorConfig, ToleranceType
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import MemoryOffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.worker_source_task import WorkerSourceTask
from kconnect.runtime.worker.worker_task import CommitSettings, TaskPlugins, TaskServices
from kconnect.testing.fakes import RecordingStatusListener
from tests.unit.runtime.worker.test_source_acks import Msg

TASK_THREAD = "task-thread-c-0"
WAIT_S = 10.0


class QueueProducer:
    """Queues what is produced; ``poll``/``flush`` deliver everything queued (offsets count
    up per Kafka partition). ``refuse`` holds values refused for good; ``full_at`` makes the
    n-th produce call raise BufferError once."""

    def __init__(self, refuse: set[bytes] = frozenset(), full_at: int | None = None) -> None:  # type: ignore[assignment]
        self.queue: list[tuple[str, int, Any, Any]] = []
        self.sent: list[Any] = []
        self.refuse = refuse
        self.full_at = full_at
        self.calls = 0
        self.full_raised = 0
        self.next_offset: dict[int, int] = {}

    def produce(
        self,
        topic: str,
        value: Any,
        key: Any = None,
        partition: Any = None,
        timestamp: Any = None,
        headers: Any = None,
        on_delivery: Any = None,
    ) -> None:
        self.calls += 1
        if self.calls == self.full_at:
            self.full_raised += 1
            raise BufferError("queue full")
        if value in self.refuse:
            raise KafkaClientError("record too large", "MSG_SIZE_TOO_LARGE")
        self.queue.append((topic, partition if partition is not None else 0, value, on_delivery))
        self.sent.append(value)

    def poll(self, timeout: float = 0.0) -> int:
        queued, self.queue = self.queue, []
        for topic, p, _, callback in queued:
            offset = self.next_offset.get(p, 0)
            self.next_offset[p] = offset + 1
            if callback is not None:
                callback(None, Msg(topic, p, offset))
        if not queued and timeout:
            threading.Event().wait(min(timeout, 0.01))
        return len(queued)

    def flush(self, timeout: float) -> int:
        self.poll(0)
        return 0

    def close(self, timeout: float = 0.0) -> None:
        self.flush(timeout)


class ScriptedSource(SourceTask):
    def __init__(self, batches: list[list[SourceRecord]]) -> None:
        self.batches = list(batches)
        self.stopped = threading.Event()

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> Sequence[SourceRecord] | None:
        if self.batches:
            return self.batches.pop(0)
        self.stopped.wait(0.005)
        return None

    def stop(self) -> None:
        self.stopped.set()


class RecordSource(ScriptedSource):
    def __init__(self, batches: list[list[SourceRecord]]) -> None:
        super().__init__(batches)
        self.committed: list[tuple[Any, int | None, str]] = []

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        offset = metadata.offset if metadata is not None else None
        self.committed.append((record.value, offset, threading.current_thread().name))


class RecordsSource(ScriptedSource):
    def __init__(self, batches: list[list[SourceRecord]]) -> None:
        super().__init__(batches)
        self.groups: list[tuple[Any, list[Any], list[int]]] = []

    def commit_records(self, records: Sequence[SourceRecord], offsets: Sequence[int]) -> None:
        self.groups.append((records[0].source_partition, [r.value for r in records], list(offsets)))


def records(
    first: int, n: int, partition: int = 1, kafka_partition: int | None = None
) -> list[SourceRecord]:
    return [
        SourceRecord({"p": partition}, {"n": i}, "out", kafka_partition, value=f"v{i}")
        for i in range(first, first + n)
    ]


def source_task(
    source: SourceTask,
    producer: QueueProducer,
    store: MemoryOffsetBackingStore,
    tolerance: ToleranceType = ToleranceType.NONE,
) -> WorkerSourceTask:
    props = {"name": "c", "connector.class": "Scripted"}
    hc = SimpleHeaderConverter()
    hc.configure({})
    kc, vc = StringConverter(), StringConverter()
    kc.configure({}, True)
    vc.configure({}, False)
    return WorkerSourceTask(
        ConnectorTaskId("c", 0),
        source,
        props,
        SourceConnectorConfig(props),
        TargetState.STARTED,
        TaskServices(RecordingStatusListener()),
        TaskPlugins(kc, vc, hc),
        RetryWithToleranceOperator(tolerance=tolerance),
        producer,  # type: ignore[arg-type]
        offset_reader=OffsetStorageReaderImpl(store, "c"),
        offset_writer=OffsetStorageWriter(store, "c"),
        topic_creation=None,
        commit=CommitSettings(interval_ms=60_000, timeout_ms=5_000),
    )


def run_until(wt: WorkerSourceTask, condition: Callable[[], bool]) -> None:
    wt.start()
    try:
        for _ in range(int(WAIT_S / 0.005)):
            if condition():
                break
            threading.Event().wait(0.005)
        else:
            raise AssertionError("condition not reached")
    finally:
        wt.stop()
        assert wt.await_stop(WAIT_S)


def committed_offset(store: MemoryOffsetBackingStore, partition: int) -> Any:
    reader = OffsetStorageReaderImpl(store, "c")
    return reader.offset({"p": partition})


def test_offsets_only_tasks_get_their_offsets_committed_once_delivered() -> None:
    producer = QueueProducer()
    store = MemoryOffsetBackingStore()
    wt = source_task(ScriptedSource([records(0, 3), records(3, 2)]), producer, store)

    run_until(wt, lambda: len(producer.sent) >= 5)

    assert producer.sent == [b"v0", b"v1", b"v2", b"v3", b"v4"]
    assert committed_offset(store, 1) == {"n": 4}
    assert wt._source_metrics._active_count == 0


def test_commit_record_gets_each_record_with_its_metadata_on_the_task_thread() -> None:
    producer = QueueProducer()
    source = RecordSource([records(0, 3)])
    wt = source_task(source, producer, MemoryOffsetBackingStore())

    run_until(wt, lambda: len(source.committed) >= 3)

    assert source.committed == [
        ("v0", 0, TASK_THREAD),
        ("v1", 1, TASK_THREAD),
        ("v2", 2, TASK_THREAD),
    ]


def test_commit_records_gets_one_call_per_source_partition_with_the_offsets() -> None:
    producer = QueueProducer()
    source = RecordsSource(
        [records(0, 2, partition=1, kafka_partition=0) + records(2, 2, partition=2)]
    )
    wt = source_task(source, producer, MemoryOffsetBackingStore())

    run_until(wt, lambda: len(source.groups) >= 2)

    assert sorted(source.groups, key=lambda g: g[0]["p"]) == [
        ({"p": 1}, ["v0", "v1"], [0, 1]),
        ({"p": 2}, ["v2", "v3"], [2, 3]),
    ]


def test_a_full_queue_resumes_the_batch_where_it_stopped() -> None:
    producer = QueueProducer(full_at=2)
    store = MemoryOffsetBackingStore()
    wt = source_task(ScriptedSource([records(0, 4)]), producer, store)

    run_until(wt, lambda: len(producer.sent) >= 4)

    assert producer.full_raised == 1
    assert producer.sent == [b"v0", b"v1", b"v2", b"v3"]
    assert committed_offset(store, 1) == {"n": 3}


def test_a_refused_record_is_skipped_under_tolerance_all_and_does_not_hold_offsets() -> None:
    producer = QueueProducer(refuse={b"v1"})
    store = MemoryOffsetBackingStore()
    source = RecordsSource([records(0, 3, kafka_partition=0)])
    wt = source_task(source, producer, store, ToleranceType.ALL)

    run_until(wt, lambda: len(source.groups) >= 1)

    assert producer.sent == [b"v0", b"v2"]
    assert source.groups == [({"p": 1}, ["v0", "v1", "v2"], [0, -1, 1])]
    assert committed_offset(store, 1) == {"n": 2}
    assert wt._source_metrics._active_count == 0


class SlowStartSource(ScriptedSource):
    """start() waits for ``release``; every plugin call is logged with its thread."""

    def __init__(self) -> None:
        super().__init__([])
        self.starting = threading.Event()
        self.release = threading.Event()
        self.calls: list[tuple[str, str]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self.calls.append(("start", threading.current_thread().name))
        self.starting.set()
        assert self.release.wait(WAIT_S)
        self.calls.append(("started", threading.current_thread().name))

    def stop(self) -> None:
        self.calls.append(("stop", threading.current_thread().name))
        super().stop()


def test_a_stop_requested_during_start_reaches_the_task_once_start_returned() -> None:
    # As in Kafka Connect, SourceTask.stop() never runs while start() does: a task may free
    # in stop() what its start() is still using (the JDBC source's connection).
    source = SlowStartSource()
    wt = source_task(source, QueueProducer(), MemoryOffsetBackingStore())
    wt.start()
    assert source.starting.wait(WAIT_S)
    wt.stop()
    assert source.calls == [("start", TASK_THREAD)]
    source.release.set()
    assert wt.await_stop(WAIT_S)
    assert source.calls == [("start", TASK_THREAD), ("started", TASK_THREAD), ("stop", TASK_THREAD)]


class PollingSource(ScriptedSource):
    """poll() blocks until stop(), telling the test when it began."""

    def __init__(self) -> None:
        super().__init__([])
        self.polling = threading.Event()
        self.stop_thread: str | None = None

    def poll(self) -> Sequence[SourceRecord] | None:
        self.polling.set()
        self.stopped.wait(WAIT_S)
        return None

    def stop(self) -> None:
        self.stop_thread = threading.current_thread().name
        super().stop()


def test_a_stop_requested_while_polling_interrupts_the_poll_from_the_stopping_thread() -> None:
    source = PollingSource()
    wt = source_task(source, QueueProducer(), MemoryOffsetBackingStore())
    wt.start()
    assert source.polling.wait(WAIT_S)
    stopper = threading.Thread(target=wt.stop, name="stopper")
    stopper.start()
    stopper.join(WAIT_S)
    assert wt.await_stop(WAIT_S)
    assert source.stop_thread == "stopper"


class WaitingSource(ScriptedSource):
    """Polls that wait (as FileStreamSource's 1 s at the end of its file), counted."""

    def __init__(self, batches: list[list[SourceRecord]]) -> None:
        super().__init__(batches)
        self.empty_polls = 0

    def poll(self) -> Sequence[SourceRecord] | None:
        if self.batches:
            return self.batches.pop(0)
        self.empty_polls += 1
        self.stopped.wait(0.02)  # past IDLE_POLL_S: this poll waited itself
        return None


class CountingProducer(QueueProducer):
    def __init__(self) -> None:
        super().__init__()
        self.polls = 0

    def poll(self, timeout: float = 0.0) -> int:
        self.polls += 1
        return super().poll(timeout)


def test_an_idle_task_whose_polls_wait_leaves_the_producer_alone() -> None:
    """Once its records are delivered, a task whose polls wait serves its producer every
    IDLE_SERVE_S, not after each empty poll: a thousand idle tasks sharing producers woke them a
    thousand times a second for nothing."""
    producer = CountingProducer()
    source = WaitingSource([records(0, 2)])
    store = MemoryOffsetBackingStore()
    wt = source_task(source, producer, store)

    run_until(wt, lambda: source.empty_polls >= 15)

    assert producer.sent == [b"v0", b"v1"] and committed_offset(store, 1) is not None
    # the batch's poll, the first idle serve; then nothing for IDLE_SERVE_S (>> 15 x 20 ms),
    # besides the stop's own flush and commit
    assert producer.polls <= 4, producer.polls
