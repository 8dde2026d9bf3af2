"""REST extensions: filters and extra routes on a worker's REST API (``rest.extension.classes``).

Kafka Connect's ``ConnectRestExtension`` (KIP-285) in plain Python, without any web framework
in sight: an extension sees requests as :class:`RestRequest` views and answers with
:class:`RestResponse` values. The built-in
``org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension`` is
written against exactly this module.

A package registers an extension through the ``kconnect.rest_extension`` entry-point group;
the entry-point name is what ``rest.extension.classes`` lists::

    [project.entry-points."kconnect.rest_extension"]
    "com.example.AuditExtension" = "my_package.audit:AuditExtension"

Lifecycle, for each name in ``rest.extension.classes``, in that order, at worker start-up on
the main thread, before the REST server accepts any request:

1. the class is instantiated without arguments;
2. :meth:`ConnectRestExtension.configure` receives the worker properties as written;
3. :meth:`ConnectRestExtension.register` adds filters and routes to the
   :class:`RestExtensionContext` (which is only valid during this call);

and :meth:`ConnectRestExtension.close` once the REST server has stopped. An exception from
``configure`` or ``register`` stops the worker from starting, with its message.

Filters run for every request that matches a route of the worker's regular listeners
(``listeners``: the public API, ``/admin/*`` when it is served there, the internal
worker-to-worker endpoints, ``/openapi.json`` and the extensions' own routes), in
registration order, before the route. They do not run for unknown paths (404), unsupported
methods (405), ``OPTIONS`` requests, or on ``admin.listeners`` (as in Kafka Connect, where
extensions are registered on the regular resources only). Filters and route handlers are
called on REST worker threads, concurrently: they must be thread-safe, and may block (briefly:
each request holds a thread while they run). An exception from either becomes a 500 answer
``{"error_code": 500, "message": ...}``; the trace is logged, never sent.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ConnectClusterState",
    "ConnectRestExtension",
    "ConnectorHealth",
    "ConnectorState",
    "RestExtensionContext",
    "RestFilter",
    "RestHeaders",
    "RestHandler",
    "RestRequest",
    "RestResponse",
    "TaskState",
]


class RestHeaders(Mapping[str, str]):
    """Request headers, case-insensitive; a header sent more than once reads as its values
    joined with ``", "``."""

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        merged: dict[str, str] = {}
        for name, value in items:
            key = name.lower()
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        self._items = merged

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        # values are left out: Authorization and friends must never reach a log line
        return f"RestHeaders({sorted(self._items)})"


@dataclass
class RestRequest:
    """One request, as filters and route handlers see it.

    ``path`` is decoded and without the query string; ``route`` is the matched route's template
    (``/connectors/{connector}/tasks``) and ``path_params`` its parameters; ``body`` holds
    the body of POST, PUT and PATCH requests (``b""`` otherwise). ``scheme`` is ``http`` or
    ``https``. An authenticating filter sets ``principal`` (the user name); later filters and
    handlers can read it.
    """

    method: str
    path: str
    route: str
    headers: RestHeaders
    query_params: tuple[tuple[str, str], ...] = ()
    path_params: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    scheme: str = "http"
    client_host: str | None = None
    principal: str | None = None

    def query(self, name: str, default: str | None = None) -> str | None:
        """The first value of query parameter ``name``."""
        return next((v for k, v in self.query_params if k == name), default)

    def json(self) -> Any:
        """The body decoded as JSON (raises ``ValueError`` if it is not)."""
        return json.loads(self.body)


@dataclass(frozen=True)
class RestResponse:
    """An answer: status, body bytes, media type (``None``: no ``Content-Type``) and extra
    headers. Build one with :meth:`json_body`, :meth:`error`, :meth:`text` or :meth:`empty`."""

    status: int
    body: bytes = b""
    media_type: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def json_body(
        cls, status: int, data: Any, headers: Mapping[str, str] | None = None
    ) -> RestResponse:
        """``data`` as a JSON body (``application/json``)."""
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        return cls(status, body, "application/json", dict(headers or {}))

    @classmethod
    def error(
        cls, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> RestResponse:
        """Kafka Connect's error body ``{"error_code": status, "message": message}``."""
        return cls.json_body(status, {"error_code": status, "message": message}, headers)

    @classmethod
    def text(cls, status: int, text: str, headers: Mapping[str, str] | None = None) -> RestResponse:
        """``text`` as ``text/plain; charset=utf-8``."""
        return cls(status, text.encode(), "text/plain; charset=utf-8", dict(headers or {}))

    @classmethod
    def empty(cls, status: int = 204, headers: Mapping[str, str] | None = None) -> RestResponse:
        """No body (e.g. 202 or 204)."""
        return cls(status, b"", None, dict(headers or {}))


