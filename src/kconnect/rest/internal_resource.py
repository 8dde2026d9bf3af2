"""Internal worker-to-worker endpoints (Kafka's ``InternalConnectResource``).

``POST /connectors/{c}/tasks``: a worker running connector ``c`` sends the task configs it
generated to the leader, which writes them to the config topic (204).
``PUT /connectors/{c}/fence``: a worker about to start an exactly-once source task of ``c``
asks the leader for a round of zombie fencing (KIP-618); 204 once the leader fenced out the
earlier task generation's producers and wrote the task count record. Its empty body is what
the signature covers. Under the
``sessioned`` protocol the request must carry ``X-Connect-Authorization`` /
``X-Connect-Request-Signature-Algorithm`` (HMAC of the body with the session key); the
herder answers 400/403/503 otherwise. A standalone worker answers 405, as it has no leader.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from kconnect.rest.entities import parse_json
from kconnect.rest.openapi import json_body, responses
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.herder.herder import Herder
from kconnect.runtime.herder.session_keys import RequestSignature

__all__ = ["internal_router"]


def _task_configs(data: Any) -> list[dict[str, str]]:
    if not isinstance(data, list) or not all(isinstance(c, dict) for c in data):
        raise BadRequestException(
            "Task configs must be a JSON array of objects mapping config keys to string values"
        )
    return [{str(k): str(v) for k, v in c.items() if v is not None} for c in data]


def internal_router(herder: Herder) -> APIRouter:
    """Routes of the internal endpoints bound to ``herder``."""
    r = APIRouter(prefix="/connectors", tags=["internal"])

    @r.post(
        "/{connector}/tasks",
        status_code=204,
        summary="Write task configs for a connector (worker-to-worker, internal)",
        responses=responses({204: None}, 400, 403, 404, 405, 409, 500, 503),
        openapi_extra=json_body(
            "TaskConfigs", [{"task.class": "...", "file": "/nonexistent/kconnect-example/in.txt"}]
        ),
    )
    async def put_task_configs(connector: str, request: Request) -> Response:
        body = await request.body()
        configs = _task_configs(parse_json(body))
        signature = RequestSignature.from_headers(body, dict(request.headers))
        await run_in_threadpool(lambda: herder.put_task_configs(connector, configs, signature))
        return Response(status_code=204)

    @r.put(
        "/{connector}/fence",
        status_code=204,
        summary="Fence out the connector's earlier exactly-once task producers "
        "(worker-to-worker, internal)",
        responses=responses({204: None}, 400, 403, 404, 405, 409, 500, 503),
    )
    async def fence_zombies(connector: str, request: Request) -> Response:
        body = await request.body()
        signature = RequestSignature.from_headers(body, dict(request.headers))
        await run_in_threadpool(lambda: herder.fence_zombie_source_tasks(connector, signature))
        return Response(status_code=204)

    return r
