"""``/admin/loggers``: Kafka Connect's ``LoggingResource`` (KIP-495, KIP-976)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request, Response

from kconnect.api.errors import NotFoundException
from kconnect.rest.entities import JsonResponse, json_body, parse_json
from kconnect.runtime.common.rest_errors import BadRequestException
from kconnect.runtime.herder.herder import Herder
from kconnect.runtime.loggers import python_level

__all__ = ["loggers_router"]

log = logging.getLogger(__name__)


def loggers_router(herder: Herder) -> APIRouter:
    """Routes under ``/admin/loggers`` bound to ``herder``."""
    r = APIRouter(prefix="/admin/loggers", tags=["admin"])

    @r.get("", summary="List the loggers with an explicit level, and root")
    def list_loggers() -> Any:
        return {k: v.to_json() for k, v in herder.all_logger_levels().items()}

    @r.get("/{logger}", summary="Get the level of a logger")
    def get_logger(logger: str) -> Any:
        level = herder.logger_level(logger)
        if level is None:
            raise NotFoundException(f"Logger {logger} not found.")
        return level.to_json()

    @r.put(
        "/{logger}",
        summary="Set the level of a logger and its children",
        openapi_extra=json_body({"level": "DEBUG"}),
    )
    async def set_level(
        logger: str,
        request: Request,
        scope: str = "worker",
    ) -> Response:
        data = parse_json(await request.body())
        level = data.get("level") if isinstance(data, dict) else None
        if level is None:
            raise BadRequestException("Desired 'level' parameter was not specified in request.")
        if not isinstance(level, str) or python_level(level) is None:
            raise NotFoundException(f"invalid log level '{level}'.")
        if scope.lower() == "cluster":
            herder.set_cluster_logger_level(logger, level)
            return Response(status_code=204)
        if scope.lower() != "worker":
            log.warning(
                "Received invalid scope '%s' in request to adjust logging level; will default to worker",
                scope,
            )
        return JsonResponse(herder.set_worker_logger_level(logger, level))

    return r
