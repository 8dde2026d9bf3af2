"""The result of validating one config key (``ConfigValue``) and a whole config (``Config``).

``ConfigDef.validate`` produces one :class:`ConfigValue` per key instead of raising on the first
problem; ``Connector.validate`` returns them wrapped in a :class:`Config`, and the runtime turns
them into the REST ``/config/validate`` response (see :mod:`kconnect.api.config_infos`).
"""

from __future__ import annotations

import dataclasses

__all__ = ["Config", "ConfigValue"]


@dataclasses.dataclass(eq=True)
class ConfigValue:
    """The parsed value of one key, its recommended values, errors and visibility.

    ``value`` is the parsed value (``None`` when missing or unparseable); ``errors`` holds
    human-readable messages, each counted once in the REST ``error_count``. A :class:`Password`
    value shows as ``[hidden]`` in ``repr()``.
    """

    name: str
    value: object = None
    recommended_values: list[object] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    visible: bool = True

    def add_error_message(self, message: str) -> None:
        """Record a problem with this key."""
        self.errors.append(message)

    @property
    def error_messages(self) -> list[str]:
        """Kafka's name for :attr:`errors`."""
        return self.errors


class Config:
    """The validation result for a whole connector config: one :class:`ConfigValue` per key."""

    def __init__(self, config_values: list[ConfigValue]) -> None:
        self._config_values = list(config_values)

    def config_values(self) -> list[ConfigValue]:
        """The validated keys, in order."""
        return self._config_values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other._config_values == self._config_values

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Config({self._config_values!r})"
