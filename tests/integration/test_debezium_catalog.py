"""The catalog reads of the native Debezium PostgreSQL source against the real PostgreSQL:
captured tables after the include/exclude lists, columns with their types, modifiers,
nullability, defaults, domains, arrays and enums, and key columns (primary key, else the first
usable unique index, else none)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from kconnect.connectors.debezium.postgres.catalog import TableFilter, captured_tables, read_table
from kconnect.connectors.debezium.postgres.publication import TableId

pytestmark = pytest.mark.postgres


@pytest.fixture
def schema(pg_dsn: str) -> Iterator[tuple[Any, str]]:
    """A fresh schema (dropped after, with everything in it) and a connection."""
    name = f"cat_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
        try:
            yield conn, name
        finally:
            conn.execute(f"DROP SCHEMA {name} CASCADE")


def test_columns_in_order_with_types_defaults_domains_arrays_and_enums(schema: Any) -> None:
    conn, s = schema
    conn.execute(f"CREATE TYPE {s}.mood AS ENUM ('sad', 'ok', 'happy')")
    conn.execute(f"CREATE DOMAIN {s}.posint AS integer CHECK (VALUE > 0)")
    conn.execute(
        f"CREATE TABLE {s}.t (id serial PRIMARY KEY, amount numeric(12, 3) NOT NULL DEFAULT 1.5, "
        f"name varchar(20), tags text[], feel {s}.mood, n {s}.posint, seen timestamptz(3), "
        "dropped int)"
    )
    conn.execute(f"ALTER TABLE {s}.t DROP COLUMN dropped")

    table = read_table(conn, TableId(s, "t"))

    assert [c.name for c in table.columns] == ["id", "amount", "name", "tags", "feel", "n", "seen"]
    assert [c.position for c in table.columns] == [1, 2, 3, 4, 5, 6, 7]
    assert table.key_columns == ("id",)
    assert table.replica_identity == "d"
    by = {c.name: c for c in table.columns}
    assert (by["id"].type_name, by["id"].nullable) == ("int4", False)
    assert by["id"].default is not None and by["id"].default.startswith("nextval(")
    assert (by["amount"].type_oid, by["amount"].default, by["amount"].nullable) == (
        1700,
        "1.5",
        False,
    )
    assert (by["amount"].type_modifier - 4) >> 16 == 12 and (
        by["amount"].type_modifier - 4
    ) & 0xFFFF == 3
    assert (by["name"].type_name, by["name"].type_modifier, by["name"].nullable) == (
        "varchar",
        24,
        True,
    )
    assert (by["tags"].type_name, by["tags"].element_type_oid) == ("_text", 25)
    assert by["feel"].enum_labels == ("sad", "ok", "happy")
    assert (by["n"].type_name, by["n"].base_type_oid, by["n"].base_type_name) == (
        "posint",
        23,
        "int4",
    )
    assert (by["seen"].type_name, by["seen"].type_modifier) == ("timestamptz", 3)
    assert by["name"].enum_labels == () and by["name"].element_type_oid == 0


def test_key_is_the_first_usable_unique_index_without_a_primary_key(schema: Any) -> None:
    conn, s = schema
    conn.execute(f"CREATE TABLE {s}.u (a int, b int, c text, d int)")
    conn.execute(f"CREATE UNIQUE INDEX u_b ON {s}.u (lower(c))")  # an expression: not a key
    conn.execute(f"CREATE UNIQUE INDEX u_c ON {s}.u (d, a)")
    conn.execute(f"CREATE UNIQUE INDEX u_d ON {s}.u (b)")
    conn.execute(f"CREATE UNIQUE INDEX u_a ON {s}.u (a) WHERE a > 0")  # partial: not a key
    assert read_table(conn, TableId(s, "u")).key_columns == ("d", "a")

    conn.execute(f"CREATE TABLE {s}.v (a int)")
    conn.execute(f"ALTER TABLE {s}.v REPLICA IDENTITY FULL")
    v = read_table(conn, TableId(s, "v"))
    assert v.key_columns == () and v.replica_identity == "f"


def test_a_missing_table_says_so(schema: Any) -> None:
    conn, s = schema
    with pytest.raises(LookupError, match=f"table {s}.nope does not exist"):
        read_table(conn, TableId(s, "nope"))


def test_captured_tables_follow_the_lists(schema: Any) -> None:
    conn, s = schema
    for t in ("orders", "order_lines", "audit"):
        conn.execute(f"CREATE TABLE {s}.{t} (id int PRIMARY KEY)")
    conn.execute(f"CREATE VIEW {s}.orders_view AS SELECT * FROM {s}.orders")
    conn.execute(f"CREATE TABLE {s}.parted (id int) PARTITION BY RANGE (id)")
    conn.execute(f"CREATE TABLE {s}.parted_1 PARTITION OF {s}.parted FOR VALUES FROM (0) TO (10)")

    def tables(f: TableFilter) -> list[str]:
        return [t.table for t in captured_tables(conn, f) if t.schema == s]

    assert tables(TableFilter()) == ["audit", "order_lines", "orders", "parted"]
    assert tables(TableFilter(table_include=[f"{s}\\.order.*"])) == ["order_lines", "orders"]
    assert tables(TableFilter(table_include=[f"{s.upper()}\\.ORDERS"])) == ["orders"]
    assert tables(TableFilter(table_exclude=[f"{s}\\.order.*", ".*parted"])) == ["audit"]
    assert tables(TableFilter(table_include=["orders"])) == []  # the whole schema.table must match
    assert tables(TableFilter(schema_exclude=[s])) == []
    assert tables(TableFilter(schema_include=[s], table_exclude=[".*\\.audit"])) == [
        "order_lines",
        "orders",
        "parted",
    ]
    assert all(
        t.schema not in ("pg_catalog", "information_schema")
        for t in captured_tables(conn, TableFilter())
    )
