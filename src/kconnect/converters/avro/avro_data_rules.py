"""The names, constants and shared rules of Confluent's AvroData (see :mod:`.avro_data`).

Constants keep Confluent's names (``CONNECT_NAME_PROP``...). :class:`AvroDataBase` holds the
settings, the schema caches and the name rules (``scrub.invalid.names``) both directions use.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import logging
import threading
import urllib.parse
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Field,
    Schema,
    Time,
    Timestamp,
    Type,
)
from kconnect.converters.avro.avro_data_config import AvroDataConfig
from kconnect.converters.avro.avro_schema_text import (
    NO_DEFAULT,
    AvroSchema,
    JsonFloat32,
    SchemaParseException,
    parse_avro_schema,
)
from kconnect.converters.avro.datum import AvroUnion

_log = logging.getLogger(__name__)

NAMESPACE = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME = NAMESPACE + "." + DEFAULT_SCHEMA_NAME
MAP_ENTRY_TYPE_NAME = "MapEntry"
KEY_FIELD = "key"
VALUE_FIELD = "value"
CONNECT_NAME_PROP = "connect.name"
CONNECT_DOC_PROP = "connect.doc"
CONNECT_RECORD_DOC_PROP = "connect.record.doc"
CONNECT_ENUM_DOC_PROP = "connect.enum.doc"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_DEFAULT_VALUE_PROP = "connect.default"
CONNECT_PARAMETERS_PROP = "connect.parameters"
CONNECT_INTERNAL_TYPE_NAME = "connect.internal.type"
AVRO_RECORD_DOC_PROP = NAMESPACE + ".record.doc"
AVRO_ENUM_DOC_PREFIX_PROP = NAMESPACE + ".enum.doc."
AVRO_FIELD_DOC_PREFIX_PROP = NAMESPACE + ".field.doc."
AVRO_FIELD_DEFAULT_FLAG_PROP = NAMESPACE + ".field.default"
AVRO_ENUM_DEFAULT_PREFIX_PROP = NAMESPACE + ".enum.default."
CONNECT_TYPE_PROP = "connect.type"
AVRO_TYPE_UNION = NAMESPACE + ".Union"
AVRO_TYPE_ENUM = NAMESPACE + ".Enum"
AVRO_TYPE_ANYTHING = NAMESPACE + ".Anything"
GENERALIZED_TYPE_UNION = "org.apache.kafka.connect.data.Union"
GENERALIZED_TYPE_ENUM = "org.apache.kafka.connect.data.Enum"
GENERALIZED_TYPE_UNION_PREFIX = "connect_union_"
GENERALIZED_TYPE_UNION_FIELD_PREFIX = GENERALIZED_TYPE_UNION_PREFIX + "field_"
CONNECT_AVRO_FIXED_SIZE_PROP = "connect.fixed.size"
CONNECT_AVRO_DECIMAL_PRECISION_PROP = "connect.decimal.precision"
CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT = 64
_AVRO_PROP = "avro"
_LOGICAL_TYPE = "logicalType"

_NON_AVRO_TYPES = {"int8": Type.INT8, "int16": Type.INT16}
_CONNECT_TO_AVRO_TYPE = {
    Type.INT32: "int",
    Type.INT64: "long",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
    Type.BYTES: "bytes",
    Type.ARRAY: "array",
    Type.MAP: "map",
}
_DECIMAL_NAME = Decimal.LOGICAL_NAME.lower()
_DATE_NAME = Date.LOGICAL_NAME.lower()
_TIME_NAME = Time.LOGICAL_NAME.lower()
_TIMESTAMP_NAME = Timestamp.LOGICAL_NAME.lower()

#: Confluent's schema of schemaless values, as Java prints it.
ANYTHING_SCHEMA: AvroSchema = parse_avro_schema(
    '{"type":"record","name":"Anything","namespace":"io.confluent.connect.avro","fields":['
    + ",".join(
        f'{{"name":"{t}","type":["null","{t}"],"default":null}}'
        for t in ("boolean", "bytes", "double", "float", "int", "long", "string")
    )
    + ',{"name":"array","type":["null",{"type":"array","items":"Anything"}],"default":null},'
    '{"name":"map","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry",'
    '"fields":[{"name":"key","type":"Anything"},{"name":"value","type":"Anything"}]}}],'
    '"default":null}]}'
)
_ANYTHING_FIELDS = tuple(f.name for f in ANYTHING_SCHEMA.fields)
_ANYTHING_TEXT = ANYTHING_SCHEMA.to_json()


def _anything(field: str | None = None, value: Any = None) -> dict[str, Any]:
    rec: dict[str, Any] = dict.fromkeys(_ANYTHING_FIELDS)
    if field is not None:
        rec[field] = value
    return rec


class _LRU:
    """A small thread-safe LRU map (Confluent uses a Guava cache of ``maximumSize``)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            v = self._data.get(key)
            if v is not None:
                self._data.move_to_end(key)
            return v

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)


