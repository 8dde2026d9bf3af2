"""The JDBC source and sink pass kconnect.testing's connector conformance suite against the real
PostgreSQL (resolved by their Confluent class names; the SQLite run is in
tests/unit/connectors/jdbc/test_conformance.py). Each test works in a schema of its own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from kconnect.testing.conformance.connectors import (
    SinkConnectorConformance,
    SourceOffsetsConformance,
)

psycopg = pytest.importorskip("psycopg")

pytestmark = pytest.mark.postgres

TABLES = ("orders", "users")


def _connection(pg_dsn: str) -> dict[str, str]:
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    return {
        "connection.url": (
            f"jdbc:postgresql://{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/"
            f"{info['dbname']}"
        ),
        "connection.user": str(info.get("user", "")),
        "connection.password": str(info.get("password", "")),
    }


class _Schema:
    @pytest.fixture(autouse=True)
    def _schema(self, pg_dsn: str) -> Iterator[None]:
        self.schema = f"conformance_{uuid.uuid4().hex[:10]}"
        self.connection = _connection(pg_dsn)
        self.db: Any = psycopg.connect(pg_dsn, autocommit=True)
        self.db.execute(f'CREATE SCHEMA "{self.schema}"')
        for table in TABLES:  # two tables: tasks.max=2 gives two source tasks
            self.db.execute(
                f'CREATE TABLE "{self.schema}".{table} (id serial PRIMARY KEY, v text NOT NULL)'
            )
        yield
        self.db.execute(f'DROP SCHEMA "{self.schema}" CASCADE')
        self.db.close()


class TestJdbcSourceOnPostgres(_Schema, SourceOffsetsConformance):
    connector_class = "io.confluent.connect.jdbc.JdbcSourceConnector"

    def connector_config(self) -> dict[str, str]:
        return {
            **self.connection,
            "schema.pattern": self.schema,
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "topic.prefix": "conformance_",
            "poll.interval.ms": "10",
        }

    def add_source_data(self, round: int) -> None:
        for table in TABLES:
            self.db.execute(
                f'INSERT INTO "{self.schema}".{table} (v) '
                f"SELECT 'round {round} row ' || i FROM generate_series(1, 3) AS i"
            )


class TestJdbcSinkOnPostgres(_Schema, SinkConnectorConformance):
    connector_class = "io.confluent.connect.jdbc.JdbcSinkConnector"

    def connector_config(self) -> dict[str, str]:
        return {
            **self.connection,
            "topics": "conformance_orders",
            "table.name.format": f"{self.schema}.${{topic}}",
        }
