"""``PostgresConnector``: the native Debezium PostgreSQL source connector (one task, as
Debezium's).

Registered under Debezium's class name, ``io.debezium.connector.postgresql.PostgresConnector``:
a worker runs this one for that name, and Debezium's jar from ``plugin.path`` only with
``plugin.java.preferred=true``. Settings it does not do are refused by key
(:mod:`~kconnect.connectors.debezium.postgres.unsupported`), never silently ignored.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping

from kconnect.api import (
    Config,
    ConfigDef,
    ConfigException,
    ConfigValue,
    ExactlyOnceSupport,
    SourceConnector,
    Task,
)
from kconnect.connectors.debezium.postgres.config import CONFIG_DEF, PostgresConnectorConfig
from kconnect.connectors.debezium.postgres.source_info import DEBEZIUM_VERSION

__all__ = ["PostgresConnector"]

log = logging.getLogger(__name__)


class PostgresConnector(SourceConnector):
    """Settings checked at start; the task does the work."""

    __kconnect_class_name__ = "io.debezium.connector.postgresql.PostgresConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return DEBEZIUM_VERSION

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def task_class(self) -> type[Task]:
        # imported when tasks are made: a worker loads every plugin at start-up, and
        # psycopg and the replication client need not be imported by workers that never run this connector
        from kconnect.connectors.debezium.postgres.task import PostgresConnectorTask

        return PostgresConnectorTask

    def start(self, props: Mapping[str, str]) -> None:
        PostgresConnectorConfig(props)
        self._props = dict(props)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        """Each key's own checks, then the connector's (Debezium's messages on the key)."""
        result = super().validate(connector_configs)
        if any(v.error_messages for v in result.config_values()):
            return result
        try:
            config = PostgresConnectorConfig(connector_configs)
        except ConfigException as e:
            name = getattr(e, "config_name", None) or "topic.prefix"
            for value in result.config_values():
                if value.name == name:
                    value.add_error_message(str(e))
                    break
            else:  # a Debezium key the native connector does not define (unsupported.py)
                result.config_values().append(ConfigValue(name, e.config_value, [], [str(e)]))
            return result
        problem = _connection_problem(config)
        if problem is not None:
            for value in result.config_values():
                if value.name == "database.hostname":
                    value.add_error_message(problem)
        return result

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """SUPPORTED, as Debezium declares it. A streamed record's offset names its own change
        (``lsn_proc``, its transaction's ``txId``, the last commit before it), the records of
        one pgoutput message always go out in one batch, and a task started from a committed
        offset skips exactly what that offset says was delivered: committed with their offsets
        in one transaction, streamed changes are delivered once. A snapshot cut off is taken
        again from its start (its records do not say which row they were), as Debezium's is."""
        return ExactlyOnceSupport.SUPPORTED


def _connection_problem(config: PostgresConnectorConfig) -> str | None:
    """What Debezium's ``validateConnection`` reports on ``database.hostname``: the database
    cannot be reached or logged into within ``connection.validation.timeout.ms`` (None when it
    can). A user without the LOGIN and REPLICATION roles is only logged, as Debezium does."""
    import psycopg

    timeout_s = max(2, math.ceil(config.connection_validation_timeout_s))
    password = config.password.value() if config.password else None
    started = time.monotonic()
    try:
        with psycopg.connect(config.conninfo(), password=password, connect_timeout=timeout_s,
                             application_name="Debezium Validate Connection") as conn:  # fmt: skip
            conn.execute("SELECT version()")
            row = conn.execute(
                "SELECT rolcanlogin AND rolreplication FROM pg_roles WHERE rolname = current_user"
            ).fetchone()
            if not (row and row[0]):
                log.warning("Postgres roles LOGIN and REPLICATION are not assigned to user: %s",
                            config.user)  # fmt: skip
    except psycopg.OperationalError as e:
        if time.monotonic() - started >= timeout_s:
            return f"Connection validation timed out after {timeout_s * 1000} ms"
        return "Error while validating connector config: " + " ".join(str(e).split())
    except psycopg.Error as e:
        return "Error during connection validation: " + " ".join(str(e).split())
    return None
