"""``FileStreamSourceConnector``: streams lines of one file (or stdin) into a topic.

Configs as Kafka's (declared in :mod:`~kconnect.connectors.file.source_config`): ``file``
(empty/absent = standard input), ``topic`` (required), ``batch.size`` (2000, records per
poll). One task: the task config is the connector config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConnectException, ExactlyOnceSupport, SourceConnector, Task
from kconnect.connectors.file._version import VERSION
from kconnect.connectors.file.source_config import (
    CONFIG_DEF,
    DEFAULT_TASK_BATCH_SIZE,
    FILE_CONFIG,
    TASK_BATCH_SIZE_CONFIG,
    TOPIC_CONFIG,
    FileStreamSourceConfig,
)
from kconnect.connectors.file.source_task import (
    FILENAME_FIELD,
    POSITION_FIELD,
    FileStreamSourceTask,
)

# The config names are importable from here too, as Kafka has them on the connector.
__all__ = [
    "CONFIG_DEF",
    "DEFAULT_TASK_BATCH_SIZE",
    "FILE_CONFIG",
    "TASK_BATCH_SIZE_CONFIG",
    "TOPIC_CONFIG",
    "FileStreamSourceConnector",
]


class FileStreamSourceConnector(SourceConnector):
    """Reads a file line by line; see the module docstring."""

    __kconnect_class_name__ = "org.apache.kafka.connect.file.FileStreamSourceConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        FileStreamSourceConfig(props)  # fail fast on a bad config
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        # Only one input stream makes sense.
        return [dict(self._props)]

    def stop(self) -> None:
        """Nothing to release: the task owns the file."""

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        # Exactly once is possible for a real file that is only appended to; not for stdin.
        filename = FileStreamSourceConfig(connector_config).filename
        return ExactlyOnceSupport.SUPPORTED if filename else ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    ) -> bool:
        for partition, offset in offsets.items():
            if offset is None:
                continue  # tombstones are always allowed, so garbage can be cleaned up
            if POSITION_FIELD not in offset:
                raise ConnectException(
                    f"Offset objects should either be null or contain the key '{POSITION_FIELD}'"
                )
            position = offset[POSITION_FIELD]
            if not isinstance(position, int) or isinstance(position, bool):
                raise ConnectException(
                    f"The value for the '{POSITION_FIELD}' key in the offset "
                    "is expected to be a Long value"
                )
            if position < 0:
                raise ConnectException(
                    f"The value for the '{POSITION_FIELD}' key in the offset "
                    "should be a non-negative value"
                )
            if partition is None:
                raise ConnectException("Partition objects cannot be null")
            if FILENAME_FIELD not in partition:
                raise ConnectException(
                    f"Partition objects should contain the key '{FILENAME_FIELD}'"
                )
        # The task checks the position against the actual file when it starts.
        return True
