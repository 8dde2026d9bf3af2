"""What every Connect group assignor shares: the protocol an assignor implements
(:class:`ConnectAssignor`), the part of the config snapshot it reads (:class:`ConfigSnapshot`),
the leader's state it is given (:class:`LeaderState`), and the config-mismatch answer.

The assignors (:mod:`.eager`, :mod:`.incremental_cooperative`) import this module; it imports
neither of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kconnect.kafka.group.connect_protocol import (
    CONFIG_MISMATCH,
    ExtendedAssignment,
    WorkerState,
)
from kconnect.runtime.common.ids import ConnectorTaskId

__all__ = [
    "ConfigSnapshot",
    "ConnectAssignor",
    "LeaderState",
    "config_offset",
    "mismatch_assignments",
    "resolve_leader_snapshot",
]


class ConfigSnapshot(Protocol):
    """The part of ``ClusterConfigState`` an assignor reads."""

    def connectors(self) -> list[str]: ...

    def tasks(self, connector: str) -> list[ConnectorTaskId]: ...


def config_offset(snapshot: object) -> int:
    """The config-topic offset a snapshot reflects (Kafka's ``ClusterConfigState.offset()``).

    -1 when the snapshot carries none (the memory store has no topic offset).
    """
    value = getattr(snapshot, "offset", -1)
    return int(value) if value is not None else -1


@dataclass(frozen=True)
class LeaderState:
    """Who owns what after the leader's last assignment: used to answer ``owner_url``."""

    member_urls: Mapping[str, str] = field(default_factory=dict)
    connector_owners: Mapping[str, str] = field(default_factory=dict)
    task_owners: Mapping[ConnectorTaskId, str] = field(default_factory=dict)

    @staticmethod
    def build(
        members: Mapping[str, WorkerState],
        connectors: Mapping[str, Iterable[str]],
        tasks: Mapping[str, Iterable[ConnectorTaskId]],
    ) -> LeaderState:
        return LeaderState(
            {m: s.url for m, s in members.items()},
            {c: m for m, cs in connectors.items() for c in cs},
            {ConnectorTaskId(*t): m for m, ts in tasks.items() for t in ts},
        )

    def owner_url(self, item: str | ConnectorTaskId) -> str | None:
        if isinstance(item, tuple):
            owner = self.task_owners.get(ConnectorTaskId(*item))
        else:
            owner = self.connector_owners.get(item)
        return None if owner is None else self.member_urls.get(owner)


class ConnectAssignor(Protocol):
    """Computes the group's assignment; called by the leader only, on the coordinator thread."""

    leader_state: LeaderState | None

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
    ) -> dict[str, ExtendedAssignment]: ...


def resolve_leader_snapshot(
    members: Mapping[str, WorkerState],
    snapshot: Any,
    fresh_snapshot: Callable[[], Any] | None,
) -> tuple[Any | None, int]:
    """(snapshot to assign from or None on CONFIG_MISMATCH, offset to put in the assignments).

    The assignment offset is the highest config offset any member reported. A leader that is
    behind it re-reads once (``fresh_snapshot``); if still behind, every member gets
    CONFIG_MISMATCH with that max offset, so they all read to the end and rejoin.
    """
    max_offset = max(s.config_offset for s in members.values())
    if config_offset(snapshot) < max_offset:
        updated = fresh_snapshot() if fresh_snapshot is not None else snapshot
        if config_offset(updated) < max_offset:
            return None, max_offset
        return updated, config_offset(updated)
    return snapshot, max_offset


def mismatch_assignments(
    members: Mapping[str, WorkerState], leader_id: str, version: int, max_offset: int
) -> dict[str, ExtendedAssignment]:
    url = members[leader_id].url
    return {
        m: ExtendedAssignment(version, CONFIG_MISMATCH, leader_id, url, max_offset) for m in members
    }
