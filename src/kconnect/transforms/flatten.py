"""Flatten$Key / Flatten$Value: flatten nested Structs (or maps) into one level.

Nested field names are joined with ``delimiter``. Arrays and their contents are kept as they
are; a MAP inside a Struct is not supported (as in Kafka). With a schema, a flattened field is
optional if any ancestor is, and takes its default from the nearest ancestor default. The
flattened schema is derived once per input schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, DataException, Importance, Schema, SchemaBuilder, Struct, Type
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_map, require_struct_or_null, type_name
from kconnect.transforms._util.schema_util import copy_schema_basics, put_all

__all__ = ["FlattenKey", "FlattenValue"]

_PURPOSE = "flattening"
_LEAF_TYPES = frozenset(t for t in Type if t not in (Type.MAP, Type.STRUCT))
_SCHEMALESS_LEAVES = (bool, int, float, str, bytes, bytearray, list)


class _Flatten(SidedSmt):
    CONFIG_DEF = ConfigDef().define(
        "delimiter",
        CT.STRING,
        ".",
        None,
        Importance.MEDIUM,
        "Delimiter to insert between field names from the input record when generating field "
        "names for the output record",
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._delimiter: str = self._parse(configs)["delimiter"]
        self._cache: dict[Schema, Schema] = {}

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self._delimiter + name

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            out: dict[str, Any] = {}
            self._flatten_map(require_map(value, _PURPOSE, self._who), "", out)
            return self.new_record(record, None, out)
        struct = require_struct_or_null(value, _PURPOSE, self._who)
        updated = self._updated_schema(schema)
        values: dict[str, Any] = {}
        self._flatten_struct(struct, "", values)
        return self.new_record(record, updated, put_all(updated, values))

    def _updated_schema(self, schema: Schema) -> Schema:
        updated = self._cache.get(schema)
        if updated is None:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            self._build_schema(schema, "", builder, schema.optional, schema.default_value)
            updated = builder.build()
            self._cache[schema] = updated
        return updated

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the delimiter and the flattened
        schema of an input schema (asked once per schema)."""
        return "flatten", {
            "is_key": self.IS_KEY,
            "delimiter": self._delimiter,
            "updated_schema": self._updated_schema,
        }

    def _flatten_map(self, m: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, v in m.items():
            name = self._name(prefix, key)
            if v is None or isinstance(v, _SCHEMALESS_LEAVES):
                out[name] = v
            elif isinstance(v, Mapping):
                self._flatten_map(v, name, out)
            elif not isinstance(v, Struct):
                # no Connect type for the value's class (a Decimal, a date...)
                raise DataException(
                    f"{self._who}: Flatten transformation was passed a value of type "
                    f"{type_name(v)} which is not supported by Connect's data API"
                )
            else:
                raise DataException(
                    f"{self._who}: Flatten transformation does not support {type_name(v)} for "
                    f"record without schemas (for field {name})."
                )

    def _build_schema(
        self,
        schema: Schema,
        prefix: str,
        builder: SchemaBuilder,
        optional: bool,
        parent_default: Struct | None,
    ) -> None:
        for f in schema.fields:
            name = self._name(prefix, f.name)
            fs = f.schema
            field_optional = optional or fs.optional
            default = fs.default_value
            if default is None and parent_default is not None:
                default = parent_default.get(f)
            if fs.type in _LEAF_TYPES:
                b = copy_schema_basics(fs)
                if field_optional:
                    b.optional()
                if default is not None:
                    b.default_value(default)
                builder.field(name, b.build())
            elif fs.type is Type.STRUCT:
                self._build_schema(fs, name, builder, field_optional, default)
            else:
                raise DataException(
                    f"{self._who}: Flatten transformation does not support {fs.type.name} for "
                    f"record with schemas (for field {name})."
                )

    def _flatten_struct(self, struct: Struct | None, prefix: str, out: dict[str, Any]) -> None:
        if struct is None:
            return
        for f in struct.schema.fields:
            name = self._name(prefix, f.name)
            t = f.schema.type
            if t is Type.STRUCT:
                self._flatten_struct(struct.get(f), name, out)
            elif t in _LEAF_TYPES:
                out[name] = struct.get(f)
            else:
                raise DataException(
                    f"{self._who}: Flatten transformation does not support {t.name} for "
                    f"record with schemas (for field {name})."
                )


class FlattenKey(KeySide, _Flatten):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.Flatten$Key"


class FlattenValue(ValueSide, _Flatten):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.Flatten$Value"
