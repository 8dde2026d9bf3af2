"""Runs the REST apps on uvicorn, one server per listener, each in its own thread.

``listeners`` serve the regular app; ``admin.listeners`` (when set and not empty) serve the
admin app. HTTPS listeners take their TLS settings from ``listeners.https.*`` (admin ones
from ``admin.listeners.https.*``), or else from the worker's ``ssl.*`` keys: see
:mod:`kconnect.rest.tls` (JKS, PKCS12 and PEM key and trust stores, ``ssl.client.auth`` for
client certificates).

:meth:`RestServer.start` binds every port first, so "address already in use" is reported as a
:class:`RestServerError` naming the listener before any server thread starts.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import uvicorn

from kconnect.rest.errors import RestServerError
from kconnect.rest.tls import ADMIN_PREFIX, LISTENER_PREFIX, TlsConfigError, server_context

__all__ = ["Listener", "RestServer", "RestServerError", "parse_listener"]

log = logging.getLogger(__name__)


class Listener(NamedTuple):
    """One listener: ``scheme`` (http/https), ``host`` ("" = all interfaces), ``port``."""

    scheme: str
    host: str
    port: int


def parse_listener(text: str, key: str = "admin.listeners") -> Listener:
    """``http://host:port`` / ``https://[::1]:port`` (Kafka's listener syntax)."""
    parts = urlsplit(text.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise RestServerError(f'{key}: {text}: Listener protocol must be either "http" or "https".')
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        raise RestServerError(
            f"{key}: {text}: Listener doesn't have the right format (protocol://hostname:port)."
        )
    return Listener(scheme, parts.hostname or "", port)


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # the CLI owns signals
        pass


class RestServer:
    """Serves ``app`` on every listener of ``worker_config`` (and ``admin_app`` on its
    ``admin.listeners``) until :meth:`stop`."""

    def __init__(self, app: Any, worker_config: Any, admin_app: Any = None) -> None:
        self.app = app
        self.admin_app = admin_app
        self.worker_config = worker_config
        self._servers: list[_Server] = []
        self._threads: list[threading.Thread] = []
        #: (scheme, host, port) of each regular listener, then each admin listener
        self.bound: list[tuple[str, str, int]] = []
        self.admin_bound: list[tuple[str, str, int]] = []

    def _listeners(self) -> list[tuple[Listener, Any, str, bool]]:
        out = [
            (Listener(s.scheme, s.host, s.port), self.app, LISTENER_PREFIX, False)
            for s in self.worker_config.rest_listeners
        ]
        if self.admin_app is not None:
            for text in self.worker_config.get("admin.listeners") or []:
                if str(text).strip():
                    out.append((parse_listener(str(text)), self.admin_app, ADMIN_PREFIX, True))
        return out

    def start(self, timeout_s: float = 10.0) -> None:
        """Bind and serve every listener; returns once all accept connections.

        Raises:
            RestServerError: a port is in use or TLS settings are unusable.
        """
        listeners = self._listeners()
        contexts = []
        for spec, _app, prefix, _admin in listeners:
            try:
                contexts.append(
                    server_context(self.worker_config, prefix) if spec.scheme == "https" else None
                )
            except TlsConfigError as e:
                raise RestServerError(str(e)) from None
        sockets: list[socket.socket] = []
        for spec, _app, _prefix, admin in listeners:
            host = spec.host or "0.0.0.0"
            # IPPROTO_TCP said outright: asyncio turns Nagle's algorithm off (TCP_NODELAY) only
            # on sockets whose protocol is IPPROTO_TCP, and a socket made with protocol 0 passes
            # it on to every connection it accepts. With Nagle on, a response written as
            # headers then body waits for the client's delayed ACK of the headers: 40 ms added
            # to every request on a kept-alive connection (bench/scale.py: PUT 52 -> 13 ms).
            sock = socket.socket(
                socket.AF_INET6 if ":" in host else socket.AF_INET,
                socket.SOCK_STREAM,
                socket.IPPROTO_TCP,
            )
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, spec.port))
            except OSError as e:
                sock.close()
                for s in sockets:
                    s.close()
                key = "admin.listeners" if admin else "listeners"
                raise RestServerError(
                    f"{key}: cannot bind {spec.scheme}://{spec.host}:{spec.port}: {e.strerror}; "
                    f"stop the other process or choose another port in '{key}'"
                ) from None
            sock.listen(128)
            sockets.append(sock)
        for (spec, app, _prefix, admin), sock, tls in zip(
            listeners, sockets, contexts, strict=True
        ):
            config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="off")
            config.load()
            config.ssl = tls  # our context: trust store, client auth, protocol bounds
            server = _Server(config)
            thread = threading.Thread(
                target=server.run, kwargs={"sockets": [sock]},
                name=f"rest-{'admin-' if admin else ''}{spec.scheme}-{spec.port}", daemon=True,
            )  # fmt: skip
            thread.start()
            self._servers.append(server)
            self._threads.append(thread)
            bound = (spec.scheme, spec.host, sock.getsockname()[1])
            (self.admin_bound if admin else self.bound).append(bound)
        deadline = time.monotonic() + timeout_s
        while not all(s.started for s in self._servers):
            if time.monotonic() > deadline or not all(t.is_alive() for t in self._threads):
                raise RestServerError("REST server failed to start (see the log for the reason)")
            time.sleep(0.02)
        for scheme, host, port in self.bound:
            log.info("REST server listening at %s://%s:%d/", scheme, host or "0.0.0.0", port)
        for scheme, host, port in self.admin_bound:
            log.info("REST admin endpoints at %s://%s:%d/", scheme, host or "0.0.0.0", port)

    def stop(self) -> None:
        """Stop accepting requests, wait for the server threads (≤ 10 s), then close the REST
        extensions."""
        for server in self._servers:
            server.should_exit = True
        for thread in self._threads:
            thread.join(timeout=10)
        close = getattr(getattr(self.app, "state", None), "close_extensions", None)
        if callable(close):
            close()
        dashboard = getattr(getattr(self.app, "state", None), "dashboard", None)
        if dashboard is not None:
            dashboard.close()
