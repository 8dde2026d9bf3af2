"""Tasks split between threads of the worker process and the task processes.

With ``task.processes`` > 1, most tasks go to the :class:`~.task_pool.TaskProcessPool`; a
task that would use a plugin whose class says ``RUNS_TASKS_IN_WORKER_PROCESS = True`` -- its
connector, a key, value or header converter (the connector's, else the worker's), a
transformation or a predicate -- runs on a thread of the worker process
(:class:`~.local_tasks.LocalTasks`) instead. The Java plugin host's plugins say so: their code
runs in the worker's one JVM, so a task process would only add a second JVM (hundreds of MiB)
to hold the same plugins, while the Python work around them (encoding and decoding batches,
producing) is light next to the plugins' own.

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

    def __init__(
        self,
        local: TaskExecutor,
        pool: TaskExecutor,
        plugins: Plugins,
        worker_converters: Mapping[str, str | None] | None = None,
    ) -> None:
        """``worker_converters``: the worker's ``key.converter``, ``value.converter`` and
        ``header.converter`` class names, used where a connector names none."""
        self.local = local
        self.pool = pool
        self.plugins = plugins
        self.worker_converters = dict(worker_converters or {})
        self._lock = threading.Lock()
        self._local_ids: set[ConnectorTaskId] = set()

    def in_worker_process(self, connector_props: Mapping[str, str]) -> bool:
        return any(
            self._wants_worker_process(kind, name)
            for kind, name in _plugins_of(connector_props, self.worker_converters)
        )

    def _wants_worker_process(self, kind: str, name: str | None) -> bool:
        if not name:
            return False
        try:
            cls = self.plugins.resolve(kind, name).cls
        except Exception:  # the task's start reports an unknown class as Kafka does
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


def _plugins_of(
    props: Mapping[str, str], worker_converters: Mapping[str, str | None]
) -> list[tuple[str, str | None]]:
    """(kind, class name) of every plugin a task of this connector config would use."""
    found: list[tuple[str, str | None]] = [("connector", props.get("connector.class"))]
    for key, kind in (
        ("key.converter", "converter"),
        ("value.converter", "converter"),
        ("header.converter", "header_converter"),
    ):
        found.append((kind, props.get(key) or worker_converters.get(key)))
    for key, value in props.items():
        if key.startswith("transforms.") and key.endswith(".type"):
            found.append(("transformation", value))
        elif key.startswith("predicates.") and key.endswith(".type"):
            found.append(("predicate", value))
    return found
