"""ValueToKey: replace the record key with a new key built from fields of the value.

With a schema the key is a Struct of the listed fields (their schemas copied from the value
schema, derived once per value schema); schemaless, a dict of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, DataException, Importance, Schema, SchemaBuilder, Struct
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, SmtBase
from kconnect.transforms._util.requirements import require_map, require_struct
from kconnect.transforms._util.validators import NonEmptyListValidator

__all__ = ["ValueToKey"]

_PURPOSE = "copying fields from value to key"


class ValueToKey(SmtBase):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.ValueToKey"

    CONFIG_DEF = (
        ConfigDef()
        .define(
            "fields",
            CT.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            NonEmptyListValidator(),
            Importance.HIGH,
            "Field names on the record value to extract as the record key.",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._fields: tuple[str, ...] = tuple(parsed["fields"])
        self._rnwd: bool = parsed[RNWD_CONFIG]
        self._cache: dict[Schema, tuple[Schema, tuple[Any, ...]]] = {}

    def _key_schema(self, value_schema: Schema) -> tuple[Schema, tuple[Any, ...]]:
        hit = self._cache.get(value_schema)
        if hit is None:
            builder = SchemaBuilder.struct()
            source_fields = []
            for name in self._fields:
                f = value_schema.field(name)
                if f is None:
                    raise DataException(f"{self._who}: Field does not exist: {name}")
                builder.field(name, f.schema)
                source_fields.append(f)
            hit = (builder.build(), tuple(source_fields))
            self._cache[value_schema] = hit
        return hit

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        if record.value_schema is None:
            value = require_map(record.value, _PURPOSE, self._who)
            key = {name: value.get(name) for name in self._fields}
            return record.new_record(
                record.topic,
                record.kafka_partition,
                None,
                key,
                record.value_schema,
                record.value,
                record.timestamp,
            )
        struct = require_struct(record.value, _PURPOSE, self._who)
        key_schema, source_fields = self._key_schema(struct.schema)
        get = struct.get if self._rnwd else struct.get_without_default
        key = Struct(key_schema)
        for f in source_fields:
            # put() validates: a null in a required field fails here, naming the field.
            key.put(f.name, get(f))
        return record.new_record(
            record.topic,
            record.kafka_partition,
            key_schema,
            key,
            struct.schema,
            struct,
            record.timestamp,
        )