class RestFilter(ABC):
    """Sees every request before its route (see the module docstring for which requests)."""

    @abstractmethod
    def filter(self, request: RestRequest) -> RestResponse | None:
        """Return ``None`` to let the request through, or the answer to send instead (the
        route is then not called)."""


#: A route handler: the request (``path_params`` filled in) -> the answer.
RestHandler = Callable[[RestRequest], RestResponse]


@dataclass(frozen=True)
class ConnectorState:
    """A connector's state as ``GET /connectors/{name}/status`` shows it."""

    state: str
    worker_id: str
    trace: str | None = None


@dataclass(frozen=True)
class TaskState:
    """A task's state; ``task_id`` is its number."""

    task_id: int
    state: str
    worker_id: str
    trace: str | None = None


@dataclass(frozen=True)
class ConnectorHealth:
    """A connector's and its tasks' states (Kafka's ``ConnectorHealth``); ``type`` is
    ``source``, ``sink`` or ``unknown``."""

    name: str
    connector_state: ConnectorState
    tasks_state: Mapping[int, TaskState]
    type: str


class ConnectClusterState(ABC):
    """Read-only view of the cluster for extensions (Kafka's ``ConnectClusterState``).

    Calls may block while the worker answers; ``connector_health`` and ``connector_config``
    raise :class:`~kconnect.api.errors.NotFoundException` for an unknown connector.
    """

    @abstractmethod
    def connectors(self) -> list[str]:
        """The names of the connectors in the cluster."""

    @abstractmethod
    def connector_health(self, name: str) -> ConnectorHealth:
        """The connector's and its tasks' current states."""

    @abstractmethod
    def connector_config(self, name: str) -> dict[str, str]:
        """The connector's config as written (config-provider variables unresolved)."""

    @abstractmethod
    def kafka_cluster_id(self) -> str | None:
        """The id of the Kafka cluster the worker uses."""


class RestExtensionContext(ABC):
    """What :meth:`ConnectRestExtension.register` may add to the REST API."""

    @property
    @abstractmethod
    def cluster_state(self) -> ConnectClusterState:
        """The cluster, for filters and routes that need it (keep the reference)."""

    @abstractmethod
    def add_filter(
        self, request_filter: RestFilter, responses: Mapping[int, str] | None = None
    ) -> None:
        """Run ``request_filter`` before every route (after the filters added before it).

        ``responses`` documents the statuses the filter may answer with (status ->
        description); ``/openapi.json`` then declares them, with the error body shape, on
        every operation.
        """

    @abstractmethod
    def add_route(self, method: str, path: str, handler: RestHandler, *, summary: str = "") -> None:
        """Serve ``method`` ``path`` with ``handler``. ``path`` may hold ``{name}``
        parameters (``/audit/{connector}``). A route may not shadow one of the worker's (the
        worker refuses to start); extension routes are not in ``/openapi.json``."""


class ConnectRestExtension(ABC):
    """A REST extension (see the module docstring for the lifecycle)."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive the worker properties (``rest.extension.*`` keys are free for extensions:
        the worker does not warn about them)."""

    @abstractmethod
    def register(self, context: RestExtensionContext) -> None:
        """Add filters and routes to ``context``."""

    def version(self) -> str:
        """The extension's version, for the log."""
        return "undefined"

    def close(self) -> None:
        """Release resources; called once, after the REST server has stopped."""
