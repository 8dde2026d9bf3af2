"""The :class:`~kconnect.runtime.herder.herder.Herder` operations of the distributed herder.

REST threads call these. Reads answer from the local caches of the config and status
topics (any worker can answer). Writes are queued on the herder thread and the caller waits
for the result (``request_timeout_s``); a write that arrives mid-rebalance simply waits in the
queue until the rebalance is resolved. Leader-only writes raise
:class:`~kconnect.runtime.herder.distributed_errors.NotLeaderException` on a follower and
restarts of work this worker does not run raise ``NotAssignedException`` on the leader; the
REST layer forwards those (:mod:`kconnect.rest.forwarding`).

Status and config reads, plugins, validation and loggers are the mode-independent ones of
:class:`~kconnect.runtime.herder.abstract_herder.AbstractHerder`. This is the base of
:class:`~kconnect.runtime.herder.distributed_herder.DistributedHerder`, which supplies the state
used here (``_requests``, ``_rebalance``, ``member``...).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from kconnect.api.errors import AlreadyExistsException, ConnectException, NotFoundException
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.rest_errors import BadRequestException
from kconnect.runtime.common.restart import RestartPlan, RestartRequest
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.herder.abstract_herder import AbstractHerder
from kconnect.runtime.herder.distributed_errors import NotAssignedException, NotLeaderException
from kconnect.runtime.herder.herder import ConnectorStateInfo, Created
from kconnect.runtime.herder.request_queue import HerderRequestQueue, await_result
from kconnect.runtime.herder.session_keys import RequestSignature, check_signature

if TYPE_CHECKING:
    from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore

__all__ = ["DistributedHerderApi"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class DistributedHerderApi(AbstractHerder):
    """See the module docstring. Attributes come from ``DistributedHerder``."""

    config: Any
    config_store: KafkaConfigBackingStore  # also restart requests, logger levels, session keys
    member: Any
    _requests: HerderRequestQueue
    _rebalance: Any
    _session_key: Any
    _request_timeout_s: float
    _stage: str
    _worker_id: str

    # provided by DistributedHerder
    _is_leader: Callable[[], bool]
    _leader_url: Callable[[], str | None]
    _owner_url: Callable[[str | ConnectorTaskId], str | None]
    _sessioned: Callable[[], bool]
    _start_connector: Callable[[str], None]
    _start_task: Callable[[ConnectorTaskId], bool]
    _write_task_configs: Callable[[str, list[dict[str, str]]], None]

    # -- plumbing ---------------------------------------------------------------------------

    def _call(self, action: Callable[[], T], description: str) -> T:
        """Run ``action`` on the herder thread and wait for its result."""
        future = self._requests.submit(action, description=description)
        return await_result(future, self._request_timeout_s, self._stage)

    def _require_leader(self, message: str) -> None:
        if not self._is_leader():
            raise NotLeaderException(message, self._leader_url())

    # -- lifecycle/health ---------------------------------------------------------------------

    def _starting_detail(self) -> str:
        return f" The worker is currently {self._stage}."

    def _busy_detail(self, timeout_s: float) -> str | None:
        # responsive when a no-op queued now runs on the herder thread within the timeout
        try:
            self._requests.submit(lambda: None, description="health check").result(timeout_s)
        except Exception:
            return f"The worker is currently {self._stage}."
        return None

    @property
    def worker_id(self) -> str:
        return self._worker_id

    # -- config writes (leader) --------------------------------------------------------------

    def _validate_for_write(self, name: str, config: Mapping[str, str | None]) -> dict[str, str]:
        raw = self._validated_config(config)
        if self._connector_type(raw) == "sink":
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
            return self._restart_response(plan)

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

    def connector_active_topics(self, name: str) -> list[str]:
        self._check_topic_tracking(name)
        # topics other workers recorded (status topic) plus those this worker's tasks use now
        topics = {t.topic for t in self.status_store.get_all_topics(name)}
        return sorted(topics | set(self.worker.connector_active_topics(name)))

    def reset_connector_active_topics(self, name: str) -> None:
        self._check_topic_tracking(name, reset=True)
        for status in self.status_store.get_all_topics(name):
            self.status_store.delete_topic(name, status.topic)
        self.worker.reset_connector_active_topics(name)

    def _modify_offsets(self, name: str, offsets: list[dict[str, Any]] | None) -> str:
        def modify() -> str:
            self._require_leader("Only the leader can modify connector offsets.")
            return self._modify_stopped_connector_offsets(name, offsets)

        return self._call(modify, f"modifying the offsets of connector {name}")

    # -- loggers -----------------------------------------------------------------------------

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self.config_store.put_logger_level(namespace, level)
