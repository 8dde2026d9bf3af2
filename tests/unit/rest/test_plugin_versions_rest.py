"""KIP-891 (Kafka 4.1) plugin versions over REST: ``GET /connector-plugins/{p}/config?version=``
and the ``*.plugin.version`` keys, converter defaults and recommendations in validate."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from kconnect.api import ConfigDef, ConfigType, Importance, SourceConnector, SourceTask
from kconnect.rest.app import create_app
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins

STRING = "org.apache.kafka.connect.storage.StringConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
HEADER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
SOURCE = "com.example.VersionedSourceConnector"
INSERT = "org.apache.kafka.connect.transforms.InsertField$Value"


class _Task(SourceTask):
    def version(self) -> str:
        return "2.5.0"

    def start(self, props: Any) -> None:
        pass

    def poll(self) -> None:
        return None

    def stop(self) -> None:
        pass


class VersionedSourceConnector(SourceConnector):
    def version(self) -> str:
        return "2.5.0"

    def start(self, props: Any) -> None:
        pass

    def task_class(self) -> type:
        return _Task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{}]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("topic", ConfigType.STRING, "t", None, Importance.HIGH, "Topic.")


@pytest.fixture
def plugins() -> Plugins:
    return Plugins(
        [
            PluginEntry("source", SOURCE, VersionedSourceConnector),
            PluginEntry(
                "converter", STRING, "kconnect.converters.string_converter:StringConverter"
            ),
            PluginEntry(
                "header_converter", STRING, "kconnect.converters.string_converter:StringConverter"
            ),
            PluginEntry("converter", JSON, "kconnect.converters.json_converter:JsonConverter"),
            PluginEntry(
                "header_converter",
                HEADER,
                "kconnect.converters.simple_header_converter:SimpleHeaderConverter",
            ),
            PluginEntry(
                "transformation", INSERT, "kconnect.transforms.insert_field:InsertFieldValue"
            ),
        ]
    )


@pytest.fixture
def client(plugins: Plugins) -> Any:
    worker_config = WorkerConfig(
        {"bootstrap.servers": "localhost:9092", "key.converter": STRING, "value.converter": JSON}
    )
    herder = StandaloneHerder(None, plugins, worker_config=worker_config)
    with TestClient(create_app(herder)) as c:
        yield c


def _version_of(plugins: Plugins, kind: str, name: str) -> str:
    return plugins.resolve(kind, name).version


def _configs(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {(c["value"] or c["definition"])["name"]: c for c in body["configs"]}


def test_plugin_config_version_query(client: Any) -> None:
    keys = client.get(f"/connector-plugins/{SOURCE}/config").json()
    names = [k["name"] for k in keys]
    assert names[:4] == ["topic", "name", "connector.class", "connector.plugin.version"]
    version_key = keys[3]
    assert version_key["default_value"] == "2.5.0"  # the installed (latest) version
    assert (version_key["type"], version_key["group"], version_key["order"]) == (
        "STRING",
        "Common",
        3,
    )
    for spec in ("latest", "2.5.0", "[2.0,3.0)", "(,2.5.0]", "[2,3),[4,5)"):
        assert (
            client.get(f"/connector-plugins/{SOURCE}/config", params={"version": spec}).json()
            == keys
        )
    r = client.get(f"/connector-plugins/{SOURCE}/config", params={"version": "[1.0,2.0)"})
    assert r.status_code == 400
    assert r.json()["message"] == (
        f"Plugin {SOURCE} not found that matches the version range [1.0,2.0), "
        "available versions: [2.5.0]"
    )
    r = client.get(f"/connector-plugins/{SOURCE}/config", params={"version": "2.4"})
    assert r.status_code == 400 and "version range [2.4,2.4]" in r.json()["message"]
    r = client.get(f"/connector-plugins/{SOURCE}/config", params={"version": "[1.0"})
    assert r.json() == {"error_code": 400, "message": "Invalid version specification: [1.0"}
    r = client.get("/connector-plugins/NoSuch/config", params={"version": "1.0"})
    assert r.status_code == 404


def test_converter_version_lists_every_kind_it_is_installed_as(
    client: Any, plugins: Plugins
) -> None:
    v = _version_of(plugins, "converter", STRING)
    r = client.get("/connector-plugins/StringConverter/config", params={"version": "(,0.0.1]"})
    assert r.json()["message"] == (
        f"Plugin {STRING} not found that matches the version range (,0.0.1], "
        f"available versions: [{v}, {v}]"
    )


def test_validate_fills_converters_from_worker(client: Any, plugins: Plugins) -> None:
    body = client.put(
        f"/connector-plugins/{SOURCE}/config/validate",
        json={"connector.class": SOURCE, "name": "c"},
    ).json()
    assert body["error_count"] == 0
    c = _configs(body)
    assert c["connector.plugin.version"]["value"]["value"] == "2.5.0"
    assert c["connector.plugin.version"]["value"]["recommended_values"] == ["2.5.0"]
    key = c["key.converter"]
    assert key["definition"]["default_value"] == STRING
    assert key["value"]["value"] == STRING
    assert key["value"]["recommended_values"] == [JSON, STRING]  # installed converters
    assert c["value.converter"]["value"]["value"] == JSON
    assert c["header.converter"]["value"]["value"] == HEADER  # the worker's default
    assert c["header.converter"]["value"]["recommended_values"] == [HEADER, STRING]
    for name, kind, cls in (
        ("key.converter.plugin.version", "converter", STRING),
        ("value.converter.plugin.version", "converter", JSON),
        ("header.converter.plugin.version", "header_converter", HEADER),
    ):
        version = _version_of(plugins, kind, cls)
        assert c[name]["definition"]["default_value"] == version
        assert c[name]["value"]["value"] == version
        assert c[name]["value"]["recommended_values"] == [version]
        assert (c[name]["definition"]["group"], c[name]["definition"]["width"]) == (
            "Common",
            "SHORT",
        )
    assert [n for n in c][:11] == [
        "name",
        "connector.class",
        "connector.plugin.version",
        "tasks.max",
        "tasks.max.enforce",
        "key.converter",
        "key.converter.plugin.version",
        "value.converter",
        "value.converter.plugin.version",
        "header.converter",
        "header.converter.plugin.version",
    ]


def test_validate_own_converter_alias_shows_class_and_its_version(
    client: Any, plugins: Plugins
) -> None:
    body = client.put(
        f"/connector-plugins/{SOURCE}/config/validate",
        json={"connector.class": SOURCE, "name": "c", "key.converter": "JsonConverter"},
    ).json()
    c = _configs(body)
    assert c["key.converter"]["value"]["value"] == JSON
    assert c["key.converter"]["definition"]["default_value"] == STRING  # still the worker's
    assert c["key.converter.plugin.version"]["definition"]["default_value"] == _version_of(
        plugins, "converter", JSON
    )
    # JsonConverter's own keys follow, in the order Kafka's HashMap gives them
    own = [n for n in c if n.startswith("key.converter.") and n != "key.converter.plugin.version"]
    assert own[:2] == ["key.converter.decimal.format", "key.converter.converter.type"]


def test_validate_converter_version_errors(client: Any, plugins: Plugins) -> None:
    v = _version_of(plugins, "converter", JSON)
    body = client.put(
        f"/connector-plugins/{SOURCE}/config/validate",
        json={
            "connector.class": SOURCE,
            "name": "c",
            "value.converter": "JsonConverter",
            "value.converter.plugin.version": "0.0.1",
            "key.converter.plugin.version": "[1.0",
        },
    ).json()
    c = _configs(body)
    unmet = (
        f"Plugin {JSON} not found that matches the version range [0.0.1,0.0.1], "
        f"available versions: [{v}]"
    )
    assert c["value.converter"]["value"]["errors"] == [unmet]
    assert c["value.converter.plugin.version"]["value"]["errors"] == [unmet]
    assert c["key.converter.plugin.version"]["value"]["errors"] == ["Unbounded range: [1.0"]
    assert body["error_count"] == 3
    # no converter keys of JsonConverter: its version could not be loaded
    assert not any(n.startswith("value.converter.schemas") for n in c)


def test_validate_unmet_connector_version(client: Any) -> None:
    body = client.put(
        f"/connector-plugins/{SOURCE}/config/validate",
        json={"connector.class": SOURCE, "name": "c", "connector.plugin.version": "[3.0,)"},
    ).json()
    message = f"Plugin {SOURCE} not found that matches the version range [3.0,), available versions: [2.5.0]"
    c = _configs(body)
    assert body["error_count"] == 2
    assert body["groups"] == ["Common", "Transforms", "Predicates", "Error Handling"]
    assert c["connector.class"]["value"]["errors"] == [message]
    assert c["connector.plugin.version"]["value"]["errors"] == [message]
    assert c["connector.plugin.version"]["value"]["recommended_values"] == ["2.5.0"]
    assert "topic" not in c  # the connector's own keys are not validated
    assert c["key.converter"]["value"]["value"] is None  # no worker defaults here


def test_validate_bad_connector_version_spec_is_400(client: Any) -> None:
    r = client.put(
        f"/connector-plugins/{SOURCE}/config/validate",
        json={"connector.class": SOURCE, "name": "c", "connector.plugin.version": "(1.0)"},
    )
    assert r.json() == {
        "error_code": 400,
        "message": "Single version must be surrounded by []: (1.0)",
    }


def test_validate_transform_version(client: Any, plugins: Plugins) -> None:
    v = _version_of(plugins, "transformation", INSERT)
    base = {
        "connector.class": SOURCE,
        "name": "c",
        "transforms": "t",
        "transforms.t.type": "InsertField$Value",
        "transforms.t.static.field": "f",
        "transforms.t.static.value": "x",
    }
    c = _configs(client.put(f"/connector-plugins/{SOURCE}/config/validate", json=base).json())
    key = c["transforms.t.plugin.version"]
    assert key["definition"]["default_value"] == v
    assert (key["definition"]["group"], key["definition"]["order"]) == ("Transforms: t", 1)
    assert key["value"]["recommended_values"] == [v]
    assert c["transforms.t.type"]["value"]["value"] == INSERT  # the class, not the alias
    body = client.put(
        f"/connector-plugins/{SOURCE}/config/validate",
        json={**base, "transforms.t.plugin.version": "[1.0,)"},
    ).json()
    assert _configs(body)["transforms.t.plugin.version"]["value"]["errors"] == [
        f"Plugin {INSERT} not found that matches the version range [1.0,), "
        f"available versions: [{v}]"
    ]
    assert body["error_count"] == 1
