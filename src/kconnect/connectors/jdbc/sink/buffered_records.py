"""Per-table buffer of records and their conversion to row tuples (Confluent's ``BufferedRecords``).

:class:`BufferedRecords` is created by the writer for one destination table within one
``put`` (task thread). ``add`` buffers a record, flushing first when the record's schemas
differ from the buffered ones (the columns change), when a non-tombstone follows a tombstone
(order), or when ``batch.size`` records are already buffered (so the last statement of a
``put`` is issued by the final ``flush``, which may defer its result). ``add_all`` takes a
range of the put's sequence by position: a run of records with the very schema objects of the
current plan is buffered as one piece, with only identity checks per record
(:mod:`record_pieces`), so on the native path (a ``kconnect_native.RecordBatch``) no Python
record is made for it. ``flush`` turns the buffered records into tuples in one pass (no
per-record schema checks: the plan of their schemas, :mod:`row_plan`, is made once) and writes
them: PostgreSQL through COPY (:mod:`postgres_copy`), SQLite (and the one-record retry path)
through ``executemany``. From a native batch the tuples, or a binary COPY insert's whole
stream, are made from the native values.
Exceptions from the database propagate unchanged; the writer wraps them.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from kconnect._hot_path import native
from kconnect.api import ConnectException, SinkRecord, Struct, Type
from kconnect.api.data.schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
)
from kconnect.connectors.jdbc.common.identifiers import TableId
from kconnect.connectors.jdbc.sink.fields_metadata import Column, FieldsMetadata, fields_metadata
from kconnect.connectors.jdbc.sink.postgres_copy import PendingCopy
from kconnect.connectors.jdbc.sink.record_pieces import Pieces, is_batch
from kconnect.connectors.jdbc.sink.row_plan import (
    Conv,
    Row,
    RowPlan,
    chain,
    defaults_of,
    finish,
    getter,
    json_text,
    post_of,
    scalar_or_json,
    sqlite_value,
    struct_getter,
    timestamp_to_db,
)
from kconnect.connectors.jdbc.sink.sink_config import JdbcSinkConfig, PrimaryKeyMode
from kconnect.connectors.jdbc.sink.sink_dialect import ColumnInfo, SinkDialect, TableInfo

__all__ = ["BufferedRecords", "RowPlan", "RowWriter"]


# (Connect type or logical name) -> PostgreSQL base types whose binary COPY format takes the
# Python value as it is. Any other pairing uses text COPY, where the server parses the value.
_INTS = frozenset({"int2", "int4", "int8"})
_BINARY_OK: dict[object, frozenset[str]] = {
    Type.INT8: _INTS,
    Type.INT16: _INTS,
    Type.INT32: _INTS,
    Type.INT64: _INTS,
    Type.FLOAT32: frozenset({"float4", "float8"}),
    Type.FLOAT64: frozenset({"float8"}),
    Type.BOOLEAN: frozenset({"bool"}),
    Type.STRING: frozenset({"text", "varchar", "bpchar"}),
    Type.BYTES: frozenset({"bytea"}),
    DECIMAL_LOGICAL_NAME: frozenset({"numeric"}),
    DATE_LOGICAL_NAME: frozenset({"date"}),
    TIME_LOGICAL_NAME: frozenset({"time"}),
    TIMESTAMP_LOGICAL_NAME: frozenset({"timestamp", "timestamptz"}),
}
# Binary COPY tuples carry no types: a column's OID only chooses how a value is written.
# psycopg has no binary writer for bpchar (char(n)), whose binary input is text's (the server
# then pads it to the column's length), so its values are written as text.
_COPY_OIDS = {1042: 25}
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


class RowWriter(Protocol):
    """What :class:`BufferedRecords` needs of the writer that owns it: the config and dialect,
    the table (created or amended as allowed) and the statements that write its rows.

    :class:`~kconnect.connectors.jdbc.sink.writer.JdbcDbWriter` is the implementation; it imports
    this module, which therefore names only this protocol.
    """

    config: JdbcSinkConfig
    dialect: SinkDialect

    def ensure_table(
        self, conn: Any, table: TableId, meta: FieldsMetadata, record: SinkRecord
    ) -> TableInfo: ...

    def known_plan(self, table: TableId, key_schema: object, shape: object) -> RowPlan | None: ...

    def keep_plan(
        self, table: TableId, key_schema: object, shape: object, plan: RowPlan
    ) -> None: ...

    def last_plan(self, table: TableId) -> tuple[object, object, RowPlan] | None: ...

    def write_rows(
        self,
        conn: Any,
        table: TableId,
        plan: RowPlan,
        records: Sequence[SinkRecord],
        use_copy: bool,
        defer: bool = False,
    ) -> PendingCopy | None: ...

    def delete_rows(
        self, conn: Any, table: TableId, plan: RowPlan, key_rows: list[Any], use_copy: bool
    ) -> None: ...


class BufferedRecords:
    """Records buffered for one table; see the module docstring for the contract."""

    def __init__(self, writer: RowWriter, table: TableId, conn: Any, use_copy: bool) -> None:
        self._writer = writer
        self._config = writer.config
        self._table = table
        self._conn = conn
        self._use_copy = use_copy
        self._records = Pieces()
        self._deletes: list[SinkRecord] = []
        self._key_schema: object = None
        self._value_shape: object = None
        self._plan: RowPlan | None = None

    @property
    def table(self) -> TableId:
        return self._table

    def add(self, record: SinkRecord) -> None:
        """Buffer ``record``; may flush (and so write to the database) first."""
        value = record.value
        if value is None:
            if not self._config.delete_enabled:
                raise ConnectException(
                    f"Table '{self._table}': the record has a null value (tombstone) but "
                    "delete.enabled is false; enable deletes or drop tombstones with the Filter "
                    "SMT and the RecordIsTombstone predicate "
                    f"(topic '{record.topic}', partition {record.kafka_partition}, offset "
                    f"{record.kafka_offset})"
                )
            if record.key is None:
                raise ConnectException(
                    f"Table '{self._table}': a tombstone needs a non-null key to delete by "
                    f"(topic '{record.topic}', partition {record.kafka_partition}, offset "
                    f"{record.kafka_offset})"
                )
            shape: object = self._value_shape
        elif record.value_schema is not None:
            shape = record.value_schema
        elif isinstance(value, dict):
            shape = tuple(value)
        else:
            raise ConnectException(
                f"Table '{self._table}': the record value is a {type(value).__name__} without "
                "a schema; the JDBC sink needs a Struct with a schema or a JSON object "
                f"(topic '{record.topic}', partition {record.kafka_partition}, offset "
                f"{record.kafka_offset})"
            )
        if len(self._records) + len(self._deletes) >= max(1, self._config.batch_size):
            self.flush()  # full: batch.size records per statement
        changed = self._plan is None or (
            record.key_schema is not self._key_schema and record.key_schema != self._key_schema
        )
        if not changed and shape is not self._value_shape and shape != self._value_shape:
            changed = True
        if changed:
            self.flush()
            self._key_schema = record.key_schema
            self._value_shape = shape
            if value is not None:
                # a plan made for an earlier batch of these schemas is reused (made from a
                # record with a value: a tombstone's plan knows only the key columns)
                plan = self._writer.known_plan(self._table, record.key_schema, shape)
                if plan is None:
                    plan = self._make_plan(record)
                    self._writer.keep_plan(self._table, record.key_schema, shape, plan)
                self._plan = plan
            elif self._plan is None:
                self._plan = self._make_plan(record)
        if value is None:
            self._deletes.append(record)
        else:
            if self._deletes:
                self.flush()  # keep order: a write after a delete must not run before it
            self._records.add_one(record)

    def add_all(
        self, records: Sequence[SinkRecord], start: int = 0, end: int | None = None
    ) -> None:
        """Buffer ``records[start:end]`` (all for this table), in order; may flush on the way.

        Same outcome as :meth:`add` for each record, but a run of records whose schemas are the
        very objects of the current plan (the converter reuses them) -- or of the plan the
        writer last made for the table -- is taken by position, with only identity checks per
        record: from a native batch, no Python record is made for it. Any other record is read
        and added on its own, then the run of records with its very schema objects.
        """
        limit = max(1, self._config.batch_size)
        i, n = start, len(records) if end is None else end
        from_batch = is_batch(records)
        while i < n:
            plan, ks, vs = self._plan, self._key_schema, self._value_shape
            if plan is None:
                last = self._writer.last_plan(self._table)
                if last is not None:
                    ks, vs, plan = last
            # a plan of a value schema (not of a tombstone's key, nor of a schemaless shape)
            if plan is not None and vs is not None and vs.__class__ is not tuple:
                j = schema_run_end(records, i, min(n, i + limit), ks, vs)
                if j > i:
                    if self._plan is None:  # as add() takes the writer's plan of these schemas
                        self._plan, self._key_schema, self._value_shape = plan, ks, vs
                    if self._deletes:
                        self.flush()  # keep order: a write after a delete must not run before it
                    room = limit - len(self._records)
                    if room <= 0:
                        self.flush()  # full: batch.size records per statement
                        room = limit
                    j = min(j, i + room)
                    self._records.add_range(records, i, j)
                    i = j
                    continue
            first = records[i]  # from a batch, this record's SinkRecord is made
            self.add(first)
            if from_batch:
                self._records.batched = True  # a record of it: native COPY is worth trying
            i += 1
            if first.value is None or first.value_schema is None:
                continue
            room = limit - len(self._records) - len(self._deletes)
            j = schema_run_end(records, i, min(n, i + room), first.key_schema, first.value_schema)
            if j > i:
                self._records.add_range(records, i, j)
                i = j

    def flush(self, defer: bool = False) -> PendingCopy | None:
        """Write everything buffered: upserts/inserts/updates first, then deletes.

        ``defer``: when the last statement is a COPY insert, leave its result to read later
        and return it (see :class:`~kconnect.connectors.jdbc.sink.postgres_copy.PendingCopy`).
        """
        plan = self._plan
        if plan is None or (not self._records and not self._deletes):
            return None
        records, deletes = self._records, self._deletes
        self._records, self._deletes = Pieces(), []
        pending = None
        if records:
            pending = self._writer.write_rows(
                self._conn, self._table, plan, records, self._use_copy, defer and not deletes
            )
        if deletes:
            rows = list(map(plan.key_of, deletes))
            self._writer.delete_rows(self._conn, self._table, plan, rows, self._use_copy)
        return pending

    # -- planning (once per schema) -------------------------------------------------------------

    def _make_plan(self, record: SinkRecord) -> RowPlan:
        config = self._config
        if record.value is None:
            # A tombstone first: only the key columns are known.
            meta = fields_metadata(config, str(self._table), _key_only(record))
        else:
            meta = fields_metadata(config, str(self._table), record)
        info = self._writer.ensure_table(self._conn, self._table, meta, record)
        sql_cols: list[str] = []
        infos: list[ColumnInfo] = []
        for c in meta.columns:
            ci = info.find(c.name)
            assert ci is not None  # ensure_table checked every column
            sql_cols.append(ci.name)
            infos.append(ci)
        convs = [self._converter(c, ci) for c, ci in zip(meta.columns, infos, strict=True)]
        row_of = self._row_function(meta, convs)
        n_keys = len(meta.key_columns)
        key_of = self._key_function(meta, convs[:n_keys])
        oids = self._binary_oids(meta.columns, infos)
        key_oids = self._binary_oids(meta.key_columns, infos[:n_keys])
        if native is None:
            return RowPlan(meta, sql_cols, row_of, key_of, oids, key_oids)
        defaults = defaults_of(meta, config.replace_null_with_default)
        sources = self._native_row_sources(meta)
        # The native COPY stream writes each value as it is, timestamps as UTC wall time: the
        # stream of row_of's rows when no column converts anything else (defaults are looked
        # for per batch: RowPlan._defaults_apply).
        copy_native = oids is not None and all(
            conv is None or self._utc_timestamp(c)
            for c, conv in zip(meta.columns, convs, strict=True)
        )
        return RowPlan(
            meta,
            sql_cols,
            row_of,
            key_of,
            oids,
            key_oids,
            sources,
            post_of(convs, defaults),
            copy_native,
            [sources[i] for i in defaults] if defaults else None,
        )

    def _utc_timestamp(self, col: Column) -> bool:
        """Whether ``col``'s conversion only makes a Timestamp UTC wall time (``db.timezone``
        UTC, not a ``timestamp.fields`` column)."""
        config = self._config
        return (
            config.db_timezone is _dt.UTC
            and col.schema is not None
            and col.schema.name == TIMESTAMP_LOGICAL_NAME
            and col.name not in config.timestamp_fields
        )

    def _native_row_sources(self, meta: FieldsMetadata) -> list[tuple[int, str | None]]:
        """``_row_function``'s columns without conversions, as ``kconnect_native.sink_rows``
        sources: (0) topic, (1) partition, (2) offset, (3, name) a value field, (4, name) a key
        field, (6, name) the key field or the key itself."""
        mode = self._config.pk_mode
        keys = [c.name for c in meta.key_columns]
        values: list[tuple[int, str | None]] = [(3, c.name) for c in meta.value_columns]
        if mode is PrimaryKeyMode.KAFKA:
            return [(0, None), (1, None), (2, None), *values]
        if mode is PrimaryKeyMode.RECORD_VALUE:
            return [(3, n) for n in keys] + values
        if mode is PrimaryKeyMode.RECORD_KEY:
            kind = 6 if len(keys) == 1 else 4
            return [(kind, n) for n in keys] + values
        return values

    def _binary_oids(self, cols: Sequence[Column], infos: Sequence[ColumnInfo]) -> list[int] | None:
        if self._writer.dialect.name != "postgresql":
            return None
        oids = []
        for c, ci in zip(cols, infos, strict=True):
            if c.schema is None or c.name in self._config.timestamp_fields:
                return None
            schema, base = c.schema, ci.base_type
            if schema.type is Type.ARRAY:
                # a one-dimensional array of such values: the column is an array of the type
                schema = schema.value_schema
                if not base.startswith("_") or base == "_bpchar":
                    return None
                base = base[1:]
            kind: object = schema.name if schema.name in _BINARY_OK else schema.type
            ok = _BINARY_OK.get(kind)
            if ok is None or base not in ok or ci.type_oid <= 0:
                return None
            oids.append(_COPY_OIDS.get(ci.type_oid, ci.type_oid))
        return oids

    def _converter(self, col: Column, info: ColumnInfo) -> Conv | None:
        """A per-value conversion for this column, or None when the value goes as it is."""
        config = self._config
        tz = config.db_timezone
        sqlite = self._writer.dialect.name == "sqlite"
        schema = col.schema
        name = schema.name if schema is not None else None
        conv: Conv | None = None
        if col.name in config.timestamp_fields and not col.is_key:
            nanos = config.timestamp_nanos

            def conv(v: Any) -> Any:
                n = int(v)
                micros = n // 1000 if nanos else n
                return _EPOCH + _dt.timedelta(microseconds=micros)

            conv = chain(conv, timestamp_to_db(tz, info.base_type == "timestamptz"))
        elif name == TIMESTAMP_LOGICAL_NAME:
            conv = timestamp_to_db(tz, info.base_type == "timestamptz")
        elif name == TIME_LOGICAL_NAME and tz is not _dt.UTC:

            def conv(v: Any) -> Any:
                at = _dt.datetime.combine(_dt.date(1970, 1, 1), v, _dt.UTC).astimezone(tz)
                return at.time().replace(tzinfo=None)

        elif schema is None:
            if info.base_type in ("json", "jsonb"):
                conv = json_text
            elif info.base_type.startswith("_"):
                conv = None  # PostgreSQL arrays take Python lists
            else:
                conv = scalar_or_json
        elif schema.type is Type.ARRAY and sqlite:
            conv = json_text
        if sqlite:
            conv = chain(conv, sqlite_value) if conv else sqlite_value
        return conv

    def _row_function(
        self, meta: FieldsMetadata, convs: list[Conv | None]
    ) -> Callable[[SinkRecord], Row]:
        config = self._config
        mode = config.pk_mode
        value_names = [c.name for c in meta.value_columns]
        if mode is PrimaryKeyMode.RECORD_VALUE:
            value_names = [c.name for c in meta.key_columns] + value_names
        value_part = getter(value_names)
        struct_part = struct_getter(value_names)
        schemaless = meta.schemaless
        defaults = defaults_of(meta, config.replace_null_with_default)

        def values(r: SinkRecord) -> Row:
            v = r.value
            if isinstance(v, Struct):
                return struct_part(v)
            if schemaless:
                return tuple(v.get(n) for n in value_names)
            return value_part(v)

        if mode is PrimaryKeyMode.KAFKA:

            def base(r: SinkRecord) -> Row:
                return (r.topic, r.kafka_partition, r.kafka_offset, *values(r))

        elif mode is PrimaryKeyMode.RECORD_KEY:
            key_of = self._key_function(meta, [None] * len(meta.key_columns))

            def base(r: SinkRecord) -> Row:
                return (*key_of(r), *values(r))

        else:
            base = values
        return finish(base, convs, defaults)

    def _key_function(
        self, meta: FieldsMetadata, convs: list[Conv | None]
    ) -> Callable[[SinkRecord], Row]:
        names = [c.name for c in meta.key_columns]
        if self._config.pk_mode is not PrimaryKeyMode.RECORD_KEY:
            return lambda r: ()
        getter = struct_getter(names)

        def key_of(r: SinkRecord) -> Row:
            k = r.key
            if isinstance(k, Struct):
                return getter(k)
            if isinstance(k, dict):
                return tuple(k.get(n) for n in names)
            return (k,)

        return finish(key_of, convs, {})


def schema_run_end(
    records: Sequence[SinkRecord], start: int, end: int, key_schema: object, value_schema: object
) -> int:
    """The first index in ``start..end`` whose record does not have exactly these schema
    objects or has a null value, or ``end``; found natively when it can be (in a native
    batch, without making Python records)."""
    if is_batch(records):
        return records.schema_run_end(start, end, key_schema, value_schema)
    if native is not None:
        j: int | None = native.schema_run_end(records, start, end, key_schema, value_schema)
        if j is not None:
            return j
    return _schema_run_end_py(records, start, end, key_schema, value_schema)


def _schema_run_end_py(
    records: Sequence[SinkRecord], start: int, end: int, key_schema: object, value_schema: object
) -> int:
    """:func:`schema_run_end` record by record (the reference of the native twin)."""
    j = start
    while j < end:
        r = records[j]
        if r.value_schema is not value_schema or r.key_schema is not key_schema or r.value is None:
            break
        j += 1
    return j


def _key_only(record: SinkRecord) -> SinkRecord:
    return SinkRecord(
        record.topic,
        record.kafka_partition if record.kafka_partition is not None else -1,
        record.key_schema,
        record.key,
        None,
        {},
        record.kafka_offset,
    )
