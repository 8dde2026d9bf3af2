"""The group assignment a distributed worker holds, and the listener that receives it.

:class:`CurrentAssignment` is what the worker last got from the group: the assignment, the
member id and generation it came with, whether the herder thread has applied it yet, and a
rebalance the leader scheduled for later (``scheduled.rebalance.max.delay.ms``).
:class:`RebalanceEvents` is the group member's listener: ``on_assigned`` records a new
assignment and wakes the herder thread; ``on_revoked`` stops revoked work synchronously, as
Kafka requires, before the member rejoins. Both run on the member's thread; the state is
read by the herder thread and REST threads, under one lock.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from kconnect.kafka.group.connect_protocol import ExtendedAssignment
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.herder.rebalance_handler import RebalanceHandler, task_ids
from kconnect.runtime.metrics import RebalanceMetrics
from kconnect.runtime.storage.status_store import StatusBackingStore

__all__ = ["CurrentAssignment", "RebalanceEvents"]

log = logging.getLogger(__name__)


class CurrentAssignment:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._assignment: ExtendedAssignment | None = None
        self._member_id = ""
        self._generation = -1
        self._resolved = False
        self._scheduled_rebalance_ms: float | None = None

    def received(self, assignment: ExtendedAssignment, member_id: str, generation: int) -> None:
        """A rebalance completed (member thread): not applied yet."""
        with self._lock:
            self._assignment = assignment
            self._member_id = member_id
            self._generation = generation
            self._resolved = False
            self._scheduled_rebalance_ms = (
                self._clock.milliseconds() + assignment.delay if assignment.delay > 0 else None
            )

    @property
    def assignment(self) -> ExtendedAssignment | None:
        return self._assignment

    @property
    def generation(self) -> int:
        """The generation statuses are written with (0 before the first assignment)."""
        return max(self._generation, 0)

    @property
    def resolved(self) -> bool:
        """Whether the herder thread applied the current assignment (requests may run)."""
        with self._lock:
            return self._resolved

    def is_leader(self) -> bool:
        # the member id recorded with the assignment: the coordinator's own may be blank
        # for a moment while it rejoins, and leadership only changes with an assignment
        a = self._assignment
        return a is not None and bool(self._member_id) and a.leader == self._member_id

    def leader_url(self) -> str | None:
        a = self._assignment
        return None if a is None else (a.leader_url or None)

    def unresolve(self) -> None:
        """A rejoin was requested: the current assignment no longer holds."""
        with self._lock:
            self._resolved = False

    def resolve(self, applied: ExtendedAssignment) -> int | None:
        """Mark ``applied`` as applied; its generation, or None when a newer assignment
        arrived meanwhile (the herder thread handles that one next)."""
        with self._lock:
            if self._assignment is not applied:
                return None
            self._resolved = True
            return self._generation

    def due_scheduled_rebalance(self) -> bool:
        """True (once) when the leader's scheduled rebalance delay has passed."""
        with self._lock:
            due = self._scheduled_rebalance_ms
            if due is None or due > self._clock.milliseconds():
                return False
            self._scheduled_rebalance_ms = None
            return True

    def ms_until_scheduled_rebalance(self) -> float | None:
        due = self._scheduled_rebalance_ms
        return None if due is None else max(0.0, due - self._clock.milliseconds())


class RebalanceHost(Protocol):
    """What the rebalance listener needs from the herder thread."""

    assignment: CurrentAssignment
    rebalance: RebalanceHandler
    status_store: StatusBackingStore

    def wakeup(self) -> None: ...

    def member_id(self) -> str: ...

    def protocol_version(self) -> int: ...

    def rebalance_metrics(self) -> RebalanceMetrics: ...


class RebalanceEvents:
    """The group member's rebalance listener (called on the member's thread)."""

    def __init__(self, host: RebalanceHost) -> None:
        self._host = host

    def on_assigned(self, assignment: ExtendedAssignment, generation: int) -> None:
        host = self._host
        # Counts at INFO, the lists at DEBUG: at a thousand connectors the lists are some
        # 20 KB a line, written twice per created connector (design-notes.md, issue 34).
        log.info("Joined group at generation %d with protocol version %d and got assignment: "
                 "leader=%s connectors=%d tasks=%d revoked=%d/%d delay=%d", generation,
                 host.protocol_version(), assignment.leader, len(assignment.connectors),
                 len(assignment.tasks), len(assignment.revoked_connectors),
                 len(assignment.revoked_tasks), assignment.delay)  # fmt: skip
        if log.isEnabledFor(logging.DEBUG):
            log.debug("Assignment of generation %d: connectors=%s tasks=%s revoked=%s/%s",
                      generation, sorted(assignment.connectors),
                      sorted(str(ConnectorTaskId(*x)) for x in assignment.tasks),
                      assignment.revoked_connectors,
                      [str(ConnectorTaskId(*x)) for x in assignment.revoked_tasks])  # fmt: skip
        host.assignment.received(assignment, host.member_id(), generation)
        host.wakeup()

    def on_revoked(
        self, leader: str | None, connectors: list[str], tasks: list[ConnectorTaskId]
    ) -> None:
        host = self._host
        conns = list(connectors)
        ids = task_ids(tasks)
        log.info("Rebalance: stopping %d revoked connector(s) and %d task(s)", len(conns), len(ids))
        host.rebalance_metrics().rebalance_started()
        host.rebalance.revoke(conns, ids)
        try:
            host.status_store.flush()
        except Exception:
            log.warning("Flushing the status store before rebalancing failed", exc_info=True)
