"""Starting and stopping the connectors and tasks assigned to a distributed worker.

:class:`AssignedWork` starts an item from the current config snapshot (configs resolved
through the config providers, in its target state) and stops it again; a start that fails is
reported FAILED through the herder's status listener (from
:class:`~kconnect.runtime.herder.herder_hooks.HerderHooks`), never raised into a rebalance.
Called on the herder thread and from the rebalance handler's start/stop pool; every method
may block.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.herder.herder_hooks import HerderHooks
from kconnect.runtime.storage.kafka_config_store import (
    KafkaClusterConfigState,
    KafkaConfigBackingStore,
)
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.worker import Worker

#: The exactly-once checks of a task about to start from a config snapshot, None when the
#: task is not an exactly-once source task.
PreflightFactory = Callable[[ConnectorTaskId, KafkaClusterConfigState], ExactlyOncePreflight | None]

__all__ = ["AssignedWork"]

log = logging.getLogger(__name__)


class AssignedWork:
    """``request_reconfiguration(name)`` is handed to every connector (its context asks for
    new task configs through it); ``preflight`` gives exactly-once source tasks their checks."""

    def __init__(
        self,
        hooks: HerderHooks,
        worker: Worker,
        config_store: KafkaConfigBackingStore,
        request_reconfiguration: Callable[[str], None],
        preflight: PreflightFactory | None = None,
    ) -> None:
        self._hooks = hooks
        self.worker = worker
        self.config_store = config_store
        self._request_reconfiguration = request_reconfiguration
        self._preflight = preflight

    def start_connector(self, name: str) -> None:
        state = self.config_store.snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            log.warning("Not starting connector %s: it has no config (deleted?)", name)
            return
        target = state.target_state(name) or TargetState.STARTED
        log.info("Starting connector %s", name)
        try:
            props = self._hooks.resolve_config(raw)
        except Exception as e:
            self._hooks.status.on_failure(name, e)
            return
        # not waited for: its RUNNING status asks for its task configs (DistributedHerder.
        # on_startup), so a slow start() holds up neither the rebalance nor the herder
        self.worker.start_connector(
            name, props, self._hooks.status, target, self._request_reconfiguration,
            wait_for_start=False,
        )  # fmt: skip

    def start_task_safely(self, task_id: ConnectorTaskId) -> None:
        try:
            self.start_task(task_id)
        except Exception as e:
            log.error("Couldn't instantiate task %s because it has an invalid task "
                      "configuration. This task will not execute until reconfigured.",
                      task_id, exc_info=e)  # fmt: skip
            self._hooks.status.on_failure(task_id, e)

    def start_task(self, task_id: ConnectorTaskId) -> bool:
        state = self.config_store.snapshot()
        raw = state.raw_connector_config(task_id.connector)
        task_raw = state.raw_task_config(task_id)
        if raw is None or task_raw is None:
            log.warning("Not starting task %s: its config is gone", task_id)
            return False
        target = state.target_state(task_id.connector) or TargetState.STARTED
        log.info("Starting task %s", task_id)
        resolve = self._hooks.resolve_config
        preflight = self._preflight(task_id, state) if self._preflight is not None else None
        return self.worker.start_task(
            task_id, resolve(raw), resolve(task_raw), self._hooks.status, target, preflight
        )

    def stop_connector(self, name: str) -> None:
        self.worker.stop_and_await_connector(name)

    def stop_tasks(self, ids: list[ConnectorTaskId]) -> None:
        self.worker.stop_and_await_tasks(ids)
