"""``GET /connectors/{connector}/auto-restart``: kconnect's automatic restarts, as JSON.

A view Kafka Connect does not have, on a path of its own so existing clients never meet it:
for the connector and each of its tasks that failed, the plan written with its status --
``attempts`` so far (of ``max_attempts``, -1 for no limit), ``next_attempt_ms`` (epoch ms, null
when none will come), ``reason`` (why none will), its ``state`` and last ``trace``. Any worker
answers from the status store; a connector or task that never failed is left out::

    {"name": "jdbc-sink", "connector": null,
     "tasks": [{"id": 0, "state": "FAILED", "attempts": 2, "max_attempts": 10,
                "next_attempt_ms": 1764600000000, "reason": null, "trace": "..."}]}
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from kconnect.rest.openapi import responses
from kconnect.runtime.herder.herder import Herder

__all__ = ["auto_restart_router"]


def auto_restart_router(herder: Herder) -> APIRouter:
    r = APIRouter(prefix="/connectors", tags=["kconnect"])

    @r.get(
        "/{connector}/auto-restart",
        summary="kconnect: the automatic-restart state of a connector and its tasks",
        responses=responses({200: "AutoRestartState"}, 404, 500),
    )
    async def auto_restart(connector: str) -> Any:
        return await run_in_threadpool(herder.auto_restart_state, connector)

    return r
