"""One PostgreSQL column as Debezium's PostgreSQL connector maps it (``PostgresValueConverter``):
the Connect schema of its field, the parser of its text output into the field's value, and the
value a NOT NULL column stands for when its value is missing (the non-key columns of a delete's
old row under ``REPLICA IDENTITY DEFAULT``).

Lengths and scales come from the type modifier as pgjdbc derives them: a numeric's precision and
scale from ``(typmod - 4)``; time types' fraction digits from the typmod, 6 when undeclared.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.api import Schema, SchemaBuilder
from kconnect.api.data.logical import Date as ConnectDate
from kconnect.api.data.logical import Decimal as ConnectDecimal
from kconnect.api.data.logical import Time as ConnectTime
from kconnect.api.data.logical import Timestamp as ConnectTimestamp
from kconnect.connectors.debezium.common import semantic_types as st
from kconnect.connectors.debezium.postgres.catalog import Column
from kconnect.connectors.debezium.postgres.text_values import (
    TextKind,
    TextParser,
    ValueOptions,
    text_kind,
    value_parser,
)

__all__ = ["UNCHANGED_TOAST", "ColumnMapping", "ColumnText", "map_column", "time_scale"]

#: Types whose text is kept as it is, as plain strings (Debezium gives them no semantic name).
_PLAIN_STRING_TYPES = frozenset(
    {
        "text", "varchar", "bpchar", "char", "name", "citext", "inet", "cidr", "macaddr",
        "macaddr8", "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
    }
)  # fmt: skip
_SEMANTIC_STRING_TYPES: dict[str, Callable[[], SchemaBuilder]] = {
    "json": st.json_builder,
    "jsonb": st.json_builder,
    "uuid": st.uuid_builder,
    "xml": st.xml_builder,
    "hstore": st.json_builder,  # hstore.handling.mode=json
    "ltree": st.ltree_builder,
    "tsvector": st.tsvector_builder,
    "point": st.point_builder,
}
_SIMPLE: dict[str, Callable[[], SchemaBuilder]] = {
    "bool": SchemaBuilder.bool,
    "int2": SchemaBuilder.int16,
    "int4": SchemaBuilder.int32,
    "int8": SchemaBuilder.int64,
    "oid": SchemaBuilder.int64,
    "float4": SchemaBuilder.float32,
    "float8": SchemaBuilder.float64,
}
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


class _UnchangedToast:
    """The type of :data:`UNCHANGED_TOAST`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCHANGED_TOAST"


#: A row's value that pgoutput did not send: a TOASTed value an update left unchanged.
UNCHANGED_TOAST = _UnchangedToast()

#: A column's text in a row: the value's text, None for NULL, or :data:`UNCHANGED_TOAST`.
ColumnText = str | None | _UnchangedToast


@dataclass(frozen=True, slots=True)
class ColumnMapping:
    """A column's field: its schema (optional when the column is nullable), the parser of a
    non-null text, what a missing NOT NULL value becomes and what an unchanged TOASTed value
    that was not sent becomes (``unavailable.value.placeholder`` as the field's type allows),
    and what its text is for the compiled row decoder (``text_kind``)."""

    column: Column
    schema: Schema
    parser: TextParser
    fallback: Any
    unavailable: Any
    text_kind: TextKind = ("py", 0)

    @property
    def null(self) -> Any:
        """What a NULL becomes: None, or the fallback of a NOT NULL column."""
        return None if self.column.nullable else self.fallback

    def value(self, text: ColumnText) -> Any:
        """One column's value of its text, as ``TableSchema.row`` and ``available`` give it."""
        if text is None:
            return self.null
        if isinstance(text, str):
            return self.parser(text)
        return self.unavailable


def numeric_precision_scale(type_modifier: int) -> tuple[int, int] | None:
    """A numeric's declared (precision, scale), or None when it has none (``numeric``)."""
    if type_modifier < 4:
        return None
    return ((type_modifier - 4) >> 16) & 0xFFFF, (type_modifier - 4) & 0xFFFF


def time_scale(type_modifier: int) -> int:
    """The fraction digits of a time, timestamp or interval type: 6 unless declared."""
    return 6 if type_modifier < 0 else type_modifier & 0xFFFF


