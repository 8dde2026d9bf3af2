"""Connector and task states, target states, and the listener the worker reports them to.

``State`` is what ``GET /connectors/{name}/status`` shows (``AbstractStatus.State``);
``TargetState`` is what the operator asked for (``target-state-<name>`` in the config topic).
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass

from kconnect.runtime.common.ids import ConnectorTaskId

__all__ = [
    "AutoRestartInfo",
    "ConnectorStatus",
    "State",
    "StatusListener",
    "TargetState",
    "TaskStatus",
]


class State(enum.Enum):
    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    DESTROYED = "DESTROYED"
    RESTARTING = "RESTARTING"
    STOPPED = "STOPPED"


class TargetState(enum.Enum):
    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


@dataclass(frozen=True)
class AutoRestartInfo:
    """What kconnect's automatic restarts plan for a FAILED connector or task (written with its
    status; Kafka Connect workers ignore it).

    ``attempts``: automatic restarts so far (of at most ``max_attempts``, -1 for no limit);
    ``next_attempt_ms``: when the next one happens (epoch ms), None when none will;
    ``reason``: why not, when none will (the failure cannot heal, or the attempts ran out).
    """

    attempts: int
    max_attempts: int
    next_attempt_ms: int | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "attempts": self.attempts,
            "max_attempts": self.max_attempts,
            "next_attempt_ms": self.next_attempt_ms,
            "reason": self.reason,
        }

    @staticmethod
    def from_json(value: object) -> AutoRestartInfo | None:
        if not isinstance(value, dict):
            return None
        try:
            nxt = value.get("next_attempt_ms")
            reason = value.get("reason")
            return AutoRestartInfo(
                int(value["attempts"]),
                int(value["max_attempts"]),
                None if nxt is None else int(nxt),
                None if reason is None else str(reason),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class ConnectorStatus:
    """A connector's reported state, as stored in ``status-connector-<name>``."""

    connector: str
    state: State
    worker_id: str
    generation: int = 0
    trace: str | None = None
    version: str | None = None
    auto_restart: AutoRestartInfo | None = None


@dataclass(frozen=True)
class TaskStatus:
    """A task's reported state, as stored in ``status-task-<name>-<n>``."""

    id: ConnectorTaskId
    state: State
    worker_id: str
    generation: int = 0
    trace: str | None = None
    version: str | None = None
    auto_restart: AutoRestartInfo | None = None


class StatusListener(ABC):
    """Receives state changes of connectors (key: name) or tasks (key: ConnectorTaskId).

    The worker calls these from the connector's or task's own thread; implementations (the
    herder, which writes them to the status store) must be thread-safe and must not block
    for long. ``on_failure`` gets the exception; the status trace is its formatted traceback.
    """

    @abstractmethod
    def on_startup(self, key: str | ConnectorTaskId) -> None: ...

    @abstractmethod
    def on_pause(self, key: str | ConnectorTaskId) -> None: ...

    @abstractmethod
    def on_resume(self, key: str | ConnectorTaskId) -> None: ...

    @abstractmethod
    def on_stop(self, key: str | ConnectorTaskId) -> None:
        """The connector moved to STOPPED (connectors only)."""

    @abstractmethod
    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None: ...

    @abstractmethod
    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        """Stopped because the worker shuts down or the work moved (state UNASSIGNED)."""

    @abstractmethod
    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        """The connector or task was deleted (state DESTROYED, a tombstone)."""

    @abstractmethod
    def on_restart(self, key: str | ConnectorTaskId) -> None:
        """A restart was requested (state RESTARTING)."""
