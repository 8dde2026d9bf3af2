"""MaskField$Key / MaskField$Value: replace listed fields with a type-appropriate empty value.

Without ``replacement`` a field becomes 0 / 0.0 / False / "" / empty list / empty map / the
epoch (dates and times) / Decimal 0. With ``replacement`` numeric and string fields get that
text converted to the field's type (an unparsable number is a DataException); other types
cannot take a custom replacement. Null values stay null.

With a schema the field's Connect type decides (INT8 wraps like a Java byte); schemaless, the
Python type of the value does (``int`` is treated as a Java Long).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import (
    ConfigDef,
    DataException,
    Field,
    Importance,
    NonEmptyString,
    Schema,
    Type,
)
from kconnect.api import ConfigType as CT
from kconnect.api.data.java_numbers import to_float32
from kconnect.api.data.java_strings import (
    Float32,
    copy_table,
    hash_map_order,
    hash_set_copy_table,
    in_hash_map_order,
)
from kconnect.api.data.schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
)
from kconnect.api.data.values import java_long, narrow
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_map, require_struct, type_name
from kconnect.transforms._util.schema_util import (
    put_all,
)
from kconnect.transforms._util.validators import NonEmptyListValidator

__all__ = ["MaskFieldKey", "MaskFieldValue"]

_PURPOSE = "mask fields"
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)

# Masks by Connect type (schema'd) and by Python type (schemaless).
_NULL_BY_TYPE: dict[Type, Any] = {
    Type.BOOLEAN: False,
    Type.INT8: 0,
    Type.INT16: 0,
    Type.INT32: 0,
    Type.INT64: 0,
    Type.FLOAT32: 0.0,
    Type.FLOAT64: 0.0,
    Type.STRING: "",
}
_NULL_BY_LOGICAL: dict[str, Any] = {
    DECIMAL_LOGICAL_NAME: _decimal.Decimal(0),
    DATE_LOGICAL_NAME: _dt.date(1970, 1, 1),
    TIME_LOGICAL_NAME: _dt.time(0),
    TIMESTAMP_LOGICAL_NAME: _EPOCH,
}


def _number(convert: Callable[[str], Any], what: str = "a number") -> Callable[[str], Any]:
    # Kafka's texts: Values.convertTo... says "to a number"; MaskField's own, for a Decimal
    # (BigDecimal::new), "to number"
    def parse(text: str) -> Any:
        try:
            return convert(text)
        except (ValueError, ArithmeticError) as e:
            raise DataException(f"Unable to convert {text} (str) to {what}") from e

    return parse


def _java_double(text: str) -> float:
    return float(_decimal.Decimal(text))


_REPLACE_BY_TYPE: dict[Type, Callable[[str], Any]] = {
    Type.INT8: _number(lambda t: narrow(java_long(t), 8)),
    Type.INT16: _number(lambda t: narrow(java_long(t), 16)),
    Type.INT32: _number(lambda t: narrow(java_long(t), 32)),
    Type.INT64: _number(java_long),
    Type.FLOAT32: _number(lambda t: to_float32(_java_double(t))),
    Type.FLOAT64: _number(_java_double),
    Type.STRING: lambda t: t,
}
_REPLACE_DECIMAL = _number(_decimal.Decimal, "number")


class _MaskField(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define(
            "fields",
            CT.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            NonEmptyListValidator(),
            Importance.HIGH,
            "Names of fields to mask.",
        )
        .define(
            "replacement",
            CT.STRING,
            None,
            NonEmptyString(),
            Importance.LOW,
            "Custom value replacement, that will be applied to all 'fields' values (numeric "
            "or non-empty string values only).",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        fields: list[str] = parsed["fields"]
        self._fields: frozenset[str] = frozenset(fields)
        # the fields in the order Kafka's schemaless path puts them: a new HashSet<>(list)
        self._field_order = [
            f
            for f, _ in hash_map_order(
                ((f, None) for f in dict.fromkeys(fields)), table=hash_set_copy_table(len(fields))
            )
        ]
        self._replacement: str | None = parsed["replacement"]
        self._rnwd: bool = parsed[RNWD_CONFIG]
        # Per field: the masked value, computed once (the replacement text is fixed).
        self._cache: dict[Field, Any] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value = self.operating_value(record)
        schema = self.operating_schema(record)
        if schema is None:
            m = require_map(value, _PURPOSE, self._who)
            updated = dict(m)
            for name in self._field_order:
                updated[name] = self._mask_schemaless(name, m.get(name))
            # new HashMap<>(value), then the puts
            updated = in_hash_map_order(updated, copy_table(len(m), len(updated)))
            return self.new_record(record, None, updated)
        struct = require_struct(value, _PURPOSE, self._who)
        get = struct.get if self._rnwd else struct.get_without_default
        values: list[Any] = []  # in the schema's field order, as a Struct holds them
        for f in struct.schema.fields:
            v = get(f)
            values.append(self._mask_field(f, v) if f.name in self._fields and v is not None else v)
        return self.new_record(record, schema, put_all(struct.schema, values))

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the fields (in the order the
        schemaless path puts them), per input schema each field's masked value (or that it
        cannot be masked), and the schemaless mask of a sample value of each kind."""

        def plan(schema: Schema) -> list[tuple[bool, Any] | None]:
            out: list[tuple[bool, Any] | None] = []
            for f in schema.fields:
                if f.name not in self._fields:
                    out.append(None)
                    continue
                try:
                    out.append((True, self._mask_field(f, f)))
                except DataException:
                    out.append((False, None))
            return out

        return "mask_field", {
            "is_key": self.IS_KEY,
            "fields": list(self._field_order),
            "replace_null_with_default": self._rnwd,
            "plan": plan,
            "mask_plain": self._mask_schemaless,
            "samples": {
                "bool": False,
                "int": 0,
                "float": 0.0,
                "decimal": _decimal.Decimal(0),
                "str": "",
                "datetime": _EPOCH,
                "date": _dt.date(1970, 1, 1),
                "time": _dt.time(0),
                "list": [],
                "dict": {},
            },
        }

    def _fail(self, field: str, what: str) -> DataException:
        # Kafka's two texts: "...of type: <class>" and "...of type <class> with custom
        # replacement."
        if self._replacement:
            text = f"Cannot mask value of type {what} with custom replacement."
        else:
            text = f"Cannot mask value of type: {what}"
        return DataException(f"{self._who}: {text} (field '{field}')")

    def _mask_field(self, f: Field, value: Any) -> Any:
        cached = self._cache.get(f, self)
        if cached is not self:
            return cached
        schema = f.schema
        logical = schema.name if schema.name in _NULL_BY_LOGICAL else None
        if self._replacement is None:
            if logical is not None:
                masked = _NULL_BY_LOGICAL[logical]
            elif schema.type in _NULL_BY_TYPE:
                masked = _NULL_BY_TYPE[schema.type]
            elif schema.type is Type.ARRAY:
                return []  # a fresh container per record: callers may mutate it
            elif schema.type is Type.MAP:
                return {}
            else:
                raise self._fail(f.name, schema.type.name)
        elif logical == DECIMAL_LOGICAL_NAME or (
            logical is None and schema.type in _REPLACE_BY_TYPE
        ):
            convert = _REPLACE_DECIMAL if logical else _REPLACE_BY_TYPE[schema.type]
            try:
                masked = convert(self._replacement)
            except DataException as e:
                raise DataException(f"{self._who}: {e} (field '{f.name}')") from e
        else:
            raise self._fail(f.name, logical or schema.type.name)
        self._cache[f] = masked
        return masked

    def _mask_schemaless(self, field: str, value: Any) -> Any:
        try:
            return self._mask_plain(field, value)
        except DataException as e:
            if str(e).startswith(self._who):
                raise
            raise DataException(f"{self._who}: {e} (field '{field}')") from e

    def _mask_plain(self, field: str, value: Any) -> Any:
        if value is None:
            return None
        r = self._replacement
        if isinstance(value, bool):
            if r is not None:
                raise self._fail(field, "bool")
            return False
        if isinstance(value, int):
            return 0 if r is None else _REPLACE_BY_TYPE[Type.INT64](r)
        if value.__class__ is Float32:  # a Java Float stays one
            return Float32(0.0 if r is None else _REPLACE_BY_TYPE[Type.FLOAT32](r))
        if isinstance(value, float):
            return 0.0 if r is None else _REPLACE_BY_TYPE[Type.FLOAT64](r)
        if isinstance(value, _decimal.Decimal):
            return _decimal.Decimal(0) if r is None else _REPLACE_DECIMAL(r)
        if isinstance(value, str):
            return "" if r is None else r
        if r is None:
            if isinstance(value, _dt.datetime):
                return _EPOCH
            if isinstance(value, _dt.date):
                return _dt.date(1970, 1, 1)
            if isinstance(value, _dt.time):
                return _dt.time(0)
            if isinstance(value, list):
                return []
            if isinstance(value, Mapping):
                return {}
        raise self._fail(field, type_name(value))


class MaskFieldKey(KeySide, _MaskField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.MaskField$Key"


class MaskFieldValue(ValueSide, _MaskField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.MaskField$Value"
