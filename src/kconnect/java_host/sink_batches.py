"""Records for the Java plugin host: the binary batch a ``sink_task_put`` carries (and, in
protocol v5, the sink or source records a ``transform`` or ``predicate_test`` carries).

The mirror of :mod:`.batches` (``java/PROTOCOL.md`` has the grammar): the schemas this task has
not sent before (id + schema; ids chosen here, per task, from 0), then each record -- its
sequence number in the batch, topic, partition, offset, timestamp and its type, key and value
(a schema id, -1 for none, then the value), headers, and the original topic, partition and
offset. Source records (v5) take the record grammar of :mod:`.batches` instead: sequence number,
source partition and offset (schemaless), topic, partition, key, value, timestamp, headers.
Logical values are sent in their physical form (Decimal's unscaled bytes, Date's days, Time's
and Timestamp's milliseconds), as Connect's converters see them. Not thread-safe: one encoder
per handle (a task, or the first transformation of a run), used by one thread at a time.
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect.api.data import Date, Decimal, Schema, Struct, Time, Timestamp, Type
from kconnect.api.errors import DataException
from kconnect.api.records import ConnectRecord, TimestampType

__all__ = ["SinkBatchEncoder"]

_TYPE_CODES = {
    Type.INT8: 0,
    Type.INT16: 1,
    Type.INT32: 2,
    Type.INT64: 3,
    Type.FLOAT32: 4,
    Type.FLOAT64: 5,
    Type.BOOLEAN: 6,
    Type.STRING: 7,
    Type.BYTES: 8,
    Type.ARRAY: 9,
    Type.MAP: 10,
    Type.STRUCT: 11,
}
_PHYSICAL: dict[str, Callable[[Schema, Any], Any]] = {
    Decimal.LOGICAL_NAME: Decimal.from_logical,
    Date.LOGICAL_NAME: Date.from_logical,
    Time.LOGICAL_NAME: Time.from_logical,
    Timestamp.LOGICAL_NAME: Timestamp.from_logical,
}
_TIMESTAMP_TYPES = {
    TimestampType.NO_TIMESTAMP_TYPE: 0,
    TimestampType.CREATE_TIME: 1,
    TimestampType.LOG_APPEND_TIME: 2,
}
_I8, _I16, _I32, _I64 = (struct.Struct(f) for f in (">b", ">h", ">i", ">q"))
_F32, _F64, _U32 = struct.Struct(">f"), struct.Struct(">d"), struct.Struct(">I")
_NO_TIMESTAMP = -(2**63)


class SinkBatchEncoder:
    """Encodes one handle's batches; remembers which schemas the host already has."""

    def __init__(self) -> None:
        self._ids: dict[Schema, int] = {}

    def encode(
        self,
        records: Sequence[ConnectRecord],
        *,
        source: bool = False,
        rejected: Callable[[int, DataException], None] | None = None,
    ) -> bytes:
        """The batch of ``records``, each numbered by its index in ``records``: sink records,
        or with ``source`` source records (v2's record grammar, with their source partition and
        offset).

        A record whose value does not fit its schema raises :class:`DataException` (the host
        is then told of no schema), unless ``rejected`` is given: the record is then left out
        of the batch and ``rejected(index, error)`` called.
        """
        new: list[tuple[int, Schema]] = []
        body = bytearray()
        write = self._source_record if source else self._sink_record
        count = 0
        for seq, record in enumerate(records):
            body_mark, new_mark = len(body), len(new)
            try:
                write(body, new, seq, record)
            except DataException as e:
                del body[body_mark:]
                self._forget(new[new_mark:])
                del new[new_mark:]
                if rejected is None:
                    self._forget(new)
                    raise
                rejected(seq, e)
                continue
            count += 1
        head = bytearray(_U32.pack(len(new)))
        for schema_id, schema in new:
            head += _I32.pack(schema_id)
            _schema(head, schema)
        head += _U32.pack(count)
        return bytes(head + body)

    def _sink_record(
        self, body: bytearray, new: list[tuple[int, Schema]], seq: int, record: Any
    ) -> None:
        body += _I64.pack(seq)
        _str(body, record.topic)
        body += _I32.pack(-1 if record.kafka_partition is None else record.kafka_partition)
        body += _I64.pack(record.kafka_offset)
        body += _I64.pack(_NO_TIMESTAMP if record.timestamp is None else record.timestamp)
        body.append(_TIMESTAMP_TYPES.get(record.timestamp_type, 0))
        self._keyed(body, new, record.key_schema, record.key)
        self._keyed(body, new, record.value_schema, record.value)
        self._headers(body, new, record)
        _str(body, record.original_topic)
        original_partition = record.original_kafka_partition
        body += _I32.pack(-1 if original_partition is None else original_partition)
        body += _I64.pack(record.original_kafka_offset)

    def _source_record(
        self, body: bytearray, new: list[tuple[int, Schema]], seq: int, record: Any
    ) -> None:
        body += _I64.pack(seq)
        _schemaless(body, record.source_partition)
        _schemaless(body, record.source_offset)
        _str(body, record.topic)
        body += _I32.pack(-1 if record.kafka_partition is None else record.kafka_partition)
        self._keyed(body, new, record.key_schema, record.key)
        self._keyed(body, new, record.value_schema, record.value)
        body += _I64.pack(_NO_TIMESTAMP if record.timestamp is None else record.timestamp)
        self._headers(body, new, record)

    def _headers(self, body: bytearray, new: list[tuple[int, Schema]], record: Any) -> None:
        headers = list(record._headers) if record._headers is not None else []
        body += _U32.pack(len(headers))
        for header in headers:
            _str(body, header.key)
            self._keyed(body, new, header.schema, header.value)

    def _ref(self, new: list[tuple[int, Schema]], schema: Schema) -> int:
        schema_id = self._ids.get(schema)
        if schema_id is None:
            schema_id = len(self._ids)
            self._ids[schema] = schema_id
            new.append((schema_id, schema))
        return schema_id

    def _forget(self, defined: list[tuple[int, Schema]]) -> None:
        """Take back schema ids the host will not be told of (their record was not sent)."""
        for _, schema in defined:
            self._ids.pop(schema, None)

    def _keyed(
        self, out: bytearray, new: list[tuple[int, Schema]], schema: Schema | None, value: Any
    ) -> None:
        if schema is None:
            out += _I32.pack(-1)
            _schemaless(out, value)
        else:
            out += _I32.pack(self._ref(new, schema))
            _value(out, schema, value)


