"""``JdbcSourceTask``: polls its assigned tables (or the custom query) and returns records.

Lifecycle: ``initialize(context)`` → ``start(props)`` (task thread: opens the connection,
reads stored offsets through ``context.offset_storage_reader()``) → ``poll()`` repeatedly
(task thread; returns within about a second, at most ``batch.max.rows`` records) →
``stop()`` (any thread, possibly while ``start`` or ``poll`` runs: the runtime calls it to
interrupt a poll). ``start`` and ``poll`` hold the task's lock; ``stop`` signals, and closes
the connection itself only when neither runs. Otherwise the one running closes it on its way
out, as the runtime calls neither again after a stop: so the connection is always closed, and
never under a ``start`` or ``poll`` that still uses it (a stop during start() used to fail the
task with "Connection provider ... is closed").

Errors: a lost connection or other transient driver error resets the querier and is retried
(``query.retry.attempts``, -1 = forever; ``poll`` returns no records meanwhile); any other
error (bad SQL, missing table, non-integral incrementing value) fails the task with a message
naming the table.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api import ConfigException, ConnectException, SourceRecord, SourceTask
from kconnect.connectors.jdbc.common.connection import ConnectionProvider, describe_error
from kconnect.connectors.jdbc.common.identifiers import TableId, rules_for
from kconnect.connectors.jdbc.common.version import VERSION
from kconnect.connectors.jdbc.source.bulk_querier import BulkTableQuerier
from kconnect.connectors.jdbc.source.querier import QuerierEnv, TableQuerier
from kconnect.connectors.jdbc.source.source_config import (
    MODE_BULK,
    MODE_INCREMENTING,
    MODE_TIMESTAMP,
    JdbcSourceTaskConfig,
)
from kconnect.connectors.jdbc.source.timestamp_incrementing_querier import (
    TimestampIncrementingTableQuerier,
)

__all__ = ["JdbcSourceTask", "split_tables"]

log = logging.getLogger(__name__)

_MAX_WAIT_S = 1.0  # poll() returns at least this often so pause/stop are noticed


def split_tables(text: str, quote_char: str) -> list[TableId]:
    """Parse the task config ``tables`` (comma-joined quoted FQNs; commas inside quotes kept)."""
    rules = rules_for("sqlite" if quote_char == "`" else "postgresql")
    out, buf, inside = [], [], None
    for ch in text:
        if inside:
            buf.append(ch)
            if ch == inside:  # a doubled quote closes and reopens: same result
                inside = None
        elif ch in (quote_char, '"'):
            inside = ch
            buf.append(ch)
        elif ch == ",":
            if "".join(buf).strip():
                out.append(rules.parse_table_id("".join(buf).strip()))
            buf = []
        else:
            buf.append(ch)
    if "".join(buf).strip():
        out.append(rules.parse_table_id("".join(buf).strip()))
    return out


class JdbcSourceTask(SourceTask):
    """See the module docstring for the lifecycle and threading contract."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._provider: ConnectionProvider | None = None
        self._queriers: list[TableQuerier] = []
        self._conn: Any = None
        self._retries = -1
        self._failures = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        with self._lock:
            self._start(props)
            if self._stop.is_set():  # stop() came while we started: it left the closing to us
                self._close()

    def _start(self, props: Mapping[str, str]) -> None:
        config = JdbcSourceTaskConfig(props)
        mode = config.mode
        query = config.query or None
        tables_text = config.get_string("tables") or ""
        fetched = config.get_boolean("tables.fetched")
        self._provider = ConnectionProvider.from_config(config.props)
        dialect = self._provider.dialect
        rules = rules_for(dialect, config.get_string("quote.sql.identifiers") or "always")
        tables = split_tables(tables_text, rules.quote_char) if tables_text else []
        if query is None and not tables:
            if fetched or "tables.fetched" not in props:
                raise ConfigException(
                    "Task is being killed because it was not assigned a table nor a query to "
                    "execute. If run in table mode please make sure that the tables exist on "
                    "the database. If the table does exist on the database, we recommend using "
                    "the fully qualified table name."
                )
            log.info("JDBC source task has no tables yet (table list not fetched); idling")
        env = QuerierEnv(
            dialect=dialect,
            rules=rules,
            options=config.type_options(),
            topic_prefix=config.get_string("topic.prefix") or "",
            batch_max_rows=max(1, config.get_int("batch.max.rows")),
            poll_interval_ms=config.get_int("poll.interval.ms"),
            query_suffix=(config.get_string("query.suffix") or "").strip(),
        )
        self._retries = config.get_int("query.retry.attempts")
        ts_cols = [c for c in config.get_list("timestamp.column.name") if c]
        inc_col = config.get_string("incrementing.column.name") or ""
        targets: list[TableId | None] = [None] if query is not None else list(tables)
        offsets = self._stored_offsets(mode, targets) if mode != MODE_BULK else {}
        for table in targets:
            if mode == MODE_BULK:
                self._queriers.append(BulkTableQuerier(env, table, query))
                continue
            self._queriers.append(
                TimestampIncrementingTableQuerier(
                    env,
                    table,
                    query,
                    ts_cols if mode != MODE_INCREMENTING else [],
                    inc_col if mode != MODE_TIMESTAMP else None,
                    offsets.get(table),
                    config.get_long("timestamp.initial") if mode != MODE_INCREMENTING else None,
                    config.get_long("timestamp.delay.interval.ms"),
                    config.get_boolean("validate.non.null") and query is None,
                )
            )
        if not self._stop.is_set():
            # Fail fast on an unreachable database, as Confluent's task does.
            self._connection()

    def _stored_offsets(
        self, mode: str, targets: list[TableId | None]
    ) -> dict[TableId | None, dict[str, Any]]:
        """Offsets per table: the current partition first, then the legacy one."""
        reader = self.context.offset_storage_reader()
        wanted: list[tuple[TableId | None, list[dict[str, str]]]] = []
        for t in targets:
            if t is None:
                wanted.append((t, [{"query": "query"}]))
            else:
                wanted.append((t, [{"protocol": "1", "table": t.unquoted()}, {"table": t.table}]))
        found: dict[TableId | None, dict[str, Any]] = {}
        for t, partitions in wanted:
            for p in partitions:
                off = reader.offset(p)
                if off:
                    log.info("Resuming %s from stored offset %s", t or "query", off)
                    found[t] = dict(off)
                    break
        return found

    def _connection(self) -> Any:
        assert self._provider is not None
        conn = self._provider.get()
        if conn is not self._conn:
            if self._provider.dialect != "sqlite":
                # Naive TIMESTAMP columns compare against bound instants in db.timezone.
                zone = self._queriers[0].env.options.db_timezone if self._queriers else "UTC"
                conn.execute("SELECT set_config('TimeZone', %(z)s, false)", {"z": zone})
                conn.commit()
            self._conn = conn
        return conn

    def poll(self) -> list[SourceRecord] | None:
        with self._lock:
            if self._stop.is_set():
                self._close()
                return None
            try:
                return self._poll_once()
            finally:
                if self._stop.is_set():  # stop() came during the poll and left the closing to us
                    self._close()

    def _poll_once(self) -> list[SourceRecord] | None:
        if not self._queriers:
            self._stop.wait(_MAX_WAIT_S)
            return None
        deadline = self._clock() + _MAX_WAIT_S
        while not self._stop.is_set():
            querier = min(self._queriers, key=lambda q: (not q.querying(), q.next_update()))
            now = self._clock()
            if not querier.querying():
                due = querier.next_update()
                if due > now:
                    wait = min(due, deadline) - now
                    if wait > 0:
                        self._stop.wait(wait)
                    if self._clock() < due:
                        return None
            try:
                records = querier.poll(self._connection())
                if querier.exhausted:
                    querier.reset(self._clock())
                self._failures = 0
            except Exception as e:
                self._handle_error(querier, e)
                return None
            if records:
                return records
            if self._clock() >= deadline:
                return None
        return None

    def _handle_error(self, querier: TableQuerier, error: Exception) -> None:
        querier.close_quietly()
        msg = describe_error(error, self._provider.spec.password if self._provider else None)
        transient = _is_transient(error)
        if not transient:
            raise ConnectException(f"Failed to query {querier.describe()}: {msg}") from error
        self._failures += 1
        log.warning("Transient error querying %s (%d): %s", querier.describe(), self._failures, msg)
        if 0 < self._retries < self._failures:
            raise ConnectException(
                f"Failed to query {querier.describe()} after {self._failures} attempts "
                f"(query.retry.attempts={self._retries}): {msg}"
            ) from error
        # Drop the connection so the next poll reconnects (Confluent: isValid → reconnect).
        self._conn = None
        if self._provider is not None:
            self._provider.invalidate()
        querier.last_update = self._clock()

    def stop(self) -> None:
        self._stop.set()
        if self._lock.acquire(blocking=False):
            try:
                self._close()
            finally:
                self._lock.release()

    def _close(self) -> None:
        for q in self._queriers:
            q.close_quietly()
        if self._provider is not None:
            self._provider.close()
        self._conn = None


def _is_transient(error: BaseException) -> bool:
    """Connection-level failures are transient; SQL/data errors are not. The DBAPI classes
    are matched by name along the class's bases (psycopg's ``AdminShutdown``, raised when the
    server is shut down, is an ``OperationalError``), so neither driver is imported here."""
    if not {c.__name__ for c in type(error).__mro__} & {"OperationalError", "InterfaceError"}:
        return False
    text = str(error).lower()
    # SQLite reports a missing table as OperationalError: that one is not transient.
    return "no such table" not in text and "no such column" not in text and "syntax" not in text
