"""The settings of ``FileStreamSourceConnector`` and its task, declared once.

Kafka's keys, defaults, validators and docs: ``file`` (empty/absent = standard input),
``topic`` (required, non-empty), ``batch.size`` (2000, records per poll). The connector returns
:data:`CONFIG_DEF` from ``config()`` (so ``config/validate`` reports exactly these keys) and
checks a config by building :class:`FileStreamSourceConfig`; the task reads its settings from
the same class. Both import this module; it imports only the plugin API.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import AbstractConfig, ConfigDef, ConfigType, Importance, NonEmptyString

__all__ = [
    "CONFIG_DEF",
    "DEFAULT_TASK_BATCH_SIZE",
    "FILE_CONFIG",
    "TASK_BATCH_SIZE_CONFIG",
    "TOPIC_CONFIG",
    "FileStreamSourceConfig",
]

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


class FileStreamSourceConfig(AbstractConfig):
    """A parsed source config; raises ConfigException (Kafka's messages) when it is invalid."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(CONFIG_DEF, props)

    @property
    def filename(self) -> str | None:
        """The file to read, or None for standard input (``file`` empty or absent)."""
        return self.get_string(FILE_CONFIG) or None

    @property
    def topic(self) -> str:
        return str(self.get_string(TOPIC_CONFIG))

    @property
    def batch_size(self) -> int:
        """The most records one ``poll`` returns."""
        return self.get_int(TASK_BATCH_SIZE_CONFIG)
