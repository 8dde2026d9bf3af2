"""``JdbcSourceConnector`` (``io.confluent.connect.jdbc.JdbcSourceConnector``): copies tables
or a query result from PostgreSQL/SQLite into Kafka, config-compatible with Confluent's 10.8.

Lifecycle (connector thread): ``start`` validates the config, connects (fails fast when the
database is unreachable), lists the tables once and starts :class:`TableMonitorThread`;
``task_configs(max_tasks)`` splits the tables into ``min(#tables, max_tasks)`` contiguous
groups as Kafka's ``ConnectorUtils.groupPartitions`` (query mode: one task); ``stop`` stops
the monitor and closes the connection.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from kconnect.api import Config, ConfigDef, ExactlyOnceSupport, SourceConnector, Task
from kconnect.connectors.jdbc.common.connection import ConnectionProvider
from kconnect.connectors.jdbc.common.identifiers import IdentifierRules, rules_for
from kconnect.connectors.jdbc.common.version import VERSION
from kconnect.connectors.jdbc.source.source_config import (
    CONFIG_DEF,
    MODE_INCREMENTING,
    MODE_TIMESTAMP_INCREMENTING,
    JdbcSourceConfig,
)
from kconnect.connectors.jdbc.source.table_monitor import TableFilter, TableMonitorThread

__all__ = ["JdbcSourceConnector", "group_partitions"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def group_partitions(elements: Sequence[T], num_groups: int) -> list[list[T]]:
    """Kafka's ``ConnectorUtils.groupPartitions``: contiguous groups, the first
    ``len % num_groups`` groups one element larger."""
    if num_groups <= 0:
        raise ValueError("Number of groups must be positive.")
    per, extra = divmod(len(elements), num_groups)
    out, i = [], 0
    for g in range(num_groups):
        size = per + (1 if g < extra else 0)
        out.append(list(elements[i : i + size]))
        i += size
    return out


class JdbcSourceConnector(SourceConnector):
    """See the module docstring."""

    __kconnect_class_name__ = "io.confluent.connect.jdbc.JdbcSourceConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._config: JdbcSourceConfig | None = None
        self._provider: ConnectionProvider | None = None
        self._monitor: TableMonitorThread | None = None
        self._rules: IdentifierRules | None = None

    def version(self) -> str:
        return VERSION

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def task_class(self) -> type[Task]:
        # imported when tasks are made: a worker loads every plugin at start-up, and
        # the JDBC driver need not be imported by workers that never run this connector
        from kconnect.connectors.jdbc.source.source_task import JdbcSourceTask

        return JdbcSourceTask

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        result = super().validate(connector_configs)
        try:
            JdbcSourceConfig(connector_configs).check()
        except Exception as e:
            for value in result.config_values():
                if value.name == getattr(e, "config_name", None) or (
                    getattr(e, "config_name", None) is None and value.name == "mode"
                ):
                    value.add_error_message(str(e))
        return result

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """SUPPORTED in ``incrementing`` and ``timestamp+incrementing`` modes: their offsets
        name exactly the last row delivered, so committing rows and offsets in one
        transaction delivers each row once. Not in ``bulk`` mode (no offsets: every poll
        copies the whole table again) nor ``timestamp`` mode (rows sharing the last timestamp
        can be re-read or missed whatever the transaction)."""
        try:
            mode = JdbcSourceConfig(connector_config).mode
        except Exception:
            return ExactlyOnceSupport.UNSUPPORTED
        if mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING):
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        config = JdbcSourceConfig(props)
        config.check()
        self._config = config
        self._provider = ConnectionProvider.from_config(config.props)
        self._rules = rules_for(
            self._provider.dialect, config.get_string("quote.sql.identifiers") or "always"
        )
        self._provider.get()  # fail fast: unreachable database ⇒ the connector fails
        if config.query:
            return
        self._monitor = TableMonitorThread(
            self._provider,
            self.context,
            TableFilter(
                self._rules,
                config.get_list("table.whitelist"),
                config.get_list("table.blacklist"),
                config.get_list("table.include.list"),
                config.get_list("table.exclude.list"),
            ),
            config.get_list("table.types"),
            config.get_string("catalog.pattern"),
            config.get_string("schema.pattern"),
            config.get_long("table.poll.interval.ms"),
        )
        self._monitor.refresh()
        self._monitor.start()

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        assert self._config is not None and self._rules is not None
        base = dict(self._props)
        if self._config.query:
            return [{**base, "tables": "", "tables.fetched": "true"}]
        tables = self._monitor.tables() if self._monitor is not None else None
        if tables is None:
            return [{**base, "tables": "", "tables.fetched": "false"}]
        if not tables:
            log.warning("No tables match the configured filters; the task will fail")
            return [{**base, "tables": "", "tables.fetched": "true"}]
        quoting = IdentifierRules(self._rules.quote_char, True, False)
        configs = []
        for group in group_partitions(tables, min(len(tables), max_tasks)):
            configs.append(
                {
                    **base,
                    "tables": ",".join(quoting.quote_table(t) for t in group),
                    "tables.fetched": "true",
                }
            )
        return configs

    def stop(self) -> None:
        monitor, self._monitor = self._monitor, None
        if monitor is not None:
            monitor.shutdown()
        provider, self._provider = self._provider, None
        if provider is not None:
            provider.close()

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    ) -> bool:
        # Offsets are plain maps owned by Connect; any well-formed one is accepted.
        return False
