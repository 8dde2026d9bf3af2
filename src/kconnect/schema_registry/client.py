"""A schema registry client with Confluent's REST protocol, caching, retries and fail-over.

What Confluent's ``CachedSchemaRegistryClient`` and ``RestService`` do, for the converters:

- Requests carry ``Accept`` / ``Content-Type: application/vnd.schemaregistry.v1+json``; an error
  answer ``{"error_code": ..., "message": ...}`` becomes :class:`RestClientException`.
- The URL list is tried in turn: a request goes to the current URL; a connection failure (or a
  retriable status) makes the next URL current (``schema.registry.url.randomize`` starts at a
  random one). Each URL gets ``max.retries`` retries first, with exponential back-off and full
  jitter from ``retries.wait.ms`` capped by ``retries.max.wait.ms``, for 408, 429, 500, 502,
  503, 504 and connection errors.
- Caches: the id a schema was registered under (per subject), the schema of an id, of a GUID, of
  a subject version, and the latest version of a subject for ``latest.cache.ttl.sec`` (60 s
  by default); each bounded by ``max.schemas.per.subject`` (least recently used out first).
  Registering a schema invalidates the subject's latest version.
- Authentication: basic (``USER_INFO`` or the URL's user info with ``URL``) or a static bearer
  token with Confluent Cloud's logical-cluster / identity-pool headers. TLS from
  ``schema.registry.ssl.*`` (JKS, PKCS12, PEM through :mod:`kconnect.security.stores`).

Thread-safe: every task of a worker shares one client per distinct settings
(:func:`shared_client`). Cache misses are fetched one at a time (as Java's ``synchronized``),
so concurrent tasks asking for the same id make one request. Credentials never reach a log
line or an exception: URLs are shown without their user info.
"""

from __future__ import annotations

import base64
import logging
import random
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from kconnect.schema_registry.config import CLIENT_NAMESPACE, RegistrySettings
from kconnect.schema_registry.errors import (
    NetworkConnectionError,
    RestClientException,
    SerializationException,
)

__all__ = [
    "CONTENT_TYPE",
    "RegisteredSchema",
    "RegistrySchema",
    "SchemaReference",
    "SchemaRegistryClient",
    "shared_client",
]

_log = logging.getLogger(__name__)

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
_ACCEPT = (
    "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, "
    "application/json; qs=0.5"
)
_JSON_PARSE_ERROR_CODE = 50005


@dataclass(frozen=True)
class SchemaReference:
    """A reference from one schema to another registered one (``import`` / named type)."""

    name: str
    subject: str
    version: int


@dataclass(frozen=True)
class RegistrySchema:
    """A schema as the registry holds it: type (``AVRO``, ``PROTOBUF``, ``JSON``), text and
    references. Hashable: the caches key on it."""

    schema_type: str
    text: str
    references: tuple[SchemaReference, ...] = ()


@dataclass(frozen=True)
class RegisteredSchema:
    """A schema with where the registry has it: its id and, when known, subject and version."""

    schema_id: int
    version: int | None
    subject: str | None
    schema: RegistrySchema


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Lru(Generic[K, V]):
    """A bounded map that forgets the least recently used entry (Guava's ``maximumSize``)."""

    def __init__(self, capacity: int) -> None:
        self._capacity = max(1, capacity)
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._capacity:
            self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()


