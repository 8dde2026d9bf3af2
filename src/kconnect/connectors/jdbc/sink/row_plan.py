"""How a record becomes a row of the JDBC sink: :class:`RowPlan` and the row functions.

A :class:`RowPlan` is made by :class:`~kconnect.connectors.jdbc.sink.buffered_records.BufferedRecords`
once per (key schema, value shape, table) and used on the task thread for every row of those
schemas: ``row_of`` takes a record's columns (``sources`` says where from, for the native row
makers) and ``post`` applies what the column needs (a schema default in place of a null, a
conversion such as a Timestamp to the ``db.timezone`` wall time). :meth:`RowPlan.rows` makes
the rows of buffered records, :meth:`RowPlan.copy_stream` a binary COPY insert's whole stream
straight from a native record batch's values when that is the stream of those rows.
"""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

import orjson

from kconnect._hot_path import native
from kconnect.api import SinkRecord, Struct
from kconnect.connectors.jdbc.sink.fields_metadata import FieldsMetadata
from kconnect.connectors.jdbc.sink.postgres_copy import join_streams
from kconnect.connectors.jdbc.sink.record_pieces import RECORD_BATCH, Pieces, is_batch

__all__ = [
    "Conv",
    "Row",
    "RowPlan",
    "chain",
    "defaults_of",
    "finish",
    "getter",
    "json_text",
    "post_of",
    "scalar_or_json",
    "sqlite_value",
    "struct_getter",
    "timestamp_to_db",
]

Row = Sequence[Any]
Conv = Callable[[Any], Any]


class RowPlan:
    """How to turn a record into a row for one (schemas, table) combination.

    ``sql_cols`` are the table's column names, keys first (``n_keys`` of them); ``oids`` /
    ``key_oids`` the column type OIDs when the rows may go by binary COPY, else None.
    ``row_of`` makes a record's row: its columns as they are (``sources``), then ``post``
    (defaults for nulls, conversions) when the plan has any.
    """

    def __init__(
        self,
        meta: FieldsMetadata,
        sql_cols: list[str],
        row_of: Callable[[SinkRecord], Row],
        key_of: Callable[[SinkRecord], Row],
        oids: list[int] | None,
        key_oids: list[int] | None,
        sources: list[tuple[int, str | None]] | None = None,
        post: Callable[[Row], Row] | None = None,
        copy_native: bool = False,
        default_sources: list[tuple[int, str | None]] | None = None,
    ) -> None:
        self.meta = meta
        self.sql_cols = sql_cols
        self.n_keys = len(meta.key_columns)
        self.row_of = row_of
        self.key_of = key_of
        self.oids = oids
        self.key_oids = key_oids
        #: where each column of a row comes from, before ``post``, for the native row makers
        #: (``kconnect_native.sink_rows``, ``RecordBatch.rows``); None on the pure-Python path
        self.sources = sources
        #: what ``row_of`` does to the columns once taken (defaults, conversions); None: nothing
        self.post = post
        #: whether the binary COPY stream ``RecordBatch.copy_binary`` makes from the native
        #: values for ``oids`` is the stream of ``row_of``'s rows: ``post`` converts nothing but
        #: timestamps to UTC wall time (which the native stream writes), and a default replacing
        #: a null -- the columns with defaults are ``default_sources`` -- is looked for first
        self.copy_native = copy_native
        self.default_sources = default_sources

    def rows(self, records: Sequence[SinkRecord]) -> list[Row]:
        """``row_of`` of each record (made by the native code when it can, the same tuples)."""
        if records.__class__ is not Pieces:
            return self._record_rows(records)
        pieces = records.pieces
        if len(pieces) == 1:
            return self._piece_rows(*pieces[0])
        out: list[Row] = []
        for piece in pieces:
            out += self._piece_rows(*piece)
        return out

    def _piece_rows(self, seq: Sequence[SinkRecord], start: int, end: int) -> list[Row]:
        if is_batch(seq):
            if self.sources is not None:
                rows: list[Row] | None = seq.rows(start, end, self.sources, self.meta.schemaless)
                if rows is not None:
                    return rows if self.post is None else list(map(self.post, rows))
            return self._record_rows(seq[start:end])  # the native code handed them back
        return self._record_rows(seq if start == 0 and end == len(seq) else seq[start:end])

    def _record_rows(self, records: Sequence[SinkRecord]) -> list[Row]:
        if self.sources is not None and native is not None:
            rows: list[Row] | None = native.sink_rows(
                records if records.__class__ is list else list(records),
                self.sources,
                self.meta.schemaless,
            )
            if rows is not None:
                return rows if self.post is None else list(map(self.post, rows))
        return list(map(self.row_of, records))

    def copy_stream(self, records: Sequence[SinkRecord]) -> bytes | None:
        """The binary COPY stream of ``rows(records)`` for ``oids``, made natively from a
        batch's values; None when no record is from a native batch or the native code hands
        one back (the rows then go by :meth:`rows`)."""
        if not self.copy_native or records.__class__ is not Pieces or not records.batched:
            return None
        oids = self.oids
        assert oids is not None and self.sources is not None and native is not None
        streams: list[bytes] = []
        for seq, start, end in records.pieces:
            batch: Any = seq
            if seq.__class__ is not RECORD_BATCH:
                # records read one by one (the first of a run): taken back into a batch of
                # their own, since the native rows-to-COPY encoder knows fewer types
                batch = RECORD_BATCH.from_records(list(seq[start:end]))
                start, end = 0, end - start
            if self.default_sources is not None and self._defaults_apply(batch, start, end):
                return None
            data: bytes | None = batch.copy_binary(
                start, end, self.sources, self.meta.schemaless, oids
            )
            if data is None:
                return None
            streams.append(data)
        return join_streams(streams)

    def _defaults_apply(self, batch: Any, start: int, end: int) -> bool:
        """Whether ``row_of`` would put a default in place of a null in one of the rows of
        ``batch[start:end]`` (or the native code cannot tell)."""
        sources = self.default_sources
        assert sources is not None
        got = batch.rows(start, end, sources, self.meta.schemaless)
        if got is None:
            return True
        if len(sources) == 1:
            return (None,) in got
        return any(None in row for row in got)


