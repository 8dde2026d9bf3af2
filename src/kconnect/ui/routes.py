"""The dashboard's routes: the page at ``/ui/``, its files at ``/ui/assets/...`` and the
JSON it needs beyond Kafka Connect's REST API at ``/ui/api/...``.

Everything the page changes goes through Kafka Connect's own endpoints (pause, resume,
restart, offsets, delete...), called by the page on the same origin; ``/ui/api`` adds what the
REST API lacks: the cluster put together (:mod:`.cluster_view`), configs with secrets hidden
and the edits that keep them (:mod:`.config_masking`), the dead letter queue
(:mod:`.dlq_records`), metrics history (:mod:`.metrics_history`) and who the caller is.

These routes are registered like the REST API's own, so the REST authentication
(``rest.extension.classes``) covers them. ``GET /ui/api/session`` names the caller;
``POST /ui/api/session`` is how the page learns whether it may write: the authentication
refuses it (403) for a read-only user exactly as it would refuse a pause, so the page asks the
real authorization instead of a copy of its rules, and hides its buttons. Every error is
``{"error_code", "message"}``; nothing answers with a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from kconnect.ui.assets import content_type, read_asset
from kconnect.ui.cluster_client import Answer, ClusterClient, quote_path
from kconnect.ui.cluster_view import DEFAULT_PAGE, ConnectorPage, cluster_metrics, cluster_view
from kconnect.ui.config_masking import mask_config, mask_text, restore_hidden
from kconnect.ui.dashboard import Dashboard
from kconnect.ui.dlq_decoding import record_decoders
from kconnect.ui.dlq_records import read_dlq
from kconnect.ui.worker_info import worker_info

__all__ = ["dashboard_router"]

log = logging.getLogger(__name__)

DLQ_KEY = "errors.deadletterqueue.topic.name"
MAX_DLQ_RECORDS = 500


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error_code": status, "message": message}, status_code=status)


def _relay(answer: Answer, what: str) -> JSONResponse:
    status = answer.status if answer.status >= 400 else 502
    return _error(status, f"Cannot {what}: {answer.message()}")


#: The largest page of connectors the cluster view returns.
MAX_PAGE = 1000
CONNECTOR_STATES = ("RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING")


def _connector_page(request: Request) -> ConnectorPage | JSONResponse:
    """The cluster view's ``offset``, ``limit``, ``search`` and ``state`` query parameters, or a
    400 naming the one that is wrong."""
    q = request.query_params
    numbers: dict[str, int] = {}
    for key, default, low, high in (("offset", 0, 0, None), ("limit", DEFAULT_PAGE, 1, MAX_PAGE)):
        text = q.get(key)
        try:
            value = default if text is None else int(text)
        except ValueError:
            return _error(400, f"Invalid value {text} for query parameter {key}: not an integer")
        if value < low or (high is not None and value > high):
            limits = f"at least {low}" + (f" and at most {high}" if high is not None else "")
            return _error(400, f"Invalid value {value} for query parameter {key}: must be {limits}")
        numbers[key] = value
    state = (q.get("state") or "").strip().upper() or None
    if state is not None and state not in CONNECTOR_STATES:
        return _error(
            400, f"Invalid value {q.get('state')} for query parameter state: "
            f"must be one of {', '.join(CONNECTOR_STATES)}",
        )  # fmt: skip
    return ConnectorPage(numbers["offset"], numbers["limit"], q.get("search") or None, state)


def _guarded(what: str, call: Callable[[], Awaitable[Response]]) -> Awaitable[Response]:
    async def run() -> Response:
        try:
            return await call()
        except Exception as e:  # never a traceback at the boundary
            log.warning("Dashboard: %s failed", what, exc_info=True)
            return _error(500, mask_text(f"Dashboard: {what} failed: {type(e).__name__}: {e}"))

    return run()


async def _password_keys(client: ClusterClient, plugin: str | None) -> frozenset[str]:
    """The PASSWORD keys the plugin declares (``GET /connector-plugins/{class}/config``, a
    read that read-only users may make too); empty when the cluster cannot say."""
    if not plugin:
        return frozenset()
    answer = await client.get(f"/connector-plugins/{quote_path(plugin)}/config")
    if not answer.ok or not isinstance(answer.body, list):
        return frozenset()
    return frozenset(
        str(k.get("name"))
        for k in answer.body
        if isinstance(k, dict) and k.get("type") == "PASSWORD"
    )


def _mask_validation(body: Any, secret_keys: frozenset[str]) -> Any:
    if not isinstance(body, dict):
        return body
    for entry in body.get("configs") or ():
        value = entry.get("value") if isinstance(entry, dict) else None
        if not isinstance(value, dict):
            continue
        name = str(value.get("name"))
        if value.get("value") is not None:
            value["value"] = mask_config({name: value["value"]}, secret_keys)[name]
        value["errors"] = [mask_text(str(e)) for e in value.get("errors") or ()]
    return body


def dashboard_router(dashboard: Dashboard) -> APIRouter:
    """The routes of ``dashboard`` (see the module docstring)."""
    r = APIRouter(include_in_schema=False)

    def client(request: Request) -> ClusterClient:
        return ClusterClient(dashboard.target(), request.headers.get("authorization"))

    # -- the page ---------------------------------------------------------------------------

    @r.get("/ui")
    async def ui_root() -> Response:
        return RedirectResponse("ui/", status_code=307)

    @r.get("/ui/")
    async def ui_page() -> Response:
        return _asset("index.html")

    @r.get("/ui/assets/{name:path}")
    async def ui_asset(name: str) -> Response:
        return _asset(name)

    def _asset(name: str) -> Response:
        body = read_asset(name)
        if body is None:
            return _error(404, f"The dashboard has no file {name}")
        return Response(body, media_type=content_type(name), headers={"Cache-Control": "no-cache"})

    # -- who is asking ------------------------------------------------------------------------

    @r.get("/ui/api/session")
    async def session(request: Request) -> Response:
        return JSONResponse(
            {
                "user": request.scope.get("kconnect.principal"),
                "mode": dashboard.mode,
                "cluster_url": dashboard.target().url,
                "worker_id": dashboard.worker_id,
                "version": dashboard.version,
                "kafka": dashboard.kafka_props is not None,
            }
        )

    @r.post("/ui/api/session")
    async def may_write(request: Request) -> Response:
        async def run() -> Response:
            if dashboard.mode == "proxy":  # ask the cluster's own authorization
                async with client(request) as c:
                    answer = await c.call("POST", "/ui/api/session")
                if answer.status in (401, 403):
                    return _error(answer.status, answer.message())
            return JSONResponse({"writable": True})

        return await _guarded("the write check", run)

    # -- this worker ------------------------------------------------------------------------

    @r.get("/ui/api/worker")
    async def this_worker() -> Response:
        herder = dashboard.herder
        if herder is None:
            return _error(404, "This dashboard runs in front of a cluster, not on a worker")
        return JSONResponse(await run_in_threadpool(worker_info, herder))

    @r.get("/ui/api/metrics/history")
    async def history(connector: str | None = None) -> Response:
        if dashboard.history is None:
            return _error(404, "This worker keeps no metrics history (it runs no tasks)")
        return JSONResponse(await run_in_threadpool(dashboard.history.to_json, connector))

    # -- the cluster ------------------------------------------------------------------------

    @r.get("/ui/api/cluster")
    async def cluster(request: Request) -> Response:
        page = _connector_page(request)
        if isinstance(page, Response):
            return page

        async def run() -> Response:
            async with client(request) as c:
                status, body = await cluster_view(c, page)
            return JSONResponse(body, status_code=status)

        return await _guarded("the cluster view", run)

    @r.get("/ui/api/cluster/metrics")
    async def metrics(request: Request, connector: str) -> Response:
        async def run() -> Response:
            async with client(request) as c:
                status, body = await cluster_metrics(c, connector)
            return JSONResponse(body, status_code=status)

        return await _guarded("gathering metrics", run)

    # -- one connector's config -------------------------------------------------------------

    @r.get("/ui/api/connectors/{connector}/config")
    async def config(request: Request, connector: str) -> Response:
        async def run() -> Response:
            async with client(request) as c:
                info = await c.get(f"/connectors/{quote_path(connector)}")
                if not info.ok or not isinstance(info.body, dict):
                    return _relay(info, f"read connector {connector}")
                stored = dict(info.body.get("config") or {})
                plugin = stored.get("connector.class")
                keys = await _password_keys(c, plugin)
            return JSONResponse(
                {
                    "name": connector,
                    "type": info.body.get("type"),
                    "class": plugin,
                    "config": mask_config(stored, keys),
                    "password_keys": sorted(keys),
                }
            )

        return await _guarded(f"reading the config of {connector}", run)

    async def _edited(request: Request, c: ClusterClient, connector: str) -> Any:
        """(edited config with hidden values restored, password keys) or an error response."""
        try:
            body = await request.json()
        except ValueError:
            return _error(400, 'The request body must be JSON: {"config": {...}}')
        edited = body.get("config") if isinstance(body, dict) else None
        if not isinstance(edited, dict):
            return _error(400, 'The request body must be JSON: {"config": {...}}')
        info = await c.get(f"/connectors/{quote_path(connector)}/config")
        if not info.ok or not isinstance(info.body, dict):
            return _relay(info, f"read connector {connector}")
        stored = info.body
        plugin = edited.get("connector.class") or stored.get("connector.class")
        keys = await _password_keys(c, plugin)
        restored = restore_hidden({k: (None if v is None else str(v)) for k, v in edited.items()},
                                  stored, keys)  # fmt: skip
        return restored, keys, plugin

    @r.put("/ui/api/connectors/{connector}/validate")
    async def validate(request: Request, connector: str) -> Response:
        async def run() -> Response:
            async with client(request) as c:
                edited = await _edited(request, c, connector)
                if isinstance(edited, Response):
                    return edited
                restored, keys, plugin = edited
                if not plugin:
                    return _error(400, "connector.class is missing: name the connector's class")
                answer = await c.call(
                    "PUT", f"/connector-plugins/{quote_path(plugin)}/config/validate",
                    json={**restored, "name": connector},
                )  # fmt: skip
            if not answer.ok:
                return _relay(answer, "validate the config")
            return JSONResponse(_mask_validation(answer.body, keys))

        return await _guarded(f"validating the config of {connector}", run)

    @r.put("/ui/api/connectors/{connector}/config")
    async def save(request: Request, connector: str) -> Response:
        async def run() -> Response:
            async with client(request) as c:
                edited = await _edited(request, c, connector)
                if isinstance(edited, Response):
                    return edited
                restored, keys, _plugin = edited
                answer = await c.call(
                    "PUT", f"/connectors/{quote_path(connector)}/config", json=restored
                )
            if not answer.ok:
                return _relay(answer, f"save the config of {connector}")
            body = answer.body if isinstance(answer.body, dict) else {}
            return JSONResponse({**body, "config": mask_config(body.get("config") or {}, keys)})

        return await _guarded(f"saving the config of {connector}", run)

    # -- the dead letter queue --------------------------------------------------------------

    @r.get("/ui/api/connectors/{connector}/dlq")
    async def dlq(request: Request, connector: str, limit: int = 20) -> Response:
        async def run() -> Response:
            async with client(request) as c:
                info = await c.get(f"/connectors/{quote_path(connector)}/config")
            if not info.ok or not isinstance(info.body, dict):
                return _relay(info, f"read connector {connector}")
            topic = (info.body.get(DLQ_KEY) or "").strip()
            if not topic:
                return _error(
                    404,
                    f"Connector {connector} has no dead letter queue: set {DLQ_KEY} (and "
                    "errors.tolerance=all) in its config to keep the records it fails on",
                )
            props = dashboard.kafka_props
            if props is None:
                return _error(
                    409,
                    f"This dashboard cannot reach Kafka to read {topic}: start it with "
                    "kconnect ui --bootstrap-servers HOST:PORT",
                )
            n = max(1, min(int(limit), MAX_DLQ_RECORDS))
            try:
                decoders = await run_in_threadpool(record_decoders, info.body)
                records = await run_in_threadpool(read_dlq, props, topic, n, 10.0, decoders)
            except LookupError:
                return _error(404, f"The dead letter queue topic {topic} does not exist yet "
                                   "(it is created with the first failed record)")  # fmt: skip
            headers_on = str(info.body.get("errors.deadletterqueue.context.headers.enable", ""))
            return JSONResponse(
                {
                    "connector": connector,
                    "topic": topic,
                    "context_headers": headers_on.lower() == "true",
                    "records": records,
                }
            )

        return await _guarded(f"reading the dead letter queue of {connector}", run)

    return r
