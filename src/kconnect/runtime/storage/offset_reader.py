"""``OffsetStorageReader`` given to source connectors and tasks (``OffsetStorageReaderImpl``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Mapping
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.api.task import OffsetStorageReader, partition_key
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_utils import deserialize_offset, serialize_key, validate_format

__all__ = ["OffsetStorageReaderImpl"]

log = logging.getLogger(__name__)


class OffsetStorageReaderImpl(OffsetStorageReader):
    """Reads ``connector``'s committed offsets from a backing store.

    Thread-safe. After :meth:`close` every read raises ConnectException (Kafka does the same,
    so a task cannot keep reading after it was stopped).
    """

    def __init__(self, store: OffsetBackingStore, connector: str) -> None:
        self._store = store
        self._connector = connector
        self._closed = threading.Event()

    def offsets(
        self, partitions: Collection[Mapping[str, Any]]
    ) -> dict[tuple[tuple[str, Any], ...], dict[str, Any]]:
        """Committed offsets of ``partitions``; partitions without one are left out.

        Raises:
            ConnectException: the reader was closed, or the store failed.
        """
        if self._closed.is_set():
            raise ConnectException(
                "Offset reader is closed. This is likely because the task has already been "
                "scheduled to stop but has taken longer than the graceful shutdown period to "
                "do so."
            )
        keys: dict[bytes, Mapping[str, Any]] = {}
        for partition in partitions:
            validate_format("Source partition", partition)
            keys[serialize_key(self._connector, partition)] = partition
        try:
            raw = self._store.get(list(keys))
        except Exception as e:
            raise ConnectException(f"Failed to fetch offsets for {self._connector}: {e}") from e
        result: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
        for key, value in raw.items():
            if value is None:
                continue
            try:
                offset = deserialize_offset(value)
                validate_format("Source offset", offset)
            except Exception as e:
                log.error(
                    "CRITICAL: Failed to deserialize offset %r for connector %s; ignoring it: %s",
                    value,
                    self._connector,
                    e,
                )
                continue
            if offset is not None:
                result[partition_key(keys[key])] = offset
        return result

    def close(self) -> None:
        self._closed.set()
