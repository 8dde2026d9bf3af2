"""Kafka Connect's ``Values``: the string form of Connect data and how it is parsed back.

:func:`convert_to_string` and :func:`parse_string` follow
``org.apache.kafka.connect.data.Values`` (3.8+/trunk) so a header written by
``SimpleHeaderConverter`` here is byte-identical to one written by Apache Kafka Connect, and a
header string Java wrote parses to the same schema and value:

* ``null``/``true``/``false`` literals, numbers as the smallest of INT8/INT16/INT32/INT64 that
  holds an integral value (``"1.0"`` is INT8 1), else FLOAT32 if finite, else FLOAT64, else a
  Decimal with the literal's scale;
* ``[...]`` arrays and ``{...}`` maps with quoted strings inside; element/key/value schemas are
  merged to a common numeric type where possible, else the schema has no element schema;
* ``yyyy-MM-dd`` dates, ``HH:mm:ss.SSS'Z'`` times and ``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'``
  timestamps (parsed leniently like ``SimpleDateFormat``);
* anything else is the original string.

Differences kept on purpose: dates and times are rendered and parsed in UTC (Java uses the JVM's
default time zone, which Connect deployments normally set to UTC), and dates before 1582 use
the proleptic Gregorian calendar. Java values map to Python ones as in :mod:`kconnect.api`:
``int`` for INT8..INT64, ``float`` for FLOAT32 (rounded to single precision) and FLOAT64,
``decimal.Decimal``, ``datetime.date``/``time``/``datetime`` (UTC) for Date/Time/Timestamp.

Also here, for plugins that need Java's value semantics: :func:`narrow` (narrowing integer
casts), :func:`java_long` (``Number.longValue()``) and :func:`date_string`
(``Values.dateFormatFor(d).format(d)``). Java number text comes from
:mod:`kconnect.api.data.java_numbers`.

Everything here is pure and thread-safe; any thread may call it, nothing blocks.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
import math
import re
from collections.abc import Mapping
from typing import Any

from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string, to_float32
from kconnect.api.data.logical import Date, Decimal, Time, Timestamp
from kconnect.api.data.schema import Schema, SchemaBuilder, Type
from kconnect.api.data.schema_and_value import SchemaAndValue
from kconnect.api.data.struct import Struct
from kconnect.api.errors import DataException

_NULL_SV = SchemaAndValue(None, None)

__all__ = [
    "convert_to_boolean",
    "convert_to_byte",
    "convert_to_date",
    "convert_to_decimal",
    "convert_to_double",
    "convert_to_float",
    "convert_to_integer",
    "convert_to_list",
    "convert_to_long",
    "convert_to_map",
    "convert_to_short",
    "convert_to_string",
    "convert_to_struct",
    "convert_to_time",
    "convert_to_timestamp",
    "escape",
    "date_string",
    "infer_schema",
    "java_long",
    "narrow",
    "parse_string",
]

MILLIS_PER_DAY = 86_400_000
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_EPOCH_DATE = _dt.date(1970, 1, 1)
_NULL = "null"

# ---------------------------------------------------------------------------------------------
# Java number text (Double/Float.toString live in java_numbers; BigDecimal.toString here)
# ---------------------------------------------------------------------------------------------


def _java_decimal_str(d: _decimal.Decimal) -> str:
    # Python's to-scientific-string and BigDecimal.toString implement the same rules.
    return str(d).replace("e", "E")


# ---------------------------------------------------------------------------------------------
# convert_to_string
# ---------------------------------------------------------------------------------------------


def escape(value: str) -> str:
    """Escape backslashes and double quotes, as ``Values.escape`` does inside quoted strings."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """``Values.convertToString``: the string form of any Connect value (None for None).

    Nested strings are quoted and escaped, bytes are base64, dates/times use the ISO-8601
    patterns chosen by the value's epoch milliseconds (``dateFormatFor``), structs render as
    maps of field name to value. Raises DataException for a value of no Connect type.
    """
    if value is None:
        return None
    parts: list[str] = []
    _append(parts, value, False, schema)
    return "".join(parts)


def _sub_schema(schema: Schema | None, t: Type, key: bool = False) -> Schema | None:
    """The key schema (``key``) or value schema of an ARRAY/MAP ``schema`` of type ``t``."""
    if schema is None or schema.type is not t:
        return None
    try:
        return schema.key_schema if key else schema.value_schema
    except DataException:
        return None


def _append(out: list[str], value: Any, embedded: bool, schema: Schema | None) -> None:
    if value is None:
        out.append(_NULL)
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        if schema is not None and schema.type is Type.FLOAT32:
            out.append(java_float_to_string(value))
        else:
            out.append(java_double_to_string(value))
    elif isinstance(value, _decimal.Decimal):
        out.append(_java_decimal_str(value))
    elif isinstance(value, str):
        if embedded:
            out.append('"' + escape(value) + '"')
        else:
            out.append(value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, (list, tuple)):
        item_schema = _sub_schema(schema, Type.ARRAY)
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _append(out, item, True, item_schema)
        out.append("]")
    elif isinstance(value, Mapping):
        key_schema = _sub_schema(schema, Type.MAP, key=True)
        value_schema = _sub_schema(schema, Type.MAP)
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, k, True, key_schema)
            out.append(":")
            _append(out, v, True, value_schema)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for i, field in enumerate(value.schema.fields):
            if i:
                out.append(",")
            _append(out, field.name, True, None)
            out.append(":")
            _append(out, value.get(field), True, field.schema)
        out.append("}")
    elif isinstance(value, (_dt.date, _dt.time)):
        out.append(_format_date(_epoch_millis(value)))
    else:
        raise DataException(
            f"Failed to serialize unexpected value type {type(value).__module__}."
            f"{type(value).__qualname__}: {value}"
        )


def _epoch_millis(value: _dt.date | _dt.time) -> int:
    """Milliseconds since the epoch of the java.util.Date Connect would hold for ``value``."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.UTC)
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if isinstance(value, _dt.date):
        return (value - _EPOCH_DATE).days * MILLIS_PER_DAY
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def _format_date(millis: int) -> str:
    # Kafka picks the pattern from the instant alone (Values.dateFormatFor): anything before
    # the end of 1970-01-01 -- including every date before the epoch -- is written as a time.
    moment = _EPOCH + _dt.timedelta(milliseconds=millis)
    time_part = (
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}."
        f"{moment.microsecond // 1000:03d}Z"
    )
    date_part = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    if millis < MILLIS_PER_DAY:
        return time_part
    if millis % MILLIS_PER_DAY == 0:
        return date_part
    return f"{date_part}T{time_part}"


