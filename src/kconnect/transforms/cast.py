"""Cast$Key / Cast$Value: cast fields, or the whole key/value, to another primitive type.

``spec`` is ``field:type,...`` (top-level fields of a Struct or map) or a single ``type`` for
the whole key/value; types are int8..int64, float32, float64, boolean, string. Inputs may be
any primitive, BYTES (to string only, base64), Decimal (as a number) and Date/Time/Timestamp
(as their INT32/INT64 encoding, or ISO-8601 text for string). As in Kafka, ARRAY, MAP and
STRUCT values cannot be cast, nor schemaless values of a logical type's class (a Decimal, a
date or time: Kafka infers no type for them). Numbers narrow like Java casts (300 to int8 is
44). Schemaless, a value cast to float32 is a :class:`~kconnect.api.data.java_strings.Float32`
(Java's Float, which prints and serializes as one).
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from kconnect.api import (
    ConfigDef,
    ConfigException,
    DataException,
    Date,
    Importance,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect.api import ConfigType as CT
from kconnect.api.config_def import LambdaValidator
from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string, to_float32
from kconnect.api.data.java_strings import (
    Float32,
    copy_table,
    hash_map_order,
    in_hash_map_order,
)
from kconnect.api.data.values import date_string, java_long, narrow
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_map, require_struct, type_name
from kconnect.transforms._util.schema_util import copy_schema_basics

__all__ = ["CastKey", "CastValue"]

_PURPOSE = "cast types"
_INPUT = (
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
    Type.BYTES,
)
_OUTPUT = _INPUT[:-1]
_WHOLE: None = None  # the spec key of a whole-value cast
_TYPE_NAMES = {t.value: t for t in Type}


def _supported(types: tuple[Type, ...]) -> str:
    return "[" + ", ".join(t.name for t in types) + "]"


def _parse_spec(mappings: list[str]) -> dict[str | None, Type]:
    out: dict[str | None, Type] = {}
    whole = False
    for mapping in mappings:
        parts = mapping.split(":")
        while parts and parts[-1] == "":
            parts.pop()
        if len(parts) > 2:
            raise ConfigException("spec", mappings, f"Invalid rename mapping: {mapping}")
        type_text = parts[-1].strip() if parts else ""
        target = _TYPE_NAMES.get(type_text.lower())
        if target is None:
            raise ConfigException(f"Invalid type found in casting spec: {type_text}")
        if target not in _OUTPUT:
            raise ConfigException(
                f"Cast transformation does not support casting to {target.name}; "
                f"supported types are {_supported(_OUTPUT)}"
            )
        if len(parts) == 1:
            out[_WHOLE] = target
            whole = True
        else:
            out[parts[0].strip()] = target
    if whole and len(mappings) > 1:
        raise ConfigException(
            "Cast transformations that specify a type to cast the entire "
            "value to may only specify a single cast in their spec"
        )
    return out


def _check_spec(name: str, value: object) -> None:
    if not value:
        raise ConfigException("Must specify at least one field to cast.")
    assert isinstance(value, list)  # validators see parsed values: a LIST parses to a list
    _parse_spec(value)


def _to_int(bits: int) -> Callable[[Any], int]:
    def cast(v: Any) -> int:
        if isinstance(v, bool):
            return 1 if v else 0
        if isinstance(v, str):
            n = int(v)  # Java parseInt: no whitespace, no decimals
            if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
                raise ValueError(f'Value out of range. Value:"{v}"')
            return n
        if isinstance(v, float) and bits < 64:
            # Double.byteValue/shortValue/intValue: (byte) (int) d -- the cast to int
            # saturates (NaN is 0), then the narrowing wraps
            return narrow(_double_to_int(v), bits)
        if isinstance(v, float | _decimal.Decimal | int):
            return narrow(java_long(v), bits)
        raise TypeError(type_name(v))

    return cast


def _double_to_int(x: float) -> int:
    """Java's ``(int) x``: truncated toward zero, saturated to the int range, NaN is 0."""
    if x != x:
        return 0
    if x >= 2147483647.0:
        return 2147483647
    if x <= -2147483648.0:
        return -2147483648
    return int(x)


def _to_float(single: bool) -> Callable[[Any], float]:
    def cast(v: Any) -> float:
        if isinstance(v, bool):
            return 1.0 if v else 0.0
        if isinstance(v, int | float | _decimal.Decimal | str):
            f = float(v)
            return to_float32(f) if single else f
        raise TypeError(type_name(v))

    return cast


def _to_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float | _decimal.Decimal):
        return java_long(v) != 0
    if isinstance(v, str):
        return v.lower() == "true"  # Boolean.parseBoolean
    raise TypeError(type_name(v))


def _to_string(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double_to_string(v)
    if isinstance(v, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, _dt.date | _dt.time):
        return date_string(v)
    return str(v)


_CASTERS: dict[Type, Callable[[Any], Any]] = {
    Type.INT8: _to_int(8),
    Type.INT16: _to_int(16),
    Type.INT32: _to_int(32),
    Type.INT64: _to_int(64),
    Type.FLOAT32: _to_float(True),
    Type.FLOAT64: _to_float(False),
    Type.BOOLEAN: _to_bool,
    Type.STRING: _to_string,
}
_BUILDERS: dict[Type, Callable[[], SchemaBuilder]] = {t: partial(SchemaBuilder, t) for t in _OUTPUT}


def _infer_type(value: Any) -> Type | None:
    """``ConnectSchema.schemaType`` of the Java class of a schemaless value: None for the
    classes of logical types (a Decimal, a date or time), which need their schema."""
    if isinstance(value, bool):
        return Type.BOOLEAN
    if isinstance(value, int):
        return Type.INT64
    if isinstance(value, float):
        return Type.FLOAT32 if value.__class__ is Float32 else Type.FLOAT64
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, bytes | bytearray | memoryview):
        return Type.BYTES
    if isinstance(value, list):
        return Type.ARRAY
    if isinstance(value, Mapping):
        return Type.MAP
    if isinstance(value, Struct):
        return Type.STRUCT
    return None


