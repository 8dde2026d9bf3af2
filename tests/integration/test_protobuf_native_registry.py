"""ProtobufConverter's native form against a real schema registry: the batch methods (native)
give the bytes and values of the one-record methods (Python), for records kconnect writes and
records Confluent's Python ProtobufSerializer writes, per topic."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from google.protobuf import descriptor_pool, message_factory

from kconnect import _hot_path
from kconnect.api import SchemaAndValue, Struct
from kconnect.converters.protobuf.proto_parser import parse_schema
from kconnect.converters.protobuf.proto_render import BUILTIN_FILES
from kconnect.converters.protobuf.protobuf_converter import ProtobufConverter
from tests.integration.test_protobuf_converter_registry import ALL, INNER, UNION, _all_value

native = _hot_path.native
pytestmark = [
    pytest.mark.registry,
    pytest.mark.skipif(
        native is None or not hasattr(native.Converter, "protobuf"), reason=_hot_path.describe()
    ),
]

ORDER_SCHEMA = """
syntax = "proto3";
package shop.v2;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

message Order {
  enum Status { NEW = 0; SHIPPED = 1; }
  message Line { string sku = 1; uint32 qty = 2; sint64 delta = 3; }
  string id = 1;
  repeated Line lines = 2;
  map<string, int32> tags = 3;
  Status status = 4;
  oneof payment { string card = 5; int64 account = 6; }
  google.protobuf.Timestamp created = 7;
  google.protobuf.StringValue note = 8;
  optional int32 priority = 9;
  fixed64 big = 10;
  repeated double scores = 11;
}
"""


def _topic() -> str:
    return "h10pb-" + uuid.uuid4().hex[:10]


def _converter(url: str) -> ProtobufConverter:
    c = ProtobufConverter()
    c.configure({"schema.registry.url": url}, False)
    return c


def _values() -> list[Struct]:
    many = _all_value()
    other = _all_value().put("m", {}).put("choice_0", Struct(UNION).put("num", 0))
    other.put("structs", [Struct(INNER).put("y", ""), Struct(INNER).put("y", "b")])
    return [many, other]


def test_native_batches_match_the_python_methods(schema_registry_url: str) -> None:
    writer, reader = _converter(schema_registry_url), _converter(schema_registry_url)
    form = writer.native_converter()
    assert form is not None
    assert _converter(schema_registry_url).native_converter() is not form
    for topic in (_topic(), _topic()):
        values = _values()
        items: list[tuple[Any, Any]] = [(ALL, v) for v in values] + [(ALL, None)]
        out, misses = form.encode_values(items, _hot_path.FALLBACK, topic)
        assert misses == 0
        assert out == [writer.from_connect_data(topic, ALL, v) for v in values] + [None]
        assert writer.from_connect_batch(topic, items) == out
        # reading: the native batch against the Python method, record by record
        written = out[:-1]
        got = reader.to_connect_batch(topic, [*written, None])
        rform = reader.native_converter()
        direct, misses = rform.decode_values(written, SchemaAndValue, _hot_path.FALLBACK, topic)
        assert misses == 0
        for data, a, b in zip(written, got, direct, strict=False):
            assert data is not None
            want = reader.to_connect_data(topic, data)
            assert a.schema is want.schema and b.schema is want.schema
            assert a.value == want.value and b.value == want.value
        assert got[-1].value is None


def test_confluents_serializer_bytes_read_natively(schema_registry_url: str) -> None:
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    pool = descriptor_pool.DescriptorPool()
    for name in ("google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto"):
        pool.Add(BUILTIN_FILES[name])
    pool.Add(parse_schema(ORDER_SCHEMA, "shop/v2/order.proto", BUILTIN_FILES.values()))
    order_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.v2.Order"))
    client = SchemaRegistryClient({"url": schema_registry_url})
    topic = _topic()
    serialize = ProtobufSerializer(order_cls, client, {"use.deprecated.format": False})
    ctx = SerializationContext(topic, MessageField.VALUE)
    orders: list[Any] = [order_cls(), order_cls(id="o-1", status=1, account=42, big=1 << 63)]
    o = orders[1]
    o.lines.add(sku="a", qty=4_000_000_000, delta=-3)
    o.tags["x"] = 7
    o.created.seconds = -10
    o.created.nanos = 5_000_000
    o.note.value = ""
    o.priority = 0
    o.scores.extend([0.5, -0.0])
    data = [serialize(x, ctx) for x in orders]
    assert all(d[5] == 0 for d in data)  # message indexes [0]
    reader = _converter(schema_registry_url)
    out, misses = reader.native_converter().decode_values(
        data, SchemaAndValue, _hot_path.FALLBACK, topic
    )
    assert misses == 0
    for d, got in zip(data, out, strict=True):
        want = reader.to_connect_data(topic, d)
        assert got.schema is want.schema and got.value == want.value
