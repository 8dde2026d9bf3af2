"""SinkBatchEncoder: sink records in the plugin host's binary batch (java/PROTOCOL.md, v3).

Read back with the source batches' reader (the schema and value grammars are shared), so every
Connect type, logical type, default, header and schemaless value is checked for a round trip;
the Java decoder is checked against the same grammar in
tests/integration/test_java_plugin_host_sinks.py and end to end with Kafka's FileStreamSink.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest

from kconnect.api import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from kconnect.api.errors import DataException
from kconnect.api.headers import Headers
from kconnect.api.records import SinkRecord, TimestampType
from kconnect.java_host.batches import _Reader
from kconnect.java_host.sink_batches import SinkBatchEncoder


def _read(data: bytes, schemas: dict[int, Schema]) -> list[dict[str, Any]]:
    r = _Reader(data, schemas)
    for _ in range(r.u32()):
        schema_id = r.i32()
        schemas[schema_id] = r.schema()
    out = []
    for _ in range(r.u32()):
        rec: dict[str, Any] = {"seq": r.i64(), "topic": r.string(), "partition": r.i32()}
        rec["offset"] = r.i64()
        rec["timestamp"] = r.i64()
        rec["timestamp_type"] = r.u8()
        rec["key"] = r.keyed()
        rec["value"] = r.keyed()
        rec["headers"] = [(r.string(), *r.keyed()) for _ in range(r.u32())]
        rec["original"] = (r.string(), r.i32(), r.i64())
        out.append(rec)
    assert r.pos == len(data)
    return out


ROW = (
    SchemaBuilder.struct().name("com.example.Row")
    .field("id", Schema.INT64_SCHEMA)
    .field("price", Decimal.schema(2))
    .field("day", Date.SCHEMA).field("at", Time.SCHEMA).field("ts", Timestamp.SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
    .field("counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).build())
    .field("note", SchemaBuilder.string().optional().default_value("none").build())
    .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("f32", Schema.FLOAT32_SCHEMA).field("i8", Schema.INT8_SCHEMA)
    .build()
)  # fmt: skip


def _row(i: int) -> Struct:
    return (
        Struct(ROW).put("id", i).put("price", decimal.Decimal("12.34"))
        .put("day", dt.date(2024, 2, 29)).put("at", dt.time(13, 5, 7, 250000))
        .put("ts", dt.datetime(2024, 2, 29, 13, 5, 7, 250000, tzinfo=dt.UTC))
        .put("tags", ["a", "é"]).put("counts", {"x": 1, "y": None}).put("raw", b"\x00\xff")
        .put("f32", 1.5).put("i8", -3)
    )  # fmt: skip


def test_records_round_trip_and_schemas_are_sent_once_per_task() -> None:
    headers = Headers().add("h", 5, Schema.INT32_SCHEMA).add("plain", "text")
    records = [
        SinkRecord("t", 1, Schema.OPTIONAL_STRING_SCHEMA, "k", ROW, _row(i), 10 + i, 1_700_000_000_000,
                   TimestampType.CREATE_TIME, headers, "orig", 4, 99)
        for i in range(2)
    ] + [SinkRecord("t", 0, None, None, None, {"a": [1, 2.5, None, True]}, 12)]  # fmt: skip
    encoder = SinkBatchEncoder()
    schemas: dict[int, Schema] = {}
    first = _read(encoder.encode(records), schemas)
    assert len(schemas) == 3  # key, row, the header's INT32
    assert [r["seq"] for r in first] == [0, 1, 2]
    r0 = first[0]
    assert (r0["topic"], r0["partition"], r0["offset"], r0["timestamp"], r0["timestamp_type"]) == (
        "t", 1, 10, 1_700_000_000_000, 1,
    )  # fmt: skip
    assert r0["original"] == ("orig", 4, 99)
    key_schema, key = r0["key"]
    assert key == "k" and key_schema == Schema.OPTIONAL_STRING_SCHEMA
    value_schema, value = r0["value"]
    assert value_schema == ROW and value == _row(0)
    assert value.get_without_default("note") is None and value.get("note") == "none"
    assert r0["headers"] == [("h", Schema.INT32_SCHEMA, 5), ("plain", None, "text")]
    last = first[2]
    assert last["key"] == (None, None) and last["value"] == (None, {"a": [1, 2.5, None, True]})
    assert last["timestamp"] == -(2**63) and last["timestamp_type"] == 0
    assert last["original"] == ("t", 0, 12)  # a record's original place defaults to its own

    again = encoder.encode(records[:1])
    assert again[:4] == b"\x00\x00\x00\x00"  # nothing new to define
    assert _read(again, schemas)[0]["value"] == (ROW, _row(0))


@pytest.mark.parametrize(
    ("schema", "value"),
    [(Schema.INT8_SCHEMA, 300), (Schema.STRING_SCHEMA, 5), (ROW, {"id": 1})],
)
def test_a_value_that_does_not_fit_its_schema_is_a_data_exception(
    schema: Schema, value: Any
) -> None:
    with pytest.raises(DataException):
        SinkBatchEncoder().encode([SinkRecord("t", 0, None, None, schema, value, 0)])
