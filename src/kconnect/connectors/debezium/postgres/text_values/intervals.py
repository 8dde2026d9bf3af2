"""Intervals (``IntervalStyle=postgres``) → ``MicroDuration`` µs or the ISO ``Interval`` string."""

from __future__ import annotations

import math
from typing import NamedTuple

from kconnect.api import ConnectException
from kconnect.connectors.debezium.common.semantic_types import (
    interval_string,
    micro_duration,
)


class PgInterval(NamedTuple):
    """An interval's fields as pgjdbc's ``PGInterval`` holds them (seconds as its
    ``getSeconds()`` double)."""

    years: int
    months: int
    days: int
    hours: int
    minutes: int
    seconds: float


def _java_round(x: float) -> int:
    """``Math.round(double)``: the closest long, ties toward positive infinity."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def _pg_seconds(seconds: float) -> float:
    # VERIFY against the jar (issue 35): PGInterval.setSeconds keeps whole seconds and rounded
    # microseconds (pgjdbc's current rule: round(seconds * 10^6)); getSeconds adds them back.
    total = _java_round(seconds * 1_000_000)
    whole = int(total / 1_000_000) if total >= 0 else -((-total) // 1_000_000)
    micro = total - whole * 1_000_000
    return whole + micro / 1_000_000


def parse_interval(text: str) -> PgInterval:
    """An interval in ``IntervalStyle=postgres`` (``1 year 2 mons 3 days 04:05:06.78``,
    ``-1 years -2 mons +3 days -04:05:06``) or ``postgres_verbose`` (``@ 1 year ago``), read
    as pgjdbc's ``PGInterval(String)`` does: alternating number/unit tokens, an ``h:mm:ss``
    token whose leading ``-`` negates hours, minutes and seconds."""
    postgres_format = not text.startswith("@")
    years = months = days = hours = minutes = 0
    seconds = 0.0
    value_token: str | None = None
    tokens = text.replace("+", " ").replace("@", " ").lower().split()
    try:
        for i, token in enumerate(tokens, start=1):
            if i % 2 == 1:
                end_hours = token.find(":")
                if end_hours == -1:
                    value_token = token
                    continue
                negative = token.startswith("-")
                hours = int(token[int(negative) : end_hours])
                minutes = int(token[end_hours + 1 : end_hours + 3])
                end_minutes = token.find(":", end_hours + 1)
                if end_minutes != -1:
                    seconds = float(token[end_minutes + 1 :])
                if negative:
                    hours, minutes, seconds = -hours, -minutes, -seconds
                value_token = None
            else:
                n = int(value_token) if value_token is not None else 0
                if token.startswith("year"):
                    years = n
                elif token.startswith("mon"):
                    months = n
                elif token.startswith("day"):
                    days = n
                elif token.startswith("hour"):
                    hours = n
                elif token.startswith("min"):
                    minutes = n
                elif token.startswith("sec"):
                    seconds = float(value_token) if value_token is not None else 0.0
    except ValueError:
        raise ConnectException(f"Cannot parse PostgreSQL interval value {text!r}") from None
    if not postgres_format and text.endswith("ago"):
        years, months, days, hours, minutes, seconds = (
            -years,
            -months,
            -days,
            -hours,
            -minutes,
            -seconds,
        )
    return PgInterval(years, months, days, hours, minutes, _pg_seconds(seconds))


def interval_value(text: str, mode: str = "numeric") -> int | str:
    """interval by ``interval.handling.mode``: ``numeric`` → ``MicroDuration`` µs,
    ``string`` → ``Interval`` (``P1Y2M3DT4H5M6.78S``)."""
    iv = parse_interval(text)
    if mode == "string":
        return interval_string(iv.years, iv.months, iv.days, iv.hours, iv.minutes, iv.seconds)
    return micro_duration(iv.years, iv.months, iv.days, iv.hours, iv.minutes, iv.seconds)
