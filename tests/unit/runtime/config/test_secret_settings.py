"""Which settings the runtime treats as secrets, and where it hides them: validation results,
REST messages, status traces, provider values, task processes' builders, JDBC URLs."""

from __future__ import annotations

import pytest

from kconnect.api import (
    Config,
    ConfigDef,
    ConfigException,
    ConfigType,
    ConnectException,
    Importance,
    SinkConnector,
    SinkTask,
)
from kconnect.api.secrets import redact
from kconnect.config_providers.file import FileConfigProvider
from kconnect.runtime.common.failures import RemoteFailure
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.config.connector_config import SinkConnectorConfig
from kconnect.runtime.config.connector_validation import ConnectorValidator
from kconnect.runtime.config.secret_settings import (
    looks_secret,
    mask_secret_values,
    remember_config_secrets,
)
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.herder.herder_status import format_trace
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.task_builder import TaskBuilder

SECRET = "kc-secret-PA55-xyz"
ECHO = "com.example.EchoSinkConnector"


def test_names_that_hold_secrets() -> None:
    for key in (
        "connection.password",
        "api.clientSecret",
        "consumer.override.sasl.jaas.config",
        "producer.ssl.key.password",
        "oauth.client.secret",
    ):
        assert looks_secret(key), key
    for key in ("connection.user", "topics", "password.encoder.class.name.x"):
        assert not looks_secret(key), key


def test_remember_config_secrets() -> None:
    remember_config_secrets(
        {
            "token.value": "tok-12345",
            "sasl.jaas.config": 'PlainLoginModule required username="u" password="jaas-pw-1";',
            "connection.password": "pw-from-name",
            "topics": "topic-not-secret",
        },
        password_keys={"token.value"},
    )
    text = redact("tok-12345 jaas-pw-1 pw-from-name topic-not-secret")
    assert text == "[hidden] [hidden] [hidden] topic-not-secret"


def test_mask_secret_values() -> None:
    assert mask_secret_values({"name": "x", "connection.password": SECRET, "t": None}) == {
        "name": "x",
        "connection.password": "[hidden]",
        "t": None,
    }


