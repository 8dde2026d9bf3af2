"""Fixtures shared by the PostgreSQL integration tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest


@pytest.fixture
def db(pg_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit connection to the test database."""
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture
def table_name(db: psycopg.Connection[Any]) -> Iterator[str]:
    """A fresh table name, dropped after the test."""
    name = "sink_" + uuid.uuid4().hex[:10]
    yield name
    db.execute(f'DROP TABLE IF EXISTS "{name}"')
