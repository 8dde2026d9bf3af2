"""A captured table's records as Debezium names and shapes them (``TableSchemaBuilder``): the
topic ``<prefix>.<schema>.<table>``, the key schema ``<topic>.Key`` (the key columns; none: no
key), the value schema ``<topic>.Value`` (every captured column in table order, optional) and the
envelope ``<topic>.Envelope``; and a row's text turned into the key and value structs.

A :class:`TableSchema` is built once per table and each time its structure changes (a snapshot's
catalog read, a pgoutput Relation message); building records from it is pure. A row's texts
become its values once, through the compiled decoder (``kconnect_native.PgRowDecoder``, which
reads whole pgoutput change messages too) when the native hot path is on, else through the
columns' parsers -- the reference, which the decoder calls for every text it does not read
itself.
"""

from __future__ import annotations

import decimal
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect._hot_path import native
from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.connectors.debezium.common.envelope import envelope_schema, envelope_schema_name
from kconnect.connectors.debezium.postgres.catalog import Table
from kconnect.connectors.debezium.postgres.column_mappers import ColumnMappers
from kconnect.connectors.debezium.postgres.column_mapping import (
    UNCHANGED_TOAST,
    ColumnMapping,
    ColumnText,
    map_column,
)
from kconnect.connectors.debezium.postgres.source_info import SOURCE_SCHEMA
from kconnect.connectors.debezium.postgres.text_values import ValueOptions

__all__ = ["Row", "TableSchema", "build_table_schema", "topic_name"]

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


Row = list[Any]
"""A row's values, one per table column in table order: a captured column's value (what its
NULL becomes for a NULL), None for a column that is not captured, :data:`UNCHANGED_TOAST` for
an unchanged TOASTed value that was not sent (until :meth:`TableSchema.available`)."""


@dataclass(frozen=True, slots=True)
class TableSchema:
    """The schemas of one table's records and how a row's text becomes its key and value.

    ``fields``: the captured columns' mappings in table order, each with the index of its
    text in a full row (all of the table's columns in table order); ``key_fields``: the
    same for the key columns, in key order (empty: records have no key).

    A row's text becomes a :data:`Row` once (:meth:`row`; :meth:`change` for a pgoutput
    message, on the compiled path), and the key and value structs are made from it."""

    table: Table
    topic: str
    key_schema: Schema | None
    value_schema: Schema
    envelope_schema: Schema
    fields: tuple[tuple[int, ColumnMapping], ...]
    key_fields: tuple[tuple[int, ColumnMapping], ...]
    #: column masks and truncations: (position in the value struct, what they do to a value)
    value_mappers: tuple[tuple[int, Callable[[Any], Any]], ...] = ()
    _plan: tuple[tuple[Callable[[str], Any], Any], ...] = field(
        init=False, repr=False, compare=False
    )
    _unavailable: tuple[Any, ...] = field(init=False, repr=False, compare=False)
    _value_of: Callable[[Row], list[Any]] = field(init=False, repr=False, compare=False)
    _key_of: Callable[[Row], list[Any]] = field(init=False, repr=False, compare=False)
    _decoder: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        width = len(self.table.columns)
        by_index = dict(self.fields)
        plan = tuple((m.parser, m.null) if (m := by_index.get(i)) else (_ignore, None)
                     for i in range(width))  # fmt: skip
        unavailable = tuple(m.unavailable if (m := by_index.get(i)) else None
                            for i in range(width))  # fmt: skip
        object.__setattr__(self, "_plan", plan)
        object.__setattr__(self, "_unavailable", unavailable)
        object.__setattr__(self, "_value_of", _picker([i for i, _ in self.fields], width))
        object.__setattr__(self, "_key_of", _picker([i for i, _ in self.key_fields], width))
        decoder = None
        if native is not None:
            specs = [(*m.text_kind, m.parser, m.null) if (m := by_index.get(i)) else None
                     for i in range(width)]  # fmt: skip
            decoder = native.PgRowDecoder(specs, UNCHANGED_TOAST, decimal.Decimal)
        object.__setattr__(self, "_decoder", decoder)

    def row(self, texts: Sequence[ColumnText]) -> Row:
        """The values of a full row's texts (every column, in table order)."""
        if self._decoder is not None:
            return self._decoder.row(texts)  # type: ignore[no-any-return]
        return [
            parse(text) if text.__class__ is str else null if text is None else text
            for (parse, null), text in zip(self._plan, texts, strict=True)
        ]

    def change(self, payload: bytes) -> tuple[str | None, Row | None, Row | None] | None:
        """A pgoutput Insert, Update or Delete of this table, read whole by the compiled
        decoder: the old tuple's kind (``K``, ``O`` or None), the old row and the new row (None
        where the message has none). None when the compiled path is off or leaves the message
        to :func:`~kconnect.connectors.debezium.postgres.replication.pgoutput.decode`."""
        if self._decoder is None:
            return None
        return self._decoder.change(payload)  # type: ignore[no-any-return]

    def available(self, row: Row) -> Row:
        """``row`` with each :data:`UNCHANGED_TOAST` replaced by its column's
        ``unavailable.value.placeholder`` value."""
        return [
            u if v is UNCHANGED_TOAST else v for v, u in zip(row, self._unavailable, strict=True)
        ]

    def value(self, row: Row) -> Struct:
        """The value struct of a row. Each value comes from its field's own parser, so the
        struct is built without per-field checks (``Struct.trusted``); the oracle test
        compares every field with Debezium's."""
        values = self._value_of(row)
        for index, mapper in self.value_mappers:
            values[index] = mapper(values[index])
        return Struct.trusted(self.value_schema, values)

    def key(self, row: Row) -> Struct | None:
        """The key struct of a row (None when the table has no key)."""
        if self.key_schema is None:
            return None
        return Struct.trusted(self.key_schema, self._key_of(row))


