"""``FileStreamSinkConnector``: writes the values of records from ``topics`` to a file.

Configs as Kafka's (declared in :mod:`~kconnect.connectors.file.sink_config`): ``file``
(empty/absent = standard output) plus the sink ``topics`` / ``topics.regex``. ``tasks.max``
task configs, each a copy of the connector config.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import ConfigDef, SinkConnector, Task, TopicPartition
from kconnect.connectors.file._version import VERSION
from kconnect.connectors.file.sink_config import CONFIG_DEF, FILE_CONFIG, FileStreamSinkConfig
from kconnect.connectors.file.sink_task import FileStreamSinkTask

# CONFIG_DEF and FILE_CONFIG are importable from here too, as Kafka has them on the connector.
__all__ = ["CONFIG_DEF", "FILE_CONFIG", "FileStreamSinkConnector"]


class FileStreamSinkConnector(SinkConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.file.FileStreamSinkConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        FileStreamSinkConfig(props)  # fail fast on a bad config
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
