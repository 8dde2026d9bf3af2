"""The records a JDBC sink buffer holds for one statement, as pieces of the ``put``'s sequence.

A ``put`` hands the sink a list of SinkRecords or, on the native hot path, a
``kconnect_native.RecordBatch``: a ``Sequence[SinkRecord]`` whose Python records are made
only when read. :class:`Pieces` keeps positions in that sequence instead of records: a piece
is ``(sequence, start, end)``, and records that were read one by one (the first of a new
schema, a tombstone, a schemaless record) gather in a list piece of their own. The row plan
takes each piece's rows -- or, for a binary COPY insert, its COPY stream -- straight from the
batch's native values, and reads records (``batch[a:b]``) only where the native code hands a
piece back; code that needs the records themselves (error messages) reads them through the
``Sequence`` interface, which makes only the records asked for.

Used on the task thread only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard, overload

from kconnect._hot_path import native
from kconnect.api import SinkRecord

if TYPE_CHECKING:
    from kconnect._hot_path import NativeRecordBatch

__all__ = ["RECORD_BATCH", "Pieces", "is_batch", "topic_at"]

#: The native batch class (None on the pure-Python path, where no batch exists).
RECORD_BATCH: Any = native.RecordBatch if native is not None else None

# ``RecordBatch.rows`` source of the topic alone: the topic of one record without making it.
_TOPIC_SOURCE = [(0, None)]


def is_batch(records: object) -> TypeGuard[NativeRecordBatch[SinkRecord]]:
    """Whether ``records`` is a native record batch."""
    return RECORD_BATCH is not None and records.__class__ is RECORD_BATCH


def topic_at(records: Sequence[SinkRecord], i: int) -> str:
    """The topic of ``records[i]``; from a native batch without making its Python record."""
    if is_batch(records):
        got = records.rows(i, i + 1, _TOPIC_SOURCE, False)
        if got:
            topic: str = got[0][0]
            return topic
    return records[i].topic


class Pieces(Sequence[SinkRecord]):
    """Records in order, as ``(sequence, start, end)`` pieces (see the module docstring)."""

    __slots__ = ("_n", "_own", "batched", "pieces")

    def __init__(self) -> None:
        self.pieces: list[tuple[Sequence[SinkRecord], int, int]] = []
        #: whether records are from a native batch (a range of it, or read from it)
        self.batched = False
        self._n = 0
        # the list of the last piece when it holds records added one by one
        self._own: list[SinkRecord] | None = None

    def add_range(self, records: Sequence[SinkRecord], start: int, end: int) -> None:
        """Append ``records[start:end]`` (by position: nothing is read)."""
        if end <= start:
            return
        self.pieces.append((records, start, end))
        self._n += end - start
        self._own = None
        if not self.batched and is_batch(records):
            self.batched = True

    def add_one(self, record: SinkRecord) -> None:
        """Append one record."""
        own = self._own
        if own is None:
            own = self._own = []
        own.append(record)
        if self.pieces and self.pieces[-1][0] is own:
            self.pieces[-1] = (own, 0, len(own))
        else:
            self.pieces.append((own, 0, 1))
        self._n += 1

    def records(self) -> list[SinkRecord]:
        """Every record as a list (made from a batch's pieces)."""
        if len(self.pieces) == 1:
            seq, start, end = self.pieces[0]
            if seq.__class__ is list and start == 0 and end == len(seq):
                return seq
        out: list[SinkRecord] = []
        for seq, start, end in self.pieces:
            out += seq[start:end]
        return out

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    @overload
    def __getitem__(self, index: int) -> SinkRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SinkRecord]: ...

    def __getitem__(self, index: int | slice) -> SinkRecord | list[SinkRecord]:
        if isinstance(index, slice):
            return self.records()[index]
        k = index + self._n if index < 0 else index
        if not 0 <= k < self._n:
            raise IndexError("record index out of range")
        for seq, start, end in self.pieces:
            if k < end - start:
                return seq[start + k]
            k -= end - start
        raise AssertionError("unreachable: the pieces hold _n records")

    def __iter__(self) -> Iterator[SinkRecord]:
        for seq, start, end in self.pieces:
            yield from seq[start:end]
