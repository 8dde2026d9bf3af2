"""``String.valueOf`` of Connect values, hash codes and HashMap order, against Java's texts.

Every expected string below is what ``System.out.println`` printed for the same Java objects
(JDK 17, Kafka Connect 4.1.2's ``Struct``, ``new HashMap<>()`` filled in the order given).
"""

from __future__ import annotations

import datetime as dt
import decimal
import os
import re
import time
from collections.abc import Callable, Iterator

import pytest

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.api.data import logical
from kconnect.api.data.java_numbers import to_float32
from kconnect.api.data.java_strings import (
    ByteBuffer,
    Float32,
    copy_table,
    default_table,
    hash_code,
    hash_map_order,
    hash_set_copy_table,
    in_hash_map_order,
    java_date_string,
    json_hash_maps,
    presized_table,
    string_value_of,
)

D = decimal.Decimal


def _map(key: Schema, value: Schema) -> Schema:
    return SchemaBuilder.map(key, value).build()


def test_scalars() -> None:
    assert string_value_of(None) == "null"
    assert string_value_of("x") == "x"
    assert string_value_of(True) == "true"
    assert string_value_of(False, Schema.BOOLEAN_SCHEMA) == "false"
    assert string_value_of(-7, Schema.INT8_SCHEMA) == "-7"
    assert string_value_of(1 << 40) == "1099511627776"
    assert string_value_of(12.2) == "12.2"
    assert string_value_of(1e7) == "1.0E7"
    assert string_value_of(float("-inf")) == "-Infinity"
    # a FLOAT32 holds the float nearest 12.2: Float.toString, not Double.toString
    assert string_value_of(to_float32(12.2), Schema.FLOAT32_SCHEMA) == "12.2"
    assert string_value_of(to_float32(12.2), Schema.FLOAT64_SCHEMA) == "12.199999809265137"


def test_big_decimal_texts() -> None:
    assert string_value_of(D("1.50"), logical.Decimal.schema(2)) == "1.50"
    assert string_value_of(D("0E-10")) == "0E-10"
    assert string_value_of(D("-0.00")) == "0.00"  # BigDecimal has no negative zero
    assert string_value_of(D("5E+3")) == "5E+3"
    assert string_value_of(D("-1.23E-8")) == "-1.23E-8"


@pytest.fixture
def time_zone() -> Iterator[Callable[[str], None]]:
    """Switch this process's time zone (TZ + tzset); the original one is back afterwards."""
    original = os.environ.get("TZ")

    def use(zone: str) -> None:
        os.environ["TZ"] = zone
        time.tzset()

    yield use
    if original is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = original
    time.tzset()


def test_dates_print_as_java_util_date(time_zone: Callable[[str], None]) -> None:
    time_zone("UTC")
    assert string_value_of(dt.date(1970, 1, 1), logical.Date.SCHEMA) == (
        "Thu Jan 01 00:00:00 UTC 1970"
    )
    assert string_value_of(dt.time(1, 2, 3, 4000), logical.Time.SCHEMA) == (
        "Thu Jan 01 01:02:03 UTC 1970"
    )
    moment = dt.datetime.fromtimestamp(1700000000.123, dt.UTC)
    assert string_value_of(moment, logical.Timestamp.SCHEMA) == "Tue Nov 14 22:13:20 UTC 2023"
    assert java_date_string(-86_400_000) == "Wed Dec 31 00:00:00 UTC 1969"
    time_zone("Europe/Berlin")
    assert java_date_string(0) == "Thu Jan 01 01:00:00 CET 1970"


def test_bytes_print_an_identity_as_java_does() -> None:
    assert re.fullmatch(r"\[B@[0-9a-f]+", string_value_of(b"\x01\x02", Schema.BYTES_SCHEMA))
    assert re.fullmatch(r"\[B@[0-9a-f]+", string_value_of(bytearray(b"x")))