def getter(names: list[str]) -> Callable[[Any], Row]:
    """The values of keys ``names`` of a mapping, as a row."""
    if not names:
        return lambda d: ()
    if len(names) == 1:
        n = names[0]
        return lambda d: (d[n],)
    return itemgetter(*names)


def struct_getter(names: list[str]) -> Callable[[Struct], Row]:
    """The values of fields ``names`` of a Struct (as put, without a copy; never put is
    null), by index in its schema's field order, worked out once per schema; KeyError for a
    name the schema lacks."""
    last: list[Any] = [None, None]

    def get(s: Struct) -> Row:
        schema = s.schema
        if schema is not last[0]:
            indexes = []
            for n in names:
                f = schema.field(n)
                if f is None:
                    raise KeyError(n)
                indexes.append(f.index)
            last[1] = (
                (lambda v: ())
                if not indexes
                else (lambda v, i=indexes[0]: (v[i],))
                if len(indexes) == 1
                else itemgetter(*indexes)
            )
            last[0] = schema
        row: Row = last[1](s.raw_values())
        return row

    return get


def defaults_of(meta: FieldsMetadata, replace: bool) -> dict[int, Any]:
    """The schema defaults by column position (none unless ``replace.null.with.default``)."""
    if not replace:
        return {}
    return {
        i: c.schema.default_value
        for i, c in enumerate(meta.columns)
        if c.schema is not None and c.schema.default_value is not None
    }


def finish(
    base: Callable[[SinkRecord], Row], convs: list[Conv | None], defaults: dict[int, Any]
) -> Callable[[SinkRecord], Row]:
    """The row function: ``base`` takes a record's columns, then :func:`post_of` applies."""
    post = post_of(convs, defaults)
    if post is None:
        return base
    return lambda r: post(base(r))


def post_of(convs: list[Conv | None], defaults: dict[int, Any]) -> Callable[[Row], Row] | None:
    """What a row function does to the columns it took: defaults in place of nulls, then the
    conversions of the non-null values; None when there is nothing to do."""
    steps = [(i, f) for i, f in enumerate(convs) if f is not None]
    if not steps and not defaults:
        return None
    fill = list(defaults.items())

    def post(taken: Row) -> Row:
        row = list(taken)
        for i, dv in fill:
            if row[i] is None:
                row[i] = dv
        for i, f in steps:
            v = row[i]
            if v is not None:
                row[i] = f(v)
        return row

    return post


def chain(first: Conv | None, second: Conv) -> Conv:
    """``second`` after ``first`` (when there is one)."""
    if first is None:
        return second
    return lambda v: second(first(v))


def timestamp_to_db(tz: _dt.tzinfo, keep_zone: bool) -> Conv:
    """A Timestamp as the column takes it: the instant (``keep_zone``: timestamptz), else the
    wall time in ``tz`` (``db.timezone``); a naive datetime is read as UTC."""
    if keep_zone:
        return lambda v: v if v.tzinfo is not None else v.replace(tzinfo=_dt.UTC)

    def conv(v: Any) -> Any:
        if v.tzinfo is None:
            v = v.replace(tzinfo=_dt.UTC)
        return v.astimezone(tz).replace(tzinfo=None)

    return conv


def json_text(v: Any) -> Any:
    """A schemaless value for a json/jsonb column: its JSON text (a string as it is)."""
    if isinstance(v, str):
        return v
    return orjson.dumps(v).decode()


def scalar_or_json(v: Any) -> Any:
    """A schemaless value for another column: maps and lists as JSON text."""
    if isinstance(v, (dict, list)):
        return orjson.dumps(v).decode()
    return v


def sqlite_value(v: Any) -> Any:
    """A value as SQLite stores it: decimals, dates and times as text, maps/lists as JSON."""
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, _dt.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, (_dt.date, _dt.time)):
        return v.isoformat()
    if isinstance(v, (dict, list)):
        return orjson.dumps(v).decode()
    return v
