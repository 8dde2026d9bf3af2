"""SetSchemaMetadata$Key / SetSchemaMetadata$Value: set the schema name and/or version.

A Struct is rebuilt against the renamed schema (its values copied; nulls replaced by defaults
unless ``replace.null.with.default=false``). A null key/value without schema passes through.
As in Kafka, only STRUCT schemas can be renamed: Kafka copies the schema with
``schema.fields()``, which any other type refuses ("Cannot list fields on non-struct type").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConfigException, DataException, Importance, Schema, Struct, Type
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_schema
from kconnect.transforms._util.schema_util import (
    put_all,
)

__all__ = ["SetSchemaMetadataKey", "SetSchemaMetadataValue"]


class _SetSchemaMetadata(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define("schema.name", CT.STRING, None, None, Importance.HIGH, "Schema name to set.")
        .define("schema.version", CT.INT, None, None, Importance.HIGH, "Schema version to set.")
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._name: str | None = parsed["schema.name"]
        self._version: int | None = parsed["schema.version"]
        self._rnwd: bool = parsed[RNWD_CONFIG]
        if self._name is None and self._version is None:
            raise ConfigException("Neither schema name nor version configured")
        self._cache: dict[Schema, Schema] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value = self.operating_value(record)
        schema = self.operating_schema(record)
        if value is None and schema is None:
            return record
        schema = require_schema(schema, "updating schema metadata", self._who)
        updated = self._schema_for(schema)
        if isinstance(value, Struct):
            get = value.get if self._rnwd else value.get_without_default
            value = put_all(updated, [get(f) for f in updated.fields])
        return self.new_record(record, updated, value)

    def _schema_for(self, schema: Schema) -> Schema:
        """``schema`` with the configured name and/or version (made once per schema)."""
        updated = self._cache.get(schema)
        if updated is None:
            t = schema.type
            if t is not Type.STRUCT:
                # Kafka builds the new schema with schema.fields(), which every other type
                # refuses: SetSchemaMetadata only works on structs (and null values)
                raise DataException(f"{self._who}: Cannot list fields on non-struct type")
            updated = Schema(
                t,
                schema.optional,
                schema.default_value,
                self._name if self._name is not None else schema.name,
                self._version if self._version is not None else schema.version,
                schema.doc,
                schema.parameters,
                schema.fields,
            )
            self._cache[schema] = updated
        return updated

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the updated schema of an input
        schema."""
        return "set_schema_metadata", {
            "is_key": self.IS_KEY,
            "replace_null_with_default": self._rnwd,
            "updated_schema": self._schema_for,
        }


class SetSchemaMetadataKey(KeySide, _SetSchemaMetadata):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.SetSchemaMetadata$Key"


class SetSchemaMetadataValue(ValueSide, _SetSchemaMetadata):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value"
