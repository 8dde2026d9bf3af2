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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from kconnect.api import Headers, SourceRecord
from kconnect.connectors.debezium.common import envelope
from kconnect.connectors.debezium.postgres.offsets import snapshot_offset, source_partition
from kconnect.connectors.debezium.postgres.snapshot_reader import SnapshotPosition
from kconnect.connectors.debezium.postgres.source_info import (
    CONNECTOR,
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
) -> Iterator[SourceRecord]:
    """The snapshot's records: ``rows(table)`` gives each table's rows (full rows, every column
    in table order, as text); ``source`` is updated as the tables go by. ``tables`` are built
    with :func:`snapshot_value_options`."""
    partition = source_partition(context.prefix)
    source.timestamp_ns = position.started_us * 1000
    source.tx_id = position.tx_id
    source.lsn = position.lsn
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
                    yield _record(*pending, source, position, context, partition, last=False)
                pending = (table, row, marker)
                row, first = following, False
        finally:  # a reader left mid-table (a failure, a stop) ends its query now
            close = getattr(it, "close", None)
            if close is not None:
                close()
    if pending is not None:
        yield _record(pending[0], pending[1], SnapshotRecord.LAST, source, position, context,
                      partition, last=True)  # fmt: skip


def _record(
    table: TableSchema,
    row: Row,
    marker: SnapshotRecord,
    source: SourceInfo,
    position: SnapshotPosition,
    context: RecordContext,
    partition: dict[str, str],
    *,
    last: bool,
) -> SourceRecord:
    source.snapshot = marker
    source.schema_name = table.table.id.schema
    source.table_name = table.table.id.table
    value = envelope.read(
        table.envelope_schema, table.value(row), source.struct(), context.clock_ns()
    )
    offset = snapshot_offset(position.lsn, position.tx_id, position.started_us, last=last)
    return SourceRecord(
        partition,
        offset,
        table.topic,
        None,
        table.key_schema,
        table.key(row),
        table.envelope_schema,
        value,
        headers=context_headers(context),
    )
