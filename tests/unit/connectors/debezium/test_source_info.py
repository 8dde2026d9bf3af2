"""``io.debezium.connector.postgresql.Source``: schema, struct values, snapshot markers."""

from __future__ import annotations

from kconnect.api import Schema, Type
from kconnect.connectors.debezium.postgres.source_info import (
    SOURCE_SCHEMA,
    SnapshotRecord,
    SourceInfo,
    sequence_text,
    snapshot_marker,
    snapshot_record_schema,
    source_schema,
)

# 2024-01-02T03:04:05.123456Z as epoch ns
COMMIT_NS = 1_704_164_645_123_456_000


def test_source_schema_fields_in_order() -> None:
    s = SOURCE_SCHEMA
    assert (s.name, s.version, s.optional, s.type) == (
        "io.debezium.connector.postgresql.Source",
        1,
        False,
        Type.STRUCT,
    )
    expected = [
        ("version", Schema.STRING_SCHEMA),
        ("connector", Schema.STRING_SCHEMA),
        ("name", Schema.STRING_SCHEMA),
        ("ts_ms", Schema.INT64_SCHEMA),
        ("snapshot", snapshot_record_schema()),
        ("db", Schema.STRING_SCHEMA),
        ("sequence", Schema.OPTIONAL_STRING_SCHEMA),
        ("ts_us", Schema.OPTIONAL_INT64_SCHEMA),
        ("ts_ns", Schema.OPTIONAL_INT64_SCHEMA),
        ("schema", Schema.STRING_SCHEMA),
        ("table", Schema.STRING_SCHEMA),
        ("txId", Schema.OPTIONAL_INT64_SCHEMA),
        ("lsn", Schema.OPTIONAL_INT64_SCHEMA),
        ("xmin", Schema.OPTIONAL_INT64_SCHEMA),
        ("origin", Schema.OPTIONAL_STRING_SCHEMA),
        ("origin_lsn", Schema.OPTIONAL_INT64_SCHEMA),
    ]
    assert [(f.name, f.schema) for f in s.fields] == expected
    assert source_schema() == s


def test_snapshot_field_schema() -> None:
    snap = snapshot_record_schema()
    assert (snap.name, snap.version, snap.type, snap.optional, snap.default_value) == (
        "io.debezium.data.Enum",
        1,
        Type.STRING,
        True,
        "false",
    )
    assert snap.parameters == {
        "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,"
        "incremental"
    }


def test_sequence_text() -> None:
    assert sequence_text(23_456, 34_567) == '["23456","34567"]'
    assert sequence_text(None, 23_456) == '[null,"23456"]'
    assert sequence_text(None, None) == "[null,null]"
    assert sequence_text(2**63 - 1, 0) == '["9223372036854775807","0"]'


def _streaming_info() -> SourceInfo:
    info = SourceInfo("srv", "postgres", clock_ns=lambda: 0)
    info.timestamp_ns = COMMIT_NS
    info.schema_name, info.table_name = "public", "t"
    info.tx_id, info.lsn, info.last_commit_lsn = 768, 24_023_128, 24_022_000
    return info


def test_streaming_struct() -> None:
    s = _streaming_info().struct()
    assert s.to_dict() == {
        "version": "3.6.1.Final",
        "connector": "postgresql",
        "name": "srv",
        "ts_ms": 1_704_164_645_123,
        "snapshot": None,
        "db": "postgres",
        "sequence": '["24022000","24023128"]',
        "ts_us": 1_704_164_645_123_456,
        "ts_ns": COMMIT_NS,
        "schema": "public",
        "table": "t",
        "txId": 768,
        "lsn": 24_023_128,
        "xmin": None,
        "origin": None,
        "origin_lsn": None,
    }
    # not put, but read back (and printed by the JSON converter) as the default
    assert s.get("snapshot") == "false"
    assert s.get_without_default("snapshot") is None
    s.validate()


def test_snapshot_struct_marks_and_origin() -> None:
    info = _streaming_info()
    info.snapshot = SnapshotRecord.LAST
    info.last_commit_lsn = None
    info.origin, info.origin_lsn = "pg_1", 99
    info.xmin = 5
    s = info.struct()
    assert s.get("snapshot") == "last"
    assert s.get("sequence") == '[null,"24023128"]'
    assert (s.get("origin"), s.get("origin_lsn"), s.get("xmin")) == ("pg_1", 99, 5)


def test_incremental_snapshot_leaves_out_positions() -> None:
    info = _streaming_info()
    info.snapshot = SnapshotRecord.INCREMENTAL
    info.xmin = 5
    s = info.struct()
    assert s.get("snapshot") == "incremental"
    assert (s.get("txId"), s.get("lsn"), s.get("xmin")) == (None, None, None)
    assert s.get("sequence") == '["24022000","24023128"]'


def test_unknown_time_uses_clock() -> None:
    info = SourceInfo("srv", "db", clock_ns=lambda: -1)
    s = info.struct()
    assert (s.get("ts_ms"), s.get("ts_us"), s.get("ts_ns")) == (-1, -1, -1)
    assert (s.get("schema"), s.get("table")) == ("", "")


def test_snapshot_markers() -> None:
    assert [r.value for r in SnapshotRecord] == [
        "true",
        "first",
        "first_in_data_collection",
        "last_in_data_collection",
        "last",
        "false",
        "incremental",
    ]
    # one table of three rows
    assert snapshot_marker(True, True, True, False) is SnapshotRecord.FIRST
    assert snapshot_marker(True, True, False, False) is SnapshotRecord.TRUE
    assert snapshot_marker(True, True, False, True) is SnapshotRecord.LAST
    # a one-row single table: last wins over first
    assert snapshot_marker(True, True, True, True) is SnapshotRecord.LAST
    # several tables
    assert snapshot_marker(True, False, False, True) is SnapshotRecord.LAST_IN_DATA_COLLECTION
    assert snapshot_marker(False, False, True, False) is SnapshotRecord.FIRST_IN_DATA_COLLECTION
    assert snapshot_marker(False, True, True, False) is SnapshotRecord.FIRST_IN_DATA_COLLECTION
    assert snapshot_marker(False, False, True, True) is SnapshotRecord.LAST_IN_DATA_COLLECTION
