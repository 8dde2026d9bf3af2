"""JdbcSinkTask against a real PostgreSQL: modes, DDL, DLQ (the seed walkthrough), schemaless."""

from __future__ import annotations

import decimal
import subprocess
import sys
import uuid
from typing import Any

import psycopg
import pytest

from kconnect.api import (
    ConnectException,
    Decimal,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Timestamp,
)
from kconnect.connectors.jdbc.common.connection import ConnectionProvider
from kconnect.connectors.jdbc.common.url import connection_spec
from kconnect.connectors.jdbc.sink.sink_connector import JdbcSinkConnector
from kconnect.connectors.jdbc.sink.sink_task import JdbcSinkTask
from kconnect.testing.fakes import FakeSinkTaskContext, RecordingErrantReporter

pytestmark = pytest.mark.postgres

# The seed walkthrough's sink connector JSON, verbatim (its "config").
SEED_SINK = {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://pg01:5432/kcdb",
    "connection.user": "kcuser",
    "connection.password": "kcpw",
    "topics": "dst_table01,dst_table02",
    "tasks.max": "5",
    "errors.tolerance": "all",
    "errors.deadletterqueue.topic.name": "dlq-jdbc-sink-postgresql",
    "errors.deadletterqueue.context.headers.enable": True,
}

