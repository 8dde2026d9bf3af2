"""Signal-based incremental snapshots of Debezium's PostgreSQL connector (``signal.data.collection``,
the ``insert_insert`` watermarks), run by the streaming task between its reads of the stream.

**Signals** come through the stream: every ``op=c`` record of the signal table is read as a
signal (:mod:`~kconnect.connectors.debezium.common.signals`) *before* the record itself is
delivered (it is delivered too, like any captured table's). ``execute-snapshot`` queues the
requested tables (regular expressions over the captured tables); when none was being read, the
first chunk is read at once.

**A chunk** (:meth:`IncrementalSnapshot.read_chunk`) is read on its own connection: the open
watermark ``<chunk id>-open`` is inserted into the signal table and committed; then, in one
transaction, the table's maximum key (at the start of a table), the next ``incremental.snapshot.chunk.size``
rows in key order after the last chunk's end (up to the maximum key; the first chunk of a table
has no bounds) and the close watermark ``<chunk id>-close``. A table is done when a chunk comes
back empty; the next table's first chunk is then read in the same window. Tables without a key,
empty tables and tables that are not captured are skipped with Debezium's warnings.

**The window**: once the open watermark comes through the stream, every streamed change of the
chunk's table whose key is in the chunk removes that row (the stream has a newer version); when
the close watermark comes through, the rows left become ``op=r`` records (``source.snapshot``
``incremental``, the close watermark's position, the wall clock as their time) and the next
chunk is read. Watermarks of another chunk (replayed after a restart) are ignored.

**Offsets**: while tables are queued every record's offset carries the snapshot's state
(:class:`~kconnect.connectors.debezium.common.incremental_snapshot_state.IncrementalSnapshotState`);
a restarted task restores it and reads the next chunk after the last key delivered before the
stream goes on. ``stop-snapshot`` takes effect at the next chunk; ``pause-snapshot`` /
``resume-snapshot`` hold and resume chunk reading (the pause is not kept in offsets, as in
Debezium).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from kconnect.api import SourceRecord, Struct
from kconnect.api.data.java_strings import in_hash_map_order
from kconnect.connectors.debezium.common import envelope
from kconnect.connectors.debezium.common.incremental_snapshot_state import (
    DataCollection,
    IncrementalSnapshotState,
)
from kconnect.connectors.debezium.common.java_serialization import JavaInteger, JavaLong
from kconnect.connectors.debezium.common.metrics import DebeziumMetrics
from kconnect.connectors.debezium.common.signals import (
    EXECUTE_SNAPSHOT,
    KNOWN_TYPES,
    LOG,
    PAUSE_SNAPSHOT,
    RESUME_SNAPSHOT,
    STOP_SNAPSHOT,
    WINDOW_CLOSE,
    WINDOW_OPEN,
    Signal,
    expand_collections,
    parse_data,
    signal_of,
    snapshot_request,
)
from kconnect.connectors.debezium.postgres.publication import TableId, quote_identifier
from kconnect.connectors.debezium.postgres.snapshot import RecordContext, context_headers
from kconnect.connectors.debezium.postgres.snapshot_reader import read_rows
from kconnect.connectors.debezium.postgres.source_info import SnapshotRecord, SourceInfo
from kconnect.connectors.debezium.postgres.table_schema import Row, TableSchema

__all__ = ["IncrementalSnapshot", "key_text", "key_value"]

log = logging.getLogger(__name__)

_INTEGERS = frozenset({"int2", "int4"})
_FLOATS = frozenset({"float4", "float8"})
_SPECIAL_NUMBERS = {"NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity"}


def key_value(text: str | None, type_name: str) -> object:
    """A key column's text as the Java value Debezium's JDBC read gives (``int2``/``int4``
    Integer, ``int8`` Long, ``numeric`` BigDecimal -- NaN and infinities a Double --, ``bool``
    Boolean, ``uuid`` UUID, ``float4``/``float8`` Double, anything else its text)."""
    if text is None:
        return None
    if type_name in _INTEGERS:
        return JavaInteger(int(text))
    if type_name == "int8":
        return JavaLong(int(text))
    if type_name == "numeric":
        if text in _SPECIAL_NUMBERS:
            return float(text.lower().replace("infinity", "inf"))
        try:
            return Decimal(text)
        except InvalidOperation:
            return text
    if type_name in _FLOATS:
        return float(text.lower().replace("infinity", "inf"))
    if type_name == "bool":
        return text in ("t", "true")
    if type_name == "uuid":
        return uuid.UUID(text)
    return text


def key_text(value: object) -> str | None:
    """A key value (:func:`key_value`, or as read back from an offset) as the text of an SQL
    literal PostgreSQL reads as the column's type."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    return str(value)


