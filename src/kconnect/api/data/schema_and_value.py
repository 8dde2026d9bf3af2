"""``SchemaAndValue``: what a converter returns from bytes (``org.apache.kafka.connect.data``)."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from kconnect.api.data.schema import Schema

__all__ = ["SchemaAndValue"]


class SchemaAndValue(NamedTuple):
    """A schema (or None for schemaless data) and a value. ``SchemaAndValue.NULL`` is (None, None)."""

    schema: Schema | None
    value: Any

    NULL: ClassVar[SchemaAndValue]


SchemaAndValue.NULL = SchemaAndValue(None, None)
