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
    hash_code,
    hash_map_order,
    java_date_string,
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
    assert string_value_of(dict.fromkeys(keys, 1), schema) == java


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
