"""``DirectoryConfigProvider``: one value per file in a directory (``${dir:/run/secrets:db_pass}``).

Same name, settings and behaviour as
``org.apache.kafka.common.config.provider.DirectoryConfigProvider``: the path is a directory,
each regular file in it a key (its name) whose value is the file's whole UTF-8 content, as
Kubernetes and Docker mount secrets. ``allowed.paths`` restricts which directories may be read.
"""

from __future__ import annotations

import logging
import os

from kconnect.api import (
    ConfigData,
    ConfigException,
)
from kconnect.config_providers._allowed_paths import PathConfigProvider

__all__ = ["DirectoryConfigProvider"]

log = logging.getLogger(__name__)


class DirectoryConfigProvider(PathConfigProvider):
    """Reads each regular file of a directory as one value."""

    __kconnect_class_name__ = "org.apache.kafka.common.config.provider.DirectoryConfigProvider"

    def _read(self, directory: str, path: str, keys: set[str] | None) -> ConfigData:
        if not os.path.isdir(directory):
            log.warning("The path %s is not a directory", path)
            return ConfigData({})
        try:
            names = os.listdir(directory)
        except OSError:
            raise ConfigException(f"Could not list directory {directory}") from None
        data: dict[str, str] = {}
        for name in names:
            if keys is not None and name not in keys:
                continue
            file_path = os.path.join(directory, name)
            if not os.path.isfile(file_path):
                continue
            try:
                with open(file_path, encoding="utf-8") as f:
                    data[name] = f.read()
            except (OSError, UnicodeDecodeError):
                raise ConfigException(
                    f"Could not read file {file_path} for property {name}"
                ) from None
        return ConfigData(data)
