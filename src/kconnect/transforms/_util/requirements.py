"""Type checks on record keys/values with Kafka's messages (``transforms.util.Requirements``).

Every check takes ``who``, the Java simple name of the calling transform (``ExtractField$Key``),
and puts it in front of Kafka's wording, so an operator reading a task failure or a dead letter
queue header knows which transform of the chain refused the record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import DataException, Schema, SinkRecord, Struct
from kconnect.api.records import ConnectRecord

__all__ = [
    "require_map",
    "require_map_or_null",
    "require_schema",
    "require_sink_record",
    "require_struct",
    "require_struct_or_null",
    "type_name",
]


def type_name(value: object) -> str:
    """The Python type name of ``value`` ("null" for None), as shown in error messages."""
    return "null" if value is None else type(value).__name__


def require_schema(schema: Schema | None, purpose: str, who: str) -> Schema:
    if schema is None:
        raise DataException(f"{who}: Schema required for [{purpose}]")
    return schema


def require_map(value: Any, purpose: str, who: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DataException(
            f"{who}: Only Map objects supported in absence of schema for [{purpose}], "
            f"found: {type_name(value)}"
        )
    return value


def require_map_or_null(value: Any, purpose: str, who: str) -> Mapping[str, Any] | None:
    return None if value is None else require_map(value, purpose, who)


def require_struct(value: Any, purpose: str, who: str) -> Struct:
    if not isinstance(value, Struct):
        raise DataException(
            f"{who}: Only Struct objects supported for [{purpose}], found: {type_name(value)}"
        )
    return value


def require_struct_or_null(value: Any, purpose: str, who: str) -> Struct | None:
    return None if value is None else require_struct(value, purpose, who)


def require_sink_record(record: ConnectRecord, purpose: str, who: str) -> SinkRecord:
    if not isinstance(record, SinkRecord):
        raise DataException(
            f"{who}: Only SinkRecord supported for [{purpose}], found: {type_name(record)}"
        )
    return record