# ---------------------------------------------------------------------------------------------
# Conversions between Connect types (Values.convertTo*)
# ---------------------------------------------------------------------------------------------


def narrow(value: int, bits: int) -> int:
    """Java's narrowing primitive conversion of an integer to ``bits`` bits (two's complement
    wrap): ``narrow(300, 8) == 44`` as ``(byte) 300`` is."""
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def _double_to_long(x: float) -> int:
    # Java's (long) of a double saturates and maps NaN to 0.
    if math.isnan(x):
        return 0
    if x >= 9.223372036854775807e18:
        return (1 << 63) - 1
    if x <= -9.223372036854775808e18:
        return -(1 << 63)
    return int(x)


def java_long(value: object) -> int:
    """``Number.longValue()`` (or ``new BigDecimal(text).longValue()`` for a string): truncate
    toward zero, then wrap to 64 bits; doubles saturate and NaN is 0.

    Raises ValueError for a bool, a non-number, or a string that is not a BigDecimal literal.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value} is not a number")
    if isinstance(value, int):
        return narrow(value, 64)
    if isinstance(value, float):
        return _double_to_long(value)
    if isinstance(value, _decimal.Decimal):
        return narrow(int(value), 64) if value.is_finite() else 0
    if isinstance(value, str):
        return narrow(int(_parse_big_decimal(value)), 64)
    raise ValueError(f"{type(value).__name__} is not a number")


def date_string(value: _dt.date | _dt.time) -> str:
    """The text ``Values.dateFormatFor(d).format(d)`` gives for a Date/Time/Timestamp value
    (in UTC): ``HH:mm:ss.SSS'Z'`` for instants before 1970-01-02, ``yyyy-MM-dd`` for other
    midnight-aligned instants, else ``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'``."""
    return _format_date(_epoch_millis(value))


