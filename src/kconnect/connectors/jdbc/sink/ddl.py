"""auto.create / auto.evolve: Connect schemas → PostgreSQL/SQLite column types and DDL.

Confluent's ``DbStructure`` rules: a missing table is created only with ``auto.create``; a
missing column is added only with ``auto.evolve`` and only if the field is optional or has a
default; nothing is ever dropped, renamed or re-typed. Types fit the schema better than
Confluent's (``numeric(p,s)`` when the Decimal schema carries its precision, ``smallint`` for
INT8/INT16, arrays of primitives as PostgreSQL arrays, ``jsonb``/``uuid``/``xml`` for STRING
schemas named ``io.debezium.data.Json``/``Uuid``/``Xml``). A plain STRING stays TEXT: the JDBC
source emits json/jsonb/uuid columns as plain strings, as Confluent does, so that its records
are byte-identical; pre-create the table to keep those types.

Pure functions, called on the task thread by the writer; they build SQL text only.
"""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Sequence

from kconnect.api import ConnectException, NonRetriableException, Schema, Type
from kconnect.api.data.schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
)
from kconnect.connectors.jdbc.common.identifiers import IdentifierRules, TableId
from kconnect.connectors.jdbc.sink.fields_metadata import Column

__all__ = [
    "TableAlterOrCreateException",
    "alter_table_statements",
    "column_type",
    "create_table_statement",
]

POSTGRESQL = "postgresql"
SQLITE = "sqlite"


class TableAlterOrCreateException(NonRetriableException):
    """A table is missing or lacks columns and may not (or cannot) be created or altered.

    As in Confluent, ``put`` hands the batch's records to the errant record reporter when one
    is configured, and fails the task otherwise; automatic restarts do not retry it (the
    table must be created, or ``auto.create``/``auto.evolve`` enabled, first).
    """


_PG_PRIMITIVE = {
    Type.INT8: "SMALLINT",
    Type.INT16: "SMALLINT",
    Type.INT32: "INTEGER",
    Type.INT64: "BIGINT",
    Type.FLOAT32: "REAL",
    Type.FLOAT64: "DOUBLE PRECISION",
    Type.BOOLEAN: "BOOLEAN",
    Type.STRING: "TEXT",
    Type.BYTES: "BYTEA",
}
# STRING schemas whose name says what the text is (Debezium's semantic types): the column
# gets the matching PostgreSQL type instead of TEXT, and PostgreSQL parses the text on write.
_PG_SEMANTIC = {
    "io.debezium.data.Json": "JSONB",
    "io.debezium.data.Uuid": "UUID",
    "io.debezium.data.Xml": "XML",
}
_SQLITE_PRIMITIVE = {
    Type.INT8: "INTEGER",
    Type.INT16: "INTEGER",
    Type.INT32: "INTEGER",
    Type.INT64: "INTEGER",
    Type.FLOAT32: "REAL",
    Type.FLOAT64: "REAL",
    Type.BOOLEAN: "INTEGER",
    Type.STRING: "TEXT",
    Type.BYTES: "BLOB",
}


def column_type(dialect: str, schema: Schema, as_timestamp: bool = False) -> str:
    """The SQL type of a column for ``schema``.

    ``as_timestamp`` is set for fields named in ``timestamp.fields.list``.

    Raises:
        ConnectException: STRUCT, MAP (or arrays of them) have no column type.
    """
    if as_timestamp:
        return "TIMESTAMP" if dialect == POSTGRESQL else "NUMERIC"
    name = schema.name
    if dialect == POSTGRESQL and name in _PG_SEMANTIC and schema.type is Type.STRING:
        return _PG_SEMANTIC[name]
    if name == DECIMAL_LOGICAL_NAME:
        if dialect == SQLITE:
            return "NUMERIC"
        params = schema.parameters or {}
        scale = params.get("scale")
        precision = params.get("connect.decimal.precision")
        if precision and scale is not None and 0 <= int(scale) <= int(precision) <= 1000:
            return f"NUMERIC({int(precision)},{int(scale)})"
        return "NUMERIC"
    if name in (DATE_LOGICAL_NAME, TIME_LOGICAL_NAME, TIMESTAMP_LOGICAL_NAME):
        if dialect == SQLITE:
            return "NUMERIC"
        return {DATE_LOGICAL_NAME: "DATE", TIME_LOGICAL_NAME: "TIME"}.get(name, "TIMESTAMP")
    t = schema.type
    if t is Type.ARRAY and dialect == POSTGRESQL:
        item = schema.value_schema
        if item.type in _PG_PRIMITIVE or item.name is not None:
            return column_type(dialect, item) + "[]"
    table = _PG_PRIMITIVE if dialect == POSTGRESQL else _SQLITE_PRIMITIVE
    try:
        return table[t]
    except KeyError:
        raise ConnectException(
            f"({t.name}) type doesn't have a mapping to the SQL database column type"
        ) from None


def _default_literal(schema: Schema, value: object) -> str:
    """A SQL literal for a schema default (numbers, booleans, strings, logical types)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, decimal.Decimal)):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return "'\\x" + bytes(value).hex() + "'"
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.UTC).replace(tzinfo=None)
        return "'" + value.isoformat(sep=" ") + "'"
    if isinstance(value, (_dt.date, _dt.time)):
        return "'" + value.isoformat() + "'"
    return "'" + str(value).replace("'", "''") + "'"


def _column_spec(
    dialect: str, rules: IdentifierRules, col: Column, is_pk: bool, as_timestamp: bool
) -> str:
    assert col.schema is not None
    spec = f"{rules.quote(col.name)} {column_type(dialect, col.schema, as_timestamp)}"
    default = col.schema.default_value
    if default is not None:
        spec += " DEFAULT " + _default_literal(col.schema, default)
    elif is_pk or not col.schema.optional:
        spec += " NOT NULL"
    else:
        spec += " NULL"
    return spec


def create_table_statement(
    dialect: str,
    rules: IdentifierRules,
    table: TableId,
    columns: Sequence[Column],
    key_names: Sequence[str],
    timestamp_fields: frozenset[str] = frozenset(),
) -> str:
    """``CREATE TABLE t (… , PRIMARY KEY(k…))`` for a schema'd record's columns."""
    keys = set(key_names)
    lines = [
        _column_spec(dialect, rules, c, c.name in keys, c.name in timestamp_fields) for c in columns
    ]
    if key_names:
        lines.append("PRIMARY KEY(" + ",".join(rules.quote(k) for k in key_names) + ")")
    return f"CREATE TABLE {rules.quote_table(table)} (\n" + ",\n".join(lines) + ")"


def alter_table_statements(
    dialect: str,
    rules: IdentifierRules,
    table: TableId,
    missing: Sequence[Column],
    timestamp_fields: frozenset[str] = frozenset(),
) -> list[str]:
    """``ALTER TABLE t ADD …`` for missing columns: one statement on PostgreSQL, one per
    column on SQLite (which adds one column per ALTER)."""
    specs = [_column_spec(dialect, rules, c, False, c.name in timestamp_fields) for c in missing]
    t = rules.quote_table(table)
    if dialect == SQLITE:
        return [f"ALTER TABLE {t} ADD {s}" for s in specs]
    return [f"ALTER TABLE {t} " + ",\n".join("ADD " + s for s in specs)]
