"""The PostgreSQL fast path: ``COPY`` for inserts, COPY into a staging table for the rest.

* ``insert``: ``COPY t (cols) FROM STDIN`` straight into the table.
* ``upsert``: COPY into a temporary staging table with the table's column types, then
  ``INSERT INTO t SELECT … FROM stage ON CONFLICT (keys) DO UPDATE SET …``.
* ``update``: COPY into the stage, then ``UPDATE t SET … FROM stage WHERE keys match``.
* deletes (tombstones): COPY the keys into a stage, then ``DELETE FROM t USING stage …``.

Rows arrive as tuples already in column order (keys first). Binary COPY is used when the
caller vouches that every value has the Python type the column's binary format expects (it
passes the column type OIDs); otherwise text COPY, where PostgreSQL parses each value and the
result is the same as for a parameterised INSERT. Both are exact. On the native path
(``kconnect._hot_path``) a binary COPY's whole stream is encoded by ``kconnect_native`` in
one call, byte for byte what psycopg writes row by row; rows it does not handle go to psycopg.
An insert may also be handed that stream ready-made (``data``: the sink made it from a native
record batch's values, :func:`join_streams` joining the streams of several pieces); the
caller checks :meth:`PostgresCopyWriter.takes_streams` first.

Within one batch the last row per key wins (as Confluent's sequential ``executeBatch``): the
rows are de-duplicated before an upsert/update, which PostgreSQL needs since one statement may
not touch a row twice.

``insert`` may leave the end of its COPY pending (``defer=True``): the rows are sent and the
copy is closed, but the server's answer is read later by :meth:`PendingCopy.complete`, so the
server ingests the rows while the caller does other work (the sink converts its next batch).
Until then the connection must not be used for anything else.

Staging tables are ``TEMP`` tables kept for the session and emptied after each use. They are
created inside the caller's transaction, so :meth:`PostgresCopyWriter.rolled_back` must be
called when that transaction is rolled back. Runs on the task thread; blocks on the database.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from kconnect._hot_path import native
from kconnect.connectors.jdbc.common.identifiers import TableId
from kconnect.connectors.jdbc.sink.sink_dialect import PostgresSinkDialect

__all__ = ["PendingCopy", "PostgresCopyWriter", "join_streams"]

# A binary COPY stream: this header (signature, flags, header extension length), the tuples,
# this trailer.
_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_TRAILER = b"\xff\xff"


class PendingCopy:
    """A COPY whose data and end were sent but whose result was not read yet.

    Built on psycopg's copy ``Writer`` hook: ``finish`` sends the end of the copy without
    waiting, :meth:`complete` reads the result. Used by the task thread only.
    """

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self.writer = _end_without_waiting()(cursor)
        self.done = False

    def complete(self) -> None:
        """Wait for the server's result of the COPY.

        Raises:
            psycopg.Error: the server refused the data (the transaction is then aborted).
        """
        if self.done:
            return
        self.done = True
        from psycopg import errors, pq
        from psycopg.generators import fetch_many

        conn = self._cursor.connection
        try:
            results = conn.wait(fetch_many(conn.pgconn))
        finally:
            self._cursor.close()
        for res in results:
            if res.status != pq.ExecStatus.COMMAND_OK:
                raise errors.error_from_result(res, encoding=conn.info.encoding)


@functools.cache
def _end_without_waiting() -> type:
    """psycopg's copy writer whose ``finish`` sends the end of the copy without waiting for
    the result (made once: psycopg is imported only when a PostgreSQL sink writes)."""
    from psycopg.copy import LibpqWriter

    class _EndWithoutWaiting(LibpqWriter):
        def finish(self, exc: BaseException | None = None) -> None:
            if exc is not None:
                super().finish(exc)  # abort the copy and wait, as psycopg does
                return
            self.connection.wait(_send_copy_end(self._pgconn))

    return _EndWithoutWaiting


def _send_copy_end(pgconn: Any) -> Any:
    """psycopg wait-generator: queue the end of the copy and flush it, reading nothing."""
    from psycopg.waiting import Wait

    while pgconn.put_copy_end(None) == 0:
        while not (yield Wait.W):
            continue
    while True:
        while not (yield Wait.W):
            continue
        if pgconn.flush() == 0:
            return


class PostgresCopyWriter:
    """Writes batches of row tuples to PostgreSQL tables with COPY. One per task connection."""

    def __init__(self, dialect: PostgresSinkDialect) -> None:
        self._dialect = dialect
        self._stages: dict[tuple[TableId, tuple[str, ...]], str] = {}
        self._created_in_txn: list[tuple[TableId, tuple[str, ...]]] = []
        self._counter = 0

    def committed(self) -> None:
        """The caller committed: staging tables created so far are permanent for the session."""
        self._created_in_txn.clear()

    def rolled_back(self) -> None:
        """The caller rolled back: staging tables created in that transaction are gone."""
        for key in self._created_in_txn:
            self._stages.pop(key, None)
        self._created_in_txn.clear()

    def reset(self) -> None:
        """The connection was replaced: no staging table exists any more."""
        self._stages.clear()
        self._created_in_txn.clear()

    def _q(self, name: str) -> str:
        return self._dialect.rules.quote(name)

    @staticmethod
    def takes_streams(conn: Any) -> bool:
        """Whether a binary COPY stream made natively may be sent on ``conn`` (its text is
        UTF-8, the client encoding must be too)."""
        return native is not None and conn.info.encoding == "utf-8"

    def _copy(
        self,
        cur: Any,
        target: str,
        cols: Sequence[str],
        rows: Sequence[Sequence[Any]],
        oids: Sequence[int] | None,
        pending: PendingCopy | None = None,
        data: bytes | None = None,
    ) -> None:
        col_list = ",".join(self._q(c) for c in cols)
        fmt = " (FORMAT BINARY)" if oids is not None else ""
        writer = pending.writer if pending is not None else None
        with cur.copy(f"COPY {target} ({col_list}) FROM STDIN{fmt}", writer=writer) as copy:
            if data is not None and oids is not None:
                copy.write(data)  # the caller's ready-made stream of the rows
                return
            if oids is not None:
                data = _native_binary(cur, rows, oids)
                if data is not None:
                    # The whole stream at once (psycopg's block mode): the same bytes as the
                    # rows written one by one below.
                    copy.write(data)
                    return
                copy.set_types(list(oids))
            write_row = copy.write_row
            for row in rows:
                write_row(row)

    def _stage(self, cur: Any, table: TableId, cols: tuple[str, ...]) -> str:
        key = (table, cols)
        name = self._stages.get(key)
        if name is None:
            self._counter += 1
            name = f"kconnect_stage_{self._counter}"
            col_list = ",".join(self._q(c) for c in cols)
            # Same column types as the target (varchar(10) stays varchar(10)), no constraints.
            cur.execute(
                f"CREATE TEMP TABLE {name} AS SELECT {col_list} "
                f"FROM {self._dialect.rules.quote_table(table)} WITH NO DATA"
            )
            self._stages[key] = name
            self._created_in_txn.append(key)
        return name

    def insert(
        self,
        conn: Any,
        table: TableId,
        cols: Sequence[str],
        rows: Sequence[Sequence[Any]],
        oids: Sequence[int] | None,
        defer: bool = False,
        data: bytes | None = None,
    ) -> PendingCopy | None:
        """COPY ``rows`` into ``table``; with ``defer`` the result is left to read later
        (returned :class:`PendingCopy`), else it is read before returning. ``data``: the
        binary COPY stream of the rows for ``oids``, made by the caller (``rows`` then unused;
        see :meth:`takes_streams`)."""
        target = self._dialect.rules.quote_table(table)
        if not defer:
            with conn.cursor() as cur:
                self._copy(cur, target, cols, rows, oids, None, data)
            return None
        cur = conn.cursor()
        pending = PendingCopy(cur)
        try:
            self._copy(cur, target, cols, rows, oids, pending, data)
        except BaseException:
            cur.close()
            raise
        return pending

    def upsert(
        self,
        conn: Any,
        table: TableId,
        cols: Sequence[str],
        n_keys: int,
        rows: Sequence[Sequence[Any]],
        oids: Sequence[int] | None,
        update_only: bool = False,
    ) -> None:
        """Insert-or-update (``update_only``: update existing rows only) by the first
        ``n_keys`` columns."""
        rows = _last_per_key(rows, n_keys)
        keys, non_keys = cols[:n_keys], cols[n_keys:]
        target = self._dialect.rules.quote_table(table)
        with conn.cursor() as cur:
            stage = self._stage(cur, table, tuple(cols))
            self._copy(cur, stage, cols, rows, oids)
            q = self._q
            col_list = ",".join(q(c) for c in cols)
            if update_only:
                if non_keys:
                    sets = ", ".join(f"{q(c)} = s.{q(c)}" for c in non_keys)
                    match = " AND ".join(f"t.{q(k)} = s.{q(k)}" for k in keys)
                    cur.execute(f"UPDATE {target} AS t SET {sets} FROM {stage} AS s WHERE {match}")
            else:
                conflict = ",".join(q(k) for k in keys)
                if non_keys:
                    sets = ",".join(f"{q(c)}=EXCLUDED.{q(c)}" for c in non_keys)
                    action = f"DO UPDATE SET {sets}"
                else:
                    action = "DO NOTHING"
                cur.execute(
                    f"INSERT INTO {target} ({col_list}) SELECT {col_list} FROM {stage} "
                    f"ON CONFLICT ({conflict}) {action}"
                )
            cur.execute(f"TRUNCATE {stage}")

    def delete(
        self,
        conn: Any,
        table: TableId,
        keys: Sequence[str],
        key_rows: Sequence[Sequence[Any]],
        oids: Sequence[int] | None,
    ) -> None:
        """Delete the rows whose key columns equal one of ``key_rows``."""
        target = self._dialect.rules.quote_table(table)
        q = self._q
        with conn.cursor() as cur:
            stage = self._stage(cur, table, tuple(keys))
            self._copy(cur, stage, keys, key_rows, oids)
            match = " AND ".join(f"t.{q(k)} = s.{q(k)}" for k in keys)
            cur.execute(f"DELETE FROM {target} AS t USING {stage} AS s WHERE {match}")
            cur.execute(f"TRUNCATE {stage}")


def _native_binary(cur: Any, rows: Sequence[Sequence[Any]], oids: Sequence[int]) -> bytes | None:
    """On the native path, the binary COPY stream of ``rows`` exactly as psycopg's
    ``write_row`` would write it (signature, tuples, trailer); None when the native code does
    not handle one of the column types or values (then psycopg writes them), or on another
    client encoding than UTF-8."""
    if native is None or cur.connection.info.encoding != "utf-8":
        return None
    data: bytes | None = native.copy_binary(
        rows if rows.__class__ is list else list(rows), list(oids)
    )
    return data


def join_streams(streams: Sequence[bytes]) -> bytes:
    """One binary COPY stream of the tuples of ``streams`` (each a whole stream), in order."""
    if len(streams) == 1:
        return streams[0]
    h, t = len(_HEADER), len(_TRAILER)
    return b"".join([_HEADER, *(memoryview(s)[h:-t] for s in streams), _TRAILER])


def _last_per_key(rows: Sequence[Sequence[Any]], n_keys: int) -> Sequence[Sequence[Any]]:
    """The rows with, for each key, only the last one (later records win, as in Kafka order)."""
    if n_keys == 1:
        by_key: dict[Any, Sequence[Any]] = {r[0]: r for r in rows}
    else:
        by_key = {tuple(r[:n_keys]): r for r in rows}
    if len(by_key) == len(rows):
        return rows
    return list(by_key.values())
