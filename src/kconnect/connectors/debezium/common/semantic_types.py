"""Debezium's semantic types (``io.debezium.time.*``, ``io.debezium.data.*``) and their values.

Every schema here is version 1 and named as Debezium names it; the builder functions return a
fresh :class:`~kconnect.api.SchemaBuilder` each call, so the caller may add ``optional()`` or a
default:

==================================  ========  ===============================================
name                                type      value
==================================  ========  ===============================================
``io.debezium.time.Date``           INT32     days since 1970-01-01
``io.debezium.time.Time``           INT32     milliseconds past midnight
``io.debezium.time.MicroTime``      INT64     microseconds past midnight
``io.debezium.time.NanoTime``       INT64     nanoseconds past midnight
``io.debezium.time.Timestamp``      INT64     epoch milliseconds (a local date-time as UTC)
``io.debezium.time.MicroTimestamp`` INT64     epoch microseconds
``io.debezium.time.NanoTimestamp``  INT64     epoch nanoseconds
``io.debezium.time.ZonedTimestamp`` STRING    :func:`format_zoned_timestamp`
``io.debezium.time.ZonedTime``      STRING    :func:`format_zoned_time`
``io.debezium.time.MicroDuration``  INT64     :func:`micro_duration`
``io.debezium.time.Interval``       STRING    :func:`interval_string` (``P1Y2M3DT4H5M6.78S``)
``io.debezium.data.Json/Uuid/Xml``  STRING    the text
``io.debezium.data.Enum``           STRING    a label; parameter ``allowed`` (labels, ``,``)
``io.debezium.data.Bits``           BYTES     parameter ``length`` (bits)
``io.debezium.data.VariableScale…`` STRUCT    ``scale`` INT32, ``value`` BYTES (unscaled)
==================================  ========  ===============================================

Dates are handled as plain numbers in the proleptic Gregorian calendar with astronomical years
(year 0 = 1 BC), as ``java.time`` does, because PostgreSQL's range (4713 BC to 294276 AD)
does not fit Python's ``datetime``: :func:`epoch_day` and :func:`civil_date` convert.

Pure functions, safe from any thread.
"""

from __future__ import annotations

import decimal as _decimal
import struct as _struct
from collections.abc import Sequence

from kconnect.api import Schema, SchemaBuilder, Struct
from kconnect.api.data.java_numbers import java_double_to_string

__all__ = [
    "BITS",
    "DATE",
    "DAYS_PER_MONTH_AVG",
    "ENUM",
    "INTERVAL",
    "ISO_DATE",
    "ISO_TIME",
    "ISO_TIMESTAMP",
    "JSON",
    "MICRO_DURATION",
    "MICRO_TIME",
    "MICRO_TIMESTAMP",
    "NANO_TIME",
    "NANO_TIMESTAMP",
    "TIME",
    "TIMESTAMP",
    "UUID",
    "VARIABLE_SCALE_DECIMAL",
    "XML",
    "ZONED_TIME",
    "ZONED_TIMESTAMP",
    "bits_builder",
    "bits_value",
    "ltree_builder",
    "point_builder",
    "point_wkb",
    "tsvector_builder",
    "civil_date",
    "date_builder",
    "enum_builder",
    "epoch_day",
    "format_iso_year",
    "format_zoned_time",
    "format_zoned_timestamp",
    "interval_builder",
    "interval_string",
    "java_long",
    "json_builder",
    "micro_duration",
    "micro_duration_builder",
    "micro_time_builder",
    "micro_timestamp_builder",
    "nano_time_builder",
    "nano_timestamp_builder",
    "time_builder",
    "timestamp_builder",
    "unscaled_bytes",
    "uuid_builder",
    "variable_scale_decimal",
    "variable_scale_decimal_builder",
    "variable_scale_decimal_schema",
    "variable_scale_decimal_to_decimal",
    "xml_builder",
    "zoned_time_builder",
    "zoned_timestamp_builder",
]

