"""An exactly-once source task's commit overlapping the next batch's poll, with an in-memory
transactional producer: batch N's transaction commits on the committer thread while the task
thread polls and converts batch N+1, and nothing of N+1 reaches the producer (or N's
transaction) before N's commit is settled -- a failed commit fails the task first."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from kconnect.api import RecordMetadata, SourceRecord, SourceTask
from kconnect.converters.simple_header_converter import SimpleHeaderConverter
from kconnect.converters.string_converter import StringConverter
from kconnect.kafka.clients.errors import KafkaClientError
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SourceConnectorConfig
from kconnect.runtime.storage.transactional_offset_store import TransactionalOffsetStore
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.exactly_once_source_task import (
    ExactlyOncePreflight,
    ExactlyOnceWorkerSourceTask,
)
from kconnect.runtime.worker.worker_task import CommitSettings, TaskPlugins, TaskServices
from kconnect.testing.fakes import RecordingStatusListener

OFFSETS_TOPIC = "offsets"
TASK_THREAD = "task-thread-c-0"
WAIT_S = 10.0


class Msg:
    def __init__(self, topic: str, offset: int) -> None:
        self._topic, self._offset = topic, offset

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return (1, 0)


class TxProducer:
    """A transactional producer in memory. ``produce`` adds to the open transaction;
    ``commit_transaction`` (any thread) first runs ``before_commit[n]`` for the n-th commit
    (1-based; a test blocks or fails a commit there), then serves every delivery callback of
    the transaction and commits it. Calls that must not overlap a commit in flight -- or
    come from another thread than the one committing -- are noted in ``violations``."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.open: list[tuple[str, Any, Any, Any]] | None = None
        self.committed: list[list[tuple[str, Any, Any]]] = []
        self.aborted: list[list[tuple[str, Any, Any]]] = []
        self.produced: list[Any] = []
        self.before_commit: dict[int, Callable[[], None]] = {}
        self.commit_started: dict[int, threading.Event] = {}
        self.commits = 0
        self.committing = False
        self.violations: list[str] = []
        self.next_offset = 0

    def _check(self, what: str) -> None:
        if self.committing:
            self.violations.append(f"{what} during a commit")

    def init_transactions(self, timeout: float) -> None:
        self.log.append("init")

    def begin_transaction(self) -> None:
        self._check("begin_transaction")
        if self.open is not None:
            self.violations.append("begin_transaction with a transaction open")
        self.open = []
        self.log.append("begin")

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
        self._check("produce")
        if self.open is None:
            self.violations.append("produce outside a transaction")
            return
        self.open.append((topic, key, value, on_delivery))
        self.produced.append(value)

    def poll(self, timeout: float = 0.0) -> int:
        self._check("poll")
        if timeout:
            threading.Event().wait(min(timeout, 0.01))
        return 0

    def flush(self, timeout: float) -> int:
        self._check("flush")
        return 0

    def commit_transaction(self, timeout: float) -> None:
        self._check("commit_transaction")
        self.commits += 1
        n = self.commits
        self.committing = True
        self.log.append(f"commit-start {n}")
        self.commit_started.setdefault(n, threading.Event()).set()
        try:
            hook = self.before_commit.get(n)
            if hook is not None:
                hook()
            txn = self.open or []
            for topic, _key, _value, callback in txn:
                if callback is not None:
                    self.next_offset += 1
                    callback(None, Msg(topic, self.next_offset))
            self.committed.append([(t, k, v) for t, k, v, _ in txn])
            self.open = None
        finally:
            self.committing = False
            self.log.append(f"commit-end {n}")

    def abort_transaction(self, timeout: float) -> None:
        self._check("abort_transaction")
        self.aborted.append([(t, k, v) for t, k, v, _ in self.open or []])
        self.open = None
        self.log.append("abort")

    def close(self, timeout: float = 0.0) -> None:
        self._check("close")
        self.log.append("close")

    def started(self, n: int) -> threading.Event:
        return self.commit_started.setdefault(n, threading.Event())


