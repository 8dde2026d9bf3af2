"""ExtractField$Key / ExtractField$Value: replace the key or value with one of its fields.

A Struct (with schema) or a map (schemaless) is replaced by the value of ``field``; with
``field.syntax.version=V2`` the field may be nested (``a.b``, backticks around names with
dots). A null key/value passes through as null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, DataException, Importance
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SmtBase, ValueSide
from kconnect.transforms._util.field_path import (
    SingleFieldPath,
    append_field_syntax_version,
    field_syntax_version,
)
from kconnect.transforms._util.requirements import require_map_or_null, require_struct_or_null

__all__ = ["ExtractFieldKey", "ExtractFieldValue"]

_PURPOSE = "field extraction"


class _ExtractField(SmtBase):
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

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        schema = self.operating_schema(record)  # type: ignore[attr-defined]
        value = self.operating_value(record)  # type: ignore[attr-defined]
        if schema is None:
            m = require_map_or_null(value, _PURPOSE, self._who)
            return self.new_record(  # type: ignore[attr-defined, no-any-return]
                record, None, None if m is None else self._path.value_from_map(m, self._who)
            )
        struct = require_struct_or_null(value, _PURPOSE, self._who)
        field = self._path.field_from(schema)
        if field is None:
            raise DataException(f"{self._who}: Unknown field: {self._original_path}")
        return self.new_record(  # type: ignore[attr-defined, no-any-return]
            record,
            field.schema,
            None if struct is None else self._path.value_from_struct(struct, self._rnwd, self._who),
        )


class ExtractFieldKey(KeySide, _ExtractField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ExtractField$Key"


class ExtractFieldValue(ValueSide, _ExtractField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ExtractField$Value"