def _op(record: SourceRecord) -> object:
    value = record.value
    return value.get("op") if isinstance(value, Struct) else None


def _hashable(key: Struct | None) -> object:
    if key is None:
        return None
    return tuple(_frozen(v) for _, v in key.items())


def _frozen(value: object) -> object:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, Struct):
        return _hashable(value)
    return value


def _instant(ns: int) -> str:
    """``java.time.Instant.toString()`` of an epoch-ns time (fraction in groups of 3 digits)."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if nanos:
        fraction = f"{nanos:09d}"
        while fraction.endswith("000"):
            fraction = fraction[:-3]
        text += "." + fraction
    return text + "Z"


@dataclasses.dataclass
class _Window:
    """The rows of the chunk read last, by key, in key order, and their table."""

    table: TableSchema | None = None
    rows: dict[object, tuple[list[object], Row]] = dataclasses.field(default_factory=dict)


class IncrementalSnapshot:
    """One task's incremental snapshots (see the module). Used on the task thread only.

    ``connect()``: a new connection to the database (autocommit off); ``schema_of(conn, id)``:
    the snapshot schemas of a captured table (None when it does not exist or is not
    captured); ``captured()``: the captured tables' ids."""

    def __init__(
        self,
        signal_table: TableId,
        chunk_size: int,
        *,
        connect: Callable[[], Any],
        schema_of: Callable[[Any, TableId], TableSchema | None],
        captured: Callable[[], Sequence[TableId]],
        context: RecordContext,
        source: SourceInfo,
        metrics: DebeziumMetrics | None = None,
        state: IncrementalSnapshotState | None = None,
        skip_creates: bool = False,
        blocking: Callable[[list[str], dict[str, str]], None] | None = None,
    ) -> None:
        self.signal_table = signal_table
        self.signal_topic = f"{context.prefix}.{signal_table}"
        self._chunk_size = chunk_size
        self._connect = connect
        self._schema_of = schema_of
        self._captured = captured
        self._context = context
        self._source = source
        self._metrics = metrics
        self.state = state or IncrementalSnapshotState()
        self._window = _Window()
        self._conn: Any = None
        self._stops: list[list[str]] = []
        self._open_ns = 0
        self._headers = context_headers(context)
        self._skip_creates = skip_creates  # "c" in skipped.operations: signals read, not sent
        # a blocking snapshot's request: the tables and their SELECT overrides, for the task
        self._blocking = blocking

    # -- the stream's records -------------------------------------------------------------------

    def start(self) -> None:
        """Before the stream is read: a snapshot restored from the offset reads its next
        chunk."""
        if not self.state.running:
            log.info("No incremental snapshot in progress, no action needed on start")
            return
        log.info("Incremental snapshot in progress, need to read new chunk on start")
        if self._metrics is not None:
            self._metrics.snapshot_started(c.id for c in self.state.queue)
        self.read_chunk()
        log.info("Incremental snapshot in progress, loading of initial chunk completed")

    def process(self, records: Sequence[SourceRecord], out: list[SourceRecord]) -> None:
        """The stream's ``records`` (in order) into ``out``, with the signals among them
        followed, the window's rows they supersede dropped, the read events a closing window
        emits before the close watermark's record, and every offset carrying the snapshot's
        state."""
        for record in records:
            emitted = 0
            if record.topic == self.signal_topic:
                emitted = self._on_signal_record(record, out)
                if self._skip_creates and _op(record) == "c":
                    continue
            elif self.state.window_open and self._window.rows and record.key is not None:
                table = self._window.table
                if table is not None and record.topic == table.topic:
                    key = _hashable(record.key)
                    if self._window.rows.pop(key, None) is not None:
                        log.info("Removed '%s' from window", record.key)
            self.stamp(record.source_offset)
            if emitted and out:
                # the close watermark's offset keeps the last read event's time (as Debezium's)
                last = out[-1].source_offset
                if isinstance(last, dict) and isinstance(record.source_offset, dict):
                    record.source_offset["ts_usec"] = last.get("ts_usec")
            out.append(record)

    def stamp(self, offset: Any) -> None:
        """Add the snapshot's state to an offset map (in place, Java HashMap key order)."""
        if not self.state.running or not isinstance(offset, dict):
            return
        merged = in_hash_map_order({**offset, **self.state.offset_entries()})
        offset.clear()
        offset.update(merged)

    # -- signals --------------------------------------------------------------------------------

    def _on_signal_record(self, record: SourceRecord, out: list[SourceRecord]) -> int:
        value = record.value
        if not isinstance(value, Struct) or value.get("op") != "c":
            return 0
        signal = signal_of(value)
        if signal is None:
            return 0
        import psycopg

        before = len(out)
        try:
            self._on_signal(signal, record, out)
        except psycopg.OperationalError:
            raise  # the connection is lost: the task reconnects (retry_interrupted_chunk)
        except Exception as e:  # a failed action is logged and dropped, as Debezium does
            log.warning("Action %s failed. The signal %s may not have been processed. (%s)",
                        signal.type, signal, e)  # fmt: skip
        return len(out) - before

    def _on_signal(self, signal: Signal, record: SourceRecord, out: list[SourceRecord]) -> None:
        if signal.type not in KNOWN_TYPES:
            log.warning("Signal '%s' has been received but the type '%s' is not recognized",
                        signal.id, signal.type)  # fmt: skip
            return
        if signal.type == WINDOW_OPEN:
            if not self.state.open_window(signal.id):
                log.info("Received request to open window with id = '%s', expected = '%s', "
                         "request ignored", signal.id, self.state.chunk_id)  # fmt: skip
            return
        if signal.type == WINDOW_CLOSE:
            if not self.state.close_window(signal.id):
                log.info("Received request to close window with id = '%s', expected = '%s', "
                         "request ignored", signal.id, self.state.chunk_id)  # fmt: skip
                return
            self._emit_window(record, out)
            self.read_chunk()
            return
        data = parse_data(signal)
        if data is None:
            return
        if signal.type == EXECUTE_SNAPSHOT:
            self._execute(signal, data)
        elif signal.type == STOP_SNAPSHOT:
            self._stop(signal, data)
        elif signal.type == PAUSE_SNAPSHOT:
            if self.state.running and not self.state.paused:
                log.info("Pausing incremental snapshot")
                self.state.paused = True
                if self._metrics is not None:
                    self._metrics.snapshot_paused(True)
        elif signal.type == RESUME_SNAPSHOT:
            if self.state.running and self.state.paused:
                log.info("Resuming incremental snapshot")
                self.state.paused = False
                if self._metrics is not None:
                    self._metrics.snapshot_paused(False)
                self.read_chunk()
        elif signal.type == LOG:
            message = data.get("message")
            if not message:
                log.warning("Logging signal '%s' has arrived but the requested field '%s' is "
                            "missing from data", signal, "message")  # fmt: skip
            elif "{}" in str(message):  # an SLF4J format: its {} is the offset
                log.info(str(message).replace("%", "%%").replace("{}", "%s", 1),
                         record.source_offset)  # fmt: skip
            else:
                log.info("%s", message)
        else:  # schema-changes: Debezium's relational connectors without a schema history
            log.warning("Signal '%s' of type '%s' is not supported by the PostgreSQL connector",
                        signal.id, signal.type)  # fmt: skip

    def _execute(self, signal: Signal, data: Any) -> None:
        request = snapshot_request(signal, data)
        if request is None:
            return
        log.info("Requested '%s' snapshot of data collections '%s' with additional conditions "
                 "'%s' and surrogate key '%s'", request.type.upper(),
                 list(request.data_collections), list(request.additional_conditions),
                 request.surrogate_key or "PK of table will be used")  # fmt: skip
        names = expand_collections(request.data_collections, self._known())
        if request.type == "blocking":
            if self._blocking is None:
                log.warning("Action %s failed. The signal %s may not have been processed.",
                            signal.type, signal)  # fmt: skip
                return
            # a blocking snapshot's additional conditions are whole SELECT statements
            selects = {pattern: statement for pattern, statement in request.additional_conditions}
            self._blocking([n for n in names if n in self._known()], selects)
            return
        if len(names) != len(request.data_collections):
            log.info("Data-collections to snapshot have been expanded from %s to %s",
                     list(request.data_collections), names)  # fmt: skip
        collections = [
            DataCollection(n, request.condition_for(n), request.surrogate_key) for n in names
        ]
        if self.state.add(collections, signal.id):
            if self._metrics is not None:
                self._metrics.snapshot_started(names)
            self.read_chunk()

    def _stop(self, signal: Signal, data: Any) -> None:
        request = snapshot_request(signal, data)
        if request is None or request.type != "incremental":
            return
        log.info("Requested stop of snapshot '%s' for data collections '%s'",
                 request.type.upper(), list(request.data_collections))  # fmt: skip
        if self.state.running:
            self._stops.append(list(request.data_collections))

    def _known(self) -> list[str]:
        known = [str(t) for t in self._captured()]
        if str(self.signal_table) not in known:
            known.append(str(self.signal_table))
        return known

    def _apply_stops(self) -> None:
        while self._stops:
            patterns = self._stops.pop(0)
            if not self.state.running:
                log.warning("No active incremental snapshot, stop ignored")
                continue
            names = expand_collections(patterns, self._known())
            log.info("Removing '%s' collections from incremental snapshot", names)
            removed, hits_current = self.state.remove(names)
            for name in removed:
                log.info("Removed '%s' from incremental snapshot collection list.", name)
            for name in names:
                current = self.state.current
                if name not in removed and (current is None or name != current.id):
                    log.warning("Could not remove '%s', collection is not part of the "
                                "incremental snapshot.", name)  # fmt: skip
            if hits_current:
                current = self.state.current
                assert current is not None
                log.info("Removed current collection '%s' from incremental snapshot", current.id)
                removed.append(current.id)
                self._next_collection()
            log.info("Removed collections from incremental snapshot: '%s'", ",".join(removed))

    # -- chunks ---------------------------------------------------------------------------------

    def read_chunk(self) -> None:
        """Read the next chunk between an open and a close watermark (see the module)."""
        import psycopg

        self._apply_stops()
        state = self.state
        if not state.running:
            log.info("Skipping read chunk because snapshot is not running")
            self._window = _Window()
            return
        if state.paused:
            log.info("Incremental snapshot was paused.")
            return
        conn = self._connection()
        conn.rollback()
        while state.running and not state.paused:
            chunk_id = state.start_chunk()
            self._window = _Window()
            self._open_ns = time.time_ns()
            current = state.current
            try:
                self._insert_watermark(conn, f"{chunk_id}-open", WINDOW_OPEN,
                                       {"openWindowTimestamp": _instant(self._open_ns)})  # fmt: skip
                conn.commit()
                self._fill_window(conn)
                closing = {"openWindowTimestamp": _instant(self._open_ns),
                           "closeWindowTimestamp": _instant(time.time_ns())}  # fmt: skip
                self._insert_watermark(conn, f"{chunk_id}-close", WINDOW_CLOSE, closing)
                conn.commit()
                return
            except psycopg.OperationalError:
                raise  # the connection is lost: the task reconnects and restores from offsets
            except psycopg.Error as e:  # a watermark could not be written (permissions...)
                log.warning("SQL error while executing incremental snapshot for table '%s', "
                            "skipping and continuing streaming: %s",
                            current.id if current else None, " ".join(str(e).split()))  # fmt: skip
                conn.rollback()
                state.chunk_id, self._window = None, _Window()
                if current is not None and state.current is current:
                    self._next_collection()

    def reset(self, state: IncrementalSnapshotState) -> None:
        """Start again from ``state`` (what the offset of the last record delivered says), as a
        restarted task would: after a lost connection, the stream is read again from there."""
        self.state = state
        self._window = _Window()
        self._stops.clear()
        self.close()

    def _fill_window(self, conn: Any) -> None:
        import psycopg

        state = self.state
        while state.running:
            current = state.current
            assert current is not None
            try:
                if self._read_table_chunk(conn, current):
                    return
            except psycopg.OperationalError:
                raise
            except psycopg.Error as e:  # the table's SQL failed (an additional condition...)
                log.error("Snapshotting of table %s failed. Skipping it: %s", current.id,
                          " ".join(str(e).split()))  # fmt: skip
                conn.rollback()
                self._next_collection()

    def _read_table_chunk(self, conn: Any, current: DataCollection) -> bool:
        """Read the current table's next chunk into the window: True when it has rows; False
        when the table is done or skipped (the queue moved on)."""
        state = self.state
        table = self._table(conn, current)
        if table is None:
            self._next_collection()
            return False
        key_columns = self._key_columns(table, current)
        if key_columns is None:
            self._next_collection()
            return False
        if state.maximum_key is None:
            maximum = self._maximum_key(conn, table, key_columns, current)
            if maximum is None:
                log.info("No maximum key returned by the query, incremental snapshotting "
                         "of table '%s' finished as it is empty", current.id)  # fmt: skip
                self._next_collection(done=True)
                return False
            state.maximum_key = maximum
            log.info("Incremental snapshot for table '%s' will end at position %s",
                     current.id, maximum)  # fmt: skip
        rows = self._chunk(conn, table, key_columns, current)
        if not rows:
            log.info("No data returned by the query, incremental snapshotting of table "
                     "'%s' finished", current.id)  # fmt: skip
            self._next_collection(done=True)
            return False
        self._window.table = table
        indexes = [self._index(table, c) for c in key_columns]
        types = [self._type(table, c) for c in key_columns]
        position: list[object] = []
        for row in rows:
            position = [key_value(row[i], t) for i, t in zip(indexes, types, strict=True)]
            values = table.row(row)
            self._window.rows[_hashable(table.key(values))] = (position, values)
        state.chunk_end = position
        if self._metrics is not None:
            self._metrics.rows_scanned(current.id, len(rows))
        return True

    def _next_collection(self, *, done: bool = False) -> None:
        if done and self._metrics is not None:
            self._metrics.table_done()
        if self.state.next_collection() is None and self._metrics is not None:
            self._metrics.snapshot_ended(completed=True)

    def _table(self, conn: Any, collection: DataCollection) -> TableSchema | None:
        parts = collection.id.split(".")
        table_id = TableId(parts[0], parts[1]) if len(parts) == 2 else None
        schema = None
        if table_id is not None and (table_id in self._captured() or table_id == self.signal_table):
            schema = self._schema_of(conn, table_id)
        if schema is None:
            log.warning("Schema retrieval failed to populate the schema as expected for %s; "
                        "it is not a captured table of this connector: skipped", collection.id)  # fmt: skip
        return schema

    def _key_columns(self, table: TableSchema, collection: DataCollection) -> list[str] | None:
        if collection.surrogate_key is not None:
            if table.table.column(collection.surrogate_key) is None:
                log.warning("Surrogate key \"%s\" doesn't exist in table \"%s\"; skipping it",
                            collection.surrogate_key, collection.id)  # fmt: skip
                return None
            return [collection.surrogate_key]
        columns = [m.column.name for _, m in table.key_fields]
        if not columns:
            log.warning("Incremental snapshot for table '%s' skipped because the table has no "
                        "primary keys", collection.id)  # fmt: skip
            return None
        return columns

    @staticmethod
    def _index(table: TableSchema, column: str) -> int:
        return next(i for i, c in enumerate(table.table.columns) if c.name == column)

    @staticmethod
    def _type(table: TableSchema, column: str) -> str:
        c = table.table.column(column)
        assert c is not None
        return c.base_type_name

    def _maximum_key(
        self, conn: Any, table: TableSchema, key_columns: list[str], collection: DataCollection
    ) -> list[object] | None:
        # aliased: an output column named as a key column would be what ORDER BY sorts by
        select = ", ".join(
            f"{quote_identifier(c)}::text AS k{i}" for i, c in enumerate(key_columns)
        )
        where = (
            f" WHERE {collection.additional_condition}" if collection.additional_condition else ""
        )
        order = ", ".join(f"{quote_identifier(c)} DESC" for c in key_columns)
        row = conn.execute(
            f"SELECT {select} FROM {table.table.id.quoted()}{where} ORDER BY {order} LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        return [key_value(t, self._type(table, c)) for t, c in zip(row, key_columns, strict=True)]

    def _chunk(
        self, conn: Any, table: TableSchema, key_columns: list[str], collection: DataCollection
    ) -> list[tuple[str | None, ...]]:
        conditions = []
        state = self.state
        if state.chunk_end is not None and state.maximum_key is not None:
            columns = ", ".join(quote_identifier(c) for c in key_columns)
            after = ", ".join(self._literal(conn, v) for v in state.chunk_end)
            upto = ", ".join(self._literal(conn, v) for v in state.maximum_key)
            if len(key_columns) == 1:
                conditions.append(f"{columns} > {after} AND {columns} <= {upto}")
            else:
                conditions.append(
                    f"ROW({columns}) > ROW({after}) AND ROW({columns}) <= ROW({upto})"
                )
        if collection.additional_condition:
            conditions.append(collection.additional_condition)
        where = f"WHERE {' AND '.join(conditions)} " if conditions else ""
        order = ", ".join(quote_identifier(c) for c in key_columns)
        tail = f"{where}ORDER BY {order} LIMIT {self._chunk_size}"
        return list(read_rows(conn, table.table, tail=tail))

    @staticmethod
    def _literal(conn: Any, value: object) -> str:
        from psycopg import sql

        text = key_text(value)
        return "NULL" if text is None else sql.Literal(text).as_string(conn)

    def _insert_watermark(self, conn: Any, signal_id: str, kind: str, data: dict[str, str]) -> None:
        text = json.dumps(data, separators=(", ", ": "))
        conn.execute(f"INSERT INTO {self.signal_table.quoted()} VALUES (%s, %s, %s)",
                     (signal_id, kind, text))  # fmt: skip

    def _connection(self) -> Any:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            conn = self._conn = self._connect()
        return conn

    # -- the window's read events ---------------------------------------------------------------

    def _emit_window(self, close: SourceRecord, out: list[SourceRecord]) -> None:
        table, rows = self._window.table, self._window.rows
        self._window = _Window()
        if table is None or not rows:
            return
        base = dict(close.source_offset or {})
        source = self._source
        saved = (source.snapshot, source.schema_name, source.table_name, source.timestamp_ns,
                 source.lsn, source.last_commit_lsn)  # fmt: skip
        source.snapshot = SnapshotRecord.INCREMENTAL
        source.schema_name, source.table_name = table.table.id.schema, table.table.id.table
        source.lsn = base.get("lsn")
        source.last_commit_lsn = base.get("lsn_commit")
        partition = dict(close.source_partition or {})
        try:
            for position, values in rows.values():
                self.state.last_sent = position
                now = self._context.clock_ns()
                source.timestamp_ns = now
                value = envelope.read(table.envelope_schema, table.value(values), source.struct(),
                                      now)  # fmt: skip
                offset = {**base, "ts_usec": now // 1000, "snapshot": "INCREMENTAL",
                          "last_snapshot_record": False, "snapshot_completed": False}  # fmt: skip
                offset.update(self.state.offset_entries())
                out.append(SourceRecord(
                    partition, in_hash_map_order(offset), table.topic, None, table.key_schema,
                    table.key(values), table.envelope_schema, value,
                    headers=None if self._headers is None else self._headers.duplicate(),
                ))  # fmt: skip
        finally:
            (source.snapshot, source.schema_name, source.table_name, source.timestamp_ns,
             source.lsn, source.last_commit_lsn) = saved  # fmt: skip

    # -- stop -----------------------------------------------------------------------------------

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception as e:  # closing a broken connection
                log.debug("Closing the incremental snapshot's connection failed: %s", e)
