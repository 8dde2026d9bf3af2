"""Status listeners that feed Kafka Connect's worker metrics, then delegate.

The worker wraps the herder's status listener of every connector and task it starts: each
state change updates ``connect-worker-metrics`` (connector/task counts by state, startup
successes and failures) and the connector's or task's own status gauge, then goes on to the
herder. Called on the connector's or task's thread, like the listener they wrap.
"""

from __future__ import annotations

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener
from kconnect.runtime.metrics.task_metrics import TaskMetrics
from kconnect.runtime.metrics.worker_metrics import ConnectorMetrics, WorkerMetrics

__all__ = ["ConnectorStatusMetrics", "TaskStatusMetrics"]


class ConnectorStatusMetrics(StatusListener):
    """Feeds connector status and startup outcomes to the metrics, then delegates."""

    def __init__(
        self, inner: StatusListener, worker: WorkerMetrics, connector: ConnectorMetrics
    ) -> None:
        self.inner = inner
        self.worker = worker
        self.connector = connector
        self._started = False

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        self.connector.state = "running"
        if not self._started:
            self._started = True
            self.worker.record_connector_startup(True)
        self.inner.on_startup(key)

    def on_pause(self, key: str | ConnectorTaskId) -> None:
        self.connector.state = "paused"
        self.inner.on_pause(key)

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        self.connector.state = "running"
        self.inner.on_resume(key)

    def on_stop(self, key: str | ConnectorTaskId) -> None:
        self.connector.state = "stopped"
        self.inner.on_stop(key)

    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None:
        self.connector.state = "failed"
        if not self._started:
            self._started = True
            self.worker.record_connector_startup(False)
        self.inner.on_failure(key, error)

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        self.connector.state = "unassigned"
        self.inner.on_shutdown(key)

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        self.inner.on_deletion(key)

    def on_restart(self, key: str | ConnectorTaskId) -> None:
        self.connector.state = "restarting"
        self.inner.on_restart(key)


class TaskStatusMetrics(StatusListener):
    """Feeds task status (running/pause ratio, per-connector counts) and startup outcomes."""

    def __init__(
        self, inner: StatusListener, worker: WorkerMetrics, task: TaskMetrics | None
    ) -> None:
        self.inner = inner
        self.worker = worker
        self.task = task  # None: the task's own groups live in its task process
        self._started = False

    def _state(self, key: str | ConnectorTaskId, state: str) -> None:
        if self.task is not None:
            self.task.record_state(state)
        if isinstance(key, ConnectorTaskId):
            self.worker.task_state(key, state)

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        self._state(key, "running")
        if not self._started:
            self._started = True
            self.worker.record_task_startup(True)
        self.inner.on_startup(key)

    def on_pause(self, key: str | ConnectorTaskId) -> None:
        self._state(key, "paused")
        self.inner.on_pause(key)

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        self._state(key, "running")
        self.inner.on_resume(key)

    def on_stop(self, key: str | ConnectorTaskId) -> None:
        self.inner.on_stop(key)

    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None:
        self._state(key, "failed")
        if not self._started:
            self._started = True
            self.worker.record_task_startup(False)
        self.inner.on_failure(key, error)

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        self._state(key, "unassigned")
        self.inner.on_shutdown(key)

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        self._state(key, "destroyed")
        self.inner.on_deletion(key)

    def on_restart(self, key: str | ConnectorTaskId) -> None:
        self._state(key, "restarting")
        self.inner.on_restart(key)
