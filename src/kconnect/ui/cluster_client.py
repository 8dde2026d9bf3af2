"""How the dashboard's server side talks to the cluster: Kafka Connect's REST API, as any
client would.

Every question the dashboard asks (connectors, statuses, configs, validation, the other
workers) goes through the REST API, never around it: the answers are the ones ``curl`` gets,
the caller's credentials are checked by the same REST authentication (a read-only user cannot
write through the dashboard), and the same code serves a kconnect worker's own ``/ui`` and
``kconnect ui --url`` in front of any cluster, Java Kafka Connect included.

:class:`ClusterClient` is made per request with the caller's ``Authorization`` header. On a
worker it calls that worker's own REST app in-process (an ASGI transport: no socket, no TLS,
the same middleware); in front of a remote cluster it calls ``--url`` over HTTP. Other workers
(their ``/ui/api/worker``, ``GET /``, metrics history) are reached at ``<scheme>://<worker
id>`` -- Kafka Connect's worker ids are the advertised ``host:port``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

__all__ = ["Answer", "ClusterClient", "ClusterTarget", "quote_path"]

#: Seconds for one REST call to the cluster (validation of a JDBC config may connect).
TIMEOUT_S = 30.0
#: Seconds for a call to another worker (a dead worker must not stall the cluster view).
PEER_TIMEOUT_S = 3.0


def quote_path(name: str) -> str:
    """A connector name as one path segment (names may hold ``/``, spaces, ``#``)."""
    return quote(name, safe="")


@dataclass(frozen=True)
class Answer:
    """One REST answer: status and decoded JSON (None when the body is empty or not JSON);
    ``error`` is a one-line reason when the call did not reach the cluster at all (then
    ``status`` is 0)."""

    status: int
    body: Any
    error: str | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def message(self) -> str:
        """What went wrong, for the page: the cluster's own message when it sent one."""
        if self.error:
            return self.error
        if isinstance(self.body, dict) and isinstance(self.body.get("message"), str):
            return str(self.body["message"])
        return f"HTTP {self.status}"


@dataclass(frozen=True)
class ClusterTarget:
    """Where the cluster's REST API is: ``app`` (this worker's ASGI app, in-process) or
    ``url`` (a remote worker); ``worker_id`` is the serving worker's id when there is one;
    ``verify`` is httpx's TLS verification setting for HTTPS workers."""

    url: str
    app: Any = None
    worker_id: str | None = None
    verify: Any = True

    @property
    def scheme(self) -> str:
        return urlsplit(self.url).scheme or "http"


def _decode(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


class ClusterClient:
    """REST calls to the cluster on behalf of one request; use as ``async with``."""

    def __init__(self, target: ClusterTarget, authorization: str | None) -> None:
        self.target = target
        headers = {"Accept": "application/json"}
        if authorization:
            headers["Authorization"] = authorization
        self._headers = headers
        if target.app is not None:
            transport: httpx.AsyncBaseTransport = httpx.ASGITransport(
                app=target.app, client=("127.0.0.1", 0)
            )
            self._main = httpx.AsyncClient(
                transport=transport, base_url="http://dashboard.local", headers=headers,
                timeout=TIMEOUT_S,
            )  # fmt: skip
        else:
            self._main = httpx.AsyncClient(
                base_url=target.url.rstrip("/"), headers=headers, timeout=TIMEOUT_S,
                verify=target.verify,
            )  # fmt: skip
        self._peers = httpx.AsyncClient(headers=headers, timeout=PEER_TIMEOUT_S,
                                        verify=target.verify)  # fmt: skip

    async def __aenter__(self) -> ClusterClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(self._main.aclose(), self._peers.aclose())

    async def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Any = None,
    ) -> Answer:
        """``method path`` on the cluster (the serving worker, or ``--url``)."""
        try:
            response = await self._main.request(method, path, json=json, params=params)
        except httpx.HTTPError as e:
            return Answer(0, None, f"cannot reach the Connect REST API at {self.target.url}: {e}")
        return Answer(response.status_code, _decode(response))

    async def get(self, path: str, **kwargs: Any) -> Answer:
        return await self.call("GET", path, **kwargs)

    def is_self(self, worker_id: str) -> bool:
        """Whether ``worker_id`` is the worker this client calls in-process or at ``--url``."""
        if self.target.worker_id is not None:
            return worker_id == self.target.worker_id
        parts = urlsplit(self.target.url)
        return (
            worker_id
            == f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
        )

    def worker_url(self, worker_id: str) -> str:
        """The REST URL of the worker called ``worker_id`` (``host:port``)."""
        return f"{self.target.scheme}://{worker_id}"

    async def worker_get(self, worker_id: str, path: str, **kwargs: Any) -> Answer:
        """``GET path`` on one worker of the cluster (in-process when it is the serving one)."""
        if self.is_self(worker_id):
            return await self.get(path, **kwargs)
        try:
            response = await self._peers.get(self.worker_url(worker_id) + path, **kwargs)
        except httpx.HTTPError as e:
            return Answer(0, None, f"worker {worker_id} did not answer: {type(e).__name__}")
        return Answer(response.status_code, _decode(response))
