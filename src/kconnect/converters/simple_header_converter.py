"""``org.apache.kafka.connect.storage.SimpleHeaderConverter``: header values as inferred strings.

Writes ``Values.convertToString`` in UTF-8 and reads with ``Values.parseString``, which infers
booleans, numbers, arrays, maps, dates/times/timestamps and strings (see
:mod:`kconnect.api.data.values`). A value that cannot be decoded is returned as BYTES, as
Kafka does. Stateless and thread-safe; ``configure`` accepts and ignores any settings.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kconnect._hot_path import native
from kconnect.api import ConfigDef, HeaderConverter, Schema, SchemaAndValue
from kconnect.api.data.java_strings import Float32
from kconnect.api.data.values import convert_to_string, parse_string
from kconnect.converters.string_converter import kconnect_version

_NULL_SV = SchemaAndValue(None, None)

__all__ = ["SimpleHeaderConverter"]

log = logging.getLogger(__name__)

_CONFIG_DEF = ConfigDef()


class SimpleHeaderConverter(HeaderConverter):
    """Header values as strings whose type is inferred when read."""

    __kconnect_class_name__ = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

    def __init__(self) -> None:
        self._native: Any = None

    def version(self) -> str:
        return kconnect_version()

    def config(self) -> ConfigDef:
        return _CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def native_converter(self) -> Any:
        """The native form (None on the pure-Python path): writes strings, integers and
        booleans, and reads text that is plainly a STRING (starting with a letter, not a
        literal); everything else comes back to this converter. One per instance: the worker
        makes one header converter per task."""
        if native is not None and self._native is None:
            self._native = native.Converter.simple_header(Schema.STRING_SCHEMA)
        return self._native

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        if value is None:
            return _NULL_SV
        try:
            return parse_string(bytes(value).decode("utf-8", "replace"))
        except Exception as e:  # the parser is total; this guards against the unforeseen
            log.warning(
                "Failed to deserialize value for header '%s' on topic '%s', so using "
                "byte array: %s",
                header_key,
                topic,
                e,
            )
            return SchemaAndValue(Schema.BYTES_SCHEMA, bytes(value))

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        if value is None:
            return None
        if schema is None and value.__class__ is Float32:
            schema = Schema.FLOAT32_SCHEMA  # a Java Float: Float.toString
        text = convert_to_string(schema, value)
        assert text is not None
        return text.encode("utf-8", "replace")

    def close(self) -> None:
        """Nothing to release."""
