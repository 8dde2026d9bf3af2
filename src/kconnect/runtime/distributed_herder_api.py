"""The :class:`~kconnect.runtime.herder.Herder` operations of the distributed herder.

REST threads call these. Reads answer from the local caches of the config and status
topics (any worker can answer). Writes are queued on the herder thread and the caller waits
for the result (``request_timeout_s``); a write that arrives mid-rebalance simply waits in the
queue until the rebalance is resolved. Leader-only writes raise
:class:`~kconnect.runtime.distributed_herder_errors.NotLeaderException` on a follower and
restarts of work this worker does not run raise ``NotAssignedException`` on the leader; the
REST layer forwards those (:mod:`kconnect.rest.forwarding`).

Mixed into :class:`~kconnect.runtime.distributed_herder.DistributedHerder`, which supplies
the state used here (``_requests``, ``_rebalance``, ``config_store``...).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from kconnect.api.config_infos import ConfigInfos
from kconnect.api.errors import AlreadyExistsException, ConnectException, NotFoundException
from kconnect.runtime.connector_validation import config_error_message
from kconnect.runtime.distributed_herder_errors import NotAssignedException, NotLeaderException
from kconnect.runtime.herder import (
    ConnectorInfo,
    ConnectorStateInfo,
    Created,
    Herder,
    StateInfo,
    TaskInfo,
    WorkerHealth,
)
from kconnect.runtime.herder_errors import BadRequestException, ForbiddenException
from kconnect.runtime.herder_requests import await_result
from kconnect.runtime.ids import ConnectorTaskId
from kconnect.runtime.loggers import LoggerLevel
from kconnect.runtime.restart import RestartPlan, RestartRequest
from kconnect.runtime.session_keys import RequestSignature, check_signature
from kconnect.runtime.standalone_herder import StandaloneHerder
from kconnect.runtime.states import TargetState

__all__ = ["DistributedHerderApi"]

log = logging.getLogger(__name__)

T = TypeVar("T")

HEALTHY = "Worker has completed startup and is ready to handle requests."
STARTING = "Worker is still starting up."
UNHEALTHY = "Worker was unable to handle this request and may be unable to handle other requests."
STOPPED_REQUIRED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be "
    "done for the specified connector by issuing a 'PUT' request to the "
    "'/connectors/{name}/stop' endpoint"
)


class DistributedHerderApi(Herder):
    """See the module docstring. Attributes come from ``DistributedHerder``."""

    config: Any
    worker: Any
    plugins: Any
    validator: Any
    loggers: Any
    config_store: Any
    status_store: Any
    member: Any
    _requests: Any
    _rebalance: Any
    _session_key: Any
    _request_timeout_s: float
    _health_timeout_s: float
    _ready: bool
    _stage: str
    _cluster_id: str | None
    _worker_id: str

    # provided by DistributedHerder
    _is_leader: Callable[[], bool]
    _leader_url: Callable[[], str | None]
    _owner_url: Callable[[str | ConnectorTaskId], str | None]
    _sessioned: Callable[[], bool]
    _resolved: Callable[[Mapping[str, str]], dict[str, str]]
    _start_connector: Callable[[str], None]
    _start_task: Callable[[ConnectorTaskId], bool]
    _write_task_configs: Callable[[str, list[dict[str, str]]], None]
    _worker_setting: Callable[[str, object], object]
    on_restart: Callable[[str | ConnectorTaskId], None]

    # -- plumbing ---------------------------------------------------------------------------

    def _call(self, action: Callable[[], T], description: str) -> T:
        """Run ``action`` on the herder thread and wait for its result."""
        future = self._requests.submit(action, description=description)
        return await_result(future, self._request_timeout_s, self._stage)

    def _require_leader(self, message: str) -> None:
        if not self._is_leader():
            raise NotLeaderException(message, self._leader_url())

    def _snapshot(self) -> Any:
        return self.config_store.snapshot()

    # -- lifecycle/health ---------------------------------------------------------------------

    def is_ready(self) -> bool:
        return self._ready

    def health_check(self) -> WorkerHealth:
        if not self._ready:
            return WorkerHealth(
                "starting", f"{STARTING} The worker is currently {self._stage}.", 503
            )
        try:
            self._requests.submit(lambda: None, description="health check").result(
                self._health_timeout_s
            )
        except Exception:
            return WorkerHealth(
                "unhealthy", f"{UNHEALTHY} The worker is currently {self._stage}.", 500
            )
        return WorkerHealth("healthy", HEALTHY, 200)

    @property
    def worker_id(self) -> str:
        return self._worker_id

    def kafka_cluster_id(self) -> str | None:
        if self._cluster_id is None:
            try:
                self._cluster_id = self.worker.kafka_cluster_id()
            except Exception:
                log.warning("Kafka cluster id unavailable", exc_info=True)
        return self._cluster_id

    # -- reads -------------------------------------------------------------------------------

    def connectors(self) -> list[str]:
        return list(self._snapshot().connectors())

    def connector_info(self, name: str) -> ConnectorInfo:
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            raise NotFoundException(f"Connector {name} not found")
        return ConnectorInfo(name, raw, state.tasks(name), self.validator.connector_type(raw))

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
            self.validator.connector_type(self._snapshot().raw_connector_config(name)),
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

    # -- config writes (leader) --------------------------------------------------------------

    def validate_connector_config(self, props: Mapping[str, str | None]) -> ConfigInfos:
        infos: ConfigInfos = self.validator.validate(props)
        return infos

    def _validate_for_write(self, name: str, config: Mapping[str, str | None]) -> dict[str, str]:
        infos = self.validator.validate(config)
        message = config_error_message(infos)
        if message is not None:
            raise BadRequestException(message)
        raw = {k: v for k, v in config.items() if v is not None}
        if self.validator.connector_type(raw) == "sink":
            group = raw.get("consumer.override.group.id") or f"connect-{name}"
            if group == self.config.group_id:
                raise BadRequestException(
                    "Connector configuration is invalid and contains the following 1 error(s):\n"
                    + (
                        f"Consumer group {group} conflicts with Connect worker group "
                        f"{self.config.group_id}"
                        if raw.get("consumer.override.group.id")
                        else f"Consumer group for sink connector named {name} conflicts with "
                        f"Connect worker group {self.config.group_id}"
                    )
                    + "\nYou can also find the above list of errors at the endpoint "
                    "`/connector-plugins/{connectorType}/config/validate`"
                )
        return raw

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        target_state: TargetState | None = None,
    ) -> Created:
        raw = self._validate_for_write(name, config)

        def write() -> Created:
            self._require_leader("Only the leader can set connector configs.")
            exists = self._snapshot().contains(name)
            if exists and not allow_replace:
                raise AlreadyExistsException(f"Connector {name} already exists")
            self.config_store.put_connector_config(name, raw, target_state)
            return Created(not exists, self.connector_info(name))

        return self._call(write, f"writing the config of connector {name}")

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
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
        def delete() -> None:
            self._require_leader("Only the leader can delete connector configs.")
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self.config_store.remove_connector_config(name)

        self._call(delete, f"deleting connector {name}")

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None
    ) -> None:
        """The internal endpoint: a worker sends the task configs its connector generated."""
        if self._sessioned():
            check_signature(signature, self._session_key, self.config.verification_algorithms)

        def write() -> None:
            self._require_leader("Only the leader may write task configurations.")
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self._write_task_configs(name, configs)

        self._call(write, f"writing task configs for connector {name}")

    # -- target states -----------------------------------------------------------------------

    def pause_connector(self, name: str) -> None:
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Unknown connector {name}")
        self.config_store.put_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Unknown connector {name}")
        self.config_store.put_target_state(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        def stop() -> None:
            self._require_leader("Only the leader can transition connectors to the STOPPED state.")
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            # tasks first: no task may run for a STOPPED connector
            self._write_task_configs(name, [])
            self.config_store.put_target_state(name, TargetState.STOPPED)

        self._call(stop, f"stopping connector {name}")

    # -- restarts ----------------------------------------------------------------------------

    def restart_connector(self, name: str) -> None:
        def restart() -> None:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            if self._rebalance.owns_connector(name):
                self.worker.stop_and_await_connector(name)
                self._start_connector(name)
            elif self._is_leader():
                raise NotAssignedException(
                    "Cannot restart connector since it is not assigned to this member",
                    self._owner_url(name),
                )
            else:
                raise NotLeaderException(
                    "Only the leader can process restart requests.", self._leader_url()
                )

        self._call(restart, f"restarting connector {name}")

    def restart_connector_and_tasks(self, request: RestartRequest) -> ConnectorStateInfo:
        name = request.connector

        def restart() -> ConnectorStateInfo:
            self._require_leader("Only the leader can process restart requests.")
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            status = self.status_store.get_connector(name)
            if status is None:
                raise NotFoundException(f"Status for connector {name} not found")
            plan = RestartPlan.build(request, status, self.status_store.get_all(name))
            self.config_store.put_restart_request(request)
            c = plan.connector_status
            return ConnectorStateInfo(
                name,
                StateInfo(plan.state_of_connector().value, c.worker_id, c.trace, None, c.version),
                [
                    StateInfo(
                        plan.state_of_task(t).value, t.worker_id, t.trace, t.id.task, t.version
                    )
                    for t in plan.task_statuses
                ],
                self.validator.connector_type(self._snapshot().raw_connector_config(name)),
            )

        return self._call(restart, f"handling a restart request for connector {name}")

    def restart_task(self, task_id: ConnectorTaskId) -> None:
        def restart() -> None:
            state = self._snapshot()
            if not state.contains(task_id.connector):
                raise NotFoundException(f"Unknown connector: {task_id.connector}")
            if state.raw_task_config(task_id) is None:
                raise NotFoundException(f"Unknown task: {task_id}")
            if self._rebalance.owns_task(task_id):
                self.worker.stop_and_await_task(task_id)
                if not self._start_task(task_id):
                    raise ConnectException(f"Failed to start task: {task_id}")
            elif self._is_leader():
                raise NotAssignedException(
                    "Cannot restart task since it is not assigned to this member",
                    self._owner_url(task_id),
                )
            else:
                raise NotLeaderException(
                    "Only the leader can process restart requests.", self._leader_url()
                )

        self._call(restart, f"restarting task {task_id}")

    # -- topics and offsets ------------------------------------------------------------------

    def _tracking(self, reset: bool = False) -> None:
        if not self._worker_setting("topic.tracking.enable", True):
            raise ForbiddenException("Topic tracking is disabled.")
        if reset and not self._worker_setting("topic.tracking.allow.reset", True):
            raise ForbiddenException("Topic tracking reset is disabled.")

    def connector_active_topics(self, name: str) -> list[str]:
        self._tracking()
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Connector {name} not found")
        topics = {t.topic for t in self.status_store.get_all_topics(name)}
        return sorted(topics | set(self.worker.connector_active_topics(name)))

    def reset_connector_active_topics(self, name: str) -> None:
        self._tracking(reset=True)
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Connector {name} not found")
        for status in self.status_store.get_all_topics(name):
            self.status_store.delete_topic(name, status.topic)
        self.worker.reset_connector_active_topics(name)

    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        raw = self._snapshot().raw_connector_config(name)
        if raw is None:
            raise NotFoundException(f"Connector {name} not found")
        return list(self.worker.connector_offsets(name, self._resolved(raw)))

    def _modify_offsets(self, name: str, offsets: list[dict[str, Any]] | None) -> str:
        def modify() -> str:
            self._require_leader("Only the leader can modify connector offsets.")
            state = self._snapshot()
            raw = state.raw_connector_config(name)
            if raw is None:
                raise NotFoundException(f"Connector {name} not found")
            if state.target_state(name) is not TargetState.STOPPED or state.task_count(name):
                raise BadRequestException(STOPPED_REQUIRED.format(name=name))
            return str(self.worker.modify_connector_offsets(name, self._resolved(raw), offsets))

        return self._call(modify, f"modifying the offsets of connector {name}")

    def alter_connector_offsets(self, name: str, offsets: list[dict[str, Any]]) -> str:
        if not offsets:
            raise BadRequestException("The offsets to be altered may not be null or empty")
        return self._modify_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        return self._modify_offsets(name, None)

    # -- plugins: mode-independent, shared with the standalone herder -------------------------

    connector_plugins = StandaloneHerder.connector_plugins
    connector_plugin_config = StandaloneHerder.connector_plugin_config

    # -- loggers -----------------------------------------------------------------------------

    def logger_level(self, logger: str) -> LoggerLevel | None:
        level: LoggerLevel | None = self.loggers.level(logger)
        return level

    def all_logger_levels(self) -> dict[str, LoggerLevel]:
        levels: dict[str, LoggerLevel] = self.loggers.all_levels()
        return levels

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        affected: list[str] = self.loggers.set_level(namespace, level)
        return affected

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self.config_store.put_logger_level(namespace, level)
