"""``rest.extension.classes``: loading REST extensions and running their filters and routes.

The extension API (:mod:`kconnect.api.rest_extension`) knows nothing of FastAPI; this module
is the adapter. :func:`load_extensions` instantiates, configures and registers each extension
named in ``rest.extension.classes`` (entry points of the ``kconnect.rest_extension`` group,
resolved like any plugin: full name or alias); :class:`ExtensionFilterMiddleware` runs the
registered filters for requests that match a route; routes are added to the FastAPI app as
Starlette routes left out of the OpenAPI document.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from kconnect.api.errors import ConfigException, ConnectException
from kconnect.api.rest_extension import (
    ConnectClusterState,
    ConnectorHealth,
    ConnectorState,
    ConnectRestExtension,
    RestExtensionContext,
    RestFilter,
    RestHandler,
    RestHeaders,
    RestRequest,
    RestResponse,
    TaskState,
)
from kconnect.rest.forwarding import BODY_SCOPE_KEY
from kconnect.rest.route_table import RouteTable
from kconnect.runtime.herder.herder import Herder

__all__ = [
    "ExtensionFilterMiddleware",
    "HerderClusterState",
    "RestExtensions",
    "add_extension_routes",
    "load_extensions",
]

log = logging.getLogger(__name__)

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"})


class HerderClusterState(ConnectClusterState):
    """The cluster as the herder sees it."""

    def __init__(self, herder: Herder) -> None:
        self._herder = herder

    def connectors(self) -> list[str]:
        return list(self._herder.connectors())

    def connector_health(self, name: str) -> ConnectorHealth:
        status = self._herder.connector_status(name)
        c = status.connector
        return ConnectorHealth(
            name=status.name,
            connector_state=ConnectorState(c.state, c.worker_id, c.trace),
            tasks_state={
                t.id: TaskState(t.id, t.state, t.worker_id, t.trace)
                for t in status.tasks
                if t.id is not None
            },
            type=status.type,
        )

    def connector_config(self, name: str) -> dict[str, str]:
        return dict(self._herder.connector_config(name))

    def kafka_cluster_id(self) -> str | None:
        return self._herder.kafka_cluster_id()


class RestExtensions:
    """The loaded extensions and what they registered: filters (with the statuses they
    declare) and routes (method, path, handler, summary)."""

    def __init__(self) -> None:
        self.extensions: list[ConnectRestExtension] = []
        self.filters: list[RestFilter] = []
        self.filter_responses: dict[int, str] = {}
        self.routes: list[tuple[str, str, RestHandler, str]] = []

    def close(self) -> None:
        """Close every extension (errors are logged: closing goes on)."""
        for ext in self.extensions:
            try:
                ext.close()
            except Exception:
                log.warning("Error while closing REST extension %s", type(ext).__name__,
                            exc_info=True)  # fmt: skip


class _Context(RestExtensionContext):
    def __init__(self, target: RestExtensions, state: ConnectClusterState, owner: str) -> None:
        self._target = target
        self._state = state
        self._owner = owner
        self.open = True

    def _check_open(self) -> None:
        if not self.open:
            raise ConnectException(
                f"REST extension {self._owner} used its context after register() returned"
            )

    @property
    def cluster_state(self) -> ConnectClusterState:
        return self._state

    def add_filter(
        self, request_filter: RestFilter, responses: Mapping[int, str] | None = None
    ) -> None:
        self._check_open()
        if not isinstance(request_filter, RestFilter):
            raise ConnectException(f"REST extension {self._owner}: filters must be RestFilters")
        self._target.filters.append(request_filter)
        for status, description in (responses or {}).items():
            self._target.filter_responses.setdefault(int(status), description)

    def add_route(self, method: str, path: str, handler: RestHandler, *, summary: str = "") -> None:
        self._check_open()
        verb = method.upper()
        if verb not in _METHODS or not path.startswith("/"):
            raise ConnectException(
                f"REST extension {self._owner}: cannot add route {method} {path} (a method "
                f"of {sorted(_METHODS)} and a path starting with '/' are needed)"
            )
        self._target.routes.append((verb, path, handler, summary))


def load_extensions(
    class_names: list[str], plugins: Any, worker_config: Any, herder: Herder
) -> RestExtensions:
    """Instantiate, configure and register the extensions named in ``class_names``.

    Raises:
        ConfigException: an extension is not installed or is not a ConnectRestExtension.
        ConnectException: an extension failed in ``configure`` or ``register``.
    """
    loaded = RestExtensions()
    if not class_names:
        return loaded
    state = HerderClusterState(herder)
    originals = dict(worker_config.originals()) if worker_config is not None else {}
    for name in class_names:
        try:
            desc = plugins.resolve("rest_extension", name)
        except Exception as e:
            raise ConfigException("rest.extension.classes", name, str(e)) from None
        try:
            ext = desc.cls()
        except Exception as e:
            raise ConnectException(f"Failed to instantiate REST extension {name}: {e}") from e
        if not isinstance(ext, ConnectRestExtension):
            raise ConfigException(
                "rest.extension.classes", name,
                f"{desc.cls.__qualname__} is not a kconnect.api.rest_extension."
                "ConnectRestExtension",
            )  # fmt: skip
        loaded.extensions.append(ext)
        context = _Context(loaded, state, name)
        try:
            ext.configure(originals)
            ext.register(context)
        except ConnectException:
            loaded.close()
            raise
        except Exception as e:
            loaded.close()
            raise ConnectException(
                f"REST extension {name} failed to start: {type(e).__name__}: {e}"
            ) from e
        finally:
            context.open = False
        log.info("Registered REST extension %s (version %s)", name, ext.version())
    return loaded


def _request_view(scope: Any, route: str, params: Mapping[str, Any]) -> RestRequest:
    headers = RestHeaders(
        (k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", ())
    )
    query = Request(scope).query_params.multi_items()
    client = scope.get("client")
    return RestRequest(
        method=scope["method"],
        path=scope["path"],
        route=route,
        headers=headers,
        query_params=tuple(query),
        path_params={k: str(v) for k, v in params.items()},
        body=scope.get(BODY_SCOPE_KEY, b""),
        scheme=scope.get("scheme", "http"),
        client_host=client[0] if client else None,
    )


def _starlette_response(answer: RestResponse) -> Response:
    return Response(
        content=answer.body,
        status_code=answer.status,
        headers=dict(answer.headers),
        media_type=answer.media_type,
    )


def _failure(what: str, request: RestRequest, exc: Exception) -> RestResponse:
    log.error("%s failed on %s %s", what, request.method, request.path, exc_info=exc)
    return RestResponse.error(500, f"{what} failed: {type(exc).__name__}: {exc}")


class ExtensionFilterMiddleware:
    """Runs the extensions' filters for requests that match one of ``app``'s routes (see
    :mod:`kconnect.api.rest_extension` for which ones), on a worker thread; the principal a
    filter sets travels on in the ASGI scope (``kconnect.principal``)."""

    def __init__(self, app: Any, routes: RouteTable, filters: list[RestFilter]) -> None:
        self.app = app
        self.routes = routes
        self.filters = filters

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.filters or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        found = self.routes.match(scope)
        if found is None:  # 404 / 405 are answered without running filters (as JAX-RS does)
            await self.app(scope, receive, send)
            return
        request = _request_view(scope, *found)
        answer = await run_in_threadpool(self._run_filters, request)
        if answer is not None:
            await _starlette_response(answer)(scope, receive, send)
            return
        scope["kconnect.principal"] = request.principal
        await self.app(scope, receive, send)

    def _run_filters(self, request: RestRequest) -> RestResponse | None:
        for f in self.filters:
            try:
                answer = f.filter(request)
            except Exception as e:
                return _failure(f"REST filter {type(f).__name__}", request, e)
            if answer is not None:
                return answer
        return None


def add_extension_routes(
    app: FastAPI, table: RouteTable, routes: list[tuple[str, str, RestHandler, str]]
) -> None:
    """Serve the extensions' routes; one that would shadow an existing route is refused."""
    for method, path, handler, summary in routes:
        shadowed = table.shadowed_by(method, path)
        if shadowed is not None:
            raise ConnectException(
                f"A REST extension route {method} {path} would shadow the route {shadowed}"
            )
        route = Route(
            path, _endpoint(handler, method, path), methods=[method], name=summary or None
        )
        app.router.routes.append(route)
        table.add([route])


def _endpoint(handler: RestHandler, method: str, path: str) -> Any:
    async def endpoint(request: Request) -> Response:
        view = _request_view(request.scope, path, request.path_params)
        view.principal = request.scope.get("kconnect.principal")
        try:
            answer = await run_in_threadpool(handler, view)
        except Exception as e:
            answer = _failure(f"REST extension route {method} {path}", view, e)
        return _starlette_response(answer)

    return endpoint
