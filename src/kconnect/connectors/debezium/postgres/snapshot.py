"""A snapshot's records as Debezium emits them: one ``op=r`` envelope per row, table after table,
each with its ``source.snapshot`` marker (``first`` for the first row, ``first_in_data_collection``
/ ``last_in_data_collection`` at the edges of the other tables, ``last`` for the very last record
emitted, ``true`` between) and the snapshot's offset (``last_snapshot_record`` and
``snapshot_completed`` true on the last one only), the extended ``__debezium.context.*`` headers
on every record.

Records are emitted one behind the rows read, as Debezium's buffering receiver does, so that the
last one can be marked ``last`` even when the tables after it are empty.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect.api import Headers, SourceRecord, Struct
from kconnect.api.data.java_strings import in_hash_map_order
from kconnect.connectors.debezium.common import envelope
from kconnect.connectors.debezium.postgres.offsets import snapshot_offset, source_partition
from kconnect.connectors.debezium.postgres.snapshot_reader import SnapshotPosition
from kconnect.connectors.debezium.postgres.source_info import (
    CONNECTOR,
    SOURCE_SCHEMA,
    SnapshotRecord,
    SourceInfo,
    snapshot_marker,
)
from kconnect.connectors.debezium.postgres.table_schema import TableSchema
from kconnect.connectors.debezium.postgres.text_values import ValueOptions

__all__ = ["RecordContext", "context_headers", "snapshot_records", "snapshot_value_options"]

Row = Sequence[str | None]


@dataclass(frozen=True, slots=True)
class RecordContext:
    """What every data record of one task run carries besides its row: the connector's logical
    name (``topic.prefix``), the task, the run's id, whether the ``__debezium.context.*``
    headers are on (``extended.headers.enabled``) and the clock (epoch ns) of the envelope's
    ``ts_*``."""

    prefix: str
    task_id: str
    run_id: str
    extended_headers: bool
    clock_ns: Callable[[], int]


def context_headers(context: RecordContext) -> Headers | None:
    """The ``__debezium.context.*`` headers (None when they are off)."""
    if not context.extended_headers:
        return None
    headers = Headers()
    headers.add_string("__debezium.context.connectorLogicalName", context.prefix)
    headers.add_string("__debezium.context.taskId", context.task_id)
    headers.add_string("__debezium.context.connectorName", CONNECTOR)
    headers.add_string("__debezium.context.runId", context.run_id)
    return headers


def snapshot_value_options(options: ValueOptions) -> ValueOptions:
    """The value settings of a snapshot's table schemas: Debezium reads a snapshot through
    JDBC, and a few values come out differently from the stream's (``jdbc_snapshot``)."""
    return dataclasses.replace(options, jdbc_snapshot=True)


def snapshot_records(
    tables: Sequence[TableSchema],
    rows: Callable[[TableSchema], Iterable[Row]],
    source: SourceInfo,
    position: SnapshotPosition,
    context: RecordContext,
    stream_offset: Mapping[str, Any] | None = None,
) -> Iterator[SourceRecord]:
    """The snapshot's records: ``rows(table)`` gives each table's rows (full rows, every column
    in table order, as text); ``source`` is updated as the tables go by. ``tables`` are built
    with :func:`snapshot_value_options`. ``stream_offset``: a blocking snapshot's (taken while
    streaming), the offset of the signal that asked for it -- its records' offsets are that
    one marked ``snapshot: BLOCKING``."""
    partition = source_partition(context.prefix)
    source.timestamp_ns = position.started_us * 1000
    source.tx_id = position.tx_id
    source.lsn = position.lsn
    shared = _Shared(position, context, stream_offset)
    pending: tuple[TableSchema, Row, SnapshotRecord] | None = None
    last_table = len(tables) - 1
    for t, table in enumerate(tables):
        it = iter(rows(table))
        try:
            row = next(it, None)
            first = True
            while row is not None:
                following = next(it, None)
                marker = snapshot_marker(t == 0, t == last_table, first, following is None)
                if pending is not None:
                    yield _record(*pending, source, shared, context, partition, last=False)
                pending = (table, row, marker)
                row, first = following, False
        finally:  # a reader left mid-table (a failure, a stop) ends its query now
            close = getattr(it, "close", None)
            if close is not None:
                close()
    if pending is not None:
        yield _record(pending[0], pending[1], SnapshotRecord.LAST, source, shared, context,
                      partition, last=True)  # fmt: skip


class _Shared:
    """What a snapshot's records have in common, made once: the offset of every record but
    the last, the context headers, and the ``source`` block's values per table and marker
    (and per time, transaction and LSNs, which do not change during a snapshot). Each record gets its own copy
    of each, so that no SMT or sink changing one changes another."""

    __slots__ = ("_blocking", "_offset", "_position", "_sources", "headers")

    def __init__(
        self,
        position: SnapshotPosition,
        context: RecordContext,
        stream_offset: Mapping[str, Any] | None = None,
    ) -> None:
        self._position = position
        self._blocking = stream_offset
        self._offset = (
            snapshot_offset(position.lsn, position.tx_id, position.started_us)
            if stream_offset is None
            else self._blocking_offset(last=False)
        )
        self.headers = context_headers(context)
        self._sources: dict[tuple[object, ...], list[object]] = {}

    def source(self, source: SourceInfo) -> Struct:
        key = (source.snapshot, source.schema_name, source.table_name, source.timestamp_ns,
               source.tx_id, source.lsn, source.last_commit_lsn, source.xmin, source.origin,
               source.origin_lsn)  # fmt: skip
        values = self._sources.get(key)
        if values is None:
            values = self._sources[key] = source.values()
        return Struct.trusted(SOURCE_SCHEMA, values.copy())

    def _blocking_offset(self, *, last: bool) -> dict[str, object]:
        assert self._blocking is not None
        return in_hash_map_order({
            **self._blocking, "ts_usec": self._position.started_us, "snapshot": "BLOCKING",
            "last_snapshot_record": last, "snapshot_completed": last,
        })  # fmt: skip

    def offset(self, *, last: bool) -> dict[str, object]:
        if not last:
            return dict(self._offset)
        if self._blocking is not None:
            return self._blocking_offset(last=True)
        p = self._position
        return snapshot_offset(p.lsn, p.tx_id, p.started_us, last=True)


def _record(
    table: TableSchema,
    row: Row,
    marker: SnapshotRecord,
    source: SourceInfo,
    shared: _Shared,
    context: RecordContext,
    partition: dict[str, str],
    *,
    last: bool,
) -> SourceRecord:
    source.snapshot = marker
    source.schema_name = table.table.id.schema
    source.table_name = table.table.id.table
    values = table.row(row)
    value = envelope.read(
        table.envelope_schema, table.value(values), shared.source(source), context.clock_ns()
    )
    return SourceRecord(
        partition,
        shared.offset(last=last),
        table.topic,
        None,
        table.key_schema,
        table.key(values),
        table.envelope_schema,
        value,
        headers=None if shared.headers is None else shared.headers.duplicate(),
    )
