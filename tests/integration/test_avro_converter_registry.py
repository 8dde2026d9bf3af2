"""kconnect's AvroConverter against a real schema registry (the local stack's Apicurio, which
speaks Confluent's API), and against Confluent's own Python serializers.

* every Connect type round-trips: Connect -> bytes -> Connect, keys and values;
* bytes written by kconnect are read by ``confluent_kafka``'s ``AvroDeserializer`` and bytes
  written by its ``AvroSerializer`` are read by kconnect -- the wire format and the schemas are
  Confluent's;
* the subject name strategies, ``auto.register.schemas=false`` with ``use.latest.version``,
  tombstones, an unknown schema id, an unreachable registry, a secret in the settings.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

import httpx
import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    RetriableException,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from kconnect.converters.avro.avro_converter import AvroConverter
from kconnect.testing.ports import free_port

pytestmark = [pytest.mark.registry]


def _converter(url: str, is_key: bool = False, **extra: Any) -> AvroConverter:
    c = AvroConverter()
    c.configure({"schema.registry.url": url, **extra}, is_key)
    return c


def _topic(prefix: str = "avro") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _customer_schema() -> Schema:
    address = (
        SchemaBuilder.struct()
        .name("com.example.Address")
        .field("street", Schema.STRING_SCHEMA)
        .field("zip", Schema.OPTIONAL_INT32_SCHEMA)
        .build()
    )
    return (
        SchemaBuilder.struct()
        .name("com.example.Customer")
        .version(3)
        .doc("a customer")
        .field("id", Schema.INT64_SCHEMA)
        .field("tiny", Schema.INT8_SCHEMA)
        .field("small", Schema.INT16_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("email", Schema.OPTIONAL_STRING_SCHEMA)
        .field("score", Schema.FLOAT64_SCHEMA)
        .field("ratio", Schema.FLOAT32_SCHEMA)
        .field("vip", Schema.BOOLEAN_SCHEMA)
        .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
        .field("balance", Decimal.schema(2))
        .field("born", Date.SCHEMA)
        .field("wakes", Time.SCHEMA)
        .field("seen", Timestamp.SCHEMA)
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
        .field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
        .field("address", address)
        .field("note", SchemaBuilder.string().optional().default_value("none").build())
        .build()
    )


def _customer(schema: Schema, n: int = 1) -> Struct:
    address = Struct(schema.field("address").schema).put("street", "Große Str. 1").put("zip", None)
    return (
        Struct(schema)
        .put("id", 2**40 + n)
        .put("tiny", -8)
        .put("small", 300)
        .put("name", "Zoë ∑ 名前")
        .put("email", None if n % 2 else "a@example.com")
        .put("score", 12.5)
        .put("ratio", 0.25)
        .put("vip", True)
        .put("blob", b"\x00\xff")
        .put("balance", decimal.Decimal("-1234.56"))
        .put("born", dt.date(1999, 12, 31))
        .put("wakes", dt.time(7, 30, 0, 250000))
        .put("seen", dt.datetime(2024, 2, 29, 12, 0, 0, 123000, tzinfo=dt.UTC))
        .put("tags", ["a", "", "ü"])
        .put("attrs", {"x": 1, "y": -2})
        .put("by_id", {1: "one", 2: "two"})
        .put("address", address)
        .put("note", "hello")
    )


def _same_struct(a: Any, b: Any) -> None:
    assert isinstance(b, Struct), b
    for field in a.schema.fields:
        va, vb = a.get(field.name), b.get(field.name)
        if isinstance(va, Struct):
            _same_struct(va, vb)
        elif isinstance(va, dt.datetime):
            assert vb == va.replace(tzinfo=None) or vb == va, (field.name, va, vb)
        else:
            assert vb == va, (field.name, va, vb)


def test_a_struct_of_every_type_round_trips(schema_registry_url: str) -> None:
    topic = _topic()
    schema = _customer_schema()
    value = _customer(schema)
    writer, reader = _converter(schema_registry_url), _converter(schema_registry_url)
    data = writer.from_connect_data(topic, schema, value)
    assert data is not None and data[0] == 0
    back = reader.to_connect_data(topic, data)
    assert back.schema is not None
    assert back.schema.name == "com.example.Customer"
    assert back.schema.version == 3
    assert back.schema.doc == "a customer"
    assert back.schema.field("tiny").schema.type == Schema.INT8_SCHEMA.type
    assert back.schema.field("balance").schema.name == Decimal.LOGICAL_NAME
    _same_struct(value, back.value)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Schema.INT8_SCHEMA, -128),
        (Schema.INT16_SCHEMA, 32767),
        (Schema.INT32_SCHEMA, -(2**31)),
        (Schema.INT64_SCHEMA, 2**63 - 1),
        (Schema.FLOAT32_SCHEMA, 1.5),
        (Schema.FLOAT64_SCHEMA, -1e300),
        (Schema.BOOLEAN_SCHEMA, False),
        (Schema.STRING_SCHEMA, "text ✓"),
        (Schema.BYTES_SCHEMA, b"\x01\x02"),
        (Schema.OPTIONAL_STRING_SCHEMA, "maybe"),
        (Decimal.schema(5), decimal.Decimal("3.14159")),
        (Date.SCHEMA, dt.date(2020, 1, 1)),
        (SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build(), [1, None, 3]),
        (
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).build(),
            {"a": 1.0, "b": 2.5},
        ),
        (None, {"free": ["form", 1, None, {"nested": True}]}),
    ],
    ids=lambda x: (getattr(x, "type", None) and str(x.type)) or None,
)
@pytest.mark.parametrize("is_key", [False, True], ids=["value", "key"])
def test_every_connect_type_round_trips(
    schema_registry_url: str, schema: Schema | None, value: Any, is_key: bool
) -> None:
    topic = _topic()
    writer = _converter(schema_registry_url, is_key)
    reader = _converter(schema_registry_url, is_key)
    data = writer.from_connect_data(topic, schema, value)
    back = reader.to_connect_data(topic, data)
    if schema is not None:
        assert back.schema is not None and back.schema.type == schema.type
        assert back.schema.name == schema.name
    assert back.value == value


def test_a_tombstone_stays_null(schema_registry_url: str) -> None:
    c = _converter(schema_registry_url)
    assert c.from_connect_data("t", Schema.OPTIONAL_STRING_SCHEMA, None) is None
    back = c.to_connect_data("t", None)
    assert back.schema is None and back.value is None


def _confluent_client(url: str) -> SchemaRegistryClient:
    return SchemaRegistryClient({"url": url, "timeout": 10})


def test_confluent_avro_deserializer_reads_what_kconnect_writes(schema_registry_url: str) -> None:
    topic = _topic()
    schema = _customer_schema()
    data = _converter(schema_registry_url).from_connect_data(topic, schema, _customer(schema))
    reader = AvroDeserializer(_confluent_client(schema_registry_url))
    got = reader(data, SerializationContext(topic, MessageField.VALUE))
    assert got["id"] == 2**40 + 1
    assert got["tiny"] == -8 and got["small"] == 300
    assert got["name"] == "Zoë ∑ 名前"
    assert got["email"] is None
    assert got["balance"] == decimal.Decimal("-1234.56")
    assert got["born"] == dt.date(1999, 12, 31)
    assert got["seen"] == dt.datetime(2024, 2, 29, 12, 0, 0, 123000, tzinfo=dt.UTC)
    assert got["tags"] == ["a", "", "ü"]
    assert got["attrs"] == {"x": 1, "y": -2}
    # a map with non-string keys is an array of MapEntry records
    assert sorted((e["key"], e["value"]) for e in got["by_id"]) == [(1, "one"), (2, "two")]
    assert got["address"] == {"street": "Große Str. 1", "zip": None}
    assert got["note"] == "hello"


def test_schemaless_values_batch_and_one_by_one(schema_registry_url: str) -> None:
    """Schemaless values (the Anything schema) written and read in batches -- by the native
    form where there is one -- as one by one (the Python path), map orders included; and
    Confluent's deserializer reads them."""
    topic = _topic("schemaless")
    c = _converter(schema_registry_url)
    values: list[Any] = [
        {"event": "view", "n": 3, "ok": True, "score": 0.5, "tags": ["a", None, 2]},
        {"user": {"id": 7, "name": "Zoë"}, "none": None, "nested": [{"x": [1, [2]]}]},
        {str(i): i for i in range(30)},
        {1: "one", None: "null", False: "f", "s": 2.5, -3: "neg"},
        [1, "x", None],
        "plain",
        42,
        None,
    ]
    batch = c.from_connect_batch(topic, [(None, v) for v in values])
    assert batch == [c.from_connect_data(topic, None, v) for v in values]
    read = c.to_connect_batch(topic, batch)
    for got, data in zip(read, batch, strict=True):
        one = c.to_connect_data(topic, data)
        assert got.schema is None and one.schema is None
        assert repr(got.value) == repr(one.value)
    assert read[0].value == values[0] and read[2].value == values[2]
    reader = AvroDeserializer(_confluent_client(schema_registry_url))
    anything = reader(batch[5], SerializationContext(topic, MessageField.VALUE))
    assert anything["string"] == "plain" and anything["long"] is None