def _parse_big_decimal(text: str) -> _decimal.Decimal:
    if not _BIG_DECIMAL.fullmatch(text):
        raise ValueError(f"Character array is not a valid decimal number: {text}")
    return _decimal.Decimal(text)


def _unable(value: Any, target: object) -> DataException:
    return DataException(f"Unable to convert {value} ({type(value).__name__}) to {target}")


def _as_long(value: Any, from_schema: Schema | None) -> int:
    error: str | None = None
    if isinstance(value, (int, float, _decimal.Decimal, str)) and not isinstance(value, bool):
        try:
            return java_long(value)
        except ValueError as e:
            error = str(e)
    if from_schema is not None:
        name = from_schema.name
        if isinstance(value, (_dt.date, _dt.time)):
            if name == Date.LOGICAL_NAME and isinstance(value, _dt.date):
                return Date.from_logical(from_schema, value)
            if name == Time.LOGICAL_NAME and isinstance(value, _dt.time):
                return Time.from_logical(from_schema, value)
            if name == Timestamp.LOGICAL_NAME and isinstance(value, _dt.datetime):
                return Timestamp.from_logical(from_schema, value)
        raise DataException(
            f"Unable to convert {value} ({type(value).__name__}) to "
            f"{from_schema}" + (f": {error}" if error else "")
        )
    raise DataException(
        f"Unable to convert {value} ({type(value).__name__}) to a number"
        + (f": {error}" if error else "")
    )


