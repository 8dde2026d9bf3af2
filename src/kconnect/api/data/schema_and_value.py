"""``SchemaAndValue``: what a converter returns from bytes (``org.apache.kafka.connect.data``)."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from kconnect.api.data.schema import Schema

__all__ = ["SchemaAndValue"]


class _SchemaAndValueFields(NamedTuple):
    schema: Schema | None
    value: Any


class SchemaAndValue(_SchemaAndValueFields):
    """A schema (or None for schemaless data) and a value. ``SchemaAndValue.NULL`` is (None, None).

    The fields live on a NamedTuple base because a NamedTuple class body cannot declare a
    ``ClassVar``; this subclass adds ``NULL`` (Kafka's ``SchemaAndValue.NULL``) with a declared
    type and no per-instance cost (empty ``__slots__``: still a plain 2-tuple).
    """

    __slots__ = ()

    NULL: ClassVar[SchemaAndValue]


SchemaAndValue.NULL = SchemaAndValue(None, None)
