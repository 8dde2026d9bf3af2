"""Error mapping: every failure becomes ``{"error_code": N, "message": "..."}`` (Kafka's
``ConnectExceptionMapper``), never a traceback.

``ConnectRestException`` → its status; ``NotFoundException`` → 404; ``AlreadyExistsException``
→ 409; malformed or wrongly typed request bodies → 400; unknown paths → 404, wrong methods →
405 (Jersey's "HTTP 404 Not Found" / "HTTP 405 Method Not Allowed"); anything else → 500 with the
exception's message (the trace goes to the log only).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from kconnect.api.errors import AlreadyExistsException, ConfigException, NotFoundException
from kconnect.rest.entities import JsonResponse
from kconnect.runtime.common.request_errors import ConnectRestException

__all__ = ["RestServerError", "error_response", "install_exception_handlers"]

log = logging.getLogger(__name__)


class RestServerError(Exception):
    """The REST server cannot start (port in use, bad TLS settings); the message says which."""


def error_response(status: int, message: str, error_code: int | None = None) -> JsonResponse:
    """The JSON error body with ``status``."""
    return JsonResponse(
        {"error_code": status if error_code is None else error_code, "message": message},
        status_code=status,
    )


def _describe_validation(errors: list[Any]) -> str:
    parts = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body",)]
        kind = err.get("type", "")
        if kind == "json_invalid":
            ctx = err.get("ctx", {}) or {}
            return f"Request body is not valid JSON: {ctx.get('error', 'malformed JSON')}"
        where = ".".join(loc) if loc else "request body"
        parts.append(f"{where}: {err.get('msg', 'invalid value')}")
    return "Invalid request: " + "; ".join(parts)


def install_exception_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error Kafka Connect's JSON body."""

    @app.exception_handler(ConnectRestException)
    async def _rest(_: Request, exc: ConnectRestException) -> JsonResponse:
        return error_response(exc.status, exc.message, exc.error_code)

    @app.exception_handler(NotFoundException)
    async def _not_found(_: Request, exc: NotFoundException) -> JsonResponse:
        return error_response(404, str(exc))

    @app.exception_handler(AlreadyExistsException)
    async def _exists(_: Request, exc: AlreadyExistsException) -> JsonResponse:
        return error_response(409, str(exc))

    @app.exception_handler(ConfigException)
    async def _config(_: Request, exc: ConfigException) -> JsonResponse:
        return error_response(400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JsonResponse:
        return error_response(400, _describe_validation(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JsonResponse:
        detail = exc.detail
        if not isinstance(detail, str) or detail == HTTPStatus(exc.status_code).phrase:
            detail = f"HTTP {exc.status_code} {HTTPStatus(exc.status_code).phrase}"
        return error_response(exc.status_code, detail)

    @app.exception_handler(Exception)
    async def _any(request: Request, exc: Exception) -> JsonResponse:
        log.error("Uncaught exception in REST call to %s %s", request.method,
                  request.url.path, exc_info=exc)  # fmt: skip
        return error_response(500, str(exc) or type(exc).__name__)
