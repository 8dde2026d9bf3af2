"""Config providers: resolve ``${provider:path:key}`` variables in configurations (KIP-297).

The worker instantiates each provider named in ``config.providers``
(``config.providers.<name>.class``), calls ``configure`` with its
``config.providers.<name>.param.`` settings, and calls ``get`` whenever a connector
configuration that references it is started or validated, from any thread — providers must be
thread-safe. Resolved values are secrets: the runtime never shows them in REST responses,
statuses or logs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ConfigData", "ConfigProvider"]


@dataclass(frozen=True)
class ConfigData:
    """The values found at a path, and optionally how long they stay valid (ms)."""

    data: Mapping[str, str]
    ttl: int | None = field(default=None)


class ConfigProvider(ABC):
    """Looks up configuration values by path and key."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure once."""

    @abstractmethod
    def get(self, path: str, keys: set[str] | None = None) -> ConfigData:
        """The values at ``path`` (only ``keys`` if given). Missing keys are simply absent;
        an unreadable path raises :class:`~kconnect.api.errors.ConfigException`."""

    def close(self) -> None:
        """Release resources."""
