"""Opening and caching database connections, with Confluent's retry semantics.

:class:`ConnectionProvider` is the Python twin of ``CachedConnectionProvider``: it opens one
connection of the driver itself (``psycopg.Connection`` / ``sqlite3.Connection``) on demand,
retrying ``connection.attempts`` times with ``connection.backoff.ms`` between attempts, keeps
it, checks it is still usable before handing it out again, and reopens it when it is not. The
source queries and the sink writes through that connection. A database that cannot be reached
raises :class:`~kconnect.api.ConnectException` naming the database, host, port, user and the
driver's own explanation, never the password.

Threading: a provider belongs to one thread (a task's or the connector's). :meth:`close` may
be called from another thread once that thread has been told to stop; it is idempotent.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import ConnectException
from kconnect.connectors.jdbc.common.url import (
    POSTGRESQL,
    SQLITE,
    ConnectionSpec,
    connection_spec,
)

__all__ = [
    "ConnectionFailed",
    "ConnectionProvider",
    "describe_error",
    "preload_driver",
]

log = logging.getLogger(__name__)

# The driver modules of each dialect; importing psycopg takes ~0.05 s, which the first
# connection would otherwise wait for.
_DRIVER_MODULES = {
    SQLITE: ("sqlite3",),
    POSTGRESQL: ("psycopg",),
}
_preloaded: set[str] = set()
_preload_lock = threading.Lock()


def preload_driver(dialect: str) -> None:
    """Import ``dialect``'s driver in a background thread (once per process),
    so that a task's first connection does not wait for the imports: they overlap with the
    task joining its consumer group or waiting for its first poll. A failing import is left
    for the real import to report."""
    with _preload_lock:
        if dialect in _preloaded or dialect not in _DRIVER_MODULES:
            return
        _preloaded.add(dialect)

    def run() -> None:
        for name in _DRIVER_MODULES[dialect]:
            try:
                importlib.import_module(name)
            except Exception:  # the connection attempt reports a missing extra properly
                return

    threading.Thread(target=run, name=f"kconnect-preload-{dialect}", daemon=True).start()


DEFAULT_ATTEMPTS = 3
DEFAULT_BACKOFF_MS = 10_000

_ISOLATION = {
    "READ_UNCOMMITTED": "READ UNCOMMITTED",
    "READ_COMMITTED": "READ COMMITTED",
    "REPEATABLE_READ": "REPEATABLE READ",
    "SERIALIZABLE": "SERIALIZABLE",
}


class ConnectionFailed(ConnectException):
    """No connection could be opened. ``transient``: the database may accept one later (it
    is down or unreachable); False when it refused the credentials, which waiting cannot fix."""

    def __init__(self, message: str, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


def _refused_credentials(error: BaseException) -> bool:
    """SQLSTATE class 28 (invalid authorization), e.g. PostgreSQL's 28P01 bad password."""
    orig = getattr(error, "orig", None) or error
    state = getattr(orig, "sqlstate", None)
    return bool(state) and str(state).startswith("28")


def describe_error(error: BaseException, secret: str | None = None) -> str:
    """The driver's message for ``error`` (of the error a wrapper holds as ``orig``, if any),
    with ``secret`` scrubbed if the driver echoed it."""
    orig = getattr(error, "orig", None)
    text = str(orig if orig is not None else error).strip()
    if secret:
        text = text.replace(secret, "****")
    return f"{type(orig if orig is not None else error).__name__}: {text}"


