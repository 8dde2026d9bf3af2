"""TimestampConverter$Key / TimestampConverter$Value: convert between timestamp forms.

Forms: ``string`` (a Java SimpleDateFormat ``format``, UTC), ``unix`` (an INT64 count of
``unix.precision`` units since the epoch), and the Connect logical types ``Date``, ``Time``
and ``Timestamp``. ``field`` names the top-level field to convert; empty means the whole
key/value. With a schema, the source form comes from the schema; schemaless, from the Python
type (datetime, date, time, int, str). Internally every conversion goes through epoch
milliseconds, so sub-millisecond digits are dropped (as Kafka warns).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import (
    ConfigDef,
    ConfigException,
    DataException,
    Date,
    Importance,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
    ValidString,
)
from kconnect.api import ConfigType as CT
from kconnect.api.data.java_strings import copy_table, in_hash_map_order
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import RNWD_CONFIG, RNWD_DOC, KeySide, SidedSmt, ValueSide
from kconnect.transforms._util.java_date_format import JavaDateFormat
from kconnect.transforms._util.requirements import require_map, require_struct_or_null, type_name
from kconnect.transforms._util.schema_util import copy_schema_basics

__all__ = ["TimestampConverterKey", "TimestampConverterValue"]

_PURPOSE = "converting timestamp formats"
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_DAY_MS = 86_400_000
_PRECISION_MS = {"seconds": 1000, "milliseconds": 1, "microseconds": None, "nanoseconds": None}
_SCHEMAS: dict[str, tuple[Schema, Schema]] = {
    "string": (Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA),
    "unix": (Schema.INT64_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA),
    "Date": (Date.SCHEMA, Date.builder().optional().build()),
    "Time": (Time.SCHEMA, Time.builder().optional().build()),
    "Timestamp": (Timestamp.SCHEMA, Timestamp.builder().optional().build()),
}


def _form_from_schema(schema: Schema) -> str:
    name = schema.name
    if name == Timestamp.LOGICAL_NAME:
        return "Timestamp"
    if name == Date.LOGICAL_NAME:
        return "Date"
    if name == Time.LOGICAL_NAME:
        return "Time"
    if schema.type is Type.STRING:
        return "string"
    if schema.type is Type.INT64:
        return "unix"
    raise DataException(f"Schema {schema!r} does not correspond to a known timestamp type format")


def _saturated(v: int) -> int:
    """``v`` clamped to a Java long, as ``TimeUnit``'s conversions do."""
    return max(-(1 << 63), min(v, (1 << 63) - 1))


def _datetime_ms(v: _dt.datetime) -> int:
    if v.tzinfo is None:
        v = v.replace(tzinfo=_dt.UTC)
    return (v - _EPOCH) // _dt.timedelta(milliseconds=1)


