"""``OffsetStorageWriter``: buffers a task's source offsets and flushes them to the store.

Protocol (as Kafka's): the task thread records offsets with :meth:`offset`; a commit calls
:meth:`begin_flush` (snapshots what was recorded; False if nothing to do), then
:meth:`do_flush` (serializes and writes the snapshot, returning a future), and on failure
:meth:`cancel_flush` (puts the snapshot back so the next commit retries it; offsets
recorded meanwhile win). Only one flush may be in progress. Thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_utils import (
    serialize_key,
    serialize_offset,
    validate_format,
)

__all__ = ["OffsetStorageWriter"]

log = logging.getLogger(__name__)

_Part = tuple[tuple[str, Any], ...]


def _freeze(d: Mapping[str, Any] | None) -> _Part:
    return () if d is None else tuple(d.items())


class OffsetStorageWriter:
    def __init__(self, store: OffsetBackingStore, connector: str) -> None:
        self._store = store
        self._connector = connector
        self._lock = threading.Lock()
        # frozen partition -> (partition map, offset map); order of first appearance.
        self._data: dict[_Part, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]] = {}
        self._to_flush: (
            dict[_Part, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]] | None
        ) = None

    def offset(self, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None) -> None:
        """Record the latest offset of ``partition`` (None offset = delete it on flush)."""
        with self._lock:
            self._data[_freeze(partition)] = (partition, offset)

    def offset_batch(
        self, pairs: Iterable[tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]
    ) -> None:
        """Record (partition, offset) pairs in order: the last offset of each partition wins.
        One lock and one freeze per run of records of the same partition object."""
        latest: dict[_Part, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]] = {}
        last: Any = None
        key: _Part = ()
        for partition, offset in pairs:
            if partition is not last or last is None:
                key = _freeze(partition)
                last = partition
            latest[key] = (partition, offset)
        if latest:
            with self._lock:
                self._data.update(latest)

    def offsets(
        self, offsets: Mapping[_Part, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]
    ) -> None:
        with self._lock:
            self._data.update(offsets)

    def begin_flush(self) -> bool:
        """Snapshot the recorded offsets for flushing; False if there is nothing to flush.

        Raises:
            ConnectException: a flush is already in progress.
        """
        if not self._data and self._to_flush is None:
            return False  # the common idle case, without the lock (the GIL reads both)
        with self._lock:
            if self._to_flush is not None:
                raise ConnectException(
                    "OffsetStorageWriter is already flushing; this is a bug in the worker."
                )
            if not self._data:
                return False
            self._to_flush, self._data = self._data, {}
            return True

    def do_flush(self) -> Future[None]:
        """Write the snapshot. Serialization errors fail the future (and keep nothing)."""
        with self._lock:
            snapshot = dict(self._to_flush or {})
        values: dict[bytes, bytes | None] = {}
        try:
            for partition, offset in snapshot.values():
                validate_format("Source partition", partition)
                validate_format("Source offset", offset)
                values[serialize_key(self._connector, partition)] = serialize_offset(offset)
        except Exception as e:
            log.error(
                "CRITICAL: Failed to serialize offset data, making it impossible to "
                "commit offsets under namespace %s. This likely won't recover unless "
                "the unserializable partition or offset information is overwritten.",
                self._connector,
            )
            with self._lock:
                self._to_flush = None
            f: Future[None] = Future()
            f.set_exception(e)
            return f
        return self._store.set(values)

    def cancel_flush(self) -> None:
        """The flush failed: keep its offsets for the next attempt (newer ones win)."""
        with self._lock:
            if self._to_flush is not None:
                merged = dict(self._to_flush)
                merged.update(self._data)
                self._data = merged
                self._to_flush = None

    def complete_flush(self) -> None:
        """The flush succeeded."""
        with self._lock:
            self._to_flush = None
