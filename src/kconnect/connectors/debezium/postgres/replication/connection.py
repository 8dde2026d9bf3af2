"""A logical replication connection to PostgreSQL (``replication=database``) through psycopg 3.

psycopg has no replication API, but it runs the replication commands (``IDENTIFY_SYSTEM``,
``CREATE_REPLICATION_SLOT``, ``START_REPLICATION``) as queries, and after
``START_REPLICATION`` leaves the connection in CopyBoth mode; the stream is then read and
written through libpq's copy functions on ``connection.pgconn`` (libpq keeps doing the
authentication, TLS and socket handling, as for every other PostgreSQL connection kconnect
makes).

Lifecycle: :meth:`ReplicationConnection.connect` → (:meth:`~ReplicationConnection.
identify_system`, :meth:`~ReplicationConnection.create_slot`)* → :meth:`~ReplicationConnection.
start` → :meth:`~ReplicationConnection.read` / :meth:`~ReplicationConnection.acknowledge`, from
one thread → :meth:`~ReplicationConnection.close` (any thread, once the reader is done).

Positions: :meth:`read` answers keepalives that ask for a reply and sends a status update
every ``status_interval_s`` on its own; the status reports the end of what was received as
written, and the position given to :meth:`acknowledge` (only forward) as flushed and applied:
that is where the slot's ``confirmed_flush_lsn`` goes, and what PostgreSQL keeps the WAL after.
A slot's position moves only when its consumer says the changes are safe (Debezium: after the
worker committed the offsets of the records that carry them).
"""

from __future__ import annotations

import selectors
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.connectors.debezium.postgres.replication.protocol import (
    Keepalive,
    XLogData,
    format_lsn,
    parse_lsn,
    parse_message,
    pg_now_us,
    standby_status_update,
)

__all__ = [
    "CreatedSlot",
    "ReplicationConnection",
    "ReplicationStreamEnded",
    "SystemIdentity",
    "publications_option",
]


class ReplicationStreamEnded(ConnectException):
    """The server ended the replication stream or the connection broke (a restart, a
    fail-over, a terminated walsender): the message says why."""


@dataclass(frozen=True, slots=True)
class SystemIdentity:
    """``IDENTIFY_SYSTEM``'s answer: the cluster's id, timeline, current WAL flush position
    and the database the connection is on."""

    system_id: str
    timeline: int
    xlog_position: int
    database: str


