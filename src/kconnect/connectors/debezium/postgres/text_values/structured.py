"""Texts of PostgreSQL types with an inner structure: ``hstore`` (as Debezium's JSON text,
``hstore.handling.mode=json``) and ``point`` (Debezium's ``geometry.Point`` struct)."""

from __future__ import annotations

import json

from kconnect.api import Schema, Struct
from kconnect.api.data.java_strings import in_hash_map_order
from kconnect.connectors.debezium.common import semantic_types as st

__all__ = ["hstore_json", "hstore_pairs", "parse_point"]


def hstore_pairs(text: str) -> dict[str, str | None]:
    """An hstore's output text (``"a"=>"1", "b"=>NULL``) as its pairs, in the text's order.
    ValueError for a text that is not one."""
    pairs: dict[str, str | None] = {}
    i, n = 0, len(text)

    def quoted(i: int) -> tuple[str, int]:
        if i >= n or text[i] != '"':
            raise ValueError(f"not an hstore text: {text[:80]!r}")
        out, i = [], i + 1
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n:
                i += 1
            out.append(text[i])
            i += 1
        if i >= n:
            raise ValueError(f"not an hstore text: {text[:80]!r}")
        return "".join(out), i + 1

    while i < n:
        while i < n and text[i] in " ,":
            i += 1
        if i >= n:
            break
        key, i = quoted(i)
        if text[i : i + 2] != "=>":
            raise ValueError(f"not an hstore text: {text[:80]!r}")
        i += 2
        if text[i : i + 4] == "NULL":
            pairs[key] = None
            i += 4
        else:
            pairs[key], i = quoted(i)
    return pairs


def hstore_json(text: str) -> str:
    """An hstore as Debezium writes it under ``hstore.handling.mode=json``: a JSON object of
    its pairs (NULL as ``null``), compact, keys in the order of the ``java.util.HashMap`` it
    comes from."""
    pairs = in_hash_map_order(hstore_pairs(text))
    return json.dumps(pairs, ensure_ascii=False, separators=(",", ":"))


def parse_point(text: str, schema: Schema | None) -> Struct:
    """A ``point``'s text ``(x,y)`` as Debezium's Point struct (``schema``: the field's)."""
    inner = text.strip().removeprefix("(").removesuffix(")")
    x_text, _, y_text = inner.partition(",")
    x, y = float(x_text), float(y_text)
    return Struct.trusted(schema or st.point_builder().build(), [x, y, st.point_wkb(x, y), None])
