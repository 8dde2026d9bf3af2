"""``StandaloneHerder``: one worker, configs and statuses in memory (Kafka's ``StandaloneHerder``).

Threads: REST threads call the public methods; every state change runs under one re-entrant
lock (Kafka's ``synchronized``), so operations are serialised. Work a connector triggers from
its own thread (``request_task_reconfiguration``) is handed to the single "herder" executor
thread, so a connector never waits on the lock while the lock holder waits on it.

The status listener, reads, plugins, validation, loggers and health come from
:class:`~kconnect.runtime.herder.abstract_herder.AbstractHerder`. Stored configs are raw
(config-provider variables as written); the worker gets them resolved by the config transformer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kconnect.api.errors import AlreadyExistsException, ConnectException, NotFoundException
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.request_errors import ConnectRestException
from kconnect.runtime.common.restart import RestartPlan, RestartRequest
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.config_transformer import ConfigTransformer, reverse_transform
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.herder.abstract_herder import AbstractHerder
from kconnect.runtime.herder.herder import ConnectorInfo, ConnectorStateInfo, Created
from kconnect.runtime.herder.session_keys import RequestSignature
from kconnect.runtime.storage.config_store import MemoryConfigBackingStore
from kconnect.runtime.storage.status_store import MemoryStatusBackingStore, StatusBackingStore

__all__ = ["StandaloneHerder"]

log = logging.getLogger(__name__)


class StandaloneHerder(AbstractHerder):
    """The herder of ``kconnect standalone``; see the module docstring."""

    config_store: MemoryConfigBackingStore

    def __init__(
        self,
        worker: Any,
        plugins: Any,
        *,
        worker_config: WorkerConfig | None = None,
        config_transformer: ConfigTransformer | None = None,
        status_store: StatusBackingStore | None = None,
        config_store: MemoryConfigBackingStore | None = None,
        kafka_cluster_id: str | None = None,
        health_timeout_s: float = 10.0,
    ) -> None:
        super().__init__(
            worker,
            plugins,
            worker_config=worker_config,
            config_transformer=config_transformer,
            status_store=status_store or MemoryStatusBackingStore(),
            config_store=config_store or MemoryConfigBackingStore(),
            kafka_cluster_id=kafka_cluster_id,
            health_timeout_s=health_timeout_s,
        )
        self._lock = threading.RLock()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="herder")
        self._stopped = False

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None
    ) -> None:
        raise ConnectRestException(
            405,
            "Kafka Connect in standalone mode does not support externally setting task "
            "configurations.",
        )

    def fence_zombie_source_tasks(self, name: str, signature: RequestSignature | None) -> None:
        raise ConnectRestException(
            405, "Exactly-once source connectors are not supported in standalone mode"
        )

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        log.info("Herder starting")
        self.status_store.start()
        self.config_store.start()
        self.worker.start()
        log.info("Herder started")

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            log.info("Herder stopping")
            self.auto_restarter.close()
            for name in self._snapshot().connectors():
                try:
                    self._remove_tasks(name, record_deletion=False)
                    self.worker.stop_and_await_connector(name)
                except Exception:
                    log.exception("Failed to stop connector %s", name)
        self._executor.shutdown(wait=True, cancel_futures=True)
        self.worker.stop()
        self.config_store.stop()
        self.status_store.stop()
        self._close_config_transformer()
        log.info("Herder stopped")

    def _busy_detail(self, timeout_s: float) -> str | None:
        # every operation holds the lock: free within the timeout means responsive
        if self._lock.acquire(timeout=timeout_s):
            self._lock.release()
            return None
        return "The worker is busy with a connector operation."

    @property
    def worker_id(self) -> str:
        return str(self.worker.worker_id)

    # -- config writes ---------------------------------------------------------------------

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        target_state: TargetState | None = None,
    ) -> Created:
        raw = self._validated_config(config)
        with self._lock:
            state = self._snapshot()
            if state.contains(name):
                if not allow_replace:
                    raise AlreadyExistsException(f"Connector {name} already exists")
                self.worker.stop_and_await_connector(name)
                created = False
            else:
                created = True
            self.config_store.put_connector_config(name, raw, target_state)
            self._start_connector(name)
            self._update_connector_tasks(name)
            return Created(created, self.connector_info(name))

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        with self._lock:  # read, merge and write as one operation
            return super().patch_connector_config(name, patch)

    def delete_connector_config(self, name: str) -> None:
        with self._lock:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self._remove_tasks(name)
            self.worker.stop_and_await_connector(name)
            self.config_store.remove_connector_config(name)
            self.on_deletion(name)

    # -- target states ---------------------------------------------------------------------

    def _set_target_state(self, name: str, target: TargetState) -> None:
        self.config_store.put_target_state(name, target)
        self.worker.set_target_state(name, target)
        if target is TargetState.STARTED:
            self._update_connector_tasks(name)

    def pause_connector(self, name: str) -> None:
        with self._lock:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector {name}")
            self._set_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        with self._lock:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector {name}")
            stopped = self._snapshot().target_state(name) is TargetState.STOPPED
            if stopped and name not in self.worker.connector_names():
                # The worker keeps a STOPPED connector (its WorkerConnector goes back to
                # STARTED below, as Kafka's does); it lacks one only if it could not create
                # it: try again now. (Starting one it holds failed: "already exists".)
                self.config_store.put_target_state(name, TargetState.STARTED)
                self._start_connector(name)
                self._update_connector_tasks(name)
                return
            self._set_target_state(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        with self._lock:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self._remove_tasks(name)
            self.config_store.put_target_state(name, TargetState.STOPPED)
            self.worker.set_target_state(name, TargetState.STOPPED)

    # -- restarts --------------------------------------------------------------------------

    def restart_connector(self, name: str) -> None:
        with self._lock:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            self.auto_restarter.forget(name)
            self.worker.stop_and_await_connector(name)
            self._start_connector(name)
            self._update_connector_tasks(name)

    def restart_connector_and_tasks(self, request: RestartRequest) -> ConnectorStateInfo:
        name = request.connector
        with self._lock:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            status = self.status_store.get_connector(name)
            if status is None:
                raise NotFoundException(f"Status for connector {name} not found")
            plan = RestartPlan.build(request, status, self.status_store.get_all(name))
            log.info("Received %s", plan)
            self.auto_restarter.reset(name)
            response = self._restart_response(plan)
            if plan.restart_connector:
                self.worker.stop_and_await_connector(name)
                self.on_restart(name)
            if plan.should_restart_tasks:
                self.worker.stop_and_await_tasks(plan.task_ids_to_restart)
                for task_id in plan.task_ids_to_restart:
                    self.on_restart(task_id)
            if plan.restart_connector:
                self._start_connector(name)
            if plan.should_restart_tasks:
                for task_id in plan.task_ids_to_restart:
                    self._start_task(task_id)
            log.info("Completed %s", plan)
            return response

    def restart_task(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            state = self._snapshot()
            if not state.contains(task_id.connector):
                raise NotFoundException(f"Unknown connector: {task_id.connector}")
            if state.raw_task_config(task_id) is None:
                # Kafka's StandaloneHerder text (the distributed herder says "Unknown task")
                raise NotFoundException(f"Task {task_id} not found")
            self.auto_restarter.forget(task_id)
            self.worker.stop_and_await_task(task_id)
            if not self._start_task(task_id):
                raise ConnectException(f"Failed to start task: {task_id}")

    def _auto_restart(self, key: str | ConnectorTaskId) -> None:
        with self._lock:
            if self._stopped:
                return
            state = self._snapshot()
            if isinstance(key, ConnectorTaskId):
                if state.raw_task_config(key) is None or key not in self.worker.task_ids():
                    self.auto_restarter.forget(key)
                    return
                self.worker.stop_and_await_task(key)
                self.on_restart(key)
                self._start_task(key)
                return
            if not state.contains(key) or key not in self.worker.connector_names():
                self.auto_restarter.forget(key)
                return
            self.worker.stop_and_await_connector(key)
            self.on_restart(key)
            self._start_connector(key)
            self._update_connector_tasks(key)

    # -- connector and task start-up -------------------------------------------------------

    def _start_connector(self, name: str) -> None:
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        target = state.target_state(name) or TargetState.STARTED
        assert raw is not None
        self.worker.start_connector(
            name, self.resolved_config(raw), self, target, self.request_task_reconfiguration
        )

    def _start_task(self, task_id: ConnectorTaskId) -> bool:
        state = self._snapshot()
        raw = state.raw_connector_config(task_id.connector)
        task_raw = state.raw_task_config(task_id)
        if raw is None or task_raw is None:
            return False
        target = state.target_state(task_id.connector) or TargetState.STARTED
        return bool(
            self.worker.start_task(
                task_id, self.resolved_config(raw), self.resolved_config(task_raw), self, target
            )
        )

    def _remove_tasks(self, name: str, *, record_deletion: bool = True) -> None:
        tasks = self._snapshot().tasks(name)
        if tasks:
            self.worker.stop_and_await_tasks(tasks)
            self.config_store.remove_task_configs(name)
            if record_deletion:
                for task_id in tasks:
                    self.on_deletion(task_id)

    def _update_connector_tasks(self, name: str) -> None:
        """Recompute task configs; restart the tasks if they changed (lock held)."""
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            return
        target = state.target_state(name)
        if target is not TargetState.STARTED:
            # None: a store snapshot with the config but no target state (the memory store
            # always records one; a store passed in by a caller may not) - skip, do not crash.
            log.info("Skipping update of tasks for connector %s since its target state is %s",
                     name, target.value if target is not None else "unknown")  # fmt: skip
            return
        if not self.worker.is_running(name):
            log.info("Skipping update of tasks for connector %s since it is not running", name)
            return
        try:
            new_configs = self.worker.connector_task_configs(name, self.resolved_config(raw))
        except Exception as e:
            log.error("Connector %s failed to generate task configs: %s", name, e)
            self.on_failure(name, e)
            return
        raw_configs = reverse_transform(raw, [dict(c) for c in new_configs])
        current = [state.raw_task_config(t) for t in state.tasks(name)]
        applied = state.applied_connector_config(name)
        if raw_configs != current or applied != raw:
            self._remove_tasks(name)
            self.config_store.put_task_configs(name, raw_configs)
            for task_id in self._snapshot().tasks(name):
                self._start_task(task_id)

    def request_task_reconfiguration(self, name: str) -> None:
        """From a connector's thread: recompute its task configs on the herder thread."""

        def run() -> None:
            with self._lock:
                if name not in self.worker.connector_names():
                    log.error("Task that requested reconfiguration does not exist: %s", name)
                    return
                self._update_connector_tasks(name)

        if not self._stopped:
            self._executor.submit(run)

    # -- topics and offsets ----------------------------------------------------------------

    def connector_active_topics(self, name: str) -> list[str]:
        self._check_topic_tracking(name)
        return sorted(self.worker.connector_active_topics(name))

    def reset_connector_active_topics(self, name: str) -> None:
        self._check_topic_tracking(name, reset=True)
        self.worker.reset_connector_active_topics(name)

    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            return super().connector_offsets(name)

    def _modify_offsets(self, name: str, offsets: list[dict[str, Any]] | None) -> str:
        with self._lock:
            return self._modify_stopped_connector_offsets(name, offsets)

    # -- loggers ---------------------------------------------------------------------------

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        # a standalone worker is the whole cluster
        self.loggers.set_level(namespace, level)
