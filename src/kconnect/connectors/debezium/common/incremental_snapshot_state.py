"""Where a signal-based incremental snapshot stands, and how Debezium keeps it in its offsets.

An incremental snapshot (``execute-snapshot`` with ``type`` incremental) reads the requested
tables chunk by chunk, in key order, while streaming goes on. :class:`IncrementalSnapshotState`
is its bookkeeping, the same as Debezium's ``AbstractIncrementalSnapshotContext``:

- the **queue** of data collections to read: its head is the table being read, the rest wait
  (a table requested twice is read twice, as Debezium does);
- the **chunk end** (the key of the last row of the chunk read last: the next chunk starts
  after it), the **maximum key** (the table's last key when its reading started: reading ends
  there) and the **last key sent** (the key of the last ``op=r`` record emitted);
- the **window**: the current chunk's id (a UUID), whether its open watermark came through the
  stream, and whether the snapshot is paused.

While the queue is not empty every offset of the connector carries four keys
(:meth:`IncrementalSnapshotState.offset_entries`): the last key sent and the maximum key as
Java-serialized ``Object[]`` in hex (:mod:`~kconnect.connectors.debezium.common.java_serialization`),
the queue as JSON, and the correlation id. :meth:`IncrementalSnapshotState.restore` reads them
back: a restarted connector reads its next chunk after the last key whose record was committed.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.api import ConnectException
from kconnect.connectors.debezium.common.java_serialization import (
    JavaSerializationError,
    from_hex,
    to_hex,
)

__all__ = [
    "COLLECTIONS_KEY",
    "CORRELATION_ID_KEY",
    "MAXIMUM_KEY_KEY",
    "PRIMARY_KEY_KEY",
    "DataCollection",
    "IncrementalSnapshotState",
]

PRIMARY_KEY_KEY = "incremental_snapshot_primary_key"
MAXIMUM_KEY_KEY = "incremental_snapshot_maximum_key"
COLLECTIONS_KEY = "incremental_snapshot_collections"
CORRELATION_ID_KEY = "incremental_snapshot_correlation_id"

_ID = "incremental_snapshot_collections_id"
_CONDITION = "incremental_snapshot_collections_additional_condition"
_SURROGATE = "incremental_snapshot_collections_surrogate_key"


@dataclasses.dataclass(frozen=True, slots=True)
class DataCollection:
    """One table to read: ``schema.table``, the ``additional-conditions`` filter that applies
    to it (stored parenthesised, as Debezium does) and the ``surrogate-key`` column."""

    id: str
    additional_condition: str | None = None
    surrogate_key: str | None = None


@dataclasses.dataclass
class IncrementalSnapshotState:
    """See the module. Key positions are lists of Java-typed values (``JavaInteger``,
    ``JavaLong``, ``str``, ``Decimal``, ``uuid.UUID``, ``bool``, ``float``)."""

    queue: list[DataCollection] = dataclasses.field(default_factory=list)
    chunk_end: list[object] | None = None
    maximum_key: list[object] | None = None
    last_sent: list[object] | None = None
    correlation_id: str | None = None
    chunk_id: str | None = None
    window_open: bool = False
    paused: bool = False

    @property
    def running(self) -> bool:
        return bool(self.queue)

    @property
    def current(self) -> DataCollection | None:
        return self.queue[0] if self.queue else None

    # -- the queue ------------------------------------------------------------------------------

    def add(self, collections: Sequence[DataCollection], correlation_id: str | None) -> bool:
        """Queue ``collections`` (after any already queued); whether this starts a snapshot
        (none was running)."""
        starting = not self.queue
        self.queue.extend(collections)
        self.correlation_id = correlation_id
        return starting

    def next_collection(self) -> DataCollection | None:
        """The current table is done (or dropped): forget its positions and go on with the
        next one (None: the snapshot is over)."""
        self.chunk_end = self.maximum_key = self.last_sent = None
        if self.queue:
            self.queue.pop(0)
        if not self.queue:
            self.correlation_id = None
            return None
        return self.queue[0]

    def remove(self, table_ids: Sequence[str]) -> tuple[list[str], bool]:
        """Drop the waiting (not current) occurrences of ``table_ids``; (the ids removed,
        whether the current table is among ``table_ids``)."""
        current = self.current
        removed = []
        for table_id in table_ids:
            before = len(self.queue)
            self.queue[1:] = [c for c in self.queue[1:] if c.id != table_id]
            if len(self.queue) != before:
                removed.append(table_id)
        hits_current = current is not None and current.id in table_ids
        return removed, hits_current

    # -- windows --------------------------------------------------------------------------------

    def start_chunk(self) -> str:
        """A new chunk's id (lower-case UUID, as ``UUID.randomUUID()``)."""
        self.chunk_id = str(uuid.uuid4())
        self.window_open = False
        return self.chunk_id

    def open_window(self, signal_id: str) -> bool:
        """The open watermark ``signal_id`` came through the stream; False (ignored) when it is
        not the current chunk's."""
        if self.chunk_id is None or not signal_id.startswith(self.chunk_id):
            return False
        self.window_open = True
        return True

    def close_window(self, signal_id: str) -> bool:
        """The close watermark came through; False (ignored) when it is not the current
        chunk's."""
        if self.chunk_id is None or not signal_id.startswith(self.chunk_id):
            return False
        self.window_open = False
        return True

    # -- offsets --------------------------------------------------------------------------------

    def offset_entries(self) -> dict[str, Any]:
        """The four offset keys while a snapshot runs (empty otherwise)."""
        if not self.queue:
            return {}
        collections = [
            {_ID: c.id, _CONDITION: c.additional_condition or None,
             _SURROGATE: c.surrogate_key or None}
            for c in self.queue
        ]  # fmt: skip
        return {
            PRIMARY_KEY_KEY: to_hex(self.last_sent),
            MAXIMUM_KEY_KEY: to_hex(self.maximum_key),
            COLLECTIONS_KEY: json.dumps(collections, separators=(",", ":"), ensure_ascii=False),
            CORRELATION_ID_KEY: self.correlation_id,
        }

    @classmethod
    def restore(cls, offset: Mapping[str, Any]) -> IncrementalSnapshotState:
        """The state an offset stored (an empty one when it has none). The next chunk starts
        after the last key sent; the window and the chunk id start afresh."""
        text = offset.get(COLLECTIONS_KEY)
        if not text:
            return cls()
        try:
            entries = json.loads(text)
            queue = [
                DataCollection(str(e[_ID]), e.get(_CONDITION) or None, e.get(_SURROGATE) or None)
                for e in entries
            ]
            chunk_end = _keys(offset.get(PRIMARY_KEY_KEY))
            maximum = _keys(offset.get(MAXIMUM_KEY_KEY))
        except (ValueError, KeyError, TypeError, JavaSerializationError) as e:
            raise ConnectException(
                f"The stored offset's incremental snapshot cannot be read ({e}); the offset "
                "was not written by Debezium's PostgreSQL connector or kconnect's"
            ) from e
        correlation = offset.get(CORRELATION_ID_KEY)
        return cls(queue=queue, chunk_end=chunk_end, maximum_key=maximum,
                   correlation_id=None if correlation is None else str(correlation))  # fmt: skip


def _keys(text: object) -> list[object] | None:
    if text is None:
        return None
    return from_hex(str(text))
