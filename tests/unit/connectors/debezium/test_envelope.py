"""The Debezium envelope: schema layout and the structs per operation."""

from __future__ import annotations

import pytest

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.api.errors import DataException
from kconnect.connectors.debezium.common import envelope as env

VALUE = (
    SchemaBuilder.struct()
    .name("srv.public.t.Value")
    .optional()
    .field("id", Schema.INT32_SCHEMA)
    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)
SOURCE = SchemaBuilder.struct().name("src").field("db", Schema.STRING_SCHEMA).build()
SCHEMA = env.envelope_schema(env.envelope_schema_name("srv.public.t"), VALUE, SOURCE)
# 2024-01-02T03:04:05.123456789Z
TS_NS = 1_704_164_645_123_456_789


def _row(i: int, name: str | None = None) -> Struct:
    return Struct(VALUE).put("id", i).put("name", name)


def _source() -> Struct:
    return Struct(SOURCE).put("db", "postgres")


def test_envelope_schema_layout() -> None:
    assert SCHEMA.name == "srv.public.t.Envelope"
    assert SCHEMA.version == 2 and SCHEMA.doc is None and not SCHEMA.optional
    assert [f.name for f in SCHEMA.fields] == [
        "before",
        "after",
        "source",
        "transaction",
        "op",
        "ts_ms",
        "ts_us",
        "ts_ns",
    ]
    fields = {f.name: f.schema for f in SCHEMA.fields}
    assert fields["before"] is VALUE and fields["after"] is VALUE
    assert fields["source"] is SOURCE
    assert fields["op"] == Schema.STRING_SCHEMA
    for name in ("ts_ms", "ts_us", "ts_ns"):
        assert fields[name] == Schema.OPTIONAL_INT64_SCHEMA


def test_transaction_block_schema() -> None:
    block = env.TRANSACTION_BLOCK_SCHEMA
    assert (block.name, block.version, block.optional) == ("event.block", 1, True)
    assert [(f.name, f.schema) for f in block.fields] == [
        ("id", Schema.STRING_SCHEMA),
        ("total_order", Schema.INT64_SCHEMA),
        ("data_collection_order", Schema.INT64_SCHEMA),
    ]
    assert env.transaction_block_schema() == block


def test_operation_codes() -> None:
    assert [op.value for op in env.Operation] == ["r", "c", "u", "d", "t", "m"]
    # EnvelopeTest.envelopeOperationLookupByCode
    assert env.Operation.for_code(None) is None
    assert env.Operation.for_code("C") is env.Operation.CREATE
    assert env.Operation.for_code("x") is None


def test_read_and_create() -> None:
    row = _row(1, "a")
    read = env.read(SCHEMA, row, _source(), TS_NS)
    assert read.get("op") == "r"
    assert read.get("after") == row and read.get("before") is None
    assert read.get("source") == _source()
    assert read.get("transaction") is None
    assert (read.get("ts_ms"), read.get("ts_us"), read.get("ts_ns")) == (
        1_704_164_645_123,
        1_704_164_645_123_456,
        TS_NS,
    )
    read.validate()
    create = env.create(SCHEMA, row, _source(), TS_NS)
    assert create.get("op") == "c" and create.get("after") == row
    create.validate()


def test_update_delete_truncate() -> None:
    upd = env.update(SCHEMA, _row(1, "a"), _row(1, "b"), _source(), TS_NS)
    assert upd.get("op") == "u"
    assert upd.get("before") == _row(1, "a") and upd.get("after") == _row(1, "b")
    no_before = env.update(SCHEMA, None, _row(1, "b"), _source(), TS_NS)
    assert no_before.get("before") is None

    dele = env.delete(SCHEMA, _row(1, ""), _source(), TS_NS)
    assert dele.get("op") == "d"
    assert dele.get("before") == _row(1, "") and dele.get("after") is None

    trunc = env.truncate(SCHEMA, _source(), TS_NS)
    assert trunc.get("op") == "t"
    assert trunc.get("before") is None and trunc.get("after") is None
    assert trunc.get("ts_ns") == TS_NS
    for s in (upd, dele, trunc):
        s.validate()


def test_timestamps_before_1970_floor() -> None:
    # Instant.toEpochMilli of 1969-12-31T23:59:59.999999999Z is -1, not 0
    s = env.create(SCHEMA, _row(1), _source(), -1)
    assert (s.get("ts_ms"), s.get("ts_us"), s.get("ts_ns")) == (-1, -1, -1)


def test_no_timestamp_leaves_ts_fields_null() -> None:
    s = env.read(SCHEMA, _row(1), _source(), None)
    assert s.get("ts_ms") is None and s.get("ts_us") is None and s.get("ts_ns") is None


def test_transaction_block_value() -> None:
    tx = env.transaction_block("571", 3, 2)
    s = env.create(SCHEMA, _row(1), _source(), TS_NS, transaction=tx)
    assert s.get("transaction").to_dict() == {
        "id": "571",
        "total_order": 3,
        "data_collection_order": 2,
    }
    s.validate()


def test_source_is_required() -> None:
    with pytest.raises(DataException):
        Struct(SCHEMA).put("op", "c").put("source", None)
