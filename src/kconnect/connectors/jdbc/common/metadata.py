"""Catalog queries: list tables, describe a table's columns or a query's result columns,
and read the database clock. PostgreSQL and SQLite.

All functions take an open driver connection (``psycopg.Connection`` / ``sqlite3.Connection``:
both have ``execute``, in the driver's own parameter style) and run on the caller's thread;
they may block on the database and raise the driver's errors.

Table ids: PostgreSQL tables are ``schema.table`` (catalog left out, as pgjdbc 42.4 — the
version bundled with kafka-connect-jdbc 10.8 — reports them, so source partitions
``{"protocol":"1","table":"public.users"}`` match a Java deployment's offsets). SQLite tables
are the bare table name.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kconnect.connectors.jdbc.common.identifiers import TableId
from kconnect.connectors.jdbc.common.types import ColumnInfo

__all__ = ["db_now", "describe_result", "list_tables", "table_columns"]

# pgjdbc's getTables() table types → pg_class.relkind (user schemas only, except SYSTEM *).
_PG_RELKINDS = {
    "TABLE": "r",
    "PARTITIONED TABLE": "p",
    "VIEW": "v",
    "MATERIALIZED VIEW": "m",
    "FOREIGN TABLE": "f",
}
_PG_SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")


def list_tables(
    conn: Any,
    dialect: str,
    table_types: list[str],
    catalog_pattern: str | None = None,
    schema_pattern: str | None = None,
) -> list[TableId]:
    """Tables visible to the user, in ``DatabaseMetaData.getTables`` order (type, schema, name).

    ``schema_pattern`` is a SQL LIKE pattern (None: any schema). ``catalog_pattern`` other than
    None/the current database matches nothing on PostgreSQL. SQLite's own ``sqlite_*`` tables
    are never listed.
    """
    types = [t.strip().upper() for t in table_types if t.strip()] or ["TABLE"]
    if dialect == "sqlite":
        kinds = [k for t, k in (("TABLE", "table"), ("VIEW", "view")) if t in types]
        if not kinds:
            return []
        marks = ",".join("?" * len(kinds))
        sql = (
            f"SELECT name FROM sqlite_master WHERE type IN ({marks}) "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name"
        )
        rows = conn.execute(sql, tuple(kinds)).fetchall()
        return [TableId(None, None, r[0]) for r in rows]
    if catalog_pattern:
        current = _scalar(conn, "SELECT current_database()")
        if catalog_pattern != current:
            return []
    user_kinds = [_PG_RELKINDS[t] for t in types if t in _PG_RELKINDS]
    system = [k for t, k in (("SYSTEM TABLE", "r"), ("SYSTEM VIEW", "v")) if t in types]
    rows = conn.execute(
        """
        SELECT n.nspname, c.relname,
               CASE WHEN n.nspname = ANY(%(sys)s) THEN 1 ELSE 0 END AS is_sys, c.relkind
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE ((c.relkind = ANY(%(user)s) AND NOT n.nspname = ANY(%(sys)s)
                AND n.nspname NOT LIKE 'pg\\_temp\\_%%' AND n.nspname NOT LIKE 'pg\\_toast%%')
            OR (c.relkind = ANY(%(system)s) AND n.nspname = ANY(%(sys)s)))
          AND (%(schema)s::text IS NULL OR n.nspname LIKE %(schema)s)
          AND has_table_privilege(c.oid, 'SELECT')
        ORDER BY is_sys, c.relkind, n.nspname, c.relname
        """,
        {
            "sys": list(_PG_SYSTEM_SCHEMAS),
            "user": user_kinds,
            "system": system,
            "schema": schema_pattern,
        },
    ).fetchall()
    return [TableId(None, r[0], r[1]) for r in rows]


def table_columns(conn: Any, dialect: str, table: TableId) -> list[ColumnInfo]:
    """The table's columns in ordinal order (empty list: no such table)."""
    if dialect == "sqlite":
        q = table.table.replace('"', '""')
        rows = conn.execute(f'PRAGMA table_info("{q}")').fetchall()
        pk_cols = [r for r in rows if r[5]]
        out = []
        for _cid, name, decl, notnull, _default, pk in rows:
            # INTEGER PRIMARY KEY is the rowid alias: SQLite's auto-increment column.
            rowid = bool(pk) and len(pk_cols) == 1 and (decl or "").upper() == "INTEGER"
            out.append(
                ColumnInfo(name, decl or "", None, None, not notnull and not rowid, rowid, bool(pk))
            )
        return out
    rows = conn.execute(
        """
        SELECT a.attname, t.typname, a.atttypmod, a.attnotnull,
               (a.attidentity <> '' OR
                COALESCE(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%%') AS autoinc,
               COALESCE(a.attnum = ANY(i.indkey), false) AS pk
        FROM pg_catalog.pg_attribute a
        JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        LEFT JOIN pg_catalog.pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
        WHERE a.attrelid = (
            SELECT c.oid FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relname = %(table)s
              AND n.nspname = COALESCE(%(schema)s::text, current_schema()))
          AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum
        """,
        {"table": table.table, "schema": table.schema},
    ).fetchall()
    out = []
    for name, typname, typmod, notnull, autoinc, pk in rows:
        precision, scale = _numeric_typmod(typname, typmod)
        out.append(ColumnInfo(name, typname, precision, scale, not notnull, autoinc, pk))
    return out


