"""An injectable clock, so retry, back-off and commit timing can be tested without sleeping.

``SystemClock`` is the real one. ``MockClock`` advances only when told to (or when code
sleeps on it), so a test can step through a 60 s commit interval instantly.
"""

from __future__ import annotations

import threading
import time

__all__ = ["Clock", "MockClock", "SystemClock"]


class Clock:
    """Milliseconds since the epoch, a monotonic clock, and interruptible sleeps."""

    def milliseconds(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic_ms(self) -> float:
        return time.monotonic() * 1000.0

    def sleep_ms(self, ms: float) -> None:
        if ms > 0:
            time.sleep(ms / 1000.0)

    def wait(self, event: threading.Event, ms: float) -> bool:
        """Wait until ``event`` is set or ``ms`` pass; True if the event is set."""
        return event.wait(max(0.0, ms) / 1000.0)


class SystemClock(Clock):
    """The wall/monotonic clock of the process."""


class MockClock(Clock):
    """A clock that moves only when :meth:`advance` is called or code sleeps/waits on it."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now = float(start_ms)
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def milliseconds(self) -> int:
        with self._lock:
            return int(self._now)

    def monotonic_ms(self) -> float:
        with self._lock:
            return self._now

    def advance(self, ms: float) -> None:
        with self._lock:
            self._now += ms

    def sleep_ms(self, ms: float) -> None:
        self.sleeps.append(ms)
        if ms > 0:
            self.advance(ms)

    def wait(self, event: threading.Event, ms: float) -> bool:
        if event.is_set():
            return True
        self.sleep_ms(ms)
        return event.is_set()