def _display(url: str) -> str:
    """``url`` without user info, for logs and messages."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def _schema_json(schema: RegistrySchema) -> dict[str, Any]:
    body: dict[str, Any] = {"schema": schema.text}
    if schema.schema_type != "AVRO":  # Confluent leaves the default type out
        body["schemaType"] = schema.schema_type
    if schema.references:
        body["references"] = [
            {"name": r.name, "subject": r.subject, "version": r.version} for r in schema.references
        ]
    return body


def _parse_schema(data: Mapping[str, Any]) -> RegistrySchema:
    refs = tuple(
        SchemaReference(str(r["name"]), str(r["subject"]), int(r["version"]))
        for r in data.get("references") or ()
    )
    return RegistrySchema(str(data.get("schemaType") or "AVRO"), str(data["schema"]), refs)


def _parse_registered(data: Mapping[str, Any], subject: str | None) -> RegisteredSchema:
    version = data.get("version")
    return RegisteredSchema(
        int(data["id"]),
        int(version) if version is not None else None,
        str(data.get("subject") or subject) if (data.get("subject") or subject) else None,
        _parse_schema(data),
    )


def _tls_context(settings: RegistrySettings) -> ssl.SSLContext | None:
    """The TLS context of ``schema.registry.ssl.*``, or None for the system defaults."""
    values = settings.ssl_values()
    if not values:
        return None
    from kconnect.security.stores import key_material, trust_material

    trust = trust_material(values, CLIENT_NAMESPACE)
    key = key_material(values, CLIENT_NAMESPACE)
    context = ssl.create_default_context(cadata=trust) if trust else ssl.create_default_context()
    if key is not None:
        key.load_into(context)
    algorithm = values.get("ssl.endpoint.identification.algorithm", "https")
    # Kafka: an empty algorithm disables the host name check (the chain is still verified)
    context.check_hostname = bool(algorithm.strip())
    return context


class _UrlList:
    """Confluent's ``UrlList``: the current URL, moved on when it fails."""

    def __init__(self, urls: tuple[str, ...], randomize: bool) -> None:
        self.urls = urls
        self._index = random.randrange(len(urls)) if randomize else 0
        self._lock = threading.Lock()

    def current(self) -> str:
        return self.urls[self._index]

    def fail(self, url: str) -> None:
        with self._lock:
            if self.urls[self._index] == url:
                self._index = (self._index + 1) % len(self.urls)


