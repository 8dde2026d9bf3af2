import datetime as dt

import pytest

from kconnect.api import ConfigException, DataException, Schema, SchemaBuilder, Struct, Timestamp
from kconnect.transforms.insert_field import InsertFieldKey, InsertFieldValue
from tests.unit.transforms.records import sink, source

CFG = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "offset.field": "offset_field!",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}


def insert(cls=InsertFieldValue, **cfg):
    xf = cls()
    xf.configure(cfg or CFG)
    return xf


def test_config_errors():
    with pytest.raises(ConfigException, match="No field insertion configured"):
        InsertFieldValue().configure({})
    with pytest.raises(ConfigException, match=r"static\.value"):
        InsertFieldValue().configure({"static.field": "x"})


def test_with_schema():
    schema = (
        SchemaBuilder.struct()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic", Schema.OPTIONAL_INT64_SCHEMA)
        .build()
    )
    out = insert().apply(sink(schema, Struct(schema).put("magic", 42), timestamp=0))
    s = out.value_schema
    assert (s.name, s.version, s.doc) == ("name", 1, "doc")
    assert s.field("topic_field").schema == Schema.STRING_SCHEMA
    assert s.field("partition_field").schema == Schema.OPTIONAL_INT32_SCHEMA
    assert s.field("offset_field").schema == Schema.INT64_SCHEMA
    assert s.field("timestamp_field").schema.name == Timestamp.LOGICAL_NAME
    assert s.field("instance_id").schema == Schema.OPTIONAL_STRING_SCHEMA
    v = out.value
    assert (
        v.get("magic"),
        v.get("topic_field"),
        v.get("partition_field"),
        v.get("offset_field"),
        v.get("instance_id"),
    ) == (42, "test", 0, 42, "my-instance-id")
    assert v.get("timestamp_field") == dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def test_schemaless_and_tombstone():
    out = insert().apply(sink(None, {"magic": 42}, timestamp=123))
    assert out.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "offset_field": 42,
        "timestamp_field": 123,
        "instance_id": "my-instance-id",
    }
    rec = sink(None, None)
    assert insert().apply(rec) is rec


def test_offset_needs_sink_record():
    with pytest.raises(DataException, match=r"InsertField\$Value: Only SinkRecord supported"):
        insert().apply(source(None, {"magic": 1}))
    out = insert(InsertFieldKey, **{"topic.field": "t"}).apply(source(key={"k": 1}))
    assert out.key == {"k": 1, "t": "test"}


@pytest.mark.parametrize("rnwd, expected", [("true", 5), ("false", None)])
def test_rnwd(rnwd, expected):
    schema = (
        SchemaBuilder.struct()
        .field("f", SchemaBuilder.int32().optional().default_value(5).build())
        .build()
    )
    out = insert(**{"topic.field": "t", "replace.null.with.default": rnwd}).apply(
        sink(schema, Struct(schema))
    )
    assert out.value.get_without_default("f") == expected
