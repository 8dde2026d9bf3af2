"""``VerifiableSinkConnector``: ``tasks.max`` copies of its config, each with ``id`` set to the
task number, for :class:`~kconnect.connectors.tools.verifiable_sink_task.VerifiableSinkTask`.
No settings of its own beyond the sink ``topics`` / ``topics.regex``, as Kafka's."""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import ConfigDef, SinkConnector, Task
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.verifiable_sink_task import ID_CONFIG, VerifiableSinkTask

__all__ = ["VerifiableSinkConnector"]


class VerifiableSinkConnector(SinkConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.VerifiableSinkConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return VerifiableSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, ID_CONFIG: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return ConfigDef()
