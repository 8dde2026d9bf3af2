"""What the sink needs to know about each database: table descriptions and DML statements.

:class:`SinkDialect` is chosen from the JDBC URL (or ``dialect.name``) when the task starts.
It describes an existing table (columns, their types, table kind) and builds the
parameterised INSERT / UPSERT / UPDATE / DELETE statements used by SQLite and by the
one-record-at-a-time path on PostgreSQL (PostgreSQL batches go through
:mod:`~kconnect.connectors.jdbc.sink.postgres_copy`). All methods run on the task thread with the
task's DBAPI connection; they may block on the database.

Identifiers are always spliced through :class:`IdentifierRules.quote`, so a table or column
name can never change a statement's meaning.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.connectors.jdbc.common.identifiers import IdentifierRules, TableId

__all__ = ["ColumnInfo", "PostgresSinkDialect", "SinkDialect", "SqliteSinkDialect", "TableInfo"]


@dataclasses.dataclass(frozen=True)
class ColumnInfo:
    """An existing column: name, type (as the database prints it), base type name and OID."""

    name: str
    type_name: str
    base_type: str
    type_oid: int
    nullable: bool


@dataclasses.dataclass(frozen=True)
class TableInfo:
    """An existing table: its kind (``TABLE``, ``PARTITIONED TABLE``, ``VIEW``) and columns."""

    table: TableId
    kind: str
    columns: dict[str, ColumnInfo]

    def find(self, name: str) -> ColumnInfo | None:
        """The column called ``name``: exact match first, then one case-insensitive match."""
        col = self.columns.get(name)
        if col is not None:
            return col
        lower = name.lower()
        matches = [c for n, c in self.columns.items() if n.lower() == lower]
        return matches[0] if len(matches) == 1 else None


class SinkDialect(ABC):
    """Base of the PostgreSQL and SQLite sink dialects."""

    name: str
    placeholder: str

    def __init__(self, rules: IdentifierRules) -> None:
        self.rules = rules

    def resolve(self, table: TableId, conn: Any) -> TableId:
        """``table`` with the default schema filled in where the database has schemas."""
        return table

    @abstractmethod
    def describe(self, conn: Any, table: TableId) -> TableInfo | None:
        """The table's description, or None if it does not exist."""

    def _ident(self, name: str) -> str:
        return self.rules.quote(name)

    def _table(self, table: TableId) -> str:
        return self.rules.quote_table(table)

    def _ph(self, info: ColumnInfo | None) -> str:
        return self.placeholder

    def insert(self, table: TableId, cols: Sequence[str], info: TableInfo | None) -> str:
        """``INSERT INTO t (c…) VALUES (?…)``."""
        columns: Mapping[str, ColumnInfo] = info.columns if info is not None else {}
        return (
            f"INSERT INTO {self._table(table)} ({','.join(self._ident(c) for c in cols)}) "
            f"VALUES ({','.join(self._ph(columns.get(c)) for c in cols)})"
        )

    def upsert(
        self, table: TableId, keys: Sequence[str], cols: Sequence[str], info: TableInfo | None
    ) -> str:
        """``INSERT … ON CONFLICT (k…) DO UPDATE SET c=EXCLUDED.c…`` (or ``DO NOTHING``)."""
        non_keys = [c for c in cols if c not in keys]
        conflict = ",".join(self._ident(k) for k in keys)
        if non_keys:
            sets = ",".join(f"{self._ident(c)}=EXCLUDED.{self._ident(c)}" for c in non_keys)
            action = f"DO UPDATE SET {sets}"
        else:
            action = "DO NOTHING"
        return f"{self.insert(table, cols, info)} ON CONFLICT ({conflict}) {action}"

    def update(
        self, table: TableId, keys: Sequence[str], non_keys: Sequence[str], info: TableInfo | None
    ) -> str:
        """``UPDATE t SET c = ?… WHERE k = ? AND …`` (bind non-key values, then keys)."""
        cols = info.columns if info else {}
        sets = ", ".join(f"{self._ident(c)} = {self._ph(cols.get(c))}" for c in non_keys)
        where = " AND ".join(f"{self._ident(k)} = {self._ph(cols.get(k))}" for k in keys)
        return f"UPDATE {self._table(table)} SET {sets} WHERE {where}"

    def delete(self, table: TableId, keys: Sequence[str], info: TableInfo | None) -> str:
        """``DELETE FROM t WHERE k = ? AND …``."""
        cols = info.columns if info else {}
        where = " AND ".join(f"{self._ident(k)} = {self._ph(cols.get(k))}" for k in keys)
        return f"DELETE FROM {self._table(table)} WHERE {where}"


