"""``TableQuerier``: one table (or the custom query) of a source task, streamed through a
server-side cursor.

Lifecycle (all on the task thread): the task picks the querier whose next run is due, calls
:meth:`TableQuerier.poll` repeatedly — the first call executes the statement, each call returns
at most ``batch.max.rows`` records fetched from the still-open cursor — until
:attr:`TableQuerier.exhausted`; then :meth:`reset` closes the cursor, ends the transaction (so
no locks or snapshots are held between runs) and schedules the next run
``poll.interval.ms`` later. A 10M-row table therefore never sits in memory: PostgreSQL streams
it through a named cursor (``DECLARE … CURSOR``), SQLite steps its statement.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from abc import ABC, abstractmethod
from typing import Any

from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct
from kconnect.connectors.jdbc.common.identifiers import IdentifierRules, TableId
from kconnect.connectors.jdbc.common.metadata import describe_result, table_columns
from kconnect.connectors.jdbc.common.types import (
    ColumnInfo,
    Converter,
    TypeOptions,
    column_schema,
)
from kconnect.connectors.jdbc.source.criteria import PARAM

__all__ = ["QuerierEnv", "TableQuerier"]

_cursor_ids = itertools.count(1)


@dataclasses.dataclass(frozen=True)
class QuerierEnv:
    """Settings shared by every querier of a task."""

    dialect: str
    rules: IdentifierRules
    options: TypeOptions
    topic_prefix: str
    batch_max_rows: int
    poll_interval_ms: int
    query_suffix: str = ""


class TableQuerier(ABC):
    """Base querier: statement execution, schema derivation, row → record conversion.

    Subclasses define :meth:`_statement` (SQL + parameters) and :meth:`_to_records`.
    """

    def __init__(self, env: QuerierEnv, table: TableId | None, query: str | None) -> None:
        self.env = env
        self.table = table
        self.query = query
        self.topic = env.topic_prefix + (table.table if table is not None else "")
        self.last_update: float | None = None  # monotonic end of the previous run (None: never)
        self.exhausted = False
        self._cursor: Any = None
        self._conn: Any = None
        self._schema: Schema | None = None
        # The result columns the current schema was built from, and whether this run's result
        # has been described yet: each run re-describes (columns may have changed between runs)
        # but keeps the schema object when they have not, so downstream caches keyed on schema
        # identity stay warm.
        self._columns: list[ColumnInfo] | None = None
        self._described = False
        self._names: tuple[str, ...] = ()
        self._converters: tuple[tuple[str, Converter], ...] = ()
        self._declared: dict[str, ColumnInfo] | None = None

    # -- identity ------------------------------------------------------------------------------

    @property
    @abstractmethod
    def source_partition(self) -> dict[str, str]:
        """The source partition map of this table or query (Confluent's shape)."""

    def describe(self) -> str:
        return f"table {self.table}" if self.table is not None else "the custom query"

    def querying(self) -> bool:
        return self._cursor is not None

    def next_update(self) -> float:
        """When the next run is due (``-inf`` before the first run: due immediately)."""
        if self.last_update is None:
            return float("-inf")
        return self.last_update + self.env.poll_interval_ms / 1000

    # -- statement -----------------------------------------------------------------------------

    def base_sql(self) -> str:
        if self.query is not None:
            return self.query
        assert self.table is not None
        return "SELECT * FROM " + self.env.rules.quote_table(self.table)

    @abstractmethod
    def _statement(self, conn: Any) -> tuple[str, tuple[Any, ...]]:
        """The SQL and parameters of the next run (the mode's WHERE/ORDER BY)."""

    def _render(self, sql: str) -> str:
        if self.env.query_suffix:
            sql = sql + " " + self.env.query_suffix
        if self.env.dialect == "sqlite":
            return sql.replace(PARAM, "?")
        # psycopg treats '%' as the start of a placeholder when parameters are passed.
        return sql.replace("%", "%%").replace(PARAM, "%s")

    def bind_timestamp(self, value: dt.datetime) -> Any:
        """A timestamp parameter: aware datetime for PostgreSQL (session time zone is
        ``db.timezone``), ``YYYY-MM-DD HH:MM:SS.fff`` text in ``db.timezone`` for SQLite."""
        if self.env.dialect != "sqlite":
            return value
        local = value.astimezone(self.env.options.zone).replace(tzinfo=None)
        return local.isoformat(sep=" ", timespec="milliseconds")

    # -- execution -----------------------------------------------------------------------------

    def table_columns(self, conn: Any) -> list[ColumnInfo]:
        assert self.table is not None
        return table_columns(conn, self.env.dialect, self.table)

    def _open(self, conn: Any) -> None:
        sql, params = self._statement(conn)
        text = self._render(sql)
        if self.env.dialect == "sqlite":
            cur = conn.cursor()
            cur.arraysize = self.env.batch_max_rows
            cur.execute(text, params)
        else:
            # A named (server-side) cursor inside the task's transaction: rows stream in
            # batch.max.rows chunks instead of the whole result being loaded client-side.
            cur = conn.cursor(name=f"kconnect_jdbc_{next(_cursor_ids)}")
            cur.itersize = self.env.batch_max_rows
            cur.execute(text, params or None)
        self._cursor, self._conn = cur, conn
        self.exhausted = False

    def fetch(self, n: int) -> list[Any]:
        rows: list[Any] = self._cursor.fetchmany(n)
        if len(rows) < n:
            self.exhausted = True
        return rows

    def poll(self, conn: Any) -> list[SourceRecord]:
        """Up to ``batch.max.rows`` records; starts the query when none is running."""
        if self._cursor is None:
            self._open(conn)
        rows = self.fetch(self.env.batch_max_rows)
        if not rows:
            return []
        if not self._described:
            self._build_schema(conn, rows[0])
        return self._to_records(rows)

    def reset(self, now: float) -> None:
        """Close the cursor, end the read transaction and schedule the next run."""
        cur, self._cursor = self._cursor, None
        conn, self._conn = self._conn, None
        try:
            if cur is not None:
                cur.close()
        finally:
            if conn is not None and not getattr(conn, "closed", False):  # sqlite3: no attribute
                conn.commit()
            self.last_update = now
            self.exhausted = False
            self._described = False

    def close_quietly(self) -> None:
        cur, self._cursor = self._cursor, None
        self._conn = None
        if cur is not None:
            try:
                cur.close()
            except Exception:  # the connection is being dropped anyway
                pass

    # -- schema and records --------------------------------------------------------------------

    def _build_schema(self, conn: Any, first_row: Any) -> None:
        cols = describe_result(conn, self.env.dialect, self._cursor)
        if self.env.dialect == "sqlite":
            cols = self._sqlite_columns(conn, cols, first_row)
        if self._schema is not None and cols == self._columns:
            self._described = True
            return
        builder = SchemaBuilder.struct()
        if self.table is not None:
            builder.name(self.table.table)
        converters = []
        for col in cols:
            schema, conv = column_schema(self.env.dialect, col, self.env.options)
            builder.field(col.name, schema)
            if conv is not None:
                converters.append((col.name, conv))
        self._schema = builder.build()
        self._names = tuple(c.name for c in cols)
        self._converters = tuple(converters)
        self._columns = cols
        self._described = True

    def _sqlite_columns(self, conn: Any, cols: list[ColumnInfo], row: Any) -> list[ColumnInfo]:
        declared: dict[str, ColumnInfo] = {}
        if self.table is not None:
            declared = {c.name: c for c in self.table_columns(conn)}
        out = []
        for i, c in enumerate(cols):
            d = declared.get(c.name)
            if d is not None:
                out.append(dataclasses.replace(d, autoincrement=False, primary_key=False))
            else:  # computed column or custom query: SQLite only knows the value's storage
                v = row[i]
                t = (
                    "INTEGER"
                    if isinstance(v, int)
                    else "REAL"
                    if isinstance(v, float)
                    else "BLOB"
                    if isinstance(v, bytes)
                    else "TEXT"
                )
                out.append(ColumnInfo(c.name, t))
        return out

    def structs(self, rows: list[Any]) -> list[Struct]:
        """Rows as Structs of the current schema (values converted, no per-field checks)."""
        schema, names, convs = self._schema, self._names, self._converters
        assert schema is not None
        trusted = Struct.trusted
        # a Struct's values are a list in its schema's field order: the row's own order, or
        # the columns picked in that order
        fields = [f.name for f in schema.fields]
        order = None if fields == list(names) else [names.index(n) for n in fields]
        at = [(fields.index(name), conv) for name, conv in convs]
        out = []
        for row in rows:
            if len(row) != len(names):
                raise ValueError(f"a row of {len(row)} columns for {len(names)} fields")
            values = list(row) if order is None else [row[i] for i in order]
            for i, conv in at:
                v = values[i]
                if v is not None:
                    values[i] = conv(v)
            out.append(trusted(schema, values))
        return out

    @abstractmethod
    def _to_records(self, rows: list[Any]) -> list[SourceRecord]:
        """Source records (with this mode's offsets) for fetched rows."""
