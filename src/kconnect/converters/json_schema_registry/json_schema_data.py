"""Confluent's ``JsonSchemaData`` rules: Connect schemas <-> JSON Schema documents, and Connect
values <-> JSON values.

What ``io.confluent.connect.json.JsonSchemaConverter`` registers for a Connect schema:

* a STRUCT is ``{"type":"object","title":<Connect name>,"properties":{...}}``; each property
  carries ``"connect.index"`` (its field position: JSON Schema has no property order, so the
  properties are written in Java ``HashMap`` order, as the documents Confluent's converter
  registers show), and ``"additionalProperties":false`` with ``object.additional.properties=false``;
* INT8/INT16/INT32/INT64 are ``"integer"`` and FLOAT32/FLOAT64 ``"number"``, each with
  ``"connect.type"``; BYTES is a base64 ``"string"`` with ``"connect.type":"bytes"``;
* an optional schema is ``{"oneOf":[{"type":"null"},<schema>]}``, ``connect.index`` on the
  outside; a default value is ``"default"``; the Connect version, doc and parameters are
  ``"connect.version"``, ``"description"`` and ``"connect.parameters"``;
* Decimal is titled ``org.apache.kafka.connect.data.Decimal`` with its scale in
  ``connect.parameters``: a base64 ``"string"`` of the unscaled value's bytes, or a
  ``"number"`` with ``decimal.format=NUMERIC``; Date, Time and Timestamp are ``"integer"``
  titled with their logical names (days, milliseconds of the day, milliseconds since the epoch);
* a MAP with (required) STRING keys is an ``"object"`` with ``"additionalProperties"``, any
  other MAP an ``"array"`` of ``{"key":..,"value":..}`` objects; both ``"connect.type":"map"``;
* a schemaless value gets the empty schema ``{}``.

Within one schema object the keys come in the order Confluent's documents show: ``type``,
``title``, ``description``, ``default``, the ``connect.*`` annotations (in Java ``HashMap``
order), then ``properties`` / ``items`` / ``additionalProperties`` / ``oneOf`` / ``required``.

Values: integers and floats as JSON numbers (floats in Java's text, as Jackson writes them),
BYTES as base64 strings, Date/Time/Timestamp as integers, maps in the two forms above, a
STRUCT as an object in field order (null fields written as null, or as their default with
``replace.null.with.default``), a ``io.confluent.connect.json.OneOf`` STRUCT as the value of
the branch that holds one. Documents are read by :mod:`.json_schema_documents`, settings
declared in :mod:`.json_schema_data_config`.

Pure functions over immutable data, safe from any thread; the converter caches the results.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal as _decimal
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from kconnect.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api.data.java_strings import in_hash_map_order
from kconnect.converters.json_schema_registry.json_schema_data_config import (
    CONNECT_INDEX_PROP,
    CONNECT_PARAMETERS_PROP,
    CONNECT_TYPE_PROP,
    CONNECT_VERSION_PROP,
    JSON_TYPE_ONE_OF,
    JsonSchemaDataConfig,
    json_schema_data_config_def,
)
from kconnect.converters.json_schema_registry.json_schema_documents import (
    DocumentReader,
    describes_any,
)
from kconnect.jackson import jackson_double, jackson_float, plain_json_value

__all__ = [
    "CONNECT_INDEX_PROP",
    "CONNECT_PARAMETERS_PROP",
    "CONNECT_TYPE_PROP",
    "CONNECT_VERSION_PROP",
    "JSON_TYPE_ONE_OF",
    "JsonSchemaData",
    "JsonSchemaDataConfig",
    "json_schema_data_config_def",
]


_CONNECT_TYPES = {
    Type.INT8: "int8",
    Type.INT16: "int16",
    Type.INT32: "int32",
    Type.INT64: "int64",
    Type.FLOAT32: "float32",
    Type.FLOAT64: "float64",
    Type.BYTES: "bytes",
}
_INT_RANGES = {
    Type.INT8: (-(1 << 7), (1 << 7) - 1),
    Type.INT16: (-(1 << 15), (1 << 15) - 1),
    Type.INT32: (-(1 << 31), (1 << 31) - 1),
    Type.INT64: (-(1 << 63), (1 << 63) - 1),
}
_NULL_SCHEMA: dict[str, Any] = {"type": "null"}


def _ordered(
    head: list[tuple[str, Any]], annotations: dict[str, Any], tail: list[tuple[str, Any]]
) -> dict[str, Any]:
    """One schema object's keys in the order Confluent's documents show them (module docstring)."""
    out = dict(head)
    out.update(in_hash_map_order(annotations))
    out.update(tail)
    return out


class JsonSchemaData:
    """The mapping, configured once; ``from_*`` write towards JSON, ``to_*`` read from it."""

    def __init__(self, config: JsonSchemaDataConfig | None = None) -> None:
        self.config = config or JsonSchemaDataConfig()

    # ------------------------------------------------------------------ Connect -> JSON Schema
    def from_connect_schema(self, schema: Schema | None) -> dict[str, Any]:
        """The JSON Schema document (a dict, keys in order) for ``schema``; ``{}`` for None."""
        if schema is None:
            return {}
        return self._schema(schema, None)

    def _schema(self, schema: Schema, index: int | None) -> dict[str, Any]:
        body = self._body(schema, None if schema.optional else index)
        if not schema.optional:
            return body
        head: list[tuple[str, Any]] = []
        annotations: dict[str, Any] = {}
        if schema.default_value is not None:
            head.append(("default", self._default(schema)))
            body.pop("default", None)
        if index is not None:
            annotations[CONNECT_INDEX_PROP] = index
        return _ordered(head, annotations, [("oneOf", [dict(_NULL_SCHEMA), body])])

    def _default(self, schema: Schema) -> Any:
        return self.from_connect_data(schema, schema.default_value)

    def _body(self, schema: Schema, index: int | None) -> dict[str, Any]:
        t = schema.type
        name = schema.name
        head: list[tuple[str, Any]] = []
        annotations: dict[str, Any] = {}
        tail: list[tuple[str, Any]] = []
        if t in _CONNECT_TYPES and name != Decimal.LOGICAL_NAME:
            annotations[CONNECT_TYPE_PROP] = _CONNECT_TYPES[t]
        if t in _INT_RANGES:
            json_type = "integer"
        elif t is Type.FLOAT32 or t is Type.FLOAT64:
            json_type = "number"
        elif t is Type.BOOLEAN:
            json_type = "boolean"
        elif t is Type.STRING:
            json_type = "string"
        elif t is Type.BYTES:
            # a Decimal is a base64 string of its unscaled bytes, or a number with
            # decimal.format=NUMERIC (Confluent's schema-registry PR #3746 made the schema's
            # type follow the format)
            numeric = name == Decimal.LOGICAL_NAME and self.config.decimal_format == "NUMERIC"
            json_type = "number" if numeric else "string"
        elif t is Type.ARRAY:
            json_type = "array"
            tail.append(("items", self._schema(schema.value_schema, None)))
        elif t is Type.MAP:
            annotations[CONNECT_TYPE_PROP] = "map"
            key, value = schema.key_schema, schema.value_schema
            if key.type is Type.STRING and not key.optional:
                json_type = "object"
                tail.append(("additionalProperties", self._schema(value, None)))
            else:
                json_type = "array"
                entry = {
                    "type": "object",
                    "properties": in_hash_map_order(
                        {"key": self._schema(key, 0), "value": self._schema(value, 1)}
                    ),
                }
                tail.append(("items", entry))
        else:  # STRUCT
            if name == JSON_TYPE_ONE_OF:
                return self._one_of(schema, index)
            json_type = "object"
            properties = {f.name: self._schema(f.schema, f.index) for f in schema.fields}
            tail.append(("properties", in_hash_map_order(properties)))
            if self.config.use_optional_for_nonrequired:
                required = [f.name for f in schema.fields if not f.schema.optional]
                if required:
                    tail.append(("required", required))
            if not self.config.object_additional_properties:
                tail.append(("additionalProperties", False))
        head.append(("type", json_type))
        if name is not None:
            head.append(("title", name))
        if schema.doc is not None:
            head.append(("description", schema.doc))
        if schema.default_value is not None:
            head.append(("default", self._default(schema)))
        if index is not None:
            annotations[CONNECT_INDEX_PROP] = index
        if schema.version is not None:
            annotations[CONNECT_VERSION_PROP] = schema.version
        if schema.parameters:
            annotations[CONNECT_PARAMETERS_PROP] = dict(schema.parameters)
        return _ordered(head, annotations, tail)

    def _one_of(self, schema: Schema, index: int | None) -> dict[str, Any]:
        annotations: dict[str, Any] = {}
        if index is not None:
            annotations[CONNECT_INDEX_PROP] = index
        branches = [self._schema(f.schema, None) for f in schema.fields]
        return _ordered([], annotations, [("oneOf", branches)])

    # ------------------------------------------------------------------ Connect -> JSON value
    def from_connect_data(self, schema: Schema | None, value: Any) -> Any:
        """``value`` as JSON-ready data for :func:`kconnect.jackson.jackson_dumps` (numbers as
        Jackson prints them); DataException when it does not fit ``schema``."""
        if schema is None:
            return plain_json_value(value)
        return self._value(schema, value, None)

    def _value(self, schema: Schema, value: Any, field: str | None) -> Any:
        if value is None:
            if schema.default_value is not None and self.config.replace_null_with_default:
                return self._value(schema, schema.default_value, field)
            if not schema.optional:
                where = f' for field "{field}"' if field else ""
                raise DataException(
                    f"Conversion error: null value for field that is required and has no "
                    f"default value{where}"
                )
            return None
        t = schema.type
        name = schema.name
        try:
            if name is not None and name in _LOGICAL_TO_JSON:
                return _LOGICAL_TO_JSON[name](self, schema, value)
            if t in _INT_RANGES:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise _invalid(schema, value, field)
                lo, hi = _INT_RANGES[t]
                if not lo <= value <= hi:
                    raise DataException(f"Value {value} out of range for schema type {t.name}")
                return int(value)
            if t is Type.FLOAT64:
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise _invalid(schema, value, field)
                return jackson_double(float(value))
            if t is Type.FLOAT32:
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise _invalid(schema, value, field)
                return jackson_float(float(value))
            if t is Type.BOOLEAN:
                if not isinstance(value, bool):
                    raise _invalid(schema, value, field)
                return value
            if t is Type.STRING:
                if not isinstance(value, str):
                    raise _invalid(schema, value, field)
                return value
            if t is Type.BYTES:
                if not isinstance(value, (bytes, bytearray, memoryview)):
                    raise _invalid(schema, value, field)
                return base64.b64encode(value).decode("ascii")
            if t is Type.ARRAY:
                if not isinstance(value, (list, tuple)):
                    raise _invalid(schema, value, field)
                items = schema.value_schema
                return [self._value(items, v, field) for v in value]
            if t is Type.MAP:
                return self._map_value(schema, value, field)
            return self._struct_value(schema, value, field)
        except (TypeError, ValueError, ArithmeticError) as e:
            raise DataException(f"Invalid value for schema {t.name}: {e}") from e

    def _map_value(self, schema: Schema, value: Any, field: str | None) -> Any:
        if isinstance(value, Mapping):
            entries: list[tuple[Any, Any]] = list(value.items())
        elif isinstance(value, (list, tuple)):  # (key, value) pairs for unhashable keys
            entries = [tuple(e) for e in value]
        else:
            raise _invalid(schema, value, field)
        ks, vs = schema.key_schema, schema.value_schema
        if ks.type is Type.STRING and not ks.optional:
            return {self._value(ks, k, field): self._value(vs, v, field) for k, v in entries}
        return [
            {"key": self._value(ks, k, field), "value": self._value(vs, v, field)}
            for k, v in entries
        ]

    def _struct_value(self, schema: Schema, value: Any, field: str | None) -> Any:
        if not isinstance(value, Struct):
            raise _invalid(schema, value, field)
        if value.schema != schema:
            raise DataException("Mismatching schema.")
        if schema.name == JSON_TYPE_ONE_OF:
            for f in schema.fields:
                v = value.get_without_default(f)
                if v is not None:
                    return self._value(f.schema, v, f.name)
            return None
        get = value.get if self.config.replace_null_with_default else value.get_without_default
        return {f.name: self._value(f.schema, get(f), f.name) for f in schema.fields}

    # ------------------------------------------------------------------ JSON Schema -> Connect
    def to_connect_schema(self, document: Any, version: int | None = None) -> Schema | None:
        """The Connect schema of a JSON Schema document (a parsed dict, or a boolean); None
        for a document that describes any value (``{}``, ``true``). ``version`` (the schema's
        version in its subject) is given to the top-level schema when it names none."""
        if document is True or (isinstance(document, dict) and describes_any(document)):
            return None
        if not isinstance(document, dict):
            raise DataException(f"Unsupported JSON Schema: {document!r}")
        reader = DocumentReader(document, self.config, lambda s, v: self._connect(s, v, None))
        return reader.schema(document, version=version)

    # ------------------------------------------------------------------ JSON value -> Connect
    def to_connect_data(self, schema: Schema | None, value: Any) -> Any:
        """The Connect value of a parsed JSON ``value`` (numbers may be ``decimal.Decimal``
        where the document was parsed for decimals) read with ``schema``."""
        if schema is None:
            return _schemaless(value)
        return self._connect(schema, value, None)

    def _connect(self, schema: Schema, value: Any, field: str | None) -> Any:
        if value is None:
            if schema.default_value is not None and self.config.replace_null_with_default:
                return schema.default_value
            if schema.optional:
                return None
            where = f' "{field}"' if field else ""
            raise DataException(f"Invalid null value for required field{where}")
        t = schema.type
        name = schema.name
        if name is not None and name in _LOGICAL_TO_CONNECT:
            return _LOGICAL_TO_CONNECT[name](schema, value)
        if t in _INT_RANGES:
            if isinstance(value, bool):
                raise _mismatch(schema, value)
            if isinstance(value, (float, _decimal.Decimal)):
                if value != int(value):
                    raise _mismatch(schema, value)
                value = int(value)
            if not isinstance(value, int):
                raise _mismatch(schema, value)
            lo, hi = _INT_RANGES[t]
            if not lo <= value <= hi:
                raise DataException(f"Value {value} out of range for schema type {t.name}")
            return value
        if t is Type.FLOAT64 or t is Type.FLOAT32:
            if isinstance(value, str) and value in _NON_FINITE:
                return float(value)
            if isinstance(value, bool) or not isinstance(value, (int, float, _decimal.Decimal)):
                raise _mismatch(schema, value)
            return float(value)
        if t is Type.BOOLEAN:
            if not isinstance(value, bool):
                raise _mismatch(schema, value)
            return value
        if t is Type.STRING:
            if not isinstance(value, str):
                raise _mismatch(schema, value)
            return value
        if t is Type.BYTES:
            return _base64(value, schema)
        if t is Type.ARRAY:
            if not isinstance(value, list):
                raise _mismatch(schema, value)
            items = schema.value_schema
            return [self._connect(items, v, field) for v in value]
        if t is Type.MAP:
            return self._connect_map(schema, value, field)
        return self._connect_struct(schema, value, field)

    def _connect_map(self, schema: Schema, value: Any, field: str | None) -> Any:
        ks, vs = schema.key_schema, schema.value_schema
        if isinstance(value, dict):
            return {k: self._connect(vs, v, field) for k, v in value.items()}
        if not isinstance(value, list):
            raise _mismatch(schema, value)
        pairs = []
        for entry in value:
            if not isinstance(entry, dict):
                raise _mismatch(schema, value)
            pairs.append(
                (
                    self._connect(ks, entry.get("key"), field),
                    self._connect(vs, entry.get("value"), field),
                )
            )
        if ks.type in (Type.STRUCT, Type.ARRAY, Type.MAP):
            return pairs  # keys Python cannot hash: a list of (key, value) pairs
        return dict(pairs)

    def _connect_struct(self, schema: Schema, value: Any, field: str | None) -> Any:
        if schema.name == JSON_TYPE_ONE_OF:
            return self._connect_one_of(schema, value)
        if not isinstance(value, dict):
            raise _mismatch(schema, value)
        values = [self._connect(f.schema, value.get(f.name), f.name) for f in schema.fields]
        return Struct.trusted(schema, values)

    def _connect_one_of(self, schema: Schema, value: Any) -> Struct:
        for i, f in enumerate(schema.fields):
            if _json_fits(f.schema, value):
                values: list[Any] = [None] * len(schema.fields)
                values[i] = self._connect(f.schema, value, f.name)
                return Struct.trusted(schema, values)
        raise DataException(f"No branch of {JSON_TYPE_ONE_OF} matches the value {value!r}")


_NON_FINITE = frozenset(("NaN", "Infinity", "-Infinity"))


def _invalid(schema: Schema, value: Any, field: str | None) -> DataException:
    where = f' for field: "{field}"' if field else ""
    return DataException(f"Invalid type for {schema.type.name}: {type(value).__name__}{where}")


def _mismatch(schema: Schema, value: Any) -> DataException:
    shown = schema.name or schema.type.name
    return DataException(f"Invalid JSON value for schema {shown}: {value!r}")


def _base64(value: Any, schema: Schema) -> bytes:
    if not isinstance(value, str):
        raise _mismatch(schema, value)
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as e:
        raise DataException(f"Invalid base64 value for {schema.type.name}: {e}") from e


def _schemaless(value: Any) -> Any:
    if isinstance(value, _decimal.Decimal):  # parsed for decimals elsewhere in the document
        return float(value)
    if isinstance(value, list):
        return [_schemaless(v) for v in value]
    if isinstance(value, dict):
        return {k: _schemaless(v) for k, v in value.items()}
    return value


# ---- logical types


def _decimal_to_json(data: JsonSchemaData, schema: Schema, value: Any) -> Any:
    if not isinstance(value, _decimal.Decimal):
        raise DataException(
            f"Invalid type for Decimal, expected decimal.Decimal but was {type(value).__name__}"
        )
    if data.config.decimal_format == "BASE64":
        return base64.b64encode(Decimal.from_logical(schema, value)).decode("ascii")
    Decimal.from_logical(schema, value)  # refuses a value that does not fit the scale
    # Jackson writes a BigDecimal node with BigDecimal.toString, whose rules (plain unless the
    # exponent is positive or the adjusted exponent below -6) Python's str(Decimal) shares
    return orjson.Fragment(str(value))


def _date_to_json(data: JsonSchemaData, schema: Schema, value: Any) -> Any:
    if not isinstance(value, _dt.date) or isinstance(value, _dt.datetime):
        raise DataException(
            f"Invalid type for Date, expected datetime.date but was {type(value).__name__}"
        )
    return Date.from_logical(schema, value)


def _time_to_json(data: JsonSchemaData, schema: Schema, value: Any) -> Any:
    if not isinstance(value, _dt.time):
        raise DataException(
            f"Invalid type for Time, expected datetime.time but was {type(value).__name__}"
        )
    return Time.from_logical(schema, value)


def _timestamp_to_json(data: JsonSchemaData, schema: Schema, value: Any) -> Any:
    if not isinstance(value, _dt.datetime):
        raise DataException(
            f"Invalid type for Timestamp, expected datetime.datetime but was {type(value).__name__}"
        )
    return Timestamp.from_logical(schema, value)


_EXACT = _decimal.Context(prec=_decimal.MAX_PREC)

_LOGICAL_TO_JSON: dict[str, Callable[[JsonSchemaData, Schema, Any], Any]] = {
    Decimal.LOGICAL_NAME: _decimal_to_json,
    Date.LOGICAL_NAME: _date_to_json,
    Time.LOGICAL_NAME: _time_to_json,
    Timestamp.LOGICAL_NAME: _timestamp_to_json,
}


def _decimal_to_connect(schema: Schema, value: Any) -> _decimal.Decimal:
    scale = Decimal.scale(schema)
    if isinstance(value, str):  # decimal.format=BASE64: the unscaled two's-complement bytes
        return Decimal.to_logical(schema, _base64(value, schema))
    if isinstance(value, bool) or not isinstance(value, (int, float, _decimal.Decimal)):
        raise _mismatch(schema, value)
    d = value if isinstance(value, _decimal.Decimal) else _decimal.Decimal(repr(value))
    if isinstance(value, int):
        d = _decimal.Decimal(value)
    result = d.quantize(_decimal.Decimal(1).scaleb(-scale), context=_EXACT)
    if result != d:
        raise DataException(f"Decimal value {value} does not fit scale {scale}")
    return result


def _integer(schema: Schema, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, _decimal.Decimal)):
        raise _mismatch(schema, value)
    if value != int(value):
        raise _mismatch(schema, value)
    return int(value)


_LOGICAL_TO_CONNECT: dict[str, Callable[[Schema, Any], Any]] = {
    Decimal.LOGICAL_NAME: _decimal_to_connect,
    Date.LOGICAL_NAME: lambda s, v: Date.to_logical(s, _integer(s, v)),
    Time.LOGICAL_NAME: lambda s, v: Time.to_logical(s, _integer(s, v)),
    Timestamp.LOGICAL_NAME: lambda s, v: Timestamp.to_logical(s, _integer(s, v)),
}


def _json_fits(schema: Schema, value: Any) -> bool:
    """Whether a JSON ``value`` has the JSON type of ``schema`` (choosing a oneOf branch)."""
    if value is None:
        return schema.optional
    t = schema.type
    if schema.name in _LOGICAL_TO_CONNECT:
        if schema.name == Decimal.LOGICAL_NAME:
            return isinstance(value, (int, float, _decimal.Decimal, str)) and not isinstance(
                value, bool
            )
        return isinstance(value, int) and not isinstance(value, bool)
    if t in _INT_RANGES:
        return isinstance(value, int) and not isinstance(value, bool)
    if t is Type.FLOAT32 or t is Type.FLOAT64:
        return isinstance(value, (int, float, _decimal.Decimal)) and not isinstance(value, bool)
    if t is Type.BOOLEAN:
        return isinstance(value, bool)
    if t is Type.STRING or t is Type.BYTES:
        return isinstance(value, str)
    if t is Type.ARRAY:
        return isinstance(value, list)
    if t is Type.MAP:
        return isinstance(value, (dict, list))
    if schema.name == JSON_TYPE_ONE_OF:
        return any(_json_fits(f.schema, value) for f in schema.fields)
    if not isinstance(value, dict):
        return False
    return all(schema.field(k) is not None for k in value)
