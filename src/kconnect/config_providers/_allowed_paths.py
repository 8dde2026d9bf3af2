"""``allowed.paths``: the directories a file-reading config provider may read from.

Mirrors Kafka's ``AllowedPaths``: the setting is a comma-separated list of absolute paths that
must exist; a requested path is allowed when its normalised form lies under one of them. When
the setting is absent or empty every path is allowed.
"""

from __future__ import annotations

import os
from pathlib import PurePath

from kconnect.api.errors import ConfigException

__all__ = ["ALLOWED_PATHS_CONFIG", "ALLOWED_PATHS_DOC", "AllowedPaths"]

ALLOWED_PATHS_CONFIG = "allowed.paths"
ALLOWED_PATHS_DOC = (
    "A comma separated list of paths that this config provider is allowed to access. "
    "If not set, all paths are allowed."
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
