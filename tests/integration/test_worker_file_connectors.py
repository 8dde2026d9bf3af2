"""Worker + FileStream connectors against the real broker (no herder)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson
import pytest

from kconnect.api import Schema, SourceConnector, SourceRecord, SourceTask, Task
from kconnect.kafka.clients.partitioner import partition_for_key
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.testing.fakes import RecordingStatusListener
from tests.integration.worker_support import (
    make_worker,
    read_topic,
    start_connector_and_tasks,
    wait_until,
)

pytestmark = pytest.mark.kafka


def _source_props(name: str, path, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": topic,
        **extra,
    }


def test_file_source_to_topic_string_bytes_and_resume(
    kafka_bootstrap, unique_topic, tmp_path
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("alpha\nbeta\n")
    worker = make_worker(kafka_bootstrap, tmp_path)
    listener = RecordingStatusListener()
    try:
        ids = start_connector_and_tasks(
            worker, "fs", _source_props("fs", src, unique_topic), listener
        )
        msgs = read_topic(kafka_bootstrap, unique_topic, 2)
        assert [(m.key(), m.value()) for m in msgs] == [(None, b"alpha"), (None, b"beta")]
        assert listener.of("fs") == ["startup"]
        assert listener.of(ids[0]) == ["startup"]
        assert worker.connector_active_topics("fs") == {unique_topic}
    finally:
        worker.stop()
    assert listener.of(ids[0])[-1] == "shutdown"
    doc = orjson.loads((tmp_path / "offsets.json").read_bytes())
    key = '["fs",{"filename":"' + str(src) + '"}]'
    assert {"key": key, "value": '{"position":11}'} in doc["entries"]

    # A new worker on the same offsets file resumes after "beta".
    with src.open("a") as f:
        f.write("gamma\n")
    worker = make_worker(kafka_bootstrap, tmp_path)
    try:
        start_connector_and_tasks(
            worker, "fs", _source_props("fs", src, unique_topic), RecordingStatusListener()
        )
        msgs = read_topic(kafka_bootstrap, unique_topic, 4, timeout=5)
        assert [m.value() for m in msgs] == [b"alpha", b"beta", b"gamma"]
        assert worker.connector_offsets("fs", _source_props("fs", src, unique_topic)) == [
            {"partition": {"filename": str(src)}, "offset": {"position": 17}}
        ]
    finally:
        worker.stop()


def test_file_source_json_converter_exact_bytes(kafka_bootstrap, unique_topic, tmp_path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("héllo\n")
    worker = make_worker(
        kafka_bootstrap,
        tmp_path,
        **{"value.converter": "org.apache.kafka.connect.json.JsonConverter"},
    )
    try:
        start_connector_and_tasks(
            worker, "fsj", _source_props("fsj", src, unique_topic), RecordingStatusListener()
        )
        (msg,) = read_topic(kafka_bootstrap, unique_topic, 1)
        assert (
            msg.value()
            == ('{"schema":{"type":"string","optional":false},"payload":"héllo"}').encode()
        )
    finally:
        worker.stop()


def test_file_source_to_file_sink(kafka_bootstrap, unique_topic, tmp_path) -> None:
    src = tmp_path / "in.txt"
    lines = [f"line-{i}" for i in range(500)]
    src.write_text("".join(x + "\n" for x in lines))
    out = tmp_path / "out.txt"
    worker = make_worker(kafka_bootstrap, tmp_path)
    listener = RecordingStatusListener()
    try:
        start_connector_and_tasks(worker, "src", _source_props("src", src, unique_topic), listener)
        # Sink offsets live in the broker's consumer group connect-<name>: keep the name unique.
        sink_name = "snk-" + unique_topic
        sink_props = {
            "name": sink_name,
            "connector.class": "FileStreamSink",
            "file": str(out),
            "topics": unique_topic,
        }
        ids = start_connector_and_tasks(worker, sink_name, sink_props, listener)
        wait_until(
            lambda: out.exists() and out.read_text().count("\n") >= 500,
            30,
            message="sink file complete",
        )
        assert out.read_text().splitlines() == lines
        # The sink commits the group offsets it consumed.
        wait_until(
            lambda: (
                worker.connector_offsets(sink_name, sink_props)
                == [
                    {
                        "partition": {"kafka_topic": unique_topic, "kafka_partition": 0},
                        "offset": {"kafka_offset": 500},
                    }
                ]
            ),
            15,
            message="sink offsets committed",
        )
        assert listener.of(ids[0]) == ["startup"]
    finally:
        worker.stop()


class KeyedSourceTask(SourceTask):
    """Emits each key once, plus one record with an explicit partition."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.done = False

    def poll(self) -> Sequence[SourceRecord] | None:
        if self.done:
            return None
        self.done = True
        records = [
            SourceRecord(
                {"p": 0},
                {"o": i},
                self.topic,
                None,
                Schema.STRING_SCHEMA,
                f"key-{i}",
                Schema.STRING_SCHEMA,
                f"v{i}",
            )
            for i in range(40)
        ]
        records.append(
            SourceRecord(
                {"p": 0},
                {"o": 40},
                self.topic,
                3,
                Schema.STRING_SCHEMA,
                "key-0",
                Schema.STRING_SCHEMA,
                "explicit",
            )
        )
        return records

    def stop(self) -> None:
        pass