def _element_builder(
    type_name: str, type_modifier: int, options: ValueOptions, enum_labels: tuple[str, ...]
) -> SchemaBuilder | None:
    """The schema builder of a (non-array) type, None when Debezium has no mapping for it."""
    if enum_labels:
        return st.enum_builder(list(enum_labels))
    if type_name == "bit":
        return SchemaBuilder.bool() if type_modifier == 1 else st.bits_builder(type_modifier)
    if type_name == "varbit":
        # VERIFY against the jar (issue 35): an unlimited varbit's length
        return st.bits_builder(type_modifier if type_modifier >= 0 else 2**31 - 1)
    if type_name in _SIMPLE:
        return _SIMPLE[type_name]()
    if type_name in _PLAIN_STRING_TYPES:
        return SchemaBuilder.string()
    if type_name in _SEMANTIC_STRING_TYPES:
        return _SEMANTIC_STRING_TYPES[type_name]()
    mode = options.time_precision_mode
    if type_name == "numeric":
        declared = numeric_precision_scale(type_modifier)
        if options.decimal_handling_mode == "double":
            return SchemaBuilder.float64()
        if options.decimal_handling_mode == "string":
            return SchemaBuilder.string()
        if declared is None:
            return st.variable_scale_decimal_builder()
        precision, scale = declared
        return ConnectDecimal.builder(scale).parameter("connect.decimal.precision", str(precision))
    if type_name == "money":
        if options.decimal_handling_mode == "double":
            return SchemaBuilder.float64()
        if options.decimal_handling_mode == "string":
            return SchemaBuilder.string()
        return ConnectDecimal.builder(options.money_fraction_digits)
    if type_name == "bytea":
        return (
            SchemaBuilder.bytes()
            if options.binary_handling_mode == "bytes"
            else SchemaBuilder.string()
        )
    if type_name == "date":
        if mode == "isostring":
            return st.iso_date_builder()
        return ConnectDate.builder() if mode == "connect" else st.date_builder()
    if type_name == "time":
        if mode == "isostring":
            return st.iso_time_builder()
        if mode == "connect":
            return ConnectTime.builder()
        if mode == "nanoseconds":
            return st.nano_time_builder()
        if mode == "adaptive" and time_scale(type_modifier) <= 3:
            return st.time_builder()
        return st.micro_time_builder()
    if type_name == "timestamp":
        if mode == "isostring":
            return st.iso_timestamp_builder()
        if mode == "connect":
            return ConnectTimestamp.builder()
        if mode == "nanoseconds":
            return st.nano_timestamp_builder()
        if mode != "microseconds" and time_scale(type_modifier) <= 3:
            return st.timestamp_builder()
        return st.micro_timestamp_builder()
    if type_name == "timestamptz":
        return st.zoned_timestamp_builder()
    if type_name == "timetz":
        return st.zoned_time_builder()
    if type_name == "interval":
        if options.interval_handling_mode == "string":
            return st.interval_builder()
        return st.micro_duration_builder()
    return None


def _fallback(schema: Schema) -> Any:
    """What a missing value of a NOT NULL column becomes (``JdbcValueConverters``' fallbacks):
    the field's default, else the zero of its type."""
    if schema.default_value is not None:
        return schema.default_value
    return _type_zero(schema)


def _type_zero(schema: Schema) -> Any:
    """The zero of a field's type: 0, 0.0, false, "", no bytes, an empty list, the epoch for
    times, 0 at the scale for decimals."""
    name = schema.name
    kind = schema.type.value
    if name == ConnectDecimal.LOGICAL_NAME:
        return _decimal.Decimal(0).scaleb(-ConnectDecimal.scale(schema))
    if name == st.VARIABLE_SCALE_DECIMAL:
        return st.variable_scale_decimal(_decimal.Decimal(0), schema)
    if name == ConnectDate.LOGICAL_NAME:
        return _EPOCH.date()
    if name == ConnectTime.LOGICAL_NAME:
        return _dt.time(0)
    if name == ConnectTimestamp.LOGICAL_NAME:
        return _EPOCH
    if name == st.ZONED_TIMESTAMP:
        return st.format_zoned_timestamp(0, 0, 6)
    if name == st.ZONED_TIME:
        return st.format_zoned_time(0)
    return {
        "int8": 0, "int16": 0, "int32": 0, "int64": 0, "float32": 0.0, "float64": 0.0,
        "boolean": False, "string": "", "bytes": b"", "array": [],
    }.get(kind)  # fmt: skip