DATE = "io.debezium.time.Date"
TIME = "io.debezium.time.Time"
MICRO_TIME = "io.debezium.time.MicroTime"
NANO_TIME = "io.debezium.time.NanoTime"
TIMESTAMP = "io.debezium.time.Timestamp"
MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp"
NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp"
ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp"
ISO_DATE = "io.debezium.time.IsoDate"
ISO_TIME = "io.debezium.time.IsoTime"
ISO_TIMESTAMP = "io.debezium.time.IsoTimestamp"
ZONED_TIME = "io.debezium.time.ZonedTime"
MICRO_DURATION = "io.debezium.time.MicroDuration"
INTERVAL = "io.debezium.time.Interval"
JSON = "io.debezium.data.Json"
UUID = "io.debezium.data.Uuid"
XML = "io.debezium.data.Xml"
ENUM = "io.debezium.data.Enum"
BITS = "io.debezium.data.Bits"
LTREE = "io.debezium.data.Ltree"
TSVECTOR = "io.debezium.data.Tsvector"
POINT = "io.debezium.data.geometry.Point"
VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal"

#: ``MicroDuration.DAYS_PER_MONTH_AVG``: 365.25 / 12, the month length intervals are counted in.
DAYS_PER_MONTH_AVG = 365.25 / 12.0

_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1
_NANOS_PER_DAY = 86_400 * 10**9


# -- schema builders ---------------------------------------------------------------------------


def _named(builder: SchemaBuilder, name: str) -> SchemaBuilder:
    return builder.name(name).version(1)


def date_builder() -> SchemaBuilder:
    """``io.debezium.time.Date``: INT32 days since the epoch."""
    return _named(SchemaBuilder.int32(), DATE)


def time_builder() -> SchemaBuilder:
    """``io.debezium.time.Time``: INT32 milliseconds past midnight."""
    return _named(SchemaBuilder.int32(), TIME)


def micro_time_builder() -> SchemaBuilder:
    """``io.debezium.time.MicroTime``: INT64 microseconds past midnight."""
    return _named(SchemaBuilder.int64(), MICRO_TIME)


def nano_time_builder() -> SchemaBuilder:
    """``io.debezium.time.NanoTime``: INT64 nanoseconds past midnight."""
    return _named(SchemaBuilder.int64(), NANO_TIME)


def timestamp_builder() -> SchemaBuilder:
    """``io.debezium.time.Timestamp``: INT64 epoch milliseconds."""
    return _named(SchemaBuilder.int64(), TIMESTAMP)


def micro_timestamp_builder() -> SchemaBuilder:
    """``io.debezium.time.MicroTimestamp``: INT64 epoch microseconds."""
    return _named(SchemaBuilder.int64(), MICRO_TIMESTAMP)


def nano_timestamp_builder() -> SchemaBuilder:
    """``io.debezium.time.NanoTimestamp``: INT64 epoch nanoseconds."""
    return _named(SchemaBuilder.int64(), NANO_TIMESTAMP)


def iso_date_builder() -> SchemaBuilder:
    """``io.debezium.time.IsoDate``: STRING, ``ISO_OFFSET_DATE`` in UTC (``2024-02-29Z``)."""
    return SchemaBuilder.string().name(ISO_DATE).version(1)


def iso_time_builder() -> SchemaBuilder:
    """``io.debezium.time.IsoTime``: STRING, ``ISO_OFFSET_TIME`` in UTC (``13:14:15.5Z``)."""
    return SchemaBuilder.string().name(ISO_TIME).version(1)


def iso_timestamp_builder() -> SchemaBuilder:
    """``io.debezium.time.IsoTimestamp``: STRING, ``ISO_OFFSET_DATE_TIME`` in UTC."""
    return SchemaBuilder.string().name(ISO_TIMESTAMP).version(1)


def format_iso_date(days: int) -> str:
    """``IsoDate.toIsoString``: ``ISO_OFFSET_DATE`` of a day (days since 1970) at UTC."""
    year, month, day = civil_date(days)
    return f"{format_iso_year(year)}-{month:02d}-{day:02d}Z"