class KeyedSourceConnector(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return KeyedSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def stop(self) -> None:
        pass

    def config(self):
        from kconnect.api import ConfigDef

        return ConfigDef()


def test_keyed_records_land_on_java_murmur2_partition(
    kafka_bootstrap, topic_factory, tmp_path
) -> None:
    topic = topic_factory(partitions=5)
    worker = make_worker(kafka_bootstrap, tmp_path)
    try:
        props = {
            "name": "keyed",
            "topic": topic,
            "connector.class": f"{__name__}.KeyedSourceConnector",
        }
        start_connector_and_tasks(worker, "keyed", props, RecordingStatusListener())
        msgs = read_topic(kafka_bootstrap, topic, 41, partitions=5)
        assert len(msgs) == 41
        for m in msgs:
            if m.value() == b"explicit":
                assert m.partition() == 3
            else:
                assert m.partition() == partition_for_key(m.key(), 5), m.key()
        assert len({m.partition() for m in msgs}) > 1
    finally:
        worker.stop()


def test_topic_creation_groups(kafka_bootstrap, tmp_path) -> None:
    import uuid

    from kconnect.kafka.clients.admin import Admin

    topic = f"created-{uuid.uuid4().hex[:10]}"
    src = tmp_path / "in.txt"
    src.write_text("x\n")
    worker = make_worker(kafka_bootstrap, tmp_path)
    try:
        props = _source_props(
            "tc",
            src,
            topic,
            **{
                "topic.creation.default.replication.factor": "1",
                "topic.creation.default.partitions": "1",
                "topic.creation.groups": "wide",
                "topic.creation.wide.include": "created-.*",
                "topic.creation.wide.partitions": "3",
                "topic.creation.wide.retention.ms": "3600000",
            },
        )
        start_connector_and_tasks(worker, "tc", props, RecordingStatusListener())
        admin = Admin({"bootstrap.servers": kafka_bootstrap})
        wait_until(
            lambda: admin.topic_partition_counts([topic]).get(topic) == 3,
            15,
            message="topic created with 3 partitions",
        )
        assert [m.value() for m in read_topic(kafka_bootstrap, topic, 1, partitions=3)] == [b"x"]
    finally:
        worker.stop()


def test_pause_resume_and_task_config_keys(kafka_bootstrap, unique_topic, tmp_path) -> None:
    from kconnect.runtime.common.states import TargetState

    src = tmp_path / "in.txt"
    src.write_text("a\n")
    worker = make_worker(kafka_bootstrap, tmp_path)
    listener = RecordingStatusListener()
    props = _source_props("pr", src, unique_topic)
    try:
        ids = start_connector_and_tasks(worker, "pr", props, listener)
        cfgs = worker.connector_task_configs("pr", props)
        assert cfgs[0]["task.class"] == "org.apache.kafka.connect.file.FileStreamSourceTask"
        read_topic(kafka_bootstrap, unique_topic, 1)
        worker.set_target_state("pr", TargetState.PAUSED)
        wait_until(lambda: listener.of(ids[0])[-1:] == ["pause"], 10, message="task paused")
        assert listener.of("pr")[-1] == "pause"
        with src.open("a") as f:
            f.write("b\n")
        assert len(read_topic(kafka_bootstrap, unique_topic, 2, timeout=1.5)) == 1
        worker.set_target_state("pr", TargetState.STARTED)
        wait_until(lambda: listener.of(ids[0])[-1:] == ["resume"], 10, message="task resumed")
        assert [m.value() for m in read_topic(kafka_bootstrap, unique_topic, 2)] == [b"a", b"b"]
        assert listener.of("pr")[-1] == "resume"
        assert worker.task_ids() == {ConnectorTaskId("pr", 0)}
    finally:
        worker.stop()
