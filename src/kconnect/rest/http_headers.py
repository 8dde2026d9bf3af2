"""Response headers the operator configures, CORS, and ``OPTIONS`` answers.

- ``response.http.headers.config`` (KIP-577, Jetty's ``HeaderFilter``): comma-separated rules
  ``[action] [header name]:[header value]``, a rule in double quotes when its value holds a
  comma. ``set`` replaces the header, ``add`` adds a value, ``setDate`` / ``addDate`` take a
  number of milliseconds and write the HTTP date that far from now
  (``setDate Expires: 31540000000``). Kafka's validation and messages: a header value cannot
  contain ``:``. Rules apply to every answer of the regular listeners (errors and 401s
  included), after everything else.
- ``access.control.allow.origin`` / ``access.control.allow.methods`` (Jetty 12's
  ``CrossOriginHandler`` as Kafka Connect 4.1 sets it up): origins are ``*`` or regular
  expressions matching the whole ``Origin``; every answer gets ``Vary: Origin``; an allowed
  origin gets ``Access-Control-Allow-Origin`` and, on a preflight, the allowed methods (default
  ``GET,POST,HEAD``), ``Access-Control-Allow-Headers: Content-Type`` and
  ``Access-Control-Max-Age: 60``.
- ``OPTIONS`` on a known path answers 200 with the path's methods in ``Allow`` and as text (as
  Jersey does), before REST extension filters, so a browser's preflight is not refused;
  ``HEAD`` on a path served by ``GET`` is that ``GET`` without its body (Jersey does this too).
"""

from __future__ import annotations

import re
import time
from email.utils import formatdate
from typing import Any

from kconnect.api.errors import ConfigException
from kconnect.rest.route_table import RouteTable

__all__ = [
    "CorsMiddleware",
    "HeadMiddleware",
    "HeaderRule",
    "OptionsMiddleware",
    "ResponseHeadersMiddleware",
    "parse_header_rules",
]

_KEY = "response.http.headers.config"
_ACTIONS = ("set", "add", "setDate", "addDate")


class HeaderRule:
    """One ``response.http.headers.config`` rule."""

    def __init__(self, action: str, name: str, value: str) -> None:
        self.action = action
        self.name = name
        self.value = value
        self.offset_ms = 0
        if action in ("setDate", "addDate"):
            try:
                self.offset_ms = int(value)
            except ValueError:
                raise ConfigException(
                    _KEY, value, f"'{action}' needs a number of milliseconds, got '{value}'"
                ) from None

    def header_value(self) -> str:
        if self.action in ("setDate", "addDate"):
            return formatdate(time.time() + self.offset_ms / 1000, usegmt=True)
        return self.value

    def __repr__(self) -> str:
        return f"HeaderRule({self.action} {self.name}: {self.value})"


def _csv_split(text: str) -> list[str]:
    """Jetty's ``StringUtil.csvSplit``: comma-separated, items trimmed, double quotes group
    (and are removed), ``\\`` escapes inside quotes."""
    items: list[str] = []
    current: list[str] = []
    quoted = False
    escaped = False
    for ch in text:
        if quoted:
            if escaped:
                current.append(ch)
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            else:
                current.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == ",":
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    items.append("".join(current).strip())
    return [i for i in items if i]


