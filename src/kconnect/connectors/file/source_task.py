"""``FileStreamSourceTask``: reads lines from a file (or stdin) and emits them as records.

Each record: value schema STRING, the line without its terminator (``\\n``, ``\\r`` or
``\\r\\n``), timestamp = now, source partition ``{"filename": <file>}``, source offset
``{"position": <byte position just after the line>}``. On start it resumes from the stored
position. (Kafka counts UTF-16 chars but skips bytes when resuming; kconnect counts bytes,
so both agree for ASCII and kconnect also resumes correctly for other text.)

A partial last line stays buffered until its terminator arrives. When the file does not exist
yet, or there is no new data, ``poll`` waits up to one second and returns None.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import select
import sys
import threading
import time
from collections.abc import Mapping
from itertools import accumulate, chain, islice, repeat
from operator import add
from typing import Any, BinaryIO

from kconnect.api import ConnectException, Schema, SourceRecord, SourceTask
from kconnect.connectors.file._version import VERSION
from kconnect.connectors.file.source_config import DEFAULT_TASK_BATCH_SIZE, FileStreamSourceConfig

__all__ = ["FILENAME_FIELD", "POSITION_FIELD", "FileStreamSourceTask"]

log = logging.getLogger(__name__)

FILENAME_FIELD = "filename"
POSITION_FIELD = "position"
READ_CHUNK = 1 << 20
WAIT_S = 1.0
_monotonic = time.monotonic  # the idle clock (a test replaces it)
_random = random.random  # an idle schedule's phase (a test replaces it)


class FileStreamSourceTask(SourceTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.file.FileStreamSourceTask"

    def __init__(self) -> None:
        self._filename: str | None = None
        self._topic = ""
        self._batch_size = DEFAULT_TASK_BATCH_SIZE
        self._stream: BinaryIO | None = None
        self._stdin_fd: int | None = None
        self._position: int | None = None
        self._buffer = b""
        self._pending: list[tuple[str, int | None]] = []
        self._stopped = False
        # held until stop() releases it: a poll's wait is one timed acquire of a C lock (an
        # idle task waits once a second, and a worker may run a thousand of them)
        self._wake = threading.Lock()
        self._wake.acquire()
        self._lock = threading.Lock()
        # when the next idle wait ends (time.monotonic()): see _wait
        self._next_wake = 0.0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        config = FileStreamSourceConfig(props)
        self._filename = config.filename
        self._topic = config.topic
        self._batch_size = config.batch_size
        if self._filename is None:
            self._stdin_fd = sys.stdin.fileno()

    def _partition(self) -> dict[str, Any]:
        return {FILENAME_FIELD: self._filename}

    def _open(self) -> bool:
        """Open the file at the stored position; False if it does not exist yet."""
        assert self._filename is not None
        try:
            stream = open(self._filename, "rb")  # noqa: SIM115 - kept open across polls
        except FileNotFoundError:
            log.warning(
                "Couldn't find file %s for FileStreamSourceTask, sleeping to wait for it "
                "to be created",
                self._filename,
            )
            return False
        except OSError as e:
            raise ConnectException(f"Error while trying to open file {self._filename}: {e}") from e
        offset = self.context.offset_storage_reader().offset(self._partition())
        position = 0
        if offset is not None:
            last = offset.get(POSITION_FIELD)
            if last is not None and (not isinstance(last, int) or isinstance(last, bool)):
                stream.close()
                raise ConnectException("Offset position is the incorrect type")
            if last is not None:
                log.debug("Found previous offset, trying to skip to file offset %d", last)
                stream.seek(last)
                position = last
        self._position = position
        self._stream = stream
        return True

    def _read(self) -> bytes:
        if self._stdin_fd is not None:
            ready, _, _ = select.select([self._stdin_fd], [], [], WAIT_S)
            return os.read(self._stdin_fd, READ_CHUNK) if ready else b""
        assert self._stream is not None
        return self._stream.read(READ_CHUNK)

    def _split(self, data: bytes) -> None:
        """Move complete lines from the buffer into ``_pending`` with their end positions."""
        buf = self._buffer + data
        if b"\r" in buf:
            self._split_any(buf)
        else:
            self._split_lf(buf)

    def _split_any(self, buf: bytes) -> None:
        """``_split`` line by line: ``\n``, ``\r\n`` and ``\r`` end a line, as in Java."""
        pending = self._pending
        pos = self._position
        start = 0
        n = len(buf)
        while start < n:
            nl = buf.find(b"\n", start)
            cr = buf.find(b"\r", start, nl if nl >= 0 else n)
            if cr >= 0:
                if cr + 1 == n:
                    break  # a trailing \r may be the first half of \r\n: wait for more
                end = cr
                nxt = cr + 2 if buf[cr + 1] == 0x0A else cr + 1
            elif nl >= 0:
                end = nl
                nxt = nl + 1
            else:
                break
            if pos is not None:
                pos += nxt - start
            pending.append((buf[start:end].decode("utf-8", "replace"), pos))
            start = nxt
        self._buffer = buf[start:]
        self._position = pos

    def _split_lf(self, buf: bytes) -> None:
        """``_split`` for a buffer with no ``\r`` (lines end with ``\n`` only): the same lines
        and positions, split, decoded and summed by C code instead of a loop per line. A
        ``\n`` byte is never part of a UTF-8 sequence, so decoding the lines together gives
        each line's own decoding, replacement characters included."""
        last = buf.rfind(b"\n")
        if last < 0:
            self._buffer = buf
            return
        body = buf[:last]
        texts = body.decode("utf-8", "replace").split("\n")
        pos = self._position
        if pos is None:
            self._pending.extend(zip(texts, repeat(None)))
        else:
            # each line's end position: the previous one + its bytes + the \n
            steps = map(add, map(len, body.split(b"\n")), repeat(1))
            ends = islice(accumulate(chain((pos,), steps)), 1, None)
            self._pending.extend(zip(texts, ends, strict=True))
            self._position = pos + last + 1
        self._buffer = buf[last + 1 :]

    def poll(self) -> list[SourceRecord] | None:
        with self._lock:
            if self._stopped:
                return None
            if self._stdin_fd is None and self._stream is None and not self._open():
                self._wait(WAIT_S)
                return None
            if len(self._pending) < self._batch_size:
                try:
                    data = self._read()
                except OSError as e:
                    raise ConnectException(
                        f"Error while reading from {self._filename or 'stdin'}: {e}"
                    ) from e
                if data:
                    self._split(data)
            if not self._pending:
                wait = True
            else:
                wait = False
                take = self._pending[: self._batch_size]
                del self._pending[: self._batch_size]
        if wait:
            if self._stdin_fd is None:
                self._wait(WAIT_S)
            return None
        partition = self._partition()
        topic = self._topic
        string_schema = Schema.STRING_SCHEMA
        now = time.time_ns() // 1_000_000
        return [
            SourceRecord(
                partition, {POSITION_FIELD: pos}, topic, None, None, None, string_schema, line, now
            )
            for line, pos in take
        ]

    def _wait(self, seconds: float) -> None:
        """Sleep until the next tick of this task's idle clock (at most ``seconds``) or until
        :meth:`stop`.

        Consecutive idle waits end on a fixed-rate schedule, ``seconds`` apart, rather than
        ``seconds`` after each wait starts (Java's ``wait(1000)``): with relative waits every
        task's period is one second plus its own work, so the wake-ups of a worker's idle tasks
        drift into each other and stay together, and in one Python process tasks that wake
        together queue for the interpreter lock (each handover two futex calls and a task
        switch; at 500 idle tasks per process most wake-ups were handovers after a few
        minutes). The schedule's phase is random, chosen when the task goes idle (its first
        wait, or one after work that outlasted a period, is a random part of ``seconds``), so
        that tasks that go idle together -- a worker's tasks after a restart -- do not wake
        together forever."""
        now = _monotonic()
        due = self._next_wake
        if due <= now or due > now + seconds:
            due = now + seconds * (1.0 - _random())  # a new phase, in (0, seconds]
        self._next_wake = due + seconds
        if self._wake.acquire(timeout=due - now):
            self._wake.release()  # stopped: any later wait returns at once too

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            with contextlib.suppress(RuntimeError):  # a concurrent stop() released it
                self._wake.release()
        with self._lock:
            if self._stream is not None:
                try:
                    self._stream.close()
                except OSError as e:
                    log.error("Failed to close FileStreamSourceTask stream: %s", e)
                self._stream = None
