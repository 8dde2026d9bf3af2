"""The registry client against a real registry (Apicurio's Confluent API in the local stack)."""

from __future__ import annotations

import json
import logging
import socket
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from kconnect.schema_registry.client import (
    RegistrySchema,
    SchemaReference,
    SchemaRegistryClient,
    shared_client,
)
from kconnect.schema_registry.config import SerdeSettings
from kconnect.schema_registry.errors import NetworkConnectionError, RestClientException

pytestmark = pytest.mark.registry


class CountingTransport(httpx.BaseTransport):
    """A real HTTP transport that remembers each request (method, URL, headers)."""

    def __init__(self) -> None:
        self._inner = httpx.HTTPTransport()
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


def _avro(name: str, fields: list[dict[str, object]] | None = None) -> RegistrySchema:
    record = {"type": "record", "name": name, "fields": fields or [{"name": "a", "type": "int"}]}
    return RegistrySchema("AVRO", json.dumps(record))


def _settings(urls: str, **extra: str) -> SerdeSettings:
    return SerdeSettings.from_configs({"schema.registry.url": urls, **extra}, is_key=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def subject() -> str:
    return f"h1-client-{uuid.uuid4().hex[:12]}-value"


@pytest.fixture
def transport() -> Iterator[CountingTransport]:
    t = CountingTransport()
    yield t
    t.close()


def test_register_lookup_by_id_latest(
    schema_registry_url: str, subject: str, transport: CountingTransport
) -> None:
    client = SchemaRegistryClient(_settings(schema_registry_url).registry, transport=transport)
    schema = _avro("com.acme.Order")
    schema_id = client.register(subject, schema)
    assert client.schema_by_id(schema_id) == schema
    found = client.lookup(subject, schema)
    assert (found.schema_id, found.version, found.subject) == (schema_id, 1, subject)
    latest = client.latest_version(subject)
    assert (latest.schema_id, latest.version) == (schema_id, 1)
    assert json.loads(latest.schema.text) == json.loads(schema.text)
    assert client.version(subject, 1).schema_id == schema_id
    assert client.test_compatibility(subject, _avro("com.acme.Order"))
    first = transport.requests[0]
    assert first.headers["Content-Type"] == "application/vnd.schemaregistry.v1+json"
    assert first.headers["Accept"].startswith("application/vnd.schemaregistry.v1+json")
    assert "schemaType" not in json.loads(first.content)  # AVRO is left out, as Confluent
    client.close()


def test_caching_counts_requests(
    schema_registry_url: str, subject: str, transport: CountingTransport
) -> None:
    client = SchemaRegistryClient(_settings(schema_registry_url).registry, transport=transport)
    schema = _avro("com.acme.Cached")
    schema_id = client.register(subject, schema)
    for _ in range(5):
        assert client.register(subject, schema) == schema_id
        assert client.schema_by_id(schema_id) == schema  # filled by register
    assert len(transport.requests) == 1
    other = SchemaRegistryClient(_settings(schema_registry_url).registry, transport=transport)
    for _ in range(3):
        other.schema_by_id(schema_id)
        other.latest_version(subject)
        other.lookup(subject, schema)
    assert len(transport.requests) == 4  # one each
    # registering a new version forgets the latest version
    other.register(subject, _avro("com.acme.Cached", [{"name": "b", "type": "string"}]))
    assert other.latest_version(subject).version == 2
    assert len(transport.requests) == 6
    client.close()
    other.close()


def test_latest_version_ttl(
    schema_registry_url: str, subject: str, transport: CountingTransport
) -> None:
    now = [1000.0]
    settings = _settings(schema_registry_url, **{"latest.cache.ttl.sec": "10"}).registry
    client = SchemaRegistryClient(settings, transport=transport, clock=lambda: now[0])
    client.register(subject, _avro("com.acme.Ttl"))
    client.latest_version(subject)
    client.latest_version(subject)
    assert len(transport.requests) == 2
    now[0] += 11
    client.latest_version(subject)
    assert len(transport.requests) == 3
    client.close()


def test_fail_over_from_a_dead_url(
    schema_registry_url: str, subject: str, transport: CountingTransport
) -> None:
    dead = f"http://127.0.0.1:{_free_port()}"
    settings = _settings(
        f"{dead},{schema_registry_url}", **{"retries.wait.ms": "5", "max.retries": "1"}
    ).registry
    client = SchemaRegistryClient(settings, transport=transport)
    schema_id = client.register(subject, _avro("com.acme.FailOver"))
    hosts = [str(r.url.netloc.decode()) for r in transport.requests]
    dead_netloc = dead.removeprefix("http://")
    assert hosts[:2] == [dead_netloc, dead_netloc]  # the first try and one retry
    assert hosts[2] != dead_netloc
    # the working URL is now current: no more requests to the dead one
    client.schema_by_id(schema_id, subject="other")
    assert transport.requests[-1].url.netloc.decode() != dead_netloc
    assert len(transport.requests) == 4
    client.close()


def test_basic_auth_header_sent_and_never_logged(
    schema_registry_url: str,
    subject: str,
    transport: CountingTransport,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    dead = f"http://127.0.0.1:{_free_port()}"
    settings = _settings(
        f"{dead},{schema_registry_url}",
        **{
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": "alice:s3cret-pw",
            "retries.wait.ms": "1",
            "max.retries": "0",
        },
    ).registry
    client = SchemaRegistryClient(settings, transport=transport)
    client.register(subject, _avro("com.acme.Auth"))  # Apicurio ignores it
    assert {r.headers["Authorization"] for r in transport.requests} == {
        "Basic YWxpY2U6czNjcmV0LXB3"
    }
    assert "Failing over" in caplog.text
    assert "s3cret" not in caplog.text
    assert "YWxpY2U6czNjcmV0LXB3" not in caplog.text
    assert "s3cret" not in repr(client.settings)
    client.close()


def test_url_user_info(
    schema_registry_url: str, subject: str, transport: CountingTransport
) -> None:
    url = schema_registry_url.replace("http://", "http://bob:pw%40x@", 1)
    settings = _settings(url, **{"basic.auth.credentials.source": "URL"}).registry
    client = SchemaRegistryClient(settings, transport=transport)
    client.register(subject, _avro("com.acme.UrlAuth"))
    request = transport.requests[0]
    assert request.headers["Authorization"] == "Basic Ym9iOnB3JTQweA=="  # bob:pw%40x, as Java
    assert b"bob" not in request.url.netloc
    client.close()


def test_unknown_id(schema_registry_url: str) -> None:
    client = SchemaRegistryClient(_settings(schema_registry_url).registry)
    with pytest.raises(RestClientException) as e:
        client.schema_by_id(2_000_000_000)
    assert e.value.status == 404
    assert e.value.error_code == 40403
    assert str(e.value).endswith("; error code: 40403")
    client.close()


def test_unreachable_registry_fails_within_the_configured_time() -> None:
    dead = f"http://127.0.0.1:{_free_port()}"
    settings = _settings(dead, **{"max.retries": "2", "retries.wait.ms": "20"}).registry
    client = SchemaRegistryClient(settings)
    t0 = time.monotonic()
    with pytest.raises(NetworkConnectionError, match="Cannot reach the schema registry"):
        client.schema_by_id(1)
    assert time.monotonic() - t0 < 2
    client.close()


def test_registry_that_never_answers_times_out() -> None:
    with socket.socket() as server:  # accepts connections (backlog) but never answers
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        settings = _settings(
            url, **{"http.read.timeout.ms": "300", "max.retries": "1", "retries.wait.ms": "1"}
        ).registry
        client = SchemaRegistryClient(settings)
        t0 = time.monotonic()
        with pytest.raises(NetworkConnectionError, match="did not answer"):
            client.schema_by_id(1)
        elapsed = time.monotonic() - t0
        assert 0.55 < elapsed < 3
        client.close()


def test_references_round_trip(schema_registry_url: str, subject: str) -> None:
    client = SchemaRegistryClient(_settings(schema_registry_url).registry)
    address_subject = subject.replace("-value", "-address")
    address = _avro("com.acme.Address", [{"name": "street", "type": "string"}])
    client.register(address_subject, address)
    ref = SchemaReference("com.acme.Address", address_subject, 1)
    customer = RegistrySchema(
        "AVRO",
        json.dumps(
            {
                "type": "record",
                "name": "Customer",
                "namespace": "com.acme",
                "fields": [{"name": "address", "type": "com.acme.Address"}],
            }
        ),
        (ref,),
    )
    schema_id = client.register(subject, customer)
    fresh = SchemaRegistryClient(_settings(schema_registry_url).registry)
    fetched = fresh.schema_by_id(schema_id)
    assert fetched.references == (ref,)
    assert json.loads(fetched.text) == json.loads(customer.text)
    assert fresh.latest_version(subject).schema.references == (ref,)
    client.close()
    fresh.close()


def test_shared_client_per_settings(schema_registry_url: str) -> None:
    a = shared_client(_settings(schema_registry_url).registry)
    b = shared_client(
        SerdeSettings.from_configs({"schema.registry.url": schema_registry_url}, True).registry
    )
    c = shared_client(_settings(schema_registry_url, **{"max.retries": "1"}).registry)
    assert a is b
    assert c is not a


def test_associated_name_strategy_falls_back_to_the_topic_name(
    schema_registry_url: str, transport: CountingTransport
) -> None:
    from kconnect.schema_registry.subject_names import DEFAULT_STRATEGY, subject_name

    client = SchemaRegistryClient(_settings(schema_registry_url).registry, transport=transport)
    topic = f"h1-assoc-{uuid.uuid4().hex[:8]}"
    # Apicurio has no /associations (404): TopicNameStrategy's subject, asked once per side
    for _ in range(3):
        assert subject_name(DEFAULT_STRATEGY, topic, False, "R", client=client) == f"{topic}-value"
        assert subject_name(DEFAULT_STRATEGY, topic, True, "R", client=client) == f"{topic}-key"
    assert len(transport.requests) == 2
    assert transport.requests[0].url.path.endswith(f"/associations/resources/-/{topic}")
    client.close()