class ConnectionProvider:
    """One connection of the driver itself -- ``psycopg.Connection`` (PostgreSQL) or
    ``sqlite3.Connection``, in a transaction from its first statement (not autocommit) --
    under Confluent's ``CachedConnectionProvider`` contract: opened on demand with
    ``connection.attempts`` / ``connection.backoff.ms``, kept, checked before it is handed
    out again, reopened when it is not usable.

    Args:
        spec: URL, credentials and driver properties.
        attempts: ``connection.attempts`` (≥1).
        backoff_ms: ``connection.backoff.ms`` between failed attempts.
        isolation: ``transaction.isolation.mode`` (``DEFAULT`` leaves the driver's level;
            SQLite knows only ``READ_UNCOMMITTED`` and ``SERIALIZABLE``, others are warned
            about and ignored).
        sleep: injectable for tests; called with seconds between attempts.
    """

    def __init__(
        self,
        spec: ConnectionSpec,
        attempts: int = DEFAULT_ATTEMPTS,
        backoff_ms: int = DEFAULT_BACKOFF_MS,
        isolation: str = "DEFAULT",
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.spec = spec
        self.attempts = max(1, attempts)
        self.backoff_ms = max(0, backoff_ms)
        self.isolation = isolation
        self._sleep = sleep
        self._conn: Any = None
        self._closed = threading.Event()
        preload_driver(spec.dialect)

    @property
    def dialect(self) -> str:
        return self.spec.dialect

    @classmethod
    def from_config(cls, props: Mapping[str, Any], **kwargs: Any) -> ConnectionProvider:
        """A provider from connector properties (``connection.*`` keys)."""
        return cls(
            connection_spec(props),
            int(props.get("connection.attempts") or DEFAULT_ATTEMPTS),
            int(props.get("connection.backoff.ms") or DEFAULT_BACKOFF_MS),
            str(props.get("transaction.isolation.mode") or "DEFAULT"),
            **kwargs,
        )

    # -- the contract -----------------------------------------------------------------------------

    def get(self) -> Any:
        """The cached connection, reopened if it was closed or is no longer valid."""
        conn = self._conn
        if conn is not None and self._usable(conn):
            return conn
        if conn is not None:
            self._close_quietly(conn)
        self._conn = self.open()
        return self._conn

    def is_valid(self) -> bool:
        """Whether the cached connection answers ``SELECT 1`` (no transaction must be open)."""
        conn = self._conn
        if conn is None or not self._usable(conn):
            return False
        try:
            self._ping(conn)
            return True
        except Exception:
            return False

    def get_valid(self) -> Any:
        """Like :meth:`get`, but pings an idle cached connection first (Confluent checks
        ``isValid`` before each query): a connection dropped by the server is replaced."""
        if self._conn is not None and self._idle(self._conn) and not self.is_valid():
            log.info(
                "Database connection to %s is no longer valid; reconnecting", self.spec.redacted()
            )
            self._close_quietly(self._conn)
            self._conn = None
        return self.get()

    def invalidate(self) -> None:
        """Drop the cached connection (after an error that may have broken it) so that the
        next :meth:`get` opens a fresh one. Never raises; called from the owning thread."""
        conn, self._conn = self._conn, None
        if conn is not None:
            self._close_quietly(conn)

    def open(self) -> Any:
        """Open a new connection, retrying per ``connection.attempts``/``connection.backoff.ms``.

        Raises:
            ConnectionFailed: every attempt failed; names the target and the driver's cause.
        """
        last: BaseException | None = None
        for attempt in range(1, self.attempts + 1):
            if self._closed.is_set():
                raise ConnectException(f"Connection provider for {self.spec.redacted()} is closed")
            try:
                conn = self._connect()
                log.info("Connected to %s", self.spec.redacted())
                return conn
            except ImportError:
                raise
            except Exception as e:
                last = e
                log.info(
                    "Unable to connect to %s (attempt %d of %d): %s",
                    self.spec.describe_target(),
                    attempt,
                    self.attempts,
                    describe_error(e, self.spec.password),
                )
                if attempt < self.attempts:
                    self._sleep(self.backoff_ms / 1000)
        assert last is not None
        raise ConnectionFailed(
            f"Could not connect to {self.spec.describe_target()} after {self.attempts} "
            f"attempt(s): {describe_error(last, self.spec.password)}. Check connection.url, "
            "connection.user and connection.password, and that the database accepts connections.",
            transient=not _refused_credentials(last),
        ) from None

    def close(self) -> None:
        """Close the cached connection. Idempotent."""
        self._closed.set()
        conn, self._conn = self._conn, None
        if conn is not None:
            self._close_quietly(conn)

    def _close_quietly(self, conn: Any) -> None:
        try:
            conn.close()
        except Exception as e:  # closing a broken connection may fail; nothing to do then
            log.debug("Ignoring error while closing a connection: %s", describe_error(e))

    # -- the driver's side: how a connection is made and checked -------------------------------

    def _connect(self) -> Any:
        """Open one connection (one attempt); raises the driver's error."""
        spec = self.spec
        args = spec.connect_args()
        if self.dialect == SQLITE:
            import sqlite3

            conn = sqlite3.connect(spec.url.database or ":memory:", **args)
            try:
                self._set_isolation(conn)
            except BaseException:
                conn.close()
                raise
            return conn
        import psycopg

        if len(spec.url.hosts) == 1:
            args.setdefault("host", spec.url.hosts[0][0])
            args.setdefault("port", spec.url.hosts[0][1])
        for key, value in (
            ("dbname", spec.url.database),
            ("user", spec.user),
            ("password", spec.password),
        ):
            if value is not None:
                args.setdefault(key, value)
        raw = psycopg.connect(**args)
        try:
            _configure_psycopg(raw)
            self._set_isolation(raw)
        except BaseException:
            raw.close()
            raise
        return raw

    def _set_isolation(self, conn: Any) -> None:
        level = _ISOLATION.get(self.isolation.upper())
        if level is None:
            return
        if self.dialect == SQLITE:
            # SQLite's only switch: read_uncommitted (shared-cache readers); serializable is
            # its default
            if level not in ("READ UNCOMMITTED", "SERIALIZABLE"):
                log.warning(
                    "Transaction isolation %s is not supported by %s; ignored (SQLite offers "
                    "READ_UNCOMMITTED and SERIALIZABLE)",
                    self.isolation,
                    self.dialect,
                )
                return
            conn.execute(f"PRAGMA read_uncommitted = {int(level == 'READ UNCOMMITTED')}")
            return
        from psycopg import IsolationLevel

        conn.isolation_level = IsolationLevel[level.replace(" ", "_")]

    def _usable(self, conn: Any) -> bool:
        """Whether ``conn`` is neither closed nor known to be broken (no round trip)."""
        return not getattr(conn, "closed", False) and not getattr(conn, "broken", False)

    def _idle(self, conn: Any) -> bool:
        """Whether ``conn`` has no transaction open (only then may it be pinged)."""
        if self.dialect == SQLITE:
            return not conn.in_transaction
        from psycopg import pq

        return bool(conn.info.transaction_status == pq.TransactionStatus.IDLE)

    def _ping(self, conn: Any) -> None:
        """A round trip that raises if the connection no longer works; leaves no
        transaction."""
        conn.execute("SELECT 1").fetchall()
        conn.rollback()


def _configure_psycopg(raw: Any) -> None:
    """Load json/jsonb/uuid as text (Connect STRING, as Confluent) instead of dict/UUID."""
    from psycopg.types.string import TextLoader

    for name in ("json", "jsonb", "uuid"):
        raw.adapters.register_loader(name, TextLoader)
