"""``FileStreamSinkConnector``: writes the values of records from ``topics`` to a file.

Configs as Kafka's: ``file`` (empty/absent = standard output) plus the sink ``topics`` /
``topics.regex``. ``tasks.max`` task configs, each a copy of the connector config.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import (
    AbstractConfig,
    ConfigDef,
    ConfigType,
    Importance,
    SinkConnector,
    Task,
    TopicPartition,
)
from kconnect.connectors.file._version import VERSION
from kconnect.connectors.file.sink_task import FileStreamSinkTask

__all__ = ["CONFIG_DEF", "FileStreamSinkConnector"]

FILE_CONFIG = "file"

CONFIG_DEF = ConfigDef().define(
    FILE_CONFIG,
    ConfigType.STRING,
    None,
    None,
    Importance.HIGH,
    "Destination filename. If not specified, the standard output will be used",
)


class FileStreamSinkConnector(SinkConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.file.FileStreamSinkConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        AbstractConfig(CONFIG_DEF, props)
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        # Offsets live only in the consumer group; nothing external to change or validate.
        return True
