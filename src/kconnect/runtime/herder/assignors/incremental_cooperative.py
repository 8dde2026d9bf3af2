"""Incremental cooperative assignment (KIP-415; Kafka's ``IncrementalCooperativeAssignor``).

Members keep running what they have; each rebalance the leader sends every member only what
it must newly start and newly stop. The leader remembers the previous assignment:

- deleted (previous but no longer configured) and duplicated (running on >1 member) work is
  revoked;
- lost work (previous, not running anywhere, not deleted) is not reassigned at once when a
  member seems to have left: the leader schedules a rebalance ``scheduled.rebalance.max.delay.ms``
  away (``delay`` in the assignment) so the member can come back, and only at expiry hands the
  work to workers that were empty meanwhile (candidates) or to everybody;
- new work goes to the least loaded members; when nothing is pending, over-loaded members have
  the excess revoked, throttled by exponential back-off after consecutive revoking rounds.

Only the leader's coordinator thread calls :meth:`perform_assignment`; the instance carries
memory across rebalances and is not thread-safe. Time comes from the injected clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect.kafka.group.connect_protocol import (
    NO_ERROR,
    ConnectProtocolCompatibility,
    ExtendedAssignment,
    WorkerState,
)
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.herder.assignors.contract import (
    LeaderState,
    mismatch_assignments,
    resolve_leader_snapshot,
)

__all__ = ["ClusterAssignment", "ConnectorsAndTasks", "IncrementalCooperativeAssignor"]


@dataclass
class ConnectorsAndTasks:
    """Ordered sets (dicts) of connectors and tasks."""

    connectors: dict[str, None] = field(default_factory=dict)
    tasks: dict[ConnectorTaskId, None] = field(default_factory=dict)

    @staticmethod
    def of(connectors: Iterable[str] = (), tasks: Iterable[Any] = ()) -> ConnectorsAndTasks:
        return ConnectorsAndTasks(
            dict.fromkeys(connectors),
            dict.fromkeys(t if type(t) is ConnectorTaskId else ConnectorTaskId(*t) for t in tasks),
        )

    def add_all(self, other: ConnectorsAndTasks) -> None:
        self.connectors.update(other.connectors)
        self.tasks.update(other.tasks)

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks

    def minus(self, *others: ConnectorsAndTasks) -> ConnectorsAndTasks:
        """Sorted difference (Java builds these through TreeSets)."""
        cs = set(self.connectors)
        ts = set(self.tasks)
        for o in others:
            cs.difference_update(o.connectors)
            ts.difference_update(o.tasks)
        return ConnectorsAndTasks.of(sorted(cs), sorted(ts))


@dataclass
class _WorkerLoad:
    worker: str
    connectors: list[str]
    tasks: list[ConnectorTaskId]

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks


@dataclass
class ClusterAssignment:
    """One round's result per worker: newly assigned/revoked and everything assigned after it."""

    newly_assigned_connectors: dict[str, list[str]]
    newly_assigned_tasks: dict[str, list[ConnectorTaskId]]
    newly_revoked_connectors: dict[str, list[str]]
    newly_revoked_tasks: dict[str, list[ConnectorTaskId]]
    all_assigned_connectors: dict[str, list[str]]
    all_assigned_tasks: dict[str, list[ConnectorTaskId]]


