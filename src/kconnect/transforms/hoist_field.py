"""HoistField$Key / HoistField$Value: wrap the key or value in a one-field Struct or map."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, Importance, Schema, SchemaBuilder, Struct
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import KeySide, SidedSmt, ValueSide

__all__ = ["HoistFieldKey", "HoistFieldValue"]


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

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the field and the updated schema
        of an input schema."""
        return "hoist_field", {
            "is_key": self.IS_KEY,
            "field": self._field,
            "updated_schema": self._schema_for,
        }

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
