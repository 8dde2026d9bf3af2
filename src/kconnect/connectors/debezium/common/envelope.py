"""Debezium's change-event envelope (``io.debezium.data.Envelope``) and its transaction block.

The value of every data-change record is a ``<topic>.Envelope`` struct, version 2, with the
fields, in this order:

==============  =====================================  =====================================
field           schema                                 value
==============  =====================================  =====================================
``before``      the table's ``…Value`` schema          row before the change (u, d) or null
``after``       the same schema                        row after the change (r, c, u) or null
``source``      the connector's ``Source`` (required)  where and when the change happened
``transaction`` ``event.block`` v1, optional           set with ``provide.transaction.metadata``
``op``          STRING, required                       an :class:`Operation` code
``ts_ms``       INT64, optional                        when the connector built the record
``ts_us``       INT64, optional                        the same in microseconds
``ts_ns``       INT64, optional                        the same in nanoseconds
==============  =====================================  =====================================

The ``ts_*`` fields are the connector's clock (``Instant.now()``), not the commit time; the
builders here take that instant as epoch nanoseconds so the caller injects the clock.

Pure functions, safe from any thread.
"""

from __future__ import annotations

import enum

from kconnect.api import Schema, SchemaBuilder, Struct

__all__ = [
    "ENVELOPE_SCHEMA_VERSION",
    "ENVELOPE_SUFFIX",
    "TRANSACTION_BLOCK_SCHEMA",
    "Operation",
    "create",
    "delete",
    "envelope_schema",
    "envelope_schema_name",
    "read",
    "transaction_block",
    "transaction_block_schema",
    "truncate",
    "update",
]

ENVELOPE_SCHEMA_VERSION = 2
ENVELOPE_SUFFIX = ".Envelope"


class Operation(enum.Enum):
    """The ``op`` codes of ``Envelope.Operation``."""

    READ = "r"
    CREATE = "c"
    UPDATE = "u"
    DELETE = "d"
    TRUNCATE = "t"
    MESSAGE = "m"

    @classmethod
    def for_code(cls, code: str | None) -> Operation | None:
        """The operation of a code, case-insensitive (``Operation.forCode``); None if unknown."""
        if code is None:
            return None
        try:
            return cls(code.lower())
        except ValueError:
            return None


def transaction_block_schema() -> Schema:
    """``event.block`` v1, optional: ``id`` STRING, ``total_order`` INT64,
    ``data_collection_order`` INT64 (all required inside the block)."""
    return (
        SchemaBuilder.struct()
        .optional()
        .name("event.block")
        .version(1)
        .field("id", Schema.STRING_SCHEMA)
        .field("total_order", Schema.INT64_SCHEMA)
        .field("data_collection_order", Schema.INT64_SCHEMA)
        .build()
    )


TRANSACTION_BLOCK_SCHEMA = transaction_block_schema()


def transaction_block(tx_id: str, total_order: int, data_collection_order: int) -> Struct:
    """The ``transaction`` field's value: the transaction id (PostgreSQL: the xid as decimal
    text), the event's position in the transaction and in its table, both counted from 1."""
    return (
        Struct(TRANSACTION_BLOCK_SCHEMA)
        .put("id", tx_id)
        .put("total_order", total_order)
        .put("data_collection_order", data_collection_order)
    )


def envelope_schema_name(topic: str) -> str:
    """``Envelope.schemaName``: the topic name plus ``.Envelope``."""
    return topic + ENVELOPE_SUFFIX


def envelope_schema(name: str, value_schema: Schema, source_schema: Schema) -> Schema:
    """The envelope schema named ``name`` (see :func:`envelope_schema_name`) for rows of
    ``value_schema`` (the optional ``…Value`` struct) and the connector's ``source_schema``."""
    return (
        SchemaBuilder.struct()
        .name(name)
        .version(ENVELOPE_SCHEMA_VERSION)
        .field("before", value_schema)
        .field("after", value_schema)
        .field("source", source_schema)
        .field("transaction", TRANSACTION_BLOCK_SCHEMA)
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
        .build()
    )


def _envelope(
    schema: Schema,
    op: Operation,
    before: Struct | None,
    after: Struct | None,
    source: Struct | None,
    timestamp_ns: int | None,
    transaction: Struct | None,
) -> Struct:
    # Fields in the envelope's order (see envelope_schema); the parts are structs of the
    # schema's own field schemas, so no per-field check is made (Struct.trusted).
    if timestamp_ns is None:
        ts_ms = ts_us = None
    else:  # Instant.toEpochMilli and epochSecond * 10^6 + nano / 10^3: both floor the instant.
        ts_ms, ts_us = timestamp_ns // 1_000_000, timestamp_ns // 1_000
    return Struct.trusted(
        schema, [before, after, source, transaction, op.value, ts_ms, ts_us, timestamp_ns]
    )


def read(
    schema: Schema,
    after: Struct,
    source: Struct,
    timestamp_ns: int | None,
    transaction: Struct | None = None,
) -> Struct:
    """A snapshot read (``op`` ``r``): ``after`` is the row."""
    return _envelope(schema, Operation.READ, None, after, source, timestamp_ns, transaction)


def create(
    schema: Schema,
    after: Struct,
    source: Struct,
    timestamp_ns: int | None,
    transaction: Struct | None = None,
) -> Struct:
    """An insert (``op`` ``c``): ``after`` is the new row."""
    return _envelope(schema, Operation.CREATE, None, after, source, timestamp_ns, transaction)


def update(
    schema: Schema,
    before: Struct | None,
    after: Struct,
    source: Struct,
    timestamp_ns: int | None,
    transaction: Struct | None = None,
) -> Struct:
    """An update (``op`` ``u``): ``before`` is the old row when known (replica identity), else
    null; ``after`` is the new row."""
    return _envelope(schema, Operation.UPDATE, before, after, source, timestamp_ns, transaction)


def delete(
    schema: Schema,
    before: Struct | None,
    source: Struct,
    timestamp_ns: int | None,
    transaction: Struct | None = None,
) -> Struct:
    """A delete (``op`` ``d``): ``before`` is the old row (its key columns at least), ``after``
    stays null."""
    return _envelope(schema, Operation.DELETE, before, None, source, timestamp_ns, transaction)


def truncate(
    schema: Schema,
    source: Struct,
    timestamp_ns: int,
    transaction: Struct | None = None,
) -> Struct:
    """A truncate (``op`` ``t``): no row; source and timestamps are required."""
    return _envelope(schema, Operation.TRUNCATE, None, None, source, timestamp_ns, transaction)