class _FromCtx:
    def __init__(self) -> None:
        self.schema_map: dict[Schema, AvroSchema] = {}
        self.seen_named: set[str] = set()
        self.name_index = 0


class _Builder:
    """The attributes of a Connect schema being built from Avro (Java's SchemaBuilder)."""

    __slots__ = ("default", "doc", "fields", "key", "name", "optional", "params", "type",
                 "value", "version")  # fmt: skip

    def __init__(self, type: Type, name: str | None = None, version: int | None = None) -> None:
        self.type = type
        self.name = name
        self.version = version
        self.doc: str | None = None
        self.params: dict[str, str] | None = None
        self.optional = False
        self.default: Any = None
        self.fields: list[tuple[str, Schema]] = []
        self.key: Schema | None = None
        self.value: Schema | None = None

    def param(self, k: str, v: str) -> None:
        if self.params is None:
            self.params = {}
        self.params[k] = v

    def build(self, default: Any = None) -> Schema:
        names = set()
        fields = []
        for i, (n, s) in enumerate(self.fields):
            if n in names:
                raise DataException(f"Cannot create field because of field name duplication {n}")
            names.add(n)
            fields.append(Field(n, i, s))
        return Schema(
            self.type,
            optional=self.optional,
            default_value=default,
            name=self.name,
            version=self.version,
            doc=self.doc,
            parameters=self.params,
            fields=fields if self.type is Type.STRUCT else None,
            key_schema=self.key,
            value_schema=self.value,
        )


def _decimal_builder(scale: int) -> _Builder:
    b = _Builder(Type.BYTES, Decimal.LOGICAL_NAME, 1)
    b.param("scale", str(scale))
    return b


def non_optional(schema: Schema) -> Schema:
    """``schema`` made required (Confluent's ``AvroData.nonOptional``)."""
    if not schema.optional:
        return schema
    return Schema(
        schema.type,
        optional=False,
        default_value=schema.default_value,
        name=schema.name,
        version=schema.version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=schema.fields if schema.type is Type.STRUCT else None,
        key_schema=schema.key_schema if schema.type is Type.MAP else None,
        value_schema=schema.value_schema if schema.type in (Type.MAP, Type.ARRAY) else None,
    )


def _is_java_letter(c: str) -> bool:
    return c.isalpha() or c == "_"


def _validate_name(name: str | None) -> str:
    # Avro 1.12's default NameValidator (Character.isLetter / isLetterOrDigit, and '_').
    if not name:
        raise SchemaParseException("Empty name")
    if not _is_java_letter(name[0]):
        raise SchemaParseException(f"Illegal initial character: {name}")
    for c in name[1:]:
        if not (c.isalnum() or c == "_"):
            raise SchemaParseException(f"Illegal character in: {name}")
    return name


def _validate_space(space: str | None) -> str | None:
    if space:
        for part in space.split("."):
            _validate_name(part)
    return space or None


def _split_avro_name(name: str, namespace: str | None) -> tuple[str, str | None]:
    # Avro's Name(name, space): a dotted name carries its own namespace.
    if "." in name:
        ns, _, short = name.rpartition(".")
        return _validate_name(short), _validate_space(ns)
    return _validate_name(name), _validate_space(namespace)


def do_scrub_name(name: str | None) -> str | None:
    """Confluent's ``doScrubName``: URL-encode, prefix a leading digit with ``x``, then every
    character that is not ``[A-Za-z0-9_]`` becomes ``_``."""
    if not name:
        return name
    if all(c.isascii() and (c.isalnum() or c == "_") for c in name) and not name[0].isdigit():
        return name
    # Java's URLEncoder: space -> '+', '*-._' kept, the rest %XX of UTF-8.
    encoded = urllib.parse.quote_plus(name, safe="*-._")
    if encoded[0].isdigit():
        encoded = "x" + encoded
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in encoded)


def _is_union_schema(schema: Schema) -> bool:
    return schema.name == AVRO_TYPE_UNION or (
        schema.type is Type.STRUCT
        and schema.parameters is not None
        and GENERALIZED_TYPE_UNION in schema.parameters
    )


