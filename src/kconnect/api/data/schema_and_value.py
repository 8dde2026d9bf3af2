"""``SchemaAndValue``: what a converter returns from bytes (``org.apache.kafka.connect.data``)."""

from __future__ import annotations

from typing import Any, NamedTuple

from kconnect.api.data.schema import Schema

__all__ = ["SchemaAndValue"]


class SchemaAndValue(NamedTuple):
    """A schema (or None for schemaless data) and a value. ``SchemaAndValue.NULL`` is (None, None)."""

    schema: Schema | None
    value: Any


# Kafka's SchemaAndValue.NULL; a NamedTuple cannot declare it as a class variable.
SchemaAndValue.NULL = SchemaAndValue(None, None)  # type: ignore[attr-defined]
