"""HeaderFrom$Key / HeaderFrom$Value: move or copy fields of the key/value into headers.

``fields[i]`` goes to header ``headers[i]``. With a schema the header carries the field's
schema; ``move`` also drops the fields from the Struct (schema derived once per input schema).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    ConfigDef,
    ConfigException,
    DataException,
    Field,
    Importance,
    Schema,
    SchemaBuilder,
    Struct,
    ValidString,
)
from kconnect.api import ConfigType as CT
from kconnect.api.data.java_strings import copy_table, in_hash_map_order
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import require_map, require_struct
from kconnect.transforms._util.schema_util import (
    copy_schema_basics,
    put_all,
)
from kconnect.transforms._util.validators import NonEmptyListValidator

__all__ = ["HeaderFromKey", "HeaderFromValue"]


class _HeaderFrom(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define(
            "fields",
            CT.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            NonEmptyListValidator(),
            Importance.HIGH,
            "Field names in the record whose values are to be copied or moved to headers.",
        )
        .define(
            "headers",
            CT.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            NonEmptyListValidator(),
            Importance.HIGH,
            "Header names, in the same order as the field names listed in the fields "
            "configuration property.",
        )
        .define(
            "operation",
            CT.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            ValidString.in_("move", "copy"),
            Importance.HIGH,
            "Either <code>move</code> if the fields are to be moved to the headers (removed "
            "from the key/value), or <code>copy</code> if the fields are to be copied to the "
            "headers (retained in the key/value).",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        fields: list[str] = parsed["fields"]
        headers: list[str] = parsed["headers"]
        if len(fields) != len(headers):
            raise ConfigException(
                "'fields' config must have the same number of elements as 'headers' config."
            )
        self._pairs = tuple(zip(fields, headers, strict=True))
        self._fields = frozenset(fields)
        self._move: bool = parsed["operation"] == "move"
        self._purpose = "header " + parsed["operation"]
        self._rnwd: bool = parsed[RNWD_CONFIG]
        self._cache: dict[Schema, Schema] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        headers = record.headers.duplicate()
        if schema is None:
            m = require_map(value, self._purpose, self._who)
            # new HashMap<>(value) (for copy too), then the removals, which keep the table
            updated_map = in_hash_map_order(dict(m), copy_table(len(m), len(m)))
            for field, header in self._pairs:
                if self._move:
                    updated_map.pop(field, None)
                headers.add(header, m.get(field), None)
            return self.new_record(record, None, updated_map, headers)
        struct = require_struct(value, self._purpose, self._who)
        get = struct.get if self._rnwd else struct.get_without_default
        if self._move:
            updated_schema = self._moved_schema(schema)
            updated: Struct = put_all(updated_schema, [get(f.name) for f in updated_schema.fields])
        else:
            updated_schema, updated = schema, struct
        for field, header in self._pairs:
            f = self._header_field(schema, field, header)
            headers.add(header, get(f), f.schema)
        return self.new_record(record, updated_schema, updated, headers)

    def _header_field(self, schema: Schema, field: str, header: str) -> Field:
        """The field of ``schema`` copied to ``header``; raises DataException when missing."""
        f = schema.field(field)
        if f is None:
            side = "key" if self.IS_KEY else "value"
            raise DataException(
                f"{self._who}: field '{field}' (for header '{header}') is not in the "
                f"{side} schema {schema!r}"
            )
        return f

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: its settings and, per input
        schema, the updated schema, the input field of each of its fields (move) and the
        input field of each header."""

        def plan(schema: Schema) -> tuple[Schema, list[int], list[int]]:
            header_fields = [self._header_field(schema, f, h).index for f, h in self._pairs]
            if not self._move:
                return schema, [], header_fields
            updated = self._moved_schema(schema)
            sources = []
            for f in updated.fields:
                source = schema.field(f.name)
                assert source is not None  # (the moved schema's fields are the input's)
                sources.append(source.index)
            return updated, sources, header_fields

        return "header_from", {
            "is_key": self.IS_KEY,
            "fields": [f for f, _h in self._pairs],
            "headers": [h for _f, h in self._pairs],
            "move": self._move,
            "replace_null_with_default": self._rnwd,
            "plan": plan,
        }

    def _moved_schema(self, schema: Schema) -> Schema:
        hit = self._cache.get(schema)
        if hit is None:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            for f in schema.fields:
                if f.name not in self._fields:
                    builder.field(f.name, f.schema)
            hit = builder.build()
            self._cache[schema] = hit
        return hit


class HeaderFromKey(KeySide, _HeaderFrom):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.HeaderFrom$Key"


class HeaderFromValue(ValueSide, _HeaderFrom):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.HeaderFrom$Value"