class IncrementalCooperativeAssignor:
    """See the module docstring. ``max_delay_ms`` is ``scheduled.rebalance.max.delay.ms``."""

    def __init__(self, max_delay_ms: int, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()
        self.max_delay = max_delay_ms
        self.previous_assignment = ConnectorsAndTasks()
        self._previous_revocation = ConnectorsAndTasks()
        self.revoked_in_previous = False
        self.candidate_workers_for_reassignment: dict[str, None] = {}
        self.scheduled_rebalance = 0
        self.delay = 0
        self.previous_generation_id = -1
        self.previous_members: set[str] = set()
        self.num_successive_revoking_rebalances = 0
        self.leader_state: LeaderState | None = None
        # ExponentialBackoff(initial 1 (0 when delays are off), x40, max = max delay, no jitter).
        self._backoff_initial = min(max_delay_ms, 0 if max_delay_ms == 0 else 1)
        self._backoff_exp_max = (
            math.log(max_delay_ms / max(self._backoff_initial, 1)) / math.log(40)
            if max_delay_ms > self._backoff_initial
            else 0.0
        )

    # --- entry point -------------------------------------------------------------------------

    def perform_assignment(
        self,
        leader_id: str,
        protocol: str,
        members: Mapping[str, WorkerState],
        snapshot: Any,
        fresh_snapshot: Callable[[], Any] | None = None,
        *,
        last_completed_generation: int = -1,
        current_generation: int = -1,
    ) -> dict[str, ExtendedAssignment]:
        version = ConnectProtocolCompatibility.from_protocol(protocol).protocol_version
        used, offset = resolve_leader_snapshot(members, snapshot, fresh_snapshot)
        if used is None:
            return mismatch_assignments(members, leader_id, version, offset)
        member_assignments = {
            m: ConnectorsAndTasks.of(
                s.allocation.connectors if s.allocation else (),
                s.allocation.tasks if s.allocation else (),
            )
            for m, s in sorted(members.items())
        }
        result = self.perform_task_assignment(
            used, last_completed_generation, current_generation, member_assignments
        )
        self.leader_state = LeaderState.build(
            members, result.all_assigned_connectors, result.all_assigned_tasks
        )
        url = members[leader_id].url
        return {
            m: ExtendedAssignment(
                version,
                NO_ERROR,
                leader_id,
                url,
                offset,
                list(result.newly_assigned_connectors.get(m, ())),
                list(result.newly_assigned_tasks.get(m, ())),
                list(result.newly_revoked_connectors.get(m, ())),
                list(result.newly_revoked_tasks.get(m, ())),
                self.delay,
            )
            for m in members
        }

    # --- the algorithm -------------------------------------------------------------------------

    def perform_task_assignment(
        self,
        snapshot: Any,
        last_completed_generation: int,
        current_generation: int,
        member_assignments: Mapping[str, ConnectorsAndTasks],
    ) -> ClusterAssignment:
        """Compute one round from what each member runs now (visible for tests, as in Kafka)."""
        if self.previous_generation_id != last_completed_generation:
            # The leader missed a round (or just became leader): its memory is stale.
            self.previous_assignment = ConnectorsAndTasks()

        configured_connectors = sorted(snapshot.connectors())
        configured = ConnectorsAndTasks.of(
            configured_connectors,
            sorted(t for c in configured_connectors for t in snapshot.tasks(c)),
        )
        active = ConnectorsAndTasks()
        for a in member_assignments.values():
            active.add_all(a)

        prev_rev = self._previous_revocation
        if not prev_rev.is_empty():
            # A revocation did not take effect: fall back to what is really running.
            if any(c in active.connectors for c in prev_rev.connectors) or any(
                t in active.tasks for t in prev_rev.tasks
            ):
                self.previous_assignment = ConnectorsAndTasks.of(active.connectors, active.tasks)
            self._previous_revocation = ConnectorsAndTasks()

        previous = self.previous_assignment
        deleted = previous.minus(configured)
        duplicated = self._duplicated(member_assignments)
        lost = previous.minus(active, deleted)
        created = configured.minus(previous, active)

        current = {
            w: _WorkerLoad(
                w,
                [c for c in a.connectors if c not in deleted.connectors],
                [t for t in a.tasks if t not in deleted.tasks],
            )
            for w, a in member_assignments.items()
        }

        to_revoke: dict[str, ConnectorsAndTasks] = {}
        deleted_to_revoke = _intersection(deleted, member_assignments)
        duplicated_to_revoke = _intersection(duplicated, member_assignments)
        _add_all(to_revoke, deleted_to_revoke)
        _add_all(to_revoke, duplicated_to_revoke)

        next_loads = [
            _WorkerLoad(w, list(a.connectors), list(a.tasks)) for w, a in member_assignments.items()
        ]
        _remove_all(next_loads, deleted_to_revoke)
        _remove_all(next_loads, duplicated_to_revoke)

        lost_to_reassign = ConnectorsAndTasks()
        self._handle_lost_assignments(lost, lost_to_reassign, next_loads)

        if self.delay == 0:
            balancing = self._load_balancing_revocations(configured, next_loads)
            if self.revoked_in_previous and balancing:
                self.num_successive_revoking_rebalances += 1
                self.delay = self._backoff(self.num_successive_revoking_rebalances)
                if self.delay != 0:
                    self.scheduled_rebalance = self._clock.milliseconds() + self.delay
                else:
                    _add_all(to_revoke, balancing)
                    _remove_all(next_loads, balancing)
            elif balancing:
                _add_all(to_revoke, balancing)
                _remove_all(next_loads, balancing)
                self.revoked_in_previous = True
            elif self.revoked_in_previous:
                # Converged: the next revoking round starts the back-off afresh.
                self.revoked_in_previous = False
                self.num_successive_revoking_rebalances = 0
        else:
            self.revoked_in_previous = False

        to_assign = ConnectorsAndTasks()
        to_assign.add_all(created)
        to_assign.add_all(lost_to_reassign)
        if next_loads:
            _assign(next_loads, list(to_assign.connectors), "connectors")
            _assign(next_loads, list(to_assign.tasks), "tasks")

        next_conns = {w.worker: w.connectors for w in next_loads}
        next_tasks = {w.worker: w.tasks for w in next_loads}
        newly_conns = {w: _list_minus(v, current[w].connectors) for w, v in next_conns.items()}
        newly_tasks = {w: _list_minus(v, current[w].tasks) for w, v in next_tasks.items()}
        revoked_conns = {w: list(r.connectors) for w, r in to_revoke.items()}
        revoked_tasks = {w: list(r.tasks) for w, r in to_revoke.items()}

        self.previous_assignment = self._compute_previous(to_revoke, next_loads, lost)
        self.previous_generation_id = current_generation
        self.previous_members = set(member_assignments)

        return ClusterAssignment(
            newly_conns,
            newly_tasks,
            revoked_conns,
            revoked_tasks,
            {w: _list_minus(v, revoked_conns.get(w, ())) for w, v in next_conns.items()},
            {w: _list_minus(v, revoked_tasks.get(w, ())) for w, v in next_tasks.items()},
        )

    def _compute_previous(
        self,
        to_revoke: Mapping[str, ConnectorsAndTasks],
        next_loads: list[_WorkerLoad],
        lost: ConnectorsAndTasks,
    ) -> ConnectorsAndTasks:
        previous = ConnectorsAndTasks.of(
            (c for w in next_loads for c in w.connectors), (t for w in next_loads for t in w.tasks)
        )
        for revoked in to_revoke.values():
            for c in revoked.connectors:
                previous.connectors.pop(c, None)
            for t in revoked.tasks:
                previous.tasks.pop(t, None)
            self._previous_revocation.add_all(revoked)
        previous.add_all(lost)
        return previous

    @staticmethod
    def _duplicated(member_assignments: Mapping[str, ConnectorsAndTasks]) -> ConnectorsAndTasks:
        conn_counts: dict[str, int] = {}
        task_counts: dict[ConnectorTaskId, int] = {}
        for a in member_assignments.values():
            for c in a.connectors:
                conn_counts[c] = conn_counts.get(c, 0) + 1
            for t in a.tasks:
                task_counts[t] = task_counts.get(t, 0) + 1
        return ConnectorsAndTasks.of(
            sorted(c for c, n in conn_counts.items() if n > 1),
            sorted(t for t, n in task_counts.items() if n > 1),
        )

    def _handle_lost_assignments(
        self,
        lost: ConnectorsAndTasks,
        lost_to_reassign: ConnectorsAndTasks,
        complete: list[_WorkerLoad],
    ) -> None:
        if lost.is_empty() and not self.revoked_in_previous:
            self._reset_delay()
            return
        now = self._clock.milliseconds()
        active_members = {w.worker for w in complete}
        if self.scheduled_rebalance <= 0 and self.previous_members <= active_members:
            # Nobody left: the work was lost because a member missed the last assignment.
            lost_to_reassign.add_all(lost)
            return
        if self.max_delay == 0:
            lost_to_reassign.add_all(lost)
            return

        if self.scheduled_rebalance > 0 and now >= self.scheduled_rebalance:
            by_name = {w.worker: w for w in complete}
            candidates = [
                by_name[w] for w in self.candidate_workers_for_reassignment if w in by_name
            ]
            if candidates:
                for i, c in enumerate(lost.connectors):
                    candidates[i % len(candidates)].connectors.append(c)
                for i, t in enumerate(lost.tasks):
                    candidates[i % len(candidates)].tasks.append(t)
            else:
                lost_to_reassign.add_all(lost)
            self._reset_delay()
            # The full delay has passed: successive revoking rebalances are allowed again.
            self.revoked_in_previous = False
        else:
            for w in sorted(w.worker for w in complete if w.is_empty()):
                self.candidate_workers_for_reassignment[w] = None
            if now < self.scheduled_rebalance:
                self.delay = self._calculate_delay(now)
            else:
                self.delay = self.max_delay
            self.scheduled_rebalance = now + self.delay

    def _reset_delay(self) -> None:
        self.candidate_workers_for_reassignment.clear()
        self.scheduled_rebalance = 0
        self.delay = 0

    def _calculate_delay(self, now: int) -> int:
        diff = self.scheduled_rebalance - now
        return int(min(diff, self.max_delay)) if diff > 0 else 0

    def _backoff(self, attempts: int) -> int:
        if self._backoff_exp_max == 0:
            return self._backoff_initial
        term = self._backoff_initial * math.pow(40, min(attempts, self._backoff_exp_max))
        return min(int(term), self.max_delay)

    def _load_balancing_revocations(
        self, configured: ConnectorsAndTasks, workers: list[_WorkerLoad]
    ) -> dict[str, ConnectorsAndTasks]:
        if all(w.is_empty() for w in workers) or configured.is_empty():
            return {}
        result: dict[str, ConnectorsAndTasks] = {}
        for w, revoked in _balance(len(configured.connectors), workers, "connectors").items():
            result.setdefault(w, ConnectorsAndTasks()).connectors.update(dict.fromkeys(revoked))
        for w, revoked in _balance(len(configured.tasks), workers, "tasks").items():
            result.setdefault(w, ConnectorsAndTasks()).tasks.update(dict.fromkeys(revoked))
        return result


def _balance(total: int, workers: list[_WorkerLoad], kind: str) -> dict[str, list[Any]]:
    """Which items to take from over-allocated workers so each has min or min+1 of ``kind``."""
    n = len(workers)
    minimum = total // n
    extra = total % n
    sizes = [len(getattr(w, kind)) for w in workers]
    at_min = sum(1 for s in sizes if s == minimum)
    at_extra = sum(1 for s in sizes if s == minimum + 1)
    if at_extra == extra and at_min + at_extra == n:
        return {}
    result: dict[str, list[Any]] = {}
    allocated_extras = 0
    for w, size in zip(workers, sizes, strict=True):
        if size <= minimum:
            continue
        if allocated_extras < extra:
            allocated_extras += 1
            if size == minimum + 1:
                continue
            allowed = minimum + 1
        else:
            allowed = minimum
        result[w.worker] = list(getattr(w, kind)[: size - allowed])
    return result


def _assign(workers: list[_WorkerLoad], items: list[Any], kind: str) -> None:
    """Fill the least-loaded workers first, round robin among equals (Kafka's order)."""
    workers.sort(key=lambda w: (len(getattr(w, kind)), w.worker))
    first = workers[0]
    i = 0
    while i < len(items):
        first_load = len(getattr(first, kind))
        up_to = next(
            (j for j, w in enumerate(workers) if len(getattr(w, kind)) > first_load), len(workers)
        )
        for w in workers[:up_to]:
            getattr(w, kind).append(items[i])
            i += 1
            if i >= len(items):
                break


def _intersection(
    items: ConnectorsAndTasks, assignments: Mapping[str, ConnectorsAndTasks]
) -> dict[str, ConnectorsAndTasks]:
    return {
        w: ConnectorsAndTasks.of(
            [c for c in a.connectors if c in items.connectors],
            [t for t in a.tasks if t in items.tasks],
        )
        for w, a in assignments.items()
    }


def _add_all(base: dict[str, ConnectorsAndTasks], to_add: Mapping[str, ConnectorsAndTasks]) -> None:
    for w, a in to_add.items():
        base.setdefault(w, ConnectorsAndTasks()).add_all(a)


def _remove_all(loads: list[_WorkerLoad], to_remove: Mapping[str, ConnectorsAndTasks]) -> None:
    for load in loads:
        r = to_remove.get(load.worker)
        if r is not None:
            load.connectors = [c for c in load.connectors if c not in r.connectors]
            load.tasks = [t for t in load.tasks if t not in r.tasks]


def _list_minus(values: Iterable[Any], remove: Iterable[Any]) -> list[Any]:
    drop = set(remove)
    return [v for v in values if v not in drop]