def _scalar(conn: Any, sql: str) -> Any:
    """The first column of the first row of ``sql`` (no parameters)."""
    row = conn.execute(sql).fetchone()
    return None if row is None else row[0]


def _numeric_typmod(typname: str, typmod: int) -> tuple[int | None, int | None]:
    if typname.lstrip("_") != "numeric" or typmod is None or typmod < 4:
        return None, None
    mod = typmod - 4
    scale = mod & 0x7FF
    if scale >= 1024:  # PostgreSQL 15+ allows negative scales (11-bit two's complement)
        scale -= 2048
    return (mod >> 16) & 0xFFFF, scale


_PG_TYPNAMES: dict[int, str] = {}


def describe_result(conn: Any, dialect: str, cursor: Any) -> list[ColumnInfo]:
    """Columns of a DBAPI cursor's current result (PostgreSQL: type names from ``pg_type``,
    NOT NULL from the source table column when the column comes straight from a table).

    SQLite cursors carry only names: each column gets an empty type name (the caller fills it
    from :func:`table_columns` when it can).
    """
    desc = cursor.description or ()
    if dialect == "sqlite":
        return [ColumnInfo(d[0], "") for d in desc]
    oids = [d.type_code for d in desc]
    missing = sorted({o for o in oids if o not in _PG_TYPNAMES})
    if missing:
        for oid, name in conn.execute(
            "SELECT oid::int8, typname FROM pg_catalog.pg_type WHERE oid = ANY(%(o)s::oid[])",
            {"o": missing},
        ).fetchall():
            _PG_TYPNAMES[int(oid)] = name
    notnull: dict[tuple[int, int], bool] = {}
    pgres = getattr(cursor, "pgresult", None)
    sources = []
    if pgres is not None:
        sources = [(pgres.ftable(i), pgres.ftablecol(i)) for i in range(len(desc))]
        keys = sorted({s for s in sources if s[0]})
        if keys:
            for rel, num, nn in conn.execute(
                "SELECT attrelid::int8, attnum, attnotnull FROM pg_catalog.pg_attribute "
                "WHERE attrelid = ANY(%(r)s::oid[]) AND attnum = ANY(%(n)s::int2[])",
                {"r": [k[0] for k in keys], "n": [k[1] for k in keys]},
            ).fetchall():
                notnull[(int(rel), int(num))] = bool(nn)
    out = []
    for i, d in enumerate(desc):
        typname = _PG_TYPNAMES.get(d.type_code, "")
        nn = notnull.get(sources[i], False) if sources else False
        precision = d.precision if typname.lstrip("_") == "numeric" else None
        scale = d.scale if precision is not None else None
        out.append(ColumnInfo(d.name, typname, precision, scale, not nn))
    return out


def db_now(conn: Any, dialect: str) -> dt.datetime:
    """The database's current time (aware, UTC) — the upper bound of timestamp queries."""
    if dialect == "sqlite":
        text = _scalar(conn, "SELECT strftime('%Y-%m-%d %H:%M:%f','now')")
        return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)
    value: dt.datetime = _scalar(conn, "SELECT CURRENT_TIMESTAMP")
    return value.astimezone(dt.UTC)
