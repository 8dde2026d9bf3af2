"""What the FileStreamSink side-by-side tests feed Kafka's Java sink and kconnect's run of it.

Java's ``FileStreamSinkTask`` prints ``String.valueOf(value)`` per record; these inputs show
every way a Connect value prints:

- :func:`schema_values` -- every Connect type with its schema (integers, FLOAT32/FLOAT64,
  booleans, strings, bytes, Decimal, Date, Time, Timestamp, arrays, maps with string and with
  integer keys, nested structs with null and defaulted fields, null);
- :data:`SCHEMALESS` -- schemaless JSON messages (maps whose ``HashMap`` order shows, nested
  lists, numbers in every JSON form);
- :func:`produce_inputs` -- both sent to their topics (the first through JsonConverter with
  schemas, then a tombstone);
- :data:`BYTES_IDENTITY` -- how a ``byte[]`` prints (``[B@1b6d3586``): an object identity whose
  digits differ between any two JVMs, so lines are compared by shape (:func:`masked`).
"""

from __future__ import annotations

import datetime as dt
import decimal
import re

from kconnect.api import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from kconnect.api.data.java_numbers import to_float32

__all__ = ["BYTES_IDENTITY", "SCHEMALESS", "masked", "produce_inputs", "schema_values"]

BYTES_IDENTITY = re.compile(r"\[B@[0-9a-f]+")


def masked(text: str) -> str:
    """``text`` with each ``byte[]`` identity (:data:`BYTES_IDENTITY`) as ``[B@...``."""
    return BYTES_IDENTITY.sub("[B@...", text)


def schema_values() -> list[tuple[Schema | None, object]]:
    """(schema, value) of every Connect type, in the order the tests produce them."""
    inner = (
        SchemaBuilder.struct()
        .name("inner")
        .field("f", Schema.FLOAT32_SCHEMA)
        .field("b", Schema.OPTIONAL_BYTES_SCHEMA)
        .field("when", Timestamp.SCHEMA)
        .build()
    )
    outer = (
        SchemaBuilder.struct()
        .name("outer")
        .field("id", Schema.INT32_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .field("dflt", SchemaBuilder.string().optional().default_value("d").build())
        .field("inner", inner)
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build())
        .build()
    )
    inner_field = outer.field("inner")
    assert inner_field is not None
    moment = dt.datetime(2024, 3, 1, 12, 0, 0, 123000, tzinfo=dt.UTC)
    many_keys = {f"key{i}": i for i in range(20)}  # past HashMap's first resize (13 entries)
    return [
        (Schema.INT8_SCHEMA, -5),
        (Schema.INT16_SCHEMA, 300),
        (Schema.INT32_SCHEMA, -7),
        (Schema.INT64_SCHEMA, 1 << 40),
        (Schema.FLOAT32_SCHEMA, to_float32(12.2)),
        (Schema.FLOAT32_SCHEMA, to_float32(1e-5)),
        (Schema.FLOAT64_SCHEMA, 1e10),
        (Schema.FLOAT64_SCHEMA, 0.1),
        (Schema.FLOAT64_SCHEMA, 123456789.125),
        (Schema.FLOAT64_SCHEMA, 1e-7),
        (Schema.BOOLEAN_SCHEMA, True),
        (Schema.BOOLEAN_SCHEMA, False),
        (Schema.STRING_SCHEMA, "héllo wörld"),
        (Schema.BYTES_SCHEMA, b"\x01\x02\x03"),
        (Decimal.schema(2), decimal.Decimal("1.50")),
        (Decimal.schema(0), decimal.Decimal("123456789012345678901234567890")),
        (Decimal.schema(-2), decimal.Decimal("1.23E+4")),
        (Decimal.schema(10), decimal.Decimal("-0.0000012300")),
        (Date.SCHEMA, dt.date(2024, 2, 29)),
        (Date.SCHEMA, dt.date(1969, 7, 20)),
        (Time.SCHEMA, dt.time(13, 14, 15, 678000)),
        (Timestamp.SCHEMA, moment),
        (Timestamp.SCHEMA, dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=dt.UTC)),
        (SchemaBuilder.array(Schema.STRING_SCHEMA).build(), ["a", "b"]),
        (SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(), [to_float32(0.1), 2.0]),
        (SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build(), [1, None]),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build(), many_keys),
        (
            SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(),
            {-1: "m", 17: "s", 16: "t", 3: "x", 1 << 20: "y"},
        ),
        (
            SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.FLOAT64_SCHEMA).build(),
            {-1: 1.5, 1 << 40: 0.25, 33: 1e300},
        ),
        (
            outer,
            Struct(outer)
            .put("id", 1)
            .put("name", "foo")
            .put(
                "inner",
                Struct(inner).put("f", to_float32(0.3)).put("b", b"\x00").put("when", moment),
            )
            .put("tags", ["x", "y"])
            .put("counts", {"zz": 1, "a": 2, "some_key": 3}),
        ),
        (inner_field.schema, Struct(inner).put("f", 1.0).put("when", moment)),
        (Schema.OPTIONAL_STRING_SCHEMA, None),
    ]


SCHEMALESS = [
    b'{"some_key":0}',
    # (no -0.0: kconnect's JsonConverter keeps its sign, Kafka's reads it as 0.0 -- a known
    # difference of the converter, like "NaN")
    b'{"b":1,"a":[1,2.5,"x",null,true],"c":{"z":1e10,"y":-0.5,"x":1E+2}}',
    b'{"name":"n","task":0,"topic":"t","time_ms":1,"seqno":2,"committed":true}',
    b"[1, 2, [3, [4]]]",
    b'"just a string"',
    b"12.0",
    b"1.0E-7",
    b"123456789012",
    b"true",
    b"null",
    b'{"nested":{"list":[{"k":"v"}],"empty":{}}}',
]


def produce_inputs(bootstrap: str, with_schema: str, schemaless: str) -> dict[str, int]:
    """:func:`schema_values` (as JsonConverter writes them with schemas) and a tombstone to
    topic ``with_schema``, :data:`SCHEMALESS` to topic ``schemaless``; the lines a sink of each
    must write: ``{"schema": n, "plain": m}``."""
    from confluent_kafka import Producer

    from kconnect.converters.json_converter import JsonConverter

    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, False)
    values = schema_values()
    messages = [converter.from_connect_data(with_schema, s, v) for s, v in values]
    producer = Producer({"bootstrap.servers": bootstrap})
    for message in [*messages, None]:  # the tombstone: the sink prints null
        producer.produce(with_schema, message)
    for message in SCHEMALESS:
        producer.produce(schemaless, message)
    assert producer.flush(30) == 0
    return {"schema": len(values) + 1, "plain": len(SCHEMALESS)}
