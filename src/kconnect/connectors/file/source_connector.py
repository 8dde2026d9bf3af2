"""``FileStreamSourceConnector``: streams lines of one file (or stdin) into a topic.

Configs as Kafka's: ``file`` (empty/absent = standard input), ``topic`` (required),
``batch.size`` (2000, records per poll). One task: the task config is the connector config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    AbstractConfig,
    ConfigDef,
    ConfigType,
    ConnectException,
    ExactlyOnceSupport,
    Importance,
    NonEmptyString,
    SourceConnector,
    Task,
)
from kconnect.connectors.file._version import VERSION
from kconnect.connectors.file.source_task import (
    FILENAME_FIELD,
    POSITION_FIELD,
    FileStreamSourceTask,
)

__all__ = ["CONFIG_DEF", "FileStreamSourceConnector"]

TOPIC_CONFIG = "topic"
FILE_CONFIG = "file"
TASK_BATCH_SIZE_CONFIG = "batch.size"
DEFAULT_TASK_BATCH_SIZE = 2000

CONFIG_DEF = (
    ConfigDef()
    .define(
        FILE_CONFIG,
        ConfigType.STRING,
        None,
        None,
        Importance.HIGH,
        "Source filename. If not specified, the standard input will be used",
    )
    .define(
        TOPIC_CONFIG,
        ConfigType.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        NonEmptyString(),
        Importance.HIGH,
        "The topic to publish data to",
    )
    .define(
        TASK_BATCH_SIZE_CONFIG,
        ConfigType.INT,
        DEFAULT_TASK_BATCH_SIZE,
        None,
        Importance.LOW,
        "The maximum number of records the source task can read from the file each time "
        "it is polled",
    )
)


class FileStreamSourceConnector(SourceConnector):
    """Reads a file line by line; see the module docstring."""

    __kconnect_class_name__ = "org.apache.kafka.connect.file.FileStreamSourceConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        AbstractConfig(CONFIG_DEF, props)  # fail fast on a bad config
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
        filename = AbstractConfig(CONFIG_DEF, connector_config).get_string(FILE_CONFIG)
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