def _is_enum_schema(schema: Schema) -> bool:
    p = schema.parameters
    return (
        schema.type is Type.STRING
        and p is not None
        and (GENERALIZED_TYPE_ENUM in p or AVRO_TYPE_ENUM in p)
    )


def _is_fixed_schema(schema: Schema) -> bool:
    return (
        schema.type is Type.BYTES
        and schema.name is not None
        and schema.parameters is not None
        and CONNECT_AVRO_FIXED_SIZE_PROP in schema.parameters
    )


def _is_named_avro(s: AvroSchema) -> bool:
    if s.is_named:
        return True
    return s.type == "union" and any(b.is_named for b in s.types)


def _type_name(value: Any) -> str:
    return "class " + type(value).__name__


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _union(branches: list[AvroSchema]) -> AvroSchema:
    seen: set[str] = set()
    for b in branches:
        key = b.full_name
        if key in seen:
            raise SchemaParseException(f"Duplicate in union:{key}")
        seen.add(key)
    return AvroSchema.union(branches)


def _maybe_optional(schema: Schema, base: AvroSchema) -> AvroSchema:
    if not schema.optional:
        return base
    if schema.default_value is not None:
        return _union([base, AvroSchema("null")])
    return _union([AvroSchema("null"), base])


def _wrap_null(avro: AvroSchema) -> Any:
    if avro.type == "union" and not avro.is_simple_nullable:
        for i, b in enumerate(avro.types):
            if b.type == "null":
                return AvroUnion(i, None)
        raise DataException(f"Null value for a union without null: {avro.to_json()}")
    return None


def _underlying(schema: Schema, avro: AvroSchema) -> AvroSchema:
    # Connect optional schemas are (null, type) unions: the type's schema.
    # (Java also accepts a non-union here: a union's member values are optional schemas
    # written to one branch.)
    if schema.optional and avro.type == "union":
        for b in avro.types:
            if b.type != "null":
                return b
    return avro


def _pad_to_fixed(unscaled: bytes, size: int) -> bytes:
    if len(unscaled) == size:
        return unscaled
    if len(unscaled) > size:
        raise DataException(
            f"Unscaled value byte array length {len(unscaled)} is greater than fixed size {size}"
        )
    fill = b"\xff" if unscaled and unscaled[0] >= 0x80 else b"\x00"
    return fill * (size - len(unscaled)) + unscaled


def _is_map_entry(s: AvroSchema) -> bool:
    if s.type != "record":
        return False
    if s.namespace == NAMESPACE and s.name == MAP_ENTRY_TYPE_NAME:
        return True
    return s.props.get(CONNECT_INTERNAL_TYPE_NAME) == MAP_ENTRY_TYPE_NAME


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _java_str(v: Any) -> str:
    from kconnect.converters.avro.avro_schema_text import json_text

    return v if isinstance(v, str) else json_text(v)


def _plain_json(v: Any) -> Any:
    # Avro's Field keeps its default as Java objects: a FloatNode comes back as a double.
    if isinstance(v, JsonFloat32):
        return float(v)
    if isinstance(v, list):
        return [_plain_json(e) for e in v]
    if isinstance(v, dict):
        return {k: _plain_json(e) for k, e in v.items()}
    return v


def _valid_default(s: AvroSchema, v: Any) -> bool:
    """Avro's ``Schema.isValidDefault``: a union's default must fit its first branch."""
    t = s.type
    if t == "union":
        return _valid_default(s.types[0], v)
    if t == "null":
        return v is None
    if t in ("string", "bytes", "enum", "fixed"):
        return isinstance(v, str)
    if t == "int":
        return _is_int(v) and -(1 << 31) <= v < (1 << 31)
    if t == "long":
        return _is_int(v) and -(1 << 63) <= v < (1 << 63)
    if t in ("float", "double"):
        return _is_number(v)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "array":
        assert s.items is not None
        items = s.items
        return isinstance(v, list) and all(_valid_default(items, e) for e in v)
    if t == "map":
        assert s.values is not None
        values = s.values
        return isinstance(v, dict) and all(_valid_default(values, e) for e in v.values())
    if t == "record":
        if not isinstance(v, dict):
            return False
        for f in s.fields:
            fv = v.get(f.name, f.default if f.has_default else NO_DEFAULT)
            if fv is NO_DEFAULT or not _valid_default(f.schema, fv):
                return False
        return True
    return False


