"""The herder thread of a distributed worker: membership, rebalances, config updates, restarts.

:class:`HerderThread` owns the cluster-facing state of a worker (Kafka's ``DistributedHerder``
tick loop, split from its REST half in :mod:`kconnect.runtime.herder.distributed_herder`). One
thread does all the real work, one :meth:`HerderThread._tick` at a time:

1. catch up with the config topic when an earlier read failed;
2. resolve a completed rebalance (read to the assignment's config offset or rejoin, then
   start the assigned work through :class:`~kconnect.runtime.herder.rebalance_handler.
   RebalanceHandler`; rejoin after revocations or when the leader scheduled a delay);
3. as leader under the ``sessioned`` protocol, distribute/rotate the session key;
4. run queued requests (:class:`~kconnect.runtime.herder.request_queue.HerderRequestQueue`) --
   REST writes, restarts, task reconfigurations. Requests wait while a rebalance is unresolved
   instead of failing with 409, and run once the assignment is applied;
5. process KIP-745 restart requests read from the config topic;
6. apply config-topic updates (:mod:`~kconnect.runtime.herder.config_updates`): bounce
   reconfigured connectors this worker owns, propagate target states, stop tasks whose configs
   changed, request a rebalance when connectors or task sets were added/removed;
7. wait for a wakeup (a new request, a config update, an assignment) or the next due time.

Other threads: the config store's log thread feeds the
:class:`~kconnect.runtime.herder.config_updates.ConfigUpdateInbox`; the group member's thread
calls :class:`~kconnect.runtime.herder.assignment.RebalanceEvents`; REST threads (through the
herder) submit requests and read the read-only queries. Shared state is guarded by locks.

The contract with the herder (requests in, events out; docs/design-notes.md, "The herder and
its thread: requests in, events out"): the herder reaches this class only through the methods
under "requests in" and "read-only state" below; this class reaches the herder only through
the :class:`~kconnect.runtime.herder.herder_hooks.HerderHooks` it is given. Everything else
here -- group member, assignment, config snapshot, session key, request queue, running work,
zombie fencing, task reconfiguration -- is this class's own; its public attributes are for
the helper modules it composes (they declare what they use as ``*Host`` Protocols), not for
the herder.
"""

from __future__ import annotations

import logging
import ssl
import threading
from collections.abc import Callable
from typing import TypeVar

from kconnect.api.errors import ConnectException, NotFoundException
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.request_errors import BadRequestException
from kconnect.runtime.common.restart import RestartPlan, RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.herder.assigned_work import AssignedWork
from kconnect.runtime.herder.assignment import CurrentAssignment, RebalanceEvents
from kconnect.runtime.herder.config_updates import ConfigUpdateInbox
from kconnect.runtime.herder.distributed_errors import NotAssignedException, NotLeaderException
from kconnect.runtime.herder.group_member import WorkerGroupMember
from kconnect.runtime.herder.herder_hooks import HerderHooks
from kconnect.runtime.herder.rebalance_handler import RebalanceHandler, assess_assignment
from kconnect.runtime.herder.request_queue import HerderRequestQueue, await_result
from kconnect.runtime.herder.session_keys import (
    RequestSignature,
    check_signature,
    rotated_session_key,
)
from kconnect.runtime.herder.task_reconfiguration import TaskReconfiguration
from kconnect.runtime.herder.zombie_fencing import ZombieFencing
from kconnect.runtime.metrics import RebalanceMetrics
from kconnect.runtime.storage.kafka_config_store import (
    KafkaClusterConfigState,
    KafkaConfigBackingStore,
)
from kconnect.runtime.storage.status_store import StatusBackingStore
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.worker import Worker

__all__ = ["HerderThread"]

log = logging.getLogger(__name__)

T = TypeVar("T")

PROTOCOL_V2 = 2  # sessioned: internal requests are signed
#: Connect protocol version -> the protocol name connect-worker-rebalance-metrics reports.
_PROTOCOL_NAMES = {0: "eager", 1: "compatible", 2: "sessioned"}


