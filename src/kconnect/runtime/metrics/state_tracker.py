"""Time spent per status, for ``running-ratio`` and ``pause-ratio`` (Kafka's ``StateTracker``).

The ratio is the time in a state divided by the time since the first state change. Written
by the task thread (status changes), read by the scrape thread; guarded by a lock.
"""

from __future__ import annotations

import threading

from kconnect.runtime.common.clock import Clock

__all__ = ["StateTracker"]


class StateTracker:
    def __init__(self, clock: Clock, initial: str | None = None) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._state: str | None = None
        self._since = 0.0
        self._totals: dict[str, float] = {}
        if initial is not None:
            self.change(initial)

    def change(self, state: str) -> None:
        now = self._clock.monotonic_ms()
        with self._lock:
            if self._state is not None:
                self._totals[self._state] = self._totals.get(self._state, 0.0) + now - self._since
            self._state = state
            self._since = now

    @property
    def state(self) -> str | None:
        return self._state

    def ratio(self, state: str) -> float:
        now = self._clock.monotonic_ms()
        with self._lock:
            if self._state is None:
                return 0.0
            current = now - self._since
            total = current + sum(self._totals.values())
            wanted = self._totals.get(state, 0.0) + (current if state == self._state else 0.0)
        return wanted / total if total > 0 else (1.0 if state == self._state else 0.0)
