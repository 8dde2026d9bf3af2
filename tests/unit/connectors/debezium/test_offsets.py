"""Debezium PostgreSQL offsets: partition, key order per phase (plan §3), loading."""

from __future__ import annotations

import json

import pytest

from kconnect.api import ConnectException
from kconnect.connectors.debezium.postgres.offsets import (
    PostgresOffset,
    after_snapshot_offset,
    load_offset,
    snapshot_offset,
    source_partition,
    streaming_offset,
)


def test_partition() -> None:
    assert source_partition("dbserver1") == {"server": "dbserver1"}


def test_snapshot_record_key_order() -> None:
    offset = snapshot_offset(24_023_128, 767, 1_704_164_645_123_456)
    assert list(offset) == [
        "last_snapshot_record",
        "lsn",
        "txId",
        "ts_usec",
        "snapshot",
        "snapshot_completed",
    ]
    assert offset == {
        "last_snapshot_record": False,
        "lsn": 24_023_128,
        "txId": 767,
        "ts_usec": 1_704_164_645_123_456,
        "snapshot": "INITIAL",
        "snapshot_completed": False,
    }
    # what the offsets topic then holds
    assert json.dumps(offset, separators=(",", ":")) == (
        '{"last_snapshot_record":false,"lsn":24023128,"txId":767,'
        '"ts_usec":1704164645123456,"snapshot":"INITIAL","snapshot_completed":false}'
    )


def test_last_snapshot_record() -> None:
    offset = snapshot_offset(24_023_128, 767, 5, last=True)
    assert list(offset) == [
        "last_snapshot_record",
        "lsn",
        "txId",
        "ts_usec",
        "snapshot",
        "snapshot_completed",
    ]
    assert offset["last_snapshot_record"] is True and offset["snapshot_completed"] is True


def test_snapshot_after_streaming_key_order() -> None:
    offset = snapshot_offset(300, 9, 5, lsn_proc=200, lsn_commit=100)
    assert list(offset) == [
        "lsn_proc",
        "last_snapshot_record",
        "lsn_commit",
        "lsn",
        "txId",
        "ts_usec",
        "snapshot",
        "snapshot_completed",
    ]


def test_after_snapshot_key_order() -> None:
    assert list(after_snapshot_offset(300, 9, 5)) == ["lsn", "txId", "ts_usec"]


def test_streaming_key_orders() -> None:
    first = streaming_offset(400, 400, None, 10, 5, "INSERT")
    assert list(first) == ["lsn_proc", "messageType", "lsn", "txId", "ts_usec"]
    later = streaming_offset(400, 400, 350, 10, 5, "UPDATE")
    assert list(later) == ["lsn_proc", "messageType", "lsn_commit", "lsn", "txId", "ts_usec"]
    assert later == {
        "lsn_proc": 400,
        "messageType": "UPDATE",
        "lsn_commit": 350,
        "lsn": 400,
        "txId": 10,
        "ts_usec": 5,
    }
    with_xmin = streaming_offset(400, 400, 350, 10, 5, "COMMIT", xmin=700)
    assert list(with_xmin) == [
        "lsn_proc",
        "xmin",
        "messageType",
        "lsn_commit",
        "lsn",
        "txId",
        "ts_usec",
    ]
    with_tx = streaming_offset(
        400,
        400,
        350,
        10,
        5,
        "INSERT",
        transaction_id="10",
        data_collection_orders={"public.t": 2},
    )
    assert list(with_tx)[:5] == [
        "transaction_id",
        "lsn_proc",
        "transaction_data_collection_order_public.t",
        "messageType",
        "lsn_commit",
    ]
    assert with_tx["transaction_data_collection_order_public.t"] == 2
    with pytest.raises(ValueError):
        streaming_offset(1, 1, None, 1, 1, "insert")


def test_load_streaming_offset_round_trip() -> None:
    stored = streaming_offset(400, 400, 350, 10, 5, "UPDATE", xmin=7)
    loaded = load_offset(json.loads(json.dumps(stored)))
    assert loaded == PostgresOffset(
        lsn=400, tx_id=10, ts_usec=5, xmin=7, lsn_proc=400, lsn_commit=350, message_type="UPDATE"
    )
    assert loaded.start_lsn == 400 and loaded.flush_lsn == 350
    assert loaded.to_dict() == stored


def test_load_defaults() -> None:
    loaded = load_offset({"lsn_proc": 400, "lsn": 390, "messageType": "COMMIT"})
    assert loaded.lsn_commit == 400  # defaults to lsn_proc
    assert loaded.ts_usec == 0
    assert loaded.snapshot is None and not loaded.last_snapshot_record
    assert loaded.start_lsn == 400 and loaded.flush_lsn == 400
    only_lsn = load_offset({"lsn": 390, "txId": 3, "ts_usec": 9})
    assert only_lsn.start_lsn == 390 and only_lsn.lsn_commit is None
    assert only_lsn.flush_lsn is None


def test_load_numbers_as_ints() -> None:
    loaded = load_offset({"lsn": 24023128.0, "txId": 767, "ts_usec": 1.5e15})
    assert loaded.lsn == 24_023_128 and isinstance(loaded.lsn, int)
    assert loaded.ts_usec == 1_500_000_000_000_000
    with pytest.raises(ConnectException, match="lsn"):
        load_offset({"lsn": "24023128"})


def test_load_snapshot_flags() -> None:
    running = load_offset(snapshot_offset(300, 9, 5))
    assert running.snapshot == "INITIAL" and running.snapshot_running
    assert not running.snapshot_finished and running.flush_lsn is None
    done = load_offset(snapshot_offset(300, 9, 5, last=True))
    assert done.snapshot_finished and not done.snapshot_running
    legacy = load_offset({"lsn": 1, "snapshot": True, "snapshot_completed": "true"})
    assert legacy.snapshot == "INITIAL" and legacy.snapshot_completed
    legacy_text = load_offset({"lsn": 1, "snapshot": "true", "last_snapshot_record": True})
    assert legacy_text.snapshot == "INITIAL" and legacy_text.snapshot_finished
    blocking = load_offset({"lsn": 1, "snapshot": "BLOCKING", "snapshot_completed": False})
    assert blocking.snapshot == "BLOCKING" and not blocking.snapshot_completed
    with pytest.raises(ConnectException, match="snapshot type"):
        load_offset({"lsn": 1, "snapshot": "SOMETIMES"})
    with pytest.raises(ConnectException, match="messageType"):
        load_offset({"lsn": 1, "messageType": "UPSERT"})


def test_load_transaction_keys() -> None:
    loaded = load_offset(
        {
            "lsn_proc": 4,
            "transaction_id": "10",
            "transaction_data_collection_order_public.t": 2,
            "transaction_data_collection_order_s.u": 1,
        }
    )
    assert loaded.transaction_id == "10"
    assert loaded.data_collection_orders == {"public.t": 2, "s.u": 1}
