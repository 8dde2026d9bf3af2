"""WorkerSinkTask's loop with an in-memory consumer: poll timeouts around puts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from confluent_kafka import Message

from kconnect.api import SinkRecord, SinkTask, TopicPartition
from kconnect.converters.simple_header_converter import SimpleHeaderConverter
from kconnect.converters.string_converter import StringConverter
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SinkConnectorConfig
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.worker_sink_task import MAX_POLL_S, WorkerSinkTask
from kconnect.runtime.worker.worker_task import CommitSettings, TaskPlugins, TaskServices
from kconnect.testing.fakes import RecordingStatusListener


class ScriptedConsumer:
    """Returns the scripted batches in order (then nothing) and records each poll timeout."""

    def __init__(self, batches: list[list[Any]]) -> None:
        self.batches = batches
        self.timeouts: list[float] = []

    def subscribe(self, topics: Any, regex: Any, on_assign: Any, on_revoke: Any) -> None:
        on_assign([TopicPartition("t", 0)])

    def consume(self, n: int, timeout: float) -> list[Any]:
        self.timeouts.append(timeout)
        return self.batches.pop(0) if self.batches else []

    def commit(self, *args: Any, **kwargs: Any) -> None:
        pass

    def pause(self, partitions: Any) -> None:
        pass

    def resume(self, partitions: Any) -> None:
        pass

    def close(self) -> None:
        pass


class RecordingTask(SinkTask):
    def __init__(self) -> None:
        self.puts: list[int] = []

    def version(self) -> str:
        return "1"

    def start(self, props: Any) -> None:
        pass

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.puts.append(len(records))

    def stop(self) -> None:
        pass


def messages(first: int, n: int) -> list[Any]:
    return [
        Message(topic="t", partition=0, offset=o, key=None, value=b"v", timestamp=(1, 1))
        for o in range(first, first + n)
    ]


def worker_task(consumer: ScriptedConsumer, task: RecordingTask) -> WorkerSinkTask:
    props = {"name": "c", "connector.class": "Sink", "topics": "t"}
    hc = SimpleHeaderConverter()
    hc.configure({})
    kc, vc = StringConverter(), StringConverter()
    kc.configure({}, True)
    vc.configure({}, False)
    wt = WorkerSinkTask(
        ConnectorTaskId("c", 0),
        task,
        props,
        SinkConnectorConfig(props),
        TargetState.STARTED,
        TaskServices(RecordingStatusListener()),
        TaskPlugins(kc, vc, hc),
        RetryWithToleranceOperator(),
        consumer,  # type: ignore[arg-type]
        commit=CommitSettings(interval_ms=60_000, timeout_ms=5_000),
        errant_reporter_enabled=False,
        max_poll_records=10,
    )
    wt._initialize_and_start()
    return wt


def test_after_a_put_of_records_the_next_poll_does_not_wait() -> None:
    consumer = ScriptedConsumer([messages(0, 3), messages(3, 2)])
    task = RecordingTask()
    wt = worker_task(consumer, task)
    for _ in range(4):
        wt._iteration()
    # A put of records is followed by a poll that only takes what is already fetched, so a
    # task finishing a write at its next put gets that put at once; after an empty put the
    # poll waits again.
    assert task.puts == [3, 2, 0, 0]
    assert consumer.timeouts[0] > 0
    assert consumer.timeouts[1:3] == [0.0, 0.0]
    assert 0 < consumer.timeouts[3] <= MAX_POLL_S
