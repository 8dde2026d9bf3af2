"""The wire format between a worker and its Java plugin host.

A frame is a 4-byte big-endian length and that many bytes of UTF-8 JSON holding one object.
Requests carry ``id`` and ``op``; a reply carries the request's ``id`` and either ``ok: true``
with a ``result`` or ``ok: false`` with an ``error`` (Java exception class, message, stack
trace). Both functions block; neither is thread-safe on its own (the host serialises writers).
"""

from __future__ import annotations

import json
import struct
from typing import IO, Any

__all__ = ["FrameError", "MAX_FRAME", "read_frame", "write_frame"]

#: Refuse frames larger than this (a corrupt length would otherwise allocate gigabytes).
MAX_FRAME = 256 * 1024 * 1024
_LENGTH = struct.Struct(">I")


class FrameError(Exception):
    """The stream ended inside a frame, or a frame is not one JSON object."""


def write_frame(stream: IO[bytes], message: dict[str, Any]) -> None:
    """Write one message and flush."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None when the stream ended cleanly between frames."""
    head = _read_exactly(stream, _LENGTH.size, at_start=True)
    if head is None:
        return None
    (length,) = _LENGTH.unpack(head)
    if length > MAX_FRAME:
        raise FrameError(f"frame of {length} bytes is larger than the limit of {MAX_FRAME}")
    body = _read_exactly(stream, length, at_start=False)
    assert body is not None
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FrameError(f"frame is not JSON: {e}") from None
    if not isinstance(message, dict):
        raise FrameError("frame is not a JSON object")
    return message


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
