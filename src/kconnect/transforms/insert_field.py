"""InsertField$Key / InsertField$Value: add fields from record metadata or a static value.

Each ``*.field`` setting names the new field; a trailing ``!`` makes it required, ``?`` (the
default) optional. ``offset.field`` needs a sink record. With a schema the timestamp is a
Connect Timestamp; schemaless it is the epoch milliseconds.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

from kconnect.api import (
    ConfigDef,
    ConfigException,
    Importance,
    Schema,
    SchemaBuilder,
    Timestamp,
)
from kconnect.api import ConfigType as CT
from kconnect.api.data.java_strings import copy_table, in_hash_map_order
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.requirements import (
    require_map,
    require_sink_record,
    require_struct,
)
from kconnect.transforms._util.schema_util import (
    copy_schema_basics,
    put_all,
)

__all__ = ["InsertFieldKey", "InsertFieldValue"]

_PURPOSE = "field insertion"
_OPT = (
    "Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep "
    "it optional (the default)."
)
_OPTIONAL_TIMESTAMP = Timestamp.builder().optional().build()
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def _spec(text: str | None) -> tuple[str, bool] | None:
    """(name, optional) from ``name``, ``name?`` or ``name!``."""
    if text is None:
        return None
    if text.endswith("?"):
        return text[:-1], True
    if text.endswith("!"):
        return text[:-1], False
    return text, True


def _timestamp_value(epoch_ms: int) -> _dt.datetime:
    """A record timestamp as the Connect Timestamp value inserted with a schema."""
    return _EPOCH + _dt.timedelta(milliseconds=epoch_ms)


class _InsertField(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define(
            "topic.field",
            CT.STRING,
            None,
            None,
            Importance.MEDIUM,
            "Field name for Kafka topic. " + _OPT,
        )
        .define(
            "partition.field",
            CT.STRING,
            None,
            None,
            Importance.MEDIUM,
            "Field name for Kafka partition. " + _OPT,
        )
        .define(
            "offset.field",
            CT.STRING,
            None,
            None,
            Importance.MEDIUM,
            "Field name for Kafka offset - only applicable to sink connectors.<br/>" + _OPT,
        )
        .define(
            "timestamp.field",
            CT.STRING,
            None,
            None,
            Importance.MEDIUM,
            "Field name for record timestamp. " + _OPT,
        )
        .define(
            "static.field",
            CT.STRING,
            None,
            None,
            Importance.MEDIUM,
            "Field name for static data field. " + _OPT,
        )
        .define(
            "static.value",
            CT.STRING,
            None,
            None,
            Importance.MEDIUM,
            "Static field value, if field name configured.",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._topic = _spec(parsed["topic.field"])
        self._partition = _spec(parsed["partition.field"])
        self._offset = _spec(parsed["offset.field"])
        self._timestamp = _spec(parsed["timestamp.field"])
        self._static = _spec(parsed["static.field"])
        self._static_value: str | None = parsed["static.value"]
        self._rnwd: bool = parsed[RNWD_CONFIG]
        if not any((self._topic, self._partition, self._offset, self._timestamp, self._static)):
            raise ConfigException("No field insertion configured")
        if self._static is not None and self._static_value is None:
            raise ConfigException(
                "static.value", None, f"No value specified for static field: {self._static[0]}"
            )
        self._cache: dict[Schema, Schema] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            m = require_map(value, _PURPOSE, self._who)
            updated = dict(m)
            self._insert(record, updated, schemaless=True)
            # new HashMap<>(value), then the puts
            updated = in_hash_map_order(updated, copy_table(len(m), len(updated)))
            return self.new_record(record, None, updated)
        struct = require_struct(value, _PURPOSE, self._who)
        updated_schema = self._schema_for(struct.schema)
        get = struct.get if self._rnwd else struct.get_without_default
        values = {f.name: get(f) for f in struct.schema.fields}
        self._insert(record, values, schemaless=False)
        out = put_all(updated_schema, values)
        return self.new_record(record, updated_schema, out)

    def _schema_for(self, schema: Schema) -> Schema:
        updated = self._cache.get(schema)
        if updated is None:
            updated = self._updated_schema(schema)
            self._cache[schema] = updated
        return updated

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the inserted fields' names, the
        static value and the updated schema of an input schema."""

        def name(spec: tuple[str, bool] | None) -> str | None:
            return None if spec is None else spec[0]

        return "insert_field", {
            "is_key": self.IS_KEY,
            "topic_field": name(self._topic),
            "partition_field": name(self._partition),
            "offset_field": name(self._offset),
            "timestamp_field": name(self._timestamp),
            "static_field": name(self._static),
            "static_value": self._static_value,
            "replace_null_with_default": self._rnwd,
            "updated_schema": self._schema_for,
        }

    def _insert(self, record: ConnectRecord, out: dict[str, Any], schemaless: bool) -> None:
        if self._topic is not None:
            out[self._topic[0]] = record.topic
        if self._partition is not None and record.kafka_partition is not None:
            out[self._partition[0]] = record.kafka_partition
        if self._offset is not None:
            out[self._offset[0]] = require_sink_record(record, _PURPOSE, self._who).kafka_offset
        if self._timestamp is not None and record.timestamp is not None:
            out[self._timestamp[0]] = (
                record.timestamp if schemaless else _timestamp_value(record.timestamp)
            )
        if self._static is not None and self._static_value is not None:
            out[self._static[0]] = self._static_value

    def _updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for f in schema.fields:
            builder.field(f.name, f.schema)
        added = (
            (self._topic, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA),
            (self._partition, Schema.OPTIONAL_INT32_SCHEMA, Schema.INT32_SCHEMA),
            (self._offset, Schema.OPTIONAL_INT64_SCHEMA, Schema.INT64_SCHEMA),
            (self._timestamp, _OPTIONAL_TIMESTAMP, Timestamp.SCHEMA),
            (self._static, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA),
        )
        for spec, optional, required in added:
            if spec is not None:
                builder.field(spec[0], optional if spec[1] else required)
        return builder.build()


class InsertFieldKey(KeySide, _InsertField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.InsertField$Key"


class InsertFieldValue(ValueSide, _InsertField):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.InsertField$Value"
