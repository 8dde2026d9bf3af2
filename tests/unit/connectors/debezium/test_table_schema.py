"""Columns mapped to Debezium's field schemas and values, and a table's topic, key, value and
envelope schemas, from hand-built catalog entries (no database)."""

from __future__ import annotations

import decimal

import pytest

from kconnect.api import Type
from kconnect.connectors.debezium.postgres.catalog import Column, Table
from kconnect.connectors.debezium.postgres.column_mapping import map_column, time_scale
from kconnect.connectors.debezium.postgres.publication import TableId
from kconnect.connectors.debezium.postgres.table_schema import build_table_schema, topic_name
from kconnect.connectors.debezium.postgres.text_values import ValueOptions

OIDS = {"int4": 23, "int8": 20, "text": 25, "numeric": 1700, "timestamptz": 1184, "time": 1083,
        "timestamp": 1114, "_text": 1009, "jsonb": 3802, "bytea": 17, "mood": 90001, "tsvector": 3614,
        "box": 603}  # fmt: skip


def col(name: str, type_name: str, *, typmod: int = -1, nullable: bool = True,
        labels: tuple[str, ...] = (), position: int = 1) -> Column:  # fmt: skip
    oid = OIDS[type_name]
    return Column(name, position, oid, type_name, typmod, nullable, None, oid, type_name,
                  25 if type_name == "_text" else 0, labels)  # fmt: skip


def test_time_scale_is_six_unless_declared() -> None:
    assert time_scale(-1) == 6
    assert time_scale(3) == 3


@pytest.mark.parametrize(
    ("column", "name", "kind", "params"),
    [
        (col("a", "int4", nullable=False), None, Type.INT32, None),
        (col("a", "numeric", typmod=(12 << 16 | 3) + 4), "org.apache.kafka.connect.data.Decimal",
         Type.BYTES, {"scale": "3", "connect.decimal.precision": "12"}),
        (col("a", "numeric"), "io.debezium.data.VariableScaleDecimal", Type.STRUCT, None),
        (col("a", "timestamptz"), "io.debezium.time.ZonedTimestamp", Type.STRING, None),
        (col("a", "time", typmod=3), "io.debezium.time.Time", Type.INT32, None),
        (col("a", "time"), "io.debezium.time.MicroTime", Type.INT64, None),
        (col("a", "timestamp", typmod=2), "io.debezium.time.Timestamp", Type.INT64, None),
        (col("a", "timestamp"), "io.debezium.time.MicroTimestamp", Type.INT64, None),
        (col("a", "jsonb"), "io.debezium.data.Json", Type.STRING, None),
        (col("a", "mood", labels=("sad", "ok")), "io.debezium.data.Enum", Type.STRING,
         {"allowed": "sad,ok"}),
        (col("a", "bytea"), None, Type.BYTES, None),
    ],
)  # fmt: skip
def test_field_schemas(
    column: Column, name: str | None, kind: Type, params: dict[str, str] | None
) -> None:
    mapping = map_column(column, ValueOptions())
    assert mapping is not None
    assert (mapping.schema.name, mapping.schema.type, mapping.schema.parameters) == (
        name,
        kind,
        params,
    )
    assert mapping.schema.optional is column.nullable


def test_modes_change_the_schema() -> None:
    numeric = col("a", "numeric", typmod=(12 << 16 | 3) + 4)
    got = map_column(numeric, ValueOptions(decimal_handling_mode="string"))
    assert got is not None and got.schema.type is Type.STRING
    connect = map_column(col("a", "timestamp"), ValueOptions(time_precision_mode="connect"))
    assert connect is not None and connect.schema.name == "org.apache.kafka.connect.data.Timestamp"
    b64 = map_column(col("a", "bytea"), ValueOptions(binary_handling_mode="base64"))
    assert b64 is not None and b64.schema.type is Type.STRING and b64.value("\\x00ff") == "AP8="


def test_arrays_hold_optional_elements_and_unknown_types_are_dropped() -> None:
    arr = map_column(col("tags", "_text", nullable=False), ValueOptions())
    assert arr is not None and arr.schema.type is Type.ARRAY and not arr.schema.optional
    assert arr.schema.value_schema.optional
    assert arr.value('{a,"b c",NULL}') == ["a", "b c", None]
    assert map_column(col("v", "box"), ValueOptions()) is None


def test_values_nulls_and_not_null_fallbacks() -> None:
    number = map_column(
        col("n", "numeric", typmod=(8 << 16 | 2) + 4, nullable=False), ValueOptions()
    )
    text = map_column(col("t", "text", nullable=False), ValueOptions())
    maybe = map_column(col("m", "int4"), ValueOptions())
    assert number is not None and text is not None and maybe is not None
    assert number.value("12.5") == decimal.Decimal("12.50")
    assert number.value(None) == decimal.Decimal("0.00")
    assert text.value(None) == ""
    assert maybe.value(None) is None


def test_topic_names_replace_what_kafka_does_not_allow() -> None:
    assert topic_name("dbserver1", "public", "orders") == "dbserver1.public.orders"
    assert topic_name("p", "my schema", "ünï$t") == "p.my_schema._n__t"
    assert len(topic_name("p", "s", "t" * 300)) == 249


def test_table_schema_key_value_envelope_and_rows() -> None:
    table = Table(
        TableId("public", "orders"),
        (
            col("id", "int4", nullable=False, position=1),
            col("note", "text", position=2),
            col("doc", "box", position=3),
            col("total", "numeric", typmod=(8 << 16 | 2) + 4, position=4),
        ),
        ("id",),
        "d",
    )
    ts = build_table_schema(table, "srv", ValueOptions())
    assert ts.topic == "srv.public.orders"
    assert ts.key_schema is not None and ts.key_schema.name == "srv.public.orders.Key"
    assert not ts.key_schema.optional
    assert [f.name for f in ts.value_schema.fields] == ["id", "note", "total"]  # box dropped
    assert ts.value_schema.name == "srv.public.orders.Value" and ts.value_schema.optional
    assert ts.envelope_schema.name == "srv.public.orders.Envelope"
    assert [f.name for f in ts.envelope_schema.fields][:3] == ["before", "after", "source"]

    row = ts.row(("7", None, "'a'", "1.5"))
    assert row[2] is None  # the box column is not captured
    value = ts.value(row)
    assert (value.get("id"), value.get("note"), value.get("total")) == (
        7,
        None,
        decimal.Decimal("1.50"),
    )
    key = ts.key(row)
    assert key is not None and key.get("id") == 7

    filtered = build_table_schema(
        table, "srv", ValueOptions(), keep_column=lambda n: not n.endswith(".note")
    )
    assert [f.name for f in filtered.value_schema.fields] == ["id", "total"]
    no_key = build_table_schema(table, "srv", ValueOptions(), key_columns=[])
    assert no_key.key_schema is None and no_key.key(no_key.row(("7", None, "'a'", "1.5"))) is None
    by_note = build_table_schema(table, "srv", ValueOptions(), key_columns=["note", "id"])
    assert by_note.key_schema is not None
    assert [f.name for f in by_note.key_schema.fields] == ["note", "id"]
