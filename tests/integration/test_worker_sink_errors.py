"""Sink task error handling against the real broker: redelivery after RetriableException,
dead letter queue for converter and put failures, tolerance none failing the task."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping, Sequence

import pytest

from kconnect.api import ConfigDef, RetriableException, SinkConnector, SinkRecord, SinkTask, Task
from kconnect.kafka.clients.admin import Admin
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.testing.fakes import RecordingStatusListener
from tests.integration.worker_support import (
    make_worker,
    produce,
    read_topic,
    start_connector_and_tasks,
    wait_until,
)

pytestmark = pytest.mark.kafka

# Per-connector-name observations of the test sink tasks.
PUTS: dict[str, list[list[tuple[str, int, int, object]]]] = {}
_LOCK = threading.Lock()


class RecordingSinkTask(SinkTask):
    """Records every non-empty put; ``fail.once`` raises RetriableException on the first one;
    records whose value is ``"bad"`` are reported through the errant record reporter."""

    def start(self, props: Mapping[str, str]) -> None:
        self.name = props["name"]
        self.fail_once = props.get("fail.once") == "true"
        with _LOCK:
            PUTS.setdefault(self.name, [])

    def put(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        with _LOCK:
            PUTS[self.name].append(
                [(r.topic, r.kafka_partition, r.kafka_offset, r.value) for r in records]
            )
        if self.fail_once:
            self.fail_once = False
            self.context.timeout(100)
            raise RetriableException("sink temporarily unavailable")
        reporter = self.context.errant_record_reporter()
        for r in records:
            if r.value == "bad":
                assert reporter is not None
                reporter.report(r, ValueError("cannot write 'bad'"))

    def stop(self) -> None:
        pass


class RecordingSinkConnector(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return RecordingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


def _props(name: str, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": f"{__name__}.RecordingSinkConnector",
        "topics": topic,
        **extra,
    }


def _name() -> str:
    return f"sink-{uuid.uuid4().hex[:8]}"


def test_retriable_exception_redelivers_same_batch(kafka_bootstrap, unique_topic, tmp_path) -> None:
    produce(kafka_bootstrap, unique_topic, [(None, f"v{i}".encode()) for i in range(5)])
    name = _name()
    worker = make_worker(kafka_bootstrap, tmp_path)
    listener = RecordingStatusListener()
    try:
        ids = start_connector_and_tasks(
            worker, name, _props(name, unique_topic, **{"fail.once": "true"}), listener
        )
        wait_until(lambda: sum(len(b) for b in PUTS[name][1:]) >= 5, 20, message="redelivery")
        first = PUTS[name][0]
        redelivered = [r for batch in PUTS[name][1:] for r in batch]
        assert redelivered[: len(first)] == first
        assert [r[2] for r in redelivered] == [0, 1, 2, 3, 4]
        assert listener.failure(ids[0]) is None
    finally:
        worker.stop()


def _dlq_headers(msg) -> dict[str, str]:
    return {k: v.decode() for k, v in (msg.headers() or []) if k.startswith("__connect.errors.")}


def test_converter_failure_goes_to_dlq_with_context_headers(
    kafka_bootstrap, unique_topic, tmp_path
) -> None:
    dlq = f"dlq-{uuid.uuid4().hex[:10]}"
    produce(
        kafka_bootstrap,
        unique_topic,
        [(b"k0", b'"ok0"'), (b"k1", b"{not json"), (b"k2", b'"ok2"')],
        headers=[("orig", b"h")],
    )
    name = _name()
    worker = make_worker(kafka_bootstrap, tmp_path)
    props = _props(
        name,
        unique_topic,
        **{
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
            "errors.log.enable": "true",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    try:
        ids = start_connector_and_tasks(worker, name, props, RecordingStatusListener())
        (msg,) = read_topic(kafka_bootstrap, dlq, 1)
        assert (msg.key(), msg.value()) == (b"k1", b"{not json")
        assert ("orig", b"h") in msg.headers()
        h = _dlq_headers(msg)
        assert h["__connect.errors.topic"] == unique_topic
        assert h["__connect.errors.partition"] == "0"
        assert h["__connect.errors.offset"] == "1"
        assert h["__connect.errors.connector.name"] == name
        assert h["__connect.errors.task.id"] == "0"
        assert h["__connect.errors.stage"] == "VALUE_CONVERTER"
        assert h["__connect.errors.class.name"] == "org.apache.kafka.connect.json.JsonConverter"
        assert (
            h["__connect.errors.exception.class.name"]
            == "org.apache.kafka.connect.errors.DataException"
        )
        assert h["__connect.errors.exception.message"]
        assert "Traceback" in h["__connect.errors.exception.stacktrace"]
        assert list(h) == [
            "__connect.errors.topic",
            "__connect.errors.partition",
            "__connect.errors.offset",
            "__connect.errors.connector.name",
            "__connect.errors.task.id",
            "__connect.errors.stage",
            "__connect.errors.class.name",
            "__connect.errors.exception.class.name",
            "__connect.errors.exception.message",
            "__connect.errors.exception.stacktrace",
        ]
        wait_until(
            lambda: [r[3] for b in PUTS.get(name, []) for r in b] == ["ok0", "ok2"],
            10,
            message="good records put",
        )
        # Offsets move past the skipped record.
        wait_until(
            lambda: (
                worker.connector_offsets(name, props)
                == [
                    {
                        "partition": {"kafka_topic": unique_topic, "kafka_partition": 0},
                        "offset": {"kafka_offset": 3},
                    }
                ]
            ),
            15,
            message="offsets committed",
        )
        assert worker.task_ids() == {ids[0]}
    finally:
        worker.stop()


def test_errant_record_reporter_sends_put_failure_to_dlq(
    kafka_bootstrap, unique_topic, tmp_path
) -> None:
    dlq = f"dlq-{uuid.uuid4().hex[:10]}"
    produce(kafka_bootstrap, unique_topic, [(b"a", b"fine"), (b"b", b"bad"), (b"c", b"fine")])
    name = _name()
    worker = make_worker(kafka_bootstrap, tmp_path)
    props = _props(
        name,
        unique_topic,
        **{
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    try:
        start_connector_and_tasks(worker, name, props, RecordingStatusListener())
        (msg,) = read_topic(kafka_bootstrap, dlq, 1)
        assert (msg.key(), msg.value()) == (b"b", b"bad")
        h = _dlq_headers(msg)
        assert h["__connect.errors.stage"] == "TASK_PUT"
        assert h["__connect.errors.class.name"] == "org.apache.kafka.connect.sink.SinkTask"
        assert h["__connect.errors.exception.class.name"] == "ValueError"
        assert h["__connect.errors.exception.message"] == "cannot write 'bad'"
        assert h["__connect.errors.offset"] == "1"
        assert Admin({"bootstrap.servers": kafka_bootstrap}).topic_partition_counts([dlq]) == {
            dlq: 1
        }
    finally:
        worker.stop()


def test_tolerance_none_fails_task_with_record_location(
    kafka_bootstrap, unique_topic, tmp_path
) -> None:
    produce(
        kafka_bootstrap,
        unique_topic,
        [(None, b'"a"'), (None, b'"b"'), (None, b"oops"), (None, b'"d"')],
    )
    name = _name()
    worker = make_worker(kafka_bootstrap, tmp_path)
    listener = RecordingStatusListener()
    props = _props(
        name,
        unique_topic,
        **{
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        },
    )
    try:
        start_connector_and_tasks(worker, name, props, listener)
        tid = ConnectorTaskId(name, 0)
        error = wait_until(lambda: listener.failure(tid), 20, message="task failure")
        import traceback

        trace = "".join(traceback.format_exception(error))
        assert f"topic '{unique_topic}', partition 0, offset 2" in trace
        assert "Tolerance exceeded in error handler" in trace
        assert "shutdown" not in listener.of(tid)
        committed = worker.connector_offsets(name, props)
        assert all(e["offset"]["kafka_offset"] <= 2 for e in committed), committed
        assert not [r for b in PUTS.get(name, []) for r in b if r[2] >= 2]
    finally:
        worker.stop()