@dataclass(frozen=True, slots=True)
class CreatedSlot:
    """``CREATE_REPLICATION_SLOT``'s answer: the slot's first position (``consistent_point``:
    every change committed after it is streamed) and the name of the snapshot it exported
    (``SET TRANSACTION SNAPSHOT`` in another session reads the database as of that point;
    valid until this connection runs another command or closes), or None."""

    name: str
    consistent_point: int
    snapshot_name: str | None
    plugin: str


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class ReplicationConnection:
    """One replication connection; see the module for its lifecycle."""

    def __init__(self, conn: Any, status_interval_s: float) -> None:
        self._conn = conn
        self._status_interval_s = status_interval_s
        self._streaming = False
        self._received = 0
        self._flushed = 0
        self._next_status = 0.0
        self._selector: selectors.BaseSelector | None = None

    @classmethod
    def connect(
        cls,
        conninfo: str,
        *,
        settings: Mapping[str, Any] | None = None,
        status_interval_s: float = 10.0,
    ) -> ReplicationConnection:
        """Open the connection (``settings``: libpq keywords such as ``application_name`` or
        ``connect_timeout``, besides those in ``conninfo``)."""
        import psycopg

        conn = psycopg.connect(
            conninfo, autocommit=True, replication="database", **dict(settings or {})
        )
        return cls(conn, status_interval_s)

    # -- commands (before start) ----------------------------------------------------------------

    def identify_system(self) -> SystemIdentity:
        row = self._conn.execute("IDENTIFY_SYSTEM").fetchone()
        return SystemIdentity(str(row[0]), int(row[1]), parse_lsn(row[2]), str(row[3]))

    def create_slot(
        self, name: str, plugin: str = "pgoutput", *, export_snapshot: bool = False
    ) -> CreatedSlot:
        """Create the logical slot ``name`` (exporting a snapshot if asked: then keep this
        connection idle until the snapshot was imported)."""
        snapshot = "EXPORT_SNAPSHOT" if export_snapshot else "NOEXPORT_SNAPSHOT"
        row = self._conn.execute(
            f"CREATE_REPLICATION_SLOT {_quote(name)} LOGICAL {plugin} {snapshot}"
        ).fetchone()
        return CreatedSlot(str(row[0]), parse_lsn(row[1]), row[2], str(row[3]))

    def start(
        self,
        slot: str,
        start_lsn: int,
        options: Mapping[str, str],
    ) -> None:
        """``START_REPLICATION`` of ``slot`` from ``start_lsn`` (the server starts from the
        slot's ``confirmed_flush_lsn`` when that is later) with the output plugin's
        ``options`` (pgoutput: ``proto_version``, ``publication_names``, ``messages`` ...).
        The flushed position starts at ``start_lsn``."""
        opts = ", ".join(f"{_quote(k)} {_literal(v)}" for k, v in options.items())
        self._conn.cursor().execute(
            f"START_REPLICATION SLOT {_quote(slot)} LOGICAL {format_lsn(start_lsn)}"
            + (f" ({opts})" if opts else "")
        )
        self._streaming = True
        self._received = self._flushed = start_lsn
        self._next_status = time.monotonic() + self._status_interval_s
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._conn.pgconn.socket, selectors.EVENT_READ)

    # -- the stream -----------------------------------------------------------------------------

    #: a keepalive asked for a reply since the caller last cleared this: the server is shutting
    #: down and waits for the client to confirm everything sent (or it heard nothing from us
    #: for half of ``wal_sender_timeout``)
    reply_requested = False

    @property
    def received_lsn(self) -> int:
        """The end of the WAL received so far (data or keepalives)."""
        return self._received

    @property
    def flushed_lsn(self) -> int:
        """The position last given to :meth:`acknowledge` (or the start position)."""
        return self._flushed

    def read(self, timeout_s: float) -> XLogData | None:
        """The next XLogData message, or None when none came within ``timeout_s``.
        Keepalives are answered here; a status update goes out every ``status_interval_s``."""
        pgconn = self._conn.pgconn
        deadline = time.monotonic() + timeout_s
        while True:
            n, data = pgconn.get_copy_data(1)  # 1: do not block
            if n > 0:
                message = parse_message(bytes(data))
                if isinstance(message, XLogData):
                    if message.wal_start > self._received:  # 0: a message without an LSN
                        self._received = message.wal_start
                    self._maybe_send_status()
                    return message
                self._on_keepalive(message)
                continue
            if n < 0:
                self._streaming = False
                raise ReplicationStreamEnded(self._stream_end_reason(n))
            now = time.monotonic()
            self._maybe_send_status(now)
            left = min(deadline, self._next_status) - now
            if now >= deadline:
                return None
            assert self._selector is not None
            if self._selector.select(max(0.0, left)):
                pgconn.consume_input()

    def acknowledge(self, lsn: int) -> None:
        """The changes up to ``lsn`` are safe: report it as flushed (the slot moves there) at
        once, asking the server for a reply. Positions never move backwards."""
        if lsn > self._flushed:
            self._flushed = lsn
            if lsn > self._received:
                self._received = lsn
            self._send_status(reply=True)

    def close(self) -> None:
        """End the stream (CopyDone) and close the connection."""
        try:
            if self._streaming:
                self._streaming = False
                try:
                    self._conn.pgconn.put_copy_end()
                    self._conn.pgconn.flush()
                except Exception:  # the connection is going anyway
                    pass
        finally:
            if self._selector is not None:
                self._selector.close()
                self._selector = None
            self._conn.close()

    # -- internals ------------------------------------------------------------------------------

    def _on_keepalive(self, message: Keepalive) -> None:
        if message.wal_end > self._received:
            self._received = message.wal_end
        if message.reply_requested:
            self.reply_requested = True
            self._send_status()
        else:
            self._maybe_send_status()

    def _maybe_send_status(self, now: float | None = None) -> None:
        if (time.monotonic() if now is None else now) >= self._next_status:
            self._send_status()

    def _send_status(self, *, reply: bool = False) -> None:
        pgconn = self._conn.pgconn
        flushed = self._flushed
        pgconn.put_copy_data(
            standby_status_update(self._received, flushed, flushed, pg_now_us(), reply=reply)
        )
        pgconn.flush()
        self._next_status = time.monotonic() + self._status_interval_s

    def _stream_end_reason(self, n: int) -> str:
        pgconn = self._conn.pgconn
        message = pgconn.error_message.decode("utf-8", "replace").strip()
        if n == -1:  # the server ended the copy: its result says why
            result = pgconn.get_result()
            if result is not None and result.error_message:
                message = result.error_message.decode("utf-8", "replace").strip()
        return "The replication stream ended" + (f": {message}" if message else "")


def publications_option(publications: Sequence[str]) -> str:
    """pgoutput's ``publication_names`` value: the names, each quoted as an identifier."""
    return ",".join(_quote(p) for p in publications)
