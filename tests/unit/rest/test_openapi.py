"""``/openapi.json`` declares what the routes answer: typed bodies with Kafka Connect's field
names, the error shape on every error status, answers without a body where there is none, and
nothing FastAPI invents (422, string bodies). The live check is the schemathesis run in
tests/integration/test_openapi_conformance.py."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from kconnect.rest.app import create_app
from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.plugins.plugins import Plugins

ERROR_REF = {"$ref": "#/components/schemas/ErrorMessage"}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    with TestClient(create_app(StandaloneHerder(None, Plugins([])))) as client:
        r = client.get("/openapi.json")
    assert r.status_code == 200
    return r.json()


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m.upper(), p, op) for p, item in doc["paths"].items() for m, op in item.items()]


def test_every_path_of_kafka_connect_is_documented(doc: dict[str, Any]) -> None:
    ops = {f"{m} {p}" for m, p, _ in _operations(doc)}
    assert {
        "GET /", "GET /health", "GET /connectors", "POST /connectors",
        "GET /connectors/{connector}", "DELETE /connectors/{connector}",
        "GET /connectors/{connector}/config", "PUT /connectors/{connector}/config",
        "PATCH /connectors/{connector}/config", "GET /connectors/{connector}/status",
        "POST /connectors/{connector}/restart", "PUT /connectors/{connector}/stop",
        "PUT /connectors/{connector}/pause", "PUT /connectors/{connector}/resume",
        "GET /connectors/{connector}/tasks", "POST /connectors/{connector}/tasks",
        "GET /connectors/{connector}/tasks/{task}/status",
        "POST /connectors/{connector}/tasks/{task}/restart",
        "GET /connectors/{connector}/topics", "PUT /connectors/{connector}/topics/reset",
        "GET /connectors/{connector}/offsets", "PATCH /connectors/{connector}/offsets",
        "DELETE /connectors/{connector}/offsets", "GET /connector-plugins",
        "GET /connector-plugins/{plugin_name}/config",
        "PUT /connector-plugins/{plugin_name}/config/validate", "GET /admin/loggers",
        "GET /admin/loggers/{logger}", "PUT /admin/loggers/{logger}", "GET /metrics",
    } <= ops  # fmt: skip


def test_every_answer_has_a_declared_body_or_none(doc: dict[str, Any]) -> None:
    for method, path, op in _operations(doc):
        answers = op["responses"]
        assert "422" not in answers, (method, path)
        for status, answer in answers.items():
            content = answer.get("content", {})
            if int(status) >= 400 and path != "/health":
                assert content == {"application/json": {"schema": ERROR_REF}}, (method, path)
            for media, body in content.items():
                if media == "text/plain":
                    assert path == "/metrics"
                    continue
                assert media == "application/json", (method, path, status)
                assert set(body["schema"]) == {"$ref"}, (method, path, status, body)


def test_accepted_and_no_content_answers_have_no_body(doc: dict[str, Any]) -> None:
    paths = doc["paths"]
    for path, method in [
        ("/connectors/{connector}/pause", "put"),
        ("/connectors/{connector}/resume", "put"),
        ("/connectors/{connector}/topics/reset", "put"),
    ]:
        assert paths[path][method]["responses"]["202"] == {"description": "Accepted"}
    restart = paths["/connectors/{connector}/restart"]["post"]["responses"]
    assert "content" in restart["202"] and "content" not in restart["204"]
    for path, method in [
        ("/connectors/{connector}", "delete"),
        ("/connectors/{connector}/stop", "put"),
        ("/connectors/{connector}/tasks/{task}/restart", "post"),
    ]:
        assert set(paths[path][method]["responses"]["204"]) == {"description"}


def test_error_statuses_per_path(doc: dict[str, Any]) -> None:
    def statuses(path: str, method: str) -> set[int]:
        return {int(s) for s in doc["paths"][path][method]["responses"]}

    assert statuses("/connectors", "post") == {201, 400, 409, 500}
    assert statuses("/connectors/{connector}", "get") == {200, 404, 500}
    assert statuses("/connectors/{connector}/topics", "get") == {200, 403, 404, 500}
    assert statuses("/connectors/{connector}/offsets", "patch") == {200, 400, 404, 409, 500}
    assert statuses("/health", "get") == {200, 500, 503}
    assert statuses("/admin/loggers/{logger}", "put") == {200, 204, 400, 404, 500}


def test_schemas_have_kafka_connect_field_names(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    assert "HTTPValidationError" not in schemas
    assert set(schemas["ErrorMessage"]["required"]) == {"error_code", "message"}
    assert set(schemas["ConnectorInfo"]["properties"]) == {"name", "config", "tasks", "type"}
    assert set(schemas["ConnectorStateInfo"]["properties"]) == {
        "name", "connector", "tasks", "type"
    }  # fmt: skip
    assert set(schemas["TaskState"]["properties"]) == {
        "id", "state", "worker_id", "trace", "version"
    }  # fmt: skip
    assert "class" in schemas["PluginInfo"]["properties"]
    assert "order" in schemas["ConfigKeyInfo"]["properties"]
    assert set(schemas["ConfigInfos"]["properties"]) == {
        "name", "error_count", "groups", "configs"
    }  # fmt: skip
    body = doc["paths"]["/connectors"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/CreateConnectorRequest"}


def test_admin_paths_follow_admin_listeners() -> None:
    from kconnect.runtime.config.worker_config import StandaloneConfig

    def paths(**props: str) -> set[str]:
        config = StandaloneConfig(
            {"bootstrap.servers": "127.0.0.1:9", "offset.storage.file.filename": "/tmp/x",
             "key.converter": "org.apache.kafka.connect.storage.StringConverter",
             "value.converter": "org.apache.kafka.connect.storage.StringConverter", **props}
        )  # fmt: skip
        app = create_app(StandaloneHerder(None, Plugins([])), worker_config=config)
        return set(app.openapi()["paths"])

    assert "/admin/loggers" in paths()
    assert "/admin/loggers" not in paths(**{"admin.listeners": ""})
    assert "/admin/loggers" not in paths(**{"admin.listeners": "http://127.0.0.1:0"})
