"""The request log: one INFO line per request on ``kconnect.rest.requests``.

Client address, method, path (no query string), status and time, nothing else: bodies, query
strings and headers (``Authorization`` above all) may hold secrets and are never logged.
"""

from __future__ import annotations

import logging
import time
from typing import Any

__all__ = ["RequestLogMiddleware", "request_log"]

request_log = logging.getLogger("kconnect.rest.requests")


class RequestLogMiddleware:
    """Pure ASGI middleware, outermost, so it logs the status every layer below decided."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # if the app fails before answering, the server answers 500

        async def record(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            client = scope.get("client")
            request_log.info(
                '%s "%s %s" %d %.0fms',
                client[0] if client else "-",
                scope["method"],
                scope["path"],
                status,
                (time.perf_counter() - start) * 1000,
            )
