"""Tasks split between threads of the worker process and the task processes.

With ``task.processes`` > 1, most tasks go to the :class:`~.task_pool.TaskProcessPool`; the
tasks of a connector whose class says ``RUNS_TASKS_IN_WORKER_PROCESS = True`` run on threads of
the worker process (:class:`~.local_tasks.LocalTasks`) instead. The Java plugin host's
connectors say so: their code runs in the worker's one JVM, so a task process would only add a
second JVM (hundreds of MiB) to hold the same plugin, while the Python work around a Java task
(decoding its batches, converting, producing) is light next to the plugin's own.

Lifecycle: built by the worker, which then calls only the :class:`~.task_executor.TaskExecutor`
methods; each task id lives in exactly one of the two executors, chosen when it starts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.task_processes.task_executor import TaskExecutor

__all__ = ["RUNS_TASKS_IN_WORKER_PROCESS", "SplitTasks"]

#: The class attribute of a connector class whose tasks run in the worker process.
RUNS_TASKS_IN_WORKER_PROCESS = "RUNS_TASKS_IN_WORKER_PROCESS"


class SplitTasks(TaskExecutor):
    """``pool`` for most tasks; ``local`` for those of connectors that ask for the worker
    process (see the module docstring)."""

    def __init__(self, local: TaskExecutor, pool: TaskExecutor, plugins: Plugins) -> None:
        self.local = local
        self.pool = pool
        self.plugins = plugins
        self._lock = threading.Lock()
        self._local_ids: set[ConnectorTaskId] = set()

    def in_worker_process(self, connector_props: Mapping[str, str]) -> bool:
        name = connector_props.get("connector.class")
        if not name:
            return False
        try:
            cls = self.plugins.resolve("connector", name).cls
        except Exception:  # the pool's start reports an unknown class as Kafka does
            return False
        return bool(getattr(cls, RUNS_TASKS_IN_WORKER_PROCESS, False))

    def _owner(self, task_id: ConnectorTaskId) -> TaskExecutor:
        with self._lock:
            return self.local if task_id in self._local_ids else self.pool

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        listener: StatusListener,
        target_state: TargetState,
        preflight: ExactlyOncePreflight | None = None,
    ) -> bool:
        if not self.in_worker_process(connector_props):
            return self.pool.start_task(
                task_id, connector_props, task_props, listener, target_state, preflight
            )
        with self._lock:
            self._local_ids.add(task_id)
        try:
            return self.local.start_task(
                task_id, connector_props, task_props, listener, target_state, preflight
            )
        finally:
            if task_id not in self.local.task_ids():
                with self._lock:
                    self._local_ids.discard(task_id)

    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
        ids = list(ids)
        with self._lock:
            local = [t for t in ids if t in self._local_ids]
        pooled = [t for t in ids if t not in local]
        if local:
            self.local.stop_and_await_tasks(local)
            with self._lock:
                self._local_ids.difference_update(local)
        if pooled:
            self.pool.stop_and_await_tasks(pooled)

    def transition(self, connector: str, state: TargetState) -> None:
        self.local.transition(connector, state)
        self.pool.transition(connector, state)

    def task_ids(self) -> set[ConnectorTaskId]:
        return self.local.task_ids() | self.pool.task_ids()

    def plugin_version(self, task_id: ConnectorTaskId) -> str | None:
        return self._owner(task_id).plugin_version(task_id)

    def set_logger_level(self, namespace: str, level: str) -> None:
        self.local.set_logger_level(namespace, level)
        self.pool.set_logger_level(namespace, level)

    def close(self) -> None:
        self.local.close()
        self.pool.close()