def _apply_field_level_params(original: Schema, field_params: Mapping[str, Any]) -> Schema:
    params = dict(original.parameters or {})
    if all(str(v) == params.get(str(k)) for k, v in field_params.items()):
        return original
    for k, v in field_params.items():
        params[str(k)] = v if isinstance(v, str) else _java_str(v)
    return Schema(
        original.type,
        optional=original.optional,
        default_value=original.default_value,
        name=original.name,
        version=original.version,
        doc=original.doc,
        parameters=params,
        fields=original.fields if original.type is Type.STRUCT else None,
        key_schema=original.key_schema if original.type is Type.MAP else None,
        value_schema=(original.value_schema
                      if original.type in (Type.MAP, Type.ARRAY) else None),
    )  # fmt: skip


def _to_avro_logical(schema: Schema, value: Any) -> Any:
    name = schema.name
    if name is None or value is None:
        return value
    if name == Decimal.LOGICAL_NAME:
        if not isinstance(value, _decimal.Decimal):
            raise DataException(
                f"Invalid type for Decimal, expected BigDecimal but was {_type_name(value)}"
            )
        return Decimal.from_logical(schema, value)
    if name == Date.LOGICAL_NAME:
        if not isinstance(value, _dt.date):
            raise DataException(f"Invalid type for Date, expected Date but was {_type_name(value)}")
        return Date.from_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        if not isinstance(value, _dt.time):
            raise DataException(f"Invalid type for Time, expected Date but was {_type_name(value)}")
        return Time.from_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        if not isinstance(value, _dt.datetime):
            raise DataException(
                f"Invalid type for Timestamp, expected Date but was {_type_name(value)}"
            )
        return Timestamp.from_logical(schema, value)
    return value


def _to_connect_logical(schema: Schema, value: Any) -> Any:
    name = schema.name
    if name is None or value is None:
        return value
    if name == Decimal.LOGICAL_NAME:
        if not isinstance(value, (bytes, bytearray)):
            raise DataException(
                "Invalid type for Decimal, underlying representation should be bytes but was "
                + _type_name(value)
            )
        return Decimal.to_logical(schema, bytes(value))
    if name == Date.LOGICAL_NAME:
        if not _is_int(value):
            raise DataException(
                "Invalid type for Date, underlying representation should be int32 but was "
                + _type_name(value)
            )
        return Date.to_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        if not _is_int(value):
            raise DataException(
                "Invalid type for Time, underlying representation should be int32 but was "
                + _type_name(value)
            )
        return Time.to_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        if not _is_int(value):
            raise DataException(
                "Invalid type for Timestamp, underlying representation should be int64 but was "
                + _type_name(value)
            )
        return Timestamp.to_logical(schema, value)
    return value


class AvroDataBase:
    """The settings and caches of an :class:`~.avro_data.AvroData`, and its name rules
    (shared by both directions)."""

    def __init__(self, config: AvroDataConfig | int | None = None) -> None:
        if config is None:
            config = AvroDataConfig()
        elif isinstance(config, int):
            config = AvroDataConfig(schemas_cache_size=max(1, config))
        self.config = config
        self._from_cache = _LRU(config.schemas_cache_size)
        self._to_cache = _LRU(config.schemas_cache_size)
        self._meta = config.connect_meta_data
        self._gen = config.generalized_sum_type_support
        self._enhanced = config.enhanced_avro_schema_support
        self._scrub = config.scrub_invalid_names
        self._discard = config.discard_type_doc_default
        self._optional_keys = config.allow_optional_map_keys
        self._flatten = config.flatten_singleton_unions
        self._ignore_default_nullables = config.ignore_default_for_nullables
        self._union_index = 0
        self._union_lock = threading.Lock()

    def _scrub_name(self, name: str) -> str:
        return do_scrub_name(name) or name if self._scrub else name

    def _split_name(self, full: str | None) -> tuple[str | None, str | None]:
        if not full:
            return None, full
        parts = full.split(".")
        while len(parts) > 1 and parts[-1] == "":  # Java's split drops trailing empties
            parts.pop()
        if self._scrub:
            parts = [do_scrub_name(p) or p for p in parts]
        if len(parts) <= 1:
            return None, parts[0]
        return ".".join(parts[:-1]), parts[-1]

    def _scrub_full_name(self, name: str | None) -> str | None:
        if name is None or not self._scrub:
            return name
        ns, short = self._split_name(name)
        return short if ns is None else f"{ns}.{short}"
