"""The herder's :class:`~kconnect.runtime.common.states.StatusListener`: state changes into the store.

Both herders are the worker's status listener (Kafka's ``AbstractHerder`` implements
``ConnectorStatus.Listener`` and ``TaskStatus.Listener`` the same way). The worker calls these
methods from the connector's or task's own thread; each one writes one status (the worker id,
the herder's current generation and, for a failure, the formatted traceback) and returns. They
may block only as long as the status store's write does.

FAILED and UNASSIGNED are written with ``put_safe``: a worker that lost the work in a
rebalance must not overwrite the status the new owner (a newer generation) wrote. With one
worker (standalone, generation 0) that check never skips a write.
"""

from __future__ import annotations

import traceback
from abc import abstractmethod

from kconnect.api.secrets import redact
from kconnect.runtime.common.failures import RemoteFailure
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import (
    AutoRestartInfo,
    ConnectorStatus,
    State,
    StatusListener,
    TaskStatus,
)
from kconnect.runtime.storage.status_store import StatusBackingStore

__all__ = ["HerderStatusListener", "format_trace"]


def format_trace(error: BaseException) -> str:
    """The status ``trace`` of a failure: the exception's full formatted traceback (for a
    failure in a task process, the traceback as formatted there), every known secret hidden."""
    if isinstance(error, RemoteFailure):
        return redact(error.trace)
    return redact("".join(traceback.format_exception(type(error), error, error.__traceback__)))


class HerderStatusListener(StatusListener):
    """Records connector and task states in ``status_store``; mixed into the herders.

    The subclass provides ``status_store`` and ``worker_id``; a herder that takes part in
    group generations overrides :meth:`_status_generation`.
    """

    status_store: StatusBackingStore

    @property
    @abstractmethod
    def worker_id(self) -> str:
        """The id written with every status (the herder's worker)."""

    def _status_generation(self) -> int:
        """The generation written with each status; a lone worker is always at 0."""
        return 0

    def _status_version(self, key: str | ConnectorTaskId) -> str | None:
        """The plugin version written with each status (Kafka 4.1): the running connector's or
        task's ``version()``; None when the herder has no worker or it does not run ``key``."""
        worker = getattr(self, "worker", None)
        return None if worker is None else worker.plugin_version(key)

    def _status(
        self,
        key: str | ConnectorTaskId,
        state: State,
        trace: str | None = None,
        auto_restart: AutoRestartInfo | None = None,
    ) -> ConnectorStatus | TaskStatus:
        generation = self._status_generation()
        version = self._status_version(key)
        auto_restart = auto_restart or self._auto_restart_info(key)
        if isinstance(key, ConnectorTaskId):
            return TaskStatus(key, state, self.worker_id, generation, trace, version, auto_restart)
        return ConnectorStatus(key, state, self.worker_id, generation, trace, version, auto_restart)

    def _auto_restart_info(self, key: str | ConnectorTaskId) -> AutoRestartInfo | None:
        """The automatic-restart state written with every status of ``key`` (None here)."""
        return None

    def _failure_plan(
        self, key: str | ConnectorTaskId, error: BaseException
    ) -> AutoRestartInfo | None:
        """What happens next to a failed connector or task (kconnect's automatic restarts);
        written with its FAILED status. None by default."""
        return None

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        self.status_store.put(self._status(key, State.RUNNING))

    def on_pause(self, key: str | ConnectorTaskId) -> None:
        self.status_store.put(self._status(key, State.PAUSED))

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        self.status_store.put(self._status(key, State.RUNNING))

    def on_stop(self, key: str | ConnectorTaskId) -> None:
        self.status_store.put(self._status(key, State.STOPPED))

    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None:
        plan = self._failure_plan(key, error)
        self.status_store.put_safe(self._status(key, State.FAILED, format_trace(error), plan))

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        self.status_store.put_safe(self._status(key, State.UNASSIGNED))

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        # a deleted connector takes its tasks' statuses with it
        if not isinstance(key, ConnectorTaskId):
            for status in self.status_store.get_all(key):
                self.status_store.put(self._status(status.id, State.DESTROYED))
        self.status_store.put(self._status(key, State.DESTROYED))

    def on_restart(self, key: str | ConnectorTaskId) -> None:
        self.status_store.put(self._status(key, State.RESTARTING))