def _encode_logical(schema: Schema, value: Any) -> Any:
    name = schema.name
    if name == Date.LOGICAL_NAME:
        return Date.from_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        return Time.from_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        return Timestamp.from_logical(schema, value)
    return value


class _Cast(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define(
            "spec",
            CT.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            LambdaValidator.with_(
                _check_spec, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
            ),
            Importance.HIGH,
            "List of fields and the type to cast them to of the form field1:type,field2:type "
            "to cast fields of Maps or Structs. A single type to cast the entire value. Valid "
            "types are int8, int16, int32, int64, float32, float64, boolean, and string. Note "
            "that binary fields can only be cast to string.",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._casts = _parse_spec(parsed["spec"])
        self._whole = self._casts.get(_WHOLE)
        # the field casts in the order Kafka's schemaless path puts them: its spec map is a
        # new HashMap<>() filled in the spec's order
        self._field_casts: list[tuple[str, Type]] = hash_map_order(
            (f, t) for f, t in self._casts.items() if f is not None
        )
        self._rnwd: bool = parsed[RNWD_CONFIG]
        self._cache: dict[Schema, Schema] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            if self._whole is not None:
                return self.new_record(record, None, self._cast(None, value, self._whole, None))
            m = require_map(value, _PURPOSE, self._who)
            updated = dict(m)
            for field, target in self._field_casts:
                updated[field] = self._cast(None, m.get(field), target, field)
            # new HashMap<>(value), then the puts
            updated = in_hash_map_order(updated, copy_table(len(m), len(updated)))
            return self.new_record(record, None, updated)
        updated_schema = self._updated_schema(schema)
        if self._whole is not None:
            return self.new_record(
                record, updated_schema, self._cast(schema, value, self._whole, None)
            )
        struct = require_struct(value, _PURPOSE, self._who)
        get = struct.get if self._rnwd else struct.get_without_default
        values: dict[str, Any] = {}
        casts = self._casts
        for f in struct.schema.fields:
            v = get(f)
            cast_to = casts.get(f.name)
            values[f.name] = v if cast_to is None else self._cast(f.schema, v, cast_to, f.name)
        out = Struct(updated_schema)
        for name, v in values.items():
            out.put(name, v)  # validated: a null cast into a required field is refused here
        return self.new_record(record, updated_schema, out)

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: its settings and the updated
        schema of an input schema (asked once per schema)."""
        return "cast", {
            "is_key": self.IS_KEY,
            "whole": None if self._whole is None else self._whole.value,
            "casts": [(f, t.value) for f, t in self._field_casts],
            "replace_null_with_default": self._rnwd,
            "updated_schema": self._updated_schema,
        }

    def _updated_schema(self, schema: Schema) -> Schema:
        hit = self._cache.get(schema)
        if hit is not None:
            return hit
        if self._whole is not None:
            builder = copy_schema_basics(schema, _BUILDERS[self._whole]())
        else:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            for f in schema.fields:
                target = self._casts.get(f.name)
                if target is None:
                    builder.field(f.name, f.schema)
                    continue
                fb = _BUILDERS[target]()
                if f.schema.optional:
                    fb.optional()
                if f.schema.default_value is not None:
                    fb.default_value(self._cast(f.schema, f.schema.default_value, target, f.name))
                builder.field(f.name, fb.build())
        if schema.optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(
                self._cast(schema, schema.default_value, builder.schema_type, None)
            )
        hit = builder.build()
        self._cache[schema] = hit
        return hit

    def _cast(self, schema: Schema | None, value: Any, target: Type, field: str | None) -> Any:
        if value is None:
            return None
        where = f" (field '{field}')" if field is not None else ""
        source = schema.type if schema is not None else _infer_type(value)
        if source is None:
            raise DataException(
                f"{self._who}: Cast transformation was passed a value of type "
                f"{type_name(value)} which is not supported by Connect's data API{where}"
            )
        if source not in _INPUT:
            raise DataException(
                f"{self._who}: Cast transformation does not support casting from {source.name}; "
                f"supported types are {_supported(_INPUT)}{where}"
            )
        if target is not Type.STRING:
            if schema is not None and schema.name is not None:
                value = _encode_logical(schema, value)
            if isinstance(value, bytes | bytearray | memoryview):
                raise DataException(
                    f"{self._who}: Unexpected type in Cast transformation: bytes{where}"
                )
        if target is Type.STRING and source is Type.FLOAT32 and isinstance(value, float):
            # Java holds a FLOAT32 value as a Float, whose toString has float precision.
            return java_float_to_string(value)
        try:
            out = _CASTERS[target](value)
        except TypeError as e:
            raise DataException(
                f"{self._who}: Unexpected type in Cast transformation: {e}{where}"
            ) from e
        except (ValueError, ArithmeticError, OverflowError) as e:
            raise DataException(
                f"{self._who}: Value ({value}) was out of range for requested "
                f"data type {target.value}{where}"
            ) from e
        # without a schema to say so, a float32 is kept a Java Float
        return Float32(out) if schema is None and target is Type.FLOAT32 else out


class CastKey(KeySide, _Cast):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.Cast$Key"


class CastValue(ValueSide, _Cast):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.Cast$Value"
