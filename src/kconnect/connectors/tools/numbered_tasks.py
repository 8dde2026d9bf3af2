"""``NumberedTasks``: the connector half Kafka's SchemaSourceConnector, VerifiableSourceConnector
and VerifiableSinkConnector share -- it keeps its configuration and hands out ``tasks.max``
copies of it, each with ``id`` set to the task number; no settings of its own (an empty
ConfigDef), nothing to release on stop.

Mixed in before the API base class: ``class X(NumberedTasks, SourceConnector)`` with the task
class in ``task``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from kconnect.api import ConfigDef, Task
from kconnect.connectors.tools._version import VERSION

__all__ = ["ID_CONFIG", "NumberedTasks"]

#: The task setting that carries the task number (``id`` in each of Kafka's three tasks).
ID_CONFIG = "id"


class NumberedTasks:
    task: ClassVar[type[Task]]

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, ID_CONFIG: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return ConfigDef()
