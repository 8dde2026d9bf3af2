"""Booleans, numbers, money and bytea: their text output → Debezium's values."""

from __future__ import annotations

import base64
import decimal as _decimal
from typing import Any

from kconnect.api import ConnectException, DataException, Schema
from kconnect.api.data.java_numbers import to_float32
from kconnect.connectors.debezium.common.semantic_types import (
    variable_scale_decimal,
)

_EXACT = _decimal.Context(prec=_decimal.MAX_PREC, traps=[_decimal.Inexact])


def parse_bool(text: str) -> bool:
    """``t`` / ``f`` (also ``true`` / ``false``, any case)."""
    t = text.lower()
    if t in ("t", "true"):
        return True
    if t in ("f", "false"):
        return False
    raise DataException(f"Not a PostgreSQL boolean: {text!r}")


def parse_int(text: str) -> int:
    """int2 / int4 / int8 / oid."""
    return int(text)


def parse_float8(text: str) -> float:
    """float8, including ``NaN``, ``Infinity``, ``-Infinity``."""
    return float(text)


def parse_float4(text: str) -> float:
    """float4 as a float32 value (Java's ``Float``)."""
    return to_float32(float(text))


_SPECIAL_NUMERIC = {"NaN": "NAN", "Infinity": "POSITIVE_INFINITY", "-Infinity": "NEGATIVE_INFINITY"}


def _set_scale(value: _decimal.Decimal, scale: int) -> _decimal.Decimal:
    """``BigDecimal.setScale(scale)`` without rounding: raises if digits would be lost."""
    try:
        return value.quantize(_decimal.Decimal(1).scaleb(-scale), context=_EXACT)
    except _decimal.Inexact:
        raise DataException(f"{value} does not fit scale {scale} without rounding") from None


def parse_numeric(
    text: str,
    mode: str = "precise",
    scale: int | None = None,
    *,
    variable_scale: bool = False,
    schema: Schema | None = None,
    column: str = "",
) -> Any:
    """numeric by ``decimal.handling.mode``.

    ``precise``: a Decimal at the column ``scale``, or, for an unconstrained numeric
    (``variable_scale``), a VariableScaleDecimal struct of ``schema`` (trailing zeros
    stripped). ``double``: a float. ``string``: the plain decimal text (at the column scale);
    specials as Debezium's ``SpecialValueDecimal`` names them (``NAN``,
    ``POSITIVE_INFINITY``, ``NEGATIVE_INFINITY``). NaN and infinities cannot be ``precise``:
    ConnectException asks for ``string``.
    """
    special = _SPECIAL_NUMERIC.get(text)
    if special is not None:
        if mode == "string":
            return special
        if mode == "double":
            return float(text)
        raise ConnectException(
            f"Got a special value (NaN/Infinity) for Decimal type in column {column} but current "
            "mode does not handle it. If you need to support it then set decimal handling mode "
            "to 'string'."
        )
    value = _decimal.Decimal(text)
    if scale is not None and not variable_scale:
        value = _set_scale(value, scale)
    if mode == "double":
        return float(value)
    if mode == "string":
        return f"{value:f}"
    if variable_scale:
        return variable_scale_decimal(value, schema)
    return value


def parse_money(text: str, mode: str = "precise", fraction_digits: int = 2) -> Any:
    """money as ``PostgresMoney.parse`` reads it: parentheses or a leading ``-`` make it
    negative, one leading currency symbol and the thousands separators are dropped
    (``$1,234.11`` → 1234.11, ``-$1,234.11`` and ``($1,234.11)`` → -1234.11). ``precise``
    rounds HALF_UP to ``fraction_digits``; ``double`` a float; ``string`` the plain amount."""
    if not text:
        raise ConnectException(f"Failed to parse money value: {text!r}")
    negative = text[0] in "(-"
    value = f"({text[1:]})" if text[0] == "-" else text
    if len(value) >= 2 and value[0] == "(" and value[-1] == ")":
        value = value[1:-1]
    if value and not value[0].isdigit() and value[0] != ".":
        value = value[1:]
    value = value.replace(",", "")
    try:
        amount = _decimal.Decimal(("-" if negative else "") + value)
    except _decimal.InvalidOperation:
        raise ConnectException(f"Failed to parse money value: {text!r}") from None
    if not amount.is_finite():
        raise ConnectException(f"Failed to parse money value: {text!r}")
    if mode == "double":
        return float(amount)
    if mode == "string":
        return f"{amount:f}"
    return amount.quantize(
        _decimal.Decimal(1).scaleb(-fraction_digits),
        rounding=_decimal.ROUND_HALF_UP,
        context=_decimal.Context(prec=_decimal.MAX_PREC),
    )


def parse_bytea(text: str, mode: str = "bytes") -> bytes | str:
    """bytea in hex output (``\\x0102ff``) by ``binary.handling.mode``: ``bytes``, ``base64``
    and ``base64-url-safe`` (both padded, as Java's encoders), ``hex`` (lowercase)."""
    if not text.startswith("\\x"):
        raise DataException(
            "bytea value is not in hex format; set bytea_output = 'hex' on the server "
            f"(value starts {text[:10]!r})"
        )
    data = bytes.fromhex(text[2:])
    if mode == "bytes":
        return data
    if mode == "base64":
        return base64.b64encode(data).decode("ascii")
    if mode == "base64-url-safe":
        return base64.urlsafe_b64encode(data).decode("ascii")
    if mode == "hex":
        return data.hex()
    raise ValueError(f"unknown binary.handling.mode {mode!r}")
