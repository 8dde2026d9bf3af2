"""The native Debezium PostgreSQL connector's ``validate`` reaches the database as Debezium's
``validateConnection`` does: a database it cannot log into, or cannot reach, is reported on
``database.hostname`` (``PUT .../config/validate`` and ``PUT /connectors/.../config`` answer
with it) -- never with the password."""

from __future__ import annotations

import pytest

from kconnect.connectors.debezium.postgres.connector import PostgresConnector
from kconnect.testing.debezium import postgres_connector_config
from kconnect.testing.ports import free_port

pytestmark = pytest.mark.postgres


def _errors(config: dict[str, str]) -> dict[str, list[str]]:
    result = PostgresConnector().validate(config)
    return {v.name: v.error_messages for v in result.config_values() if v.error_messages}


def _config(pg_dsn: str, **overrides: str) -> dict[str, str]:
    return {**postgres_connector_config(pg_dsn, "t", "srv", "slot_v"), **overrides}


def test_a_reachable_database_validates(pg_dsn: str) -> None:
    assert _errors(_config(pg_dsn)) == {}


def test_a_wrong_password_is_reported_on_the_hostname(pg_dsn: str) -> None:
    errors = _errors(_config(pg_dsn, **{"database.password": "wrong-secret-42"}))
    assert list(errors) == ["database.hostname"]
    (message,) = errors["database.hostname"]
    assert message.startswith("Error while validating connector config: ")
    assert "password authentication failed" in message
    assert "wrong-secret-42" not in message


def test_an_unreachable_database_is_reported_on_the_hostname(pg_dsn: str) -> None:
    errors = _errors(_config(pg_dsn, **{"database.port": str(free_port())}))
    (message,) = errors["database.hostname"]
    assert message.startswith("Error while validating connector config: ")
    assert "refused" in message.lower()
