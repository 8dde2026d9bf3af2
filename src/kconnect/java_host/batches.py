"""Source records from the Java plugin host: the binary batch a ``source_task_poll`` returns.

Layout (big-endian; ``java/PROTOCOL.md`` has the full grammar): the schemas first seen in this
batch (``id`` + schema), then the records -- sequence number, source partition and offset
(schemaless maps), topic, Kafka partition, key and value (a schema id, -1 for none, then the
value), timestamp, headers. A schema is sent once per task and referred to by id afterwards,
so :class:`BatchDecoder` keeps the schemas of one task. Logical values arrive in their
physical form (Decimal's unscaled bytes, Date's days, Time's and Timestamp's milliseconds) and
become Python's ``decimal.Decimal``, ``date``, ``time`` and ``datetime`` here, as kconnect's
API holds them. Not thread-safe: one decoder per task, used by its thread.

The schema section is read here; with the native hot path, ``kconnect_native``'s
``host_source_records`` reads the record section into the same records (this module stays the
reference: the native reader leaves it every batch it is not sure of, and its errors).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from kconnect._hot_path import native
from kconnect.api.data import Date, Decimal, Field, Schema, Struct, Time, Timestamp, Type
from kconnect.api.errors import DataException
from kconnect.api.headers import Headers
from kconnect.api.records import SourceRecord

__all__ = ["BatchDecoder"]

_TYPES = (
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
    Type.BYTES,
    Type.ARRAY,
    Type.MAP,
    Type.STRUCT,
)
_OPTIONAL, _NAME, _VERSION, _DOC, _PARAMS, _DEFAULT = 1, 2, 4, 8, 16, 32
_LOGICAL: dict[str, Callable[[Schema, Any], Any]] = {
    Decimal.LOGICAL_NAME: Decimal.to_logical,
    Date.LOGICAL_NAME: Date.to_logical,
    Time.LOGICAL_NAME: Time.to_logical,
    Timestamp.LOGICAL_NAME: Timestamp.to_logical,
}
_I8, _I16, _I32, _I64 = (
    struct.Struct(">b"),
    struct.Struct(">h"),
    struct.Struct(">i"),
    struct.Struct(">q"),
)
_F32, _F64, _U32 = struct.Struct(">f"), struct.Struct(">d"), struct.Struct(">I")
_NO_TIMESTAMP = -(2**63)


class BatchDecoder:
    """Decodes one task's batches; remembers the schemas they define."""

    def __init__(self, *, use_native: bool = True) -> None:
        """``use_native``: read records with the native hot path when it is installed (False:
        always with this module's reader, the reference; for tests)."""
        self._schemas: dict[int, Schema] = {}
        self._native = native if use_native else None

    def decode(self, data: bytes) -> list[tuple[int, SourceRecord]]:
        """The batch's records with their sequence numbers, in order.

        Raises:
            DataException: the batch is malformed or names a schema never sent.
        """
        reader = _Reader(data, self._schemas)
        try:
            for _ in range(reader.u32()):
                schema_id = reader.i32()
                self._schemas[schema_id] = reader.schema()
            if self._native is not None:
                read = self._native.host_source_records(data, reader.pos, self._schemas)
                if read is not None:
                    return list(zip(*read, strict=True))
            records = [reader.record() for _ in range(reader.u32())]
        except (struct.error, IndexError, UnicodeDecodeError, KeyError) as e:
            raise DataException(
                f"Malformed record batch from the Java plugin host: {e!r}"
            ) from None
        if reader.pos != len(data):
            raise DataException(
                f"Malformed record batch from the Java plugin host: {len(data) - reader.pos} "
                "bytes left over"
            )
        return records