def map_column(
    column: Column, options: ValueOptions, parameters: Mapping[str, str] | None = None
) -> ColumnMapping | None:
    """``column``'s field as Debezium builds it, or None when Debezium drops the column (a type
    it has no mapping for). The field carries the column's default (:func:`_default`), and
    ``parameters`` (a column mapper's: ``masked``, ``truncateLength``) after its own."""
    type_name = column.base_type_name
    is_array = type_name.startswith("_")
    labels = column.enum_labels

    def field() -> SchemaBuilder | None:
        if is_array:
            # money arrays: left out in the jar's records; point arrays: VERIFY against the jar
            if type_name in ("_money", "_point"):
                return None
            builder = _element_builder(type_name[1:], column.type_modifier, options, labels)
            if builder is None:
                return None
            # an enum array's items are required in Debezium's schemas, other items optional
            built = SchemaBuilder.array(builder.build() if labels else builder.optional().build())
        else:
            element = _element_builder(type_name, column.type_modifier, options, labels)
            if element is None:
                return None
            built = element
        for name, value in (parameters or {}).items():
            built = built.parameter(name, value)
        return built.optional() if column.nullable else built

    first = field()
    if first is None:
        return None
    schema = first.build()
    scale: int | None
    declared = numeric_precision_scale(column.type_modifier)
    if type_name.lstrip("_") == "numeric":
        scale = None if declared is None else declared[1]
    elif type_name.lstrip("_") in ("time", "timestamp", "timestamptz", "timetz", "interval"):
        scale = time_scale(column.type_modifier)
    elif type_name.lstrip("_") == "bit":
        scale = column.type_modifier  # bit(1) is a boolean
    else:
        scale = None
    variable_scale = type_name.lstrip("_") == "numeric" and declared is None
    parser = value_parser(
        type_name,
        options,
        scale=scale,
        variable_scale=variable_scale,
        schema=schema.value_schema if is_array else schema,
        column=column.name,
        is_enum=bool(labels),
    )
    if parser is None:
        return None
    default = None if is_array else _default(column, schema, parser)
    if default is not None:
        again = field()
        assert again is not None
        schema = again.default_value(default).build()
    kind = text_kind(type_name, options, scale=scale, variable_scale=variable_scale,
                     is_enum=bool(labels))  # fmt: skip
    return ColumnMapping(column, schema, parser, _fallback(schema), _unavailable(schema, options),
                         kind)  # fmt: skip


#: ``'text'::type`` as ``pg_get_expr`` writes a literal default (quotes doubled inside)
_QUOTED_DEFAULT = re.compile(r"'((?:[^']|'')*)'(?:::[\w .\"\[\]]+)?")
_NUMBER_DEFAULT = re.compile(r"\(?(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\)?(?:::[\w .\"]+)?")


def _default(column: Column, schema: Schema, parser: TextParser) -> Any:
    """The field default Debezium gives a column with a default expression
    (``PostgresDefaultValueConverter``): a literal's value as the column's values are parsed; an
    expression it cannot evaluate (a function call: ``nextval(...)``, ``now()``,
    ``gen_random_uuid()``) a placeholder of the field's type (0, epoch, zero UUID ...); none
    for ``NULL`` and for struct-valued fields."""
    expression = column.default
    if expression is None or expression.upper().startswith("NULL"):
        return None
    if schema.type.value == "struct":
        return None
    text: str | None = None
    quoted = _QUOTED_DEFAULT.fullmatch(expression)
    if quoted is not None:
        text = quoted.group(1).replace("''", "'")
    else:
        number = _NUMBER_DEFAULT.fullmatch(expression)
        if number is not None:
            text = number.group(1)
        elif expression in ("true", "false"):
            text = expression
    if text is not None:
        try:
            return parser(text)
        except Exception:  # a literal the parser does not read: as Debezium, a placeholder
            pass
    return _placeholder(schema)


def _placeholder(schema: Schema) -> Any:
    """The default of a column whose default expression is not a literal."""
    name = schema.name
    if name == st.UUID:
        return "00000000-0000-0000-0000-000000000000"
    if name == st.JSON:
        return "{}"
    return _type_zero(schema)


def _unavailable(schema: Schema, options: ValueOptions) -> Any:
    """The placeholder of an unchanged TOASTed value, in the field's type: the text for
    strings, its UTF-8 bytes for bytes, a list of it for arrays of strings, else null."""
    placeholder = options.unavailable_value_placeholder
    kind = schema.type.value
    if kind == "string":
        return placeholder
    if kind == "bytes" and schema.name is None:
        return placeholder.encode("utf-8")
    if kind == "array" and schema.value_schema.type.value == "string":
        return [placeholder]  # VERIFY against the jar (issue 35)
    return None
