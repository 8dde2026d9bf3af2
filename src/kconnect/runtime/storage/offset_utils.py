"""Source offset key/value bytes, identical to Kafka Connect's offsets topic (§4.3).

Key: the JSON array ``["<connector>",{<source partition>}]``; value: the JSON object of the
source offset (or no bytes at all: a tombstone). Compact JSON, fields in the map's own order
(what Java's ``JsonConverter`` with ``schemas.enable=false`` writes for the connector's map),
so a kconnect worker overwrites — and compaction removes — keys written by Java workers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from kconnect.api.errors import DataException
from kconnect.jackson import jackson_json

__all__ = [
    "deserialize_key",
    "deserialize_offset",
    "serialize_key",
    "serialize_offset",
    "validate_format",
]

_PRIMITIVES = (str, int, float, bool, bytes, type(None))


def validate_format(what: str, data: Mapping[str, Any] | None) -> None:
    """``OffsetUtils.validateFormat``: a map of string keys to primitive values (or None).

    Raises:
        DataException: naming the offending field.
    """
    if data is None:
        return
    if not isinstance(data, Mapping):
        raise DataException(f"{what} must be specified as a Map")
    for key, value in data.items():
        if not isinstance(key, str):
            raise DataException(f"{what} may only contain string keys, but found key {key!r}")
        if not isinstance(value, _PRIMITIVES):
            raise DataException(
                f"{what} may only contain primitive types as values, but field {key} "
                f"contains {type(value).__name__}"
            )


def serialize_key(connector: str, partition: Mapping[str, Any] | None) -> bytes:
    """The offsets-topic key bytes of one source partition of ``connector``."""
    return jackson_json([connector, dict(partition) if partition is not None else None])


def serialize_offset(offset: Mapping[str, Any] | None) -> bytes | None:
    """The offsets-topic value bytes (None = tombstone)."""
    return None if offset is None else jackson_json(dict(offset))


def deserialize_key(key: bytes) -> tuple[str, dict[str, Any] | None] | None:
    """(connector, partition) of a key, or None if the key is not in Connect's format."""
    try:
        parsed = orjson.loads(key)
    except orjson.JSONDecodeError:
        return None
    if (
        not isinstance(parsed, list)
        or len(parsed) != 2
        or not isinstance(parsed[0], str)
        or not (parsed[1] is None or isinstance(parsed[1], dict))
    ):
        return None
    return parsed[0], parsed[1]


def deserialize_offset(value: bytes | None) -> dict[str, Any] | None:
    """The offset map of a value (None for a tombstone).

    Raises:
        DataException: the bytes are not a JSON object.
    """
    if value is None:
        return None
    parsed = orjson.loads(value)
    if not isinstance(parsed, dict):
        raise DataException(f"Offset value is not a JSON object: {value[:100]!r}")
    return parsed
