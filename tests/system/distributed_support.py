"""What ``ConnectDistributedTest`` shares between its tests: the status predicates
(``is_running``, ``task_is_failed``, ...) and the file output check, over a
:class:`~tests.system.connect_service.ConnectDistributedService`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.system.connect_service import ConnectDistributedService, ConnectRestError, Node

# Since tasks can be assigned to any node and the tests use files, the content is the same on
# every node (here: one file all nodes share).
FIRST_INPUT_LIST = ["foo", "bar", "baz"]
FIRST_INPUTS = "\n".join(FIRST_INPUT_LIST) + "\n"
SECOND_INPUT_LIST = ["razz", "ma", "tazz"]
SECOND_INPUTS = "\n".join(SECOND_INPUT_LIST) + "\n"


class Status:
    """The status predicates of ``ConnectDistributedTest``."""

    def __init__(self, cc: ConnectDistributedService) -> None:
        self.cc = cc

    def _connector_status(self, connector: str, node: Node | None = None) -> dict[str, Any] | None:
        try:
            return self.cc.get_connector_status(connector, node)
        except ConnectRestError:
            return None

    @staticmethod
    def _connector_has_state(status: dict[str, Any] | None, state: str) -> bool:
        return status is not None and status["connector"]["state"] == state

    @staticmethod
    def _task_has_state(task_id: int, status: dict[str, Any] | None, state: str) -> bool:
        if not status or not status["tasks"]:
            return False
        return any(t["id"] == task_id and t["state"] == state for t in status["tasks"])

    @staticmethod
    def _all_tasks_have_state(status: dict[str, Any] | None, task_count: int, state: str) -> bool:
        if status is None or len(status["tasks"]) != task_count:
            return False
        return all(t["state"] == state for t in status["tasks"])

    def is_running(self, connector: Any, node: Node | None = None) -> bool:
        status = self._connector_status(connector.name, node)
        return self._connector_has_state(status, "RUNNING") and self._all_tasks_have_state(
            status, connector.tasks, "RUNNING"
        )

    def is_paused(self, connector: Any, node: Node | None = None) -> bool:
        status = self._connector_status(connector.name, node)
        return self._connector_has_state(status, "PAUSED") and self._all_tasks_have_state(
            status, connector.tasks, "PAUSED"
        )

    def connector_is_running(self, connector: Any, node: Node | None = None) -> bool:
        return self._connector_has_state(self._connector_status(connector.name, node), "RUNNING")

    def connector_is_failed(self, connector: Any, node: Node | None = None) -> bool:
        return self._connector_has_state(self._connector_status(connector.name, node), "FAILED")

    def task_is_failed(self, connector: Any, task_id: int, node: Node | None = None) -> bool:
        status = self._connector_status(connector.name, node)
        return self._task_has_state(task_id, status, "FAILED")

    def task_is_running(self, connector: Any, task_id: int, node: Node | None = None) -> bool:
        status = self._connector_status(connector.name, node)
        return self._task_has_state(task_id, status, "RUNNING")


def file_output_matches(output_file: Path, inputs: list[str]) -> bool:
    """``_validate_file_output``: the set of output lines (all nodes') is the input's set."""
    lines = output_file.read_text().splitlines() if output_file.exists() else []
    return set(inputs) == {line.strip() for line in lines}
