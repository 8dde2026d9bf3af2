"""``allowed.paths``: the directories a file-reading config provider may read from.

Mirrors Kafka's ``AllowedPaths``: the setting is a comma-separated list of absolute paths that
must exist; a requested path is allowed when its normalised form lies under one of them. When
the setting is absent or empty every path is allowed.
"""

from __future__ import annotations

import logging
import os
from abc import abstractmethod
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from kconnect.api import ConfigData, ConfigDef, ConfigProvider, ConfigType, Importance
from kconnect.api.errors import ConfigException

__all__ = ["ALLOWED_PATHS_CONFIG", "ALLOWED_PATHS_DOC", "AllowedPaths", "PathConfigProvider"]

_log = logging.getLogger("kconnect.config_providers")

ALLOWED_PATHS_CONFIG = "allowed.paths"
ALLOWED_PATHS_DOC = (
    "A comma separated list of paths that this config provider is allowed to access. "
    "If not set, all paths are allowed."
)

CONFIG_DEF = ConfigDef().define(
    ALLOWED_PATHS_CONFIG, ConfigType.STRING, None, None, Importance.MEDIUM, ALLOWED_PATHS_DOC
)


class AllowedPaths:
    """Parsed ``allowed.paths``; immutable and safe to share between threads."""

    def __init__(self, config_value: object) -> None:
        self._allowed: list[PurePath] | None = None
        if config_value is None or str(config_value) == "":
            return
        allowed = []
        for item in str(config_value).split(","):
            path = PurePath(os.path.normpath(item.strip()))
            if not path.is_absolute():
                raise ConfigException(f"Path {path} is not absolute")
            if not os.path.exists(path):
                raise ConfigException(f"Path {path} does not exist")
            allowed.append(path)
        self._allowed = allowed

    def parse_untrusted_path(self, path: str) -> str | None:
        """``path`` (normalised when restricted), or ``None`` if it lies outside every allowed path."""
        if self._allowed is None:
            return path
        normalised = PurePath(os.path.normpath(path))
        if any(normalised == a or a in normalised.parents for a in self._allowed):
            return str(normalised)
        return None


class PathConfigProvider(ConfigProvider):
    """Base of the providers that read local paths under ``allowed.paths``.

    ``get`` checks configuration, the empty path and ``allowed.paths`` (a refused path yields
    no values and a warning, as Kafka's); subclasses read the resolved path in :meth:`_read`.
    """

    def __init__(self) -> None:
        self._allowed: AllowedPaths | None = None

    def config(self) -> ConfigDef:
        """The settings this provider accepts (``allowed.paths``)."""
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._allowed = AllowedPaths(configs.get(ALLOWED_PATHS_CONFIG))

    def get(self, path: str, keys: set[str] | None = None) -> ConfigData:
        if self._allowed is None:
            raise ConfigException("The provider has not been configured yet.")
        if not path:
            return ConfigData({})
        resolved = self._allowed.parse_untrusted_path(path)
        if resolved is None:
            _log.warning("The path %s is not allowed to be accessed", path)
            return ConfigData({})
        return self._read(resolved, path, keys)

    @abstractmethod
    def _read(self, resolved: str, path: str, keys: set[str] | None) -> ConfigData:
        """The values at an allowed ``resolved`` path (``path`` as written, for messages)."""