class _TimestampConverter(SidedSmt):
    CONFIG_DEF = (
        ConfigDef()
        .define(
            "field",
            CT.STRING,
            "",
            None,
            Importance.HIGH,
            "The field containing the timestamp, or empty if the entire value is a timestamp",
        )
        .define(
            "target.type",
            CT.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            ValidString.in_("string", "unix", "Date", "Time", "Timestamp"),
            Importance.HIGH,
            "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
        )
        .define(
            "format",
            CT.STRING,
            "",
            None,
            Importance.MEDIUM,
            "A SimpleDateFormat-compatible format for the timestamp. Used to generate the "
            "output when type=string or used to parse the input if the input is a string.",
        )
        .define(
            "unix.precision",
            CT.STRING,
            "milliseconds",
            ValidString.in_("nanoseconds", "microseconds", "milliseconds", "seconds"),
            Importance.LOW,
            "The desired Unix precision for the timestamp: seconds, milliseconds, "
            "microseconds, or nanoseconds. Used to generate the output when type=unix or "
            "used to parse the input if the input is a Long.Note: This SMT will cause "
            "precision loss during conversions from, and to, values with sub-millisecond "
            "components.",
        )
        .define(RNWD_CONFIG, CT.BOOLEAN, True, None, Importance.MEDIUM, RNWD_DOC)
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._field: str = parsed["field"]
        self._target: str = parsed["target.type"]
        pattern: str = parsed["format"]
        self._precision: str = parsed["unix.precision"]
        self._rnwd: bool = parsed[RNWD_CONFIG]
        if self._target == "string" and not pattern.strip():
            raise ConfigException(
                "TimestampConverter requires format option to be specified "
                "when using string timestamps"
            )
        self._format: JavaDateFormat | None = None
        if pattern.strip():
            try:
                self._format = JavaDateFormat(pattern)
            except ValueError as e:
                raise ConfigException(
                    "TimestampConverter requires a SimpleDateFormat-compatible pattern for "
                    f"string timestamps: {pattern} ({e})"
                ) from e
        self._to_raw: dict[str, Callable[[Any], int]] = {
            "string": self._string_to_ms,
            "unix": self._unix_to_ms,
            "Date": self._logical_to_ms,
            "Time": self._logical_to_ms,
            "Timestamp": self._logical_to_ms,
        }
        self._from_raw: Callable[[int], Any] = {
            "string": self._ms_to_string,
            "unix": self._ms_to_unix,
            "Date": self._ms_to_date,
            "Time": self._ms_to_time,
            "Timestamp": self._ms_to_timestamp,
        }[self._target]
        self._cache: dict[Schema, Schema] = {}

    # -- raw (epoch ms) conversions ----------------------------------------------------------
    def _string_to_ms(self, v: Any) -> int:
        if not isinstance(v, str):
            raise DataException(
                f"{self._who}: Expected string timestamp to be a String, but found {type_name(v)}"
            )
        fmt = self._format
        if fmt is None:
            raise DataException(
                f"{self._who}: a string timestamp needs the 'format' setting "
                f"to be parsed (value ({v}))"
            )
        try:
            return fmt.parse(v)
        except (ValueError, OverflowError) as e:
            raise DataException(
                f"{self._who}: Could not parse timestamp: value ({v}) does not "
                f"match pattern ({fmt.pattern})"
            ) from e

    def _unix_to_ms(self, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool):
            raise DataException(
                f"{self._who}: Expected Unix timestamp to be a Long, but found {type_name(v)}"
            )
        p = self._precision
        if p == "seconds":
            return _saturated(v * 1000)  # TimeUnit.SECONDS.toMillis saturates
        if p == "microseconds":
            return -(-v // 1000) if v < 0 else v // 1000  # TimeUnit truncates toward zero
        if p == "nanoseconds":
            return -(-v // 1_000_000) if v < 0 else v // 1_000_000
        return v

    def _logical_to_ms(self, v: Any) -> int:
        if isinstance(v, _dt.datetime):
            return _datetime_ms(v)
        if isinstance(v, _dt.date):
            return (v.toordinal() - _EPOCH_ORDINAL) * _DAY_MS
        if isinstance(v, _dt.time):
            return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000
        raise DataException(f"{self._who}: Expected a date/time value, but found {type_name(v)}")

    def _ms_to_string(self, ms: int) -> str:
        assert self._format is not None
        return self._format.format(ms)

    def _ms_to_unix(self, ms: int) -> int:
        p = self._precision
        if p == "seconds":
            return -(-ms // 1000) if ms < 0 else ms // 1000
        if p == "microseconds":
            return _saturated(ms * 1000)  # TimeUnit's toMicros/toNanos saturate
        if p == "nanoseconds":
            return _saturated(ms * 1_000_000)
        return ms

    @staticmethod
    def _ms_to_date(ms: int) -> _dt.date:
        return _dt.date.fromordinal(_EPOCH_ORDINAL + ms // _DAY_MS)

    @staticmethod
    def _ms_to_time(ms: int) -> _dt.time:
        s, milli = divmod(ms % _DAY_MS, 1000)
        m, s = divmod(s, 60)
        h, m = divmod(m, 60)
        return _dt.time(h, m, s, milli * 1000)

    @staticmethod
    def _ms_to_timestamp(ms: int) -> _dt.datetime:
        return _EPOCH + _dt.timedelta(milliseconds=ms)

    def _infer(self, v: Any) -> str:
        if isinstance(v, _dt.datetime):
            return "Timestamp"
        if isinstance(v, _dt.date):
            return "Date"
        if isinstance(v, _dt.time):
            return "Time"
        if isinstance(v, int) and not isinstance(v, bool):
            return "unix"
        if isinstance(v, str):
            return "string"
        raise DataException(
            f"{self._who}: TimestampConverter does not support {type_name(v)} objects as timestamps"
        )

    def _convert(self, v: Any, form: str | None) -> Any:
        if v is None:
            return None
        ms = self._to_raw[form or self._infer(v)](v)
        try:
            return self._from_raw(ms)
        except (OverflowError, ValueError) as e:
            # java.util.Date holds any long; Python's date types end at the years 1 and 9999
            raise DataException(
                f"{self._who}: timestamp {ms} ms is outside the range of Python's datetime "
                "(years 1 to 9999)"
            ) from e

    # -- records -----------------------------------------------------------------------------
    def apply(self, record: ConnectRecord) -> ConnectRecord:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            if value is None or not self._field:
                return self.new_record(record, None, self._convert(value, None))
            m = require_map(value, _PURPOSE, self._who)
            updated = dict(m)
            updated[self._field] = self._convert(updated.get(self._field), None)
            # new HashMap<>(value), then the put
            updated = in_hash_map_order(updated, copy_table(len(m), len(updated)))
            return self.new_record(record, None, updated)
        if not self._field:
            target_schema = _SCHEMAS[self._target][1 if schema.optional else 0]
            return self.new_record(
                record, target_schema, self._convert(value, _form_from_schema(schema))
            )
        struct = require_struct_or_null(value, _PURPOSE, self._who)
        updated_schema = self._schema_for(schema)
        return self.new_record(record, updated_schema, self._convert_struct(struct, updated_schema))

    def _schema_for(self, schema: Schema) -> Schema:
        updated_schema = self._cache.get(schema)
        if updated_schema is None:
            updated_schema = self._updated_schema(schema)
            self._cache[schema] = updated_schema
        return updated_schema

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: its settings, the text format
        and parse of epoch milliseconds, and the updated schema of an input schema."""
        return "timestamp_converter", {
            "is_key": self.IS_KEY,
            "field": self._field,
            "target": self._target,
            "precision": self._precision,
            "replace_null_with_default": self._rnwd,
            "format": self._ms_to_string,
            "format_tokens": None if self._format is None else self._format.tokens,
            "parse": self._string_to_ms,
            "updated_schema": self._schema_for,
            "target_schemas": _SCHEMAS[self._target],
        }

    def _updated_schema(self, schema: Schema) -> Schema:
        # (a struct without the field passes with its fields as they are, as in Kafka)
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for f in schema.fields:
            if f.name == self._field:
                builder.field(f.name, _SCHEMAS[self._target][1 if f.schema.optional else 0])
            else:
                builder.field(f.name, f.schema)
        if schema.optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(self._convert_struct(schema.default_value, builder.build()))
        return builder.build()

    def _convert_struct(self, struct: Struct | None, updated_schema: Schema) -> Struct | None:
        if struct is None:
            return None
        get = struct.get if self._rnwd else struct.get_without_default
        values: dict[str, Any] = {}
        for f in struct.schema.fields:
            v = get(f)
            if f.name == self._field:
                try:
                    v = self._convert(v, _form_from_schema(f.schema))
                except DataException as e:
                    raise DataException(f"{e} (field '{f.name}')") from e
            values[f.name] = v
        out = Struct(updated_schema)
        for name, v in values.items():
            out.put(name, v)
        return out


class TimestampConverterKey(KeySide, _TimestampConverter):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.TimestampConverter$Key"


class TimestampConverterValue(ValueSide, _TimestampConverter):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.TimestampConverter$Value"
