"""``JdbcSinkConnector``: Confluent's ``io.confluent.connect.jdbc.JdbcSinkConnector`` in Python.

Writes records from Kafka topics into PostgreSQL (COPY-based fast path) or SQLite tables,
with Confluent's configuration keys (see :mod:`sink_config`). ``start`` only validates and
keeps the configuration; ``task_configs`` returns ``tasks.max`` identical copies, the consumer
group spreads the partitions among them. All methods run on the connector thread; none block.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import Config, ConfigDef, SinkConnector, Task
from kconnect.connectors.jdbc.common.version import VERSION
from kconnect.connectors.jdbc.sink.sink_config import (
    CONFIG_DEF,
    JdbcSinkConfig,
    validate_sink_config,
)

__all__ = ["JdbcSinkConnector"]


class JdbcSinkConnector(SinkConnector):
    """The JDBC sink connector (config-compatible with Confluent's 10.8.x)."""

    __kconnect_class_name__ = "io.confluent.connect.jdbc.JdbcSinkConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        """Keep the configuration after checking it parses (raises ConfigException)."""
        JdbcSinkConfig(props)
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        # imported when tasks are made: a worker loads every plugin at start-up, and
        # the JDBC driver need not be imported by workers that never run this connector
        from kconnect.connectors.jdbc.sink.sink_task import JdbcSinkTask

        return JdbcSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release: the tasks own the database connections."""

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        """Per-key validation plus Confluent's ``delete.enabled``/``pk.mode`` rule."""
        values = CONFIG_DEF.validate_all(connector_configs)
        validate_sink_config(values)
        return Config(list(values.values()))
