"""Port of ``tests/kafkatest/tests/connect/connect_rest_test.py`` (``ConnectRestApiTest``).

Two ``kconnect distributed`` workers; the FileStream connectors' ``config/validate`` key sets
(27 keys for the source, 25 for the sink: Kafka 4.1's, with the KIP-891 ``*.plugin.version``
keys), connector and task infos (the task configs carry ``task.class``; the ``${file:...}``
topic stays unresolved in every answer), a reconfiguration to a second input file, and
deletion. ``connect_protocol`` is parametrized as in Kafka (compatible, eager).
"""

from __future__ import annotations

import itertools
import json

import pytest

from tests.system.connect_service import ConnectDistributedService, ConnectRestError, wait_until
from tests.system.templates import (
    SystemTestContext,
    config_dict_from_props,
    connect_distributed,
    connect_file_external,
    connect_file_sink,
    connect_file_source,
)

pytestmark = [pytest.mark.slow, pytest.mark.kafka]

FILE_SOURCE_CONNECTOR = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK_CONNECTOR = "org.apache.kafka.connect.file.FileStreamSinkConnector"

# Kafka 4.1's sets: the 3.8 ones plus connector.plugin.version and the three
# {key,value,header}.converter.plugin.version keys (KIP-891).
FILE_SOURCE_CONFIGS = {
    "name", "connector.class", "tasks.max", "key.converter", "value.converter",
    "header.converter", "batch.size", "topic", "file", "transforms", "config.action.reload",
    "errors.retry.timeout", "errors.retry.delay.max.ms", "errors.tolerance",
    "errors.log.enable", "errors.log.include.messages", "predicates", "topic.creation.groups",
    "exactly.once.support", "transaction.boundary", "transaction.boundary.interval.ms",
    "offsets.storage.topic", "tasks.max.enforce", "connector.plugin.version",
    "key.converter.plugin.version", "value.converter.plugin.version",
    "header.converter.plugin.version",
}  # fmt: skip
FILE_SINK_CONFIGS = {
    "name", "connector.class", "tasks.max", "key.converter", "value.converter",
    "header.converter", "topics", "file", "transforms", "topics.regex", "config.action.reload",
    "errors.retry.timeout", "errors.retry.delay.max.ms", "errors.tolerance",
    "errors.log.enable", "errors.log.include.messages", "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable", "predicates", "tasks.max.enforce",
    "connector.plugin.version", "key.converter.plugin.version",
    "value.converter.plugin.version", "header.converter.plugin.version",
}  # fmt: skip
assert (len(FILE_SOURCE_CONFIGS), len(FILE_SINK_CONFIGS)) == (27, 25)

INPUT_LIST = ["foo", "bar", "baz"]
INPUTS = "\n".join(INPUT_LIST) + "\n"
LONGER_INPUT_LIST = ["foo", "bar", "baz", "razz", "ma", "tazz"]
LONER_INPUTS = "\n".join(LONGER_INPUT_LIST) + "\n"


def _verify_config(name: str, config_def: set[str], configs: dict) -> None:
    assert name == configs["name"]
    assert configs["error_count"] == 0, json.dumps(configs)
    config_names = [config["definition"]["name"] for config in configs["configs"]]
    assert config_def == set(config_names)


