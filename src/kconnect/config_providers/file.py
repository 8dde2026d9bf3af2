"""``FileConfigProvider``: values from a Java ``.properties`` file (``${file:/path:key}``).

Same name, settings and behaviour as ``org.apache.kafka.common.config.provider.FileConfigProvider``:
the path is a properties file, the key a property in it; ``allowed.paths`` restricts which files
may be read (a path outside them yields no values and a warning). Thread-safe: every ``get``
reads the file afresh, so rotated secrets are picked up on the next connector (re)start.
"""

from __future__ import annotations

import logging

import javaproperties

from kconnect.api import (
    ConfigData,
    ConfigException,
)
from kconnect.config_providers._allowed_paths import PathConfigProvider

__all__ = ["FileConfigProvider"]

log = logging.getLogger(__name__)


class FileConfigProvider(PathConfigProvider):
    """Reads keys from properties files."""

    __kconnect_class_name__ = "org.apache.kafka.common.config.provider.FileConfigProvider"

    def _read(self, file_path: str, path: str, keys: set[str] | None) -> ConfigData:
        try:
            with open(file_path, encoding="utf-8") as f:
                properties = javaproperties.load(f)
        except (OSError, UnicodeDecodeError) as e:
            log.error("Could not read properties from file %s: %s", path, e.__class__.__name__)
            raise ConfigException(f"Could not read properties from file {path}") from None
        if keys is None:
            return ConfigData(dict(properties))
        return ConfigData({k: properties[k] for k in keys if k in properties})
