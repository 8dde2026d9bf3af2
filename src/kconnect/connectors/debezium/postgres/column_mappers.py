"""Debezium's column masking and truncation (``ColumnMappers``): ``column.truncate.to.<n>.chars``,
``column.mask.with.<n>.chars``, ``column.mask.hash.<algorithm>.with.salt.<salt>`` and
``column.mask.hash.v2.<algorithm>.with.salt.<salt>``, each a comma-separated list of regular
expressions matched (whole, case-insensitively) against ``schema.table.column``.

A column takes the first rule that matches it, in that order of kinds (truncations, masks,
hashes, v2 hashes; keys of one kind in sorted order). As Debezium's jar shows (the fixture's
``masking`` connector), a rule changes the column's **value field only** -- the record key keeps
the real value and its plain schema:

- *truncate*: the field gets the parameter ``truncateLength`` unless the column's declared
  length is already within it; text (and bytes) values longer than ``n`` UTF-16 units are cut;
- *mask*: the field gets ``masked=true`` whatever its type; values of text columns (``text``,
  ``varchar``, ``char``, ``name``, enums: what pgjdbc reports as CHAR or VARCHAR) become ``n``
  asterisks -- NULL too;
- *hash*: ``masked=true``; a text value becomes the hex digest of the salt's bytes followed by
  the value's (v1: the value Java-serialized, v2: its UTF-8 bytes), cut to a ``varchar(n)`` /
  ``char(n)`` column's length; NULL stays NULL.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.api import ConfigException
from kconnect.connectors.debezium.common.java_serialization import write_object
from kconnect.connectors.debezium.postgres.catalog import Column

__all__ = ["ColumnMapper", "ColumnMappers"]

_TRUNCATE = re.compile(r"column\.truncate\.to\.(\d+)\.chars")
_MASK = re.compile(r"column\.mask\.with\.(\d+)\.chars")
_HASH = re.compile(r"column\.mask\.hash\.([^.]+)\.with\.salt\.(.+)")
_HASH_V2 = re.compile(r"column\.mask\.hash\.v2\.([^.]+)\.with\.salt\.(.+)")

#: Java ``MessageDigest`` names and hashlib's.
_ALGORITHMS = {
    "MD5": "md5", "SHA-1": "sha1", "SHA1": "sha1", "SHA": "sha1", "SHA-224": "sha224",
    "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512", "SHA-512/224": "sha512_224",
    "SHA-512/256": "sha512_256", "SHA3-224": "sha3_224", "SHA3-256": "sha3_256",
    "SHA3-384": "sha3_384", "SHA3-512": "sha3_512",
}  # fmt: skip

#: Base types whose values Debezium's MaskStrings changes (pgjdbc's CHAR and VARCHAR types).
_TEXT_TYPES = frozenset({"text", "varchar", "bpchar", "char", "name"})
#: pgjdbc's column sizes of fixed-size types (``DatabaseMetaData.getColumns`` COLUMN_SIZE).
_SIZES = {"int2": 5, "int4": 10, "int8": 19, "float4": 8, "float8": 17, "bool": 1, "oid": 10}


def _declared_length(column: Column) -> int:
    """The column's length as Debezium sees it (-1: unknown / unlimited)."""
    name = column.base_type_name
    modifier = column.type_modifier
    if name in ("varchar", "bpchar") and modifier >= 4:
        return modifier - 4
    if name == "numeric" and modifier >= 4:
        return ((modifier - 4) >> 16) & 0xFFFF
    return _SIZES.get(name, -1)


def _is_text(column: Column) -> bool:
    return column.base_type_name in _TEXT_TYPES or bool(column.enum_labels)


def _utf16_prefix(text: str, units: int) -> str:
    """Java's ``substring(0, units)`` (UTF-16 units; a pair cut in half keeps its first half)."""
    if len(text) <= units // 2 or all(ord(c) < 0x10000 for c in text[:units]):
        return text[:units]
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * units]
    return data.decode("utf-16-le", "surrogatepass")


