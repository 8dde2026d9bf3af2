import datetime as dt

import pytest

from kconnect.api import ConfigException, DataException, Schema
from kconnect.transforms.drop_headers import DropHeaders
from kconnect.transforms.filter import Filter
from kconnect.transforms.insert_header import InsertHeader
from kconnect.transforms.regex_router import RegexRouter
from kconnect.transforms.timestamp_router import TimestampRouter
from tests.unit.transforms.records import source


def configured(cls, **cfg):
    xf = cls()
    xf.configure(cfg)
    return xf


@pytest.mark.parametrize(
    "regex, replacement, topic, expected",
    [
        ("foo", "bar", "foo", "bar"),
        ("foo", "bar", "orig", "orig"),
        ("(.*)", "$1", "orig", "orig"),
        ("(.*)", "prefix-$1", "orig", "prefix-orig"),
        ("(.*)", "$1-suffix", "orig", "orig-suffix"),
        ("(.*)-(\\d\\d\\d\\d\\d\\d\\d\\d)", "$1", "index-20160117", "index"),
        ("(?<name>[a-z]+)\\.x", "${name}_y", "abc.x", "abc_y"),
        ("a(b)", "\\$1$1", "ab", "$1b"),
        ("foo", "bar", "foox", "foox"),  # must match the whole topic
    ],
)
def test_regex_router(regex, replacement, topic, expected):
    xf = configured(RegexRouter, regex=regex, replacement=replacement)
    assert xf.apply(source(topic=topic)).topic == expected


def test_regex_router_config_errors():
    with pytest.raises(ConfigException, match="regex"):
        configured(RegexRouter, regex="(", replacement="x")
    with pytest.raises(ConfigException, match="replacement"):
        configured(RegexRouter, regex="(a)", replacement="$2")


def test_timestamp_router():
    xf = configured(TimestampRouter)
    assert xf.apply(source(topic="test", timestamp=1483425001864)).topic == "test-20170103"
    xf = configured(
        TimestampRouter,
        **{"topic.format": "${timestamp}_${topic}", "timestamp.format": "yyyy-MM-dd'T'HH"},
    )
    assert xf.apply(source(topic="t", timestamp=1483425001864)).topic == "2017-01-03T06_t"
    with pytest.raises(DataException, match="Timestamp missing"):
        xf.apply(source(topic="t"))


def test_insert_header_types_literal():
    rec = source()
    rec.headers.add_string("existing", "x")
    out = configured(InsertHeader, header="inserted", **{"value.literal": "1"}).apply(rec)
    h = out.headers.last_with_name("inserted")
    assert (h.value, h.schema) == (1, Schema.INT8_SCHEMA)
    out = configured(InsertHeader, header="existing", **{"value.literal": "v"}).apply(rec)
    assert [h.value for h in out.headers.all_with_name("existing")] == ["x", "v"]
    assert len(rec.headers) == 1
    with pytest.raises(ConfigException):
        configured(InsertHeader, header="h")


def test_insert_header_parses_literals_like_values_parse_string():
    rec = source()
    arr = configured(InsertHeader, header="h", **{"value.literal": "[1, 2, 3]"}).apply(rec)
    h = arr.headers.last_with_name("h")
    assert h.value == [1, 2, 3]
    assert h.schema.type.value == "array"
    assert h.schema.value_schema == Schema.INT8_SCHEMA
    m = configured(InsertHeader, header="h", **{"value.literal": '{"a":true}'}).apply(rec)
    h = m.headers.last_with_name("h")
    assert h.value == {"a": True}
    assert (h.schema.key_schema, h.schema.value_schema) == (
        Schema.STRING_SCHEMA,
        Schema.BOOLEAN_SCHEMA,
    )
    d = configured(InsertHeader, header="h", **{"value.literal": "2024-02-03"}).apply(rec)
    h = d.headers.last_with_name("h")
    assert h.value == dt.date(2024, 2, 3)
    assert h.schema.name == "org.apache.kafka.connect.data.Date"


def test_drop_headers_and_filter():
    rec = source()
    rec.headers.add_string("a", "1").add_string("b", "2").add_string("a", "3")
    out = configured(DropHeaders, headers="a,c").apply(rec)
    assert [h.key for h in out.headers] == ["b"] and len(rec.headers) == 3
    with pytest.raises(ConfigException, match="Empty list"):
        configured(DropHeaders, headers="")
    assert configured(Filter).apply(rec) is None
