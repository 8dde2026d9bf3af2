import logging
import re

import pytest

from kconnect.api.errors import ConfigException
from kconnect.runtime.config.worker_config import (
    ListenerSpec,
    StandaloneConfig,
    WorkerConfig,
    load_properties,
)

BASE = {
    "bootstrap.servers": "localhost:9092",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


def test_defaults_match_kafka() -> None:
    c = WorkerConfig(BASE)
    assert c.offset_flush_interval_ms == 60000
    assert c.offset_flush_timeout_ms == 5000
    assert c.graceful_shutdown_timeout_ms == 5000
    assert c.get_string("connector.client.config.override.policy") == "All"
    assert c.topic_creation_enable is True
    assert c.get_list("config.providers") == []
    assert c.rest_listeners == [ListenerSpec("http", "", 8083)]
    assert c.converter_configs("header") == (
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        {},
    )


def test_converters_are_required() -> None:
    with pytest.raises(
        ConfigException, match=re.escape('Missing required configuration "key.converter"')
    ):
        WorkerConfig({"bootstrap.servers": "b:1", "value.converter": "x"})


def test_bad_value_names_key() -> None:
    with pytest.raises(ConfigException, match=re.escape("offset.flush.interval.ms")):
        WorkerConfig({**BASE, "offset.flush.interval.ms": "soon"})
    with pytest.raises(ConfigException, match=re.escape("connector.client.config.override.policy")):
        WorkerConfig({**BASE, "connector.client.config.override.policy": "Some"})
    with pytest.raises(ConfigException, match=re.escape("listeners")):
        WorkerConfig({**BASE, "listeners": "ftp://:21"})


def test_bootstrap_servers_required_and_strict_kip_1161() -> None:
    # Kafka 4.2: no localhost:9092 default; no empty list, no empty item; duplicates dropped
    converters = {k: v for k, v in BASE.items() if k != "bootstrap.servers"}
    with pytest.raises(
        ConfigException,
        match=re.escape('Missing required configuration "bootstrap.servers" which has no default'),
    ):
        WorkerConfig(converters)
    with pytest.raises(
        ConfigException,
        match=re.escape(
            "Configuration 'bootstrap.servers' must not be empty. Valid values include: "
            "any non-empty value"
        ),
    ):
        WorkerConfig({**converters, "bootstrap.servers": " "})
    with pytest.raises(
        ConfigException,
        match=re.escape("Configuration 'bootstrap.servers' values must not be empty."),
    ):
        WorkerConfig({**converters, "bootstrap.servers": "a:1,,b:2"})
    assert WorkerConfig({**converters, "bootstrap.servers": "a:1,b:2,a:1"}).bootstrap_servers == (
        "a:1,b:2"
    )


@pytest.mark.parametrize(
    "key", ["config.providers", "metric.reporters", "rest.extension.classes", "plugin.path"]
)
def test_worker_lists_drop_duplicates_with_a_warning(
    key: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="kconnect.api.config_def"):
        c = WorkerConfig({**BASE, key: "a,b,a"})
    assert c.get_list(key) == ["a", "b"]
    assert f'"{key}"' in caplog.text and "duplicates are dropped" in caplog.text
    with pytest.raises(
        ConfigException, match=re.escape(f"Configuration '{key}' values must not be empty.")
    ):
        WorkerConfig({**BASE, key: "a,,b"})


def test_empty_plugin_path_is_refused_as_in_kafka_4_2() -> None:
    with pytest.raises(
        ConfigException, match=re.escape("Configuration 'plugin.path' must not be empty")
    ):
        WorkerConfig({**BASE, "plugin.path": ""})
    assert WorkerConfig(BASE).get_list("plugin.path") is None


def test_standalone_requires_offset_file() -> None:
    with pytest.raises(ConfigException, match=re.escape("offset.storage.file.filename")):
        StandaloneConfig(BASE)
    assert (
        StandaloneConfig({**BASE, "offset.storage.file.filename": "/tmp/o"}).offset_storage_file
        == "/tmp/o"
    )


def test_prefixed_settings() -> None:
    c = WorkerConfig(
        {
            **BASE,
            "bootstrap.servers": "a:1, b:2",
            "key.converter.schemas.enable": "false",
            "producer.linger.ms": "7",
            "producer.key.serializer": "x",
            "consumer.max.poll.records": "10",
            "consumer.fetch.min.bytes": "3",
            "admin.request.timeout.ms": "900",
            "security.protocol": "PLAINTEXT",
        }
    )
    assert c.bootstrap_servers == "a:1,b:2"
    assert c.converter_configs("key") == (
        "org.apache.kafka.connect.json.JsonConverter",
        {"schemas.enable": "false"},
    )
    java_defaults = {"reconnect.backoff.ms": 50}
    assert c.producer_props() == {"bootstrap.servers": "a:1,b:2", "linger.ms": "7", **java_defaults}
    assert c.consumer_props() == {
        "bootstrap.servers": "a:1,b:2",
        "fetch.min.bytes": "3",
        **java_defaults,
    }
    assert c.admin_props() == {
        **java_defaults,
        "bootstrap.servers": "a:1,b:2",
        "request.timeout.ms": "900",
    }


def test_advertised_url_and_worker_id() -> None:
    c = WorkerConfig({**BASE, "listeners": "http://127.0.0.1:8084,https://0.0.0.0:8443"})
    assert c.advertised_url() == "http://127.0.0.1:8084/"
    assert c.worker_id() == "127.0.0.1:8084"
    c = WorkerConfig(
        {
            **BASE,
            "listeners": "http://:8083",
            "rest.advertised.host.name": "w1",
            "rest.advertised.port": "9999",
        }
    )
    assert c.advertised_url() == "http://w1:9999/"
    assert c.worker_id() == "w1:9999"


def test_unknown_keys_warn(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        WorkerConfig({**BASE, "offset.flush.intervl.ms": "1", "producer.acks": "1"})
    assert "offset.flush.intervl.ms" in caplog.text
    assert "producer.acks" not in caplog.text


def test_load_properties(tmp_path) -> None:
    p = tmp_path / "w.properties"
    p.write_text(
        "# comment\nbootstrap.servers=a:9092\nkey.converter : x\nplugin.path=/a,\\\n  /b\n"
    )
    assert load_properties(p) == {
        "bootstrap.servers": "a:9092",
        "key.converter": "x",
        "plugin.path": "/a,/b",
    }
