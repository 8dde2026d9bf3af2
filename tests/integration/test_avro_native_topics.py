"""The native AvroConverter form on the record path, against a real schema registry: each
record is decoded and encoded with its own topic's subject.

With TopicNameStrategy one schema id can be version 1 of ``<a>-value`` and version 2 of
``<b>-value`` (a registry stores the text once), and one Connect schema can be registered with
different ids under two subjects: a consumed batch of both topics must give each record its
topic's Connect schema (version included), and a source batch must write each record with its
topic's id -- exactly what the pure-Python methods give, record by record.
"""

from __future__ import annotations

import uuid

import confluent_kafka as ck
import pytest

from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct
from kconnect.converters.avro.avro_converter import AvroConverter

native = _hot_path.native
pytestmark = [
    pytest.mark.registry,
    pytest.mark.skipif(native is None, reason=_hot_path.describe()),
]


def _converter(url: str, is_key: bool | None = False) -> AvroConverter:
    c = AvroConverter()
    if is_key is None:
        c.configure({"schema.registry.url": url})
    else:
        c.configure({"schema.registry.url": url}, is_key)
    return c


def _schemas() -> tuple[Schema, Schema]:
    one = SchemaBuilder.struct().name("h7.Rec").field("s", Schema.STRING_SCHEMA).build()
    two = (
        SchemaBuilder.struct()
        .name("h7.Rec")
        .field("s", Schema.STRING_SCHEMA)
        .field("n", Schema.OPTIONAL_INT32_SCHEMA)
        .build()
    )
    return one, two


def test_each_record_is_read_and_written_with_its_topics_subject(
    schema_registry_url: str,
) -> None:
    assert native is not None
    tag = uuid.uuid4().hex[:10]
    a, b = f"native-a-{tag}", f"native-b-{tag}"
    one, two = _schemas()
    writer = _converter(schema_registry_url)
    # topic b gets `one` first, so `two` is version 2 there and version 1 on topic a
    writer.from_connect_data(b, one, Struct(one).put("s", "first"))
    on_a = writer.from_connect_data(a, two, Struct(two).put("s", "A").put("n", 1))
    on_b = writer.from_connect_data(b, two, Struct(two).put("s", "B").put("n", 2))
    assert on_a is not None and on_b is not None

    reader = _converter(schema_registry_url)
    form = reader.native_converter()
    assert form is not None
    keys = native.Converter.byte_array(Schema.OPTIONAL_BYTES_SCHEMA)
    values = [(a, on_a), (b, on_b), (b, on_b), (a, on_a), (a, None)]
    msgs = [
        ck.Message(topic=t, partition=0, offset=i, key=None, value=v, timestamp=(1, i))
        for i, (t, v) in enumerate(values)
    ]
    batch, redo_keys, redo_values, with_headers = native.RecordBatch.from_messages(msgs, keys, form)
    assert (redo_keys, redo_values, with_headers) == ([], [], [])
    python = _converter(schema_registry_url)  # the reference: the pure-Python methods
    for got, (topic, data) in zip(batch[:], values, strict=True):
        want = python.to_connect_data(topic, data)
        assert got.topic == topic
        assert got.value_schema == want.schema and got.value == want.value
        if data is not None:
            assert got.value_schema.version == (1 if topic == a else 2)
    # the converter's own batch method, per topic
    for topic, data, version in ((a, on_a, 1), (b, on_b, 2)):
        (sv,) = reader.to_connect_batch(topic, [data])
        assert sv.schema is not None and sv.schema.version == version

    # the source side: each record written as the Python method writes it on its topic
    records = [
        SourceRecord({}, {}, t, 0, None, None, one, Struct(one).put("s", t)) for t in (a, b, a)
    ]
    entries, redo = native.RecordBatch.from_records(records).encode(keys, form)
    assert redo == []
    for entry, r in zip(entries, records, strict=True):
        want_bytes = python.from_connect_data(r.topic, r.value_schema, r.value)
        assert entry is not None and entry[0] == r.topic and entry[3] == want_bytes
    assert reader.from_connect_batch(b, [(one, Struct(one).put("s", b))]) == [
        python.from_connect_data(b, one, Struct(one).put("s", b))
    ]


def test_a_header_converter_has_no_native_form(schema_registry_url: str) -> None:
    assert _converter(schema_registry_url, None).native_converter() is None
    assert _converter(schema_registry_url, True).native_converter() is not None
