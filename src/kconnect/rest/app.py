"""The REST applications: :func:`create_app` (the regular listeners) and
:func:`create_admin_app` (``admin.listeners``, when set).

Kafka Connect's REST API (reference §1.2) for one herder: ``/``, ``/health``, ``/connectors``,
``/connector-plugins``, ``/metrics`` and the internal endpoints on the regular listeners;
``/admin/loggers`` there too unless ``admin.listeners`` is set (then it is served only on
those, or nowhere when the list is empty); the dashboard at ``/ui`` (:mod:`kconnect.ui`),
behind the same filters. Every error is ``{"error_code", "message"}`` (see
:mod:`kconnect.rest.errors`). ``/openapi.json`` declares every answer of every route
(:mod:`kconnect.rest.openapi`).

A request to the regular listeners passes, outermost first: the request log (method, path,
status, time; never bodies, query strings or headers), ``response.http.headers.config``,
CORS (``access.control.allow.*``), ``OPTIONS`` answers, ``HEAD`` as ``GET``, the body capture
(for forwarding and filters), the REST extensions' filters (``rest.extension.classes``), then
the route. The admin listeners have the log, ``OPTIONS``, ``HEAD`` and the route only, as in
Kafka Connect, where extensions, CORS and header rules are set up on the regular listeners
alone.
"""

from __future__ import annotations

import functools
from typing import Any

from fastapi import FastAPI, Response
from starlette.types import ASGIApp, Receive, Scope, Send

import kconnect
from kconnect import _hot_path as hot_path
from kconnect.rest.auto_restart_resource import auto_restart_router
from kconnect.rest.connectors_resource import connectors_router
from kconnect.rest.entities import JsonResponse
from kconnect.rest.errors import install_exception_handlers
from kconnect.rest.extensions import (
    ExtensionFilterMiddleware,
    RestExtensions,
    add_extension_routes,
    load_extensions,
)
from kconnect.rest.forwarding import BodyCaptureMiddleware, install_forwarding
from kconnect.rest.http_headers import (
    CorsMiddleware,
    HeadMiddleware,
    OptionsMiddleware,
    ResponseHeadersMiddleware,
    parse_header_rules,
)
from kconnect.rest.internal_resource import internal_router
from kconnect.rest.loggers_resource import loggers_router
from kconnect.rest.metrics_resource import metrics_router
from kconnect.rest.openapi import install_openapi, responses
from kconnect.rest.plugins_resource import plugins_router
from kconnect.rest.request_log import RequestLogMiddleware
from kconnect.rest.route_table import RouteTable
from kconnect.rest.tls import client_context
from kconnect.runtime.herder.herder import Herder
from kconnect.ui.dashboard import worker_dashboard
from kconnect.ui.routes import dashboard_router

__all__ = ["admin_listeners", "create_admin_app", "create_app"]


def _setting(worker_config: Any, key: str) -> Any:
    if worker_config is None:
        return None
    try:
        return worker_config.get(key)
    except Exception:
        return None


class IgnoreTrailingSlash:
    """Kafka's REST server (Jersey) matches a path with or without one trailing slash:
    ``GET /connector-plugins/`` is ``GET /connector-plugins`` (Kafka's system tests call it so).
    Starlette would answer 307 to redirect; this strips the slash before routing instead.
    The dashboard's page, ``/ui/``, keeps its slash: its assets are relative to it."""

    KEPT = frozenset({"/ui/"})

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] == "http" and len(path) > 1 and path.endswith("/")
            and path not in self.KEPT
        ):  # fmt: skip
            raw = scope.get("raw_path")
            scope = {**scope, "path": path[:-1]}
            if isinstance(raw, bytes) and raw.endswith(b"/"):
                scope["raw_path"] = raw[:-1]
        await self.app(scope, receive, send)


def admin_listeners(worker_config: Any) -> list[str] | None:
    """``admin.listeners``: None (admin endpoints on the regular listeners), [] (none) or the
    admin listener URLs."""
    value = _setting(worker_config, "admin.listeners")
    if value is None:
        return None
    return [str(v).strip() for v in value if str(v).strip()]


def _base_app(**kwargs: Any) -> FastAPI:
    app = FastAPI(
        version=kconnect.__version__,
        default_response_class=JsonResponse,
        redoc_url=None,
        **kwargs,
    )
    install_exception_handlers(app)
    return app


def _forwarding_tls(worker_config: Any) -> Any:
    """The TLS context for forwarding to HTTPS workers: built now when this worker has an
    HTTPS listener (bad settings fail the start), else on first use."""
    if worker_config is None:
        return None
    make = functools.cache(lambda: client_context(worker_config))
    if any(spec.scheme == "https" for spec in getattr(worker_config, "rest_listeners", ())):
        make()
    return make


