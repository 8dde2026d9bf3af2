"""``EnvVarConfigProvider``: values from environment variables (``${env:DB_PASSWORD}``).

Same name, settings and behaviour as ``org.apache.kafka.common.config.provider.EnvVarConfigProvider``:
no path (a non-empty path is an error), the key is the variable name; ``allowlist.pattern``
(a regular expression matched against the whole name, default ``.*``) limits which variables
can be read. The environment is captured when the provider is created.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    ConfigData,
    ConfigDef,
    ConfigException,
    ConfigProvider,
    ConfigType,
    Importance,
)

__all__ = ["EnvVarConfigProvider"]

log = logging.getLogger(__name__)

ALLOWLIST_PATTERN_CONFIG = "allowlist.pattern"
ALLOWLIST_PATTERN_DOC = (
    "A pattern / regular expression that needs to match for environment variables to be used "
    "by this config provider."
)
CONFIG_DEF = ConfigDef().define(
    ALLOWLIST_PATTERN_CONFIG,
    ConfigType.STRING,
    None,
    None,
    Importance.MEDIUM,
    ALLOWLIST_PATTERN_DOC,
)


class EnvVarConfigProvider(ConfigProvider):
    """Reads environment variables, optionally restricted by ``allowlist.pattern``."""

    __kconnect_class_name__ = "org.apache.kafka.common.config.provider.EnvVarConfigProvider"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = dict(os.environ if env is None else env)
        self._filtered: dict[str, str] | None = None

    def config(self) -> ConfigDef:
        """The settings this provider accepts (``allowlist.pattern``)."""
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        if ALLOWLIST_PATTERN_CONFIG in configs:
            raw = str(configs[ALLOWLIST_PATTERN_CONFIG])
            try:
                pattern = re.compile(raw)
            except re.error as e:
                raise ConfigException(
                    ALLOWLIST_PATTERN_CONFIG, raw, f"Invalid regex: {e}"
                ) from None
        else:
            pattern = re.compile(".*")
            log.info("No pattern for environment variables provided. Using default pattern '(.*)'.")
        self._filtered = {k: v for k, v in self._env.items() if pattern.fullmatch(k)}

    def get(self, path: str, keys: set[str] | None = None) -> ConfigData:
        if path:
            raise ConfigException(
                f"Path is not supported for EnvVarConfigProvider, invalid value '{path}'"
            )
        if self._filtered is None:
            raise ConfigException("The provider has not been configured yet.")
        if keys is None:
            return ConfigData(dict(self._filtered))
        return ConfigData({k: v for k, v in self._filtered.items() if k in keys})
