"""The wire format between a worker and its Java plugin host.

A frame is a 4-byte big-endian length and that many bytes of UTF-8 JSON holding one object.
Requests carry ``id`` and ``op``; a reply carries the request's ``id`` and either ``ok: true``
with a ``result`` or ``ok: false`` with an ``error`` (Java exception class, message, stack
trace). A message from the host may carry binary attachments (a record batch): each comes first
as a frame whose length has bit 31 set, holding raw bytes, and the JSON names the i-th of them
``{"$frame": i}``; :func:`read_frame` puts the bytes in those places. Both functions block;
neither is thread-safe on its own (the host serialises writers).
"""

from __future__ import annotations

import json
import struct
from typing import IO, Any

__all__ = ["FrameError", "MAX_FRAME", "read_frame", "write_frame"]

#: Refuse frames larger than this (a corrupt length would otherwise allocate gigabytes).
MAX_FRAME = 256 * 1024 * 1024
_LENGTH = struct.Struct(">I")
_BINARY = 0x8000_0000


class FrameError(Exception):
    """The stream ended inside a frame, or a frame is not one JSON object."""


def write_frame(stream: IO[bytes], message: dict[str, Any]) -> None:
    """Write one message and flush."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message (its attachments in place), or None when the stream ended cleanly
    between messages."""
    attachments: list[bytes] = []
    while True:
        head = _read_exactly(stream, _LENGTH.size, at_start=not attachments)
        if head is None:
            return None
        (length,) = _LENGTH.unpack(head)
        binary = bool(length & _BINARY)
        length &= ~_BINARY
        if length > MAX_FRAME:
            raise FrameError(f"frame of {length} bytes is larger than the limit of {MAX_FRAME}")
        body = _read_exactly(stream, length, at_start=False)
        assert body is not None
        if binary:
            attachments.append(body)
            continue
        try:
            message = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise FrameError(f"frame is not JSON: {e}") from None
        if not isinstance(message, dict):
            raise FrameError("frame is not a JSON object")
        if attachments:
            return {k: _attach(v, attachments) for k, v in message.items()}
        return message


def _attach(value: Any, attachments: list[bytes]) -> Any:
    """``value`` with every ``{"$frame": i}`` replaced by the i-th attachment."""
    if isinstance(value, dict):
        if len(value) == 1 and "$frame" in value:
            index = value["$frame"]
            if not isinstance(index, int) or not 0 <= index < len(attachments):
                raise FrameError(f"a message names attachment {index!r} of {len(attachments)}")
            return attachments[index]
        return {k: _attach(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_attach(v, attachments) for v in value]
    return value


def _read_exactly(stream: IO[bytes], n: int, *, at_start: bool) -> bytes | None:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            if at_start and remaining == n:
                return None
            raise FrameError(f"stream ended {n - remaining} bytes into a {n}-byte read")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
