"""SQL identifiers: table ids (``catalog.schema.table``) and quoting per dialect.

Quoting follows ``quote.sql.identifiers``: ``always`` wraps every identifier in the dialect's
quote character (``"`` for PostgreSQL, ````` for SQLite, as Confluent's dialects); ``never``
leaves plain identifiers bare. Unlike Confluent, an embedded quote character is doubled, and
with ``never`` an identifier that is not a plain SQL word (spaces, quotes, semicolons, …) is
still quoted: a table or column name can never change the meaning of a statement.
"""

from __future__ import annotations

import dataclasses
import re

from kconnect.api import ConfigException

__all__ = ["IdentifierRules", "TableId", "rules_for"]

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")


@dataclasses.dataclass(frozen=True, order=True)
class TableId:
    """A table's catalog, schema and name (None: not part of the id)."""

    catalog: str | None
    schema: str | None
    table: str

    def unquoted(self) -> str:
        """``catalog.schema.table`` with missing parts left out (``TableId.toUnquotedString``);
        used in source partitions and table filters."""
        return ".".join(p for p in (self.catalog, self.schema, self.table) if p is not None)

    def __str__(self) -> str:
        return self.unquoted()


@dataclasses.dataclass(frozen=True)
class IdentifierRules:
    """How one dialect quotes identifiers.

    Args:
        quote_char: opening and closing quote.
        quote_always: ``quote.sql.identifiers=always``.
        fold_lower: with ``never``, whether the database folds bare names to lower case
            (PostgreSQL), so that Confluent's lower-casing is reproduced.
    """

    quote_char: str = '"'
    quote_always: bool = True
    fold_lower: bool = False

    def quote(self, name: str) -> str:
        """One identifier, quoted as configured and always safe to splice into SQL."""
        if "\x00" in name:
            raise ConfigException(f"Identifier {name!r} contains a NUL character")
        if not self.quote_always and _PLAIN.match(name):
            return name.lower() if self.fold_lower else name
        q = self.quote_char
        return q + name.replace(q, q + q) + q

    def quote_table(self, table: TableId) -> str:
        """``"catalog"."schema"."table"`` with missing parts left out."""
        return ".".join(
            self.quote(p) for p in (table.catalog, table.schema, table.table) if p is not None
        )

    def parse_table_id(self, text: str) -> TableId:
        """Parse ``table``, ``schema.table`` or ``catalog.schema.table``; each part may be
        quoted (``"My Schema"."a.b"``), with doubled quotes inside. Bare parts are taken as
        written (no case folding)."""
        parts = split_identifier(text, self.quote_char)
        if not 1 <= len(parts) <= 3 or any(p == "" for p in parts):
            raise ConfigException(f"Invalid table identifier '{text}'")
        schema = parts[-2] if len(parts) >= 2 else None
        catalog = parts[-3] if len(parts) == 3 else None
        return TableId(catalog, schema, parts[-1])


def split_identifier(text: str, quote_char: str = '"') -> list[str]:
    """Split a dotted identifier, honouring quoted parts (either the dialect's quote or ``"``)."""
    parts: list[str] = []
    i, n = 0, len(text)
    text = text.strip()
    n = len(text)
    while i <= n:
        if i < n and text[i] in (quote_char, '"'):
            q = text[i]
            j, buf = i + 1, []
            while True:
                k = text.find(q, j)
                if k < 0:
                    raise ConfigException(f"Unterminated quoted identifier in '{text}'")
                buf.append(text[j:k])
                if k + 1 < n and text[k + 1] == q:
                    buf.append(q)
                    j = k + 2
                    continue
                i = k + 1
                break
            parts.append("".join(buf))
            if i < n and text[i] != ".":
                raise ConfigException(f"Invalid table identifier '{text}'")
            i += 1
        else:
            k = text.find(".", i)
            if k < 0:
                parts.append(text[i:].strip())
                break
            parts.append(text[i:k].strip())
            i = k + 1
    return parts


def rules_for(dialect: str, quote_mode: str = "always") -> IdentifierRules:
    """The rules of ``postgresql`` or ``sqlite`` for ``quote.sql.identifiers``."""
    always = (quote_mode or "always").lower() != "never"
    if dialect == "sqlite":
        return IdentifierRules("`", always, False)
    return IdentifierRules('"', always, True)
