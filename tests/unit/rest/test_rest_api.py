"""REST API over a real StandaloneHerder and real Plugins (explicit entries): exact JSON bodies
and status codes for the endpoints that need no running Worker (validation, plugins, loggers,
health, error mapping). Worker-backed flows are in tests/integration/test_standalone_*.py."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient

from kconnect.api import (
    ConfigDef,
    ConfigType,
    Importance,
    SinkConnector,
    SinkTask,
    SourceConnector,
    SourceTask,
)
from kconnect.config_providers.file import FileConfigProvider
from kconnect.rest.app import create_app
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins


class _Task(SourceTask):
    def version(self):
        return "1.0"

    def start(self, props):
        pass

    def poll(self):
        return None

    def stop(self):
        pass


class DemoSourceConnector(SourceConnector):
    """A small source connector whose config has a required string and a password."""

    def version(self):
        return "1.2.3"

    def start(self, props):
        self.props = dict(props)

    def task_class(self):
        return _Task

    def task_configs(self, max_tasks):
        return [dict(self.props)]

    def stop(self):
        pass

    def config(self):
        return (
            ConfigDef()
            .define("topic", ConfigType.STRING, importance=Importance.HIGH, documentation="Topic.")
            .define("db.password", ConfigType.PASSWORD, "", None, Importance.HIGH, "Password.")
        )


class _SinkTask(SinkTask):
    def version(self):
        return "1.0"

    def start(self, props):
        pass

    def put(self, records):
        pass

    def stop(self):
        pass


class DemoSinkConnector(SinkConnector):
    def start(self, props):
        pass

    def task_class(self):
        return _SinkTask

    def task_configs(self, max_tasks):
        return [{}]

    def stop(self):
        pass

    def config(self):
        return ConfigDef()


SOURCE = "com.example.DemoSourceConnector"
SINK = "com.example.DemoSinkConnector"


@pytest.fixture
def secrets(tmp_path):
    path = tmp_path / "secrets.properties"
    path.write_text("pw=hunter2\ntopic=secret-topic\n")
    return path


@pytest.fixture
def client(secrets):
    plugins = Plugins(
        [
            PluginEntry("source", SOURCE, DemoSourceConnector),
            PluginEntry("sink", SINK, DemoSinkConnector),
            PluginEntry(
                "converter",
                "org.apache.kafka.connect.storage.StringConverter",
                "kconnect.converters.string_converter:StringConverter",
            ),
        ]
    )
    provider = FileConfigProvider()
    provider.configure({})
    herder = StandaloneHerder(
        None, plugins, config_transformer=ConfigTransformer({"file": provider})
    )
    with TestClient(create_app(herder)) as c:
        c.herder = herder
        yield c


def _value(infos, name):
    return next(c["value"] for c in infos["configs"] if c["value"] and c["value"]["name"] == name)


def test_validate_shape_and_password_hidden(client):
    r = client.put(
        "/connector-plugins/DemoSource/config/validate",
        json={
            "connector.class": "DemoSource",
            "name": "x",
            "topic": "t",
            "db.password": "pw",
            "tasks.max": "0",
        },
    )
    assert r.status_code == 200
    body = r.json()
    assert body["name"] == "DemoSource"
    assert body["error_count"] == 1
    assert body["groups"][:4] == ["Common", "Transforms", "Predicates", "Error Handling"]
    assert _value(body, "db.password")["value"] == "[hidden]"
    assert _value(body, "tasks.max")["errors"] == [
        "Invalid value 0 for configuration tasks.max: Value must be at least 1"
    ]
    name_def = next(
        c["definition"]
        for c in body["configs"]
        if c["definition"] and c["definition"]["name"] == "name"
    )
    assert set(name_def) == {
        "name", "type", "required", "default_value", "importance", "documentation",
        "group", "order", "width", "display_name", "dependents",
    }  # fmt: skip
    assert name_def["required"] is True and name_def["type"] == "STRING"


def test_validate_shows_variables_not_secrets(client, secrets):
    r = client.put(
        "/connector-plugins/DemoSourceConnector/config/validate",
        json={"connector.class": SOURCE, "name": "x", "topic": f"${{file:{secrets}:topic}}"},
    )
    assert r.status_code == 200
    assert _value(r.json(), "topic")["value"] == f"${{file:{secrets}:topic}}"
    assert "secret-topic" not in r.text


def test_validate_type_mismatch_and_missing_class(client):
    r = client.put(
        "/connector-plugins/FileStreamSink/config/validate", json={"connector.class": "DemoSource"}
    )
    assert r.status_code == 400
    assert r.json() == {
        "error_code": 400,
        "message": "Included connector type DemoSource does not match request type FileStreamSink",
    }
    r = client.put("/connector-plugins/DemoSource/config/validate", json={"topic": "t"})
    assert r.json() == {
        "error_code": 400,
        "message": "Connector config {topic=t} contains no connector type",
    }


def test_sink_rules_in_validate(client):
    r = client.put(
        "/connector-plugins/DemoSink/config/validate",
        json={"connector.class": "DemoSink", "name": "s"},
    )
    body = r.json()
    assert body["error_count"] == 2
    assert _value(body, "topics")["errors"] == ["Must configure one of topics or topics.regex"]


def test_create_invalid_config_is_400_with_kafka_message(client):
    r = client.post(
        "/connectors",
        json={"name": "bad", "config": {"connector.class": "DemoSource", "tasks.max": "-1"}},
    )
    assert r.status_code == 400
    assert r.json()["message"] == (
        "Connector configuration is invalid and contains the following 2 error(s):\n"
        "Invalid value -1 for configuration tasks.max: Value must be at least 1\n"
        'Missing required configuration "topic" which has no default value.\n'
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )


def test_create_unknown_class_lists_close_names(client):
    r = client.post("/connectors", json={"name": "u", "config": {"connector.class": "DemoSorce"}})
    assert r.status_code == 400
    assert "DemoSorce" in r.json()["message"] and SOURCE in r.json()["message"]


def test_create_name_mismatch_and_bad_bodies(client):
    r = client.post(
        "/connectors", json={"name": "a", "config": {"name": "b", "connector.class": "DemoSource"}}
    )
    assert r.json() == {
        "error_code": 400,
        "message": "Connector name configuration (b) doesn't match connector name in the URL (a)",
    }
    r = client.post(
        "/connectors", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["message"].startswith("Request body is not valid JSON")
    r = client.post("/connectors", json={"name": "a"})
    assert r.status_code == 400 and "'config'" in r.json()["message"]
    r = client.post("/connectors", json={"name": "a", "config": {"x": {"nested": 1}}})
    assert r.status_code == 400 and "'x'" in r.json()["message"]
    r = client.post("/connectors", json={"name": "a", "config": {}, "initial_state": "SLEEPING"})
    assert r.status_code == 400 and "initial_state" in r.json()["message"]


@pytest.mark.parametrize(
    ("method", "path", "status", "message"),
    [
        ("GET", "/connectors/nope", 404, "Connector nope not found"),
        ("GET", "/connectors/nope/config", 404, "Connector nope not found"),
        ("GET", "/connectors/nope/status", 404, "No status found for connector nope"),
        ("GET", "/connectors/nope/tasks", 404, "Connector nope not found"),
        ("GET", "/connectors/nope/tasks/0/status", 404, "No status found for task nope-0"),
        ("POST", "/connectors/nope/restart", 404, "Unknown connector: nope"),
        ("POST", "/connectors/nope/restart?includeTasks=true", 404, "Unknown connector: nope"),
        ("POST", "/connectors/nope/tasks/0/restart", 404, "Unknown connector: nope"),
        ("PUT", "/connectors/nope/pause", 404, "Unknown connector nope"),
        ("PUT", "/connectors/nope/resume", 404, "Unknown connector nope"),
        ("PUT", "/connectors/nope/stop", 404, "Connector nope not found"),
        ("DELETE", "/connectors/nope", 404, "Connector nope not found"),
        ("GET", "/connectors/nope/offsets", 404, "Connector nope not found"),
        ("DELETE", "/connectors/nope/offsets", 404, "Connector nope not found"),
        ("GET", "/connectors/nope/topics", 404, "Connector nope not found"),
        ("GET", "/no/such/path", 404, "HTTP 404 Not Found"),
        ("GET", "/connector-plugins/NoSuchPlugin/config", 404, "Unknown plugin NoSuchPlugin."),
    ],
)
def test_not_found_bodies(client, method, path, status, message):
    r = client.request(method, path)
    assert (r.status_code, r.json()) == (status, {"error_code": status, "message": message})


def test_alter_offsets_requires_offsets(client):
    r = client.patch("/connectors/x/offsets", json={})
    assert r.json() == {
        "error_code": 400,
        "message": "Partitions / offsets need to be provided for an alter offsets request",
    }


def test_empty_list_and_expand(client):
    assert client.get("/connectors").json() == []
    assert client.get("/connectors?expand=status&expand=info").json() == {}


def test_connector_plugins_listing(client):
    assert client.get("/connector-plugins").json() == [
        {"class": SINK, "type": "sink"},
        {"class": SOURCE, "type": "source", "version": "1.2.3"},
    ]
    everything = client.get("/connector-plugins?connectorsOnly=false").json()
    assert [p["type"] for p in everything] == ["sink", "source", "converter"]


def test_kafka_test_connectors_are_not_listed_but_usable():
    """As Kafka's ConnectorPluginsResource did while it shipped them: the Verifiable, Mock and
    Schema connectors are left out of the listing; configs still resolve them."""
    tools = "kconnect.connectors.tools"
    plugins = Plugins(
        [
            PluginEntry("sink", SINK, DemoSinkConnector),
            PluginEntry(
                "source",
                "org.apache.kafka.connect.tools.VerifiableSourceConnector",
                f"{tools}.verifiable_source_connector:VerifiableSourceConnector",
            ),
            PluginEntry(
                "sink",
                "org.apache.kafka.connect.tools.MockSinkConnector",
                f"{tools}.mock_sink_connector:MockSinkConnector",
            ),
        ]
    )
    with TestClient(create_app(StandaloneHerder(None, plugins))) as c:
        assert c.get("/connector-plugins").json() == [{"class": SINK, "type": "sink"}]
        assert [p["class"] for p in c.get("/connector-plugins?connectorsOnly=false").json()] == [
            SINK
        ]
        r = c.put(
            "/connector-plugins/VerifiableSourceConnector/config/validate",
            json={"connector.class": "VerifiableSource", "name": "v", "topic": "t"},
        )
        assert r.status_code == 200
        assert r.json()["error_count"] == 0
        assert c.get("/connector-plugins/MockSinkConnector/config").status_code == 200


def test_plugin_config_connector_keys_first(client):
    r = client.get(f"/connector-plugins/{SOURCE}/config")
    names = [k["name"] for k in r.json()]
    assert names[:2] == ["topic", "db.password"]
    assert "tasks.max" in names and "exactly.once.support" in names and "topics" not in names


def test_health_starting_then_healthy(client):
    r = client.get("/health")
    assert r.status_code == 503 and r.json()["status"] == "starting"
    client.herder.mark_ready()
    assert client.get("/health").json() == {
        "status": "healthy",
        "message": "Worker has completed startup and is ready to handle requests.",
    }


def test_loggers(client):
    logging.getLogger("kc_rest_test.a")
    r = client.put("/admin/loggers/kc_rest_test", json={"level": "debug"})
    assert r.status_code == 200 and r.json() == ["kc_rest_test", "kc_rest_test.a"]
    body = client.get("/admin/loggers/kc_rest_test").json()
    assert body["level"] == "DEBUG" and isinstance(body["last_modified"], int)
    assert "root" in client.get("/admin/loggers").json()
    assert client.put("/admin/loggers/kc_rest_test", json={}).json() == {
        "error_code": 400,
        "message": "Desired 'level' parameter was not specified in request.",
    }
    assert client.put("/admin/loggers/kc_rest_test", json={"level": "LOUD"}).json() == {
        "error_code": 404,
        "message": "invalid log level 'LOUD'.",
    }
    assert (
        client.put("/admin/loggers/kc_rest_test?scope=cluster", json={"level": "INFO"}).status_code
        == 204
    )
    assert client.get("/admin/loggers/kc_rest_test_missing_xyz").json() == {
        "error_code": 404,
        "message": "Logger kc_rest_test_missing_xyz not found.",
    }
    logging.getLogger("kc_rest_test").setLevel(logging.NOTSET)
    logging.getLogger("kc_rest_test.a").setLevel(logging.NOTSET)


def test_openapi_served(client):
    spec = client.get("/openapi.json").json()
    assert "/connectors/{connector}/offsets" in spec["paths"]
    assert "/connector-plugins/{plugin_name}/config/validate" in spec["paths"]


def test_standalone_refuses_the_internal_task_configs_endpoint(client):
    r = client.post("/connectors/c/tasks", json=[{"task.class": "X"}])
    assert r.status_code == 405
    assert r.json() == {
        "error_code": 405,
        "message": "Kafka Connect in standalone mode does not support externally setting "
        "task configurations.",
    }


def test_root_names_the_hot_path_beside_kafka_connects_fields(client):
    from kconnect import _hot_path

    body = client.get("/").json()
    assert {"version", "commit", "kafka_cluster_id"} <= body.keys()
    assert body["kconnect_hot_path"] == _hot_path.describe()
    expected = "native (kconnect_native " if _hot_path.native is not None else "python ("
    assert body["kconnect_hot_path"].startswith(expected)


def test_a_trailing_slash_is_ignored_as_kafka_does(client):
    """Kafka's system tests call ``GET /connector-plugins/``; Jersey answers it as without the
    slash (200, never a 307 redirect), for every path."""
    r = client.get("/connector-plugins/", follow_redirects=False)
    assert r.status_code == 200
    assert r.json() == client.get("/connector-plugins").json()
    assert client.get("/connectors/", follow_redirects=False).json() == []
    r = client.get("/connectors/nope/status/", follow_redirects=False)
    assert r.status_code == 404
    assert r.json()["message"] == "No status found for connector nope"
