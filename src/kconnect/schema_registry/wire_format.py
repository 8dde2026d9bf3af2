"""Confluent's wire format: how a schema id travels with a serialized key or value.

``frame`` writes the prefix form every Confluent serializer writes by default: the magic byte 0,
the schema id as 4 big-endian bytes, then (Protobuf only) the message indexes, then the payload.
Message indexes are the path to the message type inside the ``.proto`` file: a zig-zag varint
count followed by zig-zag varint indexes, with ``[0]`` (the first message) shortened to the
single byte 0.

``read_schema_id`` reads what Confluent 8's ``DualSchemaIdDeserializer`` reads: the id from the
``__key_schema_id`` / ``__value_schema_id`` header when the record has one (its value is either
the prefix form or byte 1 and a 16-byte GUID, then the message indexes; the payload is then the
whole record value), else from the value's prefix.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from kconnect.api import Headers
from kconnect.schema_registry.errors import SerializationException

__all__ = [
    "KEY_SCHEMA_ID_HEADER",
    "MAGIC_BYTE",
    "MAGIC_BYTE_GUID",
    "VALUE_SCHEMA_ID_HEADER",
    "SchemaIdRef",
    "encode_message_indexes",
    "frame",
    "read_schema_id",
]

#: The first byte of a framed value: a 4-byte schema id follows.
MAGIC_BYTE = 0
#: The first byte of a schema-id header holding a GUID (16 bytes follow).
MAGIC_BYTE_GUID = 1
KEY_SCHEMA_ID_HEADER = "__key_schema_id"
VALUE_SCHEMA_ID_HEADER = "__value_schema_id"

_ID = struct.Struct(">bi")


@dataclass(frozen=True)
class SchemaIdRef:
    """What a record says about its schema.

    Exactly one of ``schema_id`` / ``guid`` is set. ``message_indexes`` is empty unless the
    caller asked for them (Protobuf). ``offset`` is where the serialized payload starts in the
    record's bytes (0 when the id came from a header).
    """

    schema_id: int | None
    guid: str | None
    message_indexes: tuple[int, ...]
    offset: int


def _write_varint(value: int, out: bytearray) -> None:
    # zig-zag, as Kafka's ByteUtils.writeVarint (32-bit)
    v = ((value << 1) ^ (value >> 31)) & 0xFFFFFFFF
    while v & ~0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def _read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    value = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise SerializationException("Error deserializing schema ID")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift > 28:
            raise SerializationException(
                "Error deserializing schema ID: varint is too long (more than 5 bytes)"
            )
    value &= 0xFFFFFFFF
    return (value >> 1) ^ -(value & 1), pos


def encode_message_indexes(indexes: Sequence[int]) -> bytes:
    """Confluent's message-index bytes; ``[0]`` is the single byte 0."""
    if list(indexes) == [0]:
        return b"\x00"
    out = bytearray()
    _write_varint(len(indexes), out)
    for i in indexes:
        _write_varint(i, out)
    return bytes(out)


def frame(schema_id: int, payload: bytes, message_indexes: Sequence[int] | None = None) -> bytes:
    """``0x00`` + the 4-byte big-endian id (+ the message indexes when given) + ``payload``."""
    head = _ID.pack(MAGIC_BYTE, schema_id)
    if message_indexes is None:
        return head + payload
    return head + encode_message_indexes(message_indexes) + payload


def _read_indexes(data: bytes | memoryview, pos: int) -> tuple[tuple[int, ...], int]:
    count, pos = _read_varint(data, pos)
    if count == 0:
        return (0,), pos
    if count < 0 or count > len(data) - pos:
        raise SerializationException(
            f"Error deserializing schema ID: bad message index count {count}"
        )
    indexes = []
    for _ in range(count):
        index, pos = _read_varint(data, pos)
        indexes.append(index)
    return tuple(indexes), pos


def _parse(
    data: bytes | memoryview, message_indexes: bool
) -> tuple[int | None, str | None, tuple[int, ...], int]:
    if len(data) == 0:
        raise SerializationException("Error deserializing schema ID")
    magic = data[0]
    if magic == MAGIC_BYTE:
        if len(data) < 5:
            raise SerializationException("Error deserializing schema ID")
        schema_id: int | None = int.from_bytes(bytes(data[1:5]), "big", signed=True)
        guid: str | None = None
        pos = 5
    elif magic == MAGIC_BYTE_GUID:
        if len(data) < 17:
            raise SerializationException("Error deserializing schema ID")
        schema_id = None
        guid = str(uuid.UUID(bytes=bytes(data[1:17])))
        pos = 17
    else:
        raise SerializationException("Unknown magic byte!")
    indexes: tuple[int, ...] = ()
    if message_indexes:
        indexes, pos = _read_indexes(data, pos)
    return schema_id, guid, indexes, pos


def _header_bytes(headers: Headers | None, is_key: bool) -> bytes | None:
    if headers is None:
        return None
    header = headers.last_with_name(KEY_SCHEMA_ID_HEADER if is_key else VALUE_SCHEMA_ID_HEADER)
    if header is None:
        return None
    value = header.value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return None  # a null (or non-binary) header value: the id is in the payload, as in Java


def read_schema_id(
    data: bytes | memoryview,
    headers: Headers | None,
    is_key: bool,
    *,
    message_indexes: bool = False,
) -> SchemaIdRef:
    """The schema id (or GUID) of one serialized key/value, from its header or its prefix.

    Raises:
        SerializationException: "Unknown magic byte!" when the first byte is neither 0 nor 1;
            "Error deserializing schema ID" when the bytes are too short.
    """
    from_header = _header_bytes(headers, is_key)
    if from_header is not None:
        schema_id, guid, indexes, _ = _parse(from_header, message_indexes)
        return SchemaIdRef(schema_id, guid, indexes, 0)
    schema_id, guid, indexes, pos = _parse(data, message_indexes)
    return SchemaIdRef(schema_id, guid, indexes, pos)