def test_provider_values_are_remembered(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "s.properties"
    path.write_text(f"pw={SECRET}\n")
    provider = FileConfigProvider()
    provider.configure({})
    out = ConfigTransformer({"file": provider}).transform({"x": f"${{file:{path}:pw}}"})
    assert out["x"] == SECRET
    assert redact(f"echo {SECRET}") == "echo [hidden]"


def test_worker_secrets_are_remembered() -> None:
    WorkerConfig(
        {
            "bootstrap.servers": "b:1",
            "key.converter": "x",
            "value.converter": "x",
            "ssl.truststore.password": "trust-pw-1",
            "consumer.sasl.jaas.config": 'X required password="cons-pw-1";',
        }
    )
    assert redact("trust-pw-1 cons-pw-1") == "[hidden] [hidden]"


def test_status_traces_hide_secrets() -> None:
    remember_config_secrets({"connection.password": SECRET})
    try:
        raise ConnectException(f"cannot log in with {SECRET}")
    except ConnectException as e:
        trace = format_trace(e)
    assert "ConnectException: cannot log in with [hidden]" in trace and SECRET not in trace
    # a trace formatted in a task process is redacted again by the worker
    assert SECRET not in format_trace(RemoteFailure("x", f"Traceback ...\nError: {SECRET}\n"))


# -- validation ---------------------------------------------------------------------------


class _Task(SinkTask):
    def version(self) -> str:
        return "1"

    def start(self, props):  # type: ignore[no-untyped-def]
        raise ConnectException(f"refusing to start with {props}")

    def put(self, records):  # type: ignore[no-untyped-def]
        pass

    def stop(self) -> None:
        pass


class EchoSinkConnector(SinkConnector):
    """Declares ``token`` PASSWORD, then quotes it in its validation errors."""

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
        return ConfigDef().define("token", ConfigType.PASSWORD, None, None, Importance.HIGH, "t")

    def validate(self, props):  # type: ignore[no-untyped-def]
        if props.get("fail") == "raise":
            raise ValueError(f"cannot validate {props}")
        result: Config = super().validate(props)
        for v in result.config_values():
            if v.name == "token":
                v.add_error_message(f"token {props.get('token')} is expired")
        return result


def _plugins() -> Plugins:
    return Plugins([PluginEntry("sink", ECHO, EchoSinkConnector)])


def test_validation_hides_secrets_in_messages() -> None:
    validator = ConnectorValidator(_plugins())
    infos = validator.validate(
        {"connector.class": ECHO, "name": "e", "topics": "t", "token": SECRET}
    )
    token = next(c.value for c in infos.configs if c.value and c.value.name == "token")
    assert token.value == "[hidden]"
    assert token.errors == ["token [hidden] is expired"]
    with pytest.raises(BadRequestException) as e:
        validator.validate({"connector.class": ECHO, "token": SECRET, "fail": "raise"})
    assert SECRET not in str(e.value) and "cannot validate" in str(e.value)


def test_no_connector_type_message_masks_secret_values() -> None:
    with pytest.raises(BadRequestException) as e:
        ConnectorValidator(_plugins()).validate(
            {"name": "x", "connection.password": "raw-pw-99", "topics": "t"}
        )
    assert str(e.value) == (
        "Connector config {name=x, connection.password=[hidden], topics=t} contains no connector "
        "type"
    )


def test_validator_remembers_declared_password_keys() -> None:
    ConnectorValidator(_plugins()).remember_secrets({"connector.class": ECHO, "token": "tok-777"})
    assert redact("tok-777") == "[hidden]"


def test_task_builder_remembers_the_tasks_secrets() -> None:
    config = WorkerConfig(
        {"bootstrap.servers": "b:1", "key.converter": "x", "value.converter": "x"}
    )
    builder = TaskBuilder(config, _plugins(), None, None)  # type: ignore[arg-type]
    sink = SinkConnectorConfig(
        {"name": "e", "connector.class": ECHO, "topics": "t", "token": "tok-888"}
    )
    builder.remember_secrets(sink, {"token": "tok-999", "other": "plain-999"})
    assert redact("tok-888 tok-999 plain-999") == "[hidden] [hidden] plain-999"


def test_jdbc_url_passwords_are_remembered() -> None:
    pytest.importorskip("psycopg")
    from kconnect.connectors.jdbc.common.url import connection_spec, parse_jdbc_url

    parse_jdbc_url("jdbc:postgresql://h:5432/db?user=u&password=url%2Dpw%2D1")
    assert redact("url-pw-1 url%2Dpw%2D1") == "[hidden] [hidden]"
    connection_spec({"connection.url": "jdbc:postgresql://h/db", "connection.password": "cp-12"})
    assert redact("cp-12") == "[hidden]"
    with pytest.raises(ConfigException) as e:
        parse_jdbc_url("mysql://h/db?password=never-shown")
    assert "never-shown" not in str(e.value)


def test_credentials_inside_values_are_remembered() -> None:
    remember_config_secrets(
        {
            "connection.url": "jdbc:postgresql://h:5432/db?user=u&password=p%40ss-11&ssl=true",
            "other.url": "https://svc:tok-22-x@example.com/path",
            "plain.url": "jdbc:postgresql://127.0.0.1:5432/kcdb",
        }
    )
    assert redact("p%40ss-11 p@ss-11 tok-22-x 127.0.0.1:5432") == (
        "[hidden] [hidden] [hidden] 127.0.0.1:5432"
    )


def test_validation_hides_a_password_inside_a_url_value() -> None:
    infos = ConnectorValidator(_plugins()).validate(
        {
            "connector.class": ECHO,
            "name": "jdbc:postgresql://h/db?password=url-pw-33",
            "topics": "t",
        }
    )
    url = next(c.value for c in infos.configs if c.value and c.value.name == "name")
    assert url.value == "jdbc:postgresql://h/db?password=[hidden]"
