"""The parts of Kafka's ``org.apache.kafka.connect.data.Values`` the SMTs need.

* :func:`parse_string` infers a schema for a literal (InsertHeader's ``value.literal``):
  ``null``, booleans, numbers (the narrowest of INT8..INT64, FLOAT32 for decimals, Decimal
  beyond INT64); anything else is a STRING. Kafka also parses ``[..]`` arrays, ``{..}`` maps
  and ISO-8601 temporals here; those stay STRING in kconnect.
* :func:`java_long`/:func:`narrow` give Java's truncating numeric conversions.
* :func:`date_string` renders Date/Time/Timestamp values as ``Values.dateFormatFor`` does.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math

from kconnect.api import DataException, Decimal, Schema, SchemaAndValue

__all__ = ["date_string", "java_long", "narrow", "parse_string", "to_float32"]

_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def narrow(value: int, bits: int) -> int:
    """Java's narrowing primitive conversion of an integer to ``bits`` (two's complement wrap)."""
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def java_long(value: object) -> int:
    """``Number.longValue()`` / ``new BigDecimal(s).longValue()``: truncate, then wrap to 64 bits.

    Raises ValueError for strings that are not numbers.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value} is not a number")
    if isinstance(value, int):
        return narrow(value, 64)
    if isinstance(value, float):
        # Java's (long) of a double saturates and maps NaN to 0.
        if math.isnan(value):
            return 0
        if value >= 2.0**63:
            return (1 << 63) - 1
        if value <= -(2.0**63):
            return -(1 << 63)
        return int(value)
    if isinstance(value, _decimal.Decimal):
        return narrow(int(value), 64)
    if isinstance(value, str):
        try:
            return narrow(int(_decimal.Decimal(value)), 64)
        except _decimal.InvalidOperation as e:
            raise ValueError(f'For input string: "{value}"') from e
    raise ValueError(f"{type(value).__name__} is not a number")


def to_float32(value: float) -> float:
    """Round a Python float to the nearest IEEE binary32 value (Java ``float``)."""
    import struct

    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def parse_string(value: str | None) -> SchemaAndValue:
    """Infer a schema and value for a config literal (see module doc)."""
    if value is None:
        return SchemaAndValue(None, None)
    if value == "":
        return SchemaAndValue(Schema.STRING_SCHEMA, value)
    token = value.strip()
    lower = token.lower()
    if lower == "null":
        return SchemaAndValue(None, None)
    if lower in ("true", "false"):
        return SchemaAndValue(Schema.BOOLEAN_SCHEMA, lower == "true")
    if token and (token[0].isdigit() or token[0] in "+-."):
        try:
            dec = _decimal.Decimal(token)
        except _decimal.InvalidOperation:
            dec = None
        if dec is not None and dec.is_finite():
            if dec == dec.to_integral_value():
                integral = int(dec)
                for schema, bits in (
                    (Schema.INT8_SCHEMA, 8),
                    (Schema.INT16_SCHEMA, 16),
                    (Schema.INT32_SCHEMA, 32),
                    (Schema.INT64_SCHEMA, 64),
                ):
                    if -(1 << (bits - 1)) <= integral < (1 << (bits - 1)):
                        return SchemaAndValue(schema, integral)
                return SchemaAndValue(Decimal.schema(0), dec)
            f = to_float32(float(dec))
            if not math.isinf(f):
                return SchemaAndValue(Schema.FLOAT32_SCHEMA, f)
            return SchemaAndValue(Schema.FLOAT64_SCHEMA, float(dec))
    return SchemaAndValue(Schema.STRING_SCHEMA, value)


def date_string(value: _dt.date | _dt.time) -> str:
    """ISO-8601 text of a Date (``yyyy-MM-dd``), Time (``HH:mm:ss.SSS'Z'``) or Timestamp
    (``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'``) value, in UTC, as ``Values.dateFormatFor`` picks."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.UTC)
        ms = value.microsecond // 1000
        # Kafka picks the format from the instant: midnight-aligned instants print as dates,
        # instants within the first day as times.
        epoch = _dt.datetime(1970, 1, 1)
        total_ms = (value.replace(tzinfo=None) - epoch) // _dt.timedelta(milliseconds=1)
        if 0 <= total_ms < 86_400_000:
            return f"{value:%H:%M:%S}.{ms:03d}Z"
        if total_ms % 86_400_000 == 0:
            return f"{value.year:04d}-{value:%m-%d}"
        return f"{value.year:04d}-{value:%m-%dT%H:%M:%S}.{ms:03d}Z"
    if isinstance(value, _dt.date):
        return f"{value.year:04d}-{value:%m-%d}"
    if isinstance(value, _dt.time):
        return f"{value:%H:%M:%S}.{value.microsecond // 1000:03d}Z"
    raise DataException(f"Not a date/time value: {type(value).__name__}")
