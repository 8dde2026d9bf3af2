"""auto.create column types: Connect schemas → PostgreSQL/SQLite types."""

from __future__ import annotations

from kconnect.api import Date, Decimal, Schema, SchemaBuilder, Time, Timestamp
from kconnect.connectors.jdbc.sink.ddl import column_type


def _named_string(name: str) -> Schema:
    return SchemaBuilder.string().name(name).build()


def test_postgres_types_fit_the_schema() -> None:
    pg = "postgresql"
    assert column_type(pg, Schema.INT8_SCHEMA) == "SMALLINT"
    assert column_type(pg, Schema.INT32_SCHEMA) == "INTEGER"
    assert column_type(pg, Schema.STRING_SCHEMA) == "TEXT"
    precise = Decimal.builder(2).parameter("connect.decimal.precision", "10").build()
    assert column_type(pg, precise) == "NUMERIC(10,2)"
    assert column_type(pg, Decimal.schema(3)) == "NUMERIC"
    assert column_type(pg, Date.SCHEMA) == "DATE"
    assert column_type(pg, Time.SCHEMA) == "TIME"
    assert column_type(pg, Timestamp.SCHEMA) == "TIMESTAMP"
    assert column_type(pg, SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build()) == "BIGINT[]"
    assert column_type(pg, SchemaBuilder.array(precise).build()) == "NUMERIC(10,2)[]"


def test_debezium_semantic_strings_get_their_postgres_type() -> None:
    assert column_type("postgresql", _named_string("io.debezium.data.Json")) == "JSONB"
    assert column_type("postgresql", _named_string("io.debezium.data.Uuid")) == "UUID"
    assert column_type("postgresql", _named_string("io.debezium.data.Xml")) == "XML"
    # Other names, and other databases, keep the STRING mapping.
    assert column_type("postgresql", _named_string("my.Name")) == "TEXT"
    assert column_type("sqlite", _named_string("io.debezium.data.Json")) == "TEXT"
