"""One background thread per connector or task for MirrorMaker 2's periodic admin work (Java's
``Scheduler``): refreshing topics and groups, syncing configs and ACLs, group offsets.

Jobs run one at a time on the scheduler's thread, so they never race each other. A job that
raises is logged and the next run goes ahead, as in Java. ``execute`` runs a job and waits for
it (at most the admin timeout); ``schedule_repeating`` runs it now and then every interval,
``schedule_repeating_delayed`` first after one interval; ``None`` as interval means disabled.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

__all__ = ["Scheduler"]

log = logging.getLogger(__name__)

Job = Callable[[], object]


class Scheduler:
    """See the module docstring. ``close`` waits for the running job (at most ``timeout_s``)."""

    def __init__(self, name: str, timeout_s: float) -> None:
        self.name = name
        self.timeout_s = timeout_s
        self._queue: list[tuple[float, int, Job, str, float | None]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(
            target=self._run, name=f"mirror-scheduler {name}", daemon=True
        )
        self._thread.start()

    # -- submitting -----------------------------------------------------------------------------

    def _submit(self, due: float, job: Job, description: str, interval: float | None) -> None:
        with self._cond:
            if self._closed:
                return
            heapq.heappush(self._queue, (due, next(self._seq), job, description, interval))
            self._cond.notify()

    def execute(self, job: Job, description: str, *, propagate: bool = False) -> None:
        """Run ``job`` on the scheduler thread and wait for it (up to ``timeout_s``). Failures and
        time-outs are logged; with ``propagate`` the job's exception is raised here instead."""
        done: Future[None] = Future()

        def run() -> None:
            try:
                job()
            except BaseException as e:
                done.set_exception(e)
            else:
                done.set_result(None)

        self._submit(time.monotonic(), run, description, None)
        try:
            done.result(self.timeout_s)
        except FutureTimeout:
            log.error("%s timed out running task: %s", self.name, description)
        except Exception:
            if propagate:
                raise
            log.exception("%s caught exception in task: %s", self.name, description)

    def execute_async(self, job: Job, description: str) -> None:
        self._submit(time.monotonic(), job, description, None)

    def schedule_repeating(self, job: Job, interval_s: float | None, description: str) -> None:
        if interval_s is not None and interval_s >= 0:
            self._submit(time.monotonic(), job, description, interval_s)

    def schedule_repeating_delayed(
        self, job: Job, interval_s: float | None, description: str
    ) -> None:
        if interval_s is not None and interval_s >= 0:
            self._submit(time.monotonic() + interval_s, job, description, interval_s)

    # -- running --------------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (
                    not self._queue or self._queue[0][0] > time.monotonic()
                ):
                    wait = self._queue[0][0] - time.monotonic() if self._queue else None
                    self._cond.wait(wait)
                if self._closed:
                    return
                due, _, job, description, interval = heapq.heappop(self._queue)
            started = time.monotonic()
            try:
                job()
            except Exception:
                log.exception("%s caught exception in scheduled task: %s", self.name, description)
            elapsed = time.monotonic() - started
            log.debug("%s took %d ms", description, elapsed * 1000)
            if elapsed > self.timeout_s:
                log.warning("%s took too long (%d ms) running task: %s",
                            self.name, elapsed * 1000, description)  # fmt: skip
            if interval is not None:
                # fixed rate, as Java's scheduleAtFixedRate: late runs are not made up twice
                next_due = due + max(interval, 0.001)
                self._submit(max(next_due, time.monotonic()), job, description, interval)

    def close(self) -> None:
        """Stop scheduling; wait (up to ``timeout_s``) for a running job to finish."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(self.timeout_s)
            if self._thread.is_alive():
                log.error("%s timed out during shutdown of internal scheduler.", self.name)
