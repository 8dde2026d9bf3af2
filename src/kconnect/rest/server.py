"""Runs the REST app on uvicorn, one server per listener (``listeners``), each in its own thread.

HTTPS listeners take their TLS material from ``listeners.https.ssl.*`` (falling back to the
worker's ``ssl.*``): PEM files (``ssl.keystore.type=PEM`` with ``ssl.keystore.location`` holding
key and certificate, or ``ssl.keystore.certificate.chain``/``ssl.keystore.key`` file paths) and,
if the ``cryptography`` package is installed, PKCS12 keystores. JKS keystores cannot be read by
Python; convert them with ``keytool -importkeystore -deststoretype PKCS12``.

:meth:`RestServer.start` binds every port first, so "address already in use" is reported as a
:class:`RestServerError` naming the listener before any server thread starts.
"""

from __future__ import annotations

import logging
import os
import socket
import ssl
import tempfile
import threading
import time
from typing import Any

import uvicorn

__all__ = ["RestServer", "RestServerError"]

log = logging.getLogger(__name__)


class RestServerError(Exception):
    """The REST server cannot start (port in use, bad TLS settings); the message says which."""


def _ssl_setting(worker_config: Any, key: str) -> Any:
    for full in (f"listeners.https.{key}", key):
        try:
            value = worker_config.originals().get(full)
        except Exception:
            value = None
        if value not in (None, ""):
            return value
    return None


def _tls_files(worker_config: Any, tmpdir: str) -> dict[str, Any]:
    kind = str(_ssl_setting(worker_config, "ssl.keystore.type") or "JKS").upper()
    location = _ssl_setting(worker_config, "ssl.keystore.location")
    password = _ssl_setting(worker_config, "ssl.keystore.password")
    key_password = _ssl_setting(worker_config, "ssl.key.password") or password
    chain = _ssl_setting(worker_config, "ssl.keystore.certificate.chain")
    key = _ssl_setting(worker_config, "ssl.keystore.key")
    out: dict[str, Any] = {}
    if chain and key and os.path.exists(str(chain)):
        out = {"ssl_certfile": str(chain), "ssl_keyfile": str(key)}
    elif location and kind == "PEM":
        out = {"ssl_certfile": str(location), "ssl_keyfile": str(location)}
    elif location and kind == "PKCS12":
        try:
            from cryptography.hazmat.primitives.serialization import (
                BestAvailableEncryption,
                Encoding,
                NoEncryption,
                PrivateFormat,
                pkcs12,
            )
        except ImportError:
            raise RestServerError(
                "ssl.keystore.type=PKCS12 needs the 'cryptography' package (pip install "
                "cryptography), or use PEM files (ssl.keystore.type=PEM)"
            ) from None
        with open(str(location), "rb") as f:
            pkey, cert, extra = pkcs12.load_key_and_certificates(
                f.read(), str(password).encode() if password else None
            )
        if pkey is None or cert is None:
            raise RestServerError(f"ssl.keystore.location {location} holds no key and certificate")
        enc = (
            BestAvailableEncryption(str(key_password).encode()) if key_password else NoEncryption()
        )
        path = os.path.join(tmpdir, "rest.pem")
        with open(path, "wb") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(pkey.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, enc))
            f.write(cert.public_bytes(Encoding.PEM))
            for c in extra or []:
                f.write(c.public_bytes(Encoding.PEM))
        out = {"ssl_certfile": path, "ssl_keyfile": path}
    elif location:
        raise RestServerError(
            f"ssl.keystore.type={kind} cannot be read by kconnect; use PEM or PKCS12 "
            "(keytool -importkeystore -deststoretype PKCS12)"
        )
    else:
        raise RestServerError(
            "An https listener needs listeners.https.ssl.keystore.location (PEM or PKCS12)"
        )
    if key_password and "ssl_keyfile" in out:
        out["ssl_keyfile_password"] = str(key_password)
    client_auth = str(_ssl_setting(worker_config, "ssl.client.auth") or "none").lower()
    truststore = _ssl_setting(worker_config, "ssl.truststore.location")
    if client_auth in ("required", "requested"):
        out["ssl_cert_reqs"] = ssl.CERT_REQUIRED if client_auth == "required" else ssl.CERT_OPTIONAL
        if truststore:
            out["ssl_ca_certs"] = str(truststore)
    return out


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # the CLI owns signals
        pass


class RestServer:
    """Serves ``app`` on every listener of ``worker_config`` until :meth:`stop`."""

    def __init__(self, app: Any, worker_config: Any) -> None:
        self.app = app
        self.worker_config = worker_config
        self._servers: list[_Server] = []
        self._threads: list[threading.Thread] = []
        self._tmp = tempfile.TemporaryDirectory(prefix="kconnect-rest-")
        self.bound: list[tuple[str, str, int]] = []

    def start(self, timeout_s: float = 10.0) -> None:
        """Bind and serve every listener; returns once all accept connections.

        Raises:
            RestServerError: a port is in use or TLS settings are unusable.
        """
        listeners = list(self.worker_config.rest_listeners)
        sockets: list[socket.socket] = []
        for spec in listeners:
            host = spec.host or "0.0.0.0"
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, spec.port))
            except OSError as e:
                sock.close()
                for s in sockets:
                    s.close()
                raise RestServerError(
                    f"listeners: cannot bind {spec.scheme}://{spec.host}:{spec.port}: {e.strerror}; "
                    "stop the other process or choose another port in 'listeners'"
                ) from None
            sock.listen(128)
            sockets.append(sock)
        for spec, sock in zip(listeners, sockets, strict=True):
            tls = _tls_files(self.worker_config, self._tmp.name) if spec.scheme == "https" else {}
            config = uvicorn.Config(
                self.app, log_config=None, access_log=False, lifespan="off", **tls
            )
            server = _Server(config)
            thread = threading.Thread(
                target=server.run, kwargs={"sockets": [sock]},
                name=f"rest-{spec.scheme}-{spec.port}", daemon=True,
            )  # fmt: skip
            thread.start()
            self._servers.append(server)
            self._threads.append(thread)
            self.bound.append((spec.scheme, spec.host, sock.getsockname()[1]))
        deadline = time.monotonic() + timeout_s
        while not all(s.started for s in self._servers):
            if time.monotonic() > deadline or not all(t.is_alive() for t in self._threads):
                raise RestServerError("REST server failed to start (see the log for the reason)")
            time.sleep(0.02)
        for scheme, host, port in self.bound:
            log.info("REST server listening at %s://%s:%d/", scheme, host or "0.0.0.0", port)

    def stop(self) -> None:
        """Stop accepting requests and wait for the server threads (≤ 10 s)."""
        for server in self._servers:
            server.should_exit = True
        for thread in self._threads:
            thread.join(timeout=10)
        dashboard = getattr(getattr(self.app, "state", None), "dashboard", None)
        if dashboard is not None:
            dashboard.close()
        self._tmp.cleanup()
