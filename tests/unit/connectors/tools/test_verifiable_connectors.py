"""VerifiableSource/SinkConnector: task configs, records, offsets and the exact JSON lines
Kafka's tasks print (keys in HashMap order, Jackson's compact form)."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from kconnect.api import (
    ConnectException,
    RecordMetadata,
    Schema,
    SinkRecord,
    Struct,
    TopicPartition,
)
from kconnect.connectors.tools.throughput_throttler import ThroughputThrottler
from kconnect.connectors.tools.verifiable_sink_connector import VerifiableSinkConnector
from kconnect.connectors.tools.verifiable_sink_task import VerifiableSinkTask
from kconnect.connectors.tools.verifiable_source_connector import VerifiableSourceConnector
from kconnect.connectors.tools.verifiable_source_task import (
    COMPLETE_VALUE_SCHEMA,
    VerifiableSourceTask,
)
from kconnect.testing.fakes import (
    FakeSinkTaskContext,
    FakeSourceTaskContext,
    MemoryOffsetReader,
)


def _source_task(props: dict[str, str], reader: MemoryOffsetReader | None = None):
    task = VerifiableSourceTask()
    task.initialize(FakeSourceTaskContext(reader=reader))
    task.start(props)
    return task


def _lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_connector_gives_each_task_its_id() -> None:
    c = VerifiableSourceConnector()
    c.start({"name": "vs", "topic": "t", "throughput": "10"})
    assert c.task_configs(2) == [
        {"name": "vs", "topic": "t", "throughput": "10", "id": "0"},
        {"name": "vs", "topic": "t", "throughput": "10", "id": "1"},
    ]
    assert c.task_class() is VerifiableSourceTask
    assert c.config().config_keys() == {}
    assert c.exactly_once_support({}) is None  # as Kafka's: not declared
    s = VerifiableSinkConnector()
    s.start({"name": "vk", "topics": "t"})
    assert [cfg["id"] for cfg in s.task_configs(3)] == ["0", "1", "2"]
    assert s.task_class() is VerifiableSinkTask


def test_source_records_and_printed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    task = _source_task({"name": "vs", "id": "1", "topic": "t", "throughput": "-1"})
    first, second = task.poll()[0], task.poll()[0]
    assert (first.source_partition, first.source_offset) == ({"id": 1}, {"seqno": 0})
    assert (first.key_schema, first.key) == (Schema.INT32_SCHEMA, 1)
    assert (first.value_schema, first.value, first.topic) == (Schema.INT64_SCHEMA, 0, "t")
    assert first.kafka_partition is None
    assert second.source_offset == {"seqno": 1}
    task.commit_record(first, RecordMetadata("t", 0, 5))
    sent0, sent1, committed = _lines(capsys)
    # Kafka's line for the same HashMap: {"task":1,"seqno":0,"time_ms":...,"name":"vs","topic":"t"}
    assert re.fullmatch(r'\{"task":1,"seqno":0,"time_ms":\d+,"name":"vs","topic":"t"\}', sent0)
    assert json.loads(sent1)["seqno"] == 1
    assert re.fullmatch(
        r'\{"committed":true,"task":1,"seqno":0,"time_ms":\d+,"name":"vs","topic":"t"\}',
        committed,
    )


def test_source_resumes_after_the_committed_seqno(capsys: pytest.CaptureFixture[str]) -> None:
    reader = MemoryOffsetReader()
    reader.put({"id": 0}, {"seqno": 41})
    task = _source_task({"name": "vs", "id": "0", "topic": "t", "throughput": "-1"}, reader)
    assert task.poll()[0].value == 42


def test_complete_record_data(capsys: pytest.CaptureFixture[str]) -> None:
    task = _source_task(
        {"name": "vs", "id": "0", "topic": "t", "throughput": "-1", "complete.record.data": "TRUE"}
    )
    record = task.poll()[0]
    assert record.value_schema == COMPLETE_VALUE_SCHEMA
    assert isinstance(record.value, Struct)
    assert (record.value.get("name"), record.value.get("seqno")) == ("vs", 0)
    task.commit_record(record, None)
    # Jackson cannot serialize a Struct: Kafka prints its error instead of the line
    assert _lines(capsys)[1] == (
        "Bad data can't be written as json: No serializer found for class "
        "org.apache.kafka.connect.data.Struct and no properties discovered to create "
        "BeanSerializer (to avoid exception, disable SerializationFeature.FAIL_ON_EMPTY_BEANS) "
        '(through reference chain: java.util.HashMap["seqno"])'
    )


@pytest.mark.parametrize("bad", [{"id": "x"}, {"id": " 1"}, {"throughput": "1.5"}, {"id": None}])
def test_bad_settings_fail_as_kafka_does(bad: dict[str, str | None]) -> None:
    props = {"name": "vs", "id": "0", "topic": "t", "throughput": "1", **bad}
    props = {k: v for k, v in props.items() if v is not None}
    with pytest.raises(ConnectException, match="Invalid VerifiableSourceTask configuration"):
        _source_task(props)


def test_source_is_throttled_and_stop_wakes_it() -> None:
    task = _source_task({"name": "vs", "id": "0", "topic": "t", "throughput": "0"})
    task.poll()  # nothing sent yet: never throttled
    time.sleep(0.01)
    done = threading.Event()

    def second_poll() -> None:
        task.poll()
        done.set()

    threading.Thread(target=second_poll, daemon=True).start()
    assert not done.wait(0.2)  # a throughput of 0 blocks until stop
    task.stop()
    assert done.wait(5)


def test_throttler_keeps_the_rate() -> None:
    t = ThroughputThrottler(100, 0)
    assert not t.should_throttle(10, 0)  # no time elapsed yet
    assert t.should_throttle(101, 1000)
    assert not t.should_throttle(100, 1000)
    assert not ThroughputThrottler(-1, 0).should_throttle(10**9, 1)
    started = time.monotonic()
    t.throttle()  # 10 ms of deficit
    assert time.monotonic() - started >= 0.009


def test_sink_prints_received_then_flushed(capsys: pytest.CaptureFixture[str]) -> None:
    task = VerifiableSinkTask()
    task.initialize(FakeSinkTaskContext())
    task.start({"name": "vk", "id": "2", "topics": "t"})
    task.put(
        [
            SinkRecord("t", 0, Schema.INT32_SCHEMA, 1, Schema.INT64_SCHEMA, 7, 100),
            SinkRecord("t", 1, Schema.INT32_SCHEMA, 0, Schema.INT64_SCHEMA, 3, 50),
        ]
    )
    task.flush({TopicPartition("t", 0): 101})
    task.flush({TopicPartition("t", 0): 101})  # nothing left to flush there
    lines = _lines(capsys)
    assert len(lines) == 3
    assert re.fullmatch(
        r'\{"task":1,"seqno":7,"offset":100,"time_ms":\d+,"name":"vk","topic":"t","sinkTask":2\}',
        lines[0],
    )
    assert json.loads(lines[1])["offset"] == 50
    assert re.fullmatch(
        r'\{"task":1,"seqno":7,"offset":100,"time_ms":\d+,"name":"vk","topic":"t",'
        r'"sinkTask":2,"flushed":true\}',
        lines[2],
    )
    task.flush({TopicPartition("t", 1): 51})
    assert json.loads(_lines(capsys)[0]) | {"time_ms": 0} == {
        "task": 0, "seqno": 3, "offset": 50, "time_ms": 0, "name": "vk", "topic": "t",
        "sinkTask": 2, "flushed": True,
    }  # fmt: skip


def test_sink_bad_id() -> None:
    task = VerifiableSinkTask()
    with pytest.raises(ConnectException, match="Invalid VerifiableSourceTask configuration"):
        task.start({"name": "vk", "id": "zero"})
