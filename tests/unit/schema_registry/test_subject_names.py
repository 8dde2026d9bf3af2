"""Subject name strategies under their Java class names."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException
from kconnect.schema_registry.errors import SerializationException
from kconnect.schema_registry.subject_names import (
    ASSOCIATED_NAME_STRATEGY,
    DEFAULT_STRATEGY,
    RECORD_NAME_STRATEGY,
    TOPIC_NAME_STRATEGY,
    TOPIC_RECORD_NAME_STRATEGY,
    subject_name,
)


def test_java_names() -> None:
    assert TOPIC_NAME_STRATEGY == "io.confluent.kafka.serializers.subject.TopicNameStrategy"
    assert RECORD_NAME_STRATEGY == "io.confluent.kafka.serializers.subject.RecordNameStrategy"
    assert (
        TOPIC_RECORD_NAME_STRATEGY
        == "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"
    )
    assert DEFAULT_STRATEGY == ASSOCIATED_NAME_STRATEGY


@pytest.mark.parametrize(
    ("strategy", "is_key", "expected"),
    [
        (TOPIC_NAME_STRATEGY, True, "orders-key"),
        (TOPIC_NAME_STRATEGY, False, "orders-value"),
        (RECORD_NAME_STRATEGY, False, "com.acme.Order"),
        (TOPIC_RECORD_NAME_STRATEGY, True, "orders-com.acme.Order"),
        # without a registry client the associated-name default falls back to the topic name
        (ASSOCIATED_NAME_STRATEGY, False, "orders-value"),
        (ASSOCIATED_NAME_STRATEGY, True, "orders-key"),
    ],
)
def test_subject_names(strategy: str, is_key: bool, expected: str) -> None:
    assert subject_name(strategy, "orders", is_key, "com.acme.Order") == expected


def test_topic_name_ignores_the_record_name() -> None:
    assert subject_name(TOPIC_NAME_STRATEGY, "t", False, None) == "t-value"


@pytest.mark.parametrize("strategy", [RECORD_NAME_STRATEGY, TOPIC_RECORD_NAME_STRATEGY])
def test_record_strategies_need_a_named_schema(strategy: str) -> None:
    with pytest.raises(SerializationException) as e:
        subject_name(strategy, "t", True, None)
    assert str(e.value) == (
        f"In configuration key.subject.name.strategy = {strategy}, "
        "the message key must only be a record schema"
    )


def test_unknown_strategy_names_the_key() -> None:
    with pytest.raises(ConfigException) as e:
        subject_name("com.example.MyStrategy", "t", False, "R")
    assert e.value.config_name == "value.subject.name.strategy"
    assert "com.example.MyStrategy" in str(e.value)
