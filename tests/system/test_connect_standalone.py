"""Port of ``tests/kafkatest/tests/connect/connect_test.py`` (``ConnectStandaloneFileTest``):
two ``kconnect standalone`` workers, one running FileStreamSource and one FileStreamSink, the
topic given through the FileConfigProvider (``${file:...:topic.external}``).

``test_file_source_and_sink``: the output file is md5-identical to the input after the first
lines and again after both workers restart and more lines arrive; the topic holds each line
exactly once, in the converter's format (JsonConverter with and without schemas, and the
StringConverter set as a per-connector override).

``test_skip_and_log_to_dlq``: 1000 lines, every odd one malformed JSON, read by a sink with a
schemaless JsonConverter and a dead letter queue. With ``errors.tolerance=all`` the 500 good
ones reach the file as Java's FileStreamSink prints a map (``{some_key=0}``) and the 500 bad
ones the DLQ; with ``none`` the first bad record reaches the DLQ before the task fails, and the
good ones never all arrive. Kafka waits 15 s to see that they do not; here the test waits
until the task is FAILED instead, then checks the same. That variant's sink worker runs with
``auto.restart.enable=false``: kconnect would otherwise restart the failed task, which would
read the bad record again and report it to the DLQ once more; Kafka Connect leaves it FAILED.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.system.conftest import Services
from tests.system.connect_service import ConnectStandaloneService, Node, wait_until
from tests.system.console_consumer import consume
from tests.system.templates import (
    SystemTestContext,
    connect_file_external,
    connect_file_sink,
    connect_file_source,
    connect_standalone,
)

pytestmark = [pytest.mark.slow, pytest.mark.kafka]

FIRST_INPUT_LIST = ["foo", "bar", "baz"]
FIRST_INPUT = "\n".join(FIRST_INPUT_LIST) + "\n"
SECOND_INPUT_LIST = ["razz", "ma", "tazz"]
SECOND_INPUT = "\n".join(SECOND_INPUT_LIST) + "\n"
SCHEMA = {"type": "string", "optional": False}


def _services(ctx: SystemTestContext, services: Services, tmp_path: Path):
    # TOPIC = "${file:<external configs file>:topic.external}" (= the test's topic)
    ctx.topic = f"${{file:{ctx.external_configs_file}:topic.external}}"

    def service(name: str) -> ConnectStandaloneService:
        cc = ConnectStandaloneService(tmp_path / name)
        cc.external_configs_file = ctx.external_configs_file
        return services.add(cc)

    return service("source"), service("sink")


def _worker(ctx: SystemTestContext):
    return lambda node: connect_standalone(ctx, node.port, node.dir / "connect.offsets")


def _md5_matches(output_file: Path, value: str) -> bool:
    try:
        return hashlib.md5(output_file.read_bytes()).hexdigest() == (
            hashlib.md5(value.encode("utf-8")).hexdigest()
        )
    except FileNotFoundError:
        return False


@pytest.mark.parametrize(
    ("converter", "schemas"),
    [
        ("org.apache.kafka.connect.json.JsonConverter", True),
        ("org.apache.kafka.connect.json.JsonConverter", False),
        ("org.apache.kafka.connect.storage.StringConverter", None),
    ],
    ids=["json-schemas", "json-schemaless", "string"],
)
def test_file_source_and_sink(
    converter: str, schemas: bool | None, context: SystemTestContext, services: Services, tmp_path
) -> None:
    """End to end with the file source and sink: converters (and per-connector converter
    overrides), with and without schemas."""
    ctx = context
    topic_test = ctx.topic_test
    # The worker keeps JsonConverter; other converters are per-connector overrides.
    if converter != "org.apache.kafka.connect.json.JsonConverter":
        ctx.override_key_converter = converter
        ctx.override_value_converter = converter
    ctx.schemas = schemas
    source, sink = _services(ctx, services, tmp_path)
    source.set_configs(_worker(ctx), [connect_file_source(ctx)])
    sink.set_configs(_worker(ctx), [connect_file_sink(ctx)])
    source.set_external_configs(lambda node: connect_file_external(ctx))
    sink.set_external_configs(lambda node: connect_file_external(ctx))
    source.start()
    sink.start()

    with ctx.input_file.open("a") as f:
        f.write(FIRST_INPUT)
    wait_until(
        lambda: _md5_matches(ctx.output_file, FIRST_INPUT), 60,
        "Data added to input file was not seen in the output file in a reasonable amount of time.",
    )  # fmt: skip

    # restarted, both go on where they left off: only new data
    source.restart()
    sink.restart()

    with ctx.input_file.open("a") as f:
        f.write(SECOND_INPUT)
    wait_until(
        lambda: _md5_matches(ctx.output_file, FIRST_INPUT + SECOND_INPUT), 60,
        "Sink output file never converged to the same state as the input file",
    )  # fmt: skip

    # the format of the data in the topic (Kafka's consumer reads for 10 s without news; here
    # 3 s once all six arrived)
    lines = FIRST_INPUT_LIST + SECOND_INPUT_LIST
    messages = consume(ctx.bootstrap, topic_test, 3000, min_messages=len(lines))
    expected = json.dumps(
        [line if not schemas else {"schema": SCHEMA, "payload": line} for line in lines]
    )
    decoder = json.loads if converter.endswith("JsonConverter") else str
    actual = json.dumps([decoder(x) for x in messages])
    assert expected == actual, f"Expected {expected} but saw {actual} in Kafka"


def _sink_task_failed(sink: ConnectStandaloneService, node: Node) -> bool:
    status = sink.get_connector_status("local-file-sink", node)
    return any(t["state"] == "FAILED" for t in status["tasks"])


@pytest.mark.parametrize("error_tolerance", ["all", "none"])
def test_skip_and_log_to_dlq(
    error_tolerance: str, context: SystemTestContext, services: Services, tmp_path
) -> None:
    ctx = context
    topic_test = ctx.topic_test
    ctx.override_error_tolerance_props = error_tolerance
    ctx.enable_deadletterqueue = True

    successful_records = []
    faulty_records = []
    records = []
    for i in range(1000):
        if i % 2 == 0:
            records.append('{"some_key":' + str(i) + "}")
            successful_records.append("{some_key=" + str(i) + "}")
        else:
            # badly formatted JSON (no quote after the key)
            records.append('{"some_key:' + str(i) + "}")
            faulty_records.append('{"some_key:' + str(i) + "}")
    records_text = "\n".join(records) + "\n"
    successful = "\n".join(successful_records) + "\n"
    faulty = ",".join(faulty_records) if error_tolerance == "all" else faulty_records[0]

    source, sink = _services(ctx, services, tmp_path)
    ctx.override_key_converter = "org.apache.kafka.connect.storage.StringConverter"
    ctx.override_value_converter = "org.apache.kafka.connect.storage.StringConverter"
    source.set_configs(_worker(ctx), [connect_file_source(ctx)])
    ctx.override_key_converter = "org.apache.kafka.connect.json.JsonConverter"
    ctx.override_value_converter = "org.apache.kafka.connect.json.JsonConverter"
    ctx.override_key_converter_schemas_enable = False
    ctx.override_value_converter_schemas_enable = False
    if error_tolerance == "none":
        # kconnect-only: leave the failed task FAILED, as Kafka Connect does (see above)
        ctx.extra_worker_props = {"auto.restart.enable": "false"}
    sink.set_configs(_worker(ctx), [connect_file_sink(ctx)])
    source.set_external_configs(lambda node: connect_file_external(ctx))
    sink.set_external_configs(lambda node: connect_file_external(ctx))
    source.start()
    sink.start()

    with ctx.input_file.open("a") as f:
        f.write(records_text)

    if error_tolerance == "none":
        wait_until(lambda: _sink_task_failed(sink, sink.node), 30, "the sink task never FAILED")
        assert not _md5_matches(ctx.output_file, successful), (
            "Expected to not find any results in this file."
        )
    else:
        wait_until(
            lambda: _md5_matches(ctx.output_file, successful), 15,
            "Clean records added to input file were not seen in the output file in a "
            "reasonable amount of time.",
        )  # fmt: skip

    dlq = ctx.override_deadletterqueue_topic_name
    expected_count = len(faulty_records) if error_tolerance == "all" else 1
    actual = ",".join(consume(ctx.bootstrap, dlq, 3000, min_messages=expected_count))
    assert faulty == actual, f"Expected {faulty} but saw {actual} in dead letter queue"
    assert topic_test  # the records went through the test's own topic
