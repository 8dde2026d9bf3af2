"""KIP-745 restart requests and plans (``RestartRequest``, ``RestartPlan``).

``POST /connectors/{c}/restart?includeTasks=&onlyFailed=`` becomes a :class:`RestartRequest`;
the herder turns it and the current statuses into a :class:`RestartPlan` that says which
instances restart, and the REST response shows those instances as ``RESTARTING``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import ConnectorStatus, State, TaskStatus

__all__ = ["RestartPlan", "RestartRequest"]


@dataclass(frozen=True)
class RestartRequest:
    """What the operator asked to restart."""

    connector: str
    only_failed: bool = False
    include_tasks: bool = False

    def force_restart_connector_only(self) -> bool:
        """The legacy form (both flags false): restart the Connector instance, reply 204."""
        return not self.only_failed and not self.include_tasks

    def should_restart_connector(self, status: ConnectorStatus) -> bool:
        return not self.only_failed or status.state is State.FAILED

    def should_restart_task(self, status: TaskStatus) -> bool:
        return self.include_tasks and (not self.only_failed or status.state is State.FAILED)

    def impact(self) -> int:
        """Higher means more is restarted (a pending request with a higher impact wins)."""
        return (2 if self.include_tasks else 0) + (0 if self.only_failed else 1)

    def __str__(self) -> str:
        return (
            f"restart request for {{connectorName='{self.connector}', "
            f"onlyFailed={str(self.only_failed).lower()}, "
            f"includeTasks={str(self.include_tasks).lower()}}}"
        )


@dataclass(frozen=True)
class RestartPlan:
    """Which instances a request restarts, and the status to reply with."""

    request: RestartRequest
    restart_connector: bool
    connector_status: ConnectorStatus
    task_statuses: list[TaskStatus] = field(default_factory=list)
    task_ids_to_restart: list[ConnectorTaskId] = field(default_factory=list)

    @classmethod
    def build(
        cls, request: RestartRequest, connector: ConnectorStatus, tasks: list[TaskStatus]
    ) -> RestartPlan:
        return cls(
            request,
            request.should_restart_connector(connector),
            connector,
            list(tasks),
            [t.id for t in tasks if request.should_restart_task(t)],
        )

    @property
    def should_restart_tasks(self) -> bool:
        return bool(self.task_ids_to_restart)

    def state_of_connector(self) -> State:
        return State.RESTARTING if self.restart_connector else self.connector_status.state

    def state_of_task(self, status: TaskStatus) -> State:
        return State.RESTARTING if status.id in self.task_ids_to_restart else status.state

    def __str__(self) -> str:
        return (
            f"plan to restart {'1' if self.restart_connector else '0'} connector and "
            f"{len(self.task_ids_to_restart)} of {len(self.task_statuses)} tasks for {self.request}"
        )
