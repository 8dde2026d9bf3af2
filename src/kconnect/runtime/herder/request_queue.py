"""The distributed herder's request queue (Kafka's ``DistributedHerderRequest`` set).

Any thread may :meth:`HerderRequestQueue.submit` an action; the herder thread runs due actions
in order (due time, then submission order) from its tick loop and completes each action's
:class:`~concurrent.futures.Future` with the result or the exception. A submit wakes the
herder thread (the ``wakeup`` callable) so a request never waits for a poll timeout.

Callers that need the answer block on ``future.result(timeout)``; :meth:`await_result`
does that and turns a timeout into the 500 Kafka answers ("Request timed out ...").
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kconnect.runtime.common.request_errors import ConnectRestException

__all__ = ["HerderRequest", "HerderRequestQueue", "await_result"]

T = TypeVar("T")


@dataclass(order=True)
class HerderRequest:
    """One queued action; ordered by (due monotonic ms, sequence number)."""

    due_ms: float
    seq: int
    action: Callable[[], Any] = field(compare=False)
    future: Future[Any] = field(compare=False)
    description: str = field(compare=False, default="")

    def run(self) -> None:
        """Run the action on the calling (herder) thread and complete the future."""
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            result = self.action()
        except BaseException as e:  # the caller sees every failure, the herder thread survives
            self.future.set_exception(e)
        else:
            self.future.set_result(result)


class HerderRequestQueue:
    """Thread-safe delayed-request queue; see the module docstring."""

    def __init__(
        self,
        wakeup: Callable[[], None] = lambda: None,
        monotonic_ms: Callable[[], float] = lambda: time.monotonic() * 1000.0,
    ) -> None:
        self._wakeup = wakeup
        self._now = monotonic_ms
        self._lock = threading.Lock()
        self._heap: list[HerderRequest] = []
        self._seq = itertools.count()
        self._closed = False

    def submit(
        self, action: Callable[[], T], *, delay_ms: float = 0.0, description: str = ""
    ) -> Future[T]:
        """Queue ``action`` to run on the herder thread after ``delay_ms``."""
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                future.set_exception(
                    ConnectRestException(
                        503, "The worker is shutting down; retry on another worker"
                    )
                )
                return future
            req = HerderRequest(
                self._now() + delay_ms, next(self._seq), action, future, description
            )
            heapq.heappush(self._heap, req)
            at_head = self._heap[0] is req
        if at_head:
            self._wakeup()
        return future

    def pop_due(self) -> HerderRequest | None:
        """The next request whose time has come, or None."""
        with self._lock:
            while self._heap:
                head = self._heap[0]
                if head.future.cancelled():
                    heapq.heappop(self._heap)
                    continue
                if head.due_ms <= self._now():
                    return heapq.heappop(self._heap)
                return None
            return None

    def ms_until_next(self) -> float | None:
        """Milliseconds until the head request is due (0 if due now), None when empty."""
        with self._lock:
            if not self._heap:
                return None
            return max(0.0, self._heap[0].due_ms - self._now())

    def __len__(self) -> int:
        with self._lock:
            return len(self._heap)

    def close(self, error: BaseException) -> None:
        """Fail every pending request with ``error``; later submits fail immediately."""
        with self._lock:
            self._closed = True
            pending, self._heap = self._heap, []
        for req in pending:
            if req.future.set_running_or_notify_cancel():
                req.future.set_exception(error)


def await_result(future: Future[T], timeout_s: float, stage: str) -> T:
    """``future.result(timeout_s)``; on timeout a 500 naming what the herder is doing."""
    try:
        return future.result(timeout_s)
    except FutureTimeout:
        future.cancel()
        raise ConnectRestException(
            500, f"Request timed out. The worker is currently {stage}"
        ) from None
