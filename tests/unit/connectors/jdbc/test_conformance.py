"""The JDBC source and sink pass kconnect.testing's connector conformance suite over SQLite
files (resolved by their Confluent class names); tests/integration/test_jdbc_conformance.py runs
it over PostgreSQL. Nothing running is needed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kconnect.testing.conformance.connectors import (
    SinkConnectorConformance,
    SourceOffsetsConformance,
)

pytest.importorskip("psycopg")

TABLES = ("orders", "users")


class TestJdbcSourceOnSqlite(SourceOffsetsConformance):
    connector_class = "io.confluent.connect.jdbc.JdbcSourceConnector"

    @pytest.fixture(autouse=True)
    def _database(self, tmp_path: Path) -> None:
        self.path = tmp_path / "source.db"
        with sqlite3.connect(self.path) as db:
            for table in TABLES:  # two tables: tasks.max=2 gives two tasks
                db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")

    def connector_config(self) -> dict[str, str]:
        return {
            "connection.url": f"jdbc:sqlite:{self.path}",
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "topic.prefix": "conformance_",
            "poll.interval.ms": "10",
        }

    def add_source_data(self, round: int) -> None:
        with sqlite3.connect(self.path) as db:
            for table in TABLES:
                db.executemany(
                    f"INSERT INTO {table} (v) VALUES (?)",
                    [(f"round {round} row {i}",) for i in range(3)],
                )


class TestJdbcSinkOnSqlite(SinkConnectorConformance):
    connector_class = "io.confluent.connect.jdbc.JdbcSinkConnector"

    @pytest.fixture(autouse=True)
    def _database(self, tmp_path: Path) -> None:
        self.path = tmp_path / "sink.db"

    def connector_config(self) -> dict[str, str]:
        return {"connection.url": f"jdbc:sqlite:{self.path}", "topics": "conformance_orders"}
