"""Confluent's wire format: framing, message indexes, ids from headers."""

from __future__ import annotations

import uuid

import pytest

from kconnect.api import Headers
from kconnect.schema_registry.errors import SerializationException
from kconnect.schema_registry.wire_format import (
    MAGIC_BYTE,
    SchemaIdRef,
    encode_message_indexes,
    frame,
    read_schema_id,
)


def test_frame_is_magic_byte_big_endian_id_and_payload() -> None:
    assert MAGIC_BYTE == 0
    assert frame(1, b"abc") == b"\x00\x00\x00\x00\x01abc"
    assert frame(0x01020304, b"") == b"\x00\x01\x02\x03\x04"


@pytest.mark.parametrize(
    ("indexes", "encoded"),
    [
        ([0], b"\x00"),  # the first message: one byte, not count 1 + index 0
        ([1], b"\x02\x02"),  # zig-zag: count 1 -> 2, index 1 -> 2
        ([1, 2], b"\x04\x02\x04"),
        ([0, 0], b"\x04\x00\x00"),
        ([64], b"\x02\x80\x01"),
    ],
)
def test_message_indexes_are_zigzag_varints(indexes: list[int], encoded: bytes) -> None:
    assert encode_message_indexes(indexes) == encoded
    data = frame(7, b"payload", indexes)
    assert data == b"\x00\x00\x00\x00\x07" + encoded + b"payload"
    ref = read_schema_id(data, None, False, message_indexes=True)
    assert ref == SchemaIdRef(7, None, tuple(indexes), 5 + len(encoded))
    assert data[ref.offset :] == b"payload"


def test_read_schema_id_from_the_prefix() -> None:
    data = frame(42, b"xyz")
    ref = read_schema_id(memoryview(data), None, is_key=True)
    assert ref == SchemaIdRef(42, None, (), 5)


def test_unknown_magic_byte() -> None:
    with pytest.raises(SerializationException, match=r"^Unknown magic byte!$"):
        read_schema_id(b"\x07\x00\x00\x00\x01", None, False)


@pytest.mark.parametrize("data", [b"", b"\x00\x00\x01", b"\x01" + b"\x00" * 8])
def test_too_short(data: bytes) -> None:
    with pytest.raises(SerializationException, match="Error deserializing schema ID"):
        read_schema_id(data, None, False)


def test_guid_header_wins_and_the_payload_is_whole() -> None:
    guid = uuid.uuid4()
    headers = Headers()
    headers.add_bytes("__value_schema_id", b"\x01" + guid.bytes)
    ref = read_schema_id(b"\x0a\x0b", headers, is_key=False)
    assert ref == SchemaIdRef(None, str(guid), (), 0)
    # the key side looks at __key_schema_id only, so it reads the prefix
    with pytest.raises(SerializationException, match="Unknown magic byte!"):
        read_schema_id(b"\x0a\x0b", headers, is_key=True)


def test_key_header_with_message_indexes() -> None:
    guid = uuid.uuid4()
    headers = Headers()
    headers.add_bytes("__key_schema_id", b"\x01" + guid.bytes + b"\x02\x02")
    ref = read_schema_id(b"raw", headers, is_key=True, message_indexes=True)
    assert ref == SchemaIdRef(None, str(guid), (1,), 0)


def test_guid_prefix_in_the_payload() -> None:
    guid = uuid.uuid4()
    ref = read_schema_id(b"\x01" + guid.bytes + b"rest", None, False)
    assert ref == SchemaIdRef(None, str(guid), (), 17)
