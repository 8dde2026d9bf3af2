"""The tables a connector captures and their structure, read from PostgreSQL's catalog (what
Debezium reads through pgjdbc's ``DatabaseMetaData``): the captured tables after the
``schema.*`` and ``table.*`` include and exclude lists, and per table its columns in order
(type OID and modifier, the type's name, nullability, default expression, a domain's base type,
an array's element type, an enum's labels) and its key columns -- the primary key, else the
first unique index by name whose columns are all plain columns, else none.

Every function takes an open psycopg connection in autocommit mode.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.connectors.debezium.postgres.publication import TableId

__all__ = ["Column", "Table", "TableFilter", "captured_tables", "read_table"]

#: Schemas Debezium never captures (``pg_temp*`` and ``pg_toast*`` are matched by prefix).
SYSTEM_SCHEMAS = frozenset({"pg_catalog", "information_schema"})
#: Tables Debezium never captures (PostGIS's).
SYSTEM_TABLES = frozenset({TableId("public", "spatial_ref_sys")})


@dataclass(frozen=True, slots=True)
class Column:
    """One column, as the catalog describes it (``position`` from 1, in table order)."""

    name: str
    position: int
    type_oid: int
    type_name: str
    type_modifier: int
    nullable: bool
    default: str | None
    #: the base type of a domain (``type_oid`` when the column's type is not a domain)
    base_type_oid: int
    base_type_name: str
    #: the element type of an array type (0 for other types)
    element_type_oid: int
    #: an enum type's labels in their sort order (empty for other types)
    enum_labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Table:
    """A captured table: its columns in order and the names of its key columns, in key order
    (empty: no primary key and no usable unique index; its records have no key)."""

    id: TableId
    columns: tuple[Column, ...]
    key_columns: tuple[str, ...]
    replica_identity: str

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    def with_columns(self, names: Sequence[str]) -> Table:
        """This table with exactly the columns ``names``, in that order (a pgoutput Relation's
        columns: the catalog's may include generated columns pgoutput does not send).
        LookupError naming the first column the catalog does not have."""
        by_name = {c.name: c for c in self.columns}
        missing = next((n for n in names if n not in by_name), None)
        if missing is not None:
            raise LookupError(f"table {self.id} has no column {missing!r} in the catalog")
        return Table(
            self.id, tuple(by_name[n] for n in names), self.key_columns, self.replica_identity
        )


@dataclass(frozen=True, slots=True)
class TableFilter:
    """``schema.include.list``/``schema.exclude.list`` and ``table.include.list``/
    ``table.exclude.list``: regular expressions matched against the whole schema name or
    ``schema.table`` (at most one of each include/exclude pair is set; the connector's
    validation refuses both)."""

    schema_include: Sequence[str] = ()
    schema_exclude: Sequence[str] = ()
    table_include: Sequence[str] = ()
    table_exclude: Sequence[str] = ()
    #: ``signal.data.collection``'s table, captured whatever the lists say (as Debezium does)
    signal_table: TableId | None = None

    def accepts(self, table: TableId) -> bool:
        if table == self.signal_table:
            return True
        if table.schema in SYSTEM_SCHEMAS or table.schema.startswith(("pg_temp", "pg_toast")):
            return False
        if table in SYSTEM_TABLES:
            return False
        if self.schema_include and not _any_full_match(self.schema_include, table.schema):
            return False
        if self.schema_exclude and _any_full_match(self.schema_exclude, table.schema):
            return False
        name = str(table)
        if self.table_include and not _any_full_match(self.table_include, name):
            return False
        return not (self.table_exclude and _any_full_match(self.table_exclude, name))


def _any_full_match(patterns: Sequence[str], text: str) -> bool:
    # VERIFY against the jar (issue 35): Debezium compiles these lists case-insensitively
    return any(re.fullmatch(p, text, re.IGNORECASE) for p in patterns)


def captured_tables(conn: Any, table_filter: TableFilter) -> list[TableId]:
    """The ordinary and partitioned tables of the database that the filter accepts, in the
    order a snapshot reads them: by the first ``table.include.list`` pattern each matches (the
    list's order, as Debezium snapshots), then by name."""
    rows = conn.execute(
        "SELECT n.nspname, c.relname FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition"
    ).fetchall()
    accepted = [t for t in (TableId(s, n) for s, n in rows) if table_filter.accepts(t)]
    patterns = table_filter.table_include

    def order(table: TableId) -> tuple[int, TableId]:
        name = str(table)
        first = next(
            (i for i, p in enumerate(patterns) if re.fullmatch(p, name, re.IGNORECASE)),
            len(patterns),
        )
        return first, table

    return sorted(accepted, key=order)


_COLUMNS = """
SELECT a.attname, a.attnum, a.atttypid, t.typname, a.atttypmod, NOT a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid),
       CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END,
       CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END,
       CASE WHEN t.typtype = 'd' THEN bt.typelem ELSE t.typelem END,
       COALESCE((SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e
                 WHERE e.enumtypid IN (a.atttypid, t.typelem)), '{}')
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
"""

# Key candidates: the primary key first, then unique indexes by name; each with its columns in
# index order (0 in indkey: an expression, which disqualifies the index).
_KEYS = """
SELECT i.indisprimary, c.relname, i.indkey::int2[],
       ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(num, ord)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num
             ORDER BY k.ord)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = %s::regclass AND (i.indisprimary OR i.indisunique)
  AND i.indpred IS NULL AND i.indisvalid
ORDER BY i.indisprimary DESC, c.relname
"""


def read_table(conn: Any, table: TableId) -> Table:
    """``table``'s columns and key columns; LookupError if it does not exist."""
    import psycopg

    try:
        rows = conn.execute(_COLUMNS, (table.quoted(),)).fetchall()
        keys = conn.execute(_KEYS, (table.quoted(),)).fetchall()
        identity = conn.execute(
            "SELECT relreplident FROM pg_class WHERE oid = %s::regclass", (table.quoted(),)
        ).fetchone()
    except psycopg.errors.UndefinedTable as e:
        raise LookupError(f"table {table} does not exist") from e
    columns = tuple(
        Column(
            name=r[0],
            position=int(r[1]),
            type_oid=int(r[2]),
            type_name=r[3],
            type_modifier=int(r[4]),
            nullable=bool(r[5]),
            default=r[6],
            base_type_oid=int(r[7]),
            base_type_name=r[8],
            element_type_oid=int(r[9]),
            enum_labels=tuple(r[10]),
        )
        for r in rows
    )
    key: tuple[str, ...] = ()
    for _primary, _name, numbers, names in keys:
        if 0 not in numbers and len(names) == len(numbers):
            key = tuple(names)
            break
    return Table(table, columns, key, identity[0] if identity else "d")
