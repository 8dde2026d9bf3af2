"""Which tasks run in the worker process: those using a plugin that asks for it (Java plugins)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kconnect.api import Converter, HeaderConverter, Predicate, SourceConnector, Transformation
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.task_processes.split_tasks import SplitTasks
from kconnect.runtime.worker.task_processes.task_executor import TaskExecutor


def _concrete(cls: type) -> type:
    """Placement only looks at the classes, never makes one: no methods needed."""
    cls.__abstractmethods__ = frozenset()  # type: ignore[attr-defined]
    return cls


@_concrete
class _PySource(SourceConnector):
    pass


class _JavaSource(_PySource):
    RUNS_TASKS_IN_WORKER_PROCESS = True


@_concrete
class _PyConverter(Converter):
    pass


class _JavaConverter(_PyConverter):
    RUNS_TASKS_IN_WORKER_PROCESS = True


@_concrete
class _JavaHeaderConverter(HeaderConverter):
    RUNS_TASKS_IN_WORKER_PROCESS = True


@_concrete
class _PySmt(Transformation[Any]):
    pass


class _JavaSmt(_PySmt):
    RUNS_TASKS_IN_WORKER_PROCESS = True


@_concrete
class _JavaPredicate(Predicate[Any]):
    RUNS_TASKS_IN_WORKER_PROCESS = True


class _Recording(TaskExecutor):
    def __init__(self) -> None:
        self.ids: set[ConnectorTaskId] = set()

    def start_task(self, task_id: ConnectorTaskId, connector_props: Mapping[str, str],
                   task_props: Mapping[str, str], listener: StatusListener,
                   target_state: TargetState, preflight: Any = None) -> bool:  # fmt: skip
        self.ids.add(task_id)
        return True

    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
        self.ids.difference_update(ids)

    def transition(self, connector: str, state: TargetState) -> None:
        pass

    def task_ids(self) -> set[ConnectorTaskId]:
        return set(self.ids)

    def plugin_version(self, task_id: ConnectorTaskId) -> str | None:
        return "local" if task_id in self.ids else None


PLUGINS = Plugins(
    [
        PluginEntry("source", "py.Source", _PySource),
        PluginEntry("source", "java.Source", _JavaSource),
        PluginEntry("converter", "py.Converter", _PyConverter),
        PluginEntry("converter", "java.Converter", _JavaConverter),
        PluginEntry("header_converter", "java.HeaderConverter", _JavaHeaderConverter),
        PluginEntry("transformation", "java.Smt", _JavaSmt),
        PluginEntry("transformation", "py.Smt", _PySmt),
        PluginEntry("predicate", "java.Predicate", _JavaPredicate),
    ]
)


def _split(**worker: str) -> SplitTasks:
    return SplitTasks(_Recording(), _Recording(), PLUGINS, worker)


def test_a_python_connector_with_python_plugins_goes_to_the_pool() -> None:
    split = _split(**{"value.converter": "py.Converter"})
    assert not split.in_worker_process({"connector.class": "py.Source", "transforms": "a",
                                        "transforms.a.type": "py.Smt"})  # fmt: skip


def test_any_java_plugin_keeps_the_task_in_the_worker_process() -> None:
    split = _split(**{"value.converter": "py.Converter"})
    assert split.in_worker_process({"connector.class": "java.Source"})
    assert split.in_worker_process({"connector.class": "py.Source",
                                    "value.converter": "java.Converter"})  # fmt: skip
    assert split.in_worker_process({"connector.class": "py.Source",
                                    "header.converter": "java.HeaderConverter"})  # fmt: skip
    assert split.in_worker_process({"connector.class": "py.Source", "transforms": "a",
                                    "transforms.a.type": "java.Smt"})  # fmt: skip
    assert split.in_worker_process({"connector.class": "py.Source", "transforms": "a",
                                    "transforms.a.type": "py.Smt", "transforms.a.predicate": "p",
                                    "predicates": "p", "predicates.p.type": "java.Predicate"})  # fmt: skip
    # the worker's own converter, when the connector names none
    assert _split(**{"key.converter": "java.Converter"}).in_worker_process(
        {"connector.class": "py.Source"}
    )
    # an unknown class is the task's start's business, not the placement's
    assert not split.in_worker_process({"connector.class": "no.Such"})


def test_tasks_are_stopped_where_they_run() -> None:
    split = _split()
    local, pool = split.local, split.pool
    java, python = ConnectorTaskId("j", 0), ConnectorTaskId("p", 0)
    listener: Any = None
    assert split.start_task(java, {"connector.class": "java.Source"}, {}, listener,
                            TargetState.STARTED)  # fmt: skip
    assert split.start_task(python, {"connector.class": "py.Source"}, {}, listener,
                            TargetState.STARTED)  # fmt: skip
    assert local.task_ids() == {java} and pool.task_ids() == {python}
    assert split.task_ids() == {java, python}
    assert split.plugin_version(java) == "local" and split.plugin_version(python) == "local"
    split.stop_and_await_tasks([java, python])
    assert split.task_ids() == set()