VALUE = (
    SchemaBuilder.struct()
    .name("table01")
    .field("id", Schema.INT32_SCHEMA)
    .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
    .field("item", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)


def jdbc_url(dsn: str) -> dict[str, str]:
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    return {
        "connection.url": f"jdbc:postgresql://{info['host']}:{info.get('port', 5432)}/{info['dbname']}",
        "connection.user": str(info["user"]),
        "connection.password": str(info.get("password", "")),
    }


def start(
    props: dict[str, Any], reporter: RecordingErrantReporter | None = None
) -> tuple[JdbcSinkTask, FakeSinkTaskContext]:
    connector = JdbcSinkConnector()
    connector.start({k: str(v) for k, v in props.items()})
    task = JdbcSinkTask()
    ctx = FakeSinkTaskContext(reporter)
    task.initialize(ctx)
    task.start(connector.task_configs(1)[0])
    return task, ctx


def row(topic: str, offset: int, id_: int, user: str, item: str, partition: int = 0) -> SinkRecord:
    v = Struct(VALUE).put("id", id_).put("user_id", user).put("item", item)
    return SinkRecord(topic, partition, Schema.OPTIONAL_STRING_SCHEMA, user, VALUE, v, offset)


def test_seed_dlq_case_reports_only_the_too_long_item(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    db.execute(
        f"CREATE TABLE {table_name} (id integer NOT NULL, user_id varchar(10), "
        "item varchar(10), PRIMARY KEY (id))"
    )
    props = {**SEED_SINK, **jdbc_url(pg_dsn), "topics": table_name}
    reporter = RecordingErrantReporter()
    task, ctx = start(props, reporter)
    batch = [
        row(table_name, 0, 1, "user01", "apple"),
        row(table_name, 1, 2, "user01", "orange"),
        row(table_name, 2, 5, "user01", "super-apple-0000"),
        row(table_name, 3, 3, "user02", "banana"),
        row(table_name, 4, 4, "user02", "melon"),
    ]
    task.put(batch)
    task.flush({})
    rows = db.execute(f"SELECT id, user_id, item FROM {table_name} ORDER BY id").fetchall()
    assert rows == [
        (1, "user01", "apple"),
        (2, "user01", "orange"),
        (3, "user02", "banana"),
        (4, "user02", "melon"),
    ]
    assert len(reporter.reported) == 1
    record, error = reporter.reported[0]
    assert record is batch[2]
    assert "value too long for type character varying(10)" in str(error)
    assert "kcpw" not in str(error)
    assert ctx.timeouts == []  # a data error is not retried
    task.stop()


def test_without_reporter_the_failure_names_table_and_record(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    db.execute(
        f"CREATE TABLE {table_name} (id integer PRIMARY KEY, user_id varchar(10), item varchar(10))"
    )
    task, _ = start({**jdbc_url(pg_dsn), "topics": table_name})
    batch = [row(table_name, i, i, "u", "x" * (20 if i == 7 else 3)) for i in range(10)]
    with pytest.raises(ConnectException) as info:
        task.put(batch)
    msg = str(info.value)
    assert "value too long" in msg and "offset 7" in msg and table_name in msg
    assert db.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (0,)
    task.stop()


@pytest.mark.parametrize("pk_mode", ["none", "kafka", "record_value"])
def test_insert_mode(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str, pk_mode: str
) -> None:
    task, _ = start(
        {**jdbc_url(pg_dsn), "topics": table_name, "auto.create": "true", "pk.mode": pk_mode}
    )
    task.put([row(table_name, i, i, f"u{i}", f"item{i}") for i in range(100)])
    task.flush({})  # as the runtime does before committing offsets (the COPY may be deferred)
    assert db.execute(f'SELECT count(*), sum(id) FROM "{table_name}"').fetchone() == (100, 4950)
    if pk_mode == "kafka":
        got = db.execute(
            f'SELECT __connect_topic, __connect_partition, __connect_offset FROM "{table_name}" '
            "WHERE id = 5"
        ).fetchone()
        assert got == (table_name, 0, 5)
    task.stop()


@pytest.mark.parametrize("pk_mode", ["record_key", "record_value", "kafka"])
def test_upsert_is_idempotent(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str, pk_mode: str
) -> None:
    props = {
        **jdbc_url(pg_dsn),
        "topics": table_name,
        "auto.create": "true",
        "insert.mode": "upsert",
        "pk.mode": pk_mode,
        "pk.fields": "user_id"
        if pk_mode == "record_key"
        else ("id" if pk_mode == "record_value" else ""),
    }
    task, _ = start(props)
    batch = [row(table_name, i, i, f"u{i}", f"a{i}") for i in range(50)]
    task.put(batch)
    task.put(batch)
    assert db.execute(f'SELECT count(*) FROM "{table_name}"').fetchone() == (50,)
    # Later records win, also within one batch.
    task.put(
        [row(table_name, i, i, f"u{i}", f"b{i}") for i in range(50)]
        + [row(table_name, 0, 0, "u0", "last")]
    )
    assert db.execute(f'SELECT item FROM "{table_name}" WHERE id = 0').fetchone() == ("last",)
    assert db.execute(f'SELECT count(*) FROM "{table_name}"').fetchone() == (50,)
    task.stop()


def test_update_mode_updates_existing_rows_only(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    db.execute(f'CREATE TABLE "{table_name}" (id integer PRIMARY KEY, user_id text, item text)')
    db.execute(f"""INSERT INTO "{table_name}" VALUES (1, 'a', 'old'), (2, 'b', 'old')""")
    task, _ = start(
        {
            **jdbc_url(pg_dsn),
            "topics": table_name,
            "insert.mode": "update",
            "pk.mode": "record_value",
            "pk.fields": "id",
        }
    )
    task.put([row(table_name, 0, 1, "a", "new"), row(table_name, 1, 3, "c", "new")])
    rows = db.execute(f'SELECT id, item FROM "{table_name}" ORDER BY id').fetchall()
    assert rows == [(1, "new"), (2, "old")]
    task.stop()


def test_delete_on_tombstone(pg_dsn: str, db: psycopg.Connection[Any], table_name: str) -> None:
    key_schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    props = {
        **jdbc_url(pg_dsn),
        "topics": table_name,
        "auto.create": "true",
        "insert.mode": "upsert",
        "pk.mode": "record_key",
        "delete.enabled": "true",
    }
    task, _ = start(props)

    def rec(off: int, i: int, item: str | None) -> SinkRecord:
        k = Struct(key_schema).put("id", i)
        v = (
            None
            if item is None
            else Struct(VALUE).put("id", i).put("user_id", "u").put("item", item)
        )
        return SinkRecord(table_name, 0, key_schema, k, VALUE if v else None, v, off)

    task.put(
        [
            rec(0, 1, "a"),
            rec(1, 2, "b"),
            rec(2, 3, "c"),
            rec(3, 2, None),
            rec(4, 3, None),
            rec(5, 3, "again"),
        ]
    )
    assert db.execute(f'SELECT id, item FROM "{table_name}" ORDER BY id').fetchall() == [
        (1, "a"),
        (3, "again"),
    ]
    task.stop()


def test_auto_create_types_and_auto_evolve(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    import datetime as dt

    s1 = (
        SchemaBuilder.struct()
        .field("id", Schema.INT64_SCHEMA)
        .field("small", Schema.OPTIONAL_INT8_SCHEMA)
        .field(
            "amount",
            Decimal.builder(2).parameter("connect.decimal.precision", "10").optional().build(),
        )
        .field("at", Timestamp.builder().optional().build())
        .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    props = {
        **jdbc_url(pg_dsn),
        "topics": table_name,
        "auto.create": "true",
        "auto.evolve": "true",
        "pk.mode": "record_value",
        "pk.fields": "id",
        "db.timezone": "Asia/Tokyo",
    }
    task, _ = start(props)
    at = dt.datetime(2024, 1, 1, 0, 0, tzinfo=dt.UTC)
    v = (
        Struct(s1)
        .put("id", 1)
        .put("small", 3)
        .put("amount", decimal.Decimal("12.34"))
        .put("at", at)
        .put("blob", b"\x00\x01")
        .put("name", "n")
    )
    task.put([SinkRecord(table_name, 0, None, None, s1, v, 0)])
    types = dict(
        db.execute(
            "SELECT column_name, CASE WHEN data_type = 'numeric' THEN "
            "data_type || '(' || numeric_precision || ',' || numeric_scale || ')' ELSE data_type END "
            "FROM information_schema.columns WHERE table_name = %s",
            (table_name,),
        ).fetchall()
    )
    assert types == {
        "id": "bigint",
        "small": "smallint",
        "amount": "numeric(10,2)",
        "at": "timestamp without time zone",
        "blob": "bytea",
        "name": "text",
    }
    got = db.execute(f'SELECT amount, at, blob FROM "{table_name}"').fetchone()
    assert got == (decimal.Decimal("12.34"), dt.datetime(2024, 1, 1, 9, 0), b"\x00\x01")
    s2 = (
        SchemaBuilder.struct()
        .field("id", Schema.INT64_SCHEMA)
        .field("extra", Schema.OPTIONAL_INT32_SCHEMA)
        .build()
    )
    task.put(
        [SinkRecord(table_name, 0, None, None, s2, Struct(s2).put("id", 2).put("extra", 7), 1)]
    )
    assert db.execute(f'SELECT id, extra FROM "{table_name}" ORDER BY id').fetchall() == [
        (1, None),
        (2, 7),
    ]
    task.stop()


def test_missing_table_and_column_errors(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    task, _ = start({**jdbc_url(pg_dsn), "topics": table_name})
    with pytest.raises(
        ConnectException, match=f"{table_name}.*missing and auto-creation is disabled.*offset 0"
    ):
        task.put([row(table_name, 0, 1, "u", "i")])
    db.execute(f'CREATE TABLE "{table_name}" (id integer, user_id text)')
    with pytest.raises(
        ConnectException, match=r"missing fields \['item'\] and auto-evolution is disabled"
    ):
        task.put([row(table_name, 0, 1, "u", "i")])
    task.stop()


def test_schemaless_values_into_existing_table(
    pg_dsn: str, db: psycopg.Connection[Any], table_name: str
) -> None:
    db.execute(
        f'CREATE TABLE "{table_name}" (id integer PRIMARY KEY, name varchar(20), doc jsonb, at timestamptz)'
    )
    task, _ = start({**jdbc_url(pg_dsn), "topics": table_name})
    recs = [
        SinkRecord(
            table_name,
            0,
            None,
            None,
            None,
            {"id": i, "name": f"n{i}", "doc": {"a": i}, "at": "2024-01-01T00:00:00Z"},
            i,
        )
        for i in range(3)
    ]
    task.put(recs)
    assert db.execute(
        f"""SELECT id, name, doc->>'a' FROM "{table_name}" ORDER BY id"""
    ).fetchall() == [(0, "n0", "0"), (1, "n1", "1"), (2, "n2", "2")]
    with pytest.raises(ConnectException, match=r"no column 'nope'.*offset 9"):
        task.put([SinkRecord(table_name, 0, None, None, None, {"id": 9, "nope": 1}, 9)])
    task.stop()


def test_identifiers_are_quoted_not_injected(pg_dsn: str, db: psycopg.Connection[Any]) -> None:
    name = 'we"ird; DROP TABLE x; -- ' + uuid.uuid4().hex[:6]
    s = (
        SchemaBuilder.struct()
        .field('co l;"um%n', Schema.INT32_SCHEMA)
        .field("k", Schema.INT32_SCHEMA)
        .build()
    )
    props = {
        **jdbc_url(pg_dsn),
        "topics": "t",
        "table.name.format": name.replace('"', '""').join('""'),
        "auto.create": "true",
        "insert.mode": "upsert",
        "pk.mode": "record_value",
        "pk.fields": "k",
    }
    task, _ = start(props)
    try:
        task.put([SinkRecord("t", 0, None, None, s, Struct(s).put('co l;"um%n', 5).put("k", 1), 0)])
        task.put([SinkRecord("t", 0, None, None, s, Struct(s).put('co l;"um%n', 6).put("k", 1), 1)])
        got = db.execute(
            psycopg.sql.SQL("SELECT {}, k FROM {}").format(
                psycopg.sql.Identifier('co l;"um%n'), psycopg.sql.Identifier(name)
            )
        ).fetchall()
        assert got == [(6, 1)]
    finally:
        task.stop()
        db.execute(psycopg.sql.SQL("DROP TABLE IF EXISTS {}").format(psycopg.sql.Identifier(name)))


def test_unreachable_database(table_name: str) -> None:
    task, _ = start(
        {
            "connection.url": "jdbc:postgresql://127.0.0.1:1/nodb",
            "connection.user": "u",
            "connection.password": "s3cret-pw",
            "connection.attempts": "1",
            "topics": "t",
        }
    )
    with pytest.raises(ConnectException) as info:
        task.put([row("t", 0, 1, "u", "i")])
    assert "127.0.0.1:1" in str(info.value) and "s3cret-pw" not in str(info.value)
    task.stop()


def test_driver_connection_dropped_by_the_server_is_replaced_when_idle(
    pg_dsn: str, db: psycopg.Connection[Any]
) -> None:
    app = f"kc-driver-{uuid.uuid4().hex[:8]}"
    url = jdbc_url(pg_dsn)
    p = ConnectionProvider(
        connection_spec(
            {**url, "connection.url": url["connection.url"] + f"?ApplicationName={app}"}
        )
    )
    try:
        first = p.get()
        assert isinstance(first, psycopg.Connection)
        assert first.execute("SHOW application_name").fetchone() == (app,)
        first.rollback()
        cut = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (app,),
        ).fetchall()
        assert cut
        # Not noticed without a round trip; the ping of an idle connection notices it.
        assert p.get() is first
        again = p.get_valid()
        assert again is not first and again.execute("SELECT 1").fetchone() == (1,)
    finally:
        p.close()


def test_sink_task_does_not_import_sqlalchemy(pg_dsn: str, table_name: str) -> None:
    """The sink writes through psycopg alone: its task's first write does not wait ~0.15 s
    for SQLAlchemy's import (a fresh interpreter, as a task process is)."""
    script = f"""
import sys
from tests.integration.test_jdbc_sink_postgres import jdbc_url, row, start
task, _ = start({{**jdbc_url({pg_dsn!r}), "topics": {table_name!r}, "auto.create": "true"}})
task.put([row({table_name!r}, i, i, "u", "i") for i in range(3)])
task.stop()
print(sorted(m for m in sys.modules if m.split(".")[0] == "sqlalchemy"))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]", out.stdout
