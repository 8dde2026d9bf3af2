"""The typed connector config the worker hands its tasks and reporters: parsed once, with the
ConfigDef's defaults, refusing bad values with the key and the reason."""

from __future__ import annotations

import pytest

from kconnect.api.errors import ConfigException
from kconnect.runtime.config.connector_config import (
    ConnectorConfig,
    SinkConnectorConfig,
    SourceConnectorConfig,
    ToleranceType,
)

BASE = {"name": "c", "connector.class": "FileStreamSink"}


def test_defaults_come_from_the_config_def() -> None:
    # Kafka 4.2 (KIP-1161): repeated topics are dropped, an empty item is refused
    sink = SinkConnectorConfig({**BASE, "topics": "a, b,a"})
    with pytest.raises(ConfigException, match="'topics' values must not be empty"):
        SinkConnectorConfig({**BASE, "topics": "a, b,a,,"})
    assert sink.tasks_max == 1 and sink.tasks_max_enforce is True
    assert sink.topics == ["a", "b"] and sink.topics_regex is None
    assert sink.errors_tolerance is ToleranceType.NONE
    assert (sink.errors_retry_timeout_ms, sink.errors_retry_max_delay_ms) == (0, 60_000)
    assert sink.errors_log_enable is False and sink.errors_log_include_messages is False
    assert sink.dlq_topic_name is None
    assert sink.dlq_topic_replication_factor == 3
    assert sink.dlq_context_headers_enable is False
    assert sink.sink_group_id == "connect-c"
    assert sink.converter_class("key") is None and sink.transforms == []


def test_set_values_are_parsed() -> None:
    sink = SinkConnectorConfig(
        {
            **BASE,
            "tasks.max": " 4 ",
            "topics.regex": "in-.*",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": " dlq ",
            "errors.deadletterqueue.topic.replication.factor": "1",
            "consumer.override.group.id": "g",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "value.converter.plugin.version": "4.1.2",
        }
    )
    assert sink.tasks_max == 4 and sink.topics_regex == "in-.*"
    assert sink.errors_tolerance is ToleranceType.ALL
    assert (sink.dlq_topic_name, sink.dlq_topic_replication_factor) == ("dlq", 1)
    assert sink.sink_group_id == "g"
    assert sink.converter_class("value") == "org.apache.kafka.connect.json.JsonConverter"
    assert sink.converter_settings("value") == {"schemas.enable": "false"}


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("tasks.max", "many", "Not a number of type INT"),
        ("tasks.max", "0", "Value must be at least 1"),
        ("errors.tolerance", "some", "String must be one of: none, all"),
        ("errors.retry.timeout", "soon", "Not a number of type LONG"),
    ],
)
def test_a_bad_value_is_refused_naming_the_key(key: str, value: str, reason: str) -> None:
    with pytest.raises(ConfigException) as info:
        ConnectorConfig({**BASE, key: value})
    assert f"Invalid value {value} for configuration {key}" in str(info.value)
    assert reason in str(info.value)


def test_for_connector_picks_the_sink_or_source_view() -> None:
    assert isinstance(
        ConnectorConfig.for_connector({**BASE, "topics": "t"}, True), SinkConnectorConfig
    )
    source = ConnectorConfig.for_connector(BASE, False)
    assert isinstance(source, SourceConnectorConfig)
    assert source.topic_creation_groups == [] and not source.topic_creation_configured
    assert source.offsets_storage_topic is None
