"""``org.apache.kafka.connect.storage.StringConverter``: values as strings in a configurable charset.

Reads every value as OPTIONAL_STRING; writes the value's Java ``toString`` form (strings as
they are, numbers and booleans as Java prints them) in ``converter.encoding`` (UTF-8 by
default). Malformed input bytes become U+FFFD and unmappable characters ``?``, as with Java's
``new String(bytes, charset)`` and ``String.getBytes(charset)``. Also a HeaderConverter.

Lifecycle: the worker calls ``configure`` once per task (``configure(configs, is_key)`` as a
key/value converter, ``configure(configs)`` with ``converter.type=header`` as a header
converter), then the conversion methods on the task thread only.
"""

from __future__ import annotations

import base64
import codecs
import datetime as _dt
import decimal as _decimal
import importlib.metadata
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect._hot_path import FALLBACK, native
from kconnect.api import (
    NO_DEFAULT_VALUE,
    ConfigDef,
    ConfigException,
    ConfigType,
    Headers,
    Importance,
    Schema,
    SchemaAndValue,
    Struct,
    Type,
    ValidString,
    Width,
)
from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string
from kconnect.api.data.java_strings import ByteBuffer
from kconnect.converters.data_header_converter import DataHeaderConverter

__all__ = [
    "ENCODING_CONFIG",
    "TYPE_CONFIG",
    "StringConverter",
    "converter_config_def",
    "converter_type",
    "java_to_string",
    "kconnect_version",
]

TYPE_CONFIG = "converter.type"
ENCODING_CONFIG = "converter.encoding"
ENCODING_DEFAULT = "UTF-8"


def converter_config_def() -> ConfigDef:
    """A new ConfigDef holding ``converter.type`` (Kafka's ``ConverterConfig.newConfigDef``)."""
    return ConfigDef().define(
        TYPE_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT_VALUE,
        ValidString.in_("key", "value", "header"),
        Importance.LOW,
        "How this converter will be used.",
    )


def converter_type(configs: Mapping[str, Any], is_key: bool | None) -> str:
    """The converter's role: from ``is_key`` when called as a key/value converter, else from
    ``converter.type`` (``header`` when absent: the header-converter ``configure`` has no flag).

    Raises ConfigException for a ``converter.type`` other than key, value or header.
    """
    if is_key is not None:
        return "key" if is_key else "value"
    raw = configs.get(TYPE_CONFIG, "header")
    value = str(raw).strip()
    if value not in ("key", "value", "header"):
        raise ConfigException(TYPE_CONFIG, raw, "String must be one of: key, value, header")
    return value


_VERSION: str | None = None


def kconnect_version() -> str:
    """The installed kconnect version, reported by built-in plugins like Kafka's AppInfoParser."""
    global _VERSION
    if _VERSION is None:
        try:
            _VERSION = importlib.metadata.version("kconnect")
        except importlib.metadata.PackageNotFoundError:
            _VERSION = "undefined"
    return _VERSION


_CONFIG_DEF = converter_config_def().define(
    ENCODING_CONFIG,
    ConfigType.STRING,
    ENCODING_DEFAULT,
    None,
    Importance.HIGH,
    "The name of the Java character set to use for encoding strings as byte arrays.",
    width=Width.MEDIUM,
    display_name="Encoding",
)

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def java_to_string(value: Any, schema: Schema | None = None) -> str:
    """What Java's ``value.toString()`` prints for a Connect value (``None`` prints ``null``).

    Lists print ``[a, b]``, maps ``{k=v, k2=v2}``, structs ``Struct{f=v,...}``, decimals as
    ``BigDecimal.toString``, dates/times/timestamps as ``java.util.Date.toString`` in UTC. Bytes
    have no useful Java form (``[B@1a2b3c``), so they print as base64; a
    :class:`~kconnect.api.data.java_strings.ByteBuffer` prints as Java's buffer does.
    """
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if schema is not None and schema.type is Type.FLOAT32:
            return java_float_to_string(value)
        return java_double_to_string(value)
    if isinstance(value, _decimal.Decimal):
        return str(value).replace("e", "E")
    if value.__class__ is ByteBuffer:
        return value.java_string()  # what Java prints for a buffer (AvroConverter's BYTES)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_to_string(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return (
            "{"
            + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items())
            + "}"
        )
    if isinstance(value, Struct):
        return repr(value)
    if isinstance(value, (_dt.date, _dt.time)):
        return _java_date_string(value)
    return str(value)


