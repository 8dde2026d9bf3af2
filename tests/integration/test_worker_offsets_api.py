"""KIP-875 offsets API on the Worker (connector stopped), against the real broker."""

from __future__ import annotations

import pytest

from kconnect.runtime.common.request_errors import BadRequestException
from tests.integration.worker_support import make_worker, produce

pytestmark = pytest.mark.kafka


def test_source_offsets_alter_and_reset(kafka_bootstrap, tmp_path) -> None:
    worker = make_worker(kafka_bootstrap, tmp_path)
    props = {"name": "fs", "connector.class": "FileStreamSource", "file": "/tmp/a", "topic": "t"}
    try:
        msg = worker.modify_connector_offsets(
            "fs",
            props,
            [
                {"partition": {"filename": "/tmp/a"}, "offset": {"position": 42}},
                {"partition": {"filename": "/tmp/b"}, "offset": {"position": 7}},
            ],
        )
        assert msg == "The offsets for this connector have been altered successfully"
        assert sorted(worker.connector_offsets("fs", props), key=str) == sorted(
            [
                {"partition": {"filename": "/tmp/a"}, "offset": {"position": 42}},
                {"partition": {"filename": "/tmp/b"}, "offset": {"position": 7}},
            ],
            key=str,
        )
        assert worker.offset_store.get([b'["fs",{"filename":"/tmp/a"}]']) == {
            b'["fs",{"filename":"/tmp/a"}]': b'{"position":42}'
        }
        worker.modify_connector_offsets(
            "fs", props, [{"partition": {"filename": "/tmp/b"}, "offset": None}]
        )
        assert worker.connector_offsets("fs", props) == [
            {"partition": {"filename": "/tmp/a"}, "offset": {"position": 42}}
        ]
        with pytest.raises(Exception, match="non-negative"):
            worker.modify_connector_offsets(
                "fs", props, [{"partition": {"filename": "/tmp/a"}, "offset": {"position": -1}}]
            )
        assert (
            worker.modify_connector_offsets("fs", props, None)
            == "The offsets for this connector have been reset successfully"
        )
        assert worker.connector_offsets("fs", props) == []
    finally:
        worker.stop()


def test_sink_offsets_alter_and_reset(kafka_bootstrap, unique_topic, tmp_path) -> None:
    produce(kafka_bootstrap, unique_topic, [(None, b"x")] * 5)
    worker = make_worker(kafka_bootstrap, tmp_path)
    props = {
        "name": f"snk-{unique_topic}",
        "connector.class": "FileStreamSink",
        "topics": unique_topic,
        "file": str(tmp_path / "o"),
    }
    name = props["name"]
    part = {"kafka_topic": unique_topic, "kafka_partition": 0}
    try:
        assert worker.connector_offsets(name, props) == []
        assert (
            worker.modify_connector_offsets(
                name, props, [{"partition": part, "offset": {"kafka_offset": 3}}]
            )
            == "The offsets for this connector have been altered successfully"
        )
        assert worker.connector_offsets(name, props) == [
            {"partition": part, "offset": {"kafka_offset": 3}}
        ]
        with pytest.raises(
            BadRequestException, match="must contain the keys 'kafka_topic' and 'kafka_partition'"
        ):
            worker.modify_connector_offsets(
                name,
                props,
                [{"partition": {"kafka_topic": unique_topic}, "offset": {"kafka_offset": 1}}],
            )
        with pytest.raises(BadRequestException, match="must be an integer"):
            worker.modify_connector_offsets(
                name, props, [{"partition": part, "offset": {"kafka_offset": "x"}}]
            )
        assert (
            worker.modify_connector_offsets(name, props, None)
            == "The offsets for this connector have been reset successfully"
        )
        assert worker.connector_offsets(name, props) == []
    finally:
        worker.stop()
