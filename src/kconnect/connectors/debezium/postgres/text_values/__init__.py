"""PostgreSQL text output → the values Debezium's PostgreSQL connector puts in its records.

Snapshot rows and pgoutput tuples are both read as the server's text output, with the session
set up as pgjdbc sets it (``DateStyle=ISO``, ``IntervalStyle=postgres``,
``extra_float_digits=3``, ``client_encoding=UTF8``); one set of parsers then serves both. Each
parser takes a non-null text; nulls (and NOT NULL fallbacks) are the caller's business.

=========================  ====================================================================
PostgreSQL                 value (per :class:`ValueOptions`)
=========================  ====================================================================
bool                       bool
int2 / int4 / int8 / oid   int
float4 / float8            float (float4 rounded to float32), NaN and ±Infinity included
numeric                    ``precise``: Decimal at the column scale, or a VariableScaleDecimal
                           struct when unconstrained; ``double``: float; ``string``: plain text
money                      the same modes; Decimal at ``money.fraction.digits`` (HALF_UP)
text types, json(b), xml,  str, as the server printed it
uuid, inet, ranges, enums
bytea                      ``bytes`` / ``base64`` / ``base64-url-safe`` / ``hex``
date                       ``io.debezium.time.Date`` days
time(p)                    ``Time`` ms (p ≤ 3) or ``MicroTime`` µs (adaptive)
timestamp(p)               ``Timestamp`` ms (p ≤ 3) or ``MicroTimestamp`` µs, local time as UTC
timestamptz(p)             ``ZonedTimestamp`` string in UTC with p fraction digits
timetz                     ``ZonedTime`` string in UTC
interval                   ``MicroDuration`` µs or ``Interval`` ISO string
T[]                        list, element by element (NULL → None)
=========================  ====================================================================

``time.precision.mode=connect`` gives the Kafka Connect logical values instead
(``datetime.date``, ``datetime.time``, ``datetime.datetime`` in UTC, ms precision).

Pure functions, safe from any thread. :func:`text_kind` names what a column's text is for the
compiled row decoder (``kconnect_native.PgRowDecoder``), which reads the common texts of each
kind itself and hands every other text to the column's parser.

The parsers live by kind in this package's modules; import them from here.
"""

from __future__ import annotations

from kconnect.connectors.debezium.postgres.text_values.arrays import array_parser, parse_array
from kconnect.connectors.debezium.postgres.text_values.dispatch import (
    TextKind,
    text_kind,
    value_parser,
)
from kconnect.connectors.debezium.postgres.text_values.intervals import (
    PgInterval,
    interval_value,
    parse_interval,
)
from kconnect.connectors.debezium.postgres.text_values.options import (
    BINARY_HANDLING_MODES,
    DECIMAL_HANDLING_MODES,
    INTERVAL_HANDLING_MODES,
    TIME_PRECISION_MODES,
    TextParser,
    ValueOptions,
)
from kconnect.connectors.debezium.postgres.text_values.scalars import (
    parse_bool,
    parse_bytea,
    parse_float4,
    parse_float8,
    parse_int,
    parse_money,
    parse_numeric,
)
from kconnect.connectors.debezium.postgres.text_values.temporal import (
    NEGATIVE_INFINITY_MICROS,
    POSITIVE_INFINITY_MICROS,
    parse_date,
    parse_time,
    parse_timestamp,
    parse_timestamptz,
    parse_timetz,
)

__all__ = [
    "BINARY_HANDLING_MODES",
    "DECIMAL_HANDLING_MODES",
    "INTERVAL_HANDLING_MODES",
    "NEGATIVE_INFINITY_MICROS",
    "POSITIVE_INFINITY_MICROS",
    "TIME_PRECISION_MODES",
    "PgInterval",
    "TextKind",
    "TextParser",
    "ValueOptions",
    "array_parser",
    "interval_value",
    "parse_array",
    "parse_bool",
    "parse_bytea",
    "parse_date",
    "parse_float4",
    "parse_float8",
    "parse_int",
    "parse_interval",
    "parse_money",
    "parse_numeric",
    "parse_time",
    "parse_timestamp",
    "parse_timestamptz",
    "parse_timetz",
    "text_kind",
    "value_parser",
]
