"""``provide.transaction.metadata`` on a stream: BEGIN and END events, each change's
``transaction`` block and the offsets' counters, and a stream resumed inside a transaction
(the counters come back from the offset, no second BEGIN). The records are compared with
Debezium's own in the oracle test; these check the counting rules without a database."""

from __future__ import annotations

from typing import Any

from kconnect.connectors.debezium.common.transaction_metadata import (
    TRANSACTION_VALUE_SCHEMA,
    transaction_topic,
)
from kconnect.connectors.debezium.postgres.change_events import ChangeEvents
from kconnect.connectors.debezium.postgres.snapshot import RecordContext
from kconnect.connectors.debezium.postgres.source_info import SourceInfo

from .test_native_rows import COMMIT, MESSAGES, _orders, _relation, begin, feed

XID = 42


def _stream(resumed: tuple[str, dict[str, int]] | None = None) -> list[Any]:
    schema = _orders()
    changes = ChangeEvents(
        RecordContext("srv", "0", "run", False, lambda: 0),
        SourceInfo("srv", "db"),
        lambda relation: schema,
        transaction_topic=transaction_topic("srv"),
        resumed_transaction=resumed,
        start_lsn=0x3FF,
    )
    return feed(changes, [_relation(), begin(XID), MESSAGES["insert"],
                          MESSAGES["update with key"], MESSAGES["delete"], COMMIT])  # fmt: skip


def test_begin_blocks_and_end_count_the_changes_but_not_tombstones() -> None:
    records = _stream()
    begin, end = records[0], records[-1]
    assert begin.topic == end.topic == "srv.transaction"
    assert begin.value_schema is TRANSACTION_VALUE_SCHEMA
    assert begin.key.get("id") == begin.value.get("id") == f"{XID}:{0x401}"
    assert begin.value.get("status") == "BEGIN" and begin.value.get("event_count") is None
    assert begin.source_offset["messageType"] == "BEGIN"
    assert begin.source_offset["lsn_proc"] == 0x400  # processed: the message before BEGIN
    assert begin.source_offset["transaction_id"] == str(XID)

    changes = [r for r in records[1:-1] if r.value is not None]
    blocks = [(r.value.get("transaction").get("total_order"),
               r.value.get("transaction").get("data_collection_order")) for r in changes]  # fmt: skip
    # the insert, the key change's delete and create, the delete (their tombstones not counted)
    assert blocks == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert [r.source_offset["transaction_data_collection_order_public.orders"]
            for r in changes] == [1, 2, 3, 4]  # fmt: skip
    assert changes[0].value.get("transaction").get("id") == f"{XID}:{0x402}"

    assert end.value.get("status") == "END" and end.value.get("event_count") == 4
    collections = end.value.get("data_collections")
    assert [(c.get("data_collection"), c.get("event_count")) for c in collections] == [
        ("public.orders", 4)
    ]
    assert end.source_offset["messageType"] == "COMMIT"
    assert end.source_offset["lsn"] == end.source_offset["lsn_commit"] == 0x405


def test_a_stream_resumed_inside_a_transaction_counts_on_without_a_second_begin() -> None:
    records = _stream(resumed=(str(XID), {"public.orders": 2}))
    assert records[0].topic != "srv.transaction"
    assert records[0].value.get("transaction").get("total_order") == 3
    end = records[-1]
    assert end.value.get("event_count") == 6


def test_another_transaction_than_the_offsets_starts_from_nothing() -> None:
    records = _stream(resumed=("7", {"public.orders": 2}))
    assert records[0].value.get("status") == "BEGIN"
    assert records[1].value.get("transaction").get("total_order") == 1
