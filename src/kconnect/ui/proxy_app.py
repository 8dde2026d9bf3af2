"""``kconnect ui --url URL``: the dashboard in front of a Kafka Connect cluster that does not
serve it, a Java one for instance -- so a team can look at its cluster before migrating.

The app serves the page and ``/ui/api`` (:mod:`.routes`) and passes every other request
(Kafka Connect's REST API: ``/connectors...``, ``/connector-plugins...``, ``/``) through to
``URL`` with the caller's ``Authorization`` header, answering with the cluster's status,
body and ``WWW-Authenticate`` challenge; so the page talks to its own origin whatever the
cluster, and needs no CORS settings on the workers. Charts need a kconnect worker's metrics
history; the dead letter queue browser needs ``--bootstrap-servers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

import kconnect
from kconnect.runtime.common.timeouts import REST_REQUEST_TIMEOUT_S
from kconnect.ui.dashboard import Dashboard
from kconnect.ui.routes import dashboard_router

__all__ = ["create_proxy_app"]

_PASSED_HEADERS = ("content-type", "www-authenticate", "location")


def create_proxy_app(
    url: str, *, kafka_props: Mapping[str, object] | None = None, verify: Any = True
) -> FastAPI:
    """The dashboard of the cluster at ``url`` (see the module docstring)."""
    base = url.rstrip("/")
    dashboard = Dashboard(mode="proxy", url=base, kafka_props=kafka_props, verify=verify)
    app = FastAPI(title="kconnect dashboard", version=kconnect.__version__,
                  docs_url=None, redoc_url=None, openapi_url=None)  # fmt: skip
    app.state.dashboard = dashboard
    app.include_router(dashboard_router(dashboard))
    upstream = httpx.AsyncClient(base_url=base, timeout=REST_REQUEST_TIMEOUT_S, verify=verify)

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def pass_through(request: Request, path: str) -> Response:
        headers = {"Accept": request.headers.get("accept", "application/json")}
        for name in ("authorization", "content-type"):
            if name in request.headers:
                headers[name] = request.headers[name]
        try:
            answer = await upstream.request(
                request.method, "/" + path, params=list(request.query_params.multi_items()),
                content=await request.body(), headers=headers,
            )  # fmt: skip
        except httpx.HTTPError as e:
            return JSONResponse(
                {"error_code": 502, "message": f"The Connect REST API at {base} did not answer: "
                 f"{type(e).__name__}; check that it runs and that --url is right"},
                status_code=502,
            )  # fmt: skip
        passed = {k: v for k, v in answer.headers.items() if k.lower() in _PASSED_HEADERS}
        return Response(answer.content, status_code=answer.status_code, headers=passed)

    return app
