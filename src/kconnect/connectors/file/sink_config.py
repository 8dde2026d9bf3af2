"""The settings of ``FileStreamSinkConnector`` and its task, declared once.

Kafka's one key: ``file`` (empty/absent = standard output); the sink ``topics`` /
``topics.regex`` belong to the runtime. The connector returns :data:`CONFIG_DEF` from
``config()`` and checks a config by building :class:`FileStreamSinkConfig`; the task reads
its settings from the same class. Both import this module; it imports only the plugin API.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import AbstractConfig, ConfigDef, ConfigType, Importance

__all__ = ["CONFIG_DEF", "FILE_CONFIG", "FileStreamSinkConfig"]

FILE_CONFIG = "file"

CONFIG_DEF = ConfigDef().define(
    FILE_CONFIG,
    ConfigType.STRING,
    None,
    None,
    Importance.HIGH,
    "Destination filename. If not specified, the standard output will be used",
)


class FileStreamSinkConfig(AbstractConfig):
    """A parsed sink config; raises ConfigException (Kafka's messages) when it is invalid."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(CONFIG_DEF, props)

    @property
    def filename(self) -> str | None:
        """The file to append to, or None for standard output (``file`` empty or absent)."""
        return self.get_string(FILE_CONFIG) or None
