"""``PostgresConnector``: the native Debezium PostgreSQL source connector (one task, as
Debezium's).

Not registered under ``io.debezium.connector.postgresql.PostgresConnector`` yet (issue 35: that
name still runs Debezium's jar through the Java plugin host); it is run by its Python name,
``kconnect.connectors.debezium.postgres.connector.PostgresConnector``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import (
    Config,
    ConfigDef,
    ConfigException,
    ExactlyOnceSupport,
    SourceConnector,
    Task,
)
from kconnect.connectors.debezium.postgres.config import CONFIG_DEF, PostgresConnectorConfig
from kconnect.connectors.debezium.postgres.source_info import DEBEZIUM_VERSION
from kconnect.connectors.debezium.postgres.task import PostgresConnectorTask

__all__ = ["PostgresConnector"]


class PostgresConnector(SourceConnector):
    """Settings checked at start; the task does the work."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return DEBEZIUM_VERSION

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def task_class(self) -> type[Task]:
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
            PostgresConnectorConfig(connector_configs)
        except ConfigException as e:
            name = getattr(e, "config_name", None) or "topic.prefix"
            for value in result.config_values():
                if value.name == name:
                    value.add_error_message(str(e))
        return result

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """Unsupported by the native connector for now (Debezium declares it supported)."""
        return ExactlyOnceSupport.UNSUPPORTED