class NoReader:
    """The offsets topic's reader: nothing was committed before."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def read_to_end(self, timeout: float) -> None:
        pass


class ScriptedSource(SourceTask):
    """Returns the scripted batches (then nothing). ``entered[k]`` is set when the k-th poll
    (0-based) begins; ``hold[k]``, when given, is waited for before it returns."""

    def __init__(self, batches: list[list[SourceRecord]], polls: int = 8) -> None:
        self.batches = list(batches)
        self.entered = [threading.Event() for _ in range(polls)]
        self.hold: dict[int, threading.Event] = {}
        self.calls = 0
        self.events: list[tuple[str, str]] = []
        self.stopped = threading.Event()

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> Sequence[SourceRecord] | None:
        k = self.calls
        self.calls += 1
        if k < len(self.entered):
            self.entered[k].set()
        hold = self.hold.get(k)
        if hold is not None:
            hold.wait(WAIT_S)
        if self.batches:
            return self.batches.pop(0)
        self.stopped.wait(0.005)
        return None

    def commit(self) -> None:
        self.events.append(("commit", threading.current_thread().name))

    def stop(self) -> None:
        self.stopped.set()


class RecordCommittingSource(ScriptedSource):
    def __init__(self, batches: list[list[SourceRecord]], producer: TxProducer) -> None:
        super().__init__(batches)
        self.producer = producer
        self.committed: list[tuple[Any, int | None, int, str]] = []

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        # the value, its Kafka offset, how many transactions had committed, the thread
        self.committed.append(
            (
                record.value,
                metadata.offset if metadata is not None else None,
                len(self.producer.committed),
                threading.current_thread().name,
            )
        )


class RecordsCommittingSource(ScriptedSource):
    def __init__(self, batches: list[list[SourceRecord]], producer: TxProducer) -> None:
        super().__init__(batches)
        self.producer = producer
        self.groups: list[tuple[list[Any], list[int], int, str]] = []

    def commit_records(self, records: Sequence[SourceRecord], offsets: Sequence[int]) -> None:
        self.groups.append(
            (
                [r.value for r in records],
                list(offsets),
                len(self.producer.committed),
                threading.current_thread().name,
            )
        )


def records(first: int, n: int) -> list[SourceRecord]:
    return [SourceRecord({"p": 1}, {"n": i}, "out", value=f"v{i}") for i in range(first, first + n)]


def eos_task(
    source: SourceTask, producer: TxProducer, listener: RecordingStatusListener
) -> ExactlyOnceWorkerSourceTask:
    props = {"name": "c", "connector.class": "Scripted", "transaction.boundary": "poll"}
    hc = SimpleHeaderConverter()
    hc.configure({})
    kc, vc = StringConverter(), StringConverter()
    kc.configure({}, True)
    vc.configure({}, False)
    store = TransactionalOffsetStore(OFFSETS_TOPIC, producer, NoReader())  # type: ignore[arg-type]
    return ExactlyOnceWorkerSourceTask(
        ConnectorTaskId("c", 0),
        source,
        props,
        SourceConnectorConfig(props),
        TargetState.STARTED,
        TaskServices(listener),
        TaskPlugins(kc, vc, hc),
        RetryWithToleranceOperator(),
        producer,  # type: ignore[arg-type]
        offset_store=store,
        topic_creation=None,
        commit=CommitSettings(interval_ms=60_000, timeout_ms=5_000),
        preflight=ExactlyOncePreflight(lambda: None, lambda: None),
        transaction_timeout_ms=60_000,
    )


def values(txn: list[tuple[str, Any, Any]]) -> list[Any]:
    return [v.decode() for t, _, v in txn if t == "out"]


def offsets(txn: list[tuple[str, Any, Any]]) -> list[int]:
    return [orjson.loads(v)["n"] for t, _, v in txn if t == OFFSETS_TOPIC]


def wait_for(condition: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(int(WAIT_S / 0.005)):
        if condition():
            return
        done.wait(0.005)
    raise AssertionError("condition not reached")


def run_until(wt: ExactlyOnceWorkerSourceTask, condition: Callable[[], bool]) -> None:
    wt.start()
    try:
        wait_for(condition)
    finally:
        wt.stop()
        assert wt.await_stop(WAIT_S)


def test_the_next_batch_is_polled_during_the_commit_and_goes_into_the_next_transaction() -> None:
    producer = TxProducer()
    source = ScriptedSource([records(0, 3), records(3, 2)])
    overlapped: list[bool] = []
    # the first commit finishes only once the task thread is polling the next batch
    producer.before_commit[1] = lambda: overlapped.append(source.entered[1].wait(WAIT_S))
    listener = RecordingStatusListener()
    wt = eos_task(source, producer, listener)

    run_until(wt, lambda: len(producer.committed) >= 2)

    assert overlapped == [True]
    assert [values(t) for t in producer.committed[:2]] == [["v0", "v1", "v2"], ["v3", "v4"]]
    # each batch's offsets went into its own transaction
    assert [offsets(t) for t in producer.committed[:2]] == [[2], [4]]
    assert producer.violations == []
    assert listener.calls == ["startup", "shutdown"]
    # SourceTask.commit after each commit, on the task thread
    assert source.events[:2] == [("commit", TASK_THREAD)] * 2


def test_a_commit_that_fails_while_the_next_batch_is_prepared_fails_the_task_first() -> None:
    producer = TxProducer()
    source = ScriptedSource([records(0, 3), records(3, 2)])

    def fail() -> None:
        assert source.entered[1].wait(WAIT_S)
        raise KafkaClientError("the broker said no")

    producer.before_commit[1] = fail
    listener = RecordingStatusListener()
    wt = eos_task(source, producer, listener)
    wt.start()
    assert wt.await_stop(WAIT_S)

    error = listener.failure(ConnectorTaskId("c", 0))
    assert error is not None
    assert "Failed to flush offsets and/or records for task c-0" in str(error)
    assert "the broker said no" in str(error)
    # the second batch was polled but never reached the producer
    assert source.calls >= 2
    assert b"v0" in producer.produced
    assert b"v3" not in producer.produced and b"v4" not in producer.produced
    assert producer.committed == []
    assert producer.violations == []
    assert source.events == []  # no SourceTask.commit for a failed transaction


def test_stop_during_an_in_flight_commit_waits_for_it() -> None:
    producer = TxProducer()
    source = ScriptedSource([records(0, 2)])
    release = threading.Event()
    producer.before_commit[1] = lambda: release.wait(WAIT_S)
    listener = RecordingStatusListener()
    wt = eos_task(source, producer, listener)
    wt.start()
    assert producer.started(1).wait(WAIT_S)
    wt.stop()
    # the task thread cannot end while the commit is blocked
    assert not wt.await_stop(0.2)
    release.set()
    assert wt.await_stop(WAIT_S)

    assert [values(t) for t in producer.committed] == [["v0", "v1"]]
    assert [offsets(t) for t in producer.committed] == [[1]]
    # the producer is closed only after the commit in flight ended
    assert producer.log.index("commit-end 1") < producer.log.index("close")
    assert producer.violations == []
    assert listener.calls == ["startup", "shutdown"]
    assert ("commit", TASK_THREAD) in source.events


def test_commit_record_comes_after_the_commit_on_the_task_thread() -> None:
    producer = TxProducer()
    source = RecordCommittingSource([records(0, 2), records(2, 1)], producer)
    producer.before_commit[1] = lambda: source.entered[1].wait(WAIT_S)
    listener = RecordingStatusListener()
    wt = eos_task(source, producer, listener)

    run_until(wt, lambda: len(source.committed) >= 3)

    assert [values(t) for t in producer.committed] == [["v0", "v1"], ["v2"]]
    # every record with its offset, once its own transaction committed, on the task thread
    assert source.committed == [
        ("v0", 1, 1, TASK_THREAD),
        ("v1", 2, 1, TASK_THREAD),
        ("v2", 4, 2, TASK_THREAD),
    ]
    assert producer.violations == []


def test_commit_records_comes_after_the_commit_on_the_task_thread() -> None:
    producer = TxProducer()
    source = RecordsCommittingSource([records(0, 2), records(2, 2)], producer)
    producer.before_commit[1] = lambda: source.entered[1].wait(WAIT_S)
    listener = RecordingStatusListener()
    wt = eos_task(source, producer, listener)

    run_until(wt, lambda: len(source.groups) >= 2)

    assert source.groups == [
        (["v0", "v1"], [1, 2], 1, TASK_THREAD),
        (["v2", "v3"], [4, 5], 2, TASK_THREAD),
    ]
    assert producer.violations == []


def test_records_without_commit_hooks_are_sent_without_delivery_callbacks() -> None:
    producer = TxProducer()
    source = ScriptedSource([records(0, 3)])
    listener = RecordingStatusListener()
    wt = eos_task(source, producer, listener)
    sent_callbacks: list[Any] = []
    produce = producer.produce

    def spy(*args: Any, **kwargs: Any) -> None:
        if args and args[0] == "out":
            sent_callbacks.append(args[6] if len(args) > 6 else kwargs.get("on_delivery"))
        produce(*args, **kwargs)

    producer.produce = spy  # type: ignore[method-assign]
    run_until(wt, lambda: len(producer.committed) >= 1)

    assert sent_callbacks == [None, None, None]
    # ... and still counted as written once their transaction committed (polled records are
    # active until written)
    assert wt._source_metrics._active_count == 0
