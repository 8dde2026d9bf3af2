"""WHERE/ORDER BY clauses and offsets of the incremental modes
(``TimestampIncrementingCriteria`` and ``TimestampIncrementingOffset``).

SQL shapes, exactly as Confluent's (``T`` table, ``ts`` timestamp expression, ``id`` column)::

    incrementing            WHERE "id" > ? ORDER BY "id" ASC
    timestamp               WHERE ts > ? AND ts < ? ORDER BY ts ASC
    timestamp+incrementing  WHERE ts < ? AND ((ts = ? AND "id" > ?) OR ts > ?) ORDER BY ts,"id" ASC

``ts`` is the one column, or ``COALESCE(c1,c2,…)``. Parameters are returned separately; SQL
text carries the placeholder :data:`PARAM` which the querier renders per driver.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
from typing import Any

from kconnect.api import ConnectException

__all__ = ["PARAM", "Criteria", "Offset", "offset_from_map"]

#: Placeholder token in generated SQL, rendered as ``%s`` (psycopg) or ``?`` (sqlite3).
PARAM = "\x00?"

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

INCREMENTING_FIELD = "incrementing"
TIMESTAMP_FIELD = "timestamp"
TIMESTAMP_NANOS_FIELD = "timestamp_nanos"


@dataclasses.dataclass(frozen=True)
class Offset:
    """A position in a table: last timestamp (aware UTC datetime, µs precision + the nanos
    read from a stored offset) and last incrementing value. Immutable."""

    timestamp: dt.datetime | None = None
    nanos: int | None = None  # nanos-of-second as stored (keeps sub-µs digits from Java)
    incrementing: int | None = None

    def to_map(self) -> dict[str, Any]:
        """Confluent's offset map: ``incrementing``, ``timestamp`` (epoch ms) and
        ``timestamp_nanos`` (nanos of second), each only when set."""
        out: dict[str, Any] = {}
        if self.incrementing is not None:
            out[INCREMENTING_FIELD] = self.incrementing
        if self.timestamp is not None:
            d = self.timestamp - _EPOCH
            secs = d.days * 86_400 + d.seconds
            nanos = self.nanos if self.nanos is not None else d.microseconds * 1000
            out[TIMESTAMP_FIELD] = secs * 1000 + nanos // 1_000_000
            out[TIMESTAMP_NANOS_FIELD] = nanos
        return out


def offset_from_map(data: dict[str, Any] | None) -> Offset:
    """Read a stored offset (from kconnect or a Java deployment)."""
    if not data:
        return Offset()
    inc = data.get(INCREMENTING_FIELD)
    ms = data.get(TIMESTAMP_FIELD)
    ts = nanos = None
    if ms is not None:
        ms = int(ms)
        nanos_raw = data.get(TIMESTAMP_NANOS_FIELD)
        nanos = int(nanos_raw) if nanos_raw is not None else (ms % 1000) * 1_000_000
        ts = _EPOCH + dt.timedelta(seconds=ms // 1000, microseconds=nanos // 1000)
    return Offset(ts, nanos, int(inc) if inc is not None else None)


def timestamp_offset(value: dt.datetime) -> Offset:
    return Offset(value, value.microsecond * 1000, None)


@dataclasses.dataclass(frozen=True)
class Criteria:
    """Builds the WHERE clause of one querier and extracts offsets from its rows.

    Args:
        ts_sql: quoted timestamp expression (None: no timestamp column).
        inc_sql: quoted incrementing column (None: none).
        ts_indexes: result-column positions of the timestamp columns (COALESCE order).
        inc_index: result-column position of the incrementing column.
        zone: ``db.timezone``, applied to naive timestamp values.
    """

    ts_sql: str | None
    inc_sql: str | None
    ts_indexes: tuple[int, ...] = ()
    inc_index: int | None = None
    zone: dt.tzinfo = dt.UTC
    inc_name: str = ""

    def where(self) -> str:
        ts, inc = self.ts_sql, self.inc_sql
        if ts and inc:
            return (
                f" WHERE {ts} < {PARAM} AND (({ts} = {PARAM} AND {inc} > {PARAM}) OR {ts} > {PARAM})"
                f" ORDER BY {ts},{inc} ASC"
            )
        if inc:
            return f" WHERE {inc} > {PARAM} ORDER BY {inc} ASC"
        return f" WHERE {ts} > {PARAM} AND {ts} < {PARAM} ORDER BY {ts} ASC"

    def params(self, offset: Offset, end: dt.datetime | None) -> tuple[Any, ...]:
        inc = offset.incrementing if offset.incrementing is not None else -1
        ts = offset.timestamp if offset.timestamp is not None else _EPOCH
        if self.ts_sql and self.inc_sql:
            return (end, ts, inc, ts)
        if self.inc_sql:
            return (inc,)
        return (ts, end)

    def row_timestamp(self, row: Any) -> dt.datetime | None:
        for i in self.ts_indexes:
            v = row[i]
            if v is not None:
                return to_utc(v, self.zone)
        return None

    def row_incrementing(self, row: Any) -> int:
        v = row[self.inc_index]
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
            return int(v)
        if v is None:
            raise ConnectException(
                f"Null value for incrementing column '{self.inc_name}'; the column must be "
                "NOT NULL (set incrementing.column.name to a non-null, strictly increasing column)"
            )
        raise ConnectException(
            f"Incrementing column '{self.inc_name}' has non-integral value {v!r} "
            f"({type(v).__name__}); use an integer column"
        )


def to_utc(v: Any, zone: dt.tzinfo) -> dt.datetime:
    """A timestamp column value as an aware UTC datetime (naive values are in ``zone``)."""
    moment: dt.datetime
    if isinstance(v, str):  # SQLite text timestamps
        moment = dt.datetime.fromisoformat(v)
    elif isinstance(v, (int, float)):  # SQLite epoch milliseconds
        return _EPOCH + dt.timedelta(milliseconds=v)
    elif isinstance(v, dt.datetime):
        moment = v
    elif isinstance(v, dt.date):
        moment = dt.datetime(v.year, v.month, v.day)
    else:
        raise ConnectException(f"Timestamp column value {v!r} is not a timestamp")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    return moment.astimezone(dt.UTC)
