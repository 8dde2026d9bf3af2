"""Writing batches of sink records to the database: Confluent's ``JdbcDbWriter`` + ``DbStructure``.

:class:`JdbcDbWriter` belongs to one :class:`~kconnect.connectors.jdbc.sink.sink_task.JdbcSinkTask`
and is only used from its thread. :meth:`JdbcDbWriter.write` groups a ``put``'s records by
destination table, buffers and flushes them (:class:`BufferedRecords`) and commits once: one
database transaction per ``put``, rolled back entirely on any error. :meth:`write_each` is the
slow path after a failed batch (Confluent's ``unrollAndRetry``): every record on its own, behind
a savepoint, so that the good records land and each bad one is returned with its own error.

Database errors leave as :class:`SqlWriteError` (the driver's exception chained, with the
table, SQLSTATE, whether retrying can help, and — when the database says — the column and the
record); missing tables/columns as :class:`TableAlterOrCreateException`.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from kconnect._hot_path import native
from kconnect.api import ConnectException, SinkRecord
from kconnect.connectors.jdbc.common.connection import ConnectionFailed, ConnectionProvider
from kconnect.connectors.jdbc.common.identifiers import TableId, rules_for
from kconnect.connectors.jdbc.common.url import connection_spec
from kconnect.connectors.jdbc.sink.buffered_records import BufferedRecords, RowPlan
from kconnect.connectors.jdbc.sink.ddl import (
    TableAlterOrCreateException,
    alter_table_statements,
    create_table_statement,
)
from kconnect.connectors.jdbc.sink.fields_metadata import FieldsMetadata, record_where
from kconnect.connectors.jdbc.sink.postgres_copy import PendingCopy, PostgresCopyWriter
from kconnect.connectors.jdbc.sink.record_pieces import is_batch, topic_at
from kconnect.connectors.jdbc.sink.sink_config import (
    CONFIG_DEF,
    InsertMode,
    JdbcSinkConfig,
)
from kconnect.connectors.jdbc.sink.sink_dialect import (
    PostgresSinkDialect,
    SinkDialect,
    TableInfo,
    dialect_for,
)

__all__ = ["JdbcDbWriter", "PendingWrite", "SqlWriteError"]

log = logging.getLogger(__name__)

# SQLSTATE classes where the same statement may succeed later: connection exceptions,
# transaction rollback (serialization failure, deadlock), insufficient resources, operator
# intervention (admin shutdown, query canceled), system errors.
_TRANSIENT_CLASSES = frozenset({"08", "40", "53", "57", "58"})
_COPY_CONTEXT = re.compile(r"COPY [^,]+, line (\d+)(?:, column ([^:]+))?")


class SqlWriteError(ConnectException):
    """The database refused a write. ``transient``: retrying the same batch may succeed."""

    #: The ``__connect.errors.exception.class.name`` of dead letter queue records, through the
    #: runtime's ``java_class_name`` hook. It is this class's path from before the sink moved
    #: into ``jdbc.sink``, kept so that alerts and DLQ consumers matching it keep working.
    java_class_name: ClassVar[str] = "kconnect.connectors.jdbc.writer.SqlWriteError"

    def __init__(
        self,
        message: str,
        cause: BaseException,
        table: TableId | None,
        transient: bool,
        column: str | None = None,
        record: SinkRecord | None = None,
    ) -> None:
        super().__init__(message)
        self.cause = cause
        self.table = table
        self.transient = transient
        self.column = column
        self.record = record


def _driver_errors() -> tuple[type[BaseException], ...]:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the jdbc extra is missing
        return (sqlite3.Error,)
    return (psycopg.Error, sqlite3.Error)


_DB_ERRORS = _driver_errors()


def _sqlstate(e: BaseException) -> str | None:
    state = getattr(e, "sqlstate", None)
    return str(state) if state else None


def _is_transient(e: BaseException) -> bool:
    state = _sqlstate(e)
    if state is not None:
        return state[:2] in _TRANSIENT_CLASSES
    if isinstance(e, sqlite3.OperationalError):
        return "locked" in str(e) or "busy" in str(e)
    # psycopg errors without SQLSTATE: the connection broke (OperationalError/InterfaceError).
    return type(e).__name__ in ("OperationalError", "InterfaceError")


def _chain_text(e: BaseException) -> str:
    """Every exception of the chain as ``module.Class: message``, one per line (Confluent's
    ``getAllMessagesException``), with the database's detail/hint/context when it gave one."""
    lines = []
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        cls = type(cur)
        text = str(cur).strip()
        diag = getattr(cur, "diag", None)
        if diag is not None:
            text = (diag.message_primary or text).strip()
            for label, part in (("Detail", diag.message_detail), ("Hint", diag.message_hint)):
                if part:
                    text += f"; {label}: {part}"
        lines.append(f"{cls.__module__}.{cls.__qualname__}: {text}")
        nxt = cur.__cause__ or cur.__context__
        # Follow only the driver's own chain, not errors this one happened to interrupt.
        cur = nxt if isinstance(nxt, _DB_ERRORS) else None
    return "Exception chain:\n" + "\n".join(lines)


