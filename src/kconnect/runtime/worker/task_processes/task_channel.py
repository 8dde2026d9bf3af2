"""The channel between a worker and one of its task processes.

A :class:`Channel` carries length-prefixed pickled frames over a connected stream socket (a
``socketpair`` whose other end the child inherited), both ways. A frame is a request (it gets
exactly one reply, matched by id), a reply, or an event (no reply). One reader thread per side
reads frames in order:

* **events** are handed to ``on_event(kind, payload)`` on the reader thread, in the order they
  were sent -- a task's status changes stay ordered;
* **requests** are handed to ``on_request(kind, payload)`` on a small thread pool (a request
  may block: stopping a task waits for it, and the task's last offset commit is itself a
  request to the other side, whose reply the reader thread must be free to read); the
  handler's return value, or its exception, goes back as the reply;
* **replies** complete the future of :meth:`Channel.call_async`.

When the other side goes away (its process died, the socket closed) the reader sees EOF and
calls ``on_close`` once; pending calls fail with :class:`ChannelClosed`. Only kconnect's own
worker and task processes share the socket, so pickle is safe here. ``send`` is thread-safe.
"""

from __future__ import annotations

import itertools
import logging
import pickle
import socket
import struct
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from kconnect.api.errors import ConnectException

__all__ = ["Channel", "ChannelClosed", "RemoteError"]

log = logging.getLogger(__name__)

_HEADER = struct.Struct(">I")
_REQUEST, _REPLY, _EVENT = 0, 1, 2


class ChannelClosed(ConnectException):
    """The other side of the channel is gone."""


class RemoteError(ConnectException):
    """A request failed on the other side; ``trace`` is its formatted traceback there."""

    def __init__(self, message: str, trace: str = "", type_name: str = "") -> None:
        super().__init__(message)
        self.trace = trace
        self.type_name = type_name


class Channel:
    def __init__(
        self,
        sock: socket.socket,
        name: str,
        on_event: Callable[[str, Any], None],
        on_request: Callable[[str, Any], Any],
        on_close: Callable[[], None],
        *,
        request_threads: int = 8,
    ) -> None:
        self.name = name
        self._sock = sock
        self._on_event = on_event
        self._on_request = on_request
        self._on_close = on_close
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, Future[Any]] = {}
        self._pending_lock = threading.Lock()
        self._closed = threading.Event()
        self._pool = ThreadPoolExecutor(request_threads, thread_name_prefix=f"{name}-requests")
        self._reader = threading.Thread(target=self._read_loop, name=f"{name}-reader", daemon=True)

    def start(self) -> None:
        self._reader.start()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # -- sending --------------------------------------------------------------------------------

    def _send(self, frame: tuple[Any, ...]) -> None:
        data = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
        with self._send_lock:
            if self._closed.is_set():
                raise ChannelClosed(f"{self.name}: the channel is closed")
            try:
                self._sock.sendall(_HEADER.pack(len(data)) + data)
            except OSError as e:
                raise ChannelClosed(f"{self.name}: {e}") from None

    def notify(self, kind: str, payload: Any = None) -> None:
        """Send an event; ChannelClosed if the other side is gone."""
        self._send((_EVENT, 0, kind, payload))

    def call_async(self, kind: str, payload: Any = None) -> Future[Any]:
        """Send a request; the future gets the reply (or RemoteError / ChannelClosed)."""
        request_id = next(self._ids)
        future: Future[Any] = Future()
        with self._pending_lock:
            if self._closed.is_set():
                future.set_exception(ChannelClosed(f"{self.name}: the channel is closed"))
                return future
            self._pending[request_id] = future
        try:
            self._send((_REQUEST, request_id, kind, payload))
        except ChannelClosed as e:
            with self._pending_lock:
                self._pending.pop(request_id, None)
            if not future.done():
                future.set_exception(e)
        return future

    def call(self, kind: str, payload: Any = None, timeout_s: float | None = None) -> Any:
        """Send a request and wait for its reply.

        Raises RemoteError (the handler failed), ChannelClosed, or TimeoutError.
        """
        return self.call_async(kind, payload).result(timeout_s)

    # -- receiving ------------------------------------------------------------------------------

    def _recv_exact(self, n: int) -> bytes | None:
        chunks = []
        while n:
            try:
                chunk = self._sock.recv(min(n, 1 << 20))
            except OSError:
                return None
            if not chunk:
                return None
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _read_loop(self) -> None:
        try:
            while True:
                header = self._recv_exact(_HEADER.size)
                if header is None:
                    return
                body = self._recv_exact(_HEADER.unpack(header)[0])
                if body is None:
                    return
                kind_of_frame, request_id, kind, payload = pickle.loads(body)
                if kind_of_frame == _EVENT:
                    try:
                        self._on_event(kind, payload)
                    except Exception:
                        log.exception("%s: handling event %s failed", self.name, kind)
                elif kind_of_frame == _REQUEST:
                    self._pool.submit(self._answer, request_id, kind, payload)
                else:
                    with self._pending_lock:
                        future = self._pending.pop(request_id, None)
                    if future is not None:
                        ok, value = payload
                        if ok:
                            future.set_result(value)
                        else:
                            future.set_exception(RemoteError(*value))
        finally:
            self._shut()

    def _answer(self, request_id: int, kind: str, payload: Any) -> None:
        try:
            reply: tuple[bool, Any] = (True, self._on_request(kind, payload))
        except Exception as e:
            trace = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            reply = (False, (str(e) or type(e).__name__, trace, type(e).__name__))
        try:
            self._send((_REPLY, request_id, kind, reply))
        except ChannelClosed:
            pass

    def _shut(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        try:
            self._sock.close()
        except OSError:
            pass
        with self._pending_lock:
            pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(ChannelClosed(f"{self.name}: the other side went away"))
        self._pool.shutdown(wait=False)
        try:
            self._on_close()
        except Exception:
            log.exception("%s: close handler failed", self.name)

    def close(self) -> None:
        """Close our end (the other side sees EOF); idempotent."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        if threading.current_thread() is not self._reader and self._reader.is_alive():
            self._reader.join(timeout=5)
        self._shut()
