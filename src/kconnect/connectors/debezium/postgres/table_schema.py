"""A captured table's records as Debezium names and shapes them (``TableSchemaBuilder``): the
topic ``<prefix>.<schema>.<table>``, the key schema ``<topic>.Key`` (the key columns; none: no
key), the value schema ``<topic>.Value`` (every captured column in table order, optional) and the
envelope ``<topic>.Envelope``; and a row's text turned into the key and value structs.

A :class:`TableSchema` is built once per table and each time its structure changes (a snapshot's
catalog read, a pgoutput Relation message); building records from it is pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.connectors.debezium.common.envelope import envelope_schema, envelope_schema_name
from kconnect.connectors.debezium.postgres.catalog import Table
from kconnect.connectors.debezium.postgres.column_mapping import (
    ColumnMapping,
    ColumnText,
    map_column,
)
from kconnect.connectors.debezium.postgres.source_info import SOURCE_SCHEMA
from kconnect.connectors.debezium.postgres.text_values import ValueOptions

__all__ = ["TableSchema", "build_table_schema", "topic_name"]

_INVALID_TOPIC_CHARS = re.compile(r"[^A-Za-z0-9._-]")
#: Kafka's longest topic name.
_MAX_TOPIC_LENGTH = 249


def topic_name(prefix: str, schema: str, table: str, delimiter: str = ".") -> str:
    """``<prefix>.<schema>.<table>`` (empty parts left out), every character Kafka does not
    allow in a topic name replaced by ``_``, cut at 249 characters."""
    name = delimiter.join(p for p in (prefix, schema, table) if p)
    name = _INVALID_TOPIC_CHARS.sub("_", name)[:_MAX_TOPIC_LENGTH]
    if name in (".", ".."):
        name = name.replace(".", "_")
    return name


@dataclass(frozen=True, slots=True)
class TableSchema:
    """The schemas of one table's records and how a row's text becomes its key and value.

    ``fields``: the captured columns' mappings in table order, each with the index of its
    text in a full row (all of the table's columns in table order); ``key_fields``: the
    same for the key columns, in key order (empty: records have no key)."""

    table: Table
    topic: str
    key_schema: Schema | None
    value_schema: Schema
    envelope_schema: Schema
    fields: tuple[tuple[int, ColumnMapping], ...]
    key_fields: tuple[tuple[int, ColumnMapping], ...]
    _value_plan: tuple[_Step, ...] = field(init=False, repr=False, compare=False)
    _key_plan: tuple[_Step, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_value_plan", _plan(self.fields))
        object.__setattr__(self, "_key_plan", _plan(self.key_fields))

    def value(self, row: Sequence[ColumnText]) -> Struct:
        """The value struct of a full row's text. Each value comes from its field's own
        parser, so the struct is built without per-field checks (``Struct.trusted``); the
        oracle test compares every field with Debezium's."""
        return Struct.trusted(self.value_schema, _values(self._value_plan, row))

    def key(self, row: Sequence[ColumnText]) -> Struct | None:
        """The key struct of a full row's text (None when the table has no key)."""
        if self.key_schema is None:
            return None
        return Struct.trusted(self.key_schema, _values(self._key_plan, row))


#: A field's step in a row: its text's index, the parser of a text, and
#: :meth:`ColumnMapping.value` for the rest (NULL, an unchanged TOASTed value).
_Step = tuple[int, Callable[[str], Any], Callable[[ColumnText], Any]]


def _plan(fields: tuple[tuple[int, ColumnMapping], ...]) -> tuple[_Step, ...]:
    return tuple((i, m.parser, m.value) for i, m in fields)


def _values(plan: tuple[_Step, ...], row: Sequence[ColumnText]) -> list[Any]:
    # what ColumnMapping.value does, with the parser called directly for a text: one call
    # per column instead of two on the snapshot's and the stream's hot path
    return [
        parse(text) if (text := row[i]).__class__ is str else other(text)
        for i, parse, other in plan
    ]


def build_table_schema(
    table: Table,
    prefix: str,
    options: ValueOptions,
    *,
    keep_column: Callable[[str], bool] | None = None,
    key_columns: Sequence[str] | None = None,
) -> TableSchema:
    """The table's record schemas. ``keep_column`` decides on ``schema.table.column`` names
    (``column.include.list``/``exclude.list``); ``key_columns`` replaces the table's own key
    (``message.key.columns``). Columns of types Debezium has no mapping for are left out."""
    topic = topic_name(prefix, table.id.schema, table.id.table)
    mapped: list[tuple[int, ColumnMapping]] = []
    for i, column in enumerate(table.columns):
        if keep_column is not None and not keep_column(f"{table.id}.{column.name}"):
            continue
        mapping = map_column(column, options)
        if mapping is not None:
            mapped.append((i, mapping))
    value_builder = SchemaBuilder.struct().name(f"{topic}.Value").optional()
    for _, mapping in mapped:
        value_builder.field(mapping.column.name, mapping.schema)
    value_schema = value_builder.build()

    by_name = {m.column.name: (i, m) for i, m in mapped}
    names = table.key_columns if key_columns is None else tuple(key_columns)
    key_fields = tuple(by_name[n] for n in names if n in by_name)
    key_schema: Schema | None = None
    if key_fields:
        key_builder = SchemaBuilder.struct().name(f"{topic}.Key")
        for _, mapping in key_fields:
            key_builder.field(mapping.column.name, mapping.schema)
        key_schema = key_builder.build()
    envelope = envelope_schema(envelope_schema_name(topic), value_schema, SOURCE_SCHEMA)
    return TableSchema(table, topic, key_schema, value_schema, envelope, tuple(mapped), key_fields)