@dataclass(frozen=True, slots=True)
class ColumnMapper:
    """One rule: ``kind`` ``truncate`` / ``mask`` / ``hash`` / ``hash-v2`` and its argument."""

    kind: str
    length: int = 0
    algorithm: str = ""
    salt: bytes = b""

    def parameters(self, column: Column) -> dict[str, str]:
        """The parameters the rule adds to the column's value field."""
        if self.kind == "truncate":
            declared = _declared_length(column)
            if declared < 0 or declared > self.length:
                return {"truncateLength": str(self.length)}
            return {}
        return {"masked": "true"}

    def value_function(self, column: Column) -> Callable[[Any], Any] | None:
        """What the rule does to the column's values (None: nothing)."""
        if self.kind == "truncate":
            if not self.parameters(column):
                return None
            n = self.length

            def truncate(value: Any) -> Any:
                if isinstance(value, str) and len(value) > n // 2:
                    return _utf16_prefix(value, n)
                if isinstance(value, bytes) and len(value) > n:
                    return value[:n]
                return value

            return truncate
        if not _is_text(column):
            return None
        if self.kind == "mask":
            mask = "*" * self.length
            return lambda _value: mask
        digest_name, salt = self.algorithm, self.salt
        length = _declared_length(column)
        v2 = self.kind == "hash-v2"

        def hashed(value: Any) -> Any:
            if value is None:
                return None
            data = str(value).encode("utf-8") if v2 else write_object(str(value))
            text = hashlib.new(digest_name, salt + data).hexdigest()
            return text[:length] if length > 0 else text

        return hashed


class ColumnMappers:
    """The rules of a connector's settings (see the module); ConfigException names a key
    that is not one of the four forms or an unknown hash algorithm."""

    def __init__(self, rules: list[tuple[list[re.Pattern[str]], ColumnMapper]]) -> None:
        self._rules = rules

    def __bool__(self) -> bool:
        return bool(self._rules)

    @classmethod
    def from_config(cls, props: Mapping[str, Any]) -> ColumnMappers:
        kinds: dict[str, list[tuple[list[re.Pattern[str]], ColumnMapper]]] = {
            "truncate": [], "mask": [], "hash": [], "hash-v2": []
        }  # fmt: skip
        for key in sorted(props):
            if not key.startswith(("column.mask.", "column.truncate.")) or props[key] is None:
                continue
            mapper = _mapper_of(key)
            patterns = [_compiled(key, p) for p in str(props[key]).split(",") if p.strip()]
            kinds[mapper.kind].append((patterns, mapper))
        return cls([rule for rules in kinds.values() for rule in rules])

    def mapper_for(self, column_id: str) -> ColumnMapper | None:
        """The rule of ``schema.table.column``: the first that matches it."""
        for patterns, mapper in self._rules:
            if any(p.fullmatch(column_id) for p in patterns):
                return mapper
        return None


def _mapper_of(key: str) -> ColumnMapper:
    if m := _TRUNCATE.fullmatch(key):
        return ColumnMapper("truncate", int(m.group(1)))
    if m := _MASK.fullmatch(key):
        return ColumnMapper("mask", int(m.group(1)))
    for kind, pattern in (("hash-v2", _HASH_V2), ("hash", _HASH)):
        if m := pattern.fullmatch(key):
            algorithm = _ALGORITHMS.get(m.group(1).upper())
            if algorithm is None:
                raise ConfigException(key, "[hidden]", f"unknown hash algorithm {m.group(1)!r}; "
                                      f"one of {', '.join(sorted(_ALGORITHMS))}")  # fmt: skip
            return ColumnMapper(kind, algorithm=algorithm, salt=m.group(2).encode("utf-8"))
    raise ConfigException(
        key, "[hidden]",
        "not a column mask or truncation setting: use column.truncate.to.<n>.chars, "
        "column.mask.with.<n>.chars, column.mask.hash.<algorithm>.with.salt.<salt> or "
        "column.mask.hash.v2.<algorithm>.with.salt.<salt>",
    )  # fmt: skip


def _compiled(key: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern.strip(), re.IGNORECASE)
    except re.error as e:
        raise ConfigException(key, pattern, f"invalid regular expression: {e}") from e
