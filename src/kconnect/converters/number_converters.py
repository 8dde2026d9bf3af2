"""Kafka's number and boolean converters (``org.apache.kafka.connect.converters``).

Each writes a value with the matching Kafka serializer -- big-endian two's complement for
Short/Integer/Long, IEEE 754 big-endian for Float/Double, one byte 0/1 for Boolean -- and reads
it back with the matching optional schema. Wrong-sized input raises DataException with the
deserializer's message; a value of the wrong type raises DataException naming its type. All are
also HeaderConverters. Configure once, then use from the task thread.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from kconnect._hot_path import native
from kconnect.api import (
    ConfigDef,
    DataException,
    Headers,
    Schema,
    SchemaAndValue,
    Type,
)
from kconnect.api.data.java_numbers import to_float32
from kconnect.converters.data_header_converter import DataHeaderConverter
from kconnect.converters.string_converter import (
    converter_config_def,
    converter_type,
    kconnect_version,
)

__all__ = [
    "BooleanConverter",
    "DoubleConverter",
    "FloatConverter",
    "IntegerConverter",
    "LongConverter",
    "ShortConverter",
]

_CONFIG_DEF = converter_config_def()


class _NumberConverter(DataHeaderConverter):
    """Shared behaviour of the fixed-width number converters (Kafka's ``NumberConverter``)."""

    type_name: ClassVar[str]
    schema: ClassVar[Schema]
    codec: ClassVar[struct.Struct]
    deserializer_name: ClassVar[str]
    floating: ClassVar[bool] = False

    def __init__(self) -> None:
        self._native: Any = None

    def version(self) -> str:
        return kconnect_version()

    def native_converter(self) -> Any:
        """The native form (None on the pure-Python path)."""
        if native is not None and self._native is None:
            self._native = native.Converter.number(self.schema, self.codec.size, self.floating)
        return self._native

    def config(self) -> ConfigDef:
        return _CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        converter_type(configs, is_key)  # validates converter.type when given

    def _pack(self, value: Any) -> bytes:
        if isinstance(value, bool) or not isinstance(value, (int, float) if self.floating else int):
            raise DataException(
                f"Failed to serialize to {self.type_name} (was {type(value).__name__}): "
                f"{value!r} is not a{'' if self.floating else 'n integral'} number"
            )
        try:
            if self.floating and self.codec.size == 4:
                value = to_float32(float(value))
            return self.codec.pack(value)
        except (struct.error, OverflowError) as e:
            raise DataException(f"Failed to serialize to {self.type_name}: {value} ({e})") from None

    def _unpack(self, value: bytes) -> Any:
        if len(value) != self.codec.size:
            raise DataException(
                f"Failed to deserialize {self.type_name}: Size of data received by "
                f"{self.deserializer_name} is not {self.codec.size}"
            )
        return self.codec.unpack(value)[0]

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        return None if value is None else self._pack(value)

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return SchemaAndValue(self.schema, None if value is None else self._unpack(value))

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        pack = self.codec.pack
        exact = float if self.floating else int
        slow = self.from_connect_data
        try:
            return [pack(v) if type(v) is exact else slow(topic, s, v) for s, v in items]
        except (struct.error, OverflowError):
            # An out-of-range value: redo one by one so the error names it.
            return [slow(topic, s, v) for s, v in items]

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        schema = self.schema
        size = self.codec.size
        unpack = self.codec.unpack
        slow = self._unpack
        return [
            SchemaAndValue(
                schema, None if v is None else unpack(v)[0] if len(v) == size else slow(v)
            )
            for v in values
        ]

    def close(self) -> None:
        """Nothing to release."""


class ShortConverter(_NumberConverter):
    """INT16, 2 bytes big-endian (``ShortSerializer``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.ShortConverter"
    type_name = "short"
    schema = Schema.OPTIONAL_INT16_SCHEMA
    codec = struct.Struct(">h")
    deserializer_name = "ShortDeserializer"


class IntegerConverter(_NumberConverter):
    """INT32, 4 bytes big-endian (``IntegerSerializer``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.IntegerConverter"
    type_name = "integer"
    schema = Schema.OPTIONAL_INT32_SCHEMA
    codec = struct.Struct(">i")
    deserializer_name = "IntegerDeserializer"


class LongConverter(_NumberConverter):
    """INT64, 8 bytes big-endian (``LongSerializer``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.LongConverter"
    type_name = "long"
    schema = Schema.OPTIONAL_INT64_SCHEMA
    codec = struct.Struct(">q")
    deserializer_name = "LongDeserializer"


class FloatConverter(_NumberConverter):
    """FLOAT32, 4 bytes IEEE 754 big-endian (``FloatSerializer``); doubles are rounded."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.FloatConverter"
    type_name = "float"
    schema = Schema.OPTIONAL_FLOAT32_SCHEMA
    codec = struct.Struct(">f")
    deserializer_name = "Deserializer"  # sic: Kafka's FloatDeserializer message says this
    floating = True


class DoubleConverter(_NumberConverter):
    """FLOAT64, 8 bytes IEEE 754 big-endian (``DoubleSerializer``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.DoubleConverter"
    type_name = "double"
    schema = Schema.OPTIONAL_FLOAT64_SCHEMA
    codec = struct.Struct(">d")
    deserializer_name = "Deserializer"  # sic: Kafka's DoubleDeserializer message says this
    floating = True


_TRUE = b"\x01"
_FALSE = b"\x00"


class BooleanConverter(DataHeaderConverter):
    """BOOLEAN as one byte, 0x01 or 0x00 (``BooleanSerializer``); reads OPTIONAL_BOOLEAN."""

    __kconnect_class_name__ = "org.apache.kafka.connect.converters.BooleanConverter"

    def __init__(self) -> None:
        self._native: Any = None

    def version(self) -> str:
        return kconnect_version()

    def native_converter(self) -> Any:
        """The native form (None on the pure-Python path)."""
        if native is not None and self._native is None:
            self._native = native.Converter.boolean(Schema.OPTIONAL_BOOLEAN_SCHEMA)
        return self._native

    def config(self) -> ConfigDef:
        return _CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        converter_type(configs, is_key)

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BOOLEAN:
            raise DataException(f"Invalid schema type for BooleanConverter: {schema.type.name}")
        if value is None:
            return None
        if value is True:
            return _TRUE
        if value is False:
            return _FALSE
        raise DataException(
            f"BooleanConverter is not compatible with objects of type {type(value).__name__}"
        )

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(Schema.OPTIONAL_BOOLEAN_SCHEMA, None)
        if len(value) != 1:
            raise DataException(
                "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1"
            )
        b = value[0]
        if b == 1:
            return SchemaAndValue(Schema.OPTIONAL_BOOLEAN_SCHEMA, True)
        if b == 0:
            return SchemaAndValue(Schema.OPTIONAL_BOOLEAN_SCHEMA, False)
        signed = b - 256 if b > 127 else b  # Java prints the signed byte
        raise DataException(
            f"Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: {signed}"
        )

    def close(self) -> None:
        """Nothing to release."""