def _java_date_string(value: _dt.date | _dt.time) -> str:
    if isinstance(value, _dt.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=_dt.UTC)
        moment = moment.astimezone(_dt.UTC)
    elif isinstance(value, _dt.date):
        moment = _dt.datetime(value.year, value.month, value.day, tzinfo=_dt.UTC)
    else:
        moment = _EPOCH.replace(
            hour=value.hour, minute=value.minute, second=value.second, microsecond=value.microsecond
        )
    return (
        f"{_DAYS[moment.weekday()]} {_MONTHS[moment.month - 1]} {moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} UTC {moment.year}"
    )


class _Charset:
    """Encode/decode like Java's charset: replacement on errors, UTF-16 big-endian with BOM."""

    __slots__ = ("codec", "name", "utf16")

    def __init__(self, name: str) -> None:
        try:
            info = codecs.lookup(name)
        except LookupError:
            raise ConfigException(
                ENCODING_CONFIG,
                name,
                "Unsupported encoding; use a Java/Python charset name such as UTF-8, "
                "ISO-8859-1, US-ASCII or UTF-16",
            ) from None
        self.name = name
        self.codec = info.name
        self.utf16 = info.name == "utf-16"

    def encode(self, text: str) -> bytes:
        if self.utf16:
            # Java's "UTF-16" writes a big-endian byte order mark; Python's uses native order.
            return b"\xfe\xff" + text.encode("utf-16-be", "replace")
        return text.encode(self.codec, "replace")

    def decode(self, data: bytes) -> str:
        if self.utf16 and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data.decode("utf-16-be", "replace")  # Java assumes big-endian without BOM
        return bytes(data).decode(self.codec, "replace")


class StringConverter(DataHeaderConverter):
    """Strings in ``converter.encoding``; reads OPTIONAL_STRING, writes ``toString``."""

    __kconnect_class_name__ = "org.apache.kafka.connect.storage.StringConverter"

    def __init__(self) -> None:
        self._serializer = _Charset(ENCODING_DEFAULT)
        self._deserializer = self._serializer
        self._utf8 = True
        self._native: Any = None

    def version(self) -> str:
        return kconnect_version()

    def config(self) -> ConfigDef:
        return _CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Read ``converter.encoding``; as in Kafka, ``key.serializer.encoding``/
        ``value.serializer.encoding`` (and the deserializer variants) override it per role."""
        role = converter_type(configs, is_key)
        encoding = configs.get(ENCODING_CONFIG, ENCODING_DEFAULT)
        encoding = ENCODING_DEFAULT if encoding is None else str(encoding).strip()
        prefix = "key." if role == "key" else "value."
        ser = configs.get(prefix + "serializer.encoding") or encoding
        de = configs.get(prefix + "deserializer.encoding") or encoding
        self._serializer = _Charset(str(ser))
        self._deserializer = _Charset(str(de))
        self._utf8 = self._serializer.codec == "utf-8" and self._deserializer.codec == "utf-8"
        self._native = None

    # -- Converter --------------------------------------------------------------------------------

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if value is None:
            return None
        if type(value) is str:
            return self._serializer.encode(value)
        return self._serializer.encode(java_to_string(value, schema))

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, None)
        return SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, self._deserializer.decode(value))

    def native_converter(self) -> Any:
        """The native form in UTF-8 (None for other encodings or on the pure-Python path)."""
        if native is None or not self._utf8:
            return None
        if self._native is None:
            self._native = native.Converter.utf8(Schema.OPTIONAL_STRING_SCHEMA)
        return self._native

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        if self._utf8:
            slow = self.from_connect_data
            if native is not None and items.__class__ is list:
                out: list[bytes | None]  # FALLBACK where the loop below does the pair
                out, misses = self.native_converter().encode_values(items, FALLBACK)
                if misses:
                    for i, r in enumerate(out):
                        if r is FALLBACK:
                            out[i] = slow(topic, *items[i])
                return out
            return [
                v.encode("utf-8", "replace") if type(v) is str else slow(topic, s, v)
                for s, v in items
            ]
        return super().from_connect_batch(topic, items)

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        schema = Schema.OPTIONAL_STRING_SCHEMA
        if self._utf8:
            if native is not None and values.__class__ is list:
                out: list[SchemaAndValue]  # FALLBACK where the loop below does the value
                out, misses = self.native_converter().decode_values(
                    values, SchemaAndValue, FALLBACK
                )
                if misses:
                    for i, r in enumerate(out):
                        if r is FALLBACK:
                            raw = values[i]
                            text = None if raw is None else bytes(raw).decode("utf-8", "replace")
                            out[i] = SchemaAndValue(schema, text)
                return out
            return [
                SchemaAndValue(schema, None if v is None else bytes(v).decode("utf-8", "replace"))
                for v in values
            ]
        decode = self._deserializer.decode
        return [SchemaAndValue(schema, None if v is None else decode(v)) for v in values]

    def close(self) -> None:
        """Nothing to release."""