def test_lists_maps_and_structs() -> None:
    assert string_value_of(["a", "b"]) == "[a, b]"
    assert string_value_of([]) == "[]"
    assert string_value_of([1.0, None, True]) == "[1.0, null, true]"
    assert string_value_of({"some_key": 0}) == "{some_key=0}"
    inner = (
        SchemaBuilder.struct()
        .field("f", Schema.FLOAT32_SCHEMA)
        .field("d", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .build()
    )
    schema = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .field("inner", inner)
        .field("list", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("opt", SchemaBuilder.string().optional().default_value("dflt").build())
        .build()
    )
    value = (
        Struct(schema)
        .put("id", 1)
        .put("name", "foo")
        .put("inner", Struct(inner).put("f", to_float32(12.2)).put("d", 1e-5))
        .put("list", ["a", "b"])
    )
    # null fields are left out, even when their schema has a default
    assert string_value_of(value, schema) == (
        "Struct{id=1,name=foo,inner=Struct{f=12.2,d=1.0E-5},list=[a, b]}"
    )
    assert string_value_of(Struct(inner)) == "Struct{}"


@pytest.mark.parametrize(
    ("keys", "schema", "java"),
    [
        (
            ["some_key", "b", "a", "zz", "name", "task", "topic", "time_ms", "seqno",
             "committed", "x1", "x2", "x3", "x4"],
            None,
            "{zz=1, a=1, b=1, committed=1, some_key=1, seqno=1, task=1, time_ms=1, name=1, "
            "topic=1, x1=1, x2=1, x3=1, x4=1}",
        ),
        (
            [-1, 17, 16, 3, -100, 1 << 20, 33],
            _map(Schema.INT32_SCHEMA, Schema.INT64_SCHEMA),
            "{-1=1, 16=1, 1048576=1, 17=1, 33=1, 3=1, -100=1}",
        ),
        (
            [-1, 17, 16, 3, -100, 1 << 40, 33],
            None,  # schemaless integers are Longs
            "{-1=1, 16=1, 1099511627776=1, 17=1, 33=1, 3=1, -100=1}",
        ),
        ([1.5, -0.0, 3.25, 1e10, 0.1], None, "{-0.0=1, 0.1=1, 1.5=1, 3.25=1, 1.0E10=1}"),
        (
            [to_float32(x) for x in (1.5, 12.2, 0.1, 3.25)],
            _map(Schema.FLOAT32_SCHEMA, Schema.INT64_SCHEMA),
            "{1.5=1, 12.2=1, 3.25=1, 0.1=1}",
        ),
        (
            [D(x) for x in ("1.50", "-2.5", "12345678901234567890.12", "0.000", "7")],
            None,
            "{12345678901234567890.12=1, 0.000=1, -2.5=1, 7=1, 1.50=1}",
        ),
        ([(), ("a", "b"), (1, 2), False, True], None, "{[]=1, [a, b]=1, [1, 2]=1, false=1, true=1}"),
    ],
)  # fmt: skip
def test_maps_list_entries_in_java_hash_map_order(
    keys: list, schema: Schema | None, java: str
) -> None:
    # in_hash_map_order puts the entries in the map's order; string_value_of prints that
    key_schema = schema.key_schema if schema is not None else None
    ordered = in_hash_map_order(dict.fromkeys(keys, 1), key_schema=key_schema)
    assert string_value_of(ordered, schema) == java


def test_hash_codes_of_java_types() -> None:
    assert hash_code("some_key") == 1_505_175_700
    assert hash_code("polygenelubricants") == -(1 << 31)  # String.hashCode wraps to int
    assert hash_code("") == 0
    assert hash_code(-1, Schema.INT32_SCHEMA) == -1
    assert hash_code(-1) == 0  # Long.hashCode(-1L)
    assert hash_code(True) == 1231
    assert hash_code(None) == 0
    assert hash_code([]) == 1
    assert hash_code(b"x") is None  # byte[]: identity
    assert hash_code(Struct(SchemaBuilder.struct().build())) is None


def test_identity_keys_keep_insertion_order() -> None:
    entries = [("b", 1), (b"k", 2), ("a", 3)]
    assert hash_map_order(entries) == entries


# -- a dict's order is its Java map's iteration order ----------------------------------------
# (the expected orders below are what JDK 17 printed for the same maps)

KEYS13 = [
    "id",
    "name",
    "email",
    "score",
    "created",
    "zz",
    "a",
    "b",
    "c",
    "x1",
    "f0",
    "f1",
    "user_id",
]


def test_table_sizes_follow_how_java_made_the_map() -> None:
    assert (default_table(12), default_table(13)) == (16, 32)  # grown past 3/4
    assert (presized_table(3, 3), presized_table(7, 6), presized_table(7, 7)) == (4, 8, 16)
    # JDK 17's copy constructor sizes the table for size / 0.75 + 1: 3 -> 8, 12 -> 32
    assert (copy_table(3, 3), copy_table(12, 12), copy_table(0, 1)) == (8, 32, 16)
    assert (hash_set_copy_table(4), hash_set_copy_table(13)) == (16, 32)


def test_orders_of_java_maps() -> None:
    new_map = in_hash_map_order(dict.fromkeys(KEYS13, 1))
    assert list(new_map) == [
        "zz", "a", "b", "c", "created", "f0", "f1", "score", "user_id", "name", "x1", "id",
        "email",
    ]  # fmt: skip
    copied = dict(new_map)  # new HashMap<>(map), then a put
    copied["topic"] = 2
    assert list(in_hash_map_order(copied, copy_table(13, 14))) == [
        "zz", "a", "b", "c", "created", "f0", "f1", "score", "user_id", "name", "x1", "topic",
        "id", "email",
    ]  # fmt: skip
    three = in_hash_map_order(dict.fromkeys(["id", "name", "created"], 1))
    assert list(three) == ["created", "name", "id"]
    three = {**three, "t": 1}
    assert list(in_hash_map_order(three, copy_table(3, 4))) == ["name", "id", "t", "created"]
    # new HashMap<>(7) given 6 distinct keys
    fields = dict.fromkeys(["ts", "created", "x1", "id", "score", "zz", "created"], 1)
    assert list(in_hash_map_order(fields, presized_table(7, len(fields)))) == [
        "zz", "x1", "score", "id", "created", "ts",
    ]  # fmt: skip
    entries = [(k, None) for k in ["zz", "a", "name", "email"]]  # new HashSet<>(list)
    assert hash_map_order(entries, table=hash_set_copy_table(4)) == entries


def test_in_hash_map_order_keeps_a_map_already_in_order_and_caches_by_keys() -> None:
    ordered = in_hash_map_order(dict.fromkeys(KEYS13, 1))
    assert in_hash_map_order(ordered) is ordered
    again = in_hash_map_order(dict.fromkeys(KEYS13, 2))  # the same keys: the cached order
    assert list(again) == list(ordered) and set(again.values()) == {2}
    # keys equal in Python but not in Java's hash never share a cached order
    ints = in_hash_map_order({17: "a", 1: "b", 16: "c"}, key_schema=Schema.INT32_SCHEMA)
    floats = in_hash_map_order({17.0: "a", 1.0: "b", 16.0: "c"})
    assert list(ints) == [16, 17, 1] and list(floats) == [1.0, 16.0, 17.0]
    identity = {"b": 1, b"k": 2, "a": 3}  # byte[]: an identity hash, insertion order kept
    assert in_hash_map_order(identity) is identity


def test_dicts_print_in_their_own_order() -> None:
    # the renderer no longer sorts: whoever built the dict put it in its Java map's order
    assert string_value_of({"id": 1, "name": "x", "created": 2}) == "{id=1, name=x, created=2}"
    assert string_value_of({"b": {"z": 1, "a": [2, {"y": 3, "x": 4}]}}) == (
        "{b={z=1, a=[2, {y=3, x=4}]}}"
    )


def test_json_hash_maps_orders_every_object_of_a_document() -> None:
    # three times: first and second sightings of the key sets, then their built functions
    for n in range(3):
        doc = {
            "id": n,
            "name": {"id": 2, "name": [{"z": 1, "a": 2}], "created": 4},
            "created": [{"name": 5, "id": 6}, 7],
        }
        out = json_hash_maps(doc)
        assert out == doc and out["id"] == n
        assert list(out) == ["created", "name", "id"]
        assert list(out["name"]) == ["created", "name", "id"]
        assert list(out["name"]["name"][0]) == ["a", "z"]
        assert list(out["created"][0]) == ["name", "id"] and out["created"][1] == 7


def test_float32_prints_and_hashes_as_a_java_float() -> None:
    x = Float32(to_float32(0.1))
    assert string_value_of(x) == "0.1"  # Float.toString; the same float as a Double below
    assert string_value_of(to_float32(0.1)) == "0.10000000149011612"
    assert string_value_of({"f": Float32(to_float32(9.223372036854776e18))}) == "{f=9.223372E18}"
    assert hash_code(x) == hash_code(x, Schema.FLOAT32_SCHEMA) != hash_code(to_float32(0.1))


def test_byte_buffer_prints_and_hashes_as_java_s_buffer() -> None:
    # jshell: ByteBuffer.wrap(new byte[]{1,2,(byte)0xff}) prints and hashes so; a byte[] has
    # an identity instead
    b = ByteBuffer(b"\x01\x02\xff")
    assert b == b"\x01\x02\xff" and isinstance(b, bytes)
    assert string_value_of(b) == "java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]"
    assert string_value_of(ByteBuffer()) == "java.nio.HeapByteBuffer[pos=0 lim=0 cap=0]"
    assert hash_code(b) == 28893 and hash_code(ByteBuffer()) == 1
    assert hash_code(b"\x01\x02\xff") is None
    s = SchemaBuilder.struct().field("b", Schema.BYTES_SCHEMA).build()
    assert string_value_of(Struct(s).put("b", b)) == (
        "Struct{b=java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]}"
    )
    assert string_value_of([b]) == "[java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]]"
