"""The REST application: ``create_app(herder, worker_config=...) -> FastAPI``.

Kafka Connect's REST API (reference §1.2) for one herder: ``/``, ``/health``, ``/connectors``,
``/connector-plugins`` and, unless ``admin.listeners`` is set to an empty list,
``/admin/loggers``; the dashboard at ``/ui`` (:mod:`kconnect.ui`). Every error is ``{"error_code", "message"}`` (see :mod:`kconnect.rest.errors`).
Requests are logged (method, path, status, time; never bodies, which may hold secrets).
The OpenAPI schema is at ``/openapi.json``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request, Response

import kconnect
from kconnect.rest.auto_restart_resource import auto_restart_router
from kconnect.rest.connectors_resource import connectors_router
from kconnect.rest.entities import JsonResponse
from kconnect.rest.errors import install_exception_handlers
from kconnect.rest.forwarding import install_forwarding
from kconnect.rest.internal_resource import internal_router
from kconnect.rest.loggers_resource import loggers_router
from kconnect.rest.metrics_resource import metrics_router
from kconnect.rest.plugins_resource import plugins_router
from kconnect.runtime.herder.herder import Herder
from kconnect.ui.dashboard import worker_dashboard
from kconnect.ui.routes import dashboard_router

__all__ = ["create_app"]

request_log = logging.getLogger("kconnect.rest.requests")


def _setting(worker_config: Any, key: str) -> Any:
    if worker_config is None:
        return None
    try:
        return worker_config.get(key)
    except Exception:
        return None


def create_app(herder: Herder, *, worker_config: Any = None) -> FastAPI:
    """The FastAPI app serving ``herder``. ``worker_config`` (a WorkerConfig) supplies
    ``admin.listeners``, ``access.control.allow.origin``/``methods``."""
    app = FastAPI(
        title="kconnect REST API",
        description="Apache Kafka Connect's REST API, served by kconnect.",
        version=kconnect.__version__,
        default_response_class=JsonResponse,
        docs_url="/docs",
        redoc_url=None,
    )
    install_exception_handlers(app)
    install_forwarding(app)  # distributed mode: leader/owner-only requests are forwarded

    @app.middleware("http")
    async def log_requests(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        start = time.perf_counter()
        response = await call_next(request)
        request_log.info(
            '%s "%s %s" %d %.0fms',
            request.client.host if request.client else "-",
            request.method,
            request.url.path,
            response.status_code,
            (time.perf_counter() - start) * 1000,
        )
        return response

    origin = _setting(worker_config, "access.control.allow.origin")
    if origin:
        from fastapi.middleware.cors import CORSMiddleware

        methods = _setting(worker_config, "access.control.allow.methods") or "GET,POST,HEAD"
        app.add_middleware(
            CORSMiddleware,
            allow_origins=[o.strip() for o in str(origin).split(",")],
            allow_methods=[m.strip() for m in str(methods).split(",")],
            allow_headers=["*"],
        )

    @app.get("/", tags=["root"], summary="Get details about this Connect worker")
    def server_info() -> Any:
        return {
            "version": kconnect.__version__,
            "commit": "kconnect",
            "kafka_cluster_id": herder.kafka_cluster_id(),
        }

    @app.get("/health", tags=["root"], summary="Health check of the worker")
    def health() -> Response:
        result = herder.health_check()
        return JsonResponse(result.to_json(), status_code=result.http_status)

    app.include_router(metrics_router(herder, herder.metrics))
    app.include_router(connectors_router(herder))
    app.include_router(auto_restart_router(herder))
    app.include_router(internal_router(herder))  # worker-to-worker (standalone refuses: 405)
    app.include_router(plugins_router(herder))
    admin = _setting(worker_config, "admin.listeners")
    if admin is None or admin != []:
        app.include_router(loggers_router(herder))
    # the dashboard at /ui: routes like the others, so REST authentication covers them
    dashboard = worker_dashboard(app, herder, worker_config)
    app.include_router(dashboard_router(dashboard))
    app.state.dashboard = dashboard
    return app
