"""A cached thread pool: threads made when every one is busy, ended after a minute idle.

Java's ``Executors.newCachedThreadPool``, which Kafka Connect runs connectors on. A job never
waits for a free thread (a slow or stuck job costs one thread, not the others' turn), and a
thousand idle connectors hold no thread at all -- only the few threads still idle from
recent work. ``concurrent.futures.ThreadPoolExecutor`` has a fixed bound and keeps its
threads for ever, which is neither.

Lifecycle: threads are daemons, made on demand by :meth:`CachedThreadPool.execute`; each ends
after ``keep_alive_s`` without a job. There is nothing to shut down: a pool that is no longer
used empties itself.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable

__all__ = ["CachedThreadPool"]

log = logging.getLogger(__name__)

#: Java's cached thread pool keeps an idle thread 60 s.
KEEP_ALIVE_S = 60.0


class CachedThreadPool:
    """Runs each job at once on an idle thread of the pool, or on a new one; thread-safe."""

    def __init__(self, name: str, keep_alive_s: float = KEEP_ALIVE_S) -> None:
        self._name = name
        self._keep_alive_s = keep_alive_s
        self._lock = threading.Lock()
        self._jobs: deque[Callable[[], None]] = deque()
        self._wakeup = threading.Condition(self._lock)
        self._idle = 0
        self._threads = 0
        self._made = 0

    def execute(self, job: Callable[[], None]) -> None:
        """Run ``job`` on a pool thread; its exceptions are logged, never raised."""
        with self._lock:
            self._jobs.append(job)
            if self._idle > len(self._jobs) - 1:
                self._wakeup.notify()
                return
            self._threads += 1
            self._made += 1
            name = f"{self._name}-{self._made}"
        threading.Thread(target=self._run, name=name, daemon=True).start()

    @property
    def threads(self) -> int:
        """Threads alive now (busy or idle)."""
        with self._lock:
            return self._threads

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._jobs:
                    self._idle += 1
                    woken = self._wakeup.wait(self._keep_alive_s)
                    self._idle -= 1
                    if not woken and not self._jobs:
                        self._threads -= 1
                        return
                job = self._jobs.popleft()
            try:
                job()
            except BaseException:
                log.exception("A job of thread pool %s failed", self._name)