class PendingWrite:
    """A batch written with ``defer``: rows sent, result not yet read, not committed."""

    __slots__ = ("conn", "copy", "records", "table", "writer")

    def __init__(
        self,
        writer: JdbcDbWriter,
        conn: Any,
        copy: PendingCopy,
        table: TableId,
        records: Sequence[SinkRecord],
    ) -> None:
        self.writer = writer
        self.conn = conn
        self.copy = copy
        self.table = table
        self.records = records

    def complete(self) -> None:
        """Read the result and commit the batch.

        Raises:
            SqlWriteError: the database refused the batch; nothing of it was committed.
        """
        self.writer._complete(self)


def topic_run_end(records: Sequence[SinkRecord], start: int) -> int:
    """The end of the run of records from ``start`` whose topic is ``records[start]``'s (the
    first index with another topic, or the length); found natively when it can be (in a
    native batch, without making Python records)."""
    if is_batch(records):
        return records.topic_run_end(start)
    if native is not None:
        end: int | None = native.topic_run_end(records, start)
        if end is not None:
            return end
    return _topic_run_end_py(records, start)


def _topic_run_end_py(records: Sequence[SinkRecord], start: int) -> int:
    """:func:`topic_run_end` record by record (the reference of the native twin)."""
    topic, end, n = records[start].topic, start + 1, len(records)
    while end < n and records[end].topic == topic:
        end += 1
    return end


