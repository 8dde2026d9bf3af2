"""The publication and slot checks of the native Debezium PostgreSQL source against the real
PostgreSQL: each ``publication.autocreate.mode`` creates (or refuses) what Debezium creates, a
filtered publication follows the captured tables, an existing one is reused, the slot is found
with its positions."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from kconnect.api.errors import ConnectException
from kconnect.connectors.debezium.postgres.publication import (
    PublicationMode,
    TableId,
    check_wal_level,
    ensure_publication,
    find_slot,
)
from kconnect.connectors.debezium.postgres.replication.connection import ReplicationConnection
from kconnect.testing.debezium import drop_replication

pytestmark = pytest.mark.postgres


@pytest.fixture
def conn(pg_dsn: str) -> Iterator[Any]:
    with psycopg.connect(pg_dsn, autocommit=True) as c:
        yield c


@pytest.fixture
def names(pg_dsn: str, conn: Any) -> Iterator[tuple[str, list[TableId]]]:
    """A publication name (dropped after) and two new tables, one of them with a quote."""
    suffix = uuid.uuid4().hex[:8]
    tables = [TableId("public", f"pub_a_{suffix}"), TableId("public", f'pub "b" {suffix}')]
    for t in tables:
        conn.execute(f"CREATE TABLE {t.quoted()} (id int PRIMARY KEY)")
    publication = f"pub_{suffix}"
    try:
        yield publication, tables
    finally:
        drop_replication(pg_dsn, [], [publication])
        for t in tables:
            conn.execute(f"DROP TABLE IF EXISTS {t.quoted()}")


def _published(conn: Any, publication: str) -> tuple[bool, set[TableId]] | None:
    row = conn.execute(
        "SELECT puballtables FROM pg_publication WHERE pubname = %s", (publication,)
    ).fetchone()
    if row is None:
        return None
    tables = conn.execute(
        "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s", (publication,)
    ).fetchall()
    return row[0], {TableId(s, t) for s, t in tables}


def test_the_server_keeps_logical_wal(conn: Any) -> None:
    check_wal_level(conn)


def test_all_tables_creates_a_publication_for_all_tables(conn: Any, names: Any) -> None:
    publication, tables = names
    ensure_publication(conn, publication, PublicationMode.ALL_TABLES, tables)
    all_tables, published = _published(conn, publication)  # type: ignore[misc]
    assert all_tables and set(tables) <= published


def test_filtered_creates_one_for_the_captured_tables_and_follows_them(
    conn: Any, names: Any
) -> None:
    publication, tables = names
    ensure_publication(conn, publication, PublicationMode.FILTERED, tables[:1])
    assert _published(conn, publication) == (False, {tables[0]})

    ensure_publication(conn, publication, PublicationMode.FILTERED, tables)
    assert _published(conn, publication) == (False, set(tables))

    ensure_publication(conn, publication, PublicationMode.ALL_TABLES, tables[:1])  # reused
    assert _published(conn, publication) == (False, set(tables))
    assert conn.execute("SHOW statement_timeout").fetchone()[0] == "0"  # restored


def test_filtered_refuses_a_publication_of_all_tables(conn: Any, names: Any) -> None:
    publication, tables = names
    ensure_publication(conn, publication, PublicationMode.ALL_TABLES, tables)
    with pytest.raises(
        ConnectException,
        match=re.escape("change the 'publication.autocreate.mode' property to 'all_tables'"),
    ):
        ensure_publication(conn, publication, PublicationMode.FILTERED, tables)


def test_no_tables_and_disabled(conn: Any, names: Any) -> None:
    publication, tables = names
    with pytest.raises(ConnectException, match="Publication autocreation is disabled"):
        ensure_publication(conn, publication, PublicationMode.DISABLED, tables)
    assert _published(conn, publication) is None

    ensure_publication(conn, publication, PublicationMode.NO_TABLES, tables)
    assert _published(conn, publication) == (False, set())
    ensure_publication(conn, publication, PublicationMode.DISABLED, tables)  # exists: reused


def test_publish_options_go_into_the_with_clause(conn: Any, names: Any) -> None:
    publication, tables = names
    ensure_publication(
        conn,
        publication,
        PublicationMode.FILTERED,
        tables,
        publish=["insert", "update"],
        via_partition_root=True,
    )
    row = conn.execute(
        "SELECT pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot FROM pg_publication "
        "WHERE pubname = %s",
        (publication,),
    ).fetchone()
    assert row == (True, True, False, False, True)


def test_a_filtered_publication_needs_tables(conn: Any, names: Any) -> None:
    publication, _ = names
    with pytest.raises(ConnectException, match="no table filters found"):
        ensure_publication(conn, publication, PublicationMode.FILTERED, [])


def test_the_slot_is_found_with_its_positions(pg_dsn: str, conn: Any) -> None:
    slot = f"find_{uuid.uuid4().hex[:8]}"
    database = conn.execute("SELECT current_database()").fetchone()[0]
    assert find_slot(conn, slot, database) is None
    repl = ReplicationConnection.connect(pg_dsn)
    try:
        created = repl.create_slot(slot)
        state = find_slot(conn, slot, database)
        assert state is not None and state.name == slot and not state.active
        assert state.confirmed_flush_lsn == created.consistent_point
        assert find_slot(conn, slot, database, plugin="test_decoding") is None
        assert find_slot(conn, slot, database + "_other") is None
    finally:
        repl.close()
        drop_replication(pg_dsn, [slot], [])
