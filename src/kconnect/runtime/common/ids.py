"""Identifiers of connector tasks (``ConnectorTaskId``)."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

__all__ = ["ConnectorTaskId", "task_ids"]


class ConnectorTaskId(NamedTuple):
    """A task: its connector's name and its number. ``str()`` gives Kafka's ``<name>-<n>``."""

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"

    def to_json(self) -> dict[str, object]:
        """The REST shape ``{"connector": name, "task": n}``."""
        return {"connector": self.connector, "task": self.task}

    @staticmethod
    def parse(text: str) -> ConnectorTaskId:
        """Parse ``<name>-<n>``; connector names may contain '-', the number is the last part."""
        name, _, num = text.rpartition("-")
        return ConnectorTaskId(name, int(num))


@lru_cache(maxsize=1 << 14)
def task_ids(connector: str, count: int) -> tuple[ConnectorTaskId, ...]:
    """The ids of ``connector``'s tasks ``0..count-1`` (cached: the leader lists every
    connector's tasks at each rebalance, and a cluster of thousands rebalances at every
    change)."""
    return tuple(ConnectorTaskId(connector, i) for i in range(count))