def create_app(herder: Herder, *, worker_config: Any = None, plugins: Any = None) -> FastAPI:
    """The FastAPI app of the regular listeners, serving ``herder``.

    ``worker_config`` (a WorkerConfig) supplies ``admin.listeners``,
    ``access.control.allow.*``, ``response.http.headers.config`` and
    ``rest.extension.classes``, whose names are resolved in ``plugins`` (default: the
    herder's). Raises ConfigException for bad settings and ConnectException when an
    extension fails to start; the extensions are closed by :meth:`close_extensions` on
    ``app.state``.
    """
    app = _base_app(
        title="kconnect REST API",
        description="Apache Kafka Connect's REST API, served by kconnect.",
        docs_url="/docs",
    )
    forwarding_tls = _forwarding_tls(worker_config)
    install_forwarding(app, tls=forwarding_tls)
    herder.use_internal_tls(forwarding_tls)  # the worker's own requests to other workers
    table = RouteTable()

    @app.get(
        "/",
        tags=["root"],
        summary="Get details about this Connect worker",
        responses=responses({200: "ServerInfo"}, 500),
    )
    def server_info() -> Any:
        return {
            "version": kconnect.__version__,
            "commit": "kconnect",
            "kafka_cluster_id": herder.kafka_cluster_id(),
            # kconnect's own field (Kafka Connect clients read the three above): which hot
            # path this worker runs, "native (kconnect_native x.y.z)" or "python (<why>)".
            "kconnect_hot_path": hot_path.describe(),
        }

    @app.get(
        "/health",
        tags=["root"],
        summary="Health check of the worker",
        responses=responses(
            {
                200: ("WorkerStatus", "healthy"),
                500: ("WorkerStatus", "unhealthy: the worker cannot handle requests"),
                503: ("WorkerStatus", "starting: the worker has not completed its start-up"),
            }
        ),
    )
    def health() -> Response:
        result = herder.health_check()
        return JsonResponse(result.to_json(), status_code=result.http_status)

    table.add(app.router.routes)  # these and FastAPI's /openapi.json and /docs
    routers = [
        metrics_router(herder, herder.metrics),
        connectors_router(herder),
        auto_restart_router(herder),
        internal_router(herder),  # worker-to-worker (standalone refuses: 405)
        plugins_router(herder),
    ]
    if admin_listeners(worker_config) is None:
        routers.append(loggers_router(herder))
    # the dashboard at /ui: routes like the others, so the REST extensions' filters
    # (authentication, read-only users) cover them
    dashboard = worker_dashboard(app, herder, worker_config, peer_tls=forwarding_tls)
    app.state.dashboard = dashboard
    routers.append(dashboard_router(dashboard))
    for router in routers:
        app.include_router(router)
        table.add(router.routes)

    extensions = RestExtensions()
    names = list(_setting(worker_config, "rest.extension.classes") or [])
    if names:
        source = plugins if plugins is not None else getattr(herder, "plugins", None)
        extensions = load_extensions(names, source, worker_config, herder)
    try:
        add_extension_routes(app, table, extensions.routes)
        rules = parse_header_rules(_setting(worker_config, "response.http.headers.config"))
    except Exception:
        extensions.close()
        raise
    app.state.rest_extensions = extensions
    app.state.close_extensions = extensions.close
    install_openapi(app, lambda: extensions.filter_responses)

    # innermost first: each add_middleware wraps what is there
    if extensions.filters:
        app.add_middleware(ExtensionFilterMiddleware, routes=table, filters=extensions.filters)
    app.add_middleware(BodyCaptureMiddleware)
    app.add_middleware(HeadMiddleware, routes=table)
    app.add_middleware(OptionsMiddleware, routes=table)
    origin = _setting(worker_config, "access.control.allow.origin")
    if origin and str(origin).strip():
        methods = _setting(worker_config, "access.control.allow.methods")
        app.add_middleware(CorsMiddleware, origins=str(origin), methods=methods)
    if rules:
        app.add_middleware(ResponseHeadersMiddleware, rules=rules)
    app.add_middleware(RequestLogMiddleware)
    app.add_middleware(IgnoreTrailingSlash)
    return app


def create_admin_app(herder: Herder) -> FastAPI:
    """The app of ``admin.listeners``: ``/admin/loggers`` only (no OpenAPI document)."""
    app = _base_app(title="kconnect admin REST API", docs_url=None, openapi_url=None)
    table = RouteTable()
    router = loggers_router(herder)
    app.include_router(router)
    table.add(router.routes)
    app.add_middleware(HeadMiddleware, routes=table)
    app.add_middleware(OptionsMiddleware, routes=table)
    app.add_middleware(RequestLogMiddleware)
    app.add_middleware(IgnoreTrailingSlash)
    return app
