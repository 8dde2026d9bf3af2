"""MockSource/SinkConnector (failures on purpose) and SchemaSourceConnector (fixed Structs)."""

from __future__ import annotations

import time

import pytest

from kconnect.api import ConnectException, Schema
from kconnect.api.data.java_numbers import to_float32
from kconnect.connectors.tools.mock_connector import MockConnector
from kconnect.connectors.tools.mock_sink_connector import MockSinkConnector
from kconnect.connectors.tools.mock_sink_task import MockSinkTask
from kconnect.connectors.tools.mock_source_connector import MockSourceConnector
from kconnect.connectors.tools.mock_source_task import MockSourceTask
from kconnect.connectors.tools.schema_source_connector import SchemaSourceConnector
from kconnect.connectors.tools.schema_source_task import (
    VALUE_SCHEMA,
    VALUE_SCHEMA_2,
    SchemaSourceTask,
)
from kconnect.testing.fakes import (
    FakeConnectorContext,
    FakeSinkTaskContext,
    FakeSourceTaskContext,
    MemoryOffsetReader,
)


@pytest.mark.parametrize("cls", [MockSourceConnector, MockSinkConnector])
def test_connector_failure_is_raised_after_the_delay(cls: type) -> None:
    ctx = FakeConnectorContext()
    c = cls()
    c.initialize(ctx)
    c.start({"name": "m", "mock_mode": "connector-failure", "delay_ms": "50", "tasks.max": "3"})
    # one task whatever tasks.max says, with the connector's config
    assert c.task_configs(3) == [
        {"name": "m", "mock_mode": "connector-failure", "delay_ms": "50", "tasks.max": "3"}
    ]
    deadline = time.monotonic() + 5
    while not ctx.errors and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [type(e) for e in ctx.errors] == [RuntimeError]
    c.stop()
    assert c.config().config_keys() == {}


def test_stopped_before_the_delay_never_fails() -> None:
    ctx = FakeConnectorContext()
    c = MockSinkConnector()
    c.initialize(ctx)
    c.start({"mock_mode": "connector-failure", "delay_ms": "100"})
    c.stop()
    time.sleep(0.2)
    assert ctx.errors == []


def test_other_modes_do_nothing() -> None:
    ctx = FakeConnectorContext()
    c = MockSourceConnector()
    c.initialize(ctx)
    c.start({"mock_mode": "task-failure", "delay_ms": "0"})
    time.sleep(0.05)
    c.stop()
    assert ctx.errors == []
    assert MockSourceConnector().task_class() is MockSourceTask
    assert MockSinkConnector().task_class() is MockSinkTask
    with pytest.raises(NotImplementedError):
        MockConnector().task_class()


def test_task_failure_after_the_delay() -> None:
    source = MockSourceTask()
    source.initialize(FakeSourceTaskContext())
    source.start({"mock_mode": "task-failure", "delay_ms": "100"})
    assert source.poll() == []
    sink_ctx = FakeSinkTaskContext()
    sink = MockSinkTask()
    sink.initialize(sink_ctx)
    sink.start({"mock_mode": "task-failure", "delay_ms": "100"})
    sink.put([])
    assert sink_ctx.timeouts == [100, 100]  # min(delay, 250), at start and every put
    time.sleep(0.15)
    with pytest.raises(RuntimeError):
        source.poll()
    with pytest.raises(RuntimeError):
        sink.put([])
    quiet = MockSourceTask()
    quiet.start({"delay_ms": "0"})
    assert quiet.poll() == []


def test_bad_delay_fails_the_start() -> None:
    with pytest.raises(ValueError):
        MockSinkTask().start({"mock_mode": "task-failure", "delay_ms": "soon"})


def _schema_task(props: dict[str, str], reader: MemoryOffsetReader | None = None):
    task = SchemaSourceTask()
    task.initialize(FakeSourceTaskContext(reader=reader))
    task.start(props)
    return task


def test_schema_source(capsys: pytest.CaptureFixture[str]) -> None:
    c = SchemaSourceConnector()
    c.start({"name": "s", "topic": "t"})
    assert [cfg["id"] for cfg in c.task_configs(2)] == ["0", "1"]
    reader = MemoryOffsetReader()
    reader.put({"id": 1}, {"seqno": 9})
    props = {
        "name": "s", "id": "1", "topic": "t", "num.messages": "3", "throughput": "-1",
        "multiple.schema": "true", "partition.count": "4",
    }  # fmt: skip
    task = _schema_task(props, reader)
    records = [r for _ in range(3) for r in task.poll()]
    assert [r.source_offset for r in records] == [{"seqno": 10}, {"seqno": 11}, {"seqno": 12}]
    assert [r.value_schema for r in records] == [VALUE_SCHEMA, VALUE_SCHEMA_2, VALUE_SCHEMA]
    first = records[0]
    assert (first.kafka_partition, first.key_schema, first.key) == (1, Schema.STRING_SCHEMA, "key")
    assert first.value.get("float") == to_float32(12.2)
    assert first.value.get("partitioning") == 10 % 4
    assert records[1].value.get("string") == "def"
    assert VALUE_SCHEMA_2.field("string").schema.default_value == "abc"
    assert capsys.readouterr().out.splitlines() == [
        '{"task": 1, "seqno": 10}',
        '{"task": 1, "seqno": 11}',
        '{"task": 1, "seqno": 12}',
    ]
    task.stop()
    assert task.poll() == []  # num.messages sent; stop woke the throttler


def test_schema_source_bad_settings() -> None:
    with pytest.raises(ConnectException, match="Invalid SchemaSourceTask configuration"):
        _schema_task({"id": "0", "throughput": "1"})  # num.messages missing
