"""``SchemaSourceConnector``: ``tasks.max`` copies of its config, each with ``id`` set to the
task number, for :class:`~kconnect.connectors.tools.schema_source_task.SchemaSourceTask`.
No settings of its own (an empty ConfigDef), as Kafka's."""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import ConfigDef, SourceConnector, Task
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.schema_source_task import ID_CONFIG, SchemaSourceTask

__all__ = ["SchemaSourceConnector"]


class SchemaSourceConnector(SourceConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.SchemaSourceConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return SchemaSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, ID_CONFIG: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return ConfigDef()
