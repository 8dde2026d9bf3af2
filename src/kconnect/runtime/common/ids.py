"""Identifiers of connector tasks (``ConnectorTaskId``)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ConnectorTaskId"]


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