def zoned_timestamp_builder() -> SchemaBuilder:
    """``io.debezium.time.ZonedTimestamp``: STRING, see :func:`format_zoned_timestamp`."""
    return _named(SchemaBuilder.string(), ZONED_TIMESTAMP)


def zoned_time_builder() -> SchemaBuilder:
    """``io.debezium.time.ZonedTime``: STRING, see :func:`format_zoned_time`."""
    return _named(SchemaBuilder.string(), ZONED_TIME)


def micro_duration_builder() -> SchemaBuilder:
    """``io.debezium.time.MicroDuration``: INT64, see :func:`micro_duration`."""
    return _named(SchemaBuilder.int64(), MICRO_DURATION)


def interval_builder() -> SchemaBuilder:
    """``io.debezium.time.Interval``: STRING, see :func:`interval_string`."""
    return _named(SchemaBuilder.string(), INTERVAL)


def json_builder() -> SchemaBuilder:
    """``io.debezium.data.Json``: STRING holding JSON text."""
    return _named(SchemaBuilder.string(), JSON)


def uuid_builder() -> SchemaBuilder:
    """``io.debezium.data.Uuid``: STRING holding a canonical UUID."""
    return _named(SchemaBuilder.string(), UUID)


def xml_builder() -> SchemaBuilder:
    """``io.debezium.data.Xml``: STRING holding XML text."""
    return _named(SchemaBuilder.string(), XML)


def enum_builder(allowed: str | Sequence[str]) -> SchemaBuilder:
    """``io.debezium.data.Enum`` with parameter ``allowed``: the labels joined by ``,``."""
    text = allowed if isinstance(allowed, str) else ",".join(allowed)
    return _named(SchemaBuilder.string(), ENUM).parameter("allowed", text)


def bits_builder(length: int) -> SchemaBuilder:
    """``io.debezium.data.Bits`` with parameter ``length``: BYTES of a little-endian bit set."""
    return _named(SchemaBuilder.bytes(), BITS).parameter("length", str(length))


def ltree_builder() -> SchemaBuilder:
    """``io.debezium.data.Ltree``: STRING, PostgreSQL's label path text."""
    return _named(SchemaBuilder.string(), LTREE)


def tsvector_builder() -> SchemaBuilder:
    """``io.debezium.data.Tsvector``: STRING, PostgreSQL's tsvector text."""
    return _named(SchemaBuilder.string(), TSVECTOR)


def point_builder() -> SchemaBuilder:
    """``io.debezium.data.geometry.Point``: STRUCT ``x``, ``y`` FLOAT64, ``wkb`` BYTES (the
    point as little-endian WKB), ``srid`` INT32 (null for PostgreSQL's own points)."""
    return (
        _named(SchemaBuilder.struct(), POINT)
        .doc("Geometry (POINT)")
        .field("x", Schema.FLOAT64_SCHEMA)
        .field("y", Schema.FLOAT64_SCHEMA)
        .field("wkb", Schema.OPTIONAL_BYTES_SCHEMA)
        .field("srid", Schema.OPTIONAL_INT32_SCHEMA)
    )


def point_wkb(x: float, y: float) -> bytes:
    """A point as little-endian WKB (byte order 1, geometry type 1, x, y)."""
    return _struct.pack("<BIdd", 1, 1, x, y)


