"""Shared JDBC plumbing: URL parsing, credentials, identifiers, type mapping (no database)."""

from __future__ import annotations

import datetime as dt
import decimal
import sys
from typing import Any

import pytest

from kconnect.api import ConfigException, ConnectException, Password, Type
from kconnect.connectors.jdbc.common.connection import ConnectionProvider
from kconnect.connectors.jdbc.common.identifiers import TableId, rules_for
from kconnect.connectors.jdbc.common.types import ColumnInfo, TypeOptions, column_schema
from kconnect.connectors.jdbc.common.url import connection_spec, parse_jdbc_url


def test_postgres_url_with_properties() -> None:
    u = parse_jdbc_url("jdbc:postgresql://pg01:5433/kcdb?sslmode=require&password=s3cret")
    assert (u.subprotocol, u.host, u.port, u.database) == ("postgresql", "pg01", 5433, "kcdb")
    assert u.properties["sslmode"] == "require"
    assert "s3cret" not in u.redacted() and "s3cret" not in repr(u)
    assert u.redacted() == "jdbc:postgresql://pg01:5433/kcdb?sslmode=require&password=****"


def test_postgres_short_and_default_port() -> None:
    assert parse_jdbc_url("jdbc:postgresql:kcdb").hosts == (("localhost", 5432),)
    assert parse_jdbc_url("jdbc:postgresql://h/db").port == 5432


def test_sqlite_urls() -> None:
    assert parse_jdbc_url("jdbc:sqlite:/tmp/x.db").database == "/tmp/x.db"
    assert parse_jdbc_url("jdbc:sqlite::memory:").database == ":memory:"


def test_unsupported_url_is_config_error_without_query() -> None:
    with pytest.raises(ConfigException, match="mysql") as e:
        parse_jdbc_url("jdbc:mysql://h/db?password=pw")
    assert "pw" not in str(e.value).replace("password", "")


def test_connection_properties_override_and_pass_through() -> None:
    spec = connection_spec(
        {
            "connection.url": "jdbc:postgresql://h:5432/db?user=a&password=b&sslmode=disable",
            "connection.user": "kcuser",
            "connection.password": Password("kcpw"),
            "connection.sslmode": "require",
            "connection.ApplicationName": "app",
            "connection.attempts": "3",
        }
    )
    assert (spec.user, spec.password) == ("kcuser", "kcpw")
    assert spec.connect_args() == {"sslmode": "require", "application_name": "app"}
    assert "kcpw" not in repr(spec) and "kcpw" not in spec.redacted()


def test_unreachable_database_message_names_target_not_password() -> None:
    sleeps: list[float] = []
    p = ConnectionProvider(
        connection_spec(
            {
                "connection.url": "jdbc:postgresql://127.0.0.1:1/kcdb",
                "connection.user": "kcuser",
                "connection.password": "topsecretpw",
            }
        ),
        attempts=2,
        backoff_ms=5,
        sleep=sleeps.append,
    )
    with pytest.raises(ConnectException) as e:
        p.get()
    msg = str(e.value)
    assert "127.0.0.1:1" in msg and "kcdb" in msg and "kcuser" in msg
    assert "refused" in msg.lower() and "topsecretpw" not in msg
    assert sleeps == [0.005]


def test_driver_provider_hands_out_the_sqlite_connection_and_reopens_a_closed_one() -> None:
    import sqlite3

    p = ConnectionProvider(connection_spec({"connection.url": "jdbc:sqlite::memory:"}))
    c = p.get()
    assert isinstance(c, sqlite3.Connection)
    c.execute("CREATE TABLE t (x INTEGER)")
    c.execute("INSERT INTO t VALUES (5)")
    assert p.get() is c and p.get().execute("SELECT x FROM t").fetchone() == (5,)
    c.commit()
    assert p.is_valid() and p.get_valid() is c
    p.invalidate()
    assert not p.is_valid() and p.get() is not c
    p.close()
    with pytest.raises(ConnectException, match="is closed"):
        p.get()


def test_sqlite_isolation_modes_are_sqlites_pragma_or_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    spec = connection_spec({"connection.url": "jdbc:sqlite::memory:"})
    for mode, pragma in (("READ_UNCOMMITTED", 1), ("SERIALIZABLE", 0), ("DEFAULT", 0)):
        p = ConnectionProvider(spec, isolation=mode)
        assert p.get().execute("PRAGMA read_uncommitted").fetchone() == (pragma,)
        p.close()
    p = ConnectionProvider(spec, isolation="READ_COMMITTED")
    assert p.get().execute("SELECT 1").fetchone() == (1,)
    p.close()
    assert "Transaction isolation READ_COMMITTED is not supported by sqlite" in caplog.text


