"""connector.client.config.override.policy (None / Principal / All / Allowlist, KIP-1188):
names accepted, the allowlist, the task builder's refusal and validation's per-key errors."""

from __future__ import annotations

import logging
import re

import pytest

from kconnect.api import ConfigDef, ConfigType, Importance, SinkConnector, SinkTask
from kconnect.api.errors import ConfigException, ConnectException
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.client_overrides import (
    CONSUMER_OVERRIDE_PREFIX,
    PRODUCER_OVERRIDE_PREFIX,
    AllowlistPolicy,
    AllPolicy,
    NonePolicy,
    PrincipalPolicy,
    client_overrides,
    is_secret_client_key,
    policy_named,
)
from kconnect.runtime.config.connector_config import SinkConnectorConfig
from kconnect.runtime.config.connector_validation import ConnectorValidator
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.task_builder import TaskBuilder

BASE = {
    "bootstrap.servers": "127.0.0.1:9092",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}
POLICY = "connector.client.config.override.policy"
ALLOWLIST = "connector.client.config.override.allowlist"
PKG = "org.apache.kafka.connect.connector.policy."


@pytest.mark.parametrize(
    ("name", "policy"),
    [
        ("All", AllPolicy),
        ("None", NonePolicy),
        ("Principal", PrincipalPolicy),
        ("Allowlist", AllowlistPolicy),
        ("AllowlistConnectorClientConfigOverridePolicy", AllowlistPolicy),
        (PKG + "AllowlistConnectorClientConfigOverridePolicy", AllowlistPolicy),
        (PKG + "NoneConnectorClientConfigOverridePolicy", NonePolicy),
        (PKG + "PrincipalConnectorClientConfigOverridePolicy", PrincipalPolicy),
        ("AllConnectorClientConfigOverridePolicy", AllPolicy),
    ],
)
def test_aliases_and_class_names(name: str, policy: type) -> None:
    assert type(WorkerConfig({**BASE, POLICY: name}).client_override_policy) is policy


def test_default_is_all_and_allowlist_empty() -> None:
    c = WorkerConfig(BASE)
    assert c.get_string(POLICY) == "All"
    assert c.get_list(ALLOWLIST) == []
    assert isinstance(c.client_override_policy, AllPolicy)
    empty = WorkerConfig({**BASE, POLICY: "Allowlist"}).client_override_policy
    assert isinstance(empty, AllowlistPolicy) and not empty.is_allowed("client.id")


@pytest.mark.parametrize("name", ["Some", "allowlist", "org.example.MyPolicy", ""])
def test_unknown_policy_is_refused_naming_the_key(name: str) -> None:
    with pytest.raises(ConfigException, match=re.escape(POLICY)) as e:
        WorkerConfig({**BASE, POLICY: name})
    assert "Allowlist" in str(e.value)


def test_allowlist_parsing() -> None:
    policy = WorkerConfig(
        {**BASE, POLICY: "Allowlist", ALLOWLIST: "client.id, acks"}
    ).client_override_policy
    assert isinstance(policy, AllowlistPolicy)
    assert policy.allowlist == ("client.id", "acks")
    assert policy.is_allowed("acks") and not policy.is_allowed("linger.ms")
    with pytest.raises(ConfigException, match=re.escape(f"Configuration '{ALLOWLIST}' values")):
        WorkerConfig({**BASE, ALLOWLIST: "acks,,linger.ms"})


