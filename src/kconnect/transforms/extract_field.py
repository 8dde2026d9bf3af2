"""ExtractField$Key / ExtractField$Value: replace the key or value with one of its fields.

A Struct (with schema) or a map (schemaless) is replaced by the value of ``field``; with
``field.syntax.version=V2`` the field may be nested (``a.b``, backticks around names with
dots). A null key/value passes through as null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, DataException, Field, Importance, Schema, Struct
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.field_path import (
    SingleFieldPath,
    append_field_syntax_version,
    field_syntax_version,
)
from kconnect.transforms._util.requirements import require_map_or_null, require_struct_or_null

__all__ = ["ExtractFieldKey", "ExtractFieldValue"]

_PURPOSE = "field extraction"


class _ExtractField(SidedSmt):
    CONFIG_DEF = append_field_syntax_version(
        ConfigDef()
        .define(
            "field", CT.STRING, importance=Importance.MEDIUM, documentation="Field name to extract."
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._original_path: str = parsed["field"]
        self._path = SingleFieldPath(self._original_path, field_syntax_version(parsed))
        self._rnwd: bool = parsed[RNWD_CONFIG]
        self._top_level = self._path.is_top_level
        # The field at the path in the last schema seen (schemas are immutable and a batch
        # nearly always shares one schema object, so an identity check is enough).
        self._last_schema: Schema | None = None
        self._last_field: Field | None = None

    def _field_in(self, schema: Schema) -> Field:
        field = self._path.field_from(schema)
        if field is None:
            raise DataException(f"{self._who}: Unknown field: {self._original_path}")
        self._last_schema, self._last_field = schema, field
        return field

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            m = require_map_or_null(value, _PURPOSE, self._who)
            return self.new_record(
                record, None, None if m is None else self._path.value_from_map(m, self._who)
            )
        if value is not None and value.__class__ is not Struct:
            value = require_struct_or_null(value, _PURPOSE, self._who)  # raises for non-structs
        field = self._last_field
        if schema is not self._last_schema or field is None:
            field = self._field_in(schema)
        if value is None:
            extracted = None
        elif self._top_level:
            # One plain field of a Struct: what Struct.get/get_without_default would return.
            extracted = value.raw_values()[field.index]
            if extracted is None and self._rnwd:
                extracted = field.schema.default_value
        else:
            extracted = self._path.value_from_struct(value, self._rnwd, self._who)
        return self.new_record(record, field.schema, extracted)

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the path's steps and, per input
        schema, the extracted field's schema and its index at each step."""
        return "extract_field", {
            "is_key": self.IS_KEY,
            "steps": list(self._path.steps),
            "replace_null_with_default": self._rnwd,
            "field": self._native_field,
        }

    def _native_field(self, schema: Schema) -> tuple[Schema, list[int]]:
        """The schema of the field at the path in ``schema`` and the field index of each step
        (raises as :meth:`apply` does for a path that is not in the schema)."""
        field = self._field_in(schema)
        indexes = []
        current = schema
        for step in self._path.steps[:-1]:
            f = current.field(step)
            assert f is not None  # (_field_in found the whole path)
            indexes.append(f.index)
            current = f.schema
        indexes.append(field.index)
        return field.schema, indexes


class ExtractFieldKey(KeySide, _ExtractField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ExtractField$Key"


class ExtractFieldValue(ValueSide, _ExtractField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ExtractField$Value"