def test_kconnect_reads_what_confluent_avro_serializer_writes(schema_registry_url: str) -> None:
    topic = _topic()
    schema_str = """
    {"type": "record", "name": "Order", "namespace": "shop",
     "fields": [
       {"name": "id", "type": "long"},
       {"name": "item", "type": ["null", "string"], "default": null},
       {"name": "qty", "type": "int"},
       {"name": "price", "type": {"type": "bytes", "logicalType": "decimal",
                                  "precision": 10, "scale": 2}},
       {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
       {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
       {"name": "lines", "type": {"type": "array", "items": "string"}},
       {"name": "props", "type": {"type": "map", "values": "double"}}
     ]}
    """
    serializer = AvroSerializer(_confluent_client(schema_registry_url), schema_str)
    record = {
        "id": 7,
        "item": "pen",
        "qty": 3,
        "price": decimal.Decimal("9.99"),
        "at": dt.datetime(2024, 5, 1, 8, 0, 0, tzinfo=dt.UTC),
        "kind": "B",
        "lines": ["x", "y"],
        "props": {"w": 0.5},
    }
    data = serializer(record, SerializationContext(topic, MessageField.VALUE))
    back = _converter(schema_registry_url).to_connect_data(topic, data)
    assert back.schema is not None and back.schema.name == "shop.Order"
    value = back.value
    assert isinstance(value, Struct)
    assert value.get("id") == 7 and value.get("item") == "pen" and value.get("qty") == 3
    assert value.get("price") == decimal.Decimal("9.99")
    assert value.get("at").replace(tzinfo=None) == dt.datetime(2024, 5, 1, 8, 0, 0)
    assert value.get("kind") == "B"
    assert value.get("lines") == ["x", "y"]
    assert value.get("props") == {"w": 0.5}
    assert back.schema.version == 1  # the schema's version in the subject, from the registry