def test_principal_logs_its_deprecation(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert isinstance(policy_named("Principal"), PrincipalPolicy)
    assert "deprecated" in caplog.text and "Allowlist" in caplog.text


def test_client_overrides_per_policy() -> None:
    props = {"producer.override.linger.ms": "1", "producer.override.sasl.mechanism": "PLAIN"}
    assert client_overrides("All", props, PRODUCER_OVERRIDE_PREFIX) == {
        "linger.ms": "1",
        "sasl.mechanism": "PLAIN",
    }
    with pytest.raises(
        ConnectException, match=re.escape("The 'Principal' policy does not allow 'linger.ms'")
    ):
        client_overrides("Principal", props, PRODUCER_OVERRIDE_PREFIX)
    assert client_overrides(
        "Principal", {"producer.override.sasl.mechanism": "PLAIN"}, PRODUCER_OVERRIDE_PREFIX
    ) == {"sasl.mechanism": "PLAIN"}
    with pytest.raises(ConnectException, match=re.escape("'None' policy")):
        client_overrides("None", props, PRODUCER_OVERRIDE_PREFIX)
    allow = AllowlistPolicy(["linger.ms"])
    assert client_overrides(
        allow, {"producer.override.linger.ms": "1"}, PRODUCER_OVERRIDE_PREFIX
    ) == {"linger.ms": "1"}
    with pytest.raises(ConnectException) as e:
        client_overrides(
            allow, {**props, "producer.override.ssl.key.password": "pw-9x"}, "producer.override."
        )
    text = str(e.value)
    assert "The 'Allowlist' policy does not allow 'sasl.mechanism'" in text
    assert "'ssl.key.password'" in text and "pw-9x" not in text and "PLAIN" not in text


def test_task_builder_enforces_the_worker_policy() -> None:
    config = WorkerConfig({**BASE, POLICY: "Allowlist", ALLOWLIST: "max.poll.records"})
    builder = TaskBuilder(config, Plugins([]), None, None)  # type: ignore[arg-type]
    task = ConnectorTaskId("c", 0)
    ok = SinkConnectorConfig(
        {
            "name": "c",
            "connector.class": "X",
            "topics": "t",
            "consumer.override.max.poll.records": "7",
        }
    )
    assert builder.consumer_props(task, ok)["max.poll.records"] == "7"
    bad = SinkConnectorConfig(
        {"name": "c", "connector.class": "X", "topics": "t", "consumer.override.client.id": "me"}
    )
    with pytest.raises(ConnectException, match=re.escape("does not allow 'client.id'")):
        builder.consumer_props(task, bad)
    with pytest.raises(ConnectException, match=re.escape("does not allow 'acks'")):
        builder.producer_props(task, {"producer.override.acks": "1"})
    with pytest.raises(ConnectException, match=re.escape("does not allow 'client.id'")):
        builder.admin_props({"admin.override.client.id": "a"})


def test_secret_client_keys() -> None:
    for key in (
        "sasl.jaas.config",
        "consumer.override.sasl.jaas.config",
        "producer.ssl.key.password",
        "admin.override.sasl.password",
        "ssl.truststore.password",
    ):
        assert is_secret_client_key(key), key
    for key in ("sasl.mechanism", "ssl.keystore.location", "consumer.override.client.id"):
        assert not is_secret_client_key(key), key


# -- validation ---------------------------------------------------------------------------


class _Task(SinkTask):
    def version(self) -> str:
        return "1"

    def start(self, props):  # type: ignore[no-untyped-def]
        pass

    def put(self, records):  # type: ignore[no-untyped-def]
        pass

    def stop(self) -> None:
        pass


class PolicySinkConnector(SinkConnector):
    def version(self) -> str:
        return "1"

    def start(self, props):  # type: ignore[no-untyped-def]
        pass

    def task_class(self):  # type: ignore[no-untyped-def]
        return _Task

    def task_configs(self, max_tasks):  # type: ignore[no-untyped-def]
        return [{}]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("x", ConfigType.STRING, "", None, Importance.LOW, "x")


def _validator(**worker: str) -> ConnectorValidator:
    plugins = Plugins([PluginEntry("sink", "com.example.PolicySinkConnector", PolicySinkConnector)])
    return ConnectorValidator(plugins, worker_config=WorkerConfig({**BASE, **worker}))


def _overrides(infos) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    return {
        c.value.name: c
        for c in infos.configs
        if c.value is not None and c.value.name.startswith(CONSUMER_OVERRIDE_PREFIX)
    }


SINK = {
    "connector.class": "com.example.PolicySinkConnector",
    "name": "p",
    "topics": "t",
    "consumer.override.client.id": "c",
    "consumer.override.max.poll.records": "5",
    "consumer.override.sasl.jaas.config": 'X required password="jaas-pw-1";',
}


def test_validation_with_allowlist_reports_each_refused_key() -> None:
    infos = _validator(**{POLICY: "Allowlist", ALLOWLIST: "client.id"}).validate(SINK)
    found = _overrides(infos)
    assert infos.error_count == 2
    assert found["consumer.override.client.id"].value.errors == []
    assert found["consumer.override.max.poll.records"].value.errors == [
        "The 'Allowlist' policy does not allow 'max.poll.records' to be overridden in the "
        "connector configuration."
    ]
    jaas = found["consumer.override.sasl.jaas.config"]
    assert jaas.value.errors == [
        "The 'Allowlist' policy does not allow 'sasl.jaas.config' to be overridden in the "
        "connector configuration."
    ]
    # Kafka parses overrides with the client's ConfigDef: a PASSWORD setting shows [hidden]
    assert jaas.value.value == "[hidden]"
    assert jaas.definition is not None and jaas.definition.type == "PASSWORD"
    assert found["consumer.override.client.id"].definition is None


@pytest.mark.parametrize(
    ("policy", "errors"), [("All", 0), ("None", 3), ("Principal", 2), ("Allowlist", 3)]
)
def test_validation_error_counts_per_policy(policy: str, errors: int) -> None:
    infos = _validator(**{POLICY: policy}).validate(SINK)
    assert infos.error_count == errors
    assert _overrides(infos)["consumer.override.sasl.jaas.config"].value.value == "[hidden]"


def test_validation_without_worker_config_takes_the_policy_name() -> None:
    plugins = Plugins([PluginEntry("sink", "com.example.PolicySinkConnector", PolicySinkConnector)])
    assert ConnectorValidator(plugins, override_policy="None").validate(SINK).error_count == 3
