from kconnect.api import (
    Headers,
    Schema,
    SinkRecord,
    SourceRecord,
    TimestampType,
)


def test_headers_order_duplicates_and_retain_latest() -> None:
    h = Headers().add_string("a", "1").add_int("b", 2).add_string("a", "3")
    assert [x.key for x in h] == ["a", "b", "a"]
    last = h.last_with_name("a")
    assert last is not None and last.value == "3"
    assert len(h.all_with_name("a")) == 2
    h.retain_latest()
    assert [(x.key, x.value) for x in h] == [("b", 2), ("a", "3")]
    h.remove("a")
    assert [x.key for x in h] == ["b"]


def test_source_record_new_record_keeps_source_fields_and_copies_headers() -> None:
    r = SourceRecord(
        {"table": "t"},
        {"incrementing": 3},
        "topic",
        None,
        None,
        None,
        Schema.STRING_SCHEMA,
        "v",
        5,
        Headers().add_string("h", "x"),
    )
    n = r.new_record("other", 1, Schema.INT32_SCHEMA, 7, r.value_schema, r.value, r.timestamp)
    assert isinstance(n, SourceRecord)
    assert n.source_partition == {"table": "t"} and n.source_offset == {"incrementing": 3}
    assert n.topic == "other" and n.key == 7 and n.kafka_partition == 1
    n.headers.add_string("new", "y")
    assert len(r.headers) == 1, "the original record's headers are not shared"


def test_sink_record_keeps_original_coordinates() -> None:
    r = SinkRecord("t", 2, None, b"k", None, b"v", 42, 1000, TimestampType.CREATE_TIME)
    n = r.new_record("renamed", 0, None, b"k", None, b"v", 1000)
    assert isinstance(n, SinkRecord)
    assert (n.original_topic, n.original_kafka_partition, n.original_kafka_offset) == ("t", 2, 42)
    assert n.kafka_offset == 42 and n.timestamp_type is TimestampType.CREATE_TIME
