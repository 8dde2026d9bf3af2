"""The ASGI app of a MirrorMaker node's REST server: one Kafka Connect REST app per replication
flow, each under ``/<source>/<target>/``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import unquote

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["FlowDispatcher"]


class FlowDispatcher:
    """ASGI app routing ``/<source>/<target>/...`` to that flow's REST app, with the prefix
    removed (so each app, and its forwarding to the leader, sees Kafka Connect's paths).

    ``apps`` maps a prefix (``/A/B``, see
    :func:`~kconnect.mirror_maker.flow_config.flow_prefix`) to the flow's app. Lifespan events
    are answered here and not passed on: the flows' apps need no start-up or shutdown hooks
    from the server (their herders are started and stopped by the node). A path under no
    flow gets Java's 404 body naming the source and target it asked for.
    """

    def __init__(self, apps: Mapping[str, ASGIApp]) -> None:
        self.apps = dict(apps)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        path: str = scope.get("path", "")
        for prefix, app in self.apps.items():
            if path == prefix or path.startswith(prefix + "/"):
                inner = dict(scope)
                inner["path"] = path[len(prefix) :] or "/"
                raw = scope.get("raw_path")
                if isinstance(raw, bytes) and raw.startswith(prefix.encode()):
                    inner["raw_path"] = raw[len(prefix) :] or b"/"
                await app(inner, receive, send)
                return
        parts = [unquote(p) for p in path.split("/") if p]
        source = parts[0] if parts else ""
        target = parts[1] if len(parts) > 1 else ""
        body = json.dumps(
            {
                "error_code": 404,
                "message": f"No replication flow found for source '{source}' and target '{target}'",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 404,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})
