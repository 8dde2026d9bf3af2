"""``org.apache.kafka.connect.converters.ByteArrayConverter``: bytes pass through unchanged.

Writes a BYTES (or schemaless) value as its bytes and reads every value as OPTIONAL_BYTES. Any
other schema type or value type raises DataException. Also a HeaderConverter. Stateless: the
worker may call it from the task thread without configuration beyond ``configure``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kconnect._hot_path import native
from kconnect.api import (
    ConfigDef,
    DataException,
    Headers,
    Schema,
    SchemaAndValue,
    Type,
)
from kconnect.converters.data_header_converter import DataHeaderConverter
from kconnect.converters.string_converter import (
    converter_config_def,
    converter_type,
    kconnect_version,
)

__all__ = ["ByteArrayConverter"]

_CONFIG_DEF = converter_config_def()
_BYTES_TYPES = (bytes, bytearray, memoryview)


class ByteArrayConverter(DataHeaderConverter):
    """Pass-through of raw bytes; schema must be BYTES or None."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.ByteArrayConverter"

    def __init__(self) -> None:
        self._native: Any = None

    def version(self) -> str:
        return kconnect_version()

    def native_converter(self) -> Any:
        """The native form (None on the pure-Python path)."""
        if native is not None and self._native is None:
            self._native = native.Converter.byte_array(Schema.OPTIONAL_BYTES_SCHEMA)
        return self._native

    def config(self) -> ConfigDef:
        return _CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        converter_type(configs, is_key)  # validates converter.type when given

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BYTES:
            raise DataException(f"Invalid schema type for ByteArrayConverter: {schema.type.name}")
        if value is None or type(value) is bytes:
            return value
        if isinstance(value, _BYTES_TYPES):
            return bytes(value)
        raise DataException(
            f"ByteArrayConverter is not compatible with objects of type {type(value).__name__}"
        )

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, value)

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        slow = self.from_connect_data
        return [
            v if type(v) is bytes and (s is None or s.type is Type.BYTES) else slow(topic, s, v)
            for s, v in items
        ]

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        schema = Schema.OPTIONAL_BYTES_SCHEMA
        return [SchemaAndValue(schema, v) for v in values]

    def close(self) -> None:
        """Nothing to release."""
