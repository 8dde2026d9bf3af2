"""``TableMonitorThread``: keeps the connector's list of tables current.

Started by ``JdbcSourceConnector.start`` (table mode only) after a first synchronous listing.
Every ``table.poll.interval.ms`` it lists the tables again (its own connection), applies the
filters, and when the list changed calls ``context.request_task_reconfiguration()``. A
database error is logged and retried next interval; a duplicate unqualified table name (two
schemas, one topic) fails the connector through ``context.raise_error``. ``shutdown()`` may be
called from any thread; it wakes the thread and waits for it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable

from kconnect.api import ConnectException, ConnectorContext
from kconnect.connectors.jdbc.common.connection import ConnectionProvider, describe_error
from kconnect.connectors.jdbc.common.identifiers import IdentifierRules, TableId
from kconnect.connectors.jdbc.common.metadata import list_tables

__all__ = ["TableFilter", "TableMonitorThread"]

log = logging.getLogger(__name__)


class TableFilter:
    """``table.whitelist``/``blacklist`` (exact: unquoted FQN, quoted FQN or bare name) or
    ``table.include.list``/``exclude.list`` (full-match regexes on the unquoted FQN)."""

    def __init__(
        self,
        rules: IdentifierRules,
        whitelist: list[str],
        blacklist: list[str],
        include: list[str],
        exclude: list[str],
    ) -> None:
        self.rules = rules
        self.whitelist = {w.strip() for w in whitelist if w.strip()}
        self.blacklist = {b.strip() for b in blacklist if b.strip()}
        self.include = [re.compile(p.strip()) for p in include if p.strip()]
        self.exclude = [re.compile(p.strip()) for p in exclude if p.strip()]

    def _names(self, t: TableId) -> set[str]:
        always = IdentifierRules(self.rules.quote_char, True, False)
        return {t.unquoted(), always.quote_table(t), t.table}

    def accepts(self, t: TableId) -> bool:
        if self.include:
            fqn = t.unquoted()
            if not any(p.fullmatch(fqn) for p in self.include):
                return False
            return not any(p.fullmatch(fqn) for p in self.exclude)
        if self.whitelist:
            return bool(self._names(t) & self.whitelist)
        if self.blacklist:
            return not (self._names(t) & self.blacklist)
        return True


def check_duplicates(tables: list[TableId]) -> None:
    seen: dict[str, TableId] = {}
    dups = []
    for t in tables:
        if t.table in seen:
            dups.append(f"{seen[t.table]} and {t}")
        seen[t.table] = t
    if dups:
        raise ConnectException(
            "The connector uses the unqualified table name as the topic name and has detected "
            f"duplicate unqualified table names. This could lead to mixed data types in the "
            f"topic and downstream processing errors. To prevent such processing errors, the "
            f"JDBC Source connector fails to start when it detects duplicate table name "
            f"configurations: {', '.join(dups)}. Narrow the table filters or schema.pattern."
        )


class TableMonitorThread(threading.Thread):
    def __init__(
        self,
        provider: ConnectionProvider,
        context: ConnectorContext,
        table_filter: TableFilter,
        table_types: list[str],
        catalog_pattern: str | None,
        schema_pattern: str | None,
        poll_interval_ms: int,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        super().__init__(name="jdbc-table-monitor", daemon=True)
        self.provider = provider
        self.context = context
        self.filter = table_filter
        self.table_types = table_types
        self.catalog_pattern = catalog_pattern
        self.schema_pattern = schema_pattern
        self.poll_interval_s = max(poll_interval_ms, 1) / 1000
        self._stop_event = threading.Event()
        self._lock = threading.Lock()
        self._tables: list[TableId] | None = None
        self._on_error = on_error

    def list_now(self) -> list[TableId]:
        """List and filter the tables (caller's thread); raises on database errors."""
        conn = self.provider.get_valid()
        try:
            found = list_tables(
                conn,
                self.provider.dialect,
                self.table_types,
                self.catalog_pattern,
                self.schema_pattern,
            )
        finally:
            conn.rollback()
        tables = [t for t in found if self.filter.accepts(t)]
        check_duplicates(tables)
        return tables

    def refresh(self) -> bool:
        """Re-list; True (and a reconfiguration request) when the list changed."""
        tables = self.list_now()
        with self._lock:
            changed = self._tables is not None and tables != self._tables
            first = self._tables is None
            self._tables = tables
        if changed:
            log.info("Table list changed to %s; requesting task reconfiguration", tables)
            self.context.request_task_reconfiguration()
        return changed or first

    def tables(self) -> list[TableId] | None:
        with self._lock:
            return None if self._tables is None else list(self._tables)

    def run(self) -> None:
        while not self._stop_event.wait(self.poll_interval_s):
            try:
                self.refresh()
            except ConnectException as e:
                log.error("Table monitor failed: %s", e)
                self.context.raise_error(e)
                return
            except Exception as e:
                log.warning(
                    "Could not list tables (retrying in %.0f s): %s",
                    self.poll_interval_s,
                    describe_error(e, self.provider.spec.password),
                )

    def shutdown(self) -> None:
        self._stop_event.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout=10)
