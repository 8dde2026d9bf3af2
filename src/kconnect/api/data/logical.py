"""Logical types: ``Decimal``, ``Date``, ``Time``, ``Timestamp`` (``org.apache.kafka.connect.data``).

Each class offers ``LOGICAL_NAME``, ``SCHEMA`` (where Kafka has one), ``builder()``,
``schema()``, and the conversions between the Python value and the underlying Connect value:

* Decimal: ``decimal.Decimal`` <-> unscaled two's-complement big-endian ``bytes`` (parameter
  ``scale``);
* Date: ``datetime.date`` <-> INT32 days since the Unix epoch;
* Time: ``datetime.time`` <-> INT32 milliseconds since midnight;
* Timestamp: ``datetime.datetime`` (UTC) <-> INT64 milliseconds since the Unix epoch.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import ClassVar

from kconnect.api.data.schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
    Schema,
    SchemaBuilder,
)
from kconnect.api.errors import DataException

__all__ = ["Date", "Decimal", "Time", "Timestamp"]

_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_MS_PER_DAY = 86_400_000


class Decimal:
    """Arbitrary-precision decimals as BYTES with a ``scale`` parameter."""

    LOGICAL_NAME: ClassVar[str] = DECIMAL_LOGICAL_NAME
    SCALE_FIELD: ClassVar[str] = "scale"

    @staticmethod
    def builder(scale: int) -> SchemaBuilder:
        return (
            SchemaBuilder.bytes()
            .name(DECIMAL_LOGICAL_NAME)
            .parameter("scale", str(scale))
            .version(1)
        )

    @staticmethod
    def schema(scale: int) -> Schema:
        return Decimal.builder(scale).build()

    @staticmethod
    def scale(schema: Schema) -> int:
        params = schema.parameters or {}
        if "scale" not in params:
            raise DataException("Invalid Decimal schema: scale parameter not found.")
        return int(params["scale"])

    @staticmethod
    def from_logical(schema: Schema, value: _decimal.Decimal) -> bytes:
        """The unscaled value's minimal two's-complement big-endian bytes (Java BigInteger).

        A value with fewer decimal places than the schema's scale is scaled up exactly; one
        that would lose digits raises DataException, as Kafka refuses a mismatching scale.
        """
        scale = Decimal.scale(schema)
        if not value.is_finite():
            raise DataException(f"Decimal value {value} is not finite")
        shifted = value.scaleb(scale, context=_EXACT)
        unscaled = int(shifted)
        if shifted != unscaled:
            raise DataException(
                f"Decimal value {value} has mismatching scale for given Decimal schema "
                f"(scale {scale})"
            )
        # Java's BigInteger.toByteArray: the fewest bytes that hold the value and its sign bit.
        bits = (unscaled if unscaled >= 0 else ~unscaled).bit_length()
        return unscaled.to_bytes(bits // 8 + 1, "big", signed=True)

    @staticmethod
    def to_logical(schema: Schema, value: bytes) -> _decimal.Decimal:
        unscaled = int.from_bytes(value, "big", signed=True)
        digits = tuple(int(c) for c in str(abs(unscaled)))
        return _decimal.Decimal((1 if unscaled < 0 else 0, digits, -Decimal.scale(schema)))


# Enough precision that scaling never rounds.
_EXACT = _decimal.Context(prec=_decimal.MAX_PREC)


class Date:
    """Dates as INT32 days since the Unix epoch."""

    LOGICAL_NAME: ClassVar[str] = DATE_LOGICAL_NAME
    SCHEMA: ClassVar[Schema]

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int32().name(DATE_LOGICAL_NAME).version(1)

    @staticmethod
    def from_logical(schema: Schema, value: _dt.date) -> int:
        if schema.name != DATE_LOGICAL_NAME:
            raise DataException(
                "Requested conversion of Date object but the schema does not match."
            )
        if isinstance(value, _dt.datetime):
            if value.time() != _dt.time(0):
                raise DataException(
                    "Kafka Connect Date type should not have any time fields set to non-zero values."
                )
            value = value.date()
        return (value - _EPOCH_DATE).days

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.date:
        if schema.name != DATE_LOGICAL_NAME:
            raise DataException(
                "Requested conversion of Date object but the schema does not match."
            )
        return _EPOCH_DATE + _dt.timedelta(days=value)


class Time:
    """Times of day as INT32 milliseconds since midnight."""

    LOGICAL_NAME: ClassVar[str] = TIME_LOGICAL_NAME
    SCHEMA: ClassVar[Schema]

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int32().name(TIME_LOGICAL_NAME).version(1)

    @staticmethod
    def from_logical(schema: Schema, value: _dt.time) -> int:
        if schema.name != TIME_LOGICAL_NAME:
            raise DataException(
                "Requested conversion of Time object but the schema does not match."
            )
        return (
            (value.hour * 60 + value.minute) * 60 + value.second
        ) * 1000 + value.microsecond // 1000

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.time:
        if schema.name != TIME_LOGICAL_NAME:
            raise DataException(
                "Requested conversion of Time object but the schema does not match."
            )
        if value < 0 or value > _MS_PER_DAY:
            raise DataException(
                "Time values must use number of milliseconds greater than 0 and less than 86400000"
            )
        value %= _MS_PER_DAY
        s, ms = divmod(value, 1000)
        m, s = divmod(s, 60)
        h, m = divmod(m, 60)
        return _dt.time(h, m, s, ms * 1000)


class Timestamp:
    """Instants as INT64 milliseconds since the Unix epoch (UTC)."""

    LOGICAL_NAME: ClassVar[str] = TIMESTAMP_LOGICAL_NAME
    SCHEMA: ClassVar[Schema]

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int64().name(TIMESTAMP_LOGICAL_NAME).version(1)

    @staticmethod
    def from_logical(schema: Schema, value: _dt.datetime) -> int:
        if schema.name != TIMESTAMP_LOGICAL_NAME:
            raise DataException(
                "Requested conversion of Timestamp object but the schema does not match."
            )
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.UTC)
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.datetime:
        if schema.name != TIMESTAMP_LOGICAL_NAME:
            raise DataException(
                "Requested conversion of Timestamp object but the schema does not match."
            )
        return _EPOCH + _dt.timedelta(milliseconds=value)


Date.SCHEMA = Date.builder().build()
Time.SCHEMA = Time.builder().build()
Timestamp.SCHEMA = Timestamp.builder().build()
