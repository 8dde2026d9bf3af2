"""Typed access to a parsed configuration (``org.apache.kafka.common.config.AbstractConfig``).

A component subclasses :class:`AbstractConfig` with its :class:`~kconnect.api.config_def.ConfigDef`,
builds it from the string map it is given in ``start``/``configure``, and reads typed values::

    class FileSinkConfig(AbstractConfig):
        def __init__(self, props: Mapping[str, object]) -> None:
            super().__init__(CONFIG_DEF, props)

    config = FileSinkConfig(props)      # raises ConfigException on a bad config
    path = config.get_string("file")

Keys that are read are remembered, so :meth:`AbstractConfig.unused` can name keys that were
supplied but never used (usually typos).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from kconnect.api._config_def import ConfigDef
from kconnect.api.config_types import Password, java_str
from kconnect.api.errors import ConfigException

__all__ = ["AbstractConfig"]

_V = TypeVar("_V")


class _RecordingDict(dict[str, _V]):
    """A dict that marks keys as used in its config when they are read."""

    def __init__(
        self,
        config: AbstractConfig,
        data: Mapping[str, _V] | None = None,
        prefix: str = "",
        with_ignore_fallback: bool = False,
    ) -> None:
        super().__init__(data or {})
        self._config = config
        self._prefix = prefix
        self._with_ignore_fallback = with_ignore_fallback

    def _record(self, key: object) -> None:
        if isinstance(key, str):
            self._config.ignore(self._prefix + key)
            if self._with_ignore_fallback:
                self._config.ignore(key)

    def __getitem__(self, key: str) -> _V:
        self._record(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        """Read ``key`` (marking it used)."""
        self._record(key)
        return super().get(key, default)


class AbstractConfig:
    """A parsed configuration with typed getters and used-key tracking.

    The constructor parses ``originals`` with ``definition`` (all keys, defaults filled in)
    and raises :class:`ConfigException` at the first problem. Instances are read-only apart
    from used-key tracking, which is thread-safe. ``repr()`` shows parsed values with secrets
    hidden; the originals (which may hold secrets) are never shown.
    """

    def __init__(
        self, definition: ConfigDef, originals: Mapping[str, object], *, do_log: bool = False
    ) -> None:
        for key, value in originals.items():
            if not isinstance(key, str):
                raise ConfigException(java_str(key), java_str(value), "Key must be a string.")
        self._definition = definition
        self._originals: dict[str, object] = dict(originals)
        self._used: set[str] = set()
        self._lock = threading.Lock()
        values = definition.parse(self._originals)
        updates = self.post_process_parsed_config(dict(values))
        if updates:
            values.update(updates)
            values = definition.parse(values)
        self._values = values
        if do_log:
            self.log_all()

    def post_process_parsed_config(
        self, parsed_values: Mapping[str, object]
    ) -> Mapping[str, object]:
        """Hook for subclasses: values to override after parsing (they are parsed again)."""
        return {}

    @property
    def definition(self) -> ConfigDef:
        """The definition this config was parsed with."""
        return self._definition

    # -- reading values -------------------------------------------------------------------------

    def get(self, key: str) -> object:
        """The parsed value of ``key``, marking it used.

        Raises:
            ConfigException: ``key`` is not defined ("Unknown configuration 'key'").
        """
        if key not in self._values:
            raise ConfigException(f"Unknown configuration '{key}'")
        self.ignore(key)
        return self._values[key]

    def get_short(self, key: str) -> int:
        """A SHORT value (``None`` if the key's value is null)."""
        return cast(int, self.get(key))

    def get_int(self, key: str) -> int:
        """An INT value (``None`` if the key's value is null)."""
        return cast(int, self.get(key))

    def get_long(self, key: str) -> int:
        """A LONG value (``None`` if the key's value is null)."""
        return cast(int, self.get(key))

    def get_double(self, key: str) -> float:
        """A DOUBLE value (``None`` if the key's value is null)."""
        return cast(float, self.get(key))

    def get_boolean(self, key: str) -> bool:
        """A BOOLEAN value (``None`` if the key's value is null)."""
        return cast(bool, self.get(key))

    def get_list(self, key: str) -> list[str]:
        """A LIST value (``None`` if the key's value is null)."""
        return cast(list[str], self.get(key))

    def get_string(self, key: str) -> str | None:
        """A STRING value."""
        return cast("str | None", self.get(key))

    def get_password(self, key: str) -> Password | None:
        """A PASSWORD value; call ``.value()`` on it for the secret."""
        return cast("Password | None", self.get(key))

    def get_class(self, key: str) -> str | type | None:
        """A CLASS value: the class name as configured, or a Python class if one was given."""
        return cast("str | type | None", self.get(key))

    # -- used-key tracking ----------------------------------------------------------------------

    def ignore(self, key: str) -> None:
        """Mark ``key`` as used without reading it."""
        with self._lock:
            self._used.add(key)

    @property
    def used(self) -> frozenset[str]:
        """The keys read so far."""
        with self._lock:
            return frozenset(self._used)

    def unused(self) -> set[str]:
        """Original keys that were never read (typos, or keys for another component)."""
        with self._lock:
            return set(self._originals) - self._used

    def log_unused(self) -> None:
        """Log a warning for every unused key."""
        for key in sorted(self.unused()):
            self._logger().warning(
                "The configuration '%s' was supplied but isn't a known config.", key
            )

    # -- maps -----------------------------------------------------------------------------------

    def originals(self, overrides: Mapping[str, object] | None = None) -> dict[str, object]:
        """A copy of the original settings (plus ``overrides``); reads mark keys used."""
        result: dict[str, object] = _RecordingDict(self, self._originals)
        if overrides:
            result.update(overrides)
        return result

    def originals_strings(self) -> dict[str, str]:
        """The original settings, all of which must be strings.

        Raises:
            TypeError: a value is not a string.
        """
        result: dict[str, str] = _RecordingDict(self)
        for key, value in self._originals.items():
            if not isinstance(value, str):
                kind = None if value is None else type(value).__qualname__
                raise TypeError(
                    f"Non-string value found in original settings for key {key}: {kind}"
                )
            dict.__setitem__(result, key, value)
        return result

    def originals_with_prefix(self, prefix: str, strip: bool = True) -> dict[str, object]:
        """Original settings whose key starts with ``prefix`` (and is longer than it).

        With ``strip`` the prefix is removed from the returned keys.
        """
        result: dict[str, object] = _RecordingDict(self, prefix=prefix if strip else "")
        for key, value in self._originals.items():
            if key.startswith(prefix) and len(key) > len(prefix):
                dict.__setitem__(result, key[len(prefix) :] if strip else key, value)
        return result

    def values_with_prefix_override(self, prefix: str) -> dict[str, object]:
        """All parsed values, with ``prefix + key`` originals overriding ``key`` (parsed).

        Useful when prefixed settings (``producer.override.``...) may override base ones.
        """
        result: dict[str, object] = _RecordingDict(self, self._values, prefix, True)
        keys = self._definition.config_keys()
        for key, value in self._originals.items():
            if key.startswith(prefix) and len(key) > len(prefix):
                stripped = key[len(prefix) :]
                config_key = keys.get(stripped)
                if config_key is not None:
                    parsed = self._definition.parse_value(config_key, value, True)
                    dict.__setitem__(result, stripped, parsed)
        return result

    def values_with_prefix_all_or_nothing(self, prefix: str) -> dict[str, object]:
        """If any ``prefix`` originals exist, the definition parsed from them alone; else values()."""
        with_prefix = self.originals_with_prefix(prefix, True)
        if not with_prefix:
            return _RecordingDict(self, self._values, "", True)
        result: dict[str, object] = _RecordingDict(self, None, prefix, True)
        for key, config_key in self._definition.config_keys().items():
            present = dict.__contains__(with_prefix, key)
            raw = dict.get(with_prefix, key)
            dict.__setitem__(result, key, self._definition.parse_value(config_key, raw, present))
        return result

    def values(self) -> dict[str, object]:
        """A copy of all parsed values; reads mark keys used."""
        return _RecordingDict(self, self._values)

    # -- misc -----------------------------------------------------------------------------------

    def _logger(self) -> logging.Logger:
        return logging.getLogger(f"{type(self).__module__}.{type(self).__qualname__}")

    def log_all(self) -> None:
        """Log every parsed value at INFO, sorted by key, secrets hidden."""
        lines = [f"{type(self).__name__} values: "]
        lines += [f"\t{k} = {java_str(self._values[k])}" for k in sorted(self._values)]
        self._logger().info("\n".join(lines))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        assert isinstance(other, AbstractConfig)
        return other._originals == self._originals

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, java_str(v)) for k, v in self._originals.items())))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={java_str(v)}" for k, v in sorted(self._values.items()))
        return f"{type(self).__name__}({shown})"

    __str__ = __repr__