def bits_value(text: str) -> bytes:
    """A bit string (``10100101``, first character the highest bit) as ``java.util.BitSet``'s
    ``toByteArray()``: little-endian, no trailing zero bytes (all zeros: no bytes)."""
    n = int(text, 2) if text else 0
    return n.to_bytes((n.bit_length() + 7) // 8, "little")


def variable_scale_decimal_builder() -> SchemaBuilder:
    """``io.debezium.data.VariableScaleDecimal``: STRUCT ``scale`` INT32, ``value`` BYTES."""
    return (
        _named(SchemaBuilder.struct(), VARIABLE_SCALE_DECIMAL)
        .doc("Variable scaled decimal")
        .field("scale", Schema.INT32_SCHEMA)
        .field("value", Schema.BYTES_SCHEMA)
    )


def variable_scale_decimal_schema(optional: bool = False) -> Schema:
    """The VariableScaleDecimal schema, required or optional."""
    builder = variable_scale_decimal_builder()
    if optional:
        builder.optional()
    return builder.build()


# -- numbers -----------------------------------------------------------------------------------


def java_long(x: float) -> int:
    """Java's ``(long)`` cast of a double: truncation toward zero, saturating, NaN → 0."""
    if x != x:
        return 0
    if x >= 9.223372036854775807e18:
        return _LONG_MAX
    if x <= -9.223372036854775808e18:
        return _LONG_MIN
    return int(x)


def _java_int(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - 2**32 if n >= 2**31 else n


def unscaled_bytes(unscaled: int) -> bytes:
    """Java's ``BigInteger.toByteArray``: the fewest two's-complement big-endian bytes holding
    the value and its sign bit (``0`` → ``b"\\x00"``, ``128`` → ``b"\\x00\\x80"``)."""
    bits = (unscaled if unscaled >= 0 else ~unscaled).bit_length()
    return unscaled.to_bytes(bits // 8 + 1, "big", signed=True)


def _unscaled_and_scale(value: _decimal.Decimal) -> tuple[int, int]:
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"not a finite decimal: {value}")
    unscaled = int("".join(map(str, digits)) or "0")
    return (-unscaled if sign else unscaled), -exponent


def variable_scale_decimal(value: _decimal.Decimal, schema: Schema | None = None) -> Struct:
    """The VariableScaleDecimal struct of ``value`` as Debezium's PostgreSQL converter builds it:
    trailing zeros stripped (``BigDecimal.stripTrailingZeros``: ``10.1100`` → scale 2, ``0.00``
    → 0 scale 0), a negative scale (``1E+3``) brought back to 0 (unscaled 1000), the unscaled
    value as :func:`unscaled_bytes`. ``schema`` is the field's schema (optional or not); by
    default the required one. Raises ValueError for NaN and infinities."""
    unscaled, scale = _unscaled_and_scale(value)
    if unscaled == 0:
        scale = 0
    else:
        while unscaled % 10 == 0:
            unscaled //= 10
            scale -= 1
    if scale < 0:
        unscaled *= 10**-scale
        scale = 0
    struct = Struct(schema if schema is not None else _VSD_SCHEMA)
    return struct.put("scale", scale).put("value", unscaled_bytes(unscaled))


def variable_scale_decimal_to_decimal(struct: Struct) -> _decimal.Decimal:
    """The Decimal a VariableScaleDecimal struct holds (``VariableScaleDecimal.toLogical``)."""
    unscaled = int.from_bytes(struct.get("value"), "big", signed=True)
    return _decimal.Decimal(unscaled).scaleb(-int(struct.get("scale")), _EXACT)


_EXACT = _decimal.Context(prec=_decimal.MAX_PREC)
_VSD_SCHEMA = variable_scale_decimal_schema()


# -- durations ---------------------------------------------------------------------------------


def micro_duration(
    years: int,
    months: int,
    days: int,
    hours: int,
    minutes: int,
    seconds: float | _decimal.Decimal,
    micros: int = 0,
    days_per_month_avg: float = DAYS_PER_MONTH_AVG,
) -> int:
    """``MicroDuration.durationMicros``: the duration in microseconds, computed in doubles in
    Debezium's order (months of 30.4375 days, then days, hours, minutes, seconds) and truncated
    toward zero as Java's ``(long)`` does. ``seconds`` is a double in Debezium (pgjdbc's
    ``PGInterval.getSeconds``); a Decimal is converted to the nearest double first."""
    number_of_days = _java_int(years * 12 + months) * days_per_month_avg + days
    number_of_seconds = ((number_of_days * 24 + hours) * 60 + minutes) * 60 + float(seconds)
    return java_long(number_of_seconds * 1e6 + micros)


def interval_string(
    years: int, months: int, days: int, hours: int, minutes: int, seconds: float | _decimal.Decimal
) -> str:
    """``Interval.toIsoString``: ``P<y>Y<m>M<d>DT<h>H<min>M<s>S`` where the seconds are a plain
    decimal with trailing zeros stripped (cut, not rounded, to 9 places). A float is taken as
    Java's ``BigDecimal.valueOf(double)`` takes it, from ``Double.toString``."""
    if isinstance(seconds, _decimal.Decimal):
        sec = seconds
    else:
        sec = _decimal.Decimal(java_double_to_string(float(seconds)))
    unscaled, scale = _unscaled_and_scale(sec)
    if scale > 9:
        # BigDecimal.setScale(9, RoundingMode.DOWN): toward zero.
        q, _ = divmod(abs(unscaled), 10 ** (scale - 9))
        unscaled, scale = (-q if unscaled < 0 else q), 9
    if unscaled == 0:
        text = "0"
    else:
        while scale > 0 and unscaled % 10 == 0:
            unscaled //= 10
            scale -= 1
        text = _plain(unscaled, scale)
    return f"P{years}Y{months}M{days}DT{hours}H{minutes}M{text}S"


def _plain(unscaled: int, scale: int) -> str:
    """``BigDecimal.toPlainString`` of ``unscaled * 10**-scale``."""
    digits = str(abs(unscaled))
    sign = "-" if unscaled < 0 else ""
    if scale <= 0:
        return sign + digits + "0" * -scale
    digits = digits.rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


# -- calendar ----------------------------------------------------------------------------------


def epoch_day(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (astronomical year: 0 = 1 BC)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def civil_date(days: int) -> tuple[int, int, int]:
    """The (year, month, day) of a day count from 1970-01-01 (inverse of :func:`epoch_day`)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


def format_iso_year(year: int) -> str:
    """The year as ``ISO_LOCAL_DATE`` prints it: 4 digits, ``+`` past 9999, ``-`` before 0."""
    if year > 9999:
        return f"+{year}"
    if year < 0:
        return f"-{-year:04d}"
    return f"{year:04d}"


def _time_of_day(nano_of_day: int, fraction: str) -> str:
    secs = nano_of_day // 10**9
    return f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}{fraction}"


def _trimmed_fraction(nano: int) -> str:
    return "" if nano == 0 else "." + f"{nano:09d}".rstrip("0")


def format_zoned_timestamp(
    epoch_second: int, nano: int = 0, fractional_width: int | None = 6
) -> str:
    """``ZonedTimestamp.toIsoString`` of an instant, in UTC: ``yyyy-MM-ddTHH:mm:ss`` plus
    exactly ``fractional_width`` fraction digits (cut, not rounded) and ``Z``, e.g.
    ``2020-04-01T11:51:02.000000Z``. A width of None, 0 or above 9 (Debezium passes the column
    scale) gives ``ISO_OFFSET_DATE_TIME`` instead: the fraction only when non-zero, its trailing
    zeros trimmed. Years past 9999 carry a ``+`` (``+21016-11-04T06:51:30.123456Z``), years
    before year 0 a ``-``."""
    days, sec_of_day = divmod(epoch_second, 86_400)
    year, month, day = civil_date(days)
    if fractional_width is None or fractional_width <= 0 or fractional_width > 9:
        fraction = _trimmed_fraction(nano)
    else:
        fraction = "." + f"{nano:09d}"[:fractional_width]
    return (
        f"{format_iso_year(year)}-{month:02d}-{day:02d}T"
        f"{_time_of_day(sec_of_day * 10**9, fraction)}Z"
    )


def format_zoned_time(nano_of_day: int) -> str:
    """``ZonedTime.toIsoString`` (``ISO_OFFSET_TIME``) of a UTC time of day:
    ``HH:mm:ss``, the fraction only when non-zero with trailing zeros trimmed, then ``Z``
    (``11:51:02Z``, ``11:51:30.123Z``). ``nano_of_day`` is taken modulo one day."""
    nano_of_day %= _NANOS_PER_DAY
    return _time_of_day(nano_of_day, _trimmed_fraction(nano_of_day % 10**9)) + "Z"
