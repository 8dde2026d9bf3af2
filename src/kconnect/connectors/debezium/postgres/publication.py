"""What a task sets up in PostgreSQL before it streams, as Debezium's PostgreSQL connector does
it at task start: the server's ``wal_level`` checked, the pgoutput publication created or
brought in line with the captured tables (``publication.autocreate.mode``), and the
replication slot looked up (it is created on a replication connection, :mod:`.replication`).

Every function takes an open psycopg connection in autocommit mode (a "general" connection,
not a replication one) and leaves it as it found it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.connectors.debezium.postgres.replication.protocol import parse_lsn

__all__ = [
    "PUBLICATION_TIMEOUT_MS",
    "PublicationMode",
    "SlotState",
    "TableId",
    "check_wal_level",
    "ensure_publication",
    "find_slot",
    "quote_identifier",
]

#: How long a publication's CREATE or ALTER may wait (for locks) before it is given up, ms.
PUBLICATION_TIMEOUT_MS = 90_000


class PublicationMode(enum.Enum):
    """``publication.autocreate.mode``."""

    DISABLED = "disabled"
    ALL_TABLES = "all_tables"
    FILTERED = "filtered"
    NO_TABLES = "no_tables"


@dataclass(frozen=True, order=True, slots=True)
class TableId:
    """A table by schema and name, written ``schema.table`` in Debezium's lists and topics."""

    schema: str
    table: str

    def __str__(self) -> str:
        return f"{self.schema}.{self.table}"

    def quoted(self) -> str:
        return f"{quote_identifier(self.schema)}.{quote_identifier(self.table)}"


@dataclass(frozen=True, slots=True)
class SlotState:
    """A replication slot as ``pg_replication_slots`` shows it."""

    name: str
    active: bool
    restart_lsn: int | None
    confirmed_flush_lsn: int | None


def quote_identifier(name: str) -> str:
    """``name`` as a PostgreSQL identifier in double quotes."""
    return '"' + name.replace('"', '""') + '"'


def check_wal_level(conn: Any) -> None:
    """Refuse a server that does not keep the WAL logical decoding needs."""
    row = conn.execute("SHOW wal_level").fetchone()
    level = row[0] if row else None
    if level != "logical":
        raise ConnectException(
            f"Postgres server wal_level property must be 'logical' but is: '{level}'"
        )


def find_slot(conn: Any, slot: str, database: str, plugin: str = "pgoutput") -> SlotState | None:
    """The logical slot ``slot`` of ``database`` decoding with ``plugin``, or None."""
    row = conn.execute(
        "SELECT slot_name, active, restart_lsn::text, confirmed_flush_lsn::text "
        "FROM pg_replication_slots WHERE slot_name = %s AND database = %s AND plugin = %s",
        (slot, database, plugin),
    ).fetchone()
    if row is None:
        return None
    restart, confirmed = row[2], row[3]
    return SlotState(
        row[0],
        bool(row[1]),
        None if restart is None else parse_lsn(restart),
        None if confirmed is None else parse_lsn(confirmed),
    )


def ensure_publication(
    conn: Any,
    name: str,
    mode: PublicationMode,
    tables: Sequence[TableId],
    *,
    via_partition_root: bool = False,
    publish: Sequence[str] | None = None,
) -> None:
    """Make publication ``name`` exist as ``mode`` says, for the captured ``tables``.

    A missing publication is created -- for all tables, for exactly ``tables`` or for none --
    or, when the mode is ``disabled``, refused. An existing one is reused as it is, except
    under ``filtered``: its tables are set to ``tables`` when they differ, and one made for
    all tables is refused. ``publish``: the operations to publish (``insert``, ``update``,
    ``delete``, ``truncate``), None for PostgreSQL's default (all of them).
    """
    row = conn.execute(
        "SELECT puballtables FROM pg_publication WHERE pubname = %s", (name,)
    ).fetchone()
    quoted = quote_identifier(name)
    options = _with_clause(via_partition_root, publish)
    if row is None:
        if mode is PublicationMode.DISABLED:
            raise ConnectException(
                "Publication autocreation is disabled, please create one and restart the connector."
            )
        if mode is PublicationMode.ALL_TABLES:
            _execute_limited(conn, f"CREATE PUBLICATION {quoted} FOR ALL TABLES{options}")
        elif mode is PublicationMode.FILTERED:
            if not tables:
                raise ConnectException(
                    f"Unable to create filtered publication {name}: no table filters found for "
                    f"filtered publication {name}"
                )
            _execute_limited(
                conn, f"CREATE PUBLICATION {quoted} FOR TABLE {_table_list(tables)}{options}"
            )
        else:
            _execute_limited(conn, f"CREATE PUBLICATION {quoted}{options}")
        return
    if mode is not PublicationMode.FILTERED:
        return
    if row[0]:
        raise ConnectException(
            f"A logical publication for all tables named '{name}' for plugin 'pgoutput' and "
            f"database '{_database(conn)}' is already active. To use this publication, change "
            "the 'publication.autocreate.mode' property to 'all_tables'."
        )
    published = {
        TableId(r[0], r[1])
        for r in conn.execute(
            "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s", (name,)
        ).fetchall()
    }
    if published != set(tables):
        if not tables:
            raise ConnectException(
                f"Unable to update filtered publication {name}: no table filters found"
            )
        _execute_limited(conn, f"ALTER PUBLICATION {quoted} SET TABLE {_table_list(tables)}")


def _with_clause(via_partition_root: bool, publish: Sequence[str] | None) -> str:
    parts = []
    if via_partition_root:
        parts.append("publish_via_partition_root = true")
    if publish:
        parts.append("publish = '" + ",".join(publish) + "'")
    return f" WITH ({', '.join(parts)})" if parts else ""


def _table_list(tables: Sequence[TableId]) -> str:
    return ", ".join(t.quoted() for t in sorted(set(tables)))


def _database(conn: Any) -> str:
    row = conn.execute("SELECT current_database()").fetchone()
    return str(row[0]) if row else "?"


def _execute_limited(conn: Any, statement: str) -> None:
    """``statement`` with ``statement_timeout`` at :data:`PUBLICATION_TIMEOUT_MS` (a publication
    waits for a lock on each of its tables), the session's own timeout restored after."""
    import psycopg

    previous = conn.execute("SHOW statement_timeout").fetchone()[0]
    conn.execute(f"SET statement_timeout = {PUBLICATION_TIMEOUT_MS}")
    try:
        conn.execute(statement)
    except (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable) as e:
        raise ConnectException(
            "Creation of publication failed: query to create/update publication timed out, "
            "please make sure that there are no long running queries on the database: "
            f"{e}"
        ) from e
    finally:
        conn.execute("SELECT set_config('statement_timeout', %s, false)", (previous,))