def _str(out: bytearray, text: str | None) -> None:
    if text is None:
        out += _I32.pack(-1)
        return
    raw = text.encode("utf-8")
    out += _I32.pack(len(raw))
    out += raw


def _schema(out: bytearray, schema: Schema) -> None:
    flags = (
        (1 if schema.optional else 0)
        | (2 if schema.name is not None else 0)
        | (4 if schema.version is not None else 0)
        | (8 if schema.doc is not None else 0)
        | (16 if schema.parameters is not None else 0)
        | (32 if schema.default_value is not None else 0)
    )
    out.append(_TYPE_CODES[schema.type])
    out.append(flags)
    if schema.name is not None:
        _str(out, schema.name)
    if schema.version is not None:
        out += _I32.pack(schema.version)
    if schema.doc is not None:
        _str(out, schema.doc)
    if schema.parameters is not None:
        out += _U32.pack(len(schema.parameters))
        for key, text in schema.parameters.items():
            _str(out, key)
            _str(out, text)
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        _schema(out, schema.value_schema)
    elif schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        _schema(out, schema.key_schema)
        _schema(out, schema.value_schema)
    elif schema.type is Type.STRUCT:
        out += _U32.pack(len(schema.fields))
        for field in schema.fields:
            _str(out, field.name)
            _schema(out, field.schema)
    if schema.default_value is not None:
        _value(out, schema, schema.default_value)


def _value(out: bytearray, schema: Schema, value: Any) -> None:
    if value is None:
        out.append(0)
        return
    out.append(1)
    to_physical = _PHYSICAL.get(schema.name) if schema.name else None
    if to_physical is not None:
        value = to_physical(schema, value)
    t = schema.type
    try:
        if t is Type.STRING:
            _str(out, value)
        elif t is Type.INT64:
            out += _I64.pack(value)
        elif t is Type.INT32:
            out += _I32.pack(value)
        elif t is Type.STRUCT:
            if not isinstance(value, Struct):
                raise DataException(f"Not a Struct for a STRUCT schema: {type(value).__name__}")
            for field in schema.fields:
                _value(out, field.schema, value.get_without_default(field))
        elif t is Type.FLOAT64:
            out += _F64.pack(value)
        elif t is Type.BOOLEAN:
            out.append(1 if value else 0)
        elif t is Type.BYTES:
            raw = bytes(value)
            out += _I32.pack(len(raw))
            out += raw
        elif t is Type.ARRAY:
            item = schema.value_schema
            assert item is not None
            out += _I32.pack(len(value))
            for element in value:
                _value(out, item, element)
        elif t is Type.MAP:
            key_schema, value_schema = schema.key_schema, schema.value_schema
            assert key_schema is not None and value_schema is not None
            out += _I32.pack(len(value))
            for k, v in value.items():
                _value(out, key_schema, k)
                _value(out, value_schema, v)
        elif t is Type.INT16:
            out += _I16.pack(value)
        elif t is Type.INT8:
            out += _I8.pack(value)
        else:
            out += _F32.pack(value)
    except (struct.error, TypeError, AttributeError) as e:
        raise DataException(f"A {t.name} value that does not fit its schema: {e}") from None


def _schemaless(out: bytearray, value: Any) -> None:
    if value is None:
        out.append(0)
    elif isinstance(value, bool):
        out.append(1)
        out.append(1 if value else 0)
    elif isinstance(value, int):
        out.append(5)
        out += _I64.pack(value)
    elif isinstance(value, float):
        out.append(7)
        out += _F64.pack(value)
    elif isinstance(value, str):
        out.append(8)
        _str(out, value)
    elif isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        out.append(9)
        out += _I32.pack(len(raw))
        out += raw
    elif isinstance(value, Mapping):
        out.append(11)
        out += _I32.pack(len(value))
        for k, v in value.items():
            _schemaless(out, k)
            _schemaless(out, v)
    elif isinstance(value, list | tuple):
        out.append(10)
        out += _I32.pack(len(value))
        for element in value:
            _schemaless(out, element)
    elif isinstance(value, decimal.Decimal):
        out.append(8)  # as Connect's schemaless JSON would show it: its text
        _str(out, str(value))
    elif isinstance(value, dt.datetime):
        out.append(5)
        out += _I64.pack(int(value.timestamp() * 1000))
    else:
        raise DataException(
            f"Cannot send a schemaless {type(value).__name__} to the Java plugin host"
        )
