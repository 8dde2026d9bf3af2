"""``DistributedHerder``: a worker in a Connect cluster, as the REST API sees it.

Kafka's ``DistributedHerder`` in two parts: this class is the
:class:`~kconnect.runtime.herder.herder.Herder` the REST threads call, and it owns a
:class:`~kconnect.runtime.herder.herder_thread.HerderThread`, which does the real work on the
herder thread (group membership, rebalances, config updates, restarts, starting and
stopping work). Requests in, events out: this class turns REST calls into requests through
the thread's public request methods and answers reads from the stores' snapshots; the thread
reaches back only through the :class:`~kconnect.runtime.herder.herder_hooks.HerderHooks` this
class gives it (see :class:`DistributedHerder`).

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
from kconnect.runtime.herder.distributed_errors import NotLeaderException
from kconnect.runtime.herder.herder import ConnectorStateInfo, Created
from kconnect.runtime.herder.herder_hooks import HerderHooks
from kconnect.runtime.herder.herder_thread import HerderThread
from kconnect.runtime.herder.session_keys import RequestSignature
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
from kconnect.runtime.storage.status_store import StatusBackingStore
from kconnect.runtime.worker.worker import Worker

__all__ = ["DistributedHerder"]

log = logging.getLogger(__name__)


class DistributedHerder(AbstractHerder):
    """The herder of ``kconnect distributed``; see the module docstring.

    Lifecycle and contract: ``__init__`` builds the :class:`HerderThread` (nothing starts);
    :meth:`start` starts it and returns at once, :meth:`stop` stops it (idempotent). Who owns
    what:

    * this class: the public ``Herder`` API (REST threads), validation, reads answered from the
      config and status stores' snapshots, the status listener connectors and tasks report to
      (their threads), the automatic restarts, the config providers, worker loggers and the
      ``/health`` readiness flag;
    * the herder thread: group membership and the assignment, the config snapshot the tick
      loop acts on, the session key, the request queue, the running work, zombie fencing and
      task reconfiguration.

    Requests in: every write runs on the herder thread through ``HerderThread.call`` (an
    action of this class, leader-only ones marked ``leader_only``) or one of the thread's
    typed requests (fencing, restarts of work that runs here, automatic restarts, task
    reconfiguration); the caller waits up to ``request_timeout_s``. Events out: the thread
    calls back only through the :class:`HerderHooks` built here (statuses, resolved configs,
    connector types, automatic-restart bookkeeping, logger levels, ``joined``). Neither side
    touches the other's private attributes.
    """

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
        hooks = HerderHooks(
            status=self,
            resolve_config=self.resolved_config,
            connector_type=self._connector_type,
            auto_restarter=self.auto_restarter,
            loggers=self.loggers,
            joined=self.mark_ready,
        )
        self._thread = HerderThread(
            hooks,
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
        return self._thread.member_urls()

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
        self._thread.use_internal_tls(context)

    def _starting_detail(self) -> str:
        return f" The worker is currently {self._thread.stage}."

    def _busy_detail(self, timeout_s: float) -> str | None:
        if self._thread.responsive(timeout_s):
            return None
        return f"The worker is currently {self._thread.stage}."

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
            exists = self._snapshot().contains(name)
            if exists and not allow_replace:
                raise AlreadyExistsException(f"Connector {name} already exists")
            self.config_store.put_connector_config(name, raw, target_state)
            return Created(not exists, self.connector_info(name))

        return self._thread.call(
            write,
            f"writing the config of connector {name}",
            leader_only="Only the leader can set connector configs.",
        )

    def delete_connector_config(self, name: str) -> None:
        def delete() -> None:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self.config_store.remove_connector_config(name)

        self._thread.call(
            delete,
            f"deleting connector {name}",
            leader_only="Only the leader can delete connector configs.",
        )

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None
    ) -> None:
        """The internal endpoint: a worker sends the task configs its connector generated."""
        self._thread.check_signature(signature)

        def write() -> None:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            self._thread.write_task_configs(name, configs)

        self._thread.call(
            write,
            f"writing task configs for connector {name}",
            leader_only="Only the leader may write task configurations.",
        )

    def fence_zombie_source_tasks(self, name: str, signature: RequestSignature | None) -> None:
        """The internal endpoint: the leader runs a round of zombie fencing for ``name`` and
        answers once the task count record is written (a follower raises NotLeaderException,
        which the REST layer forwards to the leader)."""
        self._thread.check_signature(signature)
        self._thread.fence_zombies(name)

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
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Connector {name} not found")
            # tasks first: no task may run for a STOPPED connector
            self._thread.write_task_configs(name, [])
            self.config_store.put_target_state(name, TargetState.STOPPED)

        self._thread.call(
            stop,
            f"stopping connector {name}",
            leader_only="Only the leader can transition connectors to the STOPPED state.",
        )

    # -- restarts -------------------------------------------------------------------------------

    def restart_connector(self, name: str) -> None:
        self._thread.restart_connector(name)

    def restart_connector_and_tasks(self, request: RestartRequest) -> ConnectorStateInfo:
        name = request.connector

        def restart() -> ConnectorStateInfo:
            if not self._snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            status = self.status_store.get_connector(name)
            if status is None:
                raise NotFoundException(f"Status for connector {name} not found")
            plan = RestartPlan.build(request, status, self.status_store.get_all(name))
            self.config_store.put_restart_request(request)
            return self._restart_response(plan)

        return self._thread.call(
            restart,
            f"handling a restart request for connector {name}",
            leader_only="Only the leader can process restart requests.",
        )

    def restart_task(self, task_id: ConnectorTaskId) -> None:
        self._thread.restart_task(task_id)

    def request_task_reconfiguration(self, name: str) -> None:
        self._thread.request_task_reconfiguration(name)

    def _auto_restart(self, key: str | ConnectorTaskId) -> None:
        """On the herder thread, if this worker still runs it: stop, RESTARTING, start."""
        self._thread.auto_restart(key)

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

        return self._thread.call(
            lambda: self._modify_stopped_connector_offsets(name, offsets),
            f"modifying the offsets of connector {name}",
            leader_only="Only the leader can modify connector offsets.",
        )

    def _fence_before_modifying_offsets(self, name: str) -> None:
        """With exactly-once source: a STOPPED source connector's zombies are fenced out
        before its offsets change (the checks run first, so a running connector's tasks are
        never fenced by a request that is refused)."""

        def check() -> bool:
            state = self._snapshot()
            raw = state.raw_connector_config(name)
            if raw is None:
                raise NotFoundException(f"Connector {name} not found")
            if state.target_state(name) is not TargetState.STOPPED or state.task_count(name):
                raise BadRequestException(STOPPED_REQUIRED.format(name=name))
            return self._connector_type(raw) == "source"

        checked = self._thread.call(
            check,
            f"checking connector {name} before modifying offsets",
            leader_only="Only the leader can modify connector offsets.",
        )
        if not checked:
            return
        log.debug("Performing a round of zombie fencing before modifying offsets for source "
                  "connector %s with exactly-once support enabled.", name)  # fmt: skip
        try:
            self._thread.fence_zombies(name)
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