def parse_header_rules(text: str | None) -> list[HeaderRule]:
    """Parse and validate ``response.http.headers.config`` (Kafka's
    ``ResponseHttpHeadersValidator``). Raises ConfigException with Kafka's message."""
    if text is None or not text.strip():
        return []
    rules = []
    for config in _csv_split(text):
        tokens = config.strip().split(None, 1)
        if len(tokens) != 2:
            raise ConfigException(
                _KEY, text,
                f"Invalid format of header config '{config}'. Expected: '[action] [header "
                "name]:[header value]'",
            )  # fmt: skip
        action = next((a for a in _ACTIONS if a.lower() == tokens[0].strip().lower()), None)
        if action is None:
            raise ConfigException(
                _KEY, text,
                f"Invalid header config action: '{tokens[0].strip()}'. Expected one of "
                f"[{', '.join(_ACTIONS)}]",
            )  # fmt: skip
        parts = tokens[1].strip().split(":")
        while parts and parts[-1] == "":  # Java's split drops trailing empty strings
            parts.pop()
        if len(parts) != 2:
            raise ConfigException(
                _KEY, text,
                f"Invalid format of header name and header value pair '{tokens[1]}'. "
                "Expected: '[header name]:[header value]'",
            )  # fmt: skip
        name = parts[0].strip()
        if not name or re.search(r"\s", name):
            raise ConfigException(
                _KEY, text,
                f"Invalid header name '{name}'. The '[header name]' cannot contain whitespace",
            )  # fmt: skip
        rules.append(HeaderRule(action, name, parts[1].strip()))
    return rules


def _apply(
    headers: list[tuple[bytes, bytes]], rules: list[HeaderRule]
) -> list[tuple[bytes, bytes]]:
    out = list(headers)
    for rule in rules:
        name = rule.name.encode("latin-1")
        value = rule.header_value().encode("latin-1")
        if rule.action in ("set", "setDate"):
            out = [(k, v) for k, v in out if k.lower() != name.lower()]
        out.append((name, value))
    return out


class ResponseHeadersMiddleware:
    """Applies the ``response.http.headers.config`` rules to every answer."""

    def __init__(self, app: Any, rules: list[HeaderRule]) -> None:
        self.app = app
        self.rules = rules

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": _apply(list(message.get("headers", [])),
                                                        self.rules)}  # fmt: skip
            await send(message)

        await self.app(scope, receive, send_with_headers)


class CorsMiddleware:
    """Kafka Connect 4.1's cross-origin handling (see the module docstring)."""

    def __init__(self, app: Any, origins: str, methods: str | None) -> None:
        self.app = app
        patterns = [o.strip() for o in origins.split(",") if o.strip()]
        self.any_origin = "*" in patterns
        self.patterns = [re.compile(p) for p in patterns if p != "*"]
        allowed = [m for m in (methods or "").split(",") if m] or ["GET", "POST", "HEAD"]
        self.allow_methods = ",".join(allowed).encode("latin-1")

    def _allowed(self, origins: str) -> bool:
        if self.any_origin:
            return True
        return any(
            p.fullmatch(o.strip()) for o in origins.split(" ") if o.strip() for p in self.patterns
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_headers = dict(scope.get("headers", ()))
        origin = request_headers.get(b"origin")
        extra: list[tuple[bytes, bytes]] = [(b"vary", b"Origin")]
        if origin is not None and self._allowed(origin.decode("latin-1")):
            extra.append((b"access-control-allow-origin", origin))
            if scope["method"] == "OPTIONS" and b"access-control-request-method" in request_headers:
                extra += [
                    (b"access-control-allow-methods", self.allow_methods),
                    (b"access-control-allow-headers", b"Content-Type"),
                    (b"access-control-max-age", b"60"),
                ]

        async def send_with_cors(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*extra, *message.get("headers", [])]}
            await send(message)

        await self.app(scope, receive, send_with_cors)


class OptionsMiddleware:
    """``OPTIONS`` on a path some route serves: 200, ``Allow`` and the methods as text."""

    def __init__(self, app: Any, routes: RouteTable) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "OPTIONS":
            await self.app(scope, receive, send)
            return
        methods = self.routes.methods(scope)
        if not methods:
            await self.app(scope, receive, send)
            return
        methods.append("OPTIONS")
        body = ", ".join(methods).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"allow", ",".join(methods).encode()),
                    (b"content-type", b"text/plain"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class HeadMiddleware:
    """``HEAD`` on a path served by ``GET`` is that ``GET`` without the body (as Jersey
    answers it): headers, ``Content-Length`` included, and status are the GET's."""

    def __init__(self, app: Any, routes: RouteTable) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        as_get = {**scope, "method": "GET"}
        if self.routes.match(as_get) is None:
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Any) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(as_get, receive, headers_only)
