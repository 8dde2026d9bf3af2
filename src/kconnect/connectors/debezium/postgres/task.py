"""``PostgresConnectorTask``: the native Debezium PostgreSQL source task.

**Start** (:meth:`start`): the settings are parsed; a general connection checks ``wal_level``,
lists the captured tables and sets up the publication; the stored offset is read; the snapshot
decision is made from ``snapshot.mode`` and that offset (``initial``: no offset, or one of an
unfinished snapshot; ``always``; ``when_needed``: also when the slot is gone; ``no_data`` and
``initial_only``); the replication slot is found or created (exporting its snapshot when one is
taken now).

**Poll** (:meth:`poll`, the task thread): first the snapshot's records, ``max.batch.size`` at a
time, from one snapshot transaction (the slot's exported snapshot when the slot was made for it);
then the stream from the slot (``initial_only``: nothing after the snapshot). A stream that
resumes from an offset skips what was already delivered: whole transactions committed at or
before the offset's ``lsn_commit``, and, of the transaction the offset is in (its ``txId``), the
changes up to its ``lsn_proc``. Heartbeats (``heartbeat.interval.ms``) carry the stream's
position; ``heartbeat.action.query`` runs with each.

**Incremental snapshots** (``signal.data.collection``): every batch read from the stream goes
through :class:`~kconnect.connectors.debezium.postgres.incremental_snapshot.IncrementalSnapshot`
(signals followed, chunks read between watermarks, their ``op=r`` records added, the snapshot's
state put in each offset); a snapshot the stored offset says is in progress reads its next
chunk when streaming starts. A blocking snapshot signal stops the batch after its record; the
next polls return the snapshot of the signalled tables, then the stream goes on.

**A lost connection** while streaming (the server restarted or failed over, the walsender was
terminated, the network broke): the connections are closed and opened again after
``retriable.restart.connector.wait.ms``, as often as ``errors.max.retries`` allows (-1: no
limit), and the stream goes on after the last record poll returned, skipping what was already
delivered as a resumed stream does -- the task stays RUNNING and nothing is lost or repeated.
A lost snapshot fails the task (the worker's automatic restart takes the snapshot again).

**Commit**: ``commit_record`` remembers the last delivered record's offset; ``commit`` marks it
committed; the next poll confirms its LSN to the slot (``lsn_commit``, else ``lsn_proc``;
snapshot offsets never), so PostgreSQL keeps the WAL until the worker committed the records.
When the server asks for a reply (it is shutting down and waits until its client confirmed
everything sent), between transactions and with every record poll returned committed, the whole
stream received so far is confirmed, so the server is not kept waiting; otherwise the slot never
moves past the committed offset (Debezium's jar, taking the connector over, checks that its
offset's WAL is still there). An idle connector's WAL goes with heartbeats, as with Debezium.

**Stop** (:meth:`stop`, another thread): signals; the poll in progress returns within
``poll.interval.ms`` and the task thread closes the connections (dropping the slot with
``slot.drop.on.stop``).
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kconnect.api import ConnectException, RecordMetadata, SourceRecord, SourceTask
from kconnect.connectors.debezium.common.heartbeat import Heartbeat
from kconnect.connectors.debezium.common.incremental_snapshot_state import (
    IncrementalSnapshotState,
)
from kconnect.connectors.debezium.common.metrics import DebeziumMetrics, context_metrics
from kconnect.connectors.debezium.common.transaction_metadata import (
    TRANSACTION_VALUE_SCHEMA,
    transaction_topic,
)
from kconnect.connectors.debezium.postgres.catalog import captured_tables, read_table
from kconnect.connectors.debezium.postgres.change_events import ChangeEvents
from kconnect.connectors.debezium.postgres.config import PostgresConnectorConfig
from kconnect.connectors.debezium.postgres.incremental_snapshot import IncrementalSnapshot
from kconnect.connectors.debezium.postgres.offsets import (
    PostgresOffset,
    load_offset,
    source_partition,
)
from kconnect.connectors.debezium.postgres.publication import (
    TableId,
    check_wal_level,
    ensure_publication,
    find_slot,
)
from kconnect.connectors.debezium.postgres.replication.connection import (
    ReplicationConnection,
    ReplicationStreamEnded,
    publications_option,
)
from kconnect.connectors.debezium.postgres.replication.pgoutput import (
    Begin,
    Commit,
    PgOutputMessage,
    Relation,
    change_relation_id,
    decode,
)
from kconnect.connectors.debezium.postgres.replication.protocol import pg_time_to_epoch_us
from kconnect.connectors.debezium.postgres.snapshot import (
    RecordContext,
    snapshot_records,
    snapshot_value_options,
)
from kconnect.connectors.debezium.postgres.snapshot_reader import (
    SnapshotPosition,
    begin_snapshot,
    read_rows,
    snapshot_position,
)
from kconnect.connectors.debezium.postgres.source_info import DEBEZIUM_VERSION, SourceInfo
from kconnect.connectors.debezium.postgres.table_schema import TableSchema, build_table_schema

__all__ = ["PostgresConnectorTask"]

log = logging.getLogger(__name__)


class PostgresConnectorTask(SourceTask):
    """See the module for the lifecycle."""

    # Debezium's task class name in the task configs kconnect writes, so that a Kafka Connect
    # worker taking the connector over (with the jar) can start its tasks from them
    __kconnect_class_name__ = "io.debezium.connector.postgresql.PostgresConnectorTask"

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._config: PostgresConnectorConfig | None = None
        self._general: Any = None
        self._snapshot_conn: Any = None
        self._repl: ReplicationConnection | None = None
        self._snapshot: Iterator[SourceRecord] | None = None
        self._changes: ChangeEvents | None = None
        self._heartbeat: Heartbeat | None = None
        self._stream_from = 0
        self._streaming = False
        self._resume: PostgresOffset | None = None
        self._skipping_tx = False
        self._in_offset_tx = False
        self._io = threading.Lock()  # poll's use of the connections; stop() closes them under it
        self._delivered: int | None = None  # flush LSN of the last delivered record
        self._committed: int | None = None  # ... once the worker committed its offset
        self._flushed: int | None = None
        self._tables: list[TableId] = []
        self._context: RecordContext | None = None
        self._source: SourceInfo | None = None
        self._metrics: DebeziumMetrics | None = None
        # the offset of the last record poll returned from the stream: where a stream
        # reconnected after a lost connection goes on from
        self._last_returned: dict[str, Any] | None = None
        self._retries = 0  # connection losses since the last batch streamed
        # records poll returned / the worker acknowledged / ... once it committed their offsets
        self._returned = self._acked = self._committed_count = 0
        self._at_boundary = True  # the last message read ended a transaction (or none yet)
        self._reconnect_at = 0.0
        self._incremental: IncrementalSnapshot | None = None  # with signal.data.collection
        self._incremental_started = False
        self._incremental_stored: dict[str, Any] | None = None  # the offset it started from
        # a blocking snapshot asked for by a signal: (tables, SELECT overrides, its offset)
        self._blocking: tuple[list[str], dict[str, str], dict[str, Any]] | None = None

    def version(self) -> str:
        return DEBEZIUM_VERSION

    # -- start ----------------------------------------------------------------------------------

    def start(self, props: Mapping[str, str]) -> None:
        import psycopg

        config = self._config = PostgresConnectorConfig(props)
        try:
            self._general = self._connect_general()
        except psycopg.Error as e:
            raise ConnectException(f"Couldn't connect to PostgreSQL at {config.hostname}:"
                                   f"{config.port}/{config.dbname}: {e}") from e  # fmt: skip
        check_wal_level(self._general)
        self._tables = captured_tables(self._general, config.table_filter)
        ensure_publication(self._general, config.publication_name, config.publication_mode,
                           self._tables)  # fmt: skip
        partition = source_partition(config.topic_prefix)
        stored = self.context.offset_storage_reader().offset(partition)
        offset = load_offset(stored) if stored else None
        slot = find_slot(self._general, config.slot_name, config.dbname)
        snapshot = self._wants_snapshot(config.snapshot_mode, offset, slot is not None)
        metrics = self._metrics = DebeziumMetrics(
            context_metrics(self.context), "postgres", config.topic_prefix,
            queue_capacity=config.max_queue_size,
        )  # fmt: skip
        if not snapshot:
            metrics.snapshot_not_taken()
        self._context = RecordContext(config.topic_prefix, "0", str(uuid.uuid4()),
                                      config.extended_headers, time.time_ns)  # fmt: skip
        self._source = SourceInfo(config.topic_prefix, config.dbname)
        self._heartbeat = Heartbeat(config.heartbeat_topic, config.topic_prefix,
                                    config.heartbeat_interval_s)  # fmt: skip
        repl = self._repl = self._connect_replication()
        exported: str | None = None
        slot_point: int | None = None
        if slot is None and config.snapshot_mode != "initial_only":
            created = repl.create_slot(config.slot_name, export_snapshot=snapshot)
            exported, slot_point = created.snapshot_name, created.consistent_point
            self._stream_from = created.consistent_point
        elif slot is not None:
            self._stream_from = slot.confirmed_flush_lsn or 0
        if offset is not None and not (snapshot or offset.snapshot_running):
            self._resume = offset
            self._stream_from = max(self._stream_from, offset.start_lsn or 0)
        if snapshot:
            self._snapshot = self._snapshot_records(exported, slot_point)
        if config.signal_table is not None:
            self._incremental_stored = dict(stored) if stored and not snapshot else None
            self._incremental = self._incremental_snapshot(self._incremental_stored)
        log.info("Debezium PostgreSQL (native) %s: %d tables, snapshot %s, streaming from %s",
                 config.topic_prefix, len(self._tables), "yes" if snapshot else "no",
                 self._stream_from)  # fmt: skip

    def _settings(self, application_name: str) -> dict[str, Any]:
        config = self._config
        assert config is not None
        password = config.password.value() if config.password else None
        return {"password": password, "application_name": application_name}

    def _connect_general(self) -> Any:
        import psycopg

        config = self._config
        assert config is not None
        return psycopg.connect(config.conninfo(), autocommit=True,
                               **self._settings("Debezium General"))  # fmt: skip

    def _connect_replication(self) -> ReplicationConnection:
        config = self._config
        assert config is not None
        return ReplicationConnection.connect(
            config.conninfo(),
            settings=self._settings("Debezium Streaming"),
            status_interval_s=config.status_interval_s,
        )

    @staticmethod
    def _wants_snapshot(mode: str, offset: PostgresOffset | None, slot_exists: bool) -> bool:
        if mode in ("always",):
            return True
        if mode == "no_data":
            return False
        if offset is None or offset.snapshot_running:
            return mode in ("initial", "initial_only", "when_needed")
        return mode == "when_needed" and not slot_exists

    # -- the snapshot ---------------------------------------------------------------------------

    def _snapshot_records(
        self, exported: str | None, slot_point: int | None
    ) -> Iterator[SourceRecord]:
        import psycopg

        config = self._config
        assert config is not None and self._context is not None and self._source is not None
        conn = self._snapshot_conn = psycopg.connect(
            config.conninfo(),
            password=config.password.value() if config.password else None,
            application_name="Debezium General",
        )
        begin_snapshot(conn, exported, config.snapshot_isolation)
        position = snapshot_position(conn, slot_point)
        options = snapshot_value_options(config.value_options)
        schemas = [self._schema(read_table(conn, t), options) for t in self._tables]
        metrics = self._metrics
        assert metrics is not None
        metrics.snapshot_started(str(t) for t in self._tables)

        def rows(ts: TableSchema) -> Iterator[Any]:
            name, reader = str(ts.table.id), read_rows(conn, ts.table)
            try:
                for row in reader:
                    metrics.rows_scanned(name, 1)
                    yield row
            finally:  # closed mid-table (a stop, a failure): its COPY ends now
                reader.close()
            metrics.table_done()

        yield from snapshot_records(schemas, rows, self._source, position, self._context)
        metrics.snapshot_ended(completed=True)
        conn.rollback()
        conn.close()
        self._snapshot_conn = None
        if not self._stream_from:
            self._stream_from = position.lsn

    def _incremental_snapshot(self, stored: Mapping[str, Any] | None) -> IncrementalSnapshot:
        """The incremental snapshots' runner, with the state the stored offset kept."""
        import psycopg

        config = self._config
        assert config is not None and config.signal_table is not None
        assert self._context is not None and self._source is not None
        options = snapshot_value_options(config.value_options)

        def connect() -> Any:
            return psycopg.connect(config.conninfo(), autocommit=False,
                                   **self._settings("Debezium General"))  # fmt: skip

        def schema_of(conn: Any, table_id: TableId) -> TableSchema | None:
            try:
                return self._schema(read_table(conn, table_id), options)
            except LookupError:
                return None

        return IncrementalSnapshot(
            config.signal_table, config.incremental_chunk_size,
            connect=connect, schema_of=schema_of, captured=lambda: self._tables,
            context=self._context, source=self._source, metrics=self._metrics,
            state=IncrementalSnapshotState.restore(stored) if stored else None,
            skip_creates="c" in config.skipped_operations,
            blocking=self._request_blocking,
        )  # fmt: skip

    def _request_blocking(self, tables: list[str], selects: dict[str, str]) -> None:
        """A blocking snapshot was signalled: the stream stops after the signal's record (its
        batch is returned), the tables are snapshotted, then the stream goes on."""
        offset = self._changes.current_offset() if self._changes is not None else None
        self._blocking = (tables, selects, dict(offset or {}))

    def _blocking_snapshot(
        self, tables: list[str], selects: dict[str, str], stream_offset: dict[str, Any]
    ) -> Iterator[SourceRecord]:
        """A blocking snapshot (``execute-snapshot`` with ``type: blocking``) of the captured
        ``tables``, each read by its SELECT override when the signal gave one, on a new
        snapshot transaction; its records carry the signal's position (``snapshot: BLOCKING``).
        Changes made meanwhile are streamed after it, as with Debezium."""
        import psycopg

        config = self._config
        assert config is not None and self._context is not None
        ids = [t for t in self._tables if str(t) in tables]
        ids.sort(key=lambda t: tables.index(str(t)))
        log.info("Debezium PostgreSQL (native) %s: blocking snapshot of %s",
                 config.topic_prefix, [str(t) for t in ids])  # fmt: skip
        conn = self._snapshot_conn = psycopg.connect(
            config.conninfo(),
            password=config.password.value() if config.password else None,
            application_name="Debezium General",
        )
        begin_snapshot(conn, None, config.snapshot_isolation)
        # the signal's position; no transaction id is taken (its abort would write WAL)
        lsn, tx_id = stream_offset.get("lsn"), stream_offset.get("txId")
        position = SnapshotPosition(lsn if isinstance(lsn, int) else self._stream_from,
                                    tx_id if isinstance(tx_id, int) else 0,
                                    time.time_ns() // 1000)  # fmt: skip
        source = SourceInfo(config.topic_prefix, config.dbname)
        commit = stream_offset.get("lsn_commit")
        source.last_commit_lsn = commit if isinstance(commit, int) else None
        options = snapshot_value_options(config.value_options)
        schemas = [self._schema(read_table(conn, t), options) for t in ids]
        metrics = self._metrics
        assert metrics is not None
        metrics.snapshot_started(str(t) for t in ids)

        def rows(ts: TableSchema) -> Iterator[Any]:
            name = str(ts.table.id)
            select = next((q for p, q in selects.items()
                           if re.fullmatch(p, name, re.IGNORECASE)), None)  # fmt: skip
            tail = "" if select is None else f"FROM ({select}) AS blocking_select"
            reader = read_rows(conn, ts.table, from_clause=tail or None)
            try:
                for row in reader:
                    metrics.rows_scanned(name, 1)
                    yield row
            finally:
                reader.close()
            metrics.table_done()

        try:
            yield from snapshot_records(schemas, rows, source, position, self._context,
                                        stream_offset=stream_offset)  # fmt: skip
            metrics.snapshot_ended(completed=True)
        finally:
            conn.rollback()
            conn.close()
            self._snapshot_conn = None

    def _schema(self, table: Any, options: Any) -> TableSchema:
        config = self._config
        assert config is not None
        return build_table_schema(table, config.topic_prefix, options,
                                  keep_column=config.keep_column,
                                  key_columns=config.key_columns_of(str(table.id)),
                                  mappers=config.column_mappers)  # fmt: skip

    # -- poll -----------------------------------------------------------------------------------

    def poll(self) -> Sequence[SourceRecord] | None:
        with self._io:
            if self._stopping.is_set():
                return None
            return self._poll()

    def _poll(self) -> Sequence[SourceRecord] | None:
        config = self._config
        assert config is not None
        if self._blocking is not None and self._snapshot is None:
            tables, selects, offset = self._blocking
            self._blocking = None
            self._snapshot = self._blocking_snapshot(tables, selects, offset)
        if self._snapshot is not None:
            batch = []
            for record in self._snapshot:
                batch.append(record)
                if len(batch) >= config.max_batch_size:
                    break
            else:
                self._snapshot = None
            if batch:
                assert self._metrics is not None
                self._metrics.snapshot.seen("r" for _ in batch)
                self._returned += len(batch)
                return batch
        if config.snapshot_mode == "initial_only":
            self._stopping.wait(config.poll_interval_s)
            return None
        if self._repl is None and not self._reconnect():  # lost, and not back yet
            return None
        try:
            if not self._streaming:
                self._start_streaming()
            streamed = self._stream_batch()
        except _connection_errors() as e:
            self._connection_lost(e)
            return None
        self._retries = 0
        if streamed:
            self._returned += len(streamed)
            if streamed[-1].source_offset:
                self._last_returned = dict(streamed[-1].source_offset)
        return streamed

    # -- a lost connection ------------------------------------------------------------------------

    def _connection_lost(self, error: Exception) -> None:
        """The stream's connection to PostgreSQL broke (a restart, a fail-over, the network):
        close what is left and reconnect after ``retriable.restart.connector.wait.ms``, going
        on after the last record poll returned (``errors.max.retries`` losses in a row fail the
        task)."""
        config = self._config
        assert config is not None
        self._retries += 1
        self._close_connections()
        self._streaming = False
        if self._metrics is not None:
            self._metrics.streaming_connected(False)
        limit = config.errors_max_retries
        if limit == 0 or 0 < limit < self._retries:
            raise ConnectException(
                f"The connection to PostgreSQL at {config.hostname}:{config.port} was lost "
                f"and errors.max.retries={limit} allows no further attempt: {error}"
            ) from error
        if self._last_returned is not None:
            self._resume = load_offset(self._last_returned)
        if self._incremental is not None:  # as a restart: the state of the last record returned
            stored = self._last_returned or self._incremental_stored
            self._incremental.reset(IncrementalSnapshotState.restore(stored or {}))
            self._incremental_started = False
        self._reconnect_at = time.monotonic() + config.retriable_restart_wait_s
        where = self._resume.start_lsn if self._resume is not None else self._stream_from
        reason = " ".join(str(error).split())
        if self._retries == 1:
            log.warning("Debezium PostgreSQL (native) %s: the connection to PostgreSQL was lost "
                        "(%s); reconnecting in %.1f s, then streaming on from LSN %s",
                        config.topic_prefix, reason, config.retriable_restart_wait_s, where)  # fmt: skip
        else:
            log.info("Debezium PostgreSQL (native) %s: PostgreSQL is not reachable yet (%s); "
                     "attempt %d in %.1f s", config.topic_prefix, reason, self._retries,
                     config.retriable_restart_wait_s)  # fmt: skip

    def _reconnect(self) -> bool:
        """One reconnection attempt once it is time (else a wait of up to ``poll.interval.ms``);
        whether the connections are back."""
        import psycopg

        config = self._config
        assert config is not None
        wait = self._reconnect_at - time.monotonic()
        if wait > 0:
            self._stopping.wait(min(wait, config.poll_interval_s))
            return False
        try:
            self._general = self._connect_general()
            slot = find_slot(self._general, config.slot_name, config.dbname)
            if slot is None:
                raise ConnectException(
                    f"The replication slot {config.slot_name!r} is gone after the connection "
                    "to PostgreSQL was lost; the changes since the last committed offset "
                    "cannot be streamed (restart the connector with snapshot.mode=when_needed "
                    "to take a new snapshot)"
                )
            self._repl = self._connect_replication()
        except psycopg.Error as e:
            self._connection_lost(e)
            return False
        resume = self._resume
        self._stream_from = max(slot.confirmed_flush_lsn or 0,
                                resume.start_lsn or 0 if resume else self._stream_from)  # fmt: skip
        self._skipping_tx = self._in_offset_tx = False
        self._at_boundary = False  # until the new stream's first commit
        self._flushed = None
        log.info("Debezium PostgreSQL (native) %s: reconnected to PostgreSQL; streaming from %s",
                 config.topic_prefix, self._stream_from)  # fmt: skip
        return True

    def _start_streaming(self) -> None:
        config, repl = self._config, self._repl
        assert config is not None and repl is not None
        assert self._context is not None and self._source is not None
        lsn_commit = self._resume.lsn_commit if self._resume is not None else None
        resume = self._resume
        resumed_tx = None
        if resume is not None and resume.transaction_id is not None:
            resumed_tx = (resume.transaction_id, resume.data_collection_orders)
        self._changes = ChangeEvents(
            self._context, self._source, self._describe,
            skipped_operations=config.skipped_operations,
            tombstones_on_delete=config.tombstones_on_delete,
            lsn_commit=lsn_commit,
            transaction_topic=transaction_topic(config.topic_prefix, config.transaction_topic)
            if config.provide_transaction_metadata else None,
            resumed_transaction=resumed_tx,
            start_lsn=self._stream_from or None,
            signal_topic=self._incremental.signal_topic if self._incremental else None,
        )  # fmt: skip
        options = {"proto_version": "1",
                   "publication_names": publications_option([config.publication_name])}  # fmt: skip
        repl.start(config.slot_name, self._stream_from, options)
        self._streaming = True
        if self._metrics is not None:
            self._metrics.streaming_connected(True)
        if self._incremental is not None and not self._incremental_started:
            self._incremental_started = True
            self._incremental.start()  # one restored from the offset (or a reconnect) goes on

    def _describe(self, relation: Relation) -> TableSchema | None:
        table_id = TableId(relation.namespace, relation.name)
        if table_id not in self._tables:
            if self._config is None or not self._config.table_filter.accepts(table_id):
                return None
            self._tables.append(table_id)  # a table created since the start
        table = read_table(self._general, table_id).with_columns([c.name for c in relation.columns])
        assert self._config is not None
        return self._schema(table, self._config.value_options)

    def _stream_batch(self) -> list[SourceRecord] | None:
        config, repl, changes = self._config, self._repl, self._changes
        metrics = self._metrics
        assert config is not None and repl is not None and changes is not None
        assert metrics is not None
        if self._committed is not None and self._committed != self._flushed:
            repl.acknowledge(self._committed)
            self._flushed = self._committed
        if repl.reply_requested and self._at_boundary and self._committed_count == self._returned:
            # a server shutting down waits until its client confirmed everything it sent;
            # between transactions with every record poll returned committed nothing read so
            # far is owed, so the stream's end (keepalives included) is confirmed -- only then:
            # the slot must not move past the committed offset's position otherwise, or
            # Debezium's jar, taking the connector over, finds its offset's WAL gone
            repl.reply_requested = False
            repl.acknowledge(repl.received_lsn)
        batch: list[SourceRecord] = []
        while len(batch) < config.max_batch_size and not self._stopping.is_set():
            message = repl.read(config.poll_interval_s if not batch else 0.0)
            if message is None:
                break
            lsn, payload = message.wal_start, message.payload
            relation_id = change_relation_id(payload)
            decoded: PgOutputMessage | None = None
            if relation_id is not None:  # a data change: read by its table, decoded or not
                if self._already_delivered(lsn, None):
                    continue
                records = changes.on_change(lsn, relation_id, payload)
            else:
                decoded = decode(payload)
                if self._already_delivered(lsn, decoded):
                    continue
                records = changes.on_message(lsn, decoded)
            self._at_boundary = isinstance(decoded, Commit)
            if records:
                if self._incremental is not None:  # signals, the window, the offsets' state
                    start = len(batch)
                    self._incremental.process(records, batch)
                    records = batch[start:]
                else:
                    batch.extend(records)
                metrics.streaming.seen(_op(r) for r in records)
                if self._blocking is not None:  # the stream pauses for a blocking snapshot
                    break
            if isinstance(decoded, Commit):
                metrics.streaming_transaction_committed(
                    pg_time_to_epoch_us(decoded.commit_time_us) // 1000
                )
                self._maybe_heartbeat(batch)
        if not batch:
            self._maybe_heartbeat(batch)
        return batch or None

    def _already_delivered(self, lsn: int, message: PgOutputMessage | None) -> bool:
        """Whether a resumed stream already delivered this message (see the module; None: an
        Insert, Update or Delete, not decoded yet)."""
        resume = self._resume
        if resume is None or isinstance(message, Relation):
            return False
        if isinstance(message, Begin):
            commit = resume.lsn_commit
            self._skipping_tx = commit is not None and message.final_lsn <= commit
            self._in_offset_tx = message.xid == resume.tx_id
            return self._skipping_tx
        if self._skipping_tx:
            if isinstance(message, Commit):
                self._skipping_tx = False
            return True
        if isinstance(message, Commit):
            if self._in_offset_tx:
                self._resume = None  # the offset's transaction is over: nothing more to skip
            return False
        return self._in_offset_tx and resume.lsn_proc is not None and lsn <= resume.lsn_proc

    def _maybe_heartbeat(self, batch: list[SourceRecord]) -> None:
        heartbeat, changes, config = self._heartbeat, self._changes, self._config
        if heartbeat is None or changes is None or config is None or not heartbeat.due():
            return
        if config.heartbeat_action_query:
            self._general.execute(config.heartbeat_action_query)
        offset = changes.current_offset()
        if self._incremental is not None:
            self._incremental.stamp(offset)
        record = heartbeat.record(source_partition(config.topic_prefix), offset)
        if record is not None:
            batch.append(record)

    # -- commit ---------------------------------------------------------------------------------

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self._acked += 1
        offset = record.source_offset
        if offset and "snapshot" not in offset:
            lsn = offset.get("lsn_commit", offset.get("lsn_proc"))
            if isinstance(lsn, int):
                self._delivered = lsn

    def commit(self) -> None:
        self._committed_count = self._acked
        self._committed = self._delivered

    # -- stop -----------------------------------------------------------------------------------

    def _close_connections(self, *, keep_general: bool = False) -> None:
        """Close the replication and snapshot connections (and the general one unless
        ``keep_general``), however broken."""
        closing = [self._repl, self._snapshot_conn, None if keep_general else self._general]
        for conn in closing:
            if conn is not None:
                try:
                    conn.close()
                except Exception as e:  # closing a broken connection
                    log.debug("Closing a connection failed: %s", e)
        self._repl = self._snapshot_conn = None
        if self._incremental is not None:
            self._incremental.close()
        if not keep_general:
            self._general = None

    def stop(self) -> None:
        """Signal the poll (it returns within ``poll.interval.ms``), then close the connections
        once it did."""
        self._stopping.set()
        with self._io:
            self._close()

    def _close(self) -> None:
        config, metrics = self._config, self._metrics
        if metrics is not None:
            if metrics.snapshot_running:
                metrics.snapshot_ended(completed=False)
            metrics.streaming_connected(False)
        self._close_connections(keep_general=True)
        if self._general is not None:
            if config is not None and config.slot_drop_on_stop:
                try:
                    self._general.execute(
                        "SELECT pg_drop_replication_slot(%s)", (config.slot_name,)
                    )
                except Exception as e:
                    log.warning("Could not drop replication slot %s: %s", config.slot_name, e)
            self._general.close()
            self._general = None


def _connection_errors() -> tuple[type[Exception], ...]:
    """What a broken connection to PostgreSQL raises while streaming."""
    import psycopg

    return (psycopg.OperationalError, ReplicationStreamEnded)


def _op(record: SourceRecord) -> str | None:
    """A change event's ``op`` (None for a tombstone, a transaction's BEGIN or END)."""
    value = record.value
    if value is None or record.value_schema is TRANSACTION_VALUE_SCHEMA:
        return None
    return value.get("op")  # type: ignore[no-any-return]