def test_identifier_quoting_is_injection_safe() -> None:
    pg = rules_for("postgresql")
    assert pg.quote('a"; DROP TABLE x; --') == '"a""; DROP TABLE x; --"'
    assert rules_for("sqlite").quote("we`ird name") == "`we``ird name`"
    never = rules_for("postgresql", "never")
    assert never.quote("Users") == "users"
    assert never.quote("my table;") == '"my table;"'


def test_parse_table_ids() -> None:
    pg = rules_for("postgresql")
    assert pg.parse_table_id("users") == TableId(None, None, "users")
    assert pg.parse_table_id("public.users") == TableId(None, "public", "users")
    assert pg.parse_table_id('"My ""S"."a.b"') == TableId(None, 'My "S', "a.b")
    assert pg.parse_table_id("db.s.t").unquoted() == "db.s.t"
    with pytest.raises(ConfigException):
        pg.parse_table_id("a.")


@pytest.mark.parametrize(
    ("mapping", "p", "s", "expected"),
    [
        ("none", 10, 2, Type.BYTES),
        ("precision_only", 9, 0, Type.INT32),
        ("precision_only", 10, 2, Type.BYTES),
        ("best_fit", 4, 0, Type.INT16),
        ("best_fit", 10, 2, Type.FLOAT64),
        ("best_fit", 30, 2, Type.BYTES),
        ("best_fit_eager_double", 30, 2, Type.FLOAT64),
        ("best_fit_eager_double", 18, 0, Type.INT64),
    ],
)
def test_numeric_mapping(mapping: str, p: int, s: int, expected: Type) -> None:
    schema, _ = column_schema(
        "postgresql", ColumnInfo("n", "numeric", p, s), TypeOptions(numeric_mapping=mapping)
    )
    assert schema.type is expected
    if expected is Type.BYTES:
        assert schema.parameters == {"scale": str(s), "connect.decimal.precision": str(p)}


def test_unconstrained_numeric_keeps_every_digit() -> None:
    schema, conv = column_schema("postgresql", ColumnInfo("n", "numeric"), TypeOptions())
    assert schema.name == "org.apache.kafka.connect.data.Decimal"
    assert schema.parameters == {"scale": "127"}
    assert conv is None


def test_pg_array_and_naive_timestamp_in_db_timezone() -> None:
    arr, _ = column_schema("postgresql", ColumnInfo("a", "_int4", nullable=False), TypeOptions())
    assert arr.type is Type.ARRAY and not arr.optional
    assert arr.value_schema.type is Type.INT32 and arr.value_schema.optional
    _, conv = column_schema(
        "postgresql", ColumnInfo("t", "timestamp"), TypeOptions(db_timezone="Europe/Paris")
    )
    assert conv is not None
    v = conv(dt.datetime(2024, 1, 1, 12, 0))
    assert v == dt.datetime(2024, 1, 1, 11, 0, tzinfo=dt.UTC)


def test_timestamp_granularity_nanos_string() -> None:
    s, conv = column_schema(
        "postgresql",
        ColumnInfo("t", "timestamptz"),
        TypeOptions(timestamp_granularity="nanos_iso_datetime_string"),
    )
    assert s.type is Type.STRING and conv is not None
    value = conv(dt.datetime(2024, 1, 1, 0, 0, 0, 123456, tzinfo=dt.UTC))
    assert value == "2024-01-01T00:00:00.123456000"


def test_sqlite_declared_types() -> None:
    opts = TypeOptions()
    s, _ = column_schema("sqlite", ColumnInfo("i", "INTEGER", nullable=False), opts)
    assert s.type is Type.INT64 and not s.optional
    s, conv = column_schema("sqlite", ColumnInfo("d", "DECIMAL(10,2)"), opts)
    assert s.parameters == {"scale": "2", "connect.decimal.precision": "10"}
    assert conv is not None and conv(1.5) == decimal.Decimal("1.50")
    s, conv = column_schema("sqlite", ColumnInfo("t", "TIMESTAMP"), opts)
    assert conv is not None
    assert conv("2024-01-01 00:00:00.250") == dt.datetime(
        2024, 1, 1, 0, 0, 0, 250000, tzinfo=dt.UTC
    )


def test_driver_modules_are_preloaded_once_per_dialect(monkeypatch: pytest.MonkeyPatch) -> None:
    from kconnect.connectors.jdbc.common import connection

    started: list[str] = []

    class RecordingThread:
        def __init__(self, target: Any, name: str, daemon: bool) -> None:
            self.target, self.name = target, name

        def start(self) -> None:
            started.append(self.name)
            self.target()  # run inline: the imports must succeed

    monkeypatch.setattr(connection, "_preloaded", set())
    monkeypatch.setattr(connection.threading, "Thread", RecordingThread)
    for _ in range(3):
        connection.preload_driver("postgresql")
        connection.preload_driver("sqlite")
    connection.preload_driver("mysql")  # no driver modules known: nothing to do
    assert started == ["kconnect-preload-postgresql", "kconnect-preload-sqlite"]
    assert {"psycopg", "sqlite3"} <= set(sys.modules)
