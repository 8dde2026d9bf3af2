"""Where a worker's tasks run: threads of the worker process, or task processes.

:class:`TaskExecutor` is what the :class:`~kconnect.runtime.worker.worker.Worker` hands its
tasks to. Two implementations share one contract: :class:`~kconnect.runtime.worker.task_processes.local_tasks.
LocalTasks` runs each task on a thread of this process (``task.processes`` 0 or 1), and
:class:`~kconnect.runtime.worker.task_processes.task_pool.TaskProcessPool` spreads them over child processes,
each of which runs a ``LocalTasks`` of its own. Either way the herder's status listener receives
the same events in the same order, and ``plugin_version`` answers for running tasks.

Every method is thread-safe and is called from herder/REST threads; ``start_task`` and
``stop_and_await_tasks`` may block (building clients, waiting for a task to stop).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight

__all__ = ["TaskExecutor"]


class TaskExecutor(ABC):
    @abstractmethod
    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        listener: StatusListener,
        target_state: TargetState,
        preflight: ExactlyOncePreflight | None = None,
    ) -> bool:
        """Build and start a task; False (and FAILED reported through ``listener``) when it
        could not be built. Raises ConnectException if the task already runs here.

        ``preflight`` given: a source task runs exactly once (``exactly.once.source.support=
        enabled``), calling the preflight's checks on its thread before it starts."""

    @abstractmethod
    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
        """Stop tasks and wait, ``task.shutdown.graceful.timeout.ms`` in total; a task still
        running then is abandoned with an error log. Unknown ids are ignored (logged)."""

    @abstractmethod
    def transition(self, connector: str, state: TargetState) -> None:
        """Move the connector's tasks here to ``state`` (STOPPED is treated as PAUSED)."""

    @abstractmethod
    def task_ids(self) -> set[ConnectorTaskId]: ...

    @abstractmethod
    def plugin_version(self, task_id: ConnectorTaskId) -> str | None:
        """The running task's ``version()``; None when it does not run here."""

    def set_logger_level(self, namespace: str, level: str) -> None:
        """A log level changed through ``/admin/loggers`` (task processes follow it)."""

    def close(self) -> None:
        """Release what the executor holds (after every task stopped)."""
