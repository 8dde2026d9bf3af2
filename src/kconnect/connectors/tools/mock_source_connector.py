"""``MockSourceConnector``: a source connector that delegates everything to a
:class:`~kconnect.connectors.tools.mock_connector.MockConnector` and runs
:class:`~kconnect.connectors.tools.mock_source_task.MockSourceTask`."""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import Config, ConfigDef, ConnectorContext, SourceConnector, Task
from kconnect.connectors.tools.mock_connector import MockConnector
from kconnect.connectors.tools.mock_source_task import MockSourceTask

__all__ = ["MockSourceConnector"]


class MockSourceConnector(SourceConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.MockSourceConnector"

    def __init__(self) -> None:
        self._delegate = MockConnector()

    def initialize(self, context: ConnectorContext) -> None:
        super().initialize(context)
        self._delegate.initialize(context)

    def version(self) -> str:
        return self._delegate.version()

    def start(self, props: Mapping[str, str]) -> None:
        self._delegate.start(props)

    def reconfigure(self, props: Mapping[str, str]) -> None:
        self._delegate.reconfigure(props)

    def task_class(self) -> type[Task]:
        return MockSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return self._delegate.task_configs(max_tasks)

    def stop(self) -> None:
        self._delegate.stop()

    def config(self) -> ConfigDef:
        return self._delegate.config()

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        return self._delegate.validate(connector_configs)
