"""Array literals (``{a,"b c",NULL}``) → lists, element by element."""

from __future__ import annotations

from typing import Any

from kconnect.api import DataException
from kconnect.connectors.debezium.postgres.text_values.options import TextParser


def parse_array(text: str) -> list[Any]:
    """A PostgreSQL array literal as a list of element texts: double quotes delimit elements
    holding ``,`` ``{`` ``}`` ``"`` ``\\`` or spaces, backslash escapes the next character, an
    unquoted ``NULL`` is None (a quoted ``"NULL"`` is the string). A leading dimension
    decoration (``[0:1]={…}``) is skipped. Nested braces give nested lists."""
    start = 0
    if text.startswith("["):
        start = text.index("=") + 1
    result, end = _parse_level(text, start)
    if text[end:].strip():
        raise DataException(f"Unexpected text after PostgreSQL array literal: {text!r}")
    return result


def _parse_level(text: str, i: int) -> tuple[list[Any], int]:
    n = len(text)
    if i >= n or text[i] != "{":
        raise DataException(f"Not a PostgreSQL array literal: {text!r}")
    i += 1
    items: list[Any] = []
    expect_item = True
    while i < n:
        c = text[i]
        if c == "}":
            return items, i + 1
        if c == "," and not expect_item:
            expect_item = True
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        if c == "{":
            nested, i = _parse_level(text, i)
            items.append(nested)
        elif c == '"':
            buf: list[str] = []
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                if i < n:
                    buf.append(text[i])
                i += 1
            i += 1
            items.append("".join(buf))
        else:
            buf = []
            while i < n and text[i] not in ",}":
                if text[i] == "\\":
                    i += 1
                if i < n:
                    buf.append(text[i])
                i += 1
            raw = "".join(buf).rstrip()
            items.append(None if raw == "NULL" else raw)
        expect_item = False
    raise DataException(f"Unterminated PostgreSQL array literal: {text!r}")


def array_parser(element: TextParser) -> TextParser:
    """A parser of array literals applying ``element`` to each non-null element."""

    def parse(text: str) -> list[Any]:
        # A multidimensional array's inner arrays are nulls: Debezium 3.6.1 writes
        # {{1,2},{3,4}} as [null,null] (and logs a warning), as the oracle fixture shows.
        return [None if v is None or isinstance(v, list) else element(v) for v in parse_array(text)]

    return parse
