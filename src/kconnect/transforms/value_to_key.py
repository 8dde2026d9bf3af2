"""ValueToKey: replace the record key with a new key built from fields of the value.

With a schema the key is a Struct of the listed fields (their schemas copied from the value
schema, derived once per value schema); schemaless, a dict of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    ConfigDef,
    DataException,
    Field,
    Importance,
    Schema,
    SchemaBuilder,
    Struct,
)
from kconnect.api import ConfigType as CT
from kconnect.api.data.java_strings import in_hash_map_order, presized_table
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
        self._cache: dict[Schema, _KeyPlan] = {}
        # The last value schema seen and its plan: a batch nearly always shares one schema
        # object, so an identity check saves hashing the schema for every record.
        self._last: tuple[Schema | None, _KeyPlan | None] = (None, None)

    def _plan(self, value_schema: Schema) -> _KeyPlan:
        plan = self._cache.get(value_schema)
        if plan is None:
            builder = SchemaBuilder.struct()
            source_fields = []
            for name in self._fields:
                f = value_schema.field(name)
                if f is None:
                    raise DataException(f"{self._who}: Field does not exist: {name}")
                builder.field(name, f.schema)
                source_fields.append(f)
            plan = _KeyPlan(builder.build(), tuple(source_fields), self._rnwd)
            self._cache[value_schema] = plan
        self._last = (value_schema, plan)
        return plan

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value_schema = record.value_schema
        if value_schema is None:
            value = require_map(record.value, _PURPOSE, self._who)
            # new HashMap<>(fields.size()), put in the fields' order (a field named twice is
            # put twice: the size counts it once)
            key = {name: value.get(name) for name in self._fields}
            key = in_hash_map_order(key, presized_table(len(self._fields), len(key)))
            return record.new_record(
                record.topic,
                record.kafka_partition,
                None,
                key,
                value_schema,
                record.value,
                record.timestamp,
            )
        struct = record.value
        if struct.__class__ is not Struct:
            struct = require_struct(struct, _PURPOSE, self._who)
        last_schema, plan = self._last
        schema = struct.schema
        if schema is not last_schema or plan is None:
            plan = self._plan(schema)
        key_schema = plan.key_schema
        return record.new_record(
            record.topic,
            record.kafka_partition,
            key_schema,
            plan.key_of(struct, self._who),
            schema,
            struct,
            record.timestamp,
        )

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the fields and, per value schema,
        the key schema and the value field each key field takes."""

        def plan(value_schema: Schema) -> tuple[Schema, list[int]]:
            p = self._plan(value_schema)  # raises as apply does for a missing field
            return p.key_schema, list(p.indexes)

        return "value_to_key", {
            "fields": list(self._fields),
            "replace_null_with_default": self._rnwd,
            "plan": plan,
        }


class _KeyPlan:
    """How to build the key Struct from a value Struct of one schema (made once per schema).

    The key schema's fields carry the very schemas of the value's fields, so a value already
    valid in the value Struct is valid in the key: the key is built from the raw values without
    re-validating each one. Only a null in a required key field needs checking (a required
    field the value Struct never had set); that falls back to ``Struct.put`` so the error is
    the usual one naming the field.
    """

    __slots__ = (
        "_defaults",
        "_fields",
        "_indexes",
        "_names",
        "_required_at",
        "key_schema",
    )

    def __init__(self, key_schema: Schema, fields: tuple[Field, ...], rnwd: bool) -> None:
        self.key_schema = key_schema
        self._fields = fields
        self._names = tuple(f.name for f in fields)
        # where each key field's value sits in the value Struct's values
        self._indexes = tuple(f.index for f in fields)
        # which key fields (positions in the key) are required
        self._required_at = tuple(i for i, f in enumerate(fields) if not f.schema.optional)
        # Struct.get substitutes the field default for null; get_without_default does not.
        defaults = tuple(f.schema.default_value if rnwd else None for f in fields)
        self._defaults = defaults if any(d is not None for d in defaults) else None

    @property
    def indexes(self) -> tuple[int, ...]:
        """Per key field, the index of the value field it takes."""
        return self._indexes

    def key_of(self, struct: Struct, who: str) -> Struct:
        raw = struct.raw_values()
        values = [raw[i] for i in self._indexes]
        if self._defaults is not None:
            values = [d if v is None else v for v, d in zip(values, self._defaults, strict=True)]
        if self._required_at and any(values[i] is None for i in self._required_at):
            key = Struct(self.key_schema)
            for n, v in zip(self._names, values, strict=True):
                key.put(n, v)  # raises DataException naming the null required field
        return Struct.trusted(self.key_schema, values)