class JdbcDbWriter:
    """Writes records to the database of one sink task. See the module docstring."""

    def __init__(self, config: JdbcSinkConfig, provider: ConnectionProvider | None = None) -> None:
        self.config = config
        if provider is None:
            props = config.originals()
            spec = connection_spec(
                {k: v for k, v in props.items() if k not in CONFIG_DEF.names() or k in _CONN_KEYS}
            )
            provider = ConnectionProvider(
                spec, config.connection_attempts, int(config.connection_backoff_ms)
            )
        self.provider = provider
        name = config.dialect_name or provider.dialect
        self.dialect: SinkDialect = dialect_for(
            name, rules_for(provider.dialect, config.quote_identifiers)
        )
        self._copy = (
            PostgresCopyWriter(self.dialect)
            if isinstance(self.dialect, PostgresSinkDialect)
            else None
        )
        self._tables: dict[str, TableId] = {}
        self._infos: dict[TableId, TableInfo] = {}
        # RowPlans by table, for the last key schema and value shape each table saw: a plan
        # depends only on them, the config and the table's columns, so the next batch of the
        # same schemas reuses it. Forgotten with the table descriptions (``_infos``).
        self._plans: dict[TableId, tuple[object, object, RowPlan]] = {}
        self._raw: Any = None
        self._last_used = -_IDLE_CHECK_S
        self._pending: PendingWrite | None = None

    # -- connection ---------------------------------------------------------------------------

    def _connection(self) -> Any:
        if self._pending is not None:
            raise ConnectException(
                "The previous batch's write is still pending; complete it before writing again"
            )
        # No ping per put: a connection that died while in use fails the write with a transient
        # error, the task calls reconnect() and the batch is redelivered. Only a connection idle
        # for a while (the server or a proxy may have dropped it) is checked first.
        now = time.monotonic()
        if now - self._last_used > _IDLE_CHECK_S:
            raw = self.provider.get_valid()
        else:
            raw = self.provider.get()
        self._last_used = now
        if raw is not self._raw:
            self._raw = raw
            self._forget_tables()
            if self._copy is not None:
                self._copy.reset()
        return raw

    def _open_connection(self) -> Any:
        """:meth:`_connection` for a write: a database that is down or unreachable is as
        transient as a connection lost mid-write (the task retries within ``max.retries``
        instead of failing at once); refused credentials are not."""
        try:
            return self._connection()
        except ConnectionFailed as e:
            raise SqlWriteError(str(e), e, None, e.transient) from e

    def close(self) -> None:
        """Close the connection (task stop, or before a retry as Confluent does). A pending
        write is abandoned: closing the connection rolls its transaction back."""
        self._pending = None
        self._raw = None
        self._forget_tables()
        if self._copy is not None:
            self._copy.reset()
        self.provider.close()

    def reconnect(self) -> None:
        """Drop the connection so that the next write opens a fresh one (a pending write is
        abandoned and rolled back by the server)."""
        self._pending = None
        self._raw = None
        self.provider.invalidate()

    def destination(self, topic: str) -> TableId:
        """The table for ``topic`` per ``table.name.format`` (``${topic}`` substituted)."""
        table = self._tables.get(topic)
        if table is None:
            name = self.config.table_name_format.replace("${topic}", topic)
            table = self.dialect.resolve(self.dialect.rules.parse_table_id(name), self._raw)
            self._tables[topic] = table
        return table

    # -- batch path ---------------------------------------------------------------------------

    def write(self, records: Sequence[SinkRecord], defer: bool = False) -> PendingWrite | None:
        """Write ``records`` in one transaction (PostgreSQL: COPY).

        ``defer``: when the batch ends with a COPY insert (PostgreSQL, ``insert.mode=insert``,
        no deletes at the end), return as soon as the rows are sent; the returned
        :class:`PendingWrite` reads the result and commits. Until it is completed the writer
        must not be used. Otherwise the transaction is committed before returning (None).

        Raises:
            SqlWriteError: the database refused; nothing of the batch was committed.
            TableAlterOrCreateException: a table/column is missing and may not be created.
            ConnectException: a record cannot be written (e.g. a tombstone without
                ``delete.enabled``); nothing was committed.
        """
        conn = self._open_connection()
        use_copy = self._copy is not None
        buffers: dict[TableId, BufferedRecords] = {}
        current: BufferedRecords | None = None
        pending: PendingCopy | None = None
        try:
            # Runs of records of one topic (usually the whole batch of a partition) are handed
            # to their table's buffer as one range (by position: a native batch's records
            # are not made).
            start, n = 0, len(records)
            while start < n:
                end = topic_run_end(records, start)
                table = self.destination(topic_at(records, start))
                current = buffers.get(table)
                if current is None:
                    current = buffers[table] = BufferedRecords(self, table, conn, use_copy)
                current.add_all(records, start, end)
                start = end
            last = len(buffers) - 1
            for i, buffer in enumerate(buffers.values()):
                current = buffer
                pending = buffer.flush(defer and i == last)
            if pending is None:
                conn.commit()
        except BaseException as e:
            wrapped = self._abort(conn, e, current.table if current else None, records)
            if wrapped is None:
                raise
            raise wrapped from e
        if pending is not None:
            assert current is not None
            self._pending = PendingWrite(self, conn, pending, current.table, records)
            return self._pending
        if self._copy is not None:
            self._copy.committed()
        return None

    def _complete(self, write: PendingWrite) -> None:
        """:meth:`PendingWrite.complete`: read the COPY result, commit."""
        conn = write.conn
        try:
            write.copy.complete()
            conn.commit()
        except BaseException as e:
            wrapped = self._abort(conn, e, write.table, write.records)
            if wrapped is None:
                raise
            raise wrapped from e
        finally:
            if self._pending is write:
                self._pending = None
        if self._copy is not None:
            self._copy.committed()

    def write_each(
        self, records: Sequence[SinkRecord], commit: bool = True
    ) -> list[tuple[SinkRecord, ConnectException]]:
        """Write every record on its own (behind a savepoint, plain statements, no COPY).

        Returns the records that failed with their errors; the others are committed when
        ``commit`` (else everything is rolled back: used to find the culprit of a batch).
        Errors that are not about one record (the connection broke) are raised.
        """
        conn = self._open_connection()
        failures: list[tuple[SinkRecord, ConnectException]] = []
        try:
            for i, record in enumerate(records):
                sp = f"kconnect_record_{i}"
                self._execute(conn, f"SAVEPOINT {sp}")
                try:
                    table = self.destination(record.topic)
                    buffer = BufferedRecords(self, table, conn, use_copy=False)
                    buffer.add(record)
                    buffer.flush()
                except TableAlterOrCreateException as e:
                    self._execute(conn, f"ROLLBACK TO SAVEPOINT {sp}")
                    failures.append((record, e))
                except _DB_ERRORS as e:
                    if _is_transient(e):
                        raise
                    self._execute(conn, f"ROLLBACK TO SAVEPOINT {sp}")
                    self._forget_tables()  # DDL inside the savepoint may have been undone
                    failures.append(
                        (record, self._wrap(e, self.destination(record.topic), record, [record]))
                    )
                else:
                    self._execute(conn, f"RELEASE SAVEPOINT {sp}")
            if commit:
                conn.commit()
            else:
                self._rollback(conn)
        except BaseException as e:
            wrapped = self._abort(conn, e, None, records)
            if wrapped is None:
                raise
            raise wrapped from e
        if commit and self._copy is not None:
            self._copy.committed()
        return failures

    @staticmethod
    def _execute(conn: Any, sql: str) -> None:
        cur = conn.cursor()
        try:
            cur.execute(sql)
        finally:
            cur.close()

    def _abort(
        self, conn: Any, e: BaseException, table: TableId | None, records: Sequence[SinkRecord]
    ) -> SqlWriteError | None:
        """Roll back after ``e``; the error to raise instead of it when it is the database's
        (None: re-raise ``e`` as it is)."""
        self._rollback(conn)
        if isinstance(e, _DB_ERRORS):
            return self._wrap(e, table, None, records)
        return None

    def _rollback(self, conn: Any) -> None:
        self._forget_tables()  # DDL of the failed transaction is undone too
        if self._copy is not None:
            self._copy.rolled_back()
        try:
            conn.rollback()
        except Exception:  # the connection may be broken; it is replaced on the next write
            log.debug("Rollback failed", exc_info=True)

    def _wrap(
        self,
        e: BaseException,
        table: TableId | None,
        record: SinkRecord | None,
        records: Sequence[SinkRecord],
    ) -> SqlWriteError:
        column = None
        diag = getattr(e, "diag", None)
        if diag is not None:
            column = diag.column_name
            if table is None and diag.table_name:
                table = TableId(None, diag.schema_name, diag.table_name)
            m = _COPY_CONTEXT.search(diag.context or "")
            if m and not column:
                # "COPY t, line 3, column item: ..." names the column of a COPY failure.
                column = (m.group(2) or "").strip() or None
        text = _chain_text(e)
        where = []
        if table is not None:
            where.append(f"table {self.dialect.rules.quote_table(table)}")
        if column:
            where.append(f"column '{column}'")
        if record is not None:
            where.append(record_where(record))
        if where:
            text += "\n(" + ", ".join(where) + ")"
        return SqlWriteError(text, e, table, _is_transient(e), column, record)

    # -- BufferedRecords' RowWriter ------------------------------------------------------------

    def write_rows(
        self,
        conn: Any,
        table: TableId,
        plan: RowPlan,
        records: Sequence[SinkRecord],
        use_copy: bool,
        defer: bool = False,
    ) -> PendingCopy | None:
        """Write the rows of ``records`` to ``table``; ``defer``: a COPY insert may leave its
        result pending. A binary COPY insert of records of a native batch sends the stream
        made from their native values (``plan.copy_stream``) when it can be made."""
        mode = self.config.insert_mode
        cols = plan.sql_cols
        n_keys = plan.n_keys
        if mode is not InsertMode.INSERT and n_keys == 0:
            raise ConnectException(
                f"Write to table '{table}' in {mode.name} mode requires key field names to be "
                f"known, check the primary key configuration (pk.mode is "
                f"{self.config.pk_mode.value}) ({record_where(records[0])})"
            )
        if mode is InsertMode.UPDATE and n_keys == len(cols):
            return None  # nothing to set; Confluent issues no statement either
        info = self._infos.get(table)
        if use_copy and self._copy is not None:
            if mode is InsertMode.INSERT:
                data = plan.copy_stream(records) if self._copy.takes_streams(conn) else None
                rows = plan.rows(records) if data is None else []
                return self._copy.insert(conn, table, cols, rows, plan.oids, defer, data)
            self._copy.upsert(
                conn, table, cols, n_keys, plan.rows(records), plan.oids, mode is InsertMode.UPDATE
            )
            return None
        rows = plan.rows(records)
        d = self.dialect
        if mode is InsertMode.INSERT:
            sql = d.insert(table, cols, info)
        elif mode is InsertMode.UPSERT:
            sql = d.upsert(table, cols[:n_keys], cols, info)
        else:
            sql = d.update(table, cols[:n_keys], cols[n_keys:], info)
            rows = [(*r[n_keys:], *r[:n_keys]) for r in rows]
        cur = conn.cursor()
        try:
            cur.executemany(sql, rows)
        finally:
            cur.close()
        return None

    def delete_rows(
        self, conn: Any, table: TableId, plan: RowPlan, key_rows: list[Any], use_copy: bool
    ) -> None:
        keys = plan.sql_cols[: plan.n_keys]
        if use_copy and self._copy is not None:
            self._copy.delete(conn, table, keys, key_rows, plan.key_oids)
            return
        sql = self.dialect.delete(table, keys, self._infos.get(table))
        cur = conn.cursor()
        try:
            cur.executemany(sql, key_rows)
        finally:
            cur.close()

    def _forget_tables(self) -> None:
        """Drop what is known of the tables (descriptions and row plans): the connection
        changed, or DDL may have been rolled back."""
        self._infos.clear()
        self._plans.clear()

    def known_plan(self, table: TableId, key_schema: object, shape: object) -> RowPlan | None:
        """The plan made for ``table`` with this key schema and value shape (the same
        objects, or equal ones), if it is the last one made for the table."""
        got = self._plans.get(table)
        if got is None:
            return None
        ks, vs, plan = got
        if (ks is key_schema or ks == key_schema) and (vs is shape or vs == shape):
            return plan
        return None

    def keep_plan(self, table: TableId, key_schema: object, shape: object, plan: RowPlan) -> None:
        """Remember ``plan`` for :meth:`known_plan`."""
        self._plans[table] = (key_schema, shape, plan)

    def last_plan(self, table: TableId) -> tuple[object, object, RowPlan] | None:
        """The key schema, value shape and plan last kept for ``table``, if any."""
        return self._plans.get(table)

    def ensure_table(
        self, conn: Any, table: TableId, meta: FieldsMetadata, record: SinkRecord
    ) -> TableInfo:
        """The table's description, after creating it or adding missing columns as allowed
        (Confluent's ``DbStructure.createOrAmendIfNecessary``).

        Raises:
            TableAlterOrCreateException: missing and not allowed (or not possible) to create
                or amend; the message names table, columns and record.
        """
        config = self.config
        d = self.dialect
        info = self._infos.get(table) or d.describe(conn, table)
        where = record_where(record)
        quoted = d.rules.quote_table(table)
        if info is None:
            if meta.schemaless:
                raise TableAlterOrCreateException(
                    f"Table {quoted} is missing and the record has no schema to create it from "
                    f"({where}); create the table, or send records with schemas"
                )
            if not config.auto_create:
                raise TableAlterOrCreateException(
                    f"Table {quoted} is missing and auto-creation is disabled ({where}); create "
                    "the table or set auto.create=true"
                )
            sql = create_table_statement(
                d.name,
                d.rules,
                table,
                meta.create_columns,
                [c.name for c in meta.key_columns],
                config.timestamp_fields,
            )
            log.info("Creating table %s with SQL: %s", quoted, sql)
            self._ddl(conn, [sql], tolerate_exists=True)
            info = d.describe(conn, table)
            if info is None:
                raise TableAlterOrCreateException(f"Table {quoted} could not be created ({where})")
        if info.kind not in config.table_types:
            raise TableAlterOrCreateException(
                f"Table {quoted} is a {info.kind}, which table.types "
                f"({','.join(sorted(config.table_types))}) does not allow writing to ({where})"
            )
        missing = [c for c in meta.columns if info.find(c.name) is None]
        if missing:
            names = [c.name for c in missing]
            if meta.schemaless:
                raise TableAlterOrCreateException(
                    f"Table {quoted} has no column {', '.join(repr(n) for n in names)} for the "
                    f"field(s) of the schemaless record ({where}); add the column(s) or remove the "
                    "field(s) from the record (e.g. with the ReplaceField SMT)"
                )
            if info.kind == "VIEW":
                raise TableAlterOrCreateException(
                    f"View {quoted} is missing fields {names} and views cannot be altered ({where})"
                )
            for c in missing:
                assert c.schema is not None
                if not c.schema.optional and c.schema.default_value is None:
                    raise TableAlterOrCreateException(
                        f"Cannot ALTER TABLE {quoted} to add missing field '{c.name}', as the "
                        f"field is not optional and does not have a default value ({where})"
                    )
            if not config.auto_evolve:
                raise TableAlterOrCreateException(
                    f"Table {quoted} is missing fields {names} and auto-evolution is disabled "
                    f"({where}); add the columns or set auto.evolve=true"
                )
            sqls = alter_table_statements(d.name, d.rules, table, missing, config.timestamp_fields)
            log.info("Amending table %s with SQL: %s", quoted, sqls)
            self._ddl(conn, sqls, tolerate_exists=False)
            info = d.describe(conn, table)
            assert info is not None
        self._infos[table] = info
        return info

    def _ddl(self, conn: Any, sqls: list[str], tolerate_exists: bool) -> None:
        self._execute(conn, "SAVEPOINT kconnect_ddl")
        try:
            for sql in sqls:
                self._execute(conn, sql)
        except _DB_ERRORS as e:
            self._execute(conn, "ROLLBACK TO SAVEPOINT kconnect_ddl")
            if not tolerate_exists:
                raise TableAlterOrCreateException(_chain_text(e)) from e
            # Another task may have created the table meanwhile; describe() decides.
            log.info("CREATE TABLE failed, checking whether the table exists now: %s", e)
        else:
            self._execute(conn, "RELEASE SAVEPOINT kconnect_ddl")


# A connection unused for longer than this is pinged before the next write.
_IDLE_CHECK_S = 30.0

_CONN_KEYS = frozenset({"connection.url", "connection.user", "connection.password"})
