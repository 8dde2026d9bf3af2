"""The worker's last rebalances, one :class:`RebalanceRecord` each: what the dashboard's
rebalance history shows (``GET /ui/api/worker``).

Kafka's ``connect-worker-rebalance-metrics`` only keep aggregates (epoch, max/avg time, time
since the last one); an operator asking "what moved, when, and how long did it take" needs the
rebalances themselves. :class:`RebalanceHistory` is fed by
:meth:`~kconnect.runtime.metrics.worker_metrics.RebalanceMetrics.rebalance_completed` with the
worker's whole assignment after each rebalance and keeps what changed against the previous
one. Bounded (the last :data:`HISTORY_SIZE`), thread-safe: written on the herder thread, read
on REST threads.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["HISTORY_SIZE", "RebalanceHistory", "RebalanceRecord"]

HISTORY_SIZE = 50


@dataclass(frozen=True)
class RebalanceRecord:
    """One completed rebalance as this worker saw it. Times are wall-clock milliseconds;
    ``assigned``/``revoked`` are what this worker gained and lost (connector names and
    ``<connector>-<n>`` task ids), against its previous assignment."""

    generation: int
    started_ms: int
    completed_ms: int
    duration_ms: float
    leader: str
    protocol: str
    assigned_connectors: tuple[str, ...]
    assigned_tasks: tuple[str, ...]
    revoked_connectors: tuple[str, ...]
    revoked_tasks: tuple[str, ...]
    connectors: int
    tasks: int

    def to_json(self) -> dict[str, Any]:
        return {
            "generation": self.generation,
            "started_ms": self.started_ms,
            "completed_ms": self.completed_ms,
            "duration_ms": round(self.duration_ms, 1),
            "leader": self.leader,
            "protocol": self.protocol,
            "assigned": {
                "connectors": list(self.assigned_connectors),
                "tasks": list(self.assigned_tasks),
            },
            "revoked": {
                "connectors": list(self.revoked_connectors),
                "tasks": list(self.revoked_tasks),
            },
            "connectors": self.connectors,
            "tasks": self.tasks,
        }


def _task_key(text: str) -> tuple[str, int]:
    name, _, number = text.rpartition("-")
    return (name, int(number)) if number.isdecimal() else (text, -1)


class RebalanceHistory:
    """The last :data:`HISTORY_SIZE` rebalances, oldest first."""

    def __init__(self, size: int = HISTORY_SIZE) -> None:
        self._lock = threading.Lock()
        self._records: deque[RebalanceRecord] = deque(maxlen=size)
        self._connectors: frozenset[str] = frozenset()
        self._tasks: frozenset[str] = frozenset()

    def record(
        self,
        *,
        generation: int,
        started_ms: int,
        completed_ms: int,
        duration_ms: float,
        leader: str,
        protocol: str,
        connectors: Iterable[str],
        tasks: Iterable[str],
    ) -> RebalanceRecord:
        """Add a rebalance after which this worker holds ``connectors`` and ``tasks``
        (its whole assignment, not the change)."""
        now_connectors = frozenset(connectors)
        now_tasks = frozenset(tasks)
        with self._lock:
            entry = RebalanceRecord(
                generation=generation,
                started_ms=started_ms,
                completed_ms=completed_ms,
                duration_ms=duration_ms,
                leader=leader,
                protocol=protocol,
                assigned_connectors=tuple(sorted(now_connectors - self._connectors)),
                assigned_tasks=tuple(sorted(now_tasks - self._tasks, key=_task_key)),
                revoked_connectors=tuple(sorted(self._connectors - now_connectors)),
                revoked_tasks=tuple(sorted(self._tasks - now_tasks, key=_task_key)),
                connectors=len(now_connectors),
                tasks=len(now_tasks),
            )
            self._records.append(entry)
            self._connectors, self._tasks = now_connectors, now_tasks
            return entry

    def records(self) -> list[RebalanceRecord]:
        """The kept rebalances, oldest first (a copy)."""
        with self._lock:
            return list(self._records)