_PG_KINDS = {"r": "TABLE", "p": "PARTITIONED TABLE", "v": "VIEW", "f": "TABLE", "m": "VIEW"}
_PG_CASTS = frozenset({"json", "jsonb", "uuid"})

_PG_DESCRIBE = """
SELECT c.relkind, a.attname, format_type(a.atttypid, a.atttypmod), t.typname, a.atttypid,
       NOT a.attnotnull
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a
       ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE n.nspname = %s AND c.relname = %s
ORDER BY a.attnum
"""


class PostgresSinkDialect(SinkDialect):
    """PostgreSQL (psycopg 3): ``%s`` placeholders, casts for json/jsonb/uuid columns."""

    name = "postgresql"
    placeholder = "%s"

    def __init__(self, rules: IdentifierRules) -> None:
        super().__init__(rules)
        self._default_schema: str | None = None

    def _ident(self, name: str) -> str:
        # psycopg treats '%' in a parameterised statement as a placeholder marker.
        return self.rules.quote(name).replace("%", "%%")

    def _table(self, table: TableId) -> str:
        return self.rules.quote_table(table).replace("%", "%%")

    def _ph(self, info: ColumnInfo | None) -> str:
        if info is not None and info.base_type in _PG_CASTS:
            return f"%s::{info.base_type}"
        return "%s"

    def resolve(self, table: TableId, conn: Any) -> TableId:
        # The database part of a JDBC-style "db.schema.table" is dropped: PostgreSQL cannot
        # write across databases, and the connection already names the database.
        schema = table.schema
        if schema is None:
            if self._default_schema is None:
                with conn.cursor() as cur:
                    cur.execute("SELECT current_schema()")
                    row = cur.fetchone()
                self._default_schema = str(row[0]) if row and row[0] else "public"
            schema = self._default_schema
        return TableId(None, self._fold(schema), self._fold(table.table))

    def _fold(self, part: str) -> str:
        """With ``quote.sql.identifiers=never`` PostgreSQL folds bare names to lower case."""
        quoted = self.rules.quote(part)
        return quoted if not quoted.startswith(self.rules.quote_char) else part

    def describe(self, conn: Any, table: TableId) -> TableInfo | None:
        with conn.cursor() as cur:
            cur.execute(_PG_DESCRIBE, (table.schema, table.table))
            rows = cur.fetchall()
        if not rows:
            return None
        kind = _PG_KINDS.get(str(rows[0][0]), "TABLE")
        cols = {
            r[1]: ColumnInfo(r[1], r[2], r[3], int(r[4]), bool(r[5]))
            for r in rows
            if r[1] is not None
        }
        return TableInfo(table, kind, cols)


class SqliteSinkDialect(SinkDialect):
    """SQLite (stdlib sqlite3): ``?`` placeholders, ``INSERT … ON CONFLICT`` upserts."""

    name = "sqlite"
    placeholder = "?"

    def describe(self, conn: Any, table: TableId) -> TableInfo | None:
        cur = conn.cursor()
        try:
            cur.execute(
                "SELECT type FROM sqlite_master WHERE name = ? AND type IN ('table','view')",
                (table.table,),
            )
            row = cur.fetchone()
            if row is None:
                return None
            kind = "VIEW" if row[0] == "view" else "TABLE"
            cur.execute(f"PRAGMA table_info({self.rules.quote(table.table)})")
            cols = {
                r[1]: ColumnInfo(r[1], str(r[2]), str(r[2]).lower(), 0, not r[3] and not r[5])
                for r in cur.fetchall()
            }
        finally:
            cur.close()
        return TableInfo(table, kind, cols)


def dialect_for(name: str, rules: IdentifierRules) -> SinkDialect:
    """The sink dialect for ``postgresql`` or ``sqlite`` (or a Confluent ``dialect.name``)."""
    lowered = name.lower()
    if "sqlite" in lowered:
        return SqliteSinkDialect(rules)
    return PostgresSinkDialect(rules)
