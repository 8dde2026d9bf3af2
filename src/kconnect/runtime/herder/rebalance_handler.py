"""Applying group assignments to the worker: stop what was revoked, start what was assigned.

The distributed herder hands every completed rebalance to a :class:`RebalanceHandler`:

* :func:`assess_assignment` decides (Kafka's ``handleRebalanceCompleted``) whether the herder
  must read the config topic to the end, rejoin, or may start work;
* :meth:`RebalanceHandler.revoke` stops revoked connectors/tasks (called from the group
  member's ``on_revoked`` — before the member rejoins, so no item ever runs on two workers);
* :meth:`RebalanceHandler.apply` starts what the (augmented) assignment holds that is not
  running yet, including tasks stopped for a task-config update that are still ours.

Starts and stops of a batch run concurrently on a small pool (a task start creates Kafka
clients and may take a while; Kafka uses a pool for the same reason), and the call returns
when the batch is done. The handler's operations themselves run one at a time: in Kafka they
all run on the herder's one thread, so a revocation never overlaps the start of the work it
revokes. Here ``revoke`` comes from the group member's thread while ``apply`` may still be
starting the previous assignment (a task process takes ~0.3 s to start); it waits for that
batch to finish, then stops it (why: docs/design-notes.md, "Task processes, not more
workers").

Assignments are G's :class:`~kconnect.kafka.group.connect_protocol.ExtendedAssignment`; task ids in
them may be plain ``(connector, task)`` tuples.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartPlan

__all__ = ["AssignmentVerdict", "RebalanceHandler", "RunningWork", "assess_assignment", "task_ids"]

log = logging.getLogger(__name__)


def task_ids(items: Iterable[Any]) -> set[ConnectorTaskId]:
    """Assignment task entries as :class:`ConnectorTaskId`."""
    return {
        t if isinstance(t, ConnectorTaskId) else ConnectorTaskId(t[0], int(t[1])) for t in items
    }


@dataclass(frozen=True)
class AssignmentVerdict:
    """What the herder must do with a completed rebalance before starting work."""

    read_to_end: bool
    rejoin: bool


def assess_assignment(
    failed: bool, is_leader: bool, local_offset: int, assignment_offset: int
) -> AssignmentVerdict:
    """Kafka's rules: a failed assignment always means rejoin (after catching up if we lead
    or lag); a good one means catch up first when our config offset is behind."""
    if failed:
        return AssignmentVerdict(
            read_to_end=is_leader or local_offset < assignment_offset, rejoin=True
        )
    return AssignmentVerdict(read_to_end=local_offset < assignment_offset, rejoin=False)


@dataclass
class RunningWork:
    """What this worker runs under the current assignment (Kafka's ``runningAssignment``)."""

    connectors: set[str] = field(default_factory=set)
    tasks: set[ConnectorTaskId] = field(default_factory=set)


class RebalanceHandler:
    """Tracks running work and applies assignments through the callables given.

    ``start_connector(name)`` / ``start_task(task_id)`` start one item (the herder's own
    methods, which read the current config snapshot and report failures as FAILED statuses);
    ``stop_connector(name)`` / ``stop_tasks(ids)`` stop and wait. All four may block.
    Thread-safe: ``revoke`` runs on the group member's thread, ``apply`` on the herder's;
    ``revoke``, ``apply``, ``stop_for_reconfiguration`` and ``restart`` run one at a time
    (``_serial``), each to its end.
    """

    def __init__(
        self,
        start_connector: Callable[[str], None],
        start_task: Callable[[ConnectorTaskId], None],
        stop_connector: Callable[[str], None],
        stop_tasks: Callable[[list[ConnectorTaskId]], None],
        *,
        parallelism: int = 8,
    ) -> None:
        self._start_connector = start_connector
        self._start_task = start_task
        self._stop_connector = stop_connector
        self._stop_tasks = stop_tasks
        self._pool = ThreadPoolExecutor(parallelism, thread_name_prefix="herder-start-stop")
        self._lock = threading.Lock()  # guards ``running`` and ``_tasks_to_restart``
        # one operation at a time; reentrant: apply revokes stray work itself
        self._serial = threading.RLock()
        self.running = RunningWork()
        self._tasks_to_restart: set[ConnectorTaskId] = set()

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def _run_all(self, calls: list[Callable[[], None]]) -> None:
        for future in [self._pool.submit(c) for c in calls]:
            try:
                future.result()
            except Exception:  # each callable reports its own failure; keep the others going
                log.exception("Starting or stopping work after a rebalance failed")

    def revoke(self, connectors: Iterable[str], tasks: Iterable[Any]) -> None:
        """Stop revoked connectors and tasks and forget them (blocks until stopped, and first
        until an ``apply`` in progress has started its batch)."""
        with self._serial:
            self._revoke(connectors, tasks)

    def _revoke(self, connectors: Iterable[str], tasks: Iterable[Any]) -> None:
        conns = list(connectors)
        ids = sorted(task_ids(tasks))
        calls: list[Callable[[], None]] = [partial(self._stop_connector, n) for n in conns]
        if ids:
            calls.append(lambda: self._stop_tasks(ids))
        self._run_all(calls)
        with self._lock:
            self.running.connectors.difference_update(conns)
            self.running.tasks.difference_update(ids)
        if conns or ids:
            log.info("Finished stopping %d connector(s) and %d task(s) in preparation for rebalance",
                     len(conns), len(ids))  # fmt: skip

    def stop_for_reconfiguration(self, task_ids_: Iterable[ConnectorTaskId]) -> None:
        """Stop local tasks whose configs changed; they restart after the next rebalance if
        they are still assigned here (Kafka's ``tasksToRestart``)."""
        with self._serial:
            self._stop_for_reconfiguration(task_ids_)

    def _stop_for_reconfiguration(self, task_ids_: Iterable[ConnectorTaskId]) -> None:
        with self._lock:
            ids = sorted(t for t in task_ids_ if t in self.running.tasks)
        if not ids:
            return
        log.info("Handling task config update by stopping tasks %s, which will be restarted "
                 "after rebalance if still assigned to this worker", [str(t) for t in ids])  # fmt: skip
        self._stop_tasks(ids)
        with self._lock:
            self._tasks_to_restart.update(ids)

    def plan(
        self, assigned_connectors: Iterable[str], assigned_tasks: Iterable[Any]
    ) -> tuple[list[str], list[ConnectorTaskId]]:
        """(connectors, tasks) of the assignment that are not running here."""
        with self._lock:
            running_tasks = self.running.tasks - self._tasks_to_restart
            conns = sorted(set(assigned_connectors) - self.running.connectors)
            tasks = sorted(task_ids(assigned_tasks) - running_tasks)
        return conns, tasks

    def apply(self, assigned_connectors: Iterable[str], assigned_tasks: Iterable[Any]) -> None:
        """Make the running work equal the (augmented) assignment: start what is missing and,
        defensively, stop anything running that the assignment no longer holds (normally
        already stopped through :meth:`revoke`). Blocks until done."""
        with self._serial:
            self._apply(assigned_connectors, assigned_tasks)

    def _apply(self, assigned_connectors: Iterable[str], assigned_tasks: Iterable[Any]) -> None:
        assigned_c = set(assigned_connectors)
        assigned_t = task_ids(assigned_tasks)
        with self._lock:
            stray_c = sorted(self.running.connectors - assigned_c)
            stray_t = sorted(self.running.tasks - assigned_t)
        if stray_c or stray_t:
            log.warning("Stopping work no longer assigned to this worker: %s %s",
                        stray_c, [str(t) for t in stray_t])  # fmt: skip
            self._revoke(stray_c, stray_t)
        conns, tasks = self.plan(assigned_c, assigned_t)
        with self._lock:
            self._tasks_to_restart.clear()
        log.info(
            "Starting %d connector(s) and %d task(s) after a rebalance", len(conns), len(tasks)
        )
        calls: list[Callable[[], None]] = [partial(self._start_connector, n) for n in conns]
        calls += [partial(self._start_task, t) for t in tasks]
        self._run_all(calls)
        with self._lock:
            self.running = RunningWork(set(assigned_c), set(assigned_t))
        log.info("Finished starting connectors and tasks")

    def restart(
        self, plan: RestartPlan, on_restart: Callable[[str | ConnectorTaskId], None]
    ) -> None:
        """Carry out the part of a KIP-745 restart plan that runs here: stop the connector and
        tasks it names that this worker owns, report them RESTARTING, start them again."""
        with self._serial:
            self._restart(plan, on_restart)

    def _restart(
        self, plan: RestartPlan, on_restart: Callable[[str | ConnectorTaskId], None]
    ) -> None:
        name = plan.request.connector
        tasks = [t for t in plan.task_ids_to_restart if self.owns_task(t)]
        connector = plan.restart_connector and self.owns_connector(name)
        if connector:
            self._stop_connector(name)
            on_restart(name)
        if tasks:
            self._stop_tasks(tasks)
            for t in tasks:
                on_restart(t)
        if connector:
            self._start_connector(name)
        for t in tasks:
            self._start_task(t)

    def owns_connector(self, name: str) -> bool:
        with self._lock:
            return name in self.running.connectors

    def owns_task(self, task_id: ConnectorTaskId) -> bool:
        with self._lock:
            return task_id in self.running.tasks

    def snapshot(self) -> RunningWork:
        with self._lock:
            return RunningWork(set(self.running.connectors), set(self.running.tasks))
