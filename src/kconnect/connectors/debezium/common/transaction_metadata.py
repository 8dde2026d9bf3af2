"""Debezium's transaction metadata (``provide.transaction.metadata``): the BEGIN and END events
on ``<topic.prefix>.transaction`` and the counters behind each change's ``transaction`` block.

Events (``TransactionMonitor``, schemas of ``SchemaFactory``):

* key ``io.debezium.connector.common.TransactionMetadataKey`` v1: ``id`` STRING;
* value ``io.debezium.connector.common.TransactionMetadataValue`` v1: ``status`` (``BEGIN`` /
  ``END``), ``id``, ``event_count`` (optional INT64, null on BEGIN), ``data_collections``
  (optional array of ``event.collection`` v1 structs ``{data_collection, event_count}``, one
  per table in Java ``HashMap`` order of the table names; null on BEGIN), ``ts_ms`` (the
  commit time, ms).

A :class:`TransactionContext` counts a transaction's events (tombstones aside), in total and per
table (``schema.table``), from 1; its offset keys (``transaction_id`` and one
``transaction_data_collection_order_<table>`` per table) go into each streamed offset while the
transaction runs, and a task resuming inside the transaction takes the counters back from them
(Debezium 3.6.1 and later: the replayed BEGIN then emits nothing). The id in events and blocks
is the connector's to format (PostgreSQL: ``<xid>:<lsn of the event>``).

Not thread-safe: one per task, on its thread.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.api.data.java_strings import in_hash_map_order
from kconnect.connectors.debezium.common.envelope import transaction_block

__all__ = [
    "EVENT_COLLECTION_SCHEMA",
    "TRANSACTION_KEY_SCHEMA",
    "TRANSACTION_VALUE_SCHEMA",
    "TransactionContext",
    "transaction_topic",
]

TRANSACTION_KEY_SCHEMA = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.TransactionMetadataKey")
    .version(1)
    .field("id", Schema.STRING_SCHEMA)
    .build()
)
EVENT_COLLECTION_SCHEMA = (
    SchemaBuilder.struct()
    .optional()
    .name("event.collection")
    .version(1)
    .field("data_collection", Schema.STRING_SCHEMA)
    .field("event_count", Schema.INT64_SCHEMA)
    .build()
)
TRANSACTION_VALUE_SCHEMA = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.TransactionMetadataValue")
    .version(1)
    .field("status", Schema.STRING_SCHEMA)
    .field("id", Schema.STRING_SCHEMA)
    .field("event_count", Schema.OPTIONAL_INT64_SCHEMA)
    .field("data_collections", SchemaBuilder.array(EVENT_COLLECTION_SCHEMA).optional().build())
    .field("ts_ms", Schema.INT64_SCHEMA)
    .build()
)


def transaction_topic(prefix: str, name: str = "transaction", delimiter: str = ".") -> str:
    """``<topic.prefix>.<topic.transaction>``."""
    return f"{prefix}{delimiter}{name}"


class TransactionContext:
    """The running transaction's id and event counts (``TransactionContext``)."""

    __slots__ = ("_orders", "_total", "transaction_id")

    def __init__(self) -> None:
        #: the running transaction's id as the offsets store it (PostgreSQL: the xid), or None
        self.transaction_id: str | None = None
        self._total = 0
        self._orders: dict[str, int] = {}

    @property
    def active(self) -> bool:
        return self.transaction_id is not None

    def begin(self, transaction_id: str) -> None:
        """A transaction starts: counting from nothing."""
        self.transaction_id = transaction_id
        self._total = 0
        self._orders = {}

    def restore(self, transaction_id: str, orders: Mapping[str, int]) -> None:
        """Resume inside ``transaction_id`` with the per-table counts of a stored offset (the
        total is their sum, as Debezium's ``TransactionContext.load`` has it)."""
        self.transaction_id = transaction_id
        self._orders = dict(orders)
        self._total = sum(self._orders.values())

    def end(self) -> None:
        self.transaction_id = None
        self._total = 0
        self._orders = {}

    def event(self, table: str, block_id: str) -> Struct:
        """Count one event of ``table``; its ``transaction`` block (``block_id`` is the id the
        connector gives the event)."""
        self._total += 1
        order = self._orders[table] = self._orders.get(table, 0) + 1
        return transaction_block(block_id, self._total, order)

    @property
    def orders(self) -> Mapping[str, int]:
        """The per-table counts so far, for the offset (the live counts: read, do not keep;
        ``streaming_offset`` copies them)."""
        return self._orders

    def begin_event(self, event_id: str, ts_ms: int) -> tuple[Struct, Struct]:
        """The key and value of the BEGIN event."""
        return _key(event_id), _value("BEGIN", event_id, None, None, ts_ms)

    def end_event(self, event_id: str, ts_ms: int) -> tuple[Struct, Struct]:
        """The key and value of the END event, with the counts."""
        collections = [
            Struct.trusted(EVENT_COLLECTION_SCHEMA, [table, count])
            for table, count in in_hash_map_order(dict(self._orders)).items()
        ]
        return _key(event_id), _value("END", event_id, self._total, collections, ts_ms)


def _key(event_id: str) -> Struct:
    return Struct.trusted(TRANSACTION_KEY_SCHEMA, [event_id])


def _value(
    status: str, event_id: str, count: int | None, collections: list[Struct] | None, ts_ms: int
) -> Struct:
    return Struct.trusted(TRANSACTION_VALUE_SCHEMA, [status, event_id, count, collections, ts_ms])
