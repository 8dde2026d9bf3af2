"""HoistField$Key / HoistField$Value: wrap the key or value in a one-field Struct or map."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, Importance, Schema, SchemaBuilder, Struct, Type
from kconnect.api import ConfigType as CT
from kconnect.api.data.schema import validate_value
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import KeySide, SidedSmt, ValueSide

__all__ = ["HoistFieldKey", "HoistFieldValue"]

_LOGICAL = frozenset(
    {
        "org.apache.kafka.connect.data.Decimal",
        "org.apache.kafka.connect.data.Date",
        "org.apache.kafka.connect.data.Time",
        "org.apache.kafka.connect.data.Timestamp",
    }
)
_INT_RANGES: dict[Type, tuple[int, int]] = {
    Type.INT8: (-(1 << 7), (1 << 7) - 1),
    Type.INT16: (-(1 << 15), (1 << 15) - 1),
    Type.INT32: (-(1 << 31), (1 << 31) - 1),
    Type.INT64: (-(1 << 63), (1 << 63) - 1),
}
_SIMPLE = {Type.STRING: "str", Type.BOOLEAN: "bool", Type.BYTES: "bytes"}


class _HoistField(SidedSmt):
    CONFIG_DEF = ConfigDef().define(
        "field",
        CT.STRING,
        importance=Importance.MEDIUM,
        documentation="Field name for the single field that will be created in the resulting "
        "Struct or Map.",
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._field: str = self._parse(configs)["field"]
        self._cache: dict[Schema, Schema] = {}

    def _schema_for(self, schema: Schema) -> Schema:
        updated = self._cache.get(schema)
        if updated is None:
            updated = SchemaBuilder.struct().field(self._field, schema).build()
            self._cache[schema] = updated
        return updated

    def native_step(self) -> tuple[Any, ...]:
        """This transformation as a ``kconnect_native.Chain`` step."""
        return ("hoist", self.IS_KEY, self._field, self._native_schema)

    def _native_schema(self, schema: Schema) -> tuple[Schema, tuple[Any, ...], Any]:
        """For the native step: the updated schema, what a value needs to be certainly valid
        for ``schema`` (kind, optional[, lo, hi]; kind "any" leaves it to the validator), and
        ``Struct.put``'s validation of a value (raises DataException)."""
        updated = self._schema_for(schema)
        field = updated.fields[0]
        fschema = field.schema
        t = fschema.type
        check: tuple[Any, ...] = ("any", fschema.optional)
        if fschema.name not in _LOGICAL:
            if t in _INT_RANGES:
                check = ("int", fschema.optional, *_INT_RANGES[t])
            elif t in _SIMPLE:
                check = (_SIMPLE[t], fschema.optional)

        def validate(value: Any) -> None:
            validate_value(fschema, value, field.name)

        return updated, check, validate

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.new_record(record, None, {self._field: value})
        updated = self._schema_for(schema)
        return self.new_record(record, updated, Struct(updated).put(self._field, value))


class HoistFieldKey(KeySide, _HoistField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.HoistField$Key"


class HoistFieldValue(ValueSide, _HoistField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.HoistField$Value"
