"""Which parser a column gets, from its type name and the connector's value settings, and
what its text is for the compiled row decoder (:func:`text_kind`)."""

from __future__ import annotations

from kconnect.api import Schema
from kconnect.connectors.debezium.common import semantic_types as st
from kconnect.connectors.debezium.postgres.text_values.arrays import array_parser
from kconnect.connectors.debezium.postgres.text_values.intervals import interval_value
from kconnect.connectors.debezium.postgres.text_values.options import TextParser, ValueOptions
from kconnect.connectors.debezium.postgres.text_values.scalars import (
    parse_bool,
    parse_bytea,
    parse_float4,
    parse_float8,
    parse_int,
    parse_money,
    parse_numeric,
)
from kconnect.connectors.debezium.postgres.text_values.structured import hstore_json, parse_point
from kconnect.connectors.debezium.postgres.text_values.temporal import (
    parse_date,
    parse_time,
    parse_timestamp,
    parse_timestamptz,
    parse_timetz,
)

_STRING_TYPES = frozenset(
    {
        "text",
        "varchar",
        "bpchar",
        "char",
        "name",
        "citext",
        "json",
        "jsonb",
        "xml",
        "uuid",
        "inet",
        "cidr",
        "macaddr",
        "macaddr8",
        "int4range",
        "int8range",
        "numrange",
        "tsrange",
        "tstzrange",
        "daterange",
        "ltree",
        "tsvector",
    }
)


TextKind = tuple[str, int]
"""What a column's text is for ``kconnect_native.PgRowDecoder`` (``native/src/pg_values.rs``):
a kind name and its parameter (a scale or width, else 0). ``("py", 0)``: every text goes to the
column's parser."""

_PY: TextKind = ("py", 0)
_INT_TYPES = frozenset({"int2", "int4", "int8", "oid"})


def text_kind(
    type_name: str,
    options: ValueOptions | None = None,
    *,
    scale: int | None = None,
    variable_scale: bool = False,
    is_enum: bool = False,
) -> TextKind:
    """The text kind of the column :func:`value_parser` gives a parser for, with the same
    arguments: the compiled decoder reads the texts of that kind PostgreSQL writes in the
    connector's session settings exactly as the parser does, and gives it every other text.
    Kinds exist only where the parser's result follows from the text alone (``connect`` time
    values, other decimal modes, money, bytea, intervals and ``timetz`` are ``py``)."""
    opts = options or ValueOptions()
    if type_name.startswith("_"):
        element = text_kind(type_name[1:], opts, scale=scale, variable_scale=variable_scale,
                            is_enum=is_enum)  # fmt: skip
        return _PY if element == _PY else (element[0] + "[]", element[1])
    if is_enum or type_name in _STRING_TYPES:
        return ("text", 0)
    if type_name in _INT_TYPES:
        return ("int", 0)
    if type_name in ("bool", "float4", "float8"):
        return (type_name, 0)
    mode = opts.time_precision_mode
    precision = 6 if scale is None else scale
    if type_name == "numeric":
        precise = opts.decimal_handling_mode == "precise" and not variable_scale
        return ("decimal", scale) if precise and scale is not None else _PY
    if type_name == "timestamptz":
        return ("timestamptz", precision)
    if mode in ("connect", "isostring"):
        return _PY
    if type_name == "date":
        return ("date", 0)
    if type_name in ("time", "timestamp") and mode == "nanoseconds":
        return _PY
    if type_name == "time":
        return ("time_ms", 0) if mode == "adaptive" and precision <= 3 else ("time_us", 0)
    if type_name == "timestamp":
        if mode == "microseconds" or precision > 3:
            return ("timestamp_us", 0)
        return ("timestamp_ms", 0)
    return _PY


def _identity(text: str) -> str:
    return text


def value_parser(
    type_name: str,
    options: ValueOptions | None = None,
    *,
    scale: int | None = None,
    variable_scale: bool = False,
    schema: Schema | None = None,
    column: str = "",
    is_enum: bool = False,
) -> TextParser | None:
    """The parser for one column: ``type_name`` is ``pg_type.typname`` of the root type
    (``int4``, ``_text`` for arrays), ``scale`` the column scale (numeric scale; fraction
    digits of time types, 6 when undeclared), ``variable_scale`` marks an unconstrained
    numeric, ``schema`` is the field schema (for VariableScaleDecimal structs; the element
    schema for arrays). None when Debezium has no mapping for the type (the column is
    dropped)."""
    opts = options or ValueOptions()
    if type_name.startswith("_"):
        if type_name in ("_point", "_money"):  # arrays Debezium leaves out
            return None
        elem = value_parser(
            type_name[1:],
            opts,
            scale=scale,
            variable_scale=variable_scale,
            schema=schema,
            column=column,
            is_enum=is_enum,
        )
        return None if elem is None else array_parser(elem)
    if is_enum or type_name in _STRING_TYPES:
        return _identity
    precision = 6 if scale is None else scale
    parsers: dict[str, TextParser] = {
        "bool": parse_bool,
        "int2": parse_int,
        "int4": parse_int,
        "int8": parse_int,
        "oid": parse_int,
        "float4": parse_float4,
        "float8": parse_float8,
        "numeric": lambda t: parse_numeric(
            t,
            opts.decimal_handling_mode,
            scale,
            variable_scale=variable_scale,
            schema=schema,
            column=column,
        ),
        "money": lambda t: parse_money(t, opts.decimal_handling_mode, opts.money_fraction_digits),
        "bytea": lambda t: parse_bytea(t, opts.binary_handling_mode),
        "date": lambda t: parse_date(t, opts.time_precision_mode, jdbc=opts.jdbc_snapshot),
        "time": lambda t: parse_time(t, precision, opts.time_precision_mode),
        "timestamp": lambda t: parse_timestamp(t, precision, opts.time_precision_mode),
        "timestamptz": lambda t: parse_timestamptz(t, precision),
        "timetz": parse_timetz,
        "interval": lambda t: interval_value(t, opts.interval_handling_mode),
        "bit": (lambda t: t == "1") if scale == 1 else st.bits_value,
        "varbit": st.bits_value,
        "hstore": hstore_json,
        "point": lambda t: parse_point(t, schema),
    }
    return parsers.get(type_name)
