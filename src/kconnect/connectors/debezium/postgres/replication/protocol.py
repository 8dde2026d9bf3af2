"""The streaming-replication framing inside a replication connection's CopyBoth stream, as
PostgreSQL documents it ("Streaming Replication Protocol"), big-endian:

* ``w`` XLogData (server → client): Int64 start of the WAL data in the message, Int64 the
  server's current end of WAL, Int64 the server's clock when sent, then the payload (for a
  logical slot: one message of the output plugin, pgoutput's for Debezium);
* ``k`` primary keepalive (server → client): Int64 end of WAL, Int64 the server's clock, Byte1
  1 when the server asks for an immediate reply (or it ends the connection after
  ``wal_sender_timeout``);
* ``r`` standby status update (client → server): Int64 the last WAL byte received + 1 ("write"),
  Int64 flushed, Int64 applied, Int64 the client's clock, Byte1 1 to ask the server for a reply.
  For a logical slot the flushed position is what the slot's ``confirmed_flush_lsn`` moves to:
  the server keeps all WAL after it, and restarts a later ``START_REPLICATION`` from there.

Clocks are microseconds since 2000-01-01 00:00 UTC (PostgreSQL's epoch); LSNs are unsigned
64-bit integers, written ``X/X`` in hex as PostgreSQL does (:func:`format_lsn`).
"""

from __future__ import annotations

import re
import struct
import time
from dataclasses import dataclass

__all__ = [
    "PG_EPOCH_OFFSET_US",
    "Keepalive",
    "ReplicationProtocolError",
    "XLogData",
    "format_lsn",
    "parse_lsn",
    "parse_message",
    "pg_now_us",
    "pg_time_to_epoch_us",
    "standby_status_update",
]

#: Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 (UTC).
PG_EPOCH_OFFSET_US = 946_684_800_000_000

_XLOG_HEADER = struct.Struct(">QQq")  # start, end, send time
_KEEPALIVE = struct.Struct(">QqB")  # end, send time, reply requested
_STATUS = struct.Struct(">cQQQqB")


class ReplicationProtocolError(ValueError):
    """A CopyData message of the replication stream that is not what the protocol says."""


@dataclass(frozen=True, slots=True)
class XLogData:
    """One ``w`` message: WAL data from ``wal_start`` (for a logical slot: the LSN of the
    output plugin's message in ``payload``; 0 for messages without one, such as pgoutput's
    Relation), the server's end of WAL and clock when it sent it."""

    wal_start: int
    wal_end: int
    send_time_us: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class Keepalive:
    """One ``k`` message: the server's end of WAL and clock; ``reply_requested``: answer with a
    status update now."""

    wal_end: int
    send_time_us: int
    reply_requested: bool


def parse_message(data: bytes) -> XLogData | Keepalive:
    """The ``w`` or ``k`` message in one CopyData message of the stream."""
    tag = data[:1]
    if tag == b"w":
        if len(data) < 1 + _XLOG_HEADER.size:
            raise ReplicationProtocolError(
                f"XLogData message of {len(data)} bytes is shorter than its 25-byte header"
            )
        start, end, sent = _XLOG_HEADER.unpack_from(data, 1)
        return XLogData(start, end, sent, data[1 + _XLOG_HEADER.size :])
    if tag == b"k":
        if len(data) < 1 + _KEEPALIVE.size:
            raise ReplicationProtocolError(
                f"keepalive message of {len(data)} bytes is shorter than its 18 bytes"
            )
        end, sent, reply = _KEEPALIVE.unpack_from(data, 1)
        return Keepalive(end, sent, reply != 0)
    raise ReplicationProtocolError(
        f"unknown replication message type {tag!r} (expected b'w' or b'k'; {len(data)} bytes)"
    )


def standby_status_update(
    received: int, flushed: int, applied: int, now_us: int, *, reply: bool = False
) -> bytes:
    """The ``r`` message reporting these positions at ``now_us`` (PostgreSQL's clock)."""
    return _STATUS.pack(b"r", received, flushed, applied, now_us, 1 if reply else 0)


def pg_now_us() -> int:
    """This machine's clock as microseconds since PostgreSQL's epoch."""
    return time.time_ns() // 1000 - PG_EPOCH_OFFSET_US


def pg_time_to_epoch_us(pg_time_us: int) -> int:
    """A PostgreSQL timestamp (µs since 2000-01-01 UTC, as in pgoutput's Begin and Commit) as
    µs since 1970-01-01 UTC."""
    return pg_time_us + PG_EPOCH_OFFSET_US


_MAX_LSN = 0xFFFF_FFFF_FFFF_FFFF
_LSN_TEXT = re.compile(r"([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})")


def format_lsn(lsn: int) -> str:
    """An LSN as PostgreSQL writes it: two upper-case hex halves, ``0x16B3748`` →
    ``"0/16B3748"``."""
    if not 0 <= lsn <= _MAX_LSN:
        raise ValueError(f"an LSN is an unsigned 64-bit integer, got {lsn}")
    return f"{lsn >> 32:X}/{lsn & 0xFFFF_FFFF:X}"


def parse_lsn(text: str) -> int:
    """``X/X`` LSN text (either case, as ``pg_lsn`` accepts it) as an integer; ValueError for
    anything else."""
    m = _LSN_TEXT.fullmatch(text)
    if m is None:
        raise ValueError(
            f"invalid LSN {text!r}: expected two hex numbers of up to 8 digits, e.g. '0/16B3748'"
        )
    return (int(m.group(1), 16) << 32) | int(m.group(2), 16)