class SchemaRegistryClient:
    """A Confluent-protocol registry client. See the module docstring for what it does.

    Every method may raise :class:`RestClientException` (an error answer, e.g. 40403 for an
    unknown id) or :class:`NetworkConnectionError` (no URL reachable). ``transport``, ``sleep``
    and ``clock`` are for tests.
    """

    def __init__(
        self,
        settings: RegistrySettings,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._clock = clock
        self._random = random.Random()
        self._urls = _UrlList(tuple(u.rstrip("/") for u in settings.urls), settings.url_randomize)
        headers = {"Accept": _ACCEPT, "Content-Type": CONTENT_TYPE}
        headers.update(dict(settings.request_headers))
        if settings.bearer_token is not None:
            headers["Authorization"] = f"Bearer {settings.bearer_token.value()}"
            if settings.bearer_logical_cluster:
                headers["target-sr-cluster"] = settings.bearer_logical_cluster
            if settings.bearer_identity_pool_id:
                headers["Confluent-Identity-Pool-Id"] = settings.bearer_identity_pool_id
        elif settings.user_info is not None:
            headers["Authorization"] = _basic(settings.user_info.value())
        connect_s = settings.connect_timeout_ms / 1000 or None
        read_s = settings.read_timeout_ms / 1000 or None
        proxy = (
            f"http://{settings.proxy_host}:{settings.proxy_port}"
            if settings.proxy_host and settings.proxy_port
            else None
        )
        context = _tls_context(settings)
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(connect=connect_s, read=read_s, write=read_s, pool=connect_s),
            verify=context if context is not None else True,
            proxy=proxy,
            transport=transport,
            trust_env=False,
            follow_redirects=False,
        )
        capacity = settings.max_schemas_per_subject
        self._lock = threading.Lock()  # guards the caches
        self._fetch_lock = threading.RLock()  # one cache-miss fetch at a time, as Java
        self._registered: dict[str, _Lru[tuple[RegistrySchema, bool], int]] = {}
        self._looked_up: dict[str, _Lru[tuple[RegistrySchema, bool], RegisteredSchema]] = {}
        self._by_id: _Lru[tuple[str | None, int], RegistrySchema] = _Lru(capacity)
        self._by_guid: _Lru[str, RegistrySchema] = _Lru(capacity)
        self._versions: _Lru[tuple[str, int], RegisteredSchema] = _Lru(capacity)
        self._latest: _Lru[str, tuple[float, RegisteredSchema]] = _Lru(capacity)
        self._associations: dict[tuple[str, bool], str | None] = {}
        self._closed = False

    # -- the registry's operations --------------------------------------------------------------

    def register(self, subject: str, schema: RegistrySchema, normalize: bool = False) -> int:
        """Register ``schema`` under ``subject`` (or find it there); return its id. Cached."""
        key = (schema, normalize)
        cached = self._cached_id(subject, key)
        if cached is not None:
            return cached
        with self._fetch_lock:
            cached = self._cached_id(subject, key)
            if cached is not None:
                return cached
            data = self._request(
                "POST",
                f"/subjects/{_seg(subject)}/versions",
                {"normalize": _bool(normalize)},
                _schema_json(schema),
            )
            schema_id = int(data["id"])
            with self._lock:
                self._subject_cache(self._registered, subject).put(key, schema_id)
                self._by_id.put((None, schema_id), schema)
                self._by_id.put((subject, schema_id), schema)
                self._latest.pop(subject)
            return schema_id

    def lookup(
        self, subject: str, schema: RegistrySchema, normalize: bool = False
    ) -> RegisteredSchema:
        """The id and version ``schema`` has under ``subject`` (40403 / 40401 when it has none)."""
        key = (schema, normalize)
        with self._lock:
            found = self._subject_cache(self._looked_up, subject).get(key)
        if found is not None:
            return found
        with self._fetch_lock:
            with self._lock:
                found = self._subject_cache(self._looked_up, subject).get(key)
            if found is not None:
                return found
            data = self._request(
                "POST",
                f"/subjects/{_seg(subject)}",
                {"normalize": _bool(normalize), "deleted": "false"},
                _schema_json(schema),
            )
            result = RegisteredSchema(
                int(data["id"]),
                int(data["version"]) if data.get("version") is not None else None,
                subject,
                schema,
            )
            with self._lock:
                self._subject_cache(self._looked_up, subject).put(key, result)
                self._subject_cache(self._registered, subject).put(key, result.schema_id)
                self._by_id.put((subject, result.schema_id), schema)
            return result

    def schema_by_id(self, schema_id: int, subject: str | None = None) -> RegistrySchema:
        """The schema with this id (``subject`` narrows the look-up, as Java's). Cached."""
        key = (subject, schema_id)
        with self._lock:
            found = self._by_id.get(key)
        if found is not None:
            return found
        with self._fetch_lock:
            with self._lock:
                found = self._by_id.get(key)
            if found is not None:
                return found
            params = {"fetchMaxId": "false"}
            if subject is not None:
                params["subject"] = subject
            data = self._request("GET", f"/schemas/ids/{int(schema_id)}", params)
            schema = _parse_schema(data)
            with self._lock:
                self._by_id.put(key, schema)
            return schema

    def schema_by_guid(self, guid: str) -> RegistrySchema:
        """The schema with this GUID (Confluent 8's ``/schemas/guids/{guid}``). Cached."""
        with self._lock:
            found = self._by_guid.get(guid)
        if found is not None:
            return found
        with self._fetch_lock:
            with self._lock:
                found = self._by_guid.get(guid)
            if found is not None:
                return found
            data = self._request("GET", f"/schemas/guids/{_seg(guid)}", {})
            schema = _parse_schema(data)
            with self._lock:
                self._by_guid.put(guid, schema)
            return schema

    def latest_version(self, subject: str) -> RegisteredSchema:
        """The subject's latest version, cached for ``latest.cache.ttl.sec`` seconds."""
        ttl = self.settings.latest_cache_ttl_sec
        with self._lock:
            entry = self._latest.get(subject)
        if entry is not None and (ttl < 0 or self._clock() < entry[0]):
            return entry[1]
        data = self._request("GET", f"/subjects/{_seg(subject)}/versions/latest", {})
        result = _parse_registered(data, subject)
        with self._lock:
            self._latest.put(subject, (self._clock() + max(ttl, 0), result))
        return result

    def version(self, subject: str, version: int) -> RegisteredSchema:
        """One version of a subject. Cached."""
        key = (subject, int(version))
        with self._lock:
            found = self._versions.get(key)
        if found is not None:
            return found
        data = self._request("GET", f"/subjects/{_seg(subject)}/versions/{int(version)}", {})
        result = _parse_registered(data, subject)
        with self._lock:
            self._versions.put(key, result)
        return result

    def test_compatibility(self, subject: str, schema: RegistrySchema) -> bool:
        """Whether ``schema`` is compatible with the subject's latest version (not cached)."""
        data = self._request(
            "POST",
            f"/compatibility/subjects/{_seg(subject)}/versions/latest",
            {"normalize": "false", "verbose": "false"},
            _schema_json(schema),
        )
        return bool(data.get("is_compatible"))

    def associated_subject(self, topic: str, is_key: bool) -> str | None:
        """The subject associated with the topic's key or value (AssociatedNameStrategy), or
        None when there is none or the registry has no associations (404). Cached for the
        client's life, as Java's default.

        Raises:
            SerializationException: the topic has more than one associated subject.
        """
        key = (topic, is_key)
        with self._lock:
            if key in self._associations:
                return self._associations[key]
        try:
            data = self._request(
                "GET",
                f"/associations/resources/-/{_seg(topic)}",
                {"resourceType": "topic", "associationType": "key" if is_key else "value"},
            )
        except RestClientException as e:
            if e.status != 404:
                raise
            data = []
        subject: str | None = None
        entries = data if isinstance(data, list) else []
        if len(entries) > 1:
            raise SerializationException(f"Multiple associated subjects found for topic {topic}")
        if entries:
            subject = str(entries[0].get("subject")) or None
        with self._lock:
            self._associations[key] = subject
        return subject

    def close(self) -> None:
        """Close the HTTP connections. A shared client is closed by :func:`close_shared_clients`."""
        self._closed = True
        self._http.close()

    # -- HTTP ------------------------------------------------------------------------------------

    def _subject_cache(self, caches: dict[str, _Lru[K, V]], subject: str) -> _Lru[K, V]:
        cache = caches.get(subject)
        if cache is None:
            cache = caches[subject] = _Lru(self.settings.max_schemas_per_subject)
        return cache

    def _cached_id(self, subject: str, key: tuple[RegistrySchema, bool]) -> int | None:
        with self._lock:
            return self._subject_cache(self._registered, subject).get(key)

    def _request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str],
        body: Mapping[str, Any] | None = None,
    ) -> Any:
        """Send to the current URL with retries; fail over to the next URL as Confluent does."""
        n = len(self._urls.urls)
        for i in range(n):
            base = self._urls.current()
            try:
                return self._with_retries(base, method, path, params, body)
            except RestClientException as e:
                if not e.retriable or i == n - 1:
                    raise
                failure: Exception = e
            except NetworkConnectionError as e:
                if i == n - 1:
                    raise
                failure = e
            _log.warning(
                "Request to URL %s failed with error: %s. Failing over to next URL if available...",
                _display(base) + path,
                failure,
            )
            self._urls.fail(base)
        raise AssertionError("unreachable")

    def _with_retries(
        self,
        base: str,
        method: str,
        path: str,
        params: Mapping[str, str],
        body: Mapping[str, Any] | None,
    ) -> Any:
        retries = self.settings.max_retries
        for attempt in range(retries + 1):
            try:
                return self._send(base, method, path, params, body)
            except RestClientException as e:
                if not e.retriable or attempt >= retries:
                    raise
                _log.debug("Retriable error on attempt %d/%d: %s", attempt + 1, retries + 1, e)
            except NetworkConnectionError:
                if attempt >= retries:
                    raise
            delay = self._backoff_ms(attempt)
            if delay > 0:
                self._sleep(delay / 1000)
        raise AssertionError("unreachable")

    def _backoff_ms(self, attempt: int) -> int:
        """Exponential back-off with full jitter, as Confluent's RetryExecutor."""
        ceiling = min(
            self.settings.retries_wait_ms * (1 << min(attempt, 30)),
            self.settings.retries_max_wait_ms,
        )
        return 0 if ceiling <= 0 else self._random.randrange(ceiling) + 1

    def _send(
        self,
        base: str,
        method: str,
        path: str,
        params: Mapping[str, str],
        body: Mapping[str, Any] | None,
    ) -> Any:
        parts = urlsplit(base)
        clean = _display(base)
        headers: dict[str, str] = {}
        if self.settings.basic_auth_source == "URL" and (
            parts.username is not None or parts.password is not None
        ):
            # Java sends URL.getUserInfo() as it is written (not percent-decoded)
            userinfo = parts.netloc.rpartition("@")[0]
            headers["Authorization"] = _basic(userinfo)
        url = clean + path
        try:
            response = self._http.request(
                method, url, params=dict(params), json=body, headers=headers or None
            )
        except httpx.TimeoutException as e:
            raise NetworkConnectionError(
                f"The schema registry at {clean} did not answer {method} {path} in time "
                f"({type(e).__name__}; http.connect.timeout.ms="
                f"{self.settings.connect_timeout_ms}, http.read.timeout.ms="
                f"{self.settings.read_timeout_ms})"
            ) from None
        except httpx.TransportError as e:
            raise NetworkConnectionError(
                f"Cannot reach the schema registry at {clean}: {_reason(e)}"
            ) from None
        status = response.status_code
        if status in (200, 207):
            try:
                return response.json()
            except ValueError:
                raise RestClientException(
                    f"Unable to parse the answer of the schema registry at {clean}{path}",
                    status,
                    _JSON_PARSE_ERROR_CODE,
                ) from None
        if status == 204:
            return None
        text = response.text
        message, code = "Error", _JSON_PARSE_ERROR_CODE
        if text:
            try:
                err = response.json()
                message = str(err.get("message"))
                code = int(err.get("error_code"))
            except (ValueError, AttributeError, TypeError):
                message = f"Unable to parse error message from schema registry: '({text[:500]})'"
                code = _JSON_PARSE_ERROR_CODE
        raise RestClientException(message, status, code)


def _reason(e: Exception) -> str:
    text = str(e) or type(e).__name__
    return text


def _basic(userinfo: str) -> str:
    return "Basic " + base64.b64encode(userinfo.encode("utf-8")).decode("ascii")


def _seg(value: str) -> str:
    """One URL path segment (Java's UriBuilder encodes ``/`` and the rest)."""
    return quote(value, safe="")


def _bool(value: bool) -> str:
    return "true" if value else "false"


_shared: dict[RegistrySettings, SchemaRegistryClient] = {}
_shared_lock = threading.Lock()


def shared_client(settings: RegistrySettings) -> SchemaRegistryClient:
    """The process's client for these settings: created on first use, then shared by every
    converter (every task of the worker) configured the same way. Never close it yourself."""
    with _shared_lock:
        client = _shared.get(settings)
        if client is None or client._closed:
            client = _shared[settings] = SchemaRegistryClient(settings)
        return client


def close_shared_clients() -> None:
    """Close every shared client (for tests and process shutdown)."""
    with _shared_lock:
        clients = list(_shared.values())
        _shared.clear()
    for client in clients:
        client.close()
