"""Database column types → Connect schemas and value converters (PostgreSQL and SQLite).

Follows ``GenericDatabaseDialect.addFieldToSchema`` / ``PostgreSqlDatabaseDialect`` for the
types Confluent supports and maps, instead of dropping, the ones it drops:

===============================  ===========================================================
PostgreSQL                       Connect
===============================  ===========================================================
bool                             BOOLEAN
int2 / int4 (serial) / int8      INT16 / INT32 / INT64 (bigserial ⇒ INT64)
float4 / float8                  FLOAT32 / FLOAT64
numeric(p,s)                     per ``numeric.mapping`` (Decimal with scale ``s`` by default)
numeric (unconstrained)          Decimal scale 127 (as Confluent); best_fit_eager_double ⇒ FLOAT64
text, varchar, char, name, …     STRING
uuid, json, jsonb, xml           STRING (json text as stored)
bytea                            BYTES
date / time / timestamp[tz]      Date / Time / Timestamp (per ``timestamp.granularity``)
T[] (one dimension)              ARRAY of T's schema (elements optional)
anything else (interval, inet…)  STRING (the value's text form); Confluent drops the column
===============================  ===========================================================

SQLite columns are mapped from their declared type by affinity (``INTEGER`` ⇒ INT64 because
SQLite integers are 64-bit, ``REAL`` ⇒ FLOAT64, ``BLOB``/none ⇒ BYTES, ``BOOLEAN`` ⇒ BOOLEAN,
``DATE``/``TIME``/``DATETIME``/``TIMESTAMP`` ⇒ the logical types, values stored as ISO text or
epoch milliseconds).

A converter turns a non-null driver value into the Connect value; ``None`` means identity,
so rows whose columns all map 1:1 are passed through without per-value Python work.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import re
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from kconnect.api import ConfigException, Date, Decimal, Schema, SchemaBuilder, Time, Timestamp

__all__ = [
    "DECIMAL_PRECISION_PARAM",
    "NUMERIC_MAPPINGS",
    "TIMESTAMP_GRANULARITIES",
    "ColumnInfo",
    "Converter",
    "TypeOptions",
    "column_schema",
]

Converter = Callable[[Any], Any]

DECIMAL_PRECISION_PARAM = "connect.decimal.precision"
NUMERIC_MAPPINGS = ("none", "precision_only", "best_fit", "best_fit_eager_double")
TIMESTAMP_GRANULARITIES = (
    "connect_logical",
    "micros_long",
    "micros_string",
    "micros_iso_datetime_string",
    "nanos_long",
    "nanos_string",
    "nanos_iso_datetime_string",
)
#: Scale used when a NUMERIC has none (Confluent's NUMERIC_TYPE_SCALE_UNSET handling).
UNSET_SCALE = 127

_UTC = dt.UTC
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=_UTC)


@dataclasses.dataclass(frozen=True)
class TypeOptions:
    """The config keys that change type mapping."""

    numeric_mapping: str = "none"
    db_timezone: str = "UTC"
    timestamp_granularity: str = "connect_logical"

    def __post_init__(self) -> None:
        if self.numeric_mapping not in NUMERIC_MAPPINGS:
            raise ConfigException("numeric.mapping", self.numeric_mapping, "unknown mapping")
        if self.timestamp_granularity not in TIMESTAMP_GRANULARITIES:
            raise ConfigException("timestamp.granularity", self.timestamp_granularity, "unknown")
        try:
            ZoneInfo(self.db_timezone)
        except Exception:
            raise ConfigException(
                "db.timezone", self.db_timezone, "not a valid time zone id (e.g. UTC, Europe/Paris)"
            ) from None

    @property
    def zone(self) -> dt.tzinfo:
        return _UTC if self.db_timezone in ("UTC", "Z", "GMT") else ZoneInfo(self.db_timezone)


@dataclasses.dataclass(frozen=True)
class ColumnInfo:
    """One result column as the database describes it.

    ``type_name`` is PostgreSQL's ``pg_type.typname`` (``int4``, ``numeric``, ``_text`` for
    arrays, …) or SQLite's declared type (may be empty). ``precision``/``scale`` are None when
    the type has none (unconstrained numeric). ``nullable`` is True when unknown.
    """

    name: str
    type_name: str
    precision: int | None = None
    scale: int | None = None
    nullable: bool = True
    autoincrement: bool = False
    primary_key: bool = False


# -- PostgreSQL -------------------------------------------------------------------------------

_PG_SIMPLE: dict[str, Callable[[], SchemaBuilder]] = {
    "bool": SchemaBuilder.bool,
    "int2": SchemaBuilder.int16,
    "int4": SchemaBuilder.int32,
    "int8": SchemaBuilder.int64,
    "oid": SchemaBuilder.int64,
    "float4": SchemaBuilder.float32,
    "float8": SchemaBuilder.float64,
    "bytea": SchemaBuilder.bytes,
}
_PG_STRING = frozenset(
    {"text", "varchar", "bpchar", "char", "name", "uuid", "json", "jsonb", "xml", "citext"}
)


def column_schema(
    dialect: str, col: ColumnInfo, options: TypeOptions
) -> tuple[Schema, Converter | None]:
    """The Connect schema of one column and the converter of its non-null values."""
    if dialect == "sqlite":
        builder, conv = _sqlite_type(col, options)
    else:
        builder, conv = _pg_type(col.type_name, col, options)
    if col.nullable:
        builder.optional()
    return builder.build(), conv


def _pg_type(
    type_name: str, col: ColumnInfo, options: TypeOptions
) -> tuple[SchemaBuilder, Converter | None]:
    simple = _PG_SIMPLE.get(type_name)
    if simple is not None:
        return simple(), (bytes if type_name == "bytea" else None)
    if type_name in _PG_STRING:
        return SchemaBuilder.string(), None
    if type_name == "numeric":
        return numeric_type(col.precision, col.scale, options.numeric_mapping)
    if type_name == "date":
        return Date.builder(), None
    if type_name in ("time", "timetz"):
        return Time.builder(), None
    if type_name in ("timestamp", "timestamptz"):
        return timestamp_type(options, naive=type_name == "timestamp")
    if type_name.startswith("_"):
        elem_builder, elem_conv = _pg_type(type_name[1:], col, options)
        elem = elem_builder.optional().build()
        return SchemaBuilder.array(elem), (_array_converter(elem_conv) if elem_conv else None)
    # Types Confluent silently drops (interval, inet, money, ranges, enums, …): their text form.
    return SchemaBuilder.string(), _to_text


def _to_text(v: Any) -> str:
    return v if isinstance(v, str) else str(v)


def _array_converter(conv: Converter) -> Converter:
    def convert(values: Any) -> Any:
        return [None if v is None else conv(v) for v in values]

    return convert


def numeric_type(
    precision: int | None, scale: int | None, mapping: str
) -> tuple[SchemaBuilder, Converter | None]:
    """NUMERIC(p,s) per ``numeric.mapping`` (``JdbcSourceConnectorConfig.NumericMapping``).

    An unconstrained numeric (no precision) is a Decimal with scale 127 (lossless, as
    Confluent), except with ``best_fit_eager_double`` where it becomes FLOAT64.
    """
    if precision is None or precision <= 0:
        if mapping == "best_fit_eager_double":
            return SchemaBuilder.float64(), float
        return Decimal.builder(UNSET_SCALE), None
    s = UNSET_SCALE if scale is None else scale
    if mapping == "precision_only" and s == 0 and precision <= 18:
        return _int_by_precision(precision), int
    if mapping == "best_fit" and precision <= 18:
        if -84 <= s <= 0:
            return _int_by_precision(precision), int
        if s > 0:
            return SchemaBuilder.float64(), float
    if mapping == "best_fit_eager_double":
        if precision <= 18 and -84 <= s <= 0:
            return _int_by_precision(precision), int
        if s > 0:
            return SchemaBuilder.float64(), float
    builder = Decimal.builder(s).parameter(DECIMAL_PRECISION_PARAM, str(precision))
    return builder, None


def _int_by_precision(p: int) -> SchemaBuilder:
    if p > 9:
        return SchemaBuilder.int64()
    if p > 4:
        return SchemaBuilder.int32()
    if p > 2:
        return SchemaBuilder.int16()
    return SchemaBuilder.int8()


def timestamp_type(options: TypeOptions, naive: bool) -> tuple[SchemaBuilder, Converter | None]:
    """TIMESTAMP per ``timestamp.granularity``; naive values are read in ``db.timezone``."""
    zone = options.zone

    def aware(v: dt.datetime) -> dt.datetime:
        return v.replace(tzinfo=zone) if v.tzinfo is None else v

    g = options.timestamp_granularity
    if g == "connect_logical":
        return Timestamp.builder(), (aware if naive else None)
    unit = 1_000 if g.startswith("micros") else 1
    if g.endswith("_long"):
        return SchemaBuilder.int64(), lambda v: _epoch_nanos(aware(v)) // unit
    if g.endswith("_iso_datetime_string"):
        digits = 6 if unit == 1_000 else 9
        return SchemaBuilder.string(), lambda v: _iso(aware(v), digits)
    return SchemaBuilder.string(), lambda v: str(_epoch_nanos(aware(v)) // unit)


def _epoch_nanos(v: dt.datetime) -> int:
    d = v - _EPOCH
    return (d.days * 86_400 + d.seconds) * 1_000_000_000 + d.microseconds * 1_000


def _iso(v: dt.datetime, digits: int) -> str:
    u = v.astimezone(_UTC)
    frac = f"{u.microsecond:06d}" + ("000" if digits == 9 else "")
    return u.strftime("%Y-%m-%dT%H:%M:%S.") + frac


# -- SQLite -----------------------------------------------------------------------------------

_DECL = re.compile(r"^\s*([A-Za-z ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?\))?\s*$")


def _sqlite_type(col: ColumnInfo, options: TypeOptions) -> tuple[SchemaBuilder, Converter | None]:
    decl = (col.type_name or "").upper()
    m = _DECL.match(decl)
    base = m.group(1).strip() if m else decl
    if base in ("BOOLEAN", "BOOL"):
        return SchemaBuilder.bool(), bool
    if base in ("DATE",):
        return Date.builder(), _sqlite_date
    if base in ("TIME",):
        return Time.builder(), _sqlite_time
    if base in ("DATETIME", "TIMESTAMP"):
        zone = options.zone
        builder, conv = timestamp_type(options, naive=True)
        parse = _sqlite_datetime
        if conv is None:
            return builder, lambda v: parse(v, zone)
        return builder, lambda v: conv(parse(v, zone))
    if base in ("NUMERIC", "DECIMAL") and m and m.group(2):
        p, s = int(m.group(2)), int(m.group(3) or 0)
        mapping = options.numeric_mapping if base == "NUMERIC" else "none"
        builder, conv = numeric_type(p, s, mapping)
        if conv is None:
            return builder, lambda v: _sqlite_decimal(v, s)
        return builder, conv
    if "INT" in base:
        return SchemaBuilder.int64(), None
    if any(t in base for t in ("CHAR", "CLOB", "TEXT")):
        return SchemaBuilder.string(), _to_text
    if base in ("BLOB", ""):
        return SchemaBuilder.bytes(), _to_bytes
    if any(t in base for t in ("REAL", "FLOA", "DOUB")):
        return SchemaBuilder.float64(), float
    # NUMERIC affinity without precision: SQLite keeps ints as ints and reals as reals.
    return SchemaBuilder.float64(), float


def _to_bytes(v: Any) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode()


def _sqlite_decimal(v: Any, scale: int) -> decimal.Decimal:
    d = decimal.Decimal(v) if not isinstance(v, float) else decimal.Decimal(repr(v))
    return d.quantize(decimal.Decimal(1).scaleb(-scale))


def _sqlite_datetime(v: Any, zone: dt.tzinfo) -> dt.datetime:
    if isinstance(v, (int, float)):  # epoch milliseconds (xerial's default storage)
        return _EPOCH + dt.timedelta(milliseconds=v)
    parsed = dt.datetime.fromisoformat(str(v))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=zone)


def _sqlite_date(v: Any) -> dt.date:
    if isinstance(v, (int, float)):
        return (_EPOCH + dt.timedelta(milliseconds=v)).date()
    return dt.date.fromisoformat(str(v)[:10])


def _sqlite_time(v: Any) -> dt.time:
    if isinstance(v, (int, float)):
        return (_EPOCH + dt.timedelta(milliseconds=v)).time()
    return dt.time.fromisoformat(str(v))
