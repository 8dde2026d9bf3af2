"""An incremental snapshot's bookkeeping and its offset keys, against what Debezium 3.6.1 wrote
(the fixture's ``incremental`` connector): restored from Debezium's offsets and written back
to the same texts; the queue, windows, stop requests; signals read as Debezium reads them."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.connectors.debezium.common.incremental_snapshot_state import (
    COLLECTIONS_KEY,
    CORRELATION_ID_KEY,
    MAXIMUM_KEY_KEY,
    PRIMARY_KEY_KEY,
    DataCollection,
    IncrementalSnapshotState,
)
from kconnect.connectors.debezium.common.java_serialization import JavaInteger
from kconnect.connectors.debezium.common.signals import (
    Signal,
    expand_collections,
    parse_data,
    signal_of,
    snapshot_request,
)
from kconnect.connectors.debezium.postgres.incremental_snapshot import key_text, key_value

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "debezium" / "postgres_types.json"
KEYS = (PRIMARY_KEY_KEY, MAXIMUM_KEY_KEY, COLLECTIONS_KEY, CORRELATION_ID_KEY)


def _debeziums_offsets() -> list[dict[str, Any]]:
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    records = fixture["connectors"]["incremental"]["records"]
    return [r["offset"]["offset"] for r in records if COLLECTIONS_KEY in r["offset"]["offset"]]


def test_debeziums_offsets_restore_and_are_written_back_the_same() -> None:
    offsets = _debeziums_offsets()
    assert len(offsets) > 10
    for offset in offsets:
        state = IncrementalSnapshotState.restore(offset)
        assert state.running
        state.last_sent = state.chunk_end  # restore puts the last key sent as the chunk end
        assert state.offset_entries() == {k: offset[k] for k in KEYS}


def test_a_read_events_offset_restores_its_position() -> None:
    read = next(o for o in _debeziums_offsets() if o.get("snapshot") == "INCREMENTAL")
    state = IncrementalSnapshotState.restore(read)
    assert [c.id for c in state.queue] == [
        "dbz_fixture.all_types", "dbz_fixture.unique_only", "dbz_fixture.no_key"
    ]  # fmt: skip
    assert state.chunk_end == [1] and type(state.chunk_end[0]) is JavaInteger
    assert state.maximum_key == [103]
    assert state.correlation_id == "ad-hoc-1"


def test_no_snapshot_no_keys() -> None:
    assert IncrementalSnapshotState().offset_entries() == {}
    assert not IncrementalSnapshotState.restore({"lsn": 5}).running


def test_a_bad_stored_state_is_refused_naming_it() -> None:
    with pytest.raises(Exception, match="incremental snapshot cannot be read"):
        IncrementalSnapshotState.restore({COLLECTIONS_KEY: "[{}]"})


def test_the_queue_windows_and_removal() -> None:
    state = IncrementalSnapshotState()
    assert state.add([DataCollection("s.a"), DataCollection("s.b")], "sig-1")
    assert not state.add([DataCollection("s.a")], "sig-2")  # queued again, after the others
    assert [c.id for c in state.queue] == ["s.a", "s.b", "s.a"]
    chunk = state.start_chunk()
    assert not state.open_window("other-open") and not state.window_open
    assert state.open_window(f"{chunk}-open") and state.window_open
    assert state.close_window(f"{chunk}-close") and not state.window_open
    removed, current = state.remove(["s.a"])
    assert removed == ["s.a"] and current
    assert [c.id for c in state.queue] == ["s.a", "s.b"]
    state.maximum_key = [JavaInteger(3)]
    assert state.next_collection() == DataCollection("s.b")
    assert state.maximum_key is None
    assert state.next_collection() is None and state.correlation_id is None


def _signal_row(*values: object, fields: int = 3) -> Struct:
    builder = SchemaBuilder.struct()
    for i in range(fields):
        builder.field(("id", "type", "data", "extra")[i], Schema.OPTIONAL_STRING_SCHEMA)
    after_schema = builder.optional().build()
    envelope = SchemaBuilder.struct().field("after", after_schema).build()
    after = Struct(after_schema)
    for name, value in zip(("id", "type", "data", "extra"), values, strict=False):
        after.put(name, value)
    return Struct(envelope).put("after", after)


def test_signals_are_read_by_position_from_three_text_fields(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert signal_of(_signal_row("1", "log", '{"message": "hi"}')) == Signal(
        "1", "log", '{"message": "hi"}'
    )
    with caplog.at_level(logging.WARNING):
        assert signal_of(_signal_row("1", "log", None, "x", fields=4)) is None
    assert "should have 3 fields but has 4" in caplog.text


def test_signal_data() -> None:
    assert parse_data(Signal("1", "log", None)) == {}
    assert parse_data(Signal("1", "log", "not json")) is None
    request = snapshot_request(Signal("1", "execute-snapshot", None), {
        "data-collections": [" s.a ", "s.b.*"], "type": "INCREMENTAL",
        "additional-conditions": [{"data-collection": "S.A", "filter": "x > 1"}],
        "surrogate-key": " k ",
    })  # fmt: skip
    assert request is not None
    assert request.data_collections == ("s.a", "s.b.*") and request.type == "incremental"
    assert request.condition_for("s.a") == "(x > 1)" and request.condition_for("s.b") is None
    assert request.surrogate_key == "k"
    assert snapshot_request(Signal("1", "execute-snapshot", None), {}) is None
    assert snapshot_request(Signal("1", "execute-snapshot", None),
                            {"data-collections": ["a"], "type": "sometimes"}) is None  # fmt: skip
    stop = snapshot_request(Signal("1", "stop-snapshot", None), {})
    assert stop is not None and stop.data_collections == (".*",)


def test_collections_expand_by_full_case_sensitive_match() -> None:
    known = ["s.orders", "s.order_lines", "s.Other", "t.orders"]
    assert expand_collections(["s\\.order.*", "s.orders", "s.missing", "S.OTHER"], known) == [
        "s.orders", "s.order_lines", "s.missing", "S.OTHER"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "type_name", "value", "back"),
    [
        ("42", "int4", JavaInteger(42), "42"),
        ("-7", "int8", -7, "-7"),
        ("1.50", "numeric", None, "1.50"),
        ("NaN", "numeric", None, "NaN"),
        ("t", "bool", True, "true"),
        ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "uuid", None,
         "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        ("2024-01-01 10:00:00", "timestamp", "2024-01-01 10:00:00", "2024-01-01 10:00:00"),
        ("-Infinity", "float8", float("-inf"), "-Infinity"),
    ],
)  # fmt: skip
def test_key_values_as_debeziums_jdbc_read_gives_them(
    text: str, type_name: str, value: object, back: str
) -> None:
    got = key_value(text, type_name)
    if value is not None:
        assert got == value
    assert key_text(got) == back
