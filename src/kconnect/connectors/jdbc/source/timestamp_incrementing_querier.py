"""``TimestampIncrementingTableQuerier``: modes ``incrementing``, ``timestamp`` and
``timestamp+incrementing``.

Each run selects only rows past the stored offset (SQL in :mod:`criteria`), in offset order;
every record carries the offset of its row, so Connect resumes exactly where the last
acknowledged record left off. Source partition ``{"protocol":"1","table":"<schema.table>"}``
(``{"query":"query"}`` in query mode); the legacy ``{"table":"<name>"}`` partition is read too,
as Confluent does, when no current one is stored.

Mode ``timestamp`` uses Confluent's conservative offsets (PR #1093): a record's offset only
moves to its own timestamp once the next row has a strictly greater one (or the result ended),
so rows sharing a timestamp are re-read, never skipped, after a restart.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from kconnect.api import ConnectException, DataException, SourceRecord
from kconnect.connectors.jdbc.common.identifiers import TableId
from kconnect.connectors.jdbc.common.metadata import db_now
from kconnect.connectors.jdbc.source.criteria import (
    Criteria,
    Offset,
    offset_from_map,
    timestamp_offset,
)
from kconnect.connectors.jdbc.source.querier import QuerierEnv, TableQuerier

__all__ = ["TimestampIncrementingTableQuerier"]

log = logging.getLogger(__name__)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


class TimestampIncrementingTableQuerier(TableQuerier):
    """Args beyond :class:`TableQuerier`: the timestamp columns (empty: none), the incrementing
    column (``""``: auto-detect; None: none), the stored offset map, ``timestamp.initial``,
    ``timestamp.delay.interval.ms`` and ``validate.non.null``."""

    def __init__(
        self,
        env: QuerierEnv,
        table: TableId | None,
        query: str | None,
        timestamp_columns: list[str],
        incrementing_column: str | None,
        stored_offset: dict[str, Any] | None,
        timestamp_initial: int | None = None,
        delay_ms: int = 0,
        validate_non_null: bool = True,
    ) -> None:
        super().__init__(env, table, query)
        self.timestamp_columns = list(timestamp_columns)
        self.incrementing_column = incrementing_column
        self.offset = offset_from_map(stored_offset)
        self._initial = timestamp_initial if not stored_offset else None
        self.delay_ms = delay_ms
        self.validate_non_null = validate_non_null
        self._resolved = False
        self._criteria: Criteria | None = None
        self._peek: Any = None
        self._has_peek = False

    @property
    def source_partition(self) -> dict[str, str]:
        if self.table is None:
            return {"query": "query"}
        return {"protocol": "1", "table": self.table.unquoted()}

    # -- statement -----------------------------------------------------------------------------

    def _resolve_columns(self, conn: Any) -> None:
        """Auto-detect the incrementing column and check NOT NULL (table mode, first run)."""
        if self._resolved or self.table is None:
            self._resolved = True
            return
        cols = self.table_columns(conn)
        if not cols:
            raise ConnectException(f"Table {self.table} does not exist or has no columns")
        by_name = {c.name: c for c in cols}
        if self.incrementing_column == "":
            auto = [c for c in cols if c.autoincrement]
            if not auto:
                raise ConnectException(
                    f"Cannot find an auto-increment column in table {self.table}; set "
                    "incrementing.column.name to a strictly increasing NOT NULL column"
                )
            self.incrementing_column = auto[0].name
            log.info("Using column %s of %s as the incrementing column", auto[0].name, self.table)
        if self.validate_non_null:
            inc = self.incrementing_column
            if inc is not None:
                col = by_name.get(inc) or _casefold_lookup(by_name, inc)
                if col is None:
                    raise ConnectException(
                        f"Incrementing column '{inc}' is not a column of table {self.table}"
                    )
                if col.nullable:
                    raise ConnectException(
                        f"Cannot make incremental queries using incrementing column {inc} on "
                        f"{self.table} because this column is nullable (make it NOT NULL or "
                        "set validate.non.null=false)."
                    )
            if self.timestamp_columns:
                found = [
                    by_name.get(t) or _casefold_lookup(by_name, t) for t in self.timestamp_columns
                ]
                missing = [
                    t for t, c in zip(self.timestamp_columns, found, strict=True) if c is None
                ]
                if missing:
                    raise ConnectException(
                        f"Timestamp column(s) {', '.join(missing)} not found in table {self.table}"
                    )
                if all(c is not None and c.nullable for c in found):
                    raise ConnectException(
                        f"Cannot make incremental queries using timestamp columns "
                        f"{self.timestamp_columns} on {self.table} because all of these columns "
                        "are nullable (make one NOT NULL or set validate.non.null=false)."
                    )
        self._resolved = True

    def _statement(self, conn: Any) -> tuple[str, tuple[Any, ...]]:
        self._resolve_columns(conn)
        rules = self.env.rules
        ts_sql = None
        if self.timestamp_columns:
            quoted = [rules.quote(c) for c in self.timestamp_columns]
            ts_sql = quoted[0] if len(quoted) == 1 else f"COALESCE({','.join(quoted)})"
        inc_sql = rules.quote(self.incrementing_column) if self.incrementing_column else None
        if ts_sql is None and inc_sql is None:
            raise ConnectException(f"No timestamp or incrementing column for {self.describe()}")
        self._criteria = Criteria(ts_sql, inc_sql, zone=self.env.options.zone,
                                  inc_name=self.incrementing_column or "")  # fmt: skip
        end = None
        if ts_sql is not None:
            now = db_now(conn, self.env.dialect)
            end = now - dt.timedelta(milliseconds=self.delay_ms)
            if self._initial is not None and self.offset.timestamp is None:
                start = (
                    now
                    if self._initial == -1
                    else _EPOCH + dt.timedelta(milliseconds=self._initial)
                )
                self.offset = Offset(start, start.microsecond * 1000, self.offset.incrementing)
            self._initial = None
        params = self._criteria.params(self.offset, end)
        params = tuple(self.bind_timestamp(p) if isinstance(p, dt.datetime) else p for p in params)
        self._has_peek = False
        return self.base_sql() + self._criteria.where(), params

    # -- rows ----------------------------------------------------------------------------------

    def fetch(self, n: int) -> list[Any]:
        # Timestamp mode looks one row ahead (see the module docstring).
        if not (self.timestamp_columns and not self.incrementing_column):
            return super().fetch(n)
        rows: list[Any] = [self._peek] if self._has_peek else []
        rows.extend(self._cursor.fetchmany(n - len(rows)))
        nxt = self._cursor.fetchmany(1) if len(rows) == n else []
        self._has_peek = bool(nxt)
        self._peek = nxt[0] if nxt else None
        if not nxt:
            self.exhausted = True
        return rows

    def _bind_indexes(self) -> None:
        assert self._criteria is not None
        idx = {n: i for i, n in enumerate(self._names)}
        ts_idx = tuple(_column_index(idx, c) for c in self.timestamp_columns)
        inc_idx = _column_index(idx, self.incrementing_column) if self.incrementing_column else None
        self._criteria = _with(self._criteria, ts_idx, inc_idx)

    def _to_records(self, rows: list[Any]) -> list[SourceRecord]:
        assert self._criteria is not None
        if self._criteria.inc_index is None and not self._criteria.ts_indexes:
            self._bind_indexes()
        crit = self._criteria
        structs = self.structs(rows)
        partition, topic, schema = self.source_partition, self.topic, self._schema
        out = []
        offset = self.offset
        if crit.ts_sql and crit.inc_sql:
            for row, s in zip(rows, structs, strict=True):
                ts = crit.row_timestamp(row)
                offset = Offset(
                    ts, ts.microsecond * 1000 if ts else None, crit.row_incrementing(row)
                )
                out.append(
                    SourceRecord(partition, offset.to_map(), topic, None, None, None, schema, s)
                )
        elif crit.inc_sql:
            for row, s in zip(rows, structs, strict=True):
                offset = Offset(incrementing=crit.row_incrementing(row))
                out.append(SourceRecord(partition, {"incrementing": offset.incrementing}, topic,
                                        None, None, None, schema, s))  # fmt: skip
        else:
            last = len(rows) - 1
            for i, (row, s) in enumerate(zip(rows, structs, strict=True)):
                ts = crit.row_timestamp(row)
                if i < last:
                    nxt = crit.row_timestamp(rows[i + 1])
                elif self._has_peek:
                    nxt = crit.row_timestamp(self._peek)
                else:
                    nxt = None
                if ts is not None and (nxt is None or nxt > ts):
                    offset = timestamp_offset(ts)
                out.append(
                    SourceRecord(partition, offset.to_map(), topic, None, None, None, schema, s)
                )
        self.offset = offset
        return out

    def reset(self, now: float) -> None:
        self._has_peek = False
        self._peek = None
        if self._criteria is not None:
            self._criteria = _with(self._criteria, (), None)
        super().reset(now)


def _with(c: Criteria, ts_idx: tuple[int, ...], inc_idx: int | None) -> Criteria:
    return Criteria(c.ts_sql, c.inc_sql, ts_idx, inc_idx, c.zone, c.inc_name)


def _casefold_lookup(by_name: dict[str, Any], name: str) -> Any:
    hits = [v for k, v in by_name.items() if k.lower() == name.lower()]
    return hits[0] if len(hits) == 1 else None


def _column_index(idx: dict[str, int], name: str) -> int:
    """Exact match first, then a unique case-insensitive match (as Confluent)."""
    if name in idx:
        return idx[name]
    hits = [i for n, i in idx.items() if n.lower() == name.lower()]
    if len(hits) == 1:
        return hits[0]
    raise DataException(f"Column '{name}' not found in the result columns {sorted(idx)}")
