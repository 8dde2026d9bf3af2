"""The streaming-replication framing: XLogData and keepalives parsed, status updates built
byte for byte as PostgreSQL's protocol documents them, LSNs in PostgreSQL's text form."""

from __future__ import annotations

import re
import struct
from datetime import UTC, datetime, timedelta

import pytest

from kconnect.connectors.debezium.postgres.replication.pgoutput import Commit, decode
from kconnect.connectors.debezium.postgres.replication.protocol import (
    PG_EPOCH_OFFSET_US,
    Keepalive,
    ReplicationProtocolError,
    XLogData,
    format_lsn,
    parse_lsn,
    parse_message,
    pg_now_us,
    pg_time_to_epoch_us,
    standby_status_update,
)


def test_xlog_data_carries_its_positions_clock_and_payload() -> None:
    data = b"w" + struct.pack(">QQq", 0x16B3748, 0x16B4000, 123_456) + b"B\x00payload"

    got = parse_message(data)

    assert got == XLogData(0x16B3748, 0x16B4000, 123_456, b"B\x00payload")


def test_keepalive_says_whether_it_wants_a_reply() -> None:
    assert parse_message(b"k" + struct.pack(">QqB", 7 << 32, 5, 1)) == Keepalive(7 << 32, 5, True)
    assert parse_message(b"k" + struct.pack(">QqB", 9, 5, 0)) == Keepalive(9, 5, False)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"w" + b"\x00" * 10, "shorter than its 25-byte header"),
        (b"k\x00\x00", "shorter than its 18 bytes"),
        (b"x" + b"\x00" * 30, "unknown replication message type b'x'"),
        (b"", "unknown replication message type b''"),
    ],
)
def test_a_malformed_message_is_refused_with_what_is_wrong(data: bytes, says: str) -> None:
    with pytest.raises(ReplicationProtocolError, match=re.escape(says)):
        parse_message(data)


def test_status_update_layout() -> None:
    got = standby_status_update(0x30, 0x20, 0x10, 99, reply=True)

    assert got == b"r" + struct.pack(">QQQqB", 0x30, 0x20, 0x10, 99, 1)
    assert standby_status_update(1, 1, 1, 1)[-1] == 0
    assert len(got) == 34


def test_the_clock_is_microseconds_since_2000() -> None:
    assert PG_EPOCH_OFFSET_US == 946_684_800 * 1_000_000
    # 2026 is some 26 years after PostgreSQL's epoch
    assert 25 * 365 * 86_400 * 10**6 < pg_now_us() < 60 * 365 * 86_400 * 10**6


# -- LSN text and PostgreSQL's clock ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text_lsn", "value"),
    [("0/16B3748", 0x16B3748), ("1/0", 1 << 32), ("FFFFFFFF/FFFFFFFF", (1 << 64) - 1), ("0/0", 0)],
)
def test_lsn_text_round_trip(text_lsn: str, value: int) -> None:
    assert parse_lsn(text_lsn) == value
    assert format_lsn(value) == text_lsn
    assert parse_lsn(format_lsn(value)) == value


def test_parse_lsn_accepts_lower_case_and_leading_zeros() -> None:
    assert parse_lsn("0/16b3748") == 0x16B3748
    assert parse_lsn("00000001/00000000") == 1 << 32


@pytest.mark.parametrize(
    "bad", ["", "16B3748", "0/", "/1", "0/0/0", "G/0", "0/123456789", " 0/1", "0x1/0", "+1/0"]
)
def test_parse_lsn_rejects(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid LSN"):
        parse_lsn(bad)


@pytest.mark.parametrize("bad", [-1, 1 << 64])
def test_format_lsn_rejects_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError, match="unsigned 64-bit"):
        format_lsn(bad)


def test_commit_time_conversion() -> None:
    assert PG_EPOCH_OFFSET_US == 946_684_800 * 1_000_000
    assert pg_time_to_epoch_us(0) == 946_684_800_000_000
    when = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    pg_us = (when - datetime(2000, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    commit = decode(b"C" + struct.pack(">BQQq", 0, 1, 2, pg_us))
    assert isinstance(commit, Commit)
    epoch_us = pg_time_to_epoch_us(commit.commit_time_us)
    assert datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=epoch_us) == when
    assert pg_time_to_epoch_us(-946_684_800_000_000) == 0
