"""Retries, back-off and fail-over of the registry client, against a real local HTTP server that
answers with the statuses a registry (or its proxy) sends when it is busy or broken."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kconnect.schema_registry.client import RegistrySchema, SchemaRegistryClient
from kconnect.schema_registry.config import SerdeSettings
from kconnect.schema_registry.errors import (
    RegistryTimeoutException,
    RestClientException,
    SerializationException,
    ThrottlingQuotaExceededException,
    to_kafka_exception,
)

SCHEMA = '{"type":"string"}'


class Server:
    """Answers each request with the next (status, body) of ``script``, then 200 + a schema."""

    def __init__(self) -> None:
        self.script: list[tuple[int, str]] = []
        self.seen: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.seen.append(self.path)
                status, body = outer.script.pop(0) if outer.script else (200, "")
                if status == 200 and not body:
                    body = json.dumps({"schema": SCHEMA})
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def _client(urls: str, sleeps: list[float], **extra: str) -> SchemaRegistryClient:
    settings = SerdeSettings.from_configs({"schema.registry.url": urls, **extra}, False).registry
    return SchemaRegistryClient(settings, sleep=sleeps.append)


def _error(code: int, message: str) -> str:
    return json.dumps({"error_code": code, "message": message})


def test_retries_503_and_429_with_jittered_exponential_back_off(server: Server) -> None:
    server.script = [(503, _error(50301, "busy")), (429, _error(42901, "slow down"))]
    sleeps: list[float] = []
    client = _client(server.url, sleeps, **{"retries.wait.ms": "100", "retries.max.wait.ms": "150"})
    assert client.schema_by_id(1) == RegistrySchema("AVRO", SCHEMA)
    assert len(server.seen) == 3
    assert len(sleeps) == 2
    assert 0 < sleeps[0] <= 0.1  # full jitter below retries.wait.ms
    assert 0 < sleeps[1] <= 0.15  # 200 ms capped by retries.max.wait.ms
    client.close()


def test_gives_up_after_max_retries(server: Server) -> None:
    server.script = [(500, _error(50001, "boom"))] * 3
    sleeps: list[float] = []
    client = _client(server.url, sleeps, **{"max.retries": "2", "retries.wait.ms": "1"})
    with pytest.raises(RestClientException) as e:
        client.schema_by_id(1)
    assert (e.value.status, e.value.error_code) == (500, 50001)
    assert str(e.value) == "boom; error code: 50001"
    assert len(server.seen) == 3
    client.close()


def test_client_errors_are_not_retried(server: Server) -> None:
    server.script = [(422, _error(42201, "Invalid schema"))]
    client = _client(server.url, [])
    with pytest.raises(RestClientException, match="Invalid schema; error code: 42201"):
        client.schema_by_id(1)
    assert len(server.seen) == 1
    client.close()


def test_unparsable_error_body(server: Server) -> None:
    server.script = [(404, "<html>nope</html>")]
    client = _client(server.url, [])
    with pytest.raises(RestClientException) as e:
        client.schema_by_id(1)
    assert e.value.error_code == 50005
    assert "Unable to parse error message from schema registry" in e.value.message
    client.close()


def test_fail_over_on_a_retriable_status(server: Server) -> None:
    other = Server()
    try:
        server.script = [(503, _error(50301, "busy"))]
        client = _client(f"{server.url},{other.url}", [], **{"max.retries": "0"})
        assert client.schema_by_id(1).text == SCHEMA
        assert (len(server.seen), len(other.seen)) == (1, 1)
        client.schema_by_id(2)  # the second URL is now current
        assert (len(server.seen), len(other.seen)) == (1, 2)
        client.close()
    finally:
        other.close()


def test_concurrent_misses_make_one_request(server: Server) -> None:
    client = _client(server.url, [])
    threads = [threading.Thread(target=client.schema_by_id, args=(7,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert server.seen == ["/schemas/ids/7?fetchMaxId=false"]
    client.close()


@pytest.mark.parametrize(
    ("status", "kind", "java"),
    [
        (401, Exception, "org.apache.kafka.common.errors.AuthenticationException"),
        (403, Exception, "org.apache.kafka.common.errors.AuthorizationException"),
        (429, ThrottlingQuotaExceededException, None),
        (408, RegistryTimeoutException, "org.apache.kafka.common.errors.TimeoutException"),
        (500, RegistryTimeoutException, None),
        (503, RegistryTimeoutException, None),
        (504, RegistryTimeoutException, None),
        (502, Exception, "org.apache.kafka.common.errors.DisconnectException"),
        (404, SerializationException, "org.apache.kafka.common.errors.SerializationException"),
        (422, SerializationException, None),
    ],
)
def test_to_kafka_exception(status: int, kind: type[Exception], java: str | None) -> None:
    cause = RestClientException("Schema not found", status, 40403)
    e = to_kafka_exception(cause, "Error retrieving Avro schema for id 5")
    assert isinstance(e, kind)
    assert e.__cause__ is cause
    if java is not None:
        assert getattr(e, "java_class_name", None) == java
    if status == 429:
        assert str(e) == "Schema not found; error code: 40403"
    else:
        assert str(e) == "Error retrieving Avro schema for id 5"