class _Reader:
    def __init__(self, data: bytes, schemas: dict[int, Schema]) -> None:
        self.data = data
        self.pos = 0
        self.schemas = schemas

    # -- primitives ----------------------------------------------------------------------------

    def _unpack(self, fmt: struct.Struct) -> Any:
        value = fmt.unpack_from(self.data, self.pos)[0]
        self.pos += fmt.size
        return value

    def u8(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return value

    def i32(self) -> int:
        return int(self._unpack(_I32))

    def u32(self) -> int:
        return int(self._unpack(_U32))

    def i64(self) -> int:
        return int(self._unpack(_I64))

    def string(self) -> str | None:
        n = self.i32()
        if n < 0:
            return None
        end = self.pos + n
        if end > len(self.data):
            raise IndexError("string runs past the batch")
        text = self.data[self.pos : end].decode("utf-8")
        self.pos = end
        return text

    def raw(self) -> bytes:
        n = self.i32()
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise IndexError("bytes run past the batch")
        out = bytes(self.data[self.pos : end])
        self.pos = end
        return out

    # -- schemas -------------------------------------------------------------------------------

    def schema(self) -> Schema:
        type_ = _TYPES[self.u8()]
        flags = self.u8()
        name = self.string() if flags & _NAME else None
        version = self.i32() if flags & _VERSION else None
        doc = self.string() if flags & _DOC else None
        params: dict[str, str] | None = None
        if flags & _PARAMS:
            params = {}
            for _ in range(self.u32()):
                key = self.string()
                params[str(key)] = str(self.string())
        fields: list[Field] | None = None
        key_schema = value_schema = None
        if type_ is Type.ARRAY:
            value_schema = self.schema()
        elif type_ is Type.MAP:
            key_schema = self.schema()
            value_schema = self.schema()
        elif type_ is Type.STRUCT:
            fields = []
            for index in range(self.u32()):
                field_name = str(self.string())
                fields.append(Field(field_name, index, self.schema()))
        optional = bool(flags & _OPTIONAL)
        schema = Schema(
            type_, optional, None, name, version, doc, params, fields, key_schema, value_schema
        )
        if flags & _DEFAULT:
            default = self.value(schema)
            schema = Schema(
                type_,
                optional,
                default,
                name,
                version,
                doc,
                params,
                fields,
                key_schema,
                value_schema,
            )
        return schema

    def schema_ref(self) -> Schema | None:
        schema_id = self.i32()
        if schema_id < 0:
            return None
        try:
            return self.schemas[schema_id]
        except KeyError:
            raise DataException(f"Record batch names schema {schema_id}, never sent") from None

    # -- values --------------------------------------------------------------------------------

    def value(self, schema: Schema) -> Any:
        if self.u8() == 0:
            return None
        t = schema.type
        if t is Type.STRING:
            value: Any = self.string()
        elif t is Type.INT64:
            value = self.i64()
        elif t is Type.INT32:
            value = self.i32()
        elif t is Type.STRUCT:
            value = Struct.trusted(schema, [self.value(f.schema) for f in schema.fields])
        elif t is Type.FLOAT64:
            value = self._unpack(_F64)
        elif t is Type.BOOLEAN:
            value = self.u8() != 0
        elif t is Type.BYTES:
            value = self.raw()
        elif t is Type.ARRAY:
            item = schema.value_schema
            assert item is not None
            value = [self.value(item) for _ in range(self.i32())]
        elif t is Type.MAP:
            key_schema, value_schema = schema.key_schema, schema.value_schema
            assert key_schema is not None and value_schema is not None
            value = {}
            for _ in range(self.i32()):
                k = self.value(key_schema)
                value[k] = self.value(value_schema)
        elif t is Type.INT16:
            value = self._unpack(_I16)
        elif t is Type.INT8:
            value = self._unpack(_I8)
        else:  # FLOAT32
            value = self._unpack(_F32)
        convert = _LOGICAL.get(schema.name) if schema.name else None
        return convert(schema, value) if convert is not None else value

    def schemaless(self) -> Any:
        tag = self.u8()
        if tag == 0:
            return None
        if tag == 8:
            return self.string()
        if tag == 5:
            return self.i64()
        if tag == 11:
            out = {}
            for _ in range(self.i32()):
                k = self.schemaless()
                out[k] = self.schemaless()
            return out
        if tag == 1:
            return self.u8() != 0
        if tag == 4:
            return self.i32()
        if tag == 7:
            return self._unpack(_F64)
        if tag == 10:
            return [self.schemaless() for _ in range(self.i32())]
        if tag == 9:
            return self.raw()
        if tag == 2:
            return self._unpack(_I8)
        if tag == 3:
            return self._unpack(_I16)
        if tag == 6:
            return self._unpack(_F32)
        if tag == 12:
            schema = self.schema_ref()
            if schema is None:
                raise DataException("A schemaless Struct without its schema")
            return self.value(schema)
        raise DataException(f"Unknown schemaless value tag {tag}")

    def keyed(self) -> tuple[Schema | None, Any]:
        schema = self.schema_ref()
        return (schema, self.value(schema) if schema is not None else self.schemaless())

    def record(self) -> tuple[int, SourceRecord]:
        seq = self.i64()
        partition = self.schemaless()
        offset = self.schemaless()
        topic = str(self.string())
        kafka_partition = self.i32()
        key_schema, key = self.keyed()
        value_schema, value = self.keyed()
        timestamp = self.i64()
        headers = None
        n_headers = self.u32()
        if n_headers:
            headers = Headers()
            for _ in range(n_headers):
                header_key = str(self.string())
                header_schema, header_value = self.keyed()
                headers.add(header_key, header_value, header_schema)
        record = SourceRecord(
            partition,
            offset,
            topic,
            None if kafka_partition < 0 else kafka_partition,
            key_schema,
            key,
            value_schema,
            value,
            None if timestamp == _NO_TIMESTAMP else timestamp,
            headers,
        )
        return seq, record