@pytest.mark.parametrize("connect_protocol", ["compatible", "eager"])
def test_rest_api(connect_protocol: str, context: SystemTestContext, services, tmp_path) -> None:
    ctx = context
    # the test's topic: TOPIC = "topic-${file:<external configs>:topic.external}"
    ext = str(ctx.external_configs_file)
    ctx.topic = f"topic-${{file:{ext}:topic.external}}"
    input_file2 = tmp_path / "connect.input2"
    ctx.key_converter = "org.apache.kafka.connect.json.JsonConverter"
    ctx.value_converter = "org.apache.kafka.connect.json.JsonConverter"
    ctx.schemas = True
    ctx.connect_protocol = connect_protocol

    cc = services.add(ConnectDistributedService(tmp_path, 2))
    cc.external_configs_file = ctx.external_configs_file
    cc.set_configs(lambda node: connect_distributed(ctx, node.port))
    cc.set_external_configs(lambda node: connect_file_external(ctx))
    cc.start()

    assert cc.list_connectors() == []
    plugins = {p["class"] for p in cc.list_connector_plugins()}
    assert plugins.issuperset({FILE_SOURCE_CONNECTOR, FILE_SINK_CONNECTOR})

    source_connector_props = connect_file_source(ctx)
    sink_connector_props = connect_file_sink(ctx)

    source_connector_config = config_dict_from_props(source_connector_props)
    configs = cc.validate_config(FILE_SOURCE_CONNECTOR, source_connector_config)
    _verify_config(FILE_SOURCE_CONNECTOR, FILE_SOURCE_CONFIGS, configs)
    sink_connector_config = config_dict_from_props(sink_connector_props)
    configs = cc.validate_config(FILE_SINK_CONNECTOR, sink_connector_config)
    _verify_config(FILE_SINK_CONNECTOR, FILE_SINK_CONFIGS, configs)

    cc.create_connector(source_connector_config)
    cc.create_connector(sink_connector_config)
    wait_until(
        lambda: set(cc.list_connectors()) == {"local-file-source", "local-file-sink"},
        10,
        "Connectors that were just created did not appear in connector listing",
    )

    def validate_output(inputs: list[str]) -> bool:
        # one machine: the nodes share the output file
        lines = ctx.output_file.read_text().splitlines() if ctx.output_file.exists() else []
        return set(inputs) == {line.strip() for line in itertools.chain(lines)}

    with ctx.input_file.open("a") as f:  # once: every node reads the same file
        f.write(INPUTS)
    wait_until(
        lambda: validate_output(INPUT_LIST),
        120,
        "Data added to input file was not seen in the output file in a reasonable amount of time.",
    )

    # the same connector again is a conflict (Kafka's helper retries a 409 forty times before
    # raising it; one request gives the same answer 10 s sooner)
    with pytest.raises(ConnectRestError) as conflict:
        config = config_dict_from_props(source_connector_props)
        cc._rest("/connectors", {"name": config["name"], "config": config}, method="POST")
    assert conflict.value.status == 409

    expected_source_info = {
        "name": "local-file-source",
        "config": config_dict_from_props(source_connector_props),
        "tasks": [{"connector": "local-file-source", "task": 0}],
        "type": "source",
    }
    assert cc.get_connector("local-file-source") == expected_source_info
    assert cc.get_connector_config("local-file-source") == expected_source_info["config"]
    expected_sink_info = {
        "name": "local-file-sink",
        "config": config_dict_from_props(sink_connector_props),
        "tasks": [{"connector": "local-file-sink", "task": 0}],
        "type": "sink",
    }
    assert cc.get_connector("local-file-sink") == expected_sink_info
    assert cc.get_connector_config("local-file-sink") == expected_sink_info["config"]

    expected_source_task_info = [
        {
            "id": {"connector": "local-file-source", "task": 0},
            "config": {
                "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                "task.class": "org.apache.kafka.connect.file.FileStreamSourceTask",
                "file": str(ctx.input_file),
                "topic": ctx.topic,
                "tasks.max": "1",
                "name": "local-file-source",
                "errors.log.include.messages": "true",
                "errors.tolerance": "none",
                "errors.log.enable": "true",
            },
        }
    ]
    assert cc.get_connector_tasks("local-file-source") == expected_source_task_info
    expected_sink_task_info = [
        {
            "id": {"connector": "local-file-sink", "task": 0},
            "config": {
                "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                "task.class": "org.apache.kafka.connect.file.FileStreamSinkTask",
                "file": str(ctx.output_file),
                "topics": ctx.topic,
                "key.converter.schemas.enable": "True",
                "tasks.max": "1",
                "name": "local-file-sink",
                "value.converter.schemas.enable": "True",
                "errors.tolerance": "none",
                "errors.log.enable": "true",
                "errors.log.include.messages": "true",
            },
        }
    ]
    assert cc.get_connector_tasks("local-file-sink") == expected_sink_task_info

    file_source_config = config_dict_from_props(source_connector_props)
    file_source_config["file"] = str(input_file2)
    cc.set_connector_config("local-file-source", file_source_config)
    with input_file2.open("a") as f:
        f.write(LONER_INPUTS)
    wait_until(
        lambda: validate_output(LONGER_INPUT_LIST),
        120,
        "Data added to input file was not seen in the output file in a reasonable amount of time.",
    )

    cc.delete_connector("local-file-source")
    cc.delete_connector("local-file-sink")
    wait_until(
        lambda: not cc.list_connectors(),
        10,
        "Deleted connectors did not disappear from REST listing",
    )
