"""Converters: bytes <-> Connect data (``org.apache.kafka.connect.storage``).

A worker creates one key converter, one value converter and one header converter per task,
calls :meth:`Converter.configure` once (with the ``key.converter.``/``value.converter.``
prefixed settings, prefix stripped), then calls the conversion methods on the task thread
only — a converter needs no locking. ``close`` is called when the task stops.

The hot path calls the *batch* methods (:meth:`Converter.from_connect_batch`,
:meth:`Converter.to_connect_batch`); their defaults loop over the single-record methods, and
fast converters override them to work on the whole batch at once.
Conversion failures raise :class:`~kconnect.api.errors.DataException` saying what was wrong;
the runtime applies the connector's error tolerance (stage KEY/VALUE/HEADER_CONVERTER).
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.api.config_def import ConfigDef
from kconnect.api.data.schema import Schema
from kconnect.api.data.schema_and_value import SchemaAndValue
from kconnect.api.headers import Headers

__all__ = ["Converter", "ConverterType", "HeaderConverter"]


class ConverterType(enum.Enum):
    """The role a converter is configured for (``converter.type``)."""

    KEY = "key"
    VALUE = "value"
    HEADER = "header"


class Converter(ABC):
    """Converts record keys or values between Connect data and bytes."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Configure once, before any conversion."""

    @abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize a Connect value. A null value (tombstone) may return None."""

    @abstractmethod
    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize bytes (None for a tombstone) into a schema and value."""

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialize many (schema, value) pairs for one topic; override for speed."""
        f = self.from_connect_data
        return [f(topic, s, v) for s, v in items]

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        """Deserialize many values from one topic; override for speed."""
        f = self.to_connect_data
        return [f(topic, v) for v in values]

    def config(self) -> ConfigDef:
        """The converter's ConfigDef (empty by default)."""
        return ConfigDef()

    def close(self) -> None:
        """Release resources; called once when the task stops."""


class HeaderConverter(ABC):
    """Converts header values between Connect data and bytes."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure once, before any conversion."""

    @abstractmethod
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize one header value."""

    @abstractmethod
    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize one header value."""

    def config(self) -> ConfigDef:
        return ConfigDef()

    def close(self) -> None:
        """Release resources; called once when the task stops."""
