"""Forwarding requests to the leader or the owner of a connector/task (reference §1.4).

Kafka's ``HerderRequestHandler.completeOrForwardRequest``: when the herder raises a
:class:`~kconnect.runtime.herder.distributed_errors.RequestTargetException`, the request is
sent on to the worker that can serve it —
``<target URL><path>?<original query>&forward=<forward was absent>`` — so the first hop sends
``forward=true``, a second hop ``forward=false``, and a worker that is asked again answers
409. Only the ``Authorization`` header travels with the request (so the leader checks the
same credentials when a REST extension such as basic auth is configured), plus, for the
internal task config endpoint, the signature headers, which sign the unchanged body. The
remote answer is returned as is; a remote error keeps its status and body. HTTPS targets are
reached with the ``listeners.https.*`` trust store and key store, as Kafka's ``RestClient``
does (:func:`kconnect.rest.tls.client_context`).

Installed by :func:`install_forwarding` as an exception handler, so routes need no change;
:class:`BodyCaptureMiddleware` keeps the request body of POST/PUT/PATCH requests for the
re-send (and for REST extension filters).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
from fastapi import FastAPI, Request, Response

from kconnect.rest.errors import error_response
from kconnect.rest.tls import TlsConfigError
from kconnect.runtime.common.timeouts import REST_REQUEST_TIMEOUT_S
from kconnect.runtime.herder.distributed_errors import (
    RebalanceNeededException,
    RequestTargetException,
)
from kconnect.runtime.herder.session_keys import SIGNATURE_ALGORITHM_HEADER, SIGNATURE_HEADER

__all__ = [
    "CONFLICT_MESSAGE",
    "NO_LEADER_MESSAGE",
    "STALE_CONFIG_MESSAGE",
    "BodyCaptureMiddleware",
    "install_forwarding",
]

log = logging.getLogger(__name__)

CONFLICT_MESSAGE = (
    "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
)
NO_LEADER_MESSAGE = (
    "Cannot complete request momentarily due to no known leader URL, likely because a "
    "rebalance was underway."
)
STALE_CONFIG_MESSAGE = (
    "Cannot complete request momentarily due to stale configuration (typically caused by a "
    "concurrent config change)"
)
BODY_SCOPE_KEY = "kconnect.request_body"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BodyCaptureMiddleware:
    """Reads the body of POST/PUT/PATCH requests once, keeps it in the ASGI scope for a
    possible forward, and replays it to the app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        scope[BODY_SCOPE_KEY] = body
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _target(request: Request, forward_url: str, recursive: bool) -> str:
    query: list[tuple[str, str | int | float | bool | None]] = [
        (k, v) for k, v in request.query_params.multi_items() if k != "forward"
    ]
    query.append(("forward", "true" if recursive else "false"))
    return forward_url.rstrip("/") + request.url.path + "?" + httpx.QueryParams(query).__str__()


async def forward_request(
    request: Request,
    exc: RequestTargetException,
    timeout_s: float,
    tls: Callable[[], ssl.SSLContext] | None = None,
) -> Response:
    """Serve ``request`` by forwarding it as §1.4 says (or answer 409)."""
    forward = request.query_params.get("forward")
    if forward is not None and forward.strip().lower() != "true":
        # we were already the target of a forward and still cannot serve it
        return error_response(409, CONFLICT_MESSAGE)
    if not exc.forward_url:
        return error_response(409, NO_LEADER_MESSAGE)
    url = _target(request, exc.forward_url, recursive=forward is None)
    headers: dict[str, str] = {}
    if "authorization" in request.headers:
        headers["Authorization"] = request.headers["authorization"]
    for name in (SIGNATURE_HEADER, SIGNATURE_ALGORITHM_HEADER):
        if name in request.headers:
            headers[name] = request.headers[name]
    body = request.scope.get(BODY_SCOPE_KEY)
    if body:
        headers["Content-Type"] = "application/json"
    log.debug("Forwarding %s %s to %s (%s)", request.method, request.url.path, url, exc)
    try:
        verify: ssl.SSLContext | bool = True
        if url.lower().startswith("https:") and tls is not None:
            verify = tls()
        async with httpx.AsyncClient(timeout=timeout_s, verify=verify) as client:
            remote = await client.request(
                request.method, url, content=body or None, headers=headers
            )
    except (httpx.HTTPError, ssl.SSLError, TlsConfigError) as e:
        return error_response(
            500, f"IO Error trying to forward REST request: {type(e).__name__}: {e}"
        )
    if remote.status_code >= 400:
        try:
            data = remote.json()
            message = str(data.get("message"))
            code = int(data.get("error_code", remote.status_code))
        except (ValueError, AttributeError, TypeError):
            message, code = remote.text, remote.status_code
        return error_response(remote.status_code, message, code)
    out_headers = {}
    if "location" in remote.headers:
        # Kafka's resource builds the Location itself, against the base URI of the worker
        # the client asked: keep the leader's path, not its host
        path = urlsplit(remote.headers["location"]).path
        out_headers["Location"] = str(request.base_url).rstrip("/") + path
    return Response(
        content=remote.content,
        status_code=remote.status_code,
        headers=out_headers,
        media_type=remote.headers.get("content-type") if remote.content else None,
    )


def install_forwarding(
    app: FastAPI,
    *,
    timeout_s: float = REST_REQUEST_TIMEOUT_S,
    tls: Callable[[], ssl.SSLContext] | None = None,
) -> None:
    """Add the forwarding exception handlers (the app adds :class:`BodyCaptureMiddleware`);
    ``tls()`` gives the TLS context for HTTPS targets."""

    @app.exception_handler(RequestTargetException)
    async def _forward(request: Request, exc: RequestTargetException) -> Response:
        return await forward_request(request, exc, timeout_s, tls)

    @app.exception_handler(RebalanceNeededException)
    async def _stale(_: Request, exc: RebalanceNeededException) -> Response:
        return error_response(409, STALE_CONFIG_MESSAGE)
