"""Streamed pgoutput messages turned into Debezium's change records, in order.

Per transaction: ``Begin`` sets the transaction's id and commit time (the ``source`` block's
``txId`` and ``ts_*``); each ``Insert`` / ``Update`` / ``Delete`` of a captured table becomes an
``op`` ``c`` / ``u`` / ``d`` envelope (a delete followed by a tombstone when
``tombstones.on.delete``; an update that changes the key becomes a delete of the old key, its
tombstone and a create of the new key, with ``__debezium.newkey`` / ``__debezium.oldkey``
headers); a ``Truncate`` one ``op=t`` record per captured table, without a key, when ``t`` is
not among ``skipped.operations``; ``Commit`` becomes the ``lsn_commit`` of what follows.
``Relation`` messages (re)describe a table through the caller's ``describe``.

Each record's offset is Debezium's streaming offset: ``lsn`` = ``lsn_proc`` = the message's LSN,
``lsn_commit`` the last commit before it, ``txId``, ``ts_usec`` the commit time, ``messageType``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import Headers, SourceRecord, Struct
from kconnect.connectors.debezium.common import envelope
from kconnect.connectors.debezium.common.transaction_metadata import (
    TRANSACTION_KEY_SCHEMA,
    TRANSACTION_VALUE_SCHEMA,
    TransactionContext,
)
from kconnect.connectors.debezium.postgres.column_mapping import UNCHANGED_TOAST, ColumnText
from kconnect.connectors.debezium.postgres.offsets import source_partition, streaming_offset
from kconnect.connectors.debezium.postgres.replication.pgoutput import (
    Begin,
    ColumnKind,
    Commit,
    Delete,
    Insert,
    OldTupleKind,
    Origin,
    PgOutputMessage,
    Relation,
    Truncate,
    TupleData,
    Update,
    decode,
)
from kconnect.connectors.debezium.postgres.replication.protocol import pg_time_to_epoch_us
from kconnect.connectors.debezium.postgres.snapshot import RecordContext, context_headers
from kconnect.connectors.debezium.postgres.source_info import SnapshotRecord, SourceInfo
from kconnect.connectors.debezium.postgres.table_schema import Row, TableSchema

__all__ = ["ChangeEvents", "row_of"]

_INSERT, _UPDATE, _DELETE = b"I"[0], b"U"[0], b"D"[0]
_CHANGE_TYPES = {_INSERT: "INSERT", _UPDATE: "UPDATE", _DELETE: "DELETE"}
_CHANGE_OPS = {_INSERT: "c", _UPDATE: "u", _DELETE: "d"}

_MESSAGE_TYPES: dict[type, str] = {
    Begin: "BEGIN", Commit: "COMMIT", Insert: "INSERT", Update: "UPDATE", Delete: "DELETE",
    Truncate: "TRUNCATE", Relation: "RELATION", Origin: "ORIGIN",
}  # fmt: skip


def row_of(data: TupleData) -> list[ColumnText]:
    """A pgoutput tuple as a row of column texts."""
    return [
        c.text if c.kind is ColumnKind.TEXT
        else None if c.kind is ColumnKind.NULL
        else UNCHANGED_TOAST
        for c in data
    ]  # fmt: skip


class ChangeEvents:
    """The records of one replication stream's messages (see the module).

    ``describe(relation)``: the schemas of a captured table as the Relation message shows it,
    its columns in the message's order; None for a table that is not captured.
    ``lsn_commit``: the last commit LSN known when the stream starts (from the offset).
    ``transaction_topic``: with ``provide.transaction.metadata``, where BEGIN and END go (each
    change then has its ``transaction`` block); ``resumed_transaction``: the transaction id and
    per-table counts of the offset the stream resumes from, when it stopped inside one;
    ``start_lsn``: where the stream starts (the processed position before its first message);
    ``signal_topic``: the signal table's topic, whose inserts give records even when ``c`` is
    among ``skipped.operations`` (they are signals; the caller drops the records)."""

    def __init__(
        self,
        context: RecordContext,
        source: SourceInfo,
        describe: Callable[[Relation], TableSchema | None],
        *,
        skipped_operations: frozenset[str] = frozenset({"t"}),
        tombstones_on_delete: bool = True,
        lsn_commit: int | None = None,
        transaction_topic: str | None = None,
        resumed_transaction: tuple[str, Mapping[str, int]] | None = None,
        start_lsn: int | None = None,
        signal_topic: str | None = None,
    ) -> None:
        self._context = context
        self._source = source
        self._describe = describe
        self._skipped = skipped_operations
        # the signal table's inserts are read as signals even when "c" is skipped (the caller
        # drops their records once read)
        self._signal_topic = signal_topic
        self._tombstones = tombstones_on_delete
        self._tables: dict[int, TableSchema | None] = {}
        self._partition = source_partition(context.prefix)
        # made once, duplicated for each record (its entries are immutable and shared)
        self._headers = context_headers(context)
        self._xid: int | None = None
        self._commit_us = 0
        self.lsn_commit = lsn_commit
        self._last: tuple[int, str] | None = None
        self._transaction_topic = transaction_topic
        self._tx = TransactionContext() if transaction_topic is not None else None
        self._resumed_tx = resumed_transaction
        self._start_lsn = start_lsn
        source.snapshot = SnapshotRecord.FALSE

    def current_offset(self) -> dict[str, Any] | None:
        """The offset of the stream's position (what a heartbeat carries): the last message's,
        a transaction's commit once it ended; None before any message."""
        if self._last is None:
            return None
        lsn, message_type = self._last
        return streaming_offset(lsn, lsn, self.lsn_commit, self._xid, self._commit_us, message_type)

    def on_change(self, lsn: int, relation_id: int, payload: bytes) -> list[SourceRecord]:
        """The records of an Insert, Update or Delete message's ``payload`` (at ``lsn``, of the
        table ``relation_id``: :func:`change_relation_id`): read by the table's compiled
        decoder when it can, else decoded as :meth:`on_message` does."""
        tag = payload[0]
        self._last = (lsn, _CHANGE_TYPES[tag])
        table = self._tables.get(relation_id)
        if table is None or (_CHANGE_OPS[tag] in self._skipped and not self._signal(table, tag)):
            return []
        parsed = table.change(payload)
        if parsed is None:
            return self.on_message(lsn, decode(payload))
        old_kind, old, new = parsed
        if tag == _INSERT:
            assert new is not None
            return self._insert(lsn, table, new)
        if tag == _UPDATE:
            assert new is not None
            return self._update(lsn, table, old_kind, old, new)
        assert old_kind is not None and old is not None
        return self._delete(lsn, table, old)

    def on_message(self, lsn: int, message: PgOutputMessage) -> list[SourceRecord]:
        """The records of one message (at ``lsn``, the XLogData's start), possibly none."""
        previous = self._last
        if lsn:
            self._last = (lsn, _MESSAGE_TYPES.get(type(message), "MESSAGE"))
        if isinstance(message, Insert | Update | Delete):
            table = self._tables.get(message.relation_id)
            if table is None:
                return []
            if isinstance(message, Insert):
                if "c" in self._skipped and not self._signal(table, _INSERT):
                    return []
                return self._insert(lsn, table, table.row(row_of(message.new_tuple)))
            if isinstance(message, Update):
                if "u" in self._skipped:
                    return []
                old = None if message.old_tuple is None else table.row(row_of(message.old_tuple))
                new = table.row(row_of(message.new_tuple))
                return self._update(lsn, table, message.old_kind, old, new)
            if "d" in self._skipped:
                return []
            return self._delete(lsn, table, table.row(row_of(message.old_tuple)))
        if isinstance(message, Begin):
            self._xid = message.xid
            self._commit_us = pg_time_to_epoch_us(message.commit_time_us)
            self._source.origin = self._source.origin_lsn = None
            return self._begin(lsn, self._start_lsn if previous is None else previous[0])
        elif isinstance(message, Commit):
            self.lsn_commit = lsn
            return self._end(lsn, pg_time_to_epoch_us(message.commit_time_us))
        elif isinstance(message, Relation):
            self._tables[message.relation_id] = self._describe(message)
        elif isinstance(message, Truncate):
            return self._truncate(lsn, message)
        elif isinstance(message, Origin):
            self._source.origin = message.name
            self._source.origin_lsn = message.commit_lsn
        return []

    def _signal(self, table: TableSchema, tag: int) -> bool:
        return tag == _INSERT and table.topic == self._signal_topic

    # -- one record kind each -------------------------------------------------------------------

    def _insert(self, lsn: int, table: TableSchema, row: Row) -> list[SourceRecord]:
        source = self._source_struct(lsn, table)
        value = envelope.create(table.envelope_schema, table.value(row), source, self._now(),
                                self._tx_event(lsn, table))  # fmt: skip
        return [self._record(lsn, "INSERT", table, table.key(row), value)]

    def _update(
        self, lsn: int, table: TableSchema, old_kind: str | None, old: Row | None, new: Row
    ) -> list[SourceRecord]:
        """``old_kind``: ``K`` (``old`` holds the old key), ``O`` (the whole old row) or None."""
        if old is not None:  # an unchanged TOASTed value the old row carries is known
            new = [o if n is UNCHANGED_TOAST and o is not UNCHANGED_TOAST else n
                   for n, o in zip(new, old, strict=False)]  # fmt: skip
        if UNCHANGED_TOAST in new:
            new = table.available(new)
        if old is not None and UNCHANGED_TOAST in old:
            old = table.available(old)
        new_key = table.key(new)
        if old_kind == OldTupleKind.KEY and old is not None:
            old_key = table.key(old)
            if old_key is not None and old_key != new_key:
                return self._key_change(lsn, table, old, old_key, new, new_key)
        before = table.value(old) if old_kind == OldTupleKind.OLD and old else None
        source = self._source_struct(lsn, table)
        value = envelope.update(table.envelope_schema, before, table.value(new), source,
                                self._now(), self._tx_event(lsn, table))  # fmt: skip
        return [self._record(lsn, "UPDATE", table, new_key, value)]

    def _key_change(
        self,
        lsn: int,
        table: TableSchema,
        old: Row,
        old_key: Struct,
        new: Row,
        new_key: Struct | None,
    ) -> list[SourceRecord]:
        """An update of the key: the old key's delete (and tombstone), the new key's create."""
        source = self._source_struct(lsn, table)
        deleted = envelope.delete(table.envelope_schema, table.value(old), source, self._now(),
                                  self._tx_event(lsn, table))  # fmt: skip
        out = [self._record(lsn, "UPDATE", table, old_key, deleted, ("__debezium.newkey", new_key))]
        if self._tombstones:
            out.append(self._tombstone(out[0]))
        created = envelope.create(table.envelope_schema, table.value(new), source, self._now(),
                                  self._tx_event(lsn, table))  # fmt: skip
        out.append(
            self._record(lsn, "UPDATE", table, new_key, created, ("__debezium.oldkey", old_key))
        )
        return out

    def _delete(self, lsn: int, table: TableSchema, old: Row) -> list[SourceRecord]:
        source = self._source_struct(lsn, table)
        value = envelope.delete(table.envelope_schema, table.value(old), source, self._now(),
                                self._tx_event(lsn, table))  # fmt: skip
        record = self._record(lsn, "DELETE", table, table.key(old), value)
        return [record, self._tombstone(record)] if self._tombstones else [record]

    def _truncate(self, lsn: int, message: Truncate) -> list[SourceRecord]:
        if "t" in self._skipped:
            return []
        out = []
        for relation_id in message.relation_ids:
            table = self._tables.get(relation_id)
            if table is None:
                continue
            source = self._source_struct(lsn, table)
            value = envelope.truncate(table.envelope_schema, source, self._now(),
                                      self._tx_event(lsn, table))  # fmt: skip
            out.append(self._record(lsn, "TRUNCATE", table, None, value, key_schema=False))
        return out

    # -- shared ---------------------------------------------------------------------------------

    def _now(self) -> int:
        return self._context.clock_ns()

    def _offset(self, lsn: int, message_type: str, lsn_proc: int | None = None) -> dict[str, Any]:
        """The offset of an event at ``lsn`` (processed up to ``lsn_proc``, by default
        ``lsn``)."""
        proc = lsn if lsn_proc is None else lsn_proc
        tx = self._tx
        if tx is None or not tx.active:
            return streaming_offset(
                lsn, proc, self.lsn_commit, self._xid, self._commit_us, message_type
            )
        return streaming_offset(lsn, proc, self.lsn_commit, self._xid, self._commit_us,
                                message_type, transaction_id=tx.transaction_id,
                                data_collection_orders=tx.orders)  # fmt: skip

    # -- transaction metadata -------------------------------------------------------------------

    def _tx_event(self, lsn: int, table: TableSchema) -> Struct | None:
        """Count a change of ``table`` in the running transaction: its ``transaction`` block
        (None without transaction metadata)."""
        tx = self._tx
        if tx is None or not tx.active:
            return None
        return tx.event(str(table.table.id), f"{self._xid}:{lsn}")

    def _begin(self, lsn: int, lsn_proc: int | None) -> list[SourceRecord]:
        """A transaction starts: its BEGIN event, whose offset says processed up to
        ``lsn_proc`` (the message before it: BEGIN itself is not processed yet); none when the
        stream resumes inside it (the counters come back from the offset instead)."""
        tx = self._tx
        if tx is None or self._xid is None:
            return []
        resumed, self._resumed_tx = self._resumed_tx, None
        if resumed is not None and resumed[0] == str(self._xid):
            tx.restore(*resumed)
            return []
        tx.begin(str(self._xid))
        key, value = tx.begin_event(f"{self._xid}:{lsn}", self._commit_us // 1000)
        return [self._transaction_record(lsn, "BEGIN", key, value, lsn_proc)]

    def _end(self, lsn: int, commit_us: int) -> list[SourceRecord]:
        """A transaction ends: its END event with the counts."""
        tx = self._tx
        if tx is None or not tx.active:
            return []
        key, value = tx.end_event(f"{self._xid}:{lsn}", commit_us // 1000)
        record = self._transaction_record(lsn, "COMMIT", key, value)
        tx.end()
        return [record]

    def _transaction_record(
        self, lsn: int, message_type: str, key: Struct, value: Struct, lsn_proc: int | None = None
    ) -> SourceRecord:
        assert self._transaction_topic is not None
        return SourceRecord(
            self._partition,
            self._offset(lsn, message_type, lsn_proc),
            self._transaction_topic,
            None,
            TRANSACTION_KEY_SCHEMA,
            key,
            TRANSACTION_VALUE_SCHEMA,
            value,
        )

    def _source_struct(self, lsn: int, table: TableSchema) -> Struct:
        source = self._source
        source.timestamp_ns = self._commit_us * 1000
        source.tx_id = self._xid
        source.lsn = lsn
        source.last_commit_lsn = self.lsn_commit
        source.schema_name = table.table.id.schema
        source.table_name = table.table.id.table
        return source.struct()

    def _record(
        self,
        lsn: int,
        message_type: str,
        table: TableSchema,
        key: Struct | None,
        value: Struct,
        key_header: tuple[str, Struct | None] | None = None,
        *,
        key_schema: bool = True,
    ) -> SourceRecord:
        offset = self._offset(lsn, message_type)
        headers = None if self._headers is None else self._headers.duplicate()
        if key_header is not None:
            name, struct = key_header
            keyed = Headers()
            keyed.add(name, struct, table.key_schema)
            headers = _copy(headers, keyed)
        return SourceRecord(
            self._partition,
            offset,
            table.topic,
            None,
            table.key_schema if key_schema else None,
            key,
            table.envelope_schema,
            value,
            headers=headers,
        )

    def _tombstone(self, record: SourceRecord) -> SourceRecord:
        return SourceRecord(
            record.source_partition,
            record.source_offset,
            record.topic,
            None,
            record.key_schema,
            record.key,
            None,
            None,
            headers=_copy(record.headers),
        )


def _copy(headers: Any, out: Headers | None = None) -> Headers | None:
    """``headers`` copied (after whatever ``out`` already holds); None stays None without ``out``."""
    if headers is None:
        return out
    if out is None:
        out = Headers()
    for header in headers:
        out.add(header.key, header.value, header.schema)
    return out
