"""Checks of source offsets written through the REST API (``PATCH /connectors/{c}/offsets``)
for the MirrorMaker 2 connectors, with Java's messages (``MirrorUtils.validateSource*``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kconnect.api import ConnectException

__all__ = ["validate_source_offsets"]

INT_MAX = 2147483647


def _java_map(m: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in m.items()) + "}"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_source_offsets(
    offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    string_keys: Iterable[str],
    *,
    partition_key: bool,
    only_zero: bool,
) -> None:
    """Raise ConnectException for the first malformed partition or offset. Tombstones (None
    offsets) are always allowed, so garbage can be cleaned up."""
    keys = tuple(string_keys)
    for partition, offset in offsets.items():
        if offset is None:
            continue
        if partition is None:
            raise ConnectException("Source partitions may not be null")
        p = _java_map(partition)
        for key in keys:
            if key not in partition:
                raise ConnectException(
                    f"Source partition {p} is missing the '{key}' key, which is required"
                )
            if not isinstance(partition[key], str):
                raise ConnectException(
                    f"Source partition {p} has an invalid value {partition[key]} for the "
                    f"'{key}' key, which must be a string"
                )
        if partition_key:
            if "partition" not in partition:
                raise ConnectException(
                    f"Source partition {p} is missing the 'partition' key, which is required"
                )
            value = partition["partition"]
            if not _is_int(value) or value > INT_MAX:
                raise ConnectException(
                    f"Source partition {p} has an invalid value {value} for the 'partition' "
                    "key, which must be an integer"
                )
            if value < 0:
                raise ConnectException(
                    f"Source partition {p} has an invalid value {value} for the 'partition' "
                    "key, which cannot be negative"
                )
        o = _java_map(offset)
        if "offset" not in offset:
            raise ConnectException(
                f"Source offset {o} for source partition {p} is missing the 'offset' key, "
                "which is required"
            )
        value = offset["offset"]
        if not _is_int(value):
            raise ConnectException(
                f"Source offset {o} for source partition {p} has an invalid value {value} for "
                "the 'offset' key, which must be an integer"
            )
        if only_zero and value != 0:
            raise ConnectException(
                f"Source offset {o} for source partition {p} has an invalid value {value} for "
                "the 'offset' key; the only accepted value is 0"
            )
        if not only_zero and value < 0:
            raise ConnectException(
                f"Source offset {o} for source partition {p} has an invalid value {value} for "
                "the 'offset' key, which cannot be negative"
            )
