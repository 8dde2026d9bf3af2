"""Reading the test tasks' settings as Kafka's do: ``Integer.parseInt`` / ``Long.parseLong``
of the raw string (no whitespace, no ``_``, an optional sign; ValueError where Java throws
NumberFormatException), and ``Boolean.parseBoolean`` (``"true"`` in any case; anything else,
absent included, is false)."""

from __future__ import annotations

import re

from kconnect.api import ConnectException

__all__ = ["parse_boolean", "parse_int", "parse_long", "settings_error"]

_INTEGER = re.compile(r"[+-]?[0-9]+")


def _parse(text: str | None, bits: int) -> int:
    if text is None or not _INTEGER.fullmatch(text):
        raise ValueError(f'For input string: "{text}"')
    value = int(text)
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise ValueError(f'For input string: "{text}"')
    return value


def parse_int(text: str | None) -> int:
    """``Integer.parseInt(text)``."""
    return _parse(text, 32)


def parse_long(text: str | None) -> int:
    """``Long.parseLong(text)``."""
    return _parse(text, 64)


def parse_boolean(text: str | None) -> bool:
    """``Boolean.parseBoolean(text)``."""
    return text is not None and text.lower() == "true"


def settings_error(task: str, cause: ValueError) -> ConnectException:
    """Kafka's ``ConnectException("Invalid <task> configuration", e)``."""
    error = ConnectException(f"Invalid {task} configuration")
    error.__cause__ = cause
    return error