class HerderThread:
    """The herder thread of a distributed worker; see the module docstring.

    Lifecycle and contract: the herder builds it with its
    :class:`~kconnect.runtime.herder.herder_hooks.HerderHooks` (events out: statuses, resolved
    configs, connector types, automatic-restart bookkeeping, logger levels, ``joined``) and
    calls :meth:`start` once and :meth:`stop` once (idempotent). Between the two:

    * requests in (REST threads, the auto-restart thread): :meth:`call` runs an action on
      this thread and waits (``leader_only`` refuses it on a follower first);
      :meth:`fence_zombies`, :meth:`restart_connector`, :meth:`restart_task` wait too;
      :meth:`auto_restart` and :meth:`request_task_reconfiguration` only queue.
      :meth:`write_task_configs` is for actions already running on this thread.
    * read-only state (any thread): :attr:`rest_url`, :attr:`stage`, :attr:`generation`,
      :meth:`member_urls`, :meth:`responsive`, :meth:`check_signature` (raises).
    * :meth:`use_internal_tls`: the TLS context for requests to other workers (REST start-up).

    Each request runs on this thread, one at a time, after the current rebalance is resolved;
    a request's exception goes to its caller, never into the tick loop.
    """

    def __init__(
        self,
        hooks: HerderHooks,
        config: DistributedConfig,
        worker: Worker,
        config_store: KafkaConfigBackingStore,
        status_store: StatusBackingStore,
        clock: Clock,
        request_timeout_s: float,
    ) -> None:
        self.hooks = hooks
        self.config = config
        self.worker = worker
        self.config_store = config_store
        self.status_store = status_store
        self.clock = clock
        self.request_timeout_s = request_timeout_s
        self._rest_url = str(config.advertised_url())
        self.member: WorkerGroupMember | None = None
        self.stage = "starting up"

        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._config_state = KafkaClusterConfigState()
        self.requests = HerderRequestQueue(self.wakeup)
        self.reconfiguration = TaskReconfiguration(self, request_timeout_s)
        self.fencing = ZombieFencing(self, request_timeout_s)
        self.work = AssignedWork(
            hooks, worker, config_store, self.reconfiguration.request, self._preflight
        )
        self.rebalance = RebalanceHandler(
            self.work.start_connector,
            self.work.start_task_safely,
            self.work.stop_connector,
            self.work.stop_tasks,
        )
        self.inbox = ConfigUpdateInbox(
            lambda name: self._config_state.contains(name),
            self.wakeup,
            self._set_session_key,
            hooks.loggers,
        )
        self.assignment = CurrentAssignment(clock)
        self._can_read_configs = True
        self._session_key: SessionKey | None = None
        self._write_privileges_missing = False
        self._joined = False  # ``hooks.joined`` was called (first assignment applied)
        self._internal_tls: Callable[[], ssl.SSLContext] | None = None

    # -- requests in (REST threads; each runs on the herder thread) ----------------------------

    def call(
        self, action: Callable[[], T], description: str, *, leader_only: str | None = None
    ) -> T:
        """Run ``action`` on the herder thread and wait for its result (REST threads).

        ``leader_only``: the message of the ``NotLeaderException`` raised (on the herder thread,
        before ``action``) when this worker is not the leader; the REST layer forwards it.
        """

        def run() -> T:
            if leader_only is not None and not self.is_leader():
                raise NotLeaderException(leader_only, self.leader_url())
            return action()

        future = self.requests.submit(run, description=description)
        return await_result(future, self.request_timeout_s, self.stage)

    def fence_zombies(self, name: str) -> None:
        """A round of zombie fencing for source connector ``name`` (leader only); returns once
        the task count record is written (see :meth:`ZombieFencing.fence`)."""
        fencing = self.call(
            lambda: self.fencing.fence(name), f"zombie fencing for connector {name}"
        )
        await_result(fencing, self.request_timeout_s, self.stage)

    def restart_connector(self, name: str) -> None:
        """Restart connector ``name`` if this worker runs it; else ``NotAssignedException``
        (leader) or ``NotLeaderException`` (follower) for the REST layer to forward."""

        def restart() -> None:
            if not self.config_store.snapshot().contains(name):
                raise NotFoundException(f"Unknown connector: {name}")
            if not self.rebalance.owns_connector(name):
                raise self._not_here("connector", name)
            self.hooks.auto_restarter.forget(name)
            self.worker.stop_and_await_connector(name)
            self.work.start_connector(name)

        self.call(restart, f"restarting connector {name}")

    def restart_task(self, task_id: ConnectorTaskId) -> None:
        """Restart task ``task_id`` if this worker runs it; errors as :meth:`restart_connector`."""

        def restart() -> None:
            state = self.config_store.snapshot()
            if not state.contains(task_id.connector):
                raise NotFoundException(f"Unknown connector: {task_id.connector}")
            if state.raw_task_config(task_id) is None:
                raise NotFoundException(f"Unknown task: {task_id}")
            if not self.rebalance.owns_task(task_id):
                raise self._not_here("task", task_id)
            self.hooks.auto_restarter.forget(task_id)
            self.worker.stop_and_await_task(task_id)
            if not self.work.start_task(task_id):
                raise ConnectException(f"Failed to start task: {task_id}")

        self.call(restart, f"restarting task {task_id}")

    def _not_here(self, what: str, item: str | ConnectorTaskId) -> ConnectException:
        """The error for a restart of work this worker does not run (REST forwards it)."""
        if self.is_leader():
            return NotAssignedException(
                f"Cannot restart {what} since it is not assigned to this member",
                self.owner_url(item),
            )
        return NotLeaderException(
            "Only the leader can process restart requests.", self.leader_url()
        )

    def auto_restart(self, key: str | ConnectorTaskId) -> None:
        """Queue an automatic restart of a failed connector or task (the auto-restart thread):
        if this worker still runs it, stop it, report RESTARTING, start it; does not wait."""

        def restart() -> None:
            restarts, status = self.hooks.auto_restarter, self.hooks.status
            try:
                if isinstance(key, ConnectorTaskId):
                    if not self.rebalance.owns_task(key):
                        restarts.forget(key)
                        return
                    self.worker.stop_and_await_task(key)
                    status.on_restart(key)
                    self.work.start_task_safely(key)
                    return
                if not self.rebalance.owns_connector(key):
                    restarts.forget(key)
                    return
                self.worker.stop_and_await_connector(key)
                status.on_restart(key)
                self.work.start_connector(key)
            except Exception:
                log.exception("Automatic restart of %s failed", key)

        self.requests.submit(restart, description=f"restarting {key} automatically")

    def request_task_reconfiguration(self, name: str) -> None:
        """Queue a task-config refresh for connector ``name`` (any thread; does not wait)."""
        self.reconfiguration.request(name)

    def use_internal_tls(self, context: Callable[[], ssl.SSLContext] | None) -> None:
        """The TLS context for requests to other workers' HTTPS listeners (REST sets it)."""
        self._internal_tls = context

    # -- read-only state (any thread) ----------------------------------------------------------

    @property
    def rest_url(self) -> str:
        """This worker's advertised REST URL."""
        return self._rest_url

    def member_urls(self) -> list[str]:
        """The leader: every group member's REST URL (idle workers included); others: []."""
        member = self.member
        return member.member_urls() if member is not None else []

    def check_signature(self, signature: RequestSignature | None) -> None:
        """Under the ``sessioned`` protocol, an internal request's signature must verify with
        the current session key (raises otherwise); nothing to check under older protocols."""
        if self.sessioned():
            check_signature(signature, self._session_key, self.config.verification_algorithms)

    @property
    def internal_tls(self) -> Callable[[], ssl.SSLContext] | None:
        return self._internal_tls

    def wakeup(self) -> None:
        self._wake.set()
        if self.member is not None:
            self.member.wakeup()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    @property
    def session_key(self) -> SessionKey | None:
        return self._session_key

    def _set_session_key(self, key: SessionKey | None) -> None:
        with self._lock:
            self._session_key = key

    @property
    def generation(self) -> int:
        return self.assignment.generation

    def member_id(self) -> str:
        return self.member.member_id() if self.member is not None else ""

    def rebalance_metrics(self) -> RebalanceMetrics:
        return self.worker.metrics.rebalance

    def protocol_version(self) -> int:
        if self.member is None:
            return 0
        try:
            return self.member.current_protocol_version()
        except Exception:
            return 0

    def sessioned(self) -> bool:
        return self.protocol_version() >= PROTOCOL_V2

    def is_leader(self) -> bool:
        return self.assignment.is_leader()

    def leader_url(self) -> str | None:
        return self.assignment.leader_url()

    def owner_url(self, item: str | ConnectorTaskId) -> str | None:
        try:
            return None if self.member is None else self.member.owner_url(item)
        except Exception:
            return None

    def responsive(self, timeout_s: float) -> bool:
        """Whether a no-op queued now runs on the herder thread within ``timeout_s``."""
        try:
            self.requests.submit(lambda: None, description="health check").result(timeout_s)
        except Exception:
            return False
        return True

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker, the stores and the group member, then the herder thread."""
        self.worker.start()
        self.status_store.start()
        self.config_store.set_update_listener(self.inbox)
        self.config_store.start()
        self._config_state = self.config_store.snapshot()
        self._session_key = self._config_state.session_key
        self.member = WorkerGroupMember(
            self.config,
            self._rest_url,
            lambda: self._config_state,
            RebalanceEvents(self),
            self.clock,
            fresh_config_state_supplier=self._fresh_config_state,
        )
        self.member.start()
        self._thread = threading.Thread(target=self._run, name="herder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop work, leave the group and stop the stores; idempotent, waits for the thread."""
        if self._stopping.is_set():
            self._stopped.wait(60)
            return
        self._stopping.set()
        self.wakeup()
        if self._thread is not None:
            self._thread.join(timeout=120)
        else:
            self._halt()

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                try:
                    self._tick()
                except Exception:
                    log.exception("Uncaught exception in herder work thread; continuing")
                    self._stopping.wait(0.5)
        finally:
            self._halt()

    def _halt(self) -> None:
        self.stage = "shutting down"
        self.requests.close(ConnectException("The worker is shutting down"))
        try:
            running = self.rebalance.snapshot()
            self.rebalance.revoke(running.connectors, running.tasks)
        except Exception:
            log.exception("Failed to stop connectors and tasks")
        if self.member is not None:
            try:
                self.member.stop()  # leaves the group so the others rebalance at once
            except Exception:
                log.exception("Failed to leave the group")
        self.reconfiguration.close()
        self.rebalance.close()
        for what, call in (
            ("worker", self.worker.stop),
            ("config store", self.config_store.stop),
            ("status store", self.status_store.stop),
        ):
            try:
                call()
            except Exception:
                log.exception("Failed to stop the %s", what)
        self._stopped.set()

    # -- the tick loop --------------------------------------------------------------------------

    def _tick(self) -> None:
        self._maybe_reclaim_write_privileges()
        if not self._can_read_configs and not self._read_config_to_end():
            return
        if not self._handle_rebalance_completed():
            self._wait(0.1)
            return
        if self.is_leader() and self.sessioned():
            self._maybe_rotate_session_key()
        self._run_due_requests()
        self._process_restart_requests()
        self._process_config_updates()
        self._wait(self._next_wait_s())

    def _next_wait_s(self) -> float:
        now_ms = self.clock.milliseconds()
        waits = [1.0]
        head = self.requests.ms_until_next()
        if head is not None:
            waits.append(head / 1000)
        scheduled = self.assignment.ms_until_scheduled_rebalance()
        if scheduled is not None:
            waits.append(scheduled / 1000)
        key = self._session_key
        if key is not None and self.is_leader() and self.sessioned():
            expiry = key.creation_timestamp_ms + self.config.key_ttl_ms
            waits.append(max(0.0, (expiry - now_ms) / 1000))
        return min(waits)

    def _wait(self, timeout_s: float) -> None:
        self.stage = "waiting for requests, config updates or a rebalance"
        self.clock.wait(self._wake, timeout_s * 1000)
        self._wake.clear()

    def _fresh_config_state(self) -> KafkaClusterConfigState:
        """For the leader's assignor (IO thread): re-read the config topic, new snapshot."""
        self.config_store.refresh(self.config.worker_sync_timeout_ms / 1000)
        return self.config_store.snapshot()

    def _read_config_to_end(self) -> bool:
        self.stage = "reading to the end of the config topic"
        try:
            self.config_store.refresh(self.config.worker_sync_timeout_ms / 1000)
        except Exception as e:
            log.warning("Didn't reach end of config log quickly enough: %s", e)
            self._can_read_configs = False
            if self.member is not None:
                try:
                    self.member.maybe_leave_group("taking too long to read the log")
                except Exception:
                    log.debug("leave group failed", exc_info=True)
            self._stopping.wait(min(self.config.worker_unsync_backoff_ms / 1000, 5.0))
            return False
        fresh = self.config_store.snapshot()
        with self._lock:
            self._config_state = fresh
        self._can_read_configs = True
        log.info("Finished reading to end of log and updated config snapshot, new config log "
                 "offset: %s", fresh.offset)  # fmt: skip
        return True

    # -- rebalances -----------------------------------------------------------------------------

    def _handle_rebalance_completed(self) -> bool:
        """True when the current assignment is applied and requests may run."""
        if self.assignment.due_scheduled_rebalance():
            log.debug("Requesting rebalance because the scheduled rebalance delay has passed")
            self.rejoin("scheduled rebalance")
        if self.assignment.resolved:
            return True
        assignment = self.assignment.assignment
        if assignment is None:
            return False
        self.stage = "handling a completed rebalance"
        verdict = assess_assignment(
            assignment.failed, self.is_leader(), self._config_state.offset, assignment.config_offset
        )
        if verdict.read_to_end and not self._read_config_to_end():
            self.rejoin("could not catch up with the config topic")
            return False
        if verdict.rejoin:
            log.warning("Join group completed, but assignment failed; rejoining")
            self.rejoin("assignment failed")
            return False
        local = self._config_state.offset
        if local != assignment.config_offset:
            log.info("Current config state offset %s does not match group assignment %s. "
                     "Forcing rebalance.", local, assignment.config_offset)  # fmt: skip
            self.rejoin("config offset mismatch")
            return False
        if self.is_leader():
            self._delete_removed_statuses()
            self._claim_write_privileges("after being elected leader during rebalance")
        self.stage = "starting connectors and tasks after a rebalance"
        self.rebalance.apply(assignment.connectors, assignment.tasks)
        generation = self.assignment.resolve(assignment)
        if generation is None:
            return False  # a newer rebalance completed meanwhile; handle it next tick
        revoked = bool(assignment.revoked_connectors or assignment.revoked_tasks)
        protocol = _PROTOCOL_NAMES.get(self.protocol_version(), "sessioned")
        self.rebalance_metrics().rebalance_completed(
            generation, str(assignment.leader), protocol,
            connectors=assignment.connectors, tasks=assignment.tasks,
            leader_url=assignment.leader_url,
        )  # fmt: skip
        if not self._joined:
            self._joined = True
            self.hooks.joined()
            log.info("Worker joined the cluster and is ready")
        if revoked:
            # the freed work is handed out in a follow-up rebalance
            self.rejoin("work was revoked")
            return False
        return True

    # -- exactly-once source (KIP-618) ------------------------------------------------------

    def _preflight(
        self, task_id: ConnectorTaskId, state: KafkaClusterConfigState
    ) -> ExactlyOncePreflight | None:
        """An exactly-once source task's checks (``exactly.once.source.support=enabled``)."""
        if not self.config.exactly_once_source_enabled:
            return None
        if self.hooks.connector_type(state.raw_connector_config(task_id.connector)) != "source":
            return None
        generation = state.task_config_generations.get(task_id.connector, -1)
        return self.fencing.preflight(task_id, generation)

    def _claim_write_privileges(self, when: str) -> None:
        """Leader: the config topic's fencable writer (no-op unless exactly-once source is
        ``preparing`` or ``enabled``); on failure it is tried again every tick."""
        if not self.config_store.uses_fencable_writer:
            return
        self.stage = "claiming write privileges for the config topic"
        try:
            self.config_store.claim_write_privileges()
            self._write_privileges_missing = False
        except Exception as e:
            self._write_privileges_missing = True
            log.error("Unable to claim write privileges for config topic %s: %s", when, e)

    def _maybe_reclaim_write_privileges(self) -> None:
        lost = self._write_privileges_missing or self.config_store.write_privileges_lost
        if not lost:
            return
        if self.is_leader():
            log.debug("Reclaiming write privileges for config topic after being fenced out")
            self._claim_write_privileges("after being fenced out")
        else:
            # fenced out on purpose: another worker leads now
            self.config_store.relinquish_write_privileges()
            self._write_privileges_missing = False
            log.debug("Relinquished write privileges for config topic after being fenced out, "
                      "since worker is no longer the leader of the cluster")  # fmt: skip

    def write_as_leader(self, description: str, write: Callable[[], None]) -> None:
        """A leader-only config-topic write; a fenced writer makes the next tick reclaim."""
        self.stage = description
        write()

    def rejoin(self, reason: str) -> None:
        self.rebalance_metrics().rebalance_started()
        self.assignment.unresolve()
        if self.member is not None:
            self.member.request_rejoin(reason)

    def _delete_removed_statuses(self) -> None:
        """Leader: tombstone statuses of connectors/tasks that no longer exist."""
        state = self.config_store.snapshot()
        for connector in self.status_store.connectors():
            if not state.contains(connector):
                self.hooks.status.on_deletion(connector)
                continue
            for task_id in self.status_store.task_ids_from(connector, state.task_count(connector)):
                self.hooks.status.on_deletion(task_id)

    def _run_due_requests(self) -> None:
        while not self._stopping.is_set():
            if not self.assignment.resolved or self.inbox.rebalance_needed:
                return  # finish the rebalance first; requests stay queued
            request = self.requests.pop_due()
            if request is None:
                return
            self.stage = request.description or "handling a request"
            request.run()

    def _maybe_rotate_session_key(self) -> None:
        if self._session_key is None:
            stored = self.config_store.snapshot().session_key
            with self._lock:
                self._session_key = self._session_key or stored
        new = rotated_session_key(self._session_key, self.config, self.clock.milliseconds())
        if new is None:
            return
        log.info("Distributing a new session key")
        self.stage = "writing a new session key to the config topic"
        try:
            self.config_store.put_session_key(new)
        except Exception as e:
            log.info("Failed to write new session key to config topic (%s); reading to the end "
                     "of the config topic before possibly retrying", e)  # fmt: skip
            self._can_read_configs = False
            return
        self._set_session_key(new)

    # -- config updates and restarts ------------------------------------------------------------

    def _process_config_updates(self) -> None:
        if not self.inbox.has_updates():
            return
        # snapshot outside our lock: the store's log thread holds its lock while it calls
        # the update listener
        fresh = self.config_store.snapshot()
        updates = self.inbox.take_updates()
        with self._lock:
            old, self._config_state = self._config_state, fresh
        state, rebalance = fresh, updates.rebalance
        eager = self.protocol_version() == 0
        self.stage = "applying config updates"
        for name in sorted(updates.connectors):
            if old.contains(name) and not state.contains(name):
                rebalance = True  # removed: the leader revokes its tasks in a rebalance
            if not self.rebalance.owns_connector(name):
                continue
            remains = state.contains(name)
            log.info("Handling connector-only config update by %s connector %s",
                     "restarting" if remains else "stopping", name)  # fmt: skip
            self.work.stop_connector(name)
            if remains:
                self.work.start_connector(name)
        for name in sorted(updates.targets):
            target = state.target_state(name)
            if target is None:
                continue
            self.worker.set_target_state(name, target)
            if target is TargetState.STARTED:
                self.reconfiguration.request(name)
        if updates.tasks and not eager:
            changed = {t.connector for t in updates.tasks}
            self.rebalance.stop_for_reconfiguration(
                t for t in self.rebalance.snapshot().tasks if t.connector in changed
            )
        if rebalance:
            log.debug("Requesting rebalance due to reconfiguration of connectors or tasks")
            self.rejoin("connectors or task configs changed")

    def _process_restart_requests(self) -> None:
        for request in self.inbox.take_restarts():
            self.stage = f"handling restart request for connector {request.connector}"
            try:
                self._do_restart(request)
            except Exception:
                log.warning("Unexpected error while trying to process %s, the restart request "
                            "will be skipped.", request, exc_info=True)  # fmt: skip

    def _do_restart(self, request: RestartRequest) -> None:
        name = request.connector
        status = self.status_store.get_connector(name)
        if status is None:
            log.debug("Skipping restart of connector '%s' since no status is available", name)
            return
        plan = RestartPlan.build(request, status, self.status_store.get_all(name))
        log.info("Executing %s", plan)
        self.hooks.auto_restarter.reset(name)
        self.rebalance.restart(plan, self.hooks.status.on_restart)

    def write_task_configs(self, name: str, raw_configs: list[dict[str, str]]) -> None:
        """Leader, herder thread: write ``name``'s task configs to the config topic."""
        state = self.config_store.snapshot()
        if raw_configs and state.target_state(name) is TargetState.STOPPED:
            raise BadRequestException(
                f"Cannot submit non-empty set of task configs for stopped connector {name}"
            )
        self.stage = (
            f"writing {len(raw_configs)} task configs for connector {name} to the config topic"
        )
        self.config_store.put_task_configs(name, raw_configs)
