"""The connector settings that change values, and the parser type every module here returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

TextParser = Callable[[str], Any]
"""A parser: one non-null text in, one record value out."""

DECIMAL_HANDLING_MODES = ("precise", "double", "string")
BINARY_HANDLING_MODES = ("bytes", "base64", "base64-url-safe", "hex")
TIME_PRECISION_MODES = (
    "adaptive",
    "adaptive_time_microseconds",
    "connect",
    "microseconds",
    "nanoseconds",
    "isostring",
)
INTERVAL_HANDLING_MODES = ("numeric", "string")


@dataclasses.dataclass(frozen=True)
class ValueOptions:
    """The connector settings that change values: ``decimal.handling.mode``,
    ``binary.handling.mode``, ``time.precision.mode``, ``interval.handling.mode``,
    ``money.fraction.digits``, ``unavailable.value.placeholder``."""

    decimal_handling_mode: str = "precise"
    binary_handling_mode: str = "bytes"
    time_precision_mode: str = "adaptive"
    interval_handling_mode: str = "numeric"
    money_fraction_digits: int = 2
    #: ``unavailable.value.placeholder``: what an unchanged TOASTed value that was not sent
    #: becomes
    unavailable_value_placeholder: str = "__debezium_unavailable_value"
    #: read values as Debezium's snapshot does through JDBC, where that differs from the
    #: stream (dates: :func:`parse_date`'s ``jdbc``)
    jdbc_snapshot: bool = False

    def __post_init__(self) -> None:
        for value, allowed, key in (
            (self.decimal_handling_mode, DECIMAL_HANDLING_MODES, "decimal.handling.mode"),
            (self.binary_handling_mode, BINARY_HANDLING_MODES, "binary.handling.mode"),
            (self.time_precision_mode, TIME_PRECISION_MODES, "time.precision.mode"),
            (self.interval_handling_mode, INTERVAL_HANDLING_MODES, "interval.handling.mode"),
        ):
            if value not in allowed:
                raise ValueError(f"{key}={value!r} is not one of {', '.join(allowed)}")
