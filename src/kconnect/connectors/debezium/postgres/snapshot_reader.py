"""The rows of a snapshot, read as Debezium reads them: in one transaction that sees the database
as of the replication slot's start (the slot's exported snapshot, when this run created the
slot), table after table, every column as PostgreSQL's text output -- the same text pgoutput
streams, so one set of parsers turns both into values.

Lifecycle: :func:`begin_snapshot` on a fresh connection (not in autocommit mode) →
:func:`snapshot_position` → :func:`read_rows` per table → ``conn.rollback()``.
"""

from __future__ import annotations

import enum
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.connectors.debezium.postgres.catalog import Table
from kconnect.connectors.debezium.postgres.publication import quote_identifier
from kconnect.connectors.debezium.postgres.replication.protocol import parse_lsn

__all__ = [
    "SnapshotIsolation",
    "SnapshotPosition",
    "begin_snapshot",
    "read_rows",
    "snapshot_position",
]

#: Session settings that make PostgreSQL's text output what the parsers expect (pgjdbc sets
#: the same on its connections; the time zone only changes how ``timestamptz`` is written, not
#: the instant it stands for).
TEXT_SETTINGS = {
    "TimeZone": "UTC",
    "DateStyle": "ISO",
    "IntervalStyle": "postgres",
    "extra_float_digits": "3",
    "client_encoding": "UTF8",
}


class SnapshotIsolation(enum.Enum):
    """``snapshot.isolation.mode``: how a snapshot not tied to a new slot is isolated."""

    SERIALIZABLE = "serializable"
    REPEATABLE_READ = "repeatable_read"
    READ_COMMITTED = "read_committed"
    READ_UNCOMMITTED = "read_uncommitted"

    def statement(self) -> str:
        if self is SnapshotIsolation.SERIALIZABLE:
            return "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE"
        return "SET TRANSACTION ISOLATION LEVEL " + str(self.value).replace("_", " ").upper()


@dataclass(frozen=True, slots=True)
class SnapshotPosition:
    """Where the snapshot stands: the WAL position (the slot's consistent point when the slot
    was created for it), the snapshot transaction's id, and its start time (µs since 1970)."""

    lsn: int
    tx_id: int
    started_us: int


def begin_snapshot(
    conn: Any,
    exported: str | None,
    isolation: SnapshotIsolation = SnapshotIsolation.SERIALIZABLE,
) -> None:
    """Start the snapshot transaction: on the slot's ``exported`` snapshot (REPEATABLE READ, as
    PostgreSQL requires), else at ``isolation``. ``conn`` must not be in autocommit mode."""
    for name, value in TEXT_SETTINGS.items():
        conn.execute("SELECT set_config(%s, %s, false)", (name, value))
    conn.commit()
    if exported is not None:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        conn.execute(f"SET TRANSACTION SNAPSHOT '{exported}'")
    else:
        conn.execute(isolation.statement())


def snapshot_position(conn: Any, slot_point: int | None) -> SnapshotPosition:
    """The snapshot's position: ``slot_point`` (the consistent point of the slot created for
    it) or the server's current WAL position, with the transaction's id and start time."""
    row = conn.execute(
        "SELECT pg_current_wal_lsn()::text, pg_current_xact_id()::text::bigint, "
        "(extract(epoch FROM transaction_timestamp()) * 1000000)::bigint"
    ).fetchone()
    lsn = slot_point if slot_point is not None else parse_lsn(row[0])
    return SnapshotPosition(lsn, int(row[1]), int(row[2]))


def read_rows(
    conn: Any,
    table: Table,
    columns: Sequence[str] | None = None,
    tail: str = "",
    from_clause: str | None = None,
) -> Generator[tuple[str | None, ...], None, None]:
    """``table``'s rows in the snapshot, each a tuple of the ``columns``' text (None for NULL;
    all columns, in table order, by default). ``tail``: SQL after the ``FROM`` (a ``WHERE``,
    ``ORDER BY``, ``LIMIT``), literals inlined (COPY takes no parameters); ``from_clause``
    replaces ``FROM <table>`` (a sub-select whose columns are taken by name)."""
    names = [c.name for c in table.columns] if columns is None else list(columns)
    select = ", ".join(quote_identifier(n) for n in names)
    source = from_clause if from_clause is not None else f"FROM {table.id.quoted()}"
    query = f"SELECT {select} {source}{' ' + tail if tail else ''}"
    with (
        conn.cursor() as cur,
        cur.copy(f"COPY ({query}) TO STDOUT") as copy,
    ):
        yield from copy.rows()
