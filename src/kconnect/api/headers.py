"""Record headers: ``Header`` and ``Headers`` (``org.apache.kafka.connect.header``).

Headers keep insertion order and allow repeated keys, like Kafka record headers. Each header
carries a Connect schema and value; the header converter turns them into bytes on the way to
Kafka and back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from kconnect.api.data.schema import Schema

__all__ = ["Header", "Headers"]


class Header(NamedTuple):
    """One header: a key, an optional schema and a value."""

    key: str
    schema: Schema | None
    value: Any

    def rename(self, key: str) -> Header:
        return Header(key, self.schema, self.value)

    def with_(self, schema: Schema | None, value: Any) -> Header:
        return Header(self.key, schema, value)


class Headers:
    """An ordered, mutable collection of :class:`Header` (``ConnectHeaders``)."""

    __slots__ = ("_headers",)

    def __init__(self, headers: Iterable[Header] | None = None) -> None:
        self._headers: list[Header] = list(headers) if headers is not None else []

    def add(self, key: str, value: Any = None, schema: Schema | None = None) -> Headers:
        """Append a header; returns self for chaining."""
        self._headers.append(Header(key, schema, value))
        return self

    def add_header(self, header: Header) -> Headers:
        self._headers.append(header)
        return self

    def add_string(self, key: str, value: str | None) -> Headers:
        return self.add(
            key, value, Schema.OPTIONAL_STRING_SCHEMA if value is None else Schema.STRING_SCHEMA
        )

    def add_int(self, key: str, value: int) -> Headers:
        return self.add(key, value, Schema.INT32_SCHEMA)

    def add_long(self, key: str, value: int) -> Headers:
        return self.add(key, value, Schema.INT64_SCHEMA)

    def add_boolean(self, key: str, value: bool) -> Headers:
        return self.add(key, value, Schema.BOOLEAN_SCHEMA)

    def add_bytes(self, key: str, value: bytes) -> Headers:
        return self.add(key, value, Schema.BYTES_SCHEMA)

    def last_with_name(self, key: str) -> Header | None:
        for h in reversed(self._headers):
            if h.key == key:
                found: Header = h
                return found
        return None

    def all_with_name(self, key: str) -> list[Header]:
        return [h for h in self._headers if h.key == key]

    def remove(self, key: str) -> Headers:
        self._headers = [h for h in self._headers if h.key != key]
        return self

    def retain_latest(self, key: str | None = None) -> Headers:
        """Keep only the last header of ``key`` (or of every key when None)."""
        seen: set[str] = set()
        kept: list[Header] = []
        for h in reversed(self._headers):
            if (key is None or h.key == key) and h.key in seen:
                continue
            seen.add(h.key)
            kept.append(h)
        kept.reverse()
        self._headers = kept
        return self

    def clear(self) -> Headers:
        self._headers.clear()
        return self

    def duplicate(self) -> Headers:
        """An independent copy (the Header entries are immutable and shared)."""
        h = _new_headers(Headers)
        h._headers = self._headers.copy()
        return h

    def size(self) -> int:
        return len(self._headers)

    def is_empty(self) -> bool:
        return not self._headers

    def __len__(self) -> int:
        return len(self._headers)

    def __iter__(self) -> Iterator[Header]:
        return iter(list(self._headers))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Headers):
            return NotImplemented
        return self._headers == other._headers

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            "ConnectHeaders(headers="
            + ", ".join(
                f"ConnectHeader(key={h.key}, value={h.value}, schema={h.schema})"
                for h in self._headers
            )
            + ")"
        )


_new_headers = Headers.__new__
