"""Which columns a record writes, and how to read their values: Confluent's ``FieldsMetadata``.

:func:`fields_metadata` is called by :class:`~kconnect.connectors.jdbc.sink.buffered_records.BufferedRecords`
on the task thread each time a table's key or value schema changes (so once per schema, not
per record). It decides the key (primary key) columns from ``pk.mode``/``pk.fields`` and the
other columns from the value schema filtered by ``fields.whitelist``, exactly as Confluent
does, and also accepts schemaless records (``dict`` values, from a JsonConverter with
``schemas.enable=false``), whose columns are the dict's keys.

Errors are :class:`ConnectException` naming the table and the offending field; they are
configuration/data problems that retrying cannot fix.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from kconnect.api import ConnectException, Schema, SinkRecord, Type
from kconnect.connectors.jdbc.sink.sink_config import JdbcSinkConfig, PrimaryKeyMode

__all__ = ["Column", "FieldsMetadata", "fields_metadata"]

_KAFKA_SCHEMAS = (Schema.STRING_SCHEMA, Schema.INT32_SCHEMA, Schema.INT64_SCHEMA)


@dataclasses.dataclass(frozen=True)
class Column:
    """One column a record writes: its name and its Connect schema (None when schemaless)."""

    name: str
    schema: Schema | None
    is_key: bool


@dataclasses.dataclass(frozen=True)
class FieldsMetadata:
    """Key columns (in ``pk.fields``/schema order) and non-key columns (value-schema order).

    ``schemaless`` is True when the value (and key, if used) carry no schema: column types come
    from the existing table then, and the table cannot be created or evolved.
    """

    key_columns: tuple[Column, ...]
    value_columns: tuple[Column, ...]
    schemaless: bool

    @property
    def columns(self) -> tuple[Column, ...]:
        """All written columns: key columns first, as in Confluent's INSERT statements."""
        return self.key_columns + self.value_columns

    create_columns: tuple[Column, ...] = ()
    """Column order for CREATE TABLE (Confluent's ``allFields``): Kafka coordinates, then
    value-schema order, then key-only fields sorted by name."""


def fields_metadata(config: JdbcSinkConfig, table: str, record: SinkRecord) -> FieldsMetadata:
    """The columns ``record`` (and every later record with the same schemas) writes.

    Raises:
        ConnectException: key/value not usable with this ``pk.mode``/``pk.fields``; the
            message names the table, the mode and the field.
    """
    value_schema = record.value_schema
    value = record.value
    schemaless_value = value_schema is None and isinstance(value, Mapping)
    if value_schema is not None and value_schema.type is not Type.STRUCT:
        raise ConnectException(
            f"Table '{table}': the record value schema must be a STRUCT, it is "
            f"{value_schema.type.name} ({_where(record)})"
        )
    value_fields: dict[str, Schema | None] = {}
    if value_schema is not None:
        value_fields = {f.name: f.schema for f in value_schema.fields}
    elif schemaless_value:
        value_fields = dict.fromkeys(value)

    key_columns: list[Column] = []
    mode = config.pk_mode
    if mode is PrimaryKeyMode.KAFKA:
        key_columns = [
            Column(n, s, True) for n, s in zip(config.kafka_pk_names(), _KAFKA_SCHEMAS, strict=True)
        ]
    elif mode is PrimaryKeyMode.RECORD_KEY:
        key_columns = _record_key_columns(config, table, record)
    elif mode is PrimaryKeyMode.RECORD_VALUE:
        if value_schema is None and not schemaless_value:
            raise ConnectException(
                f"Table '{table}': pk.mode is record_value but the record has no value "
                f"({_where(record)})"
            )
        names = config.pk_fields or list(value_fields)
        for n in names:
            if n not in value_fields:
                raise ConnectException(
                    f"Table '{table}': PK mode is record_value with configured PK field '{n}', "
                    f"but the record value has no such field; its fields are "
                    f"{sorted(value_fields)} ({_where(record)})"
                )
        key_columns = [Column(n, value_fields[n], True) for n in names]

    key_names = {c.name for c in key_columns}
    whitelist = config.fields_whitelist
    value_columns = tuple(
        Column(n, s, False)
        for n, s in value_fields.items()
        if n not in key_names and (not whitelist or n in whitelist)
    )
    for c in (*key_columns, *value_columns):
        if c.schema is not None and c.schema.type in (Type.STRUCT, Type.MAP):
            raise ConnectException(
                f"Table '{table}': field '{c.name}' is a {c.schema.type.name}, which has no "
                "mapping to a SQL column type; flatten it first (e.g. with the Flatten SMT) "
                f"({_where(record)})"
            )
    schemaless = value_schema is None and (
        schemaless_value or mode is not PrimaryKeyMode.RECORD_KEY or record.key_schema is None
    )
    by_name = {c.name: c for c in (*key_columns, *value_columns)}
    create: list[Column] = list(key_columns) if mode is PrimaryKeyMode.KAFKA else []
    create += [by_name[n] for n in value_fields if n in by_name]
    done = {c.name for c in create}
    create += [by_name[n] for n in sorted(key_names) if n not in done]
    return FieldsMetadata(tuple(key_columns), value_columns, schemaless, tuple(create))


def _record_key_columns(config: JdbcSinkConfig, table: str, record: SinkRecord) -> list[Column]:
    key_schema = record.key_schema
    key = record.key
    if key is None and key_schema is None:
        raise ConnectException(
            f"Table '{table}': PK mode is record_key but the record has a null key and no key "
            f"schema ({_where(record)})"
        )
    fields: dict[str, Schema | None]
    if key_schema is not None and key_schema.type is Type.STRUCT:
        fields = {f.name: f.schema for f in key_schema.fields}
    elif key_schema is None and isinstance(key, Mapping):
        fields = dict.fromkeys(key)
    else:
        # A primitive key (with or without schema) is one column.
        if len(config.pk_fields) != 1:
            raise ConnectException(
                f"Table '{table}': need exactly one PK column defined since the key schema for "
                f"records is a primitive type, defined columns are: {config.pk_fields} "
                f"({_where(record)})"
            )
        return [Column(config.pk_fields[0], key_schema, True)]
    names = config.pk_fields or list(fields)
    for n in names:
        if n not in fields:
            raise ConnectException(
                f"Table '{table}': PK mode is record_key with configured PK field '{n}', but the "
                f"record key has no such field; its fields are {sorted(fields)} ({_where(record)})"
            )
    return [Column(n, fields[n], True) for n in names]


def _where(record: SinkRecord) -> str:
    return (
        f"topic '{record.topic}', partition {record.kafka_partition}, offset {record.kafka_offset}"
    )


def record_where(record: SinkRecord) -> str:
    """``topic 't', partition 0, offset 5``: how every error names a record."""
    return _where(record)