def test_subject_name_strategies(schema_registry_url: str) -> None:
    topic = _topic()
    schema = SchemaBuilder.struct().name("com.example.Rec").field("a", Schema.INT32_SCHEMA).build()
    value = Struct(schema).put("a", 1)
    strategies = {
        "io.confluent.kafka.serializers.subject.TopicNameStrategy": f"{topic}-value",
        "io.confluent.kafka.serializers.subject.RecordNameStrategy": "com.example.Rec",
        "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy": f"{topic}-com.example.Rec",
    }
    for strategy, subject in strategies.items():
        c = _converter(schema_registry_url, **{"value.subject.name.strategy": strategy})
        c.from_connect_data(topic, schema, value)
        r = httpx.get(f"{schema_registry_url}/subjects/{subject}/versions", timeout=10)
        assert r.status_code == 200 and r.json(), (strategy, r.text)


def test_use_latest_version_without_auto_register(schema_registry_url: str) -> None:
    topic = _topic()
    schema = SchemaBuilder.struct().name("com.example.L").field("a", Schema.INT32_SCHEMA).build()
    value = Struct(schema).put("a", 5)
    refused = _converter(schema_registry_url, **{"auto.register.schemas": "false"})
    with pytest.raises(DataException) as info:
        refused.from_connect_data(topic, schema, value)
    assert "Failed to serialize Avro data from topic" in str(info.value)
    first = _converter(schema_registry_url).from_connect_data(topic, schema, value)
    latest = _converter(
        schema_registry_url,
        **{"auto.register.schemas": "false", "use.latest.version": "true"},
    ).from_connect_data(topic, schema, value)
    assert latest == first


def test_an_unknown_schema_id_is_a_data_exception(schema_registry_url: str) -> None:
    c = _converter(schema_registry_url)
    with pytest.raises(DataException) as info:
        c.to_connect_data("t", b"\x00\x7f\xff\xff\xf0\x02")
    assert str(info.value) == "Failed to deserialize data for topic t to Avro:"
    cause = info.value.__cause__
    assert str(cause) == "Error retrieving Avro value schema for id 2147483632"
    assert "40403" in str(cause.__cause__)


def test_bytes_without_the_magic_byte_are_a_data_exception(schema_registry_url: str) -> None:
    with pytest.raises(DataException) as info:
        _converter(schema_registry_url).to_connect_data("t", b'{"json": 1}')
    assert "Unknown magic byte" in str(info.value.__cause__)


def test_an_unreachable_registry_is_retriable_and_hides_the_password() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    c = _converter(
        url,
        **{
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": "fred:s3cret-pw",
            "max.retries": "0",
            "http.connect.timeout.ms": "500",
        },
    )
    with pytest.raises(RetriableException) as info:
        c.from_connect_data("t", Schema.STRING_SCHEMA, "x")
    text = f"{info.value} {info.value.__cause__!r} {info.value.__cause__}"
    assert "s3cret-pw" not in text


def test_the_dashboard_decodes_registry_encoded_dlq_records(schema_registry_url: str) -> None:
    from kconnect.ui.dlq_decoding import record_decoders

    topic = _topic()
    schema = _customer_schema()
    data = _converter(schema_registry_url).from_connect_data(topic, schema, _customer(schema))
    assert data is not None
    config = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": schema_registry_url,
    }
    key_decoder, value_decoder = record_decoders(config)
    assert key_decoder is None and value_decoder is not None
    shown = value_decoder(topic, data)
    assert shown["schema_id"] == int.from_bytes(data[1:5], "big")
    assert shown["schema"] == "com.example.Customer"
    assert shown["data"]["name"] == "Zoë ∑ 名前"
    assert shown["data"]["balance"] == "-1234.56"
    assert shown["data"]["address"] == {"street": "Große Str. 1", "zip": None}
    broken = value_decoder(topic, b"not avro")
    assert broken["schema_id"] is None
    assert "Unknown magic byte" in broken["error"]
