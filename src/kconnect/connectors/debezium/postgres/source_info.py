"""The ``source`` block of Debezium's PostgreSQL records (``io.debezium.connector.postgresql.Source``).

Schema version 1, required, fields in this order:

====  ==============  =======================================  ==================================
 #    field           schema                                   value
====  ==============  =======================================  ==================================
 1    ``version``     STRING                                   ``3.6.1.Final``
 2    ``connector``   STRING                                   ``postgresql``
 3    ``name``        STRING                                   ``topic.prefix``
 4    ``ts_ms``       INT64                                    event time (commit / snapshot)
 5    ``snapshot``    ``io.debezium.data.Enum``, optional,     a :class:`SnapshotRecord` value,
                      default ``"false"``                      put only when not ``false``
 6    ``db``          STRING                                   ``database.dbname``
 7    ``sequence``    STRING, optional                         ``["<last commit>","<lsn>"]``
 8    ``ts_us``       INT64, optional                          event time in µs
 9    ``ts_ns``       INT64, optional                          event time in ns
10    ``schema``      STRING                                   table schema
11    ``table``       STRING                                   table name
12    ``txId``        INT64, optional                          transaction id
13    ``lsn``         INT64, optional                          the change's LSN
14    ``xmin``        INT64, optional                          slot xmin (``xmin.fetch.interval.ms``)
15    ``origin``      STRING, optional                         replication origin name
16    ``origin_lsn``  INT64, optional                          the origin's commit LSN
====  ==============  =======================================  ==================================

``txId``, ``lsn`` and ``xmin`` are left out of incremental-snapshot records. A streaming
record leaves ``snapshot`` unset, so ``Struct.get`` (and the JSON converter) yield the default
``"false"``.

:class:`SourceInfo` is mutable and owned by one task thread: the snapshot and streaming code
update it before each record and call :meth:`SourceInfo.struct`.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.connectors.debezium.common.semantic_types import enum_builder

__all__ = [
    "CONNECTOR",
    "DEBEZIUM_VERSION",
    "SOURCE_SCHEMA",
    "SOURCE_SCHEMA_NAME",
    "SnapshotRecord",
    "SourceInfo",
    "sequence_text",
    "snapshot_marker",
    "snapshot_record_schema",
    "source_schema",
]

#: The Debezium release whose records this connector reproduces (``Module.version()``).
DEBEZIUM_VERSION = "3.6.1.Final"
CONNECTOR = "postgresql"
SOURCE_SCHEMA_NAME = "io.debezium.connector.postgresql.Source"


class SnapshotRecord(enum.Enum):
    """Where a record stands in a snapshot (``io.debezium.connector.SnapshotRecord``); the value
    is what ``source.snapshot`` holds. The declaration order is the ``allowed`` list's order."""

    TRUE = "true"
    FIRST = "first"
    FIRST_IN_DATA_COLLECTION = "first_in_data_collection"
    LAST_IN_DATA_COLLECTION = "last_in_data_collection"
    LAST = "last"
    FALSE = "false"
    INCREMENTAL = "incremental"


def snapshot_marker(
    first_table: bool, last_table: bool, first_in_table: bool, last_in_table: bool
) -> SnapshotRecord:
    """The marker of a snapshot row, by precedence: last of the snapshot ``LAST``, first of the
    snapshot ``FIRST``, last of its table ``LAST_IN_DATA_COLLECTION``, first of its table
    ``FIRST_IN_DATA_COLLECTION``, else ``TRUE``. (Debezium also rewrites the very last record
    it emits to ``LAST`` even when the last table is empty; that is the emitter's job.)"""
    if last_in_table and last_table:
        return SnapshotRecord.LAST
    if first_in_table and first_table:
        return SnapshotRecord.FIRST
    if last_in_table:
        return SnapshotRecord.LAST_IN_DATA_COLLECTION
    if first_in_table:
        return SnapshotRecord.FIRST_IN_DATA_COLLECTION
    return SnapshotRecord.TRUE


