"""JSON bytes exactly as Java's Jackson writes them, for plain JSON data.

Kafka Connect writes its internal topics, offset keys and schemaless JsonConverter payloads
with Jackson. This module gives the same bytes from Python data (dicts in insertion order,
lists, str, int, float, bool, None, bytes as base64), so both the runtime (internal topics,
:mod:`kconnect.runtime.storage`) and the JsonConverter plugin write what Java writes. It sits
beside :mod:`kconnect.api` and imports nothing else from kconnect, so the engine never depends
on a plugin to write its own records.

Two places where orjson's bytes differ from Jackson's are fixed up after ``orjson.dumps``:
control characters (orjson ``\\u001a``, Jackson ``\\u001A``) and characters outside the BMP
(raw UTF-8 in orjson, escaped surrogate pairs ``\\uD83D\\uDE00`` in Jackson). Doubles are
printed with Java's ``Double.toString`` (``1.0E10``), non-finite ones as the quoted strings
Jackson writes (``"NaN"``). Pure functions, safe from any thread.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

import orjson

from kconnect.api import DataException, Struct
from kconnect.api.data.java_numbers import java_double_to_string, java_float_to_string, to_float32

__all__ = [
    "fix_escapes",
    "jackson_double",
    "jackson_float",
    "jackson_dumps",
    "jackson_json",
    "needs_escape_fix",
    "plain_json_value",
]

_Fragment = orjson.Fragment
_b64encode = base64.b64encode
_dumps = orjson.dumps

# Escaped backslashes are matched as pairs so a literal "\u001a" text inside a string (written
# \\u001a) is left alone; 4-byte UTF-8 sequences only occur inside strings.
_NEEDS_FIX = re.compile(rb"\\u00[01][a-f]|[\xf0-\xf4]")
_FIX = re.compile(rb"\\(\\|u00[01][a-f])|[\xf0-\xf4][\x80-\xbf]{3}")
_MARKER = b"\\u00"


def _fix_match(m: re.Match[bytes]) -> bytes:
    g = m.group(1)
    if g is None:
        cp = ord(m.group(0).decode("utf-8")) - 0x10000
        return b"\\u%04X\\u%04X" % (0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF))
    return b"\\u00" + g[3:].upper() if g != b"\\" else m.group(0)


def needs_escape_fix(out: bytes) -> bool:
    """Whether orjson output ``out`` differs from Jackson's (checked in C first: every
    difference is non-ASCII or holds ``\\u00``)."""
    return (not out.isascii() or _MARKER in out) and _NEEDS_FIX.search(out) is not None


def fix_escapes(out: bytes) -> bytes:
    """``out`` (orjson's bytes) with Jackson's escapes; call when :func:`needs_escape_fix`."""
    return _FIX.sub(_fix_match, out)


def jackson_double(v: float) -> Any:
    """A FLOAT64 as Jackson prints it: a JSON-ready fragment, or the quoted non-finite name."""
    s = java_double_to_string(v)
    return _Fragment(s) if v - v == 0.0 else s


def jackson_float(v: float) -> Any:
    """A FLOAT32 as Jackson prints it (``Float.toString`` of the value rounded to 32 bits)."""
    s = java_float_to_string(v)
    f = to_float32(v)
    return _Fragment(s) if f - f == 0.0 else s


def plain_json_value(v: Any) -> Any:
    """``v`` made ready for ``orjson.dumps`` the way Jackson would write it without a schema:
    doubles in Java's text, bytes as base64, maps with non-string keys as ``[[k, v], ...]``.

    Raises DataException for a value with no JSON form (a Struct needs its schema; an
    integer outside INT64; any other class).
    """
    if v is None or v is True or v is False or v.__class__ is str:
        return v
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        if not -(1 << 63) <= v < (1 << 63):
            raise DataException(f"Value {v} is out of range for INT64")
        return int(v)
    if isinstance(v, float):
        return jackson_double(v)
    if isinstance(v, str):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return _b64encode(v).decode("ascii")
    if isinstance(v, (list, tuple)):
        return [plain_json_value(e) for e in v]
    if isinstance(v, Mapping):
        if all(isinstance(k, str) for k in v):
            return {k: plain_json_value(x) for k, x in v.items()}
        return [[plain_json_value(k), plain_json_value(x)] for k, x in v.items()]
    if isinstance(v, Struct):
        raise DataException("Mismatching schema: a Struct value needs its schema (got none).")
    raise DataException(
        f"Python class {type(v).__name__} does not have corresponding schema type; "
        "give the value a schema."
    )


def jackson_dumps(json_ready: Any) -> bytes:
    """``orjson.dumps`` of data already made JSON-ready (see :func:`plain_json_value`; numbers
    may be ``orjson.Fragment``), with Jackson's escapes."""
    out = _dumps(json_ready)
    return fix_escapes(out) if needs_escape_fix(out) else out


def jackson_json(value: Any) -> bytes:
    """``value`` (plain JSON data: dicts in order, lists, str, int, float, bool, None) as the
    exact bytes Jackson writes, which are those of Kafka Connect's JsonConverter with
    ``schemas.enable=false``.

    Raises DataException when ``value`` has no JSON form.
    """
    if value is None:
        return b"null"
    try:
        out = _dumps(plain_json_value(value))
    except DataException:
        raise
    except (orjson.JSONEncodeError, TypeError, ValueError) as e:
        raise DataException(
            f"Converting Kafka Connect data to byte[] failed due to serialization error: {e}"
        ) from e
    return fix_escapes(out) if needs_escape_fix(out) else out
