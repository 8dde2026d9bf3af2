"""``StandaloneHerder``: one worker, configs and statuses in memory (Kafka's ``StandaloneHerder``).

Threads: REST threads call the public methods; every state change runs under one re-entrant
lock (Kafka's ``synchronized``), so operations are serialised. Work a connector triggers from
its own thread (``request_task_reconfiguration``) is handed to the single "herder" executor
thread, so a connector never waits on the lock while the lock holder waits on it.

The herder is the worker's :class:`~kconnect.runtime.states.StatusListener`: it records each
state change in the status store. Stored configs are raw (config-provider variables as
written); the worker gets them resolved by the config transformer.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kconnect.api.config_infos import ConfigInfos, ConfigKeyInfo, convert_config_key
from kconnect.api.errors import AlreadyExistsException, ConnectException, NotFoundException
from kconnect.runtime import connector_config as cc
from kconnect.runtime.config_store import ClusterConfigState, MemoryConfigBackingStore
from kconnect.runtime.config_transformer import ConfigTransformer, reverse_transform
from kconnect.runtime.connector_validation import ConnectorValidator, config_error_message
from kconnect.runtime.herder import (
    ConnectorInfo,
    ConnectorStateInfo,
    Created,
    Herder,
    PluginInfo,
    StateInfo,
    TaskInfo,
    WorkerHealth,
)
from kconnect.runtime.herder_errors import BadRequestException, ForbiddenException
from kconnect.runtime.ids import ConnectorTaskId
from kconnect.runtime.loggers import LoggerLevel, Loggers
from kconnect.runtime.plugin_view import (
    PLUGIN_TYPES_ORDER,
    PluginNotFound,
    desc_class_name,
    desc_type,
    desc_version,
)
from kconnect.runtime.restart import RestartPlan, RestartRequest
from kconnect.runtime.states import (
    ConnectorStatus,
    State,
    StatusListener,
    TargetState,
    TaskStatus,
)
from kconnect.runtime.status_store import MemoryStatusBackingStore, StatusBackingStore

__all__ = ["StandaloneHerder"]

log = logging.getLogger(__name__)

HEALTHY = "Worker has completed startup and is ready to handle requests."
STARTING = "Worker is still starting up."
UNHEALTHY = "Worker was unable to handle this request and may be unable to handle other requests."
STOPPED_REQUIRED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be "
    "done for the specified connector by issuing a 'PUT' request to the "
    "'/connectors/{name}/stop' endpoint"
)


def _trace(error: BaseException) -> str:
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


class StandaloneHerder(Herder, StatusListener):
    """The herder of ``kconnect standalone``; see the module docstring."""

    def __init__(
        self,
        worker: Any,
        plugins: Any,
        *,
        worker_config: Any = None,
        config_transformer: ConfigTransformer | None = None,
        status_store: StatusBackingStore | None = None,
        config_store: MemoryConfigBackingStore | None = None,
        kafka_cluster_id: str | None = None,
        health_timeout_s: float = 10.0,
    ) -> None:
        self.worker = worker
        self.plugins = plugins
        self._worker_config = worker_config
        self._transformer = config_transformer
        self.status_store = status_store or MemoryStatusBackingStore()
        self.config_store = config_store or MemoryConfigBackingStore()
        self._cluster_id = kafka_cluster_id
        self._health_timeout_s = health_timeout_s
        policy = self._worker_setting("connector.client.config.override.policy", "All")
        self.validator = ConnectorValidator(
            plugins, config_transformer=config_transformer, override_policy=str(policy)
        )
        self.loggers = Loggers()
        self._lock = threading.RLock()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="herder")
        self._ready = False
        self._stopped = False

    # -- helpers ---------------------------------------------------------------------------

    def _worker_setting(self, key: str, default: object) -> object:
        if self._worker_config is None:
            return default
        try:
            value = self._worker_config.get(key)
        except Exception:
            return default
        return default if value is None else value

    def _snapshot(self) -> ClusterConfigState:
        return self.config_store.snapshot()

    def _resolved(self, raw: Mapping[str, str]) -> dict[str, str]:
        if self._transformer is None:
            return dict(raw)
        return {k: v for k, v in self._transformer.transform(raw).items() if v is not None}

    def _connector_type(self, raw: Mapping[str, str] | None) -> str:
        return self.validator.connector_type(raw)

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        log.info("Herder starting")
        self.status_store.start()
        self.config_store.start()
        self.worker.start()
        log.info("Herder started")

    def ready(self) -> None:
        """Called once the connectors given at start-up were submitted (``/health`` healthy)."""
        self._ready = True

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            log.info("Herder stopping")
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
        if self._transformer is not None:
            self._transformer.close()
        log.info("Herder stopped")

    def is_ready(self) -> bool:
        return self._ready

    def health_check(self) -> WorkerHealth:
        if not self._ready:
            return WorkerHealth("starting", STARTING, 503)
        if self._lock.acquire(timeout=self._health_timeout_s):
            self._lock.release()
            return WorkerHealth("healthy", HEALTHY, 200)
        return WorkerHealth(
            "unhealthy", UNHEALTHY + " The worker is busy with a connector operation.", 500
        )

    @property
    def worker_id(self) -> str:
        return str(self.worker.worker_id)

    def kafka_cluster_id(self) -> str | None:
        if self._cluster_id is None:
            try:
                self._cluster_id = self.worker.kafka_cluster_id()
            except Exception:
                log.warning("Kafka cluster id unavailable", exc_info=True)
        return self._cluster_id

    # -- StatusListener (called from connector/task threads) -------------------------------

    def _put(self, key: str | ConnectorTaskId, state: State, trace: str | None = None) -> None:
        if isinstance(key, ConnectorTaskId):
            self.status_store.put(TaskStatus(key, state, self.worker_id, 0, trace))
        else:
            self.status_store.put(ConnectorStatus(key, state, self.worker_id, 0, trace))

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        self._put(key, State.RUNNING)

    def on_pause(self, key: str | ConnectorTaskId) -> None:
        self._put(key, State.PAUSED)

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        self._put(key, State.RUNNING)

    def on_stop(self, key: str | ConnectorTaskId) -> None:
        self._put(key, State.STOPPED)

    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None:
        self._put(key, State.FAILED, _trace(error))

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        self._put(key, State.UNASSIGNED)

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        if not isinstance(key, ConnectorTaskId):
            for status in self.status_store.get_all(key):
                self._put(status.id, State.DESTROYED)
        self._put(key, State.DESTROYED)

    def on_restart(self, key: str | ConnectorTaskId) -> None:
        self._put(key, State.RESTARTING)

    # -- reads -----------------------------------------------------------------------------

    def connectors(self) -> list[str]:
        return self._snapshot().connectors()

    def connector_info(self, name: str) -> ConnectorInfo:
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            raise NotFoundException(f"Connector {name} not found")
        return ConnectorInfo(name, raw, state.tasks(name), self._connector_type(raw))

    def connector_config(self, name: str) -> dict[str, str]:
        return self.connector_info(name).config

    def connector_status(self, name: str) -> ConnectorStateInfo:
        status = self.status_store.get_connector(name)
        if status is None:
            raise NotFoundException(f"No status found for connector {name}")
        tasks = [
            StateInfo(t.state.value, t.worker_id, t.trace, t.id.task, t.version)
            for t in self.status_store.get_all(name)
        ]
        return ConnectorStateInfo(
            name,
            StateInfo(status.state.value, status.worker_id, status.trace, None, status.version),
            tasks,
            self._connector_type(self._snapshot().raw_connector_config(name)),
        )

    def task_status(self, task_id: ConnectorTaskId) -> StateInfo:
        status = self.status_store.get_task(task_id)
        if status is None:
            raise NotFoundException(f"No status found for task {task_id}")
        return StateInfo(status.state.value, status.worker_id, status.trace, task_id.task)

    def task_configs(self, name: str) -> list[TaskInfo]:
        state = self._snapshot()
        if not state.contains(name):
            raise NotFoundException(f"Connector {name} not found")
        return [TaskInfo(t, state.raw_task_config(t) or {}) for t in state.tasks(name)]

    # -- config writes ---------------------------------------------------------------------

    def validate_connector_config(self, props: Mapping[str, str | None]) -> ConfigInfos:
        return self.validator.validate(props)

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        target_state: TargetState | None = None,
    ) -> Created:
        infos = self.validator.validate(config)
        message = config_error_message(infos)
        if message is not None:
            raise BadRequestException(message)
        raw = {k: v for k, v in config.items() if v is not None}
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
        with self._lock:
            current = self._snapshot().raw_connector_config(name)
            if current is None:
                raise NotFoundException(f"Connector {name} not found")
            patched: dict[str, str | None] = dict(current)
            for key, value in patch.items():
                if value is None:
                    patched.pop(key, None)
                else:
                    patched[key] = value
            result = self.put_connector_config(name, patched, allow_replace=True)
            assert result.info is not None
            return result.info

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
            state = self._snapshot()
            if state.target_state(name) is TargetState.STOPPED and not self.worker.is_running(name):
                # a connector created STOPPED never ran: start it now
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
            response = self._plan_response(plan)
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

    def _plan_response(self, plan: RestartPlan) -> ConnectorStateInfo:
        c = plan.connector_status
        return ConnectorStateInfo(
            c.connector,
            StateInfo(plan.state_of_connector().value, c.worker_id, c.trace, None, c.version),
            [
                StateInfo(plan.state_of_task(t).value, t.worker_id, t.trace, t.id.task, t.version)
                for t in plan.task_statuses
            ],
            self._connector_type(self._snapshot().raw_connector_config(c.connector)),
        )

    def restart_task(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            state = self._snapshot()
            if not state.contains(task_id.connector):
                raise NotFoundException(f"Unknown connector: {task_id.connector}")
            if state.raw_task_config(task_id) is None:
                raise NotFoundException(f"Unknown task: {task_id}")
            self.worker.stop_and_await_task(task_id)
            if not self._start_task(task_id):
                raise ConnectException(f"Failed to start task: {task_id}")

    # -- connector and task start-up -------------------------------------------------------

    def _start_connector(self, name: str) -> None:
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        target = state.target_state(name) or TargetState.STARTED
        assert raw is not None
        self.worker.start_connector(
            name, self._resolved(raw), self, target, self.request_task_reconfiguration
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
                task_id, self._resolved(raw), self._resolved(task_raw), self, target
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
        if state.target_state(name) is not TargetState.STARTED:
            log.info("Skipping update of tasks for connector %s since its target state is %s",
                     name, state.target_state(name).value)  # fmt: skip
            return
        if not self.worker.is_running(name):
            log.info("Skipping update of tasks for connector %s since it is not running", name)
            return
        try:
            new_configs = self.worker.connector_task_configs(name, self._resolved(raw))
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

    def _tracking(self, reset: bool = False) -> None:
        if not self._worker_setting("topic.tracking.enable", True):
            raise ForbiddenException("Topic tracking is disabled.")
        if reset and not self._worker_setting("topic.tracking.allow.reset", True):
            raise ForbiddenException("Topic tracking reset is disabled.")

    def connector_active_topics(self, name: str) -> list[str]:
        self._tracking()
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Connector {name} not found")
        return sorted(self.worker.connector_active_topics(name))

    def reset_connector_active_topics(self, name: str) -> None:
        self._tracking(reset=True)
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Connector {name} not found")
        self.worker.reset_connector_active_topics(name)

    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            raw = self._snapshot().raw_connector_config(name)
            if raw is None:
                raise NotFoundException(f"Connector {name} not found")
            return list(self.worker.connector_offsets(name, self._resolved(raw)))

    def _modify_offsets(self, name: str, offsets: list[dict[str, Any]] | None) -> str:
        with self._lock:
            state = self._snapshot()
            raw = state.raw_connector_config(name)
            if raw is None:
                raise NotFoundException(f"Connector {name} not found")
            if state.target_state(name) is not TargetState.STOPPED or state.task_count(name):
                raise BadRequestException(STOPPED_REQUIRED.format(name=name))
            return str(self.worker.modify_connector_offsets(name, self._resolved(raw), offsets))

    def alter_connector_offsets(self, name: str, offsets: list[dict[str, Any]]) -> str:
        if not offsets:
            raise BadRequestException("The offsets to be altered may not be null or empty")
        return self._modify_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        return self._modify_offsets(name, None)

    # -- plugins ---------------------------------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]:
        kinds = ("sink", "source") if connectors_only else PLUGIN_TYPES_ORDER
        found: dict[tuple[str, str], PluginInfo] = {}
        for desc in self.plugins.all_plugins():
            kind = desc_type(desc)
            if kind in kinds:
                info = PluginInfo(desc_class_name(desc), kind, desc_version(desc))
                found.setdefault((kind, info.class_name), info)
        return sorted(found.values(), key=lambda p: (kinds.index(p.type), p.class_name))

    def connector_plugin_config(self, plugin_name: str) -> list[ConfigKeyInfo]:
        view = self.validator.view
        desc = None
        for kind in (*PLUGIN_TYPES_ORDER, "config_provider"):
            try:
                desc = view.resolve((kind,), plugin_name, "a plugin")
                break
            except PluginNotFound:
                continue
        if desc is None:
            raise NotFoundException(f"Unknown plugin {plugin_name}.")
        kind = desc_type(desc)
        if kind not in PLUGIN_TYPES_ORDER:
            raise BadRequestException(
                f"Invalid plugin class {plugin_name}. Valid types are sink, source, converter, "
                "header_converter, transformation, predicate."
            )
        instance = self.plugins.new_instance(kind, plugin_name)
        keys = dict(instance.config().config_keys())
        if kind in ("sink", "source"):
            base = (
                cc.sink_connector_config_def()
                if kind == "sink"
                else cc.source_connector_config_def()
            )
            for name, key in base.config_keys().items():
                keys.setdefault(name, key)
        return [convert_config_key(k) for k in keys.values()]

    # -- loggers ---------------------------------------------------------------------------

    def logger_level(self, logger: str) -> LoggerLevel | None:
        return self.loggers.level(logger)

    def all_logger_levels(self) -> dict[str, LoggerLevel]:
        return self.loggers.all_levels()

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        return self.loggers.set_level(namespace, level)

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        # a standalone worker is the whole cluster
        self.loggers.set_level(namespace, level)
