"""``FileConfigProvider``: values from a Java ``.properties`` file (``${file:/path:key}``).

Same name, settings and behaviour as ``org.apache.kafka.common.config.provider.FileConfigProvider``:
the path is a properties file, the key a property in it; ``allowed.paths`` restricts which files
may be read (a path outside them yields no values and a warning). Thread-safe: every ``get``
reads the file afresh, so rotated secrets are picked up on the next connector (re)start.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import javaproperties

from kconnect.api import (
    ConfigData,
    ConfigDef,
    ConfigException,
    ConfigProvider,
    ConfigType,
    Importance,
)
from kconnect.config_providers._allowed_paths import (
    ALLOWED_PATHS_CONFIG,
    ALLOWED_PATHS_DOC,
    AllowedPaths,
)

__all__ = ["FileConfigProvider"]

log = logging.getLogger(__name__)

CONFIG_DEF = ConfigDef().define(
    ALLOWED_PATHS_CONFIG, ConfigType.STRING, None, None, Importance.MEDIUM, ALLOWED_PATHS_DOC
)


class FileConfigProvider(ConfigProvider):
    """Reads keys from properties files."""

    __kconnect_class_name__ = "org.apache.kafka.common.config.provider.FileConfigProvider"

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
        file_path = self._allowed.parse_untrusted_path(path)
        if file_path is None:
            log.warning("The path %s is not allowed to be accessed", path)
            return ConfigData({})
        try:
            with open(file_path, encoding="utf-8") as f:
                properties = javaproperties.load(f)
        except (OSError, UnicodeDecodeError) as e:
            log.error("Could not read properties from file %s: %s", path, e.__class__.__name__)
            raise ConfigException(f"Could not read properties from file {path}") from None
        if keys is None:
            return ConfigData(dict(properties))
        return ConfigData({k: properties[k] for k in keys if k in properties})
