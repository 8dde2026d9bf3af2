"""BatchDecoder: the plugin host's binary record batches (java/PROTOCOL.md) as SourceRecords.

The batches here are written by a small encoder that follows the grammar independently of the
decoder; the Java encoder is checked against the same grammar in
tests/integration/test_java_plugin_host_tasks.py, and end to end in
tests/integration/test_java_plugins_worker.py.
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct

import pytest

from kconnect.api.data import Struct, Type
from kconnect.api.errors import DataException
from kconnect.java_host.batches import BatchDecoder

TYPES = ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES",
         "ARRAY", "MAP", "STRUCT"]  # fmt: skip


def s(text: str | None) -> bytes:
    if text is None:
        return struct.pack(">i", -1)
    raw = text.encode()
    return struct.pack(">i", len(raw)) + raw


def schema(t: str, *, optional: bool = False, name: str | None = None, version: int | None = None,
           params: dict[str, str] | None = None, body: bytes = b"", default: bytes | None = None) -> bytes:  # fmt: skip
    flags = (optional * 1) | ((name is not None) * 2) | ((version is not None) * 4)
    flags |= ((params is not None) * 16) | ((default is not None) * 32)
    out = bytes([TYPES.index(t), flags])
    if name is not None:
        out += s(name)
    if version is not None:
        out += struct.pack(">i", version)
    if params is not None:
        out += struct.pack(">I", len(params)) + b"".join(s(k) + s(v) for k, v in params.items())
    return out + body + (default or b"")


def present(payload: bytes) -> bytes:
    return b"\x01" + payload


NULL = b"\x00"


def record(seq: int, key: bytes, value: bytes, *, headers: bytes = b"\x00\x00\x00\x00",
           timestamp: int = -(2**63), partition: int = -1) -> bytes:  # fmt: skip
    source_partition = b"\x0b" + struct.pack(">i", 1) + b"\x08" + s("filename") + b"\x08" + s("f")
    source_offset = (
        b"\x0b" + struct.pack(">i", 1) + b"\x08" + s("position") + b"\x05" + struct.pack(">q", 42)
    )
    return (struct.pack(">q", seq) + source_partition + source_offset + s("topic-a")
            + struct.pack(">i", partition) + key + value + struct.pack(">q", timestamp) + headers)  # fmt: skip


def test_every_schema_type_and_logical_type_decodes() -> None:
    decimal_schema = schema("BYTES", name="org.apache.kafka.connect.data.Decimal", version=1,
                            params={"scale": "2"})  # fmt: skip
    fields = [
        ("i8", schema("INT8")), ("i16", schema("INT16")), ("f32", schema("FLOAT32")),
        ("f64", schema("FLOAT64")), ("flag", schema("BOOLEAN")), ("raw", schema("BYTES")),
        ("price", decimal_schema),
        ("day", schema("INT32", name="org.apache.kafka.connect.data.Date", version=1)),
        ("at", schema("INT32", name="org.apache.kafka.connect.data.Time", version=1)),
        ("ts", schema("INT64", name="org.apache.kafka.connect.data.Timestamp", version=1)),
        ("tags", schema("ARRAY", body=schema("STRING"))),
        ("counts", schema("MAP", body=schema("STRING") + schema("INT64", optional=True))),
        ("note", schema("STRING", optional=True, default=present(s("none")))),
        ("inner", schema("STRUCT", optional=True, body=struct.pack(">I", 1) + s("n") + schema("INT32"))),
    ]  # fmt: skip
    value_schema = schema(
        "STRUCT", name="com.example.Row",
        body=struct.pack(">I", len(fields)) + b"".join(s(n) + sc for n, sc in fields),
    )  # fmt: skip
    values = b"".join([
        present(struct.pack(">b", -5)), present(struct.pack(">h", 300)),
        present(struct.pack(">f", 1.5)), present(struct.pack(">d", -2.25)), present(b"\x01"),
        present(struct.pack(">i", 3) + b"\x00\xff\x10"),
        present(struct.pack(">i", 2) + (12345).to_bytes(2, "big", signed=True)),
        present(struct.pack(">i", 19_000)), present(struct.pack(">i", 3_600_000)),
        present(struct.pack(">q", 1_700_000_000_123)),
        present(struct.pack(">i", 2) + present(s("a")) + present(s("é"))),
        present(struct.pack(">i", 2) + present(s("x")) + present(struct.pack(">q", 7))
                + present(s("y")) + NULL),
        NULL,
        present(present(struct.pack(">i", 9))),
    ])  # fmt: skip
    batch = (
        struct.pack(">I", 2) + struct.pack(">i", 0) + schema("STRING", optional=True)
        + struct.pack(">i", 1) + value_schema
        + struct.pack(">I", 1)
        + record(0, struct.pack(">i", 0) + present(s("k-1")), struct.pack(">i", 1) + present(values),
                 timestamp=1_700_000_000_000, partition=3)
    )  # fmt: skip
    [(seq, rec)] = BatchDecoder().decode(batch)
    assert seq == 0
    assert (rec.topic, rec.kafka_partition, rec.timestamp) == ("topic-a", 3, 1_700_000_000_000)
    assert rec.source_partition == {"filename": "f"} and rec.source_offset == {"position": 42}
    assert rec.key == "k-1" and rec.key_schema.type is Type.STRING and rec.key_schema.optional
    v = rec.value
    assert isinstance(v, Struct) and v.schema.name == "com.example.Row"
    assert (v.get("i8"), v.get("i16"), v.get("f32"), v.get("f64"), v.get("flag")) == (
        -5, 300, 1.5, -2.25, True,
    )  # fmt: skip
    assert v.get("raw") == b"\x00\xff\x10"
    assert v.get("price") == decimal.Decimal("123.45")
    assert v.get("day") == dt.date(1970, 1, 1) + dt.timedelta(days=19_000)
    assert v.get("at") == dt.time(1, 0)
    assert v.get("ts") == dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)
    assert v.get("tags") == ["a", "é"]
    assert v.get("counts") == {"x": 7, "y": None}
    assert v.get_without_default("note") is None and v.get("note") == "none"
    assert v.get("inner").get("n") == 9


def test_schemas_are_remembered_across_batches_and_headers_and_schemaless_values_decode() -> None:
    decoder = BatchDecoder()
    first = struct.pack(">I", 1) + struct.pack(">i", 0) + schema("INT64") + struct.pack(">I", 0)
    assert decoder.decode(first) == []
    schemaless_map = b"\x0b" + struct.pack(">i", 1) + b"\x08" + s("a") + b"\x0a" + struct.pack(">i", 2) + b"\x05" + struct.pack(">q", 1) + b"\x00"  # fmt: skip
    headers = struct.pack(">I", 2) + s("h1") + struct.pack(">i", 0) + present(struct.pack(">q", 5))
    headers += s("h2") + struct.pack(">i", -1) + b"\x08" + s("text")
    second = struct.pack(">I", 0) + struct.pack(">I", 1) + record(
        7, struct.pack(">i", -1) + b"\x00", struct.pack(">i", -1) + schemaless_map, headers=headers
    )  # fmt: skip
    [(seq, rec)] = decoder.decode(second)
    assert seq == 7 and rec.key is None and rec.key_schema is None and rec.value_schema is None
    assert rec.value == {"a": [1, None]}
    assert rec.kafka_partition is None and rec.timestamp is None
    assert [(h.key, h.value, h.schema.type if h.schema else None) for h in rec.headers] == [
        ("h1", 5, Type.INT64), ("h2", "text", None),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("batch", "message"),
    [
        (struct.pack(">I", 0) + struct.pack(">I", 1) + struct.pack(">q", 0), "Malformed"),
        (struct.pack(">I", 0) + struct.pack(">I", 0) + b"extra", "left over"),
        (
            struct.pack(">I", 0)
            + struct.pack(">I", 1)
            + record(0, struct.pack(">i", 9) + b"\x00", struct.pack(">i", -1) + b"\x00"),
            "never sent",
        ),
    ],
)
def test_a_malformed_batch_is_a_data_exception(batch: bytes, message: str) -> None:
    with pytest.raises(DataException, match=message):
        BatchDecoder().decode(batch)
