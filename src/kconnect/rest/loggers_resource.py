"""``/admin/loggers``: Kafka Connect's ``LoggingResource`` (KIP-495, KIP-976)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response

from kconnect.api.errors import NotFoundException
from kconnect.rest.entities import JsonResponse, parse_json
from kconnect.rest.openapi import json_body, responses
from kconnect.runtime.common.loggers import python_level
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.herder.herder import Herder

__all__ = ["loggers_router"]

_Logger = Annotated[str, Path(examples=["root", "kconnect.rest"])]

log = logging.getLogger(__name__)


def loggers_router(herder: Herder) -> APIRouter:
    """Routes under ``/admin/loggers`` bound to ``herder``."""
    r = APIRouter(prefix="/admin/loggers", tags=["admin"])

    @r.get(
        "",
        summary="List the loggers with an explicit level, and root",
        responses=responses({200: "LoggerLevels"}, 500),
    )
    def list_loggers() -> Any:
        return {k: v.to_json() for k, v in herder.all_logger_levels().items()}

    @r.get(
        "/{logger}",
        summary="Get the level of a logger",
        responses=responses({200: "LoggerLevel"}, 404, 500),
    )
    def get_logger(logger: _Logger) -> Any:
        level = herder.logger_level(logger)
        if level is None:
            raise NotFoundException(f"Logger {logger} not found.")
        return level.to_json()

    @r.put(
        "/{logger}",
        summary="Set the level of a logger and its children",
        responses=responses(
            {
                200: ("AffectedLoggers", "scope=worker: the loggers whose level was set"),
                204: (None, "scope=cluster: every worker will apply the level"),
            },
            400,
            404,
            500,
        ),
        openapi_extra=json_body("LoggerLevelRequest", {"level": "DEBUG"}),
    )
    async def set_level(
        logger: _Logger,
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
