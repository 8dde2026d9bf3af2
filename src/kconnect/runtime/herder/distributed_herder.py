"""``DistributedHerder``: a worker in a Connect cluster, as the REST API sees it.

Kafka's ``DistributedHerder`` in two parts: this class is the
:class:`~kconnect.runtime.herder.herder.Herder` the REST threads call, and it owns a
:class:`~kconnect.runtime.herder.herder_thread.HerderThread`, which does the real work on the
herder thread (group membership, rebalances, config updates, restarts, starting and
stopping work).

Reads answer from the local caches of the config and status topics (any worker can answer).
Writes are queued on the herder thread and the caller waits for the result
(``request_timeout_s``); a write that arrives mid-rebalance simply waits in the queue until the
rebalance is resolved. Leader-only writes raise
:class:`~kconnect.runtime.herder.distributed_errors.NotLeaderException` on a follower and
restarts of work this worker does not run raise ``NotAssignedException`` on the leader; the
REST layer forwards those (:mod:`kconnect.rest.forwarding`). Status reads, plugins,
validation and loggers are the mode-independent ones of
:class:`~kconnect.runtime.herder.abstract_herder.AbstractHerder`.

Connector/task threads report statuses through this herder (written to the Kafka status store
with the current generation, see :mod:`kconnect.runtime.herder.herder_status`).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api.errors import AlreadyExistsException, ConnectException, NotFoundException
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.common.restart import RestartPlan, RestartRequest
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.common.timeouts import REST_REQUEST_TIMEOUT_S
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.herder.abstract_herder import STOPPED_REQUIRED, AbstractHerder
from kconnect.runtime.herder.distributed_errors import NotAssignedException, NotLeaderException
from kconnect.runtime.herder.herder import ConnectorStateInfo, Created
from kconnect.runtime.herder.herder_thread import HerderThread
from kconnect.runtime.herder.request_queue import await_result
from kconnect.runtime.herder.session_keys import RequestSignature, check_signature
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.status_store import StatusBackingStore
from kconnect.runtime.worker.worker import Worker

__all__ = ["DistributedHerder"]

log = logging.getLogger(__name__)


class DistributedHerder(AbstractHerder):
    """The herder of ``kconnect distributed``; see the module docstring."""

    config_store: KafkaConfigBackingStore

    def __init__(
        self,
        config: DistributedConfig,
        worker: Worker,
        plugins: Plugins,
        config_store: KafkaConfigBackingStore,
        status_store: StatusBackingStore,
        *,
        config_transformer: ConfigTransformer | None = None,
        kafka_cluster_id: str | None = None,
        request_timeout_s: float = REST_REQUEST_TIMEOUT_S,
        health_timeout_s: float = 10.0,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(
            worker,
            plugins,
            worker_config=config,
            config_transformer=config_transformer,
            status_store=status_store,
            config_store=config_store,
            kafka_cluster_id=kafka_cluster_id,
            health_timeout_s=health_timeout_s,
        )
        self.config = config
        self._worker_id = str(config.worker_id())
        self._thread = HerderThread(
            self,
            config,
            worker,
            config_store,
            status_store,
            clock or SystemClock(),
            request_timeout_s,
        )

    @property
    def worker_id(self) -> str:
        return self._worker_id

    @property
    def rest_url(self) -> str:
        return self._thread.rest_url

    def group_member_urls(self) -> list[str]:
        """The leader: every group member's REST URL (idle workers included); others: []."""
        member = self._thread.member
        return member.member_urls() if member is not None else []

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start worker, stores and group member, then the herder thread (returns at once;
        ``/health`` reports ready after the first assignment is applied)."""
        log.info("Herder starting")
        self._thread.start()
        log.info("Herder started")

    def stop(self) -> None:
        """Stop work, leave the group and stop the stores; idempotent."""
        log.info("Herder stopping")
        self.auto_restarter.close()
        self._thread.stop()
        self._close_config_transformer()
        log.info("Herder stopped")

    def use_internal_tls(self, context: Callable[[], ssl.SSLContext] | None) -> None:
        self._thread.internal_tls = context

    def _starting_detail(self) -> str:
        return f" The worker is currently {self._thread.stage}."

    def _busy_detail(self, timeout_s: float) -> str | None:
        if self._thread.responsive(timeout_s):
            return None
        return f"The worker is currently {self._thread.stage}."

    def _require_leader(self, message: str) -> None:
        if not self._thread.is_leader():
            raise NotLeaderException(message, self._thread.leader_url())

    # -- config writes (leader) -----------------------------------------------------------------

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

        return self._thread.call(write, f"writing the config of connector {name}")

    def delete_connector_config(self, name: str) -> None:
        def delete() -> None:
            self._require_leader("Only the leader can delete connector configs.")
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self.config_store.remove_connector_config(name)

        self._thread.call(delete, f"deleting connector {name}")

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None
    ) -> None:
        """The internal endpoint: a worker sends the task configs its connector generated."""
        if self._thread.sessioned():
            check_signature(
                signature, self._thread.session_key, self.config.verification_algorithms
            )

        def write() -> None:
            self._require_leader("Only the leader may write task configurations.")
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self._thread.write_task_configs(name, configs)

        self._thread.call(write, f"writing task configs for connector {name}")

    def fence_zombie_source_tasks(self, name: str, signature: RequestSignature | None) -> None:
        """The internal endpoint: the leader runs a round of zombie fencing for ``name`` and
        answers once the task count record is written (a follower raises NotLeaderException,
        which the REST layer forwards to the leader)."""
        if self._thread.sessioned():
            check_signature(
                signature, self._thread.session_key, self.config.verification_algorithms
            )
        self._fence(name)

    def _fence(self, name: str) -> None:
        fencing = self._thread.call(
            lambda: self._thread.fencing.fence(name), f"zombie fencing for connector {name}"
        )
        await_result(fencing, self._thread.request_timeout_s, self._thread.stage)

    # -- target states --------------------------------------------------------------------------

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
            self._thread.write_task_configs(name, [])
            self.config_store.put_target_state(name, TargetState.STOPPED)

        self._thread.call(stop, f"stopping connector {name}")

    # -- restarts -------------------------------------------------------------------------------

    def _not_here(self, what: str, item: str | ConnectorTaskId) -> ConnectException:
        """The error for a restart of work this worker does not run (REST forwards it)."""
        if self._thread.is_leader():
            return NotAssignedException(
                f"Cannot restart {what} since it is not assigned to this member",
                self._thread.owner_url(item),
            )
        return NotLeaderException(
            "Only the leader can process restart requests.", self._thread.leader_url()
        )

    def restart_connector(self, name: str) -> None:
        def restart() -> None:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            if not self._thread.rebalance.owns_connector(name):
                raise self._not_here("connector", name)
            self.auto_restarter.forget(name)
            self.worker.stop_and_await_connector(name)
            self._thread.work.start_connector(name)

        self._thread.call(restart, f"restarting connector {name}")

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

        return self._thread.call(restart, f"handling a restart request for connector {name}")

    def restart_task(self, task_id: ConnectorTaskId) -> None:
        def restart() -> None:
            state = self._snapshot()
            if not state.contains(task_id.connector):
                raise NotFoundException(f"Unknown connector: {task_id.connector}")
            if state.raw_task_config(task_id) is None:
                raise NotFoundException(f"Unknown task: {task_id}")
            if not self._thread.rebalance.owns_task(task_id):
                raise self._not_here("task", task_id)
            self.auto_restarter.forget(task_id)
            self.worker.stop_and_await_task(task_id)
            if not self._thread.work.start_task(task_id):
                raise ConnectException(f"Failed to start task: {task_id}")

        self._thread.call(restart, f"restarting task {task_id}")

    def request_task_reconfiguration(self, name: str) -> None:
        self._thread.reconfiguration.request(name)

    def _auto_restart(self, key: str | ConnectorTaskId) -> None:
        """On the herder thread, if this worker still runs it: stop, RESTARTING, start."""

        def restart() -> None:
            thread = self._thread
            try:
                if isinstance(key, ConnectorTaskId):
                    if not thread.rebalance.owns_task(key):
                        self.auto_restarter.forget(key)
                        return
                    self.worker.stop_and_await_task(key)
                    self.on_restart(key)
                    thread.work.start_task_safely(key)
                    return
                if not thread.rebalance.owns_connector(key):
                    self.auto_restarter.forget(key)
                    return
                self.worker.stop_and_await_connector(key)
                self.on_restart(key)
                thread.work.start_connector(key)
            except Exception:
                log.exception("Automatic restart of %s failed", key)

        self._thread.requests.submit(restart, description=f"restarting {key} automatically")

    # -- topics and offsets ---------------------------------------------------------------------

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
        if self.config.exactly_once_source_enabled:
            self._fence_before_modifying_offsets(name)

        def modify() -> str:
            self._require_leader("Only the leader can modify connector offsets.")
            return self._modify_stopped_connector_offsets(name, offsets)

        return self._thread.call(modify, f"modifying the offsets of connector {name}")

    def _fence_before_modifying_offsets(self, name: str) -> None:
        """With exactly-once source: a STOPPED source connector's zombies are fenced out
        before its offsets change (the checks run first, so a running connector's tasks are
        never fenced by a request that is refused)."""

        def check() -> bool:
            self._require_leader("Only the leader can modify connector offsets.")
            state = self._snapshot()
            raw = state.raw_connector_config(name)
            if raw is None:
                raise NotFoundException(f"Connector {name} not found")
            if state.target_state(name) is not TargetState.STOPPED or state.task_count(name):
                raise BadRequestException(STOPPED_REQUIRED.format(name=name))
            return self._connector_type(raw) == "source"

        if not self._thread.call(check, f"checking connector {name} before modifying offsets"):
            return
        log.debug("Performing a round of zombie fencing before modifying offsets for source "
                  "connector %s with exactly-once support enabled.", name)  # fmt: skip
        try:
            self._fence(name)
        except (NotLeaderException, NotFoundException):
            raise
        except ConnectException as e:
            raise ConnectException(
                "Failed to perform zombie fencing for source connector prior to modifying "
                f"offsets: {e}"
            ) from e

    # -- loggers --------------------------------------------------------------------------------

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self.config_store.put_logger_level(namespace, level)

    # -- StatusListener (connector/task threads) ------------------------------------------------

    def _status_generation(self) -> int:
        return self._thread.generation

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        super().on_startup(key)
        if not isinstance(key, ConnectorTaskId):
            self.request_task_reconfiguration(key)  # a running connector generates task configs

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        super().on_resume(key)
        if not isinstance(key, ConnectorTaskId):
            self.request_task_reconfiguration(key)
