"""ConnectorConfig ConfigDefs and the sink topic rules, with Kafka's messages."""

from __future__ import annotations

from kconnect.runtime.config.connector_config import (
    sink_connector_config_def,
    source_connector_config_def,
    validate_sink_topics,
)


def _errors(props):
    result = sink_connector_config_def().validate_all(props)
    validate_sink_topics(props, result)
    return {k: v.errors for k, v in result.items() if v.errors}


BASE = {"name": "s", "connector.class": "X"}


def test_sink_requires_topics_or_regex():
    msg = "Must configure one of topics or topics.regex"
    assert _errors(BASE) == {"topics": [msg], "topics.regex": [msg]}


def test_sink_topics_and_regex_exclusive():
    msg = "topics and topics.regex are mutually exclusive options, but both are set."
    assert _errors({**BASE, "topics": "a", "topics.regex": "a.*"}) == {
        "topics": [msg],
        "topics.regex": [msg],
    }


def test_dlq_topic_rules():
    assert _errors({**BASE, "topics": "a,dlq", "errors.deadletterqueue.topic.name": "dlq"}) == {
        "topics": [
            "The DLQ topic 'dlq' may not be included in the list of topics ('topics=[a, dlq]') consumed by the connector"
        ]
    }
    assert _errors({**BASE, "topics.regex": "d.*", "errors.deadletterqueue.topic.name": "dlq"}) == {
        "topics.regex": [
            "The DLQ topic 'dlq' may not be matched by the regex for the topics ('topics.regex=d.*') consumed by the connector"
        ]
    }


def test_name_tasks_max_and_aliases():
    errs = _errors(
        {"name": "", "connector.class": "X", "tasks.max": "0", "topics": "a", "transforms": "a,a"}
    )
    assert errs["name"] == ["Invalid value  for configuration name: String may not be empty"]
    assert errs["tasks.max"] == [
        "Invalid value 0 for configuration tasks.max: Value must be at least 1"
    ]
    assert errs["transforms"] == [
        "Invalid value [a, a] for configuration transforms: Duplicate alias provided."
    ]


def test_source_def_groups_and_keys():
    d = source_connector_config_def()
    assert d.groups() == [
        "Common", "Transforms", "Predicates", "Error Handling",
        "Topic Creation", "Exactly Once Support", "offsets.topic",
    ]  # fmt: skip
    keys = d.config_keys()
    assert keys["tasks.max"].default_value == 1
    assert keys["exactly.once.support"].default_value == "requested"


def test_kafka_4_2_list_rules_name_the_key():
    # KIP-1161: each of transforms, predicates and topics refuses a repeated item, by name
    errs = _errors(
        {
            **BASE,
            "topics": "a,a",
            "transforms": "t,t",
            "transforms.t.type": "org.apache.kafka.connect.transforms.Filter",
            "predicates": "p,p",
        }
    )
    assert errs["topics"] == ["Configuration 'topics' values must not be duplicated."]
    assert errs["transforms"] == [
        "Invalid value [t, t] for configuration transforms: Duplicate alias provided."
    ]
    assert errs["predicates"] == [
        "Invalid value [p, p] for configuration predicates: Duplicate alias provided."
    ]
    assert _errors({**BASE, "topics": "a,,b"})["topics"] == [
        "Configuration 'topics' values must not be empty."
    ]
    assert _errors({**BASE, "topics": "a,b,"})["topics"] == [
        "Configuration 'topics' values must not be empty."
    ]


def test_source_topic_creation_groups_refuse_duplicates():
    result = source_connector_config_def().validate_all({**BASE, "topic.creation.groups": "g,g"})
    assert result["topic.creation.groups"].errors == [
        "Invalid value [g, g] for configuration topic.creation.groups: Duplicate alias provided."
    ]


def test_running_sink_config_drops_duplicate_topics():
    from kconnect.runtime.config.connector_config import SinkConnectorConfig

    config = SinkConnectorConfig({**BASE, "topics": "a,b,a"})
    assert config.get_list("topics") == ["a", "b"]


def test_config_providers_listed_twice_make_one_provider():
    from kconnect.runtime.config.config_transformer import load_config_providers

    made = []

    def instantiate(name):
        from kconnect.config_providers.file import FileConfigProvider

        made.append(name)
        return FileConfigProvider()

    providers = load_config_providers(
        {
            "config.providers": "file,file",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        },
        instantiate=instantiate,
    )
    assert list(providers) == ["file"] and len(made) == 1