def _ignore(text: str) -> None:
    """The 'parser' of a column that is not captured."""
    return None


def _picker(indexes: list[int], width: int) -> Callable[[Row], list[Any]]:
    """A function giving the values at ``indexes`` of a row of ``width`` columns, as a new
    list."""
    if indexes == list(range(width)):
        return list
    if len(indexes) == 1:
        (only,) = indexes
        return lambda row: [row[only]]
    if not indexes:
        return lambda row: []
    get = operator.itemgetter(*indexes)
    return lambda row: list(get(row))


def build_table_schema(
    table: Table,
    prefix: str,
    options: ValueOptions,
    *,
    keep_column: Callable[[str], bool] | None = None,
    key_columns: Sequence[str] | None = None,
    mappers: ColumnMappers | None = None,
) -> TableSchema:
    """The table's record schemas. ``keep_column`` decides on ``schema.table.column`` names
    (``column.include.list``/``exclude.list``); ``key_columns`` replaces the table's own key
    (``message.key.columns``); ``mappers`` mask and truncate value fields (``column.mask.*``,
    ``column.truncate.*``; keys keep the real values). Columns of types Debezium has no mapping
    for are left out."""
    topic = topic_name(prefix, table.id.schema, table.id.table)
    mapped: list[tuple[int, ColumnMapping]] = []
    plain: dict[str, tuple[int, ColumnMapping]] = {}  # the key's fields: never masked
    value_mappers: list[tuple[int, Callable[[Any], Any]]] = []
    for i, column in enumerate(table.columns):
        if keep_column is not None and not keep_column(f"{table.id}.{column.name}"):
            continue
        mapping = map_column(column, options)
        if mapping is None:
            continue
        plain[column.name] = (i, mapping)
        mapper = mappers.mapper_for(f"{table.id}.{column.name}") if mappers else None
        if mapper is not None:
            parameters = mapper.parameters(column)
            if parameters:
                altered = map_column(column, options, parameters)
                assert altered is not None
                mapping = altered
            function = mapper.value_function(column)
            if function is not None:
                value_mappers.append((len(mapped), function))
        mapped.append((i, mapping))
    value_builder = SchemaBuilder.struct().name(f"{topic}.Value").optional()
    for _, mapping in mapped:
        value_builder.field(mapping.column.name, mapping.schema)
    value_schema = value_builder.build()

    names = table.key_columns if key_columns is None else tuple(key_columns)
    key_fields = tuple(plain[n] for n in names if n in plain)
    key_schema: Schema | None = None
    if key_fields:
        key_builder = SchemaBuilder.struct().name(f"{topic}.Key")
        for _, mapping in key_fields:
            key_builder.field(mapping.column.name, mapping.schema)
        key_schema = key_builder.build()
    envelope = envelope_schema(envelope_schema_name(topic), value_schema, SOURCE_SCHEMA)
    return TableSchema(table, topic, key_schema, value_schema, envelope, tuple(mapped), key_fields,
                       tuple(value_mappers))  # fmt: skip
