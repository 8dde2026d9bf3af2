"""Kafka's ``ThroughputThrottler``: keeps a loop near a target rate of items per second.

The loop asks :meth:`ThroughputThrottler.should_throttle` with the items sent so far and, when
ahead of the target, calls :meth:`throttle`, which sleeps on average ``1/target`` seconds per
call (in naps of at least 2 ms). A target of 0 blocks in ``throttle`` until :meth:`wakeup`;
a negative target never throttles. ``wakeup`` may be called from any thread (a task's
``stop``) and cuts a sleep short.
"""

from __future__ import annotations

import threading
import time

__all__ = ["ThroughputThrottler"]

_NS_PER_SEC = 1_000_000_000
_MIN_SLEEP_NS = 2_000_000


class ThroughputThrottler:
    def __init__(self, target_throughput: float, start_ms: int) -> None:
        self._start_ms = start_ms
        self._target = target_throughput
        self._sleep_time_ns = (
            int(_NS_PER_SEC / target_throughput) if target_throughput > 0 else (1 << 63) - 1
        )
        self._sleep_deficit_ns = 0
        self._wakeup = False
        self._cond = threading.Condition()

    def should_throttle(self, amount_so_far: int, send_start_ms: int) -> bool:
        """True when ``amount_so_far`` items since the start exceed the target rate."""
        if self._target < 0:
            return False
        elapsed_s = (send_start_ms - self._start_ms) / 1000.0
        return elapsed_s > 0 and amount_so_far / elapsed_s > self._target

    def throttle(self) -> None:
        """Sleep off the accumulated deficit (or, with a target of 0, until woken up)."""
        if self._target == 0:
            with self._cond:
                while not self._wakeup:
                    self._cond.wait()
            return
        self._sleep_deficit_ns += self._sleep_time_ns
        if self._sleep_deficit_ns < _MIN_SLEEP_NS:
            return
        started = time.monotonic_ns()
        with self._cond:
            remaining = self._sleep_deficit_ns
            while not self._wakeup and remaining > 0:
                self._cond.wait(remaining / _NS_PER_SEC)
                remaining = self._sleep_deficit_ns - (time.monotonic_ns() - started)
            self._wakeup = False
        self._sleep_deficit_ns = 0

    def wakeup(self) -> None:
        """End the current (or next) sleep at once."""
        with self._cond:
            self._wakeup = True
            self._cond.notify_all()