def snapshot_record_schema() -> Schema:
    """``source.snapshot``: ``io.debezium.data.Enum`` v1 listing every :class:`SnapshotRecord`,
    default ``"false"``, optional."""
    return (
        enum_builder([r.value for r in SnapshotRecord])
        .default_value(SnapshotRecord.FALSE.value)
        .optional()
        .build()
    )


def source_schema() -> Schema:
    """The ``io.debezium.connector.postgresql.Source`` schema (version 1, required)."""
    return (
        SchemaBuilder.struct()
        .name(SOURCE_SCHEMA_NAME)
        .version(1)
        .field("version", Schema.STRING_SCHEMA)
        .field("connector", Schema.STRING_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.INT64_SCHEMA)
        .field("snapshot", snapshot_record_schema())
        .field("db", Schema.STRING_SCHEMA)
        .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
        .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
        .field("schema", Schema.STRING_SCHEMA)
        .field("table", Schema.STRING_SCHEMA)
        .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
        .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
        .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
        .field("origin", Schema.OPTIONAL_STRING_SCHEMA)
        .field("origin_lsn", Schema.OPTIONAL_INT64_SCHEMA)
        .build()
    )


SOURCE_SCHEMA = source_schema()


def sequence_text(last_commit_lsn: int | None, lsn: int | None) -> str:
    """``source.sequence``: the JSON array of the last commit LSN and this LSN as decimal
    strings, JSON ``null`` where unknown, no spaces (``["100","200"]``, ``[null,"23456"]``)."""
    # decimal strings need no JSON escaping: the text json.dumps would write, without it
    first = "null" if last_commit_lsn is None else f'"{last_commit_lsn}"'
    second = "null" if lsn is None else f'"{lsn}"'
    return f"[{first},{second}]"


class SourceInfo:
    """The values behind the ``source`` block, updated in place as events are read.

    ``timestamp_ns`` is the event time (commit time when streaming, the snapshot transaction's
    start when snapshotting) as epoch nanoseconds; when unknown, :meth:`struct` uses the clock.
    LSNs are 64-bit positions as ints.
    """

    __slots__ = (
        "clock_ns",
        "db_name",
        "last_commit_lsn",
        "lsn",
        "origin",
        "origin_lsn",
        "schema_name",
        "server_name",
        "snapshot",
        "table_name",
        "timestamp_ns",
        "tx_id",
        "xmin",
    )

    def __init__(
        self, server_name: str, db_name: str, clock_ns: Callable[[], int] = time.time_ns
    ) -> None:
        self.server_name = server_name
        self.db_name = db_name
        self.clock_ns = clock_ns
        self.timestamp_ns: int | None = None
        self.snapshot: SnapshotRecord = SnapshotRecord.FALSE
        self.schema_name = ""
        self.table_name = ""
        self.tx_id: int | None = None
        self.lsn: int | None = None
        self.last_commit_lsn: int | None = None
        self.xmin: int | None = None
        self.origin: str | None = None
        self.origin_lsn: int | None = None

    def sequence(self) -> str:
        """``source.sequence`` for the current LSNs (:func:`sequence_text`)."""
        return sequence_text(self.last_commit_lsn, self.lsn)

    def struct(self) -> Struct:
        """The ``source`` struct for the current values (``PostgresSourceInfoStructMaker``)."""
        return Struct.trusted(SOURCE_SCHEMA, self.values())

    def values(self) -> list[object]:
        """The ``source`` struct's values for the current values, in field order."""
        ts = self.timestamp_ns if self.timestamp_ns is not None else self.clock_ns()
        values: list[object] = [
            DEBEZIUM_VERSION,
            CONNECTOR,
            self.server_name,
            ts // 1_000_000,
            None if self.snapshot is SnapshotRecord.FALSE else self.snapshot.value,
            self.db_name,
            self.sequence(),
            ts // 1_000,
            ts,
            self.schema_name,
            self.table_name,
            None,
            None,
            None,
            self.origin,
            self.origin_lsn,
        ]
        if self.snapshot is not SnapshotRecord.INCREMENTAL:
            values[11] = self.tx_id
            values[12] = self.lsn
            values[13] = self.xmin
        return values