def _as_double(value: Any, schema: Schema | None) -> float:
    if isinstance(value, (int, float, _decimal.Decimal)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return math.copysign(math.inf, value)
    if isinstance(value, str):
        try:
            return float(_parse_big_decimal(value))
        except ValueError:
            pass
    return float(_as_long(value, schema))


def convert_to_boolean(schema: Schema | None, value: Any) -> bool | None:
    """``Values.convertToBoolean``: booleans as is, ``"true"``/``"false"``, numbers != 0."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        parsed = parse_string(value)
        if isinstance(parsed.value, bool):
            return parsed.value
    return _as_long(value, schema) != 0


def convert_to_byte(schema: Schema | None, value: Any) -> int | None:
    """``Values.convertToByte`` (INT8, Java narrowing)."""
    return None if value is None else narrow(_as_long(value, schema), 8)


def convert_to_short(schema: Schema | None, value: Any) -> int | None:
    """``Values.convertToShort`` (INT16, Java narrowing)."""
    return None if value is None else narrow(_as_long(value, schema), 16)


def convert_to_integer(schema: Schema | None, value: Any) -> int | None:
    """``Values.convertToInteger`` (INT32, Java narrowing)."""
    return None if value is None else narrow(_as_long(value, schema), 32)


def convert_to_long(schema: Schema | None, value: Any) -> int | None:
    """``Values.convertToLong`` (INT64)."""
    return None if value is None else _as_long(value, schema)


def convert_to_float(schema: Schema | None, value: Any) -> float | None:
    """``Values.convertToFloat`` (FLOAT32: the double rounded to single precision)."""
    return None if value is None else to_float32(_as_double(value, schema))


def convert_to_double(schema: Schema | None, value: Any) -> float | None:
    """``Values.convertToDouble`` (FLOAT64)."""
    if value is None or (isinstance(value, float)):
        return value
    return _as_double(value, schema)


def convert_to_list(schema: Schema | None, value: Any) -> list[Any] | None:
    """``Values.convertToList``: a list as is, or a string parsed as an array."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_string(value).value
    if isinstance(value, list):
        return value
    raise _unable(value, "array")


def convert_to_map(schema: Schema | None, value: Any) -> dict[Any, Any] | None:
    """``Values.convertToMap``: a map as is, or a string parsed as a map."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_string(value).value
    if isinstance(value, dict):
        return value
    raise _unable(value, "map")


def convert_to_struct(schema: Schema | None, value: Any) -> Struct | None:
    """``Values.convertToStruct``: only a Struct converts to a Struct."""
    if value is None:
        return None
    if isinstance(value, Struct):
        return value
    raise _unable(value, "struct")


def _require(value: Any) -> None:
    if value is None:
        raise DataException("Unable to convert a null value to a schema that requires a value")


def _millis_to_datetime(millis: int) -> _dt.datetime:
    return _EPOCH + _dt.timedelta(milliseconds=millis)


def convert_to_date(schema: Schema | None, value: Any) -> _dt.date:
    """``Values.convertToDate``: a date, a timestamp's day, an ISO string, or a day count."""
    _require(value)
    if isinstance(value, str):
        value = parse_string(value).value
    if isinstance(value, (_dt.date, _dt.time)):
        if schema is None or schema.name == Date.LOGICAL_NAME:
            return _as_date(value)
        if schema.name == Timestamp.LOGICAL_NAME:
            # Java truncates the millisecond count towards zero here.
            days = int(_epoch_millis(value) / MILLIS_PER_DAY)
            return Date.to_logical(Date.SCHEMA, days)
    return Date.to_logical(Date.SCHEMA, narrow(_as_long(value, schema), 32))


def convert_to_time(schema: Schema | None, value: Any) -> _dt.time:
    """``Values.convertToTime``: a time, a timestamp's time of day, an ISO string, or millis."""
    _require(value)
    if isinstance(value, str):
        value = parse_string(value).value
    if isinstance(value, (_dt.date, _dt.time)):
        if schema is None or schema.name == Time.LOGICAL_NAME:
            return _as_time(value)
        if schema.name == Timestamp.LOGICAL_NAME:
            return Time.to_logical(Time.SCHEMA, _epoch_millis(value) % MILLIS_PER_DAY)
    return Time.to_logical(Time.SCHEMA, narrow(_as_long(value, schema), 32))


def convert_to_timestamp(schema: Schema | None, value: Any) -> _dt.datetime:
    """``Values.convertToTimestamp``: a date/time/timestamp, an ISO string, or epoch millis."""
    _require(value)
    if isinstance(value, str):
        value = parse_string(value).value
    temporal_names = (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME)
    if isinstance(value, (_dt.date, _dt.time)) and (
        schema is None or schema.name in temporal_names
    ):
        return _as_timestamp(value)
    return Timestamp.to_logical(Timestamp.SCHEMA, _as_long(value, schema))


# Java keeps one ``java.util.Date`` whatever the logical type; Python has three types, so a
# date/time/timestamp converted to another logical type keeps its epoch milliseconds and
# changes type.


def _as_timestamp(value: _dt.date | _dt.time) -> _dt.datetime:
    millis = _epoch_millis(value)
    return value if isinstance(value, _dt.datetime) else _millis_to_datetime(millis)


def _as_date(value: _dt.date | _dt.time) -> _dt.date:
    millis = _epoch_millis(value)
    if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return value
    return _millis_to_datetime(millis).date()


def _as_time(value: _dt.date | _dt.time) -> _dt.time:
    millis = _epoch_millis(value)
    if isinstance(value, _dt.time):
        return value
    return _millis_to_datetime(millis).time()


def convert_to_decimal(schema: Schema | None, value: Any, scale: int) -> _decimal.Decimal:
    """``Values.convertToDecimal``: bytes (unscaled), Decimal, any number (via double), string."""
    _require(value)
    return _to_decimal(Decimal.schema(scale), value)


def _to_decimal(target: Schema, value: Any) -> _decimal.Decimal:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Decimal.to_logical(target, bytes(value))
    if isinstance(value, _decimal.Decimal):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # BigDecimal.valueOf(double) uses Double.toString's digits.
        return _decimal.Decimal(java_double_to_string(float(value)))
    if isinstance(value, str):
        try:
            return _parse_big_decimal(value)
        except ValueError as e:
            raise DataException(str(e)) from None
    raise _unable(value, target)


def _convert_to(to_schema: Schema, from_schema: Schema | None, value: Any) -> Any:
    """``Values.convertTo``: used to align parsed array/map entries with their merged schema."""
    if value is None:
        if to_schema.optional:
            return None
        raise DataException("Unable to convert a null value to a schema that requires a value")
    t = to_schema.type
    name = to_schema.name
    if t is Type.BYTES:
        if name == Decimal.LOGICAL_NAME:
            return _to_decimal(to_schema, value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        if isinstance(value, _decimal.Decimal):
            return Decimal.from_logical(to_schema, value)
        raise _unable(value, to_schema)
    if t is Type.STRING:
        return convert_to_string(from_schema, value)
    if t is Type.BOOLEAN:
        return convert_to_boolean(from_schema, value)
    if t is Type.INT8:
        return convert_to_byte(from_schema, value)
    if t is Type.INT16:
        return convert_to_short(from_schema, value)
    if t is Type.INT32:
        if name == Date.LOGICAL_NAME:
            return convert_to_date(from_schema, value)
        if name == Time.LOGICAL_NAME:
            return convert_to_time(from_schema, value)
        return convert_to_integer(from_schema, value)
    if t is Type.INT64:
        if name == Timestamp.LOGICAL_NAME:
            return convert_to_timestamp(from_schema, value)
        return convert_to_long(from_schema, value)
    if t is Type.FLOAT32:
        return convert_to_float(from_schema, value)
    if t is Type.FLOAT64:
        return convert_to_double(from_schema, value)
    if t is Type.ARRAY:
        return convert_to_list(from_schema, value)
    if t is Type.MAP:
        return convert_to_map(from_schema, value)
    return convert_to_struct(from_schema, value)


# ---------------------------------------------------------------------------------------------
# infer_schema
# ---------------------------------------------------------------------------------------------


def infer_schema(value: Any) -> Schema | None:
    """``Values.inferSchema`` for Python values: None when no schema can be inferred.

    Python has one ``int`` and one ``float``: ints infer INT64 unless they fit INT32 (as a Java
    ``Integer`` would be), floats infer FLOAT64.
    """
    if isinstance(value, str):
        return Schema.STRING_SCHEMA
    if isinstance(value, bool):
        return Schema.BOOLEAN_SCHEMA
    if isinstance(value, int):
        return Schema.INT32_SCHEMA if -(1 << 31) <= value < (1 << 31) else Schema.INT64_SCHEMA
    if isinstance(value, float):
        return Schema.FLOAT64_SCHEMA
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Schema.BYTES_SCHEMA
    if isinstance(value, list):
        if not value:
            return None
        detector = _SchemaDetector()
        if not all(detector.can_detect(v) for v in value):
            return None
        return SchemaBuilder.array(detector.schema()).build()
    if isinstance(value, dict):
        if not value:
            return None
        keys, values = _SchemaDetector(), _SchemaDetector()
        for k, v in value.items():
            if not keys.can_detect(k) or not values.can_detect(v):
                return None
        return SchemaBuilder.map(keys.schema(), values.schema()).build()
    if isinstance(value, Struct):
        return value.schema
    return None


class _SchemaDetector:
    def __init__(self) -> None:
        self.known: Type | None = None
        self.optional = False

    def can_detect(self, value: Any) -> bool:
        if value is None:
            self.optional = True
            return True
        schema = infer_schema(value)
        if schema is None:
            return False
        if self.known is None:
            self.known = schema.type
        elif self.known is not schema.type:
            return False
        return True

    def schema(self) -> Schema:
        assert self.known is not None
        return Schema(self.known, self.optional)


# ---------------------------------------------------------------------------------------------
# parse_string
# ---------------------------------------------------------------------------------------------

# java.math.BigDecimal's accepted syntax (Unicode decimal digits included, as Java's are).
_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_DELIMITERS = frozenset(':,{}[]"')
_LONG_MIN = -(1 << 63)
_LONG_MAX = (1 << 63) - 1
_ISO_DATE_LEN = 10
_ISO_TIME_LEN = 13
_ISO_TIMESTAMP_LEN = 24


def _java_trim(s: str) -> str:
    """``String.trim``: strip code points <= U+0020 (not Unicode whitespace)."""
    start, end = 0, len(s)
    while start < end and s[start] <= " ":
        start += 1
    while end > start and s[end - 1] <= " ":
        end -= 1
    return s[start:end]


def _is_blank(s: str | None) -> bool:
    return s is None or not _java_trim(s)


class _Tokenizer:
    """``Values.Parser``: splits on unescaped delimiters, keeping the delimiters as tokens."""

    __slots__ = ("_end", "_next", "_pos", "_previous", "original")

    def __init__(self, original: str) -> None:
        self.original = original
        self._pos = 0
        self._end = len(original)
        self._next: str | None = None
        self._previous: str | None = None

    def position(self) -> int:
        return self._pos

    def mark(self) -> int:
        return self._pos - (len(self._next) if self._next is not None else 0)

    def rewind_to(self, position: int) -> None:
        self._pos = position
        self._next = None
        self._previous = None

    def has_next(self) -> bool:
        return self._next is not None or self._pos < self._end

    def next(self) -> str:
        if self._next is not None:
            self._previous = self._next
            self._next = None
        else:
            self._previous = self._consume()
        return self._previous

    def next_n(self, n: int) -> str | None:
        current = start = self.mark()
        for _ in range(n):
            if not self.has_next():
                self.rewind_to(start)
                return None
            self.next()
        return self.original[current : self._pos]

    def previous(self) -> str | None:
        return self._previous

    def _consume(self) -> str:
        text = self.original
        start = i = self._pos
        end = self._end
        escaped = False
        while i < end:
            c = text[i]
            if c == "\\":
                escaped = not escaped
            elif c in _DELIMITERS:
                if not escaped:
                    if start < i:
                        self._pos = i
                        return text[start:i]
                    self._pos = i + 1
                    return text[start : i + 1]
                escaped = False
            else:
                escaped = False
            i += 1
        self._pos = i
        return text[start:i]

    def can_consume(self, expected: str, ignore_whitespace: bool = True) -> bool:
        if self._is_next(expected, ignore_whitespace):
            self._next = None
            return True
        return False

    def _is_next(self, expected: str, ignore_whitespace: bool) -> bool:
        if self._next is None:
            if not self.has_next():
                return False
            self._next = self._consume()
        if ignore_whitespace:
            while _is_blank(self._next) and self._pos < self._end:
                self._next = self._consume()
            return _java_trim(self._next) == expected
        return self._next == expected


def parse_string(value: str | None) -> SchemaAndValue:
    """``Values.parseString``: infer a schema and value from a string (see the module doc).

    Never raises for any input: what cannot be parsed as a literal, number, temporal value,
    array or map is returned as a STRING. ``None`` and the literal ``null`` give
    ``SchemaAndValue(None, None)``; the empty string is the empty STRING.
    """
    if value is None:
        return _NULL_SV
    if value == "":
        return SchemaAndValue(Schema.STRING_SCHEMA, value)
    result = _ValueParser(_Tokenizer(value)).parse(False)
    return _NULL_SV if result is None else result


_TRUE = SchemaAndValue(Schema.BOOLEAN_SCHEMA, True)
_FALSE = SchemaAndValue(Schema.BOOLEAN_SCHEMA, False)


class _ValueParser:
    __slots__ = ("p",)

    def __init__(self, tokenizer: _Tokenizer) -> None:
        self.p = tokenizer

    def _single_token_literal(self, embedded: bool, literal: str) -> bool:
        p = self.p
        start = p.mark()
        # "true}" at top level is the string "true}", not true followed by junk.
        if p.can_consume(literal) and (embedded or not p.has_next()):
            return True
        p.rewind_to(start)
        return False

    def parse(self, embedded: bool) -> SchemaAndValue | None:
        p = self.p
        if not p.has_next():
            return None
        if embedded and p.can_consume('"'):
            return self._quoted_string()
        if self._single_token_literal(embedded, _NULL):
            return None
        if self._single_token_literal(embedded, "true"):
            return _TRUE
        if self._single_token_literal(embedded, "false"):
            return _FALSE
        start = p.mark()
        try:
            if p.can_consume("["):
                return self._array()
            if p.can_consume("{"):
                return self._map()
        except DataException:
            p.rewind_to(start)
        token = p.next()
        if _is_blank(token):
            return SchemaAndValue(Schema.STRING_SCHEMA, token)
        return self._next_token(embedded, _java_trim(token))

    def _next_token(self, embedded: bool, token: str) -> SchemaAndValue:
        first = token[0]
        first_is_digit = first.isdecimal()
        if first_is_digit:
            temporal = self._multi_token_temporal(token)
            if temporal is not None:
                return temporal
        if first_is_digit or first in "+-":
            number = _parse_number(token)
            if number is not None:
                return number
        if embedded:
            raise DataException("Failed to parse embedded value")
        return SchemaAndValue(Schema.STRING_SCHEMA, self.p.original)

    def _quoted_string(self) -> SchemaAndValue:
        p = self.p
        parts: list[str] = []
        while p.has_next():
            if p.can_consume('"'):
                break
            parts.append(p.next())
        content = "".join(parts)
        temporal = _parse_temporal(content)
        if temporal is not None:
            return temporal
        return SchemaAndValue(Schema.STRING_SCHEMA, content)

    def _array(self) -> SchemaAndValue:
        p = self.p
        result: list[Any] = []
        merger = _SchemaMerger()
        while p.has_next():
            if p.can_consume("]"):
                if merger.common is not None:
                    item_schema = merger.common
                    result = [_convert_to(item_schema, None, v) for v in result]
                    return SchemaAndValue(SchemaBuilder.array(item_schema).build(), result)
                return SchemaAndValue(Schema(Type.ARRAY), result)  # every element is null
            if p.can_consume(","):
                raise DataException(f"Unable to parse an empty array element: {p.original}")
            element = self.parse(True)
            merger.merge(element)
            result.append(element.value if element is not None else None)
            position = p.mark()
            if p.can_consume("]"):
                p.rewind_to(position)
            elif not p.can_consume(","):
                raise DataException("Array elements missing ',' delimiter")
        if p.previous() == ",":
            raise DataException(f"Array is missing element after ',': {p.original}")
        raise DataException(f"Array is missing terminating ']': {p.original}")

    def _map(self) -> SchemaAndValue:
        p = self.p
        result: dict[Any, Any] = {}
        keys = _SchemaMerger()
        values = _SchemaMerger()
        while p.has_next():
            if p.can_consume("}"):
                if keys.common is not None and values.common is not None:
                    schema = SchemaBuilder.map(keys.common, values.common).build()
                    result = {
                        _convert_to(keys.common, None, k): _convert_to(values.common, None, v)
                        for k, v in result.items()
                    }
                elif keys.common is not None:
                    schema = Schema(Type.MAP, key_schema=keys.common)
                    result = {_convert_to(keys.common, None, k): v for k, v in result.items()}
                else:
                    schema = Schema(Type.MAP)
                return SchemaAndValue(schema, result)
            if p.can_consume(","):
                raise DataException(
                    f"Unable to parse a map entry with no key or value: {p.original}"
                )
            key = self.parse(True)
            if key is None or key.value is None:
                raise DataException(f"Map entry may not have a null key: {p.original}")
            if not p.can_consume(":"):
                raise DataException(f"Map entry is missing ':' at {p.position()} in {p.original}")
            entry = self.parse(True)
            try:
                result[key.value] = entry.value if entry is not None else None
            except TypeError:
                # Java maps accept list/map keys; Python dicts cannot hash them. Treat the
                # whole text as a string rather than inventing a key representation.
                raise DataException(f"Map entry has an array or map key: {p.original}") from None
            p.can_consume(",")
            keys.merge(key)
            values.merge(entry)
        if p.previous() == ",":
            raise DataException(f"Map is missing element after ',': {p.original}")
        raise DataException(f"Map is missing terminating '}}': {p.original}")

    def _multi_token_temporal(self, token: str) -> SchemaAndValue | None:
        # Unescaped colons split times into five tokens ("12", ":", "34", ":", "56.789Z").
        p = self.p
        position = p.mark()
        remainder = p.next_n(4)
        if remainder is not None:
            temporal = _parse_temporal(token + remainder)
            if temporal is not None:
                return temporal
        p.rewind_to(position)
        return _parse_temporal(token)


def _parse_number(token: str) -> SchemaAndValue | None:
    if not _BIG_DECIMAL.fullmatch(token):
        return None
    d = _decimal.Decimal(token)
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    scale = -exponent
    if d == d.to_integral_value(rounding=_decimal.ROUND_FLOOR):
        integral = int(d)
        if _LONG_MIN <= integral <= _LONG_MAX:
            if -128 <= integral < 128:
                return SchemaAndValue(Schema.INT8_SCHEMA, integral)
            if -32768 <= integral < 32768:
                return SchemaAndValue(Schema.INT16_SCHEMA, integral)
            if -(1 << 31) <= integral < (1 << 31):
                return SchemaAndValue(Schema.INT32_SCHEMA, integral)
            return SchemaAndValue(Schema.INT64_SCHEMA, integral)
    if scale != 0:
        try:
            as_double = float(d)
        except OverflowError:  # pragma: no cover - Decimal->float saturates, kept for safety
            as_double = math.copysign(math.inf, d)
        as_float = to_float32(as_double)
        if not math.isinf(as_float):
            return SchemaAndValue(Schema.FLOAT32_SCHEMA, as_float)
        if not math.isinf(as_double):
            return SchemaAndValue(Schema.FLOAT64_SCHEMA, as_double)
    return SchemaAndValue(Decimal.schema(scale), d)


def _parse_temporal(token: str | None) -> SchemaAndValue | None:
    if token is None:
        return None
    token = token.replace("\\:", ":")
    n = len(token)
    if n == _ISO_TIME_LEN:
        millis = _lenient_parse(token, _TIME_PATTERN)
        if millis is None or not 0 <= millis < MILLIS_PER_DAY:
            return None
        return SchemaAndValue(Time.SCHEMA, Time.to_logical(Time.SCHEMA, millis))
    if n == _ISO_TIMESTAMP_LEN:
        millis = _lenient_parse(token, _TIMESTAMP_PATTERN)
        if millis is None:
            return None
        return SchemaAndValue(Timestamp.SCHEMA, _millis_to_datetime(millis))
    if n == _ISO_DATE_LEN:
        millis = _lenient_parse(token, _DATE_PATTERN)
        if millis is None:
            return None
        return SchemaAndValue(Date.SCHEMA, _millis_to_datetime(millis).date())
    return None


# SimpleDateFormat patterns as (field, literal) steps: a field takes every following digit
# (the fields are never adjacent), a literal must match exactly; text after the pattern is
# ignored and out-of-range fields roll over (lenient Calendar), as in Java.
_DATE_PATTERN = ("y", "-", "M", "-", "d")
_TIME_PATTERN = ("H", ":", "m", ":", "s", ".", "S", "Z")
_TIMESTAMP_PATTERN = (*_DATE_PATTERN, "T", *_TIME_PATTERN)
_FIELDS = frozenset("yMdHmsS")


def _lenient_parse(text: str, pattern: tuple[str, ...]) -> int | None:
    """Epoch millis (UTC) of ``text`` parsed with ``pattern``, or None if it does not match."""
    values = {"y": 1970, "M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "S": 0}
    i, n = 0, len(text)
    for step in pattern:
        if step in _FIELDS:
            j = i
            while j < n and text[j].isdecimal():
                j += 1
            if j == i:
                return None
            values[step] = int(text[i:j])
            i = j
        else:
            if not text.startswith(step, i):
                return None
            i += len(step)
    year, month = values["y"], values["M"]
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    try:
        first = _dt.date(year, month, 1)
    except ValueError:
        return None
    days = (first - _EPOCH_DATE).days + values["d"] - 1
    return (
        days * MILLIS_PER_DAY
        + ((values["H"] * 60 + values["m"]) * 60 + values["s"]) * 1000
        + values["S"]
    )


class _SchemaMerger:
    """Finds the common schema of parsed array elements or map keys/values (``SchemaMerger``)."""

    __slots__ = ("common", "compatible")

    def __init__(self) -> None:
        self.common: Schema | None = None
        self.compatible = True

    def merge(self, latest: SchemaAndValue | None) -> None:
        if latest is None or latest.schema is None or not self.compatible:
            return
        if self.common is None:
            self.common = latest.schema
        else:
            self.common = _merge_schemas(self.common, latest.schema)
            self.compatible = self.common is not None


_NUMERIC_RANK = {
    Type.INT8: 0,
    Type.INT16: 1,
    Type.INT32: 2,
    Type.INT64: 3,
    Type.FLOAT32: 4,
    Type.FLOAT64: 5,
}


def _merge_schemas(previous: Schema, new: Schema) -> Schema | None:
    if previous.type is not new.type:
        # Numbers widen to the larger type (Values.commonSchemaFor*); anything else has none.
        p = _NUMERIC_RANK.get(previous.type)
        q = _NUMERIC_RANK.get(new.type)
        if p is None or q is None:
            return None
        return previous if p > q else new
    if previous.optional == new.optional:
        return previous if previous.optional else new
    if previous != new:
        return None
    return previous
