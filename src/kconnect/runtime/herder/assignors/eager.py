"""Eager assignment (Kafka's ``EagerAssignor``, group protocol ``default``).

Every rebalance starts from nothing: members revoked all their work before joining. Connectors
(sorted by name) go round robin over the sorted member ids, then every task (connectors in name
order, tasks in number order) continues the same round robin, so a cluster of one-task
connectors does not put all connectors on even members and all tasks on odd ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kconnect.kafka.group.connect_protocol import (
    CONNECT_PROTOCOL_V0,
    NO_ERROR,
    ExtendedAssignment,
    WorkerState,
)
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.herder.assignors.contract import (
    LeaderState,
    mismatch_assignments,
    resolve_leader_snapshot,
)

__all__ = ["EagerAssignor"]


class EagerAssignor:
    """Stateless round-robin assignor; ``leader_state`` reflects the last assignment."""

    def __init__(self) -> None:
        self.leader_state: LeaderState | None = None

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
        used, offset = resolve_leader_snapshot(members, snapshot, fresh_snapshot)
        if used is None:
            return mismatch_assignments(members, leader_id, CONNECT_PROTOCOL_V0, offset)
        order = sorted(members)
        connectors: dict[str, list[str]] = {m: [] for m in order}
        tasks: dict[str, list[ConnectorTaskId]] = {m: [] for m in order}
        i = 0
        names = sorted(used.connectors())
        for name in names:
            connectors[order[i % len(order)]].append(name)
            i += 1
        for name in names:
            for task in sorted(ConnectorTaskId(*t) for t in used.tasks(name)):
                tasks[order[i % len(order)]].append(task)
                i += 1
        self.leader_state = LeaderState.build(members, connectors, tasks)
        url = members[leader_id].url
        return {
            m: ExtendedAssignment(
                CONNECT_PROTOCOL_V0, NO_ERROR, leader_id, url, offset, connectors[m], tasks[m]
            )
            for m in members
        }
