"""``DistributedHerder``: a worker in a Connect cluster (Kafka's ``DistributedHerder``, split).

One *herder thread* does all the real work, one :meth:`_tick` at a time:

1. catch up with the config topic when an earlier read failed;
2. resolve a completed rebalance (read to the assignment's config offset or rejoin, then
   start the assigned work through :class:`~kconnect.runtime.herder.rebalance_handler.
   RebalanceHandler`; rejoin after revocations or when the leader scheduled a delay);
3. as leader under the ``sessioned`` protocol, distribute/rotate the session key;
4. run queued requests (:class:`~kconnect.runtime.herder.request_queue.HerderRequestQueue`) —
   REST writes, restarts, task reconfigurations. Requests wait while a rebalance is unresolved
   instead of failing with 409, and run once the assignment is applied;
5. process KIP-745 restart requests read from the config topic;
6. apply config-topic updates: bounce reconfigured connectors this worker owns, propagate
   target states, stop tasks whose configs changed, request a rebalance when connectors or
   task sets were added/removed;
7. wait for a wakeup (a new request, a config update, an assignment) or the next due time.

Other threads: REST threads call the :class:`~kconnect.runtime.herder.herder.Herder` methods (in
:mod:`kconnect.runtime.herder.distributed_herder_api`), which queue work and wait for its future;
the config store's log thread calls the update listener; the group member's thread calls the
rebalance listener (``on_revoked`` stops revoked work synchronously, as Kafka requires, before
the member rejoins); connector/task threads report statuses (the herder writes them to the
Kafka status store with the current generation, see :mod:`kconnect.runtime.herder.herder_status`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.herder.distributed_herder_api import DistributedHerderApi
from kconnect.runtime.herder.rebalance_handler import RebalanceHandler, assess_assignment, task_ids
from kconnect.runtime.herder.request_queue import HerderRequestQueue
from kconnect.runtime.herder.session_keys import KeyMaterial, generate_key, key_needs_rotation
from kconnect.runtime.herder.task_reconfiguration import (
    LeaderTaskConfigClient,
    task_configs_changed,
)
from kconnect.runtime.storage.config_store import ClusterConfigState
from kconnect.runtime.storage.kafka_config_store import (
    ConfigUpdateListener,
    KafkaConfigBackingStore,
    SessionKey,
)
from kconnect.runtime.storage.status_store import StatusBackingStore

__all__ = ["DistributedHerder"]

log = logging.getLogger(__name__)

RECONFIGURE_BACKOFF_INITIAL_MS = 250
RECONFIGURE_BACKOFF_MAX_MS = 60_000
PROTOCOL_V2 = 2  # sessioned: internal requests are signed


def key_material(key: Any) -> KeyMaterial | None:
    """The config store's session key object as :class:`KeyMaterial` (None passes through)."""
    if key is None or isinstance(key, KeyMaterial):
        return key
    raw = getattr(key, "key", None)
    if isinstance(raw, str):
        import base64

        raw = base64.b64decode(raw)
    algorithm = getattr(key, "algorithm", None) or "HmacSHA256"
    created = getattr(key, "creation_timestamp_ms", None)
    created_ms = int(created if created is not None else getattr(key, "creation_timestamp", 0))
    return KeyMaterial(bytes(raw or b""), str(algorithm), created_ms)


class DistributedHerder(DistributedHerderApi):
    """The herder of ``kconnect distributed``; see the module docstring.

    ``member_factory(config, rest_url, config_state_supplier, listener)`` builds the group
    member (G's :class:`~kconnect.runtime.herder.group_member.WorkerGroupMember` by default);
    tests inject their own.
    """

    def __init__(
        self,
        config: Any,
        worker: Any,
        plugins: Any,
        config_store: KafkaConfigBackingStore,
        status_store: StatusBackingStore,
        *,
        member_factory: Callable[..., Any] | None = None,
        config_transformer: ConfigTransformer | None = None,
        kafka_cluster_id: str | None = None,
        request_timeout_s: float = 90.0,
        health_timeout_s: float = 10.0,
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
        self._request_timeout_s = request_timeout_s
        self._member_factory = member_factory
        self.rest_url = str(config.advertised_url())
        self._worker_id = str(config.worker_id())
        self.member: Any = None

        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._requests = HerderRequestQueue(self._wakeup)
        self._rebalance = RebalanceHandler(
            self._start_connector, self._start_task_safely, self._stop_connector, self._stop_tasks
        )
        self._leader_client = LeaderTaskConfigClient(request_timeout_s)

        self._config_state: ClusterConfigState = ClusterConfigState()
        self._assignment: Any = None
        self._assigned_member_id = ""
        self._generation = -1
        self._rebalance_resolved = False
        self._needs_reconfig_rebalance = False
        self._scheduled_rebalance_ms: float | None = None
        self._can_read_configs = True
        self._connector_updates: set[str] = set()
        self._task_updates: set[ConnectorTaskId] = set()
        self._target_changes: set[str] = set()
        self._pending_restarts: dict[str, RestartRequest] = {}
        self._session_key: KeyMaterial | None = None
        self._reconfigure_backoff: dict[str, int] = {}

        self._stage = "starting up"
        self._stage_since = time.time()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    # -- small helpers ------------------------------------------------------------------------

    def _wakeup(self) -> None:
        self._wake.set()
        wake = getattr(self.member, "wakeup", None)
        if callable(wake):
            wake()

    def _set_stage(self, description: str) -> None:
        self._stage = description
        self._stage_since = time.time()

    def _protocol_version(self) -> int:
        if self.member is None:
            return 0
        try:
            return int(self.member.current_protocol_version())
        except Exception:
            return 0

    def _sessioned(self) -> bool:
        return self._protocol_version() >= PROTOCOL_V2

    def _is_leader(self) -> bool:
        # the member id recorded with the assignment: the coordinator's own may be blank
        # for a moment while it rejoins, and leadership only changes with an assignment
        a = self._assignment
        return (
            a is not None
            and bool(self._assigned_member_id)
            and a.leader == self._assigned_member_id
        )

    def _leader_url(self) -> str | None:
        a = self._assignment
        return None if a is None else (a.leader_url or None)

    def _owner_url(self, item: str | ConnectorTaskId) -> str | None:
        try:
            return self.member.owner_url(item)  # type: ignore[no-any-return]
        except Exception:
            return None

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start worker, stores and group member, then the herder thread (returns at once;
        ``/health`` reports ready after the first assignment is applied)."""
        log.info("Herder starting")
        self.worker.start()
        self.status_store.start()
        self.config_store.set_update_listener(_ConfigUpdates(self))
        self.config_store.start()
        self._config_state = self.config_store.snapshot()
        self._session_key = key_material(getattr(self._config_state, "session_key", None))
        if self._member_factory is not None:
            self.member = self._member_factory(
                self.config, self.rest_url, lambda: self._config_state, _RebalanceEvents(self)
            )
        else:
            from kconnect.runtime.herder.group_member import WorkerGroupMember

            self.member = WorkerGroupMember(
                self.config,
                self.rest_url,
                lambda: self._config_state,
                _RebalanceEvents(self),
                fresh_config_state_supplier=self._fresh_config_state,
            )
        self.member.start()
        self._thread = threading.Thread(target=self._run, name="herder", daemon=True)
        self._thread.start()
        log.info("Herder started")

    def stop(self) -> None:
        """Stop work, leave the group and stop the stores; idempotent, waits for the thread."""
        if self._stopping.is_set():
            self._stopped.wait(60)
            return
        log.info("Herder stopping")
        self._stopping.set()
        self._wakeup()
        if self._thread is not None:
            self._thread.join(timeout=120)
        else:
            self._halt()
        log.info("Herder stopped")

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
        self._set_stage("shutting down")
        self._requests.close(ConnectException("The worker is shutting down"))
        try:
            running = self._rebalance.snapshot()
            self._rebalance.revoke(running.connectors, running.tasks)
        except Exception:
            log.exception("Failed to stop connectors and tasks")
        if self.member is not None:
            try:
                self.member.stop()  # leaves the group so the others rebalance at once
            except Exception:
                log.exception("Failed to leave the group")
        self._leader_client.close()
        self._rebalance.close()
        for what, call in (
            ("worker", self.worker.stop),
            ("config store", self.config_store.stop),
            ("status store", self.status_store.stop),
        ):
            try:
                call()
            except Exception:
                log.exception("Failed to stop the %s", what)
        if self._transformer is not None:
            self._transformer.close()
        self._stopped.set()

    # -- the tick loop ------------------------------------------------------------------------

    def _tick(self) -> None:
        if not self._can_read_configs and not self._read_config_to_end():
            return
        if not self._handle_rebalance_completed():
            self._wait(0.1)
            return
        now_ms = time.time() * 1000
        if self._is_leader() and self._sessioned():
            self._maybe_rotate_session_key(int(now_ms))
        self._run_due_requests()
        self._process_restart_requests()
        self._process_config_updates()
        self._wait(self._next_wait_s())

    def _next_wait_s(self) -> float:
        waits = [1.0]
        head = self._requests.ms_until_next()
        if head is not None:
            waits.append(head / 1000)
        if self._scheduled_rebalance_ms is not None:
            waits.append(max(0.0, (self._scheduled_rebalance_ms - time.time() * 1000) / 1000))
        key = self._session_key
        if key is not None and self._is_leader() and self._sessioned():
            expiry = key.creation_timestamp_ms + self.config.key_ttl_ms
            waits.append(max(0.0, (expiry - time.time() * 1000) / 1000))
        return min(waits)

    def _wait(self, timeout_s: float) -> None:
        self._set_stage("waiting for requests, config updates or a rebalance")
        poll = getattr(self.member, "poll", None)
        if callable(poll) and not getattr(self.member, "runs_own_thread", True):
            poll(timeout_s)
        else:
            self._wake.wait(timeout_s)
        self._wake.clear()

    def _fresh_config_state(self) -> ClusterConfigState:
        """For the leader's assignor (IO thread): re-read the config topic, new snapshot."""
        self.config_store.refresh(self.config.worker_sync_timeout_ms / 1000)
        return self.config_store.snapshot()

    def _read_config_to_end(self) -> bool:
        timeout_s = self.config.worker_sync_timeout_ms / 1000
        self._set_stage("reading to the end of the config topic")
        try:
            self.config_store.refresh(timeout_s)
        except Exception as e:
            log.warning("Didn't reach end of config log quickly enough: %s", e)
            self._can_read_configs = False
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
                 "offset: %s", getattr(self._config_state, "offset", None))  # fmt: skip
        return True

    def _handle_rebalance_completed(self) -> bool:
        """True when the current assignment is applied and requests may run."""
        now_ms = time.time() * 1000
        if self._scheduled_rebalance_ms is not None and self._scheduled_rebalance_ms <= now_ms:
            log.debug("Requesting rebalance because the scheduled rebalance delay has passed")
            self._scheduled_rebalance_ms = None
            self._rejoin("scheduled rebalance")
        with self._lock:
            if self._rebalance_resolved:
                return True
            assignment = self._assignment
        if assignment is None:
            return False
        self._set_stage("handling a completed rebalance")
        local = int(getattr(self._config_state, "offset", -1))
        verdict = assess_assignment(
            assignment.failed, self._is_leader(), local, assignment.config_offset
        )
        if verdict.read_to_end and not self._read_config_to_end():
            self._rejoin("could not catch up with the config topic")
            return False
        if verdict.rejoin:
            log.warning("Join group completed, but assignment failed; rejoining")
            self._rejoin("assignment failed")
            return False
        local = int(getattr(self._config_state, "offset", -1))
        if local != assignment.config_offset:
            log.info("Current config state offset %s does not match group assignment %s. "
                     "Forcing rebalance.", local, assignment.config_offset)  # fmt: skip
            self._rejoin("config offset mismatch")
            return False
        if self._is_leader():
            self._delete_removed_statuses()
        self._set_stage("starting connectors and tasks after a rebalance")
        self._rebalance.apply(assignment.connectors, assignment.tasks)
        with self._lock:
            if self._assignment is not assignment:
                return False  # a newer rebalance completed meanwhile; handle it next tick
            self._rebalance_resolved = True
            revoked = bool(assignment.revoked_connectors or assignment.revoked_tasks)
            generation = self._generation
        self._rebalance_metrics_completed(generation, assignment)
        if not self._ready:
            self._ready = True
            log.info("Worker joined the cluster and is ready")
        if revoked:
            # the freed work is handed out in a follow-up rebalance
            self._rejoin("work was revoked")
            return False
        return True

    def _rebalance_metrics(self) -> Any:
        metrics = getattr(self.worker, "metrics", None)
        return getattr(metrics, "rebalance", None)

    def _rebalance_metrics_started(self) -> None:
        rebalance = self._rebalance_metrics()
        if rebalance is not None:
            rebalance.rebalance_started()

    def _rebalance_metrics_completed(self, generation: int, assignment: Any) -> None:
        rebalance = self._rebalance_metrics()
        if rebalance is not None:
            protocol = _PROTOCOL_NAMES.get(self._protocol_version(), "sessioned")
            rebalance.rebalance_completed(generation, str(assignment.leader), protocol)

    def _rejoin(self, reason: str) -> None:
        self._rebalance_metrics_started()
        with self._lock:
            self._rebalance_resolved = False
        try:
            self.member.request_rejoin(reason)
        except TypeError:
            self.member.request_rejoin()

    def _delete_removed_statuses(self) -> None:
        """Leader: tombstone statuses of connectors/tasks that no longer exist."""
        state = self.config_store.snapshot()
        for connector in self.status_store.connectors():
            if not state.contains(connector):
                self.on_deletion(connector)
                continue
            remaining = set(state.tasks(connector))
            for status in self.status_store.get_all(connector):
                if status.id not in remaining:
                    self.on_deletion(status.id)

    def _run_due_requests(self) -> None:
        while not self._stopping.is_set():
            with self._lock:
                if not self._rebalance_resolved or self._needs_reconfig_rebalance:
                    return  # finish the rebalance first; requests stay queued
            request = self._requests.pop_due()
            if request is None:
                return
            self._set_stage(request.description or "handling a request")
            request.run()

    # -- session keys -------------------------------------------------------------------------

    def _maybe_rotate_session_key(self, now_ms: int) -> None:
        if self._session_key is None:
            stored = key_material(getattr(self.config_store.snapshot(), "session_key", None))
            with self._lock:
                self._session_key = self._session_key or stored
        current = self._session_key
        algorithm = self.config.key_generation_algorithm
        size_bits = self._worker_setting("inter.worker.key.size", None)
        size = int(size_bits) if isinstance(size_bits, int) else None
        if not key_needs_rotation(current, now_ms, self.config.key_ttl_ms, algorithm, size):
            return
        log.info("Distributing a new session key")
        new = generate_key(algorithm, size, now_ms)
        self._set_stage("writing a new session key to the config topic")
        try:
            self.config_store.put_session_key(
                SessionKey(new.key, new.algorithm, new.creation_timestamp_ms)
            )
        except Exception as e:
            log.info("Failed to write new session key to config topic (%s); reading to the end "
                     "of the config topic before possibly retrying", e)  # fmt: skip
            self._can_read_configs = False
            return
        with self._lock:
            self._session_key = new

    # -- config updates -----------------------------------------------------------------------

    def _process_config_updates(self) -> None:
        with self._lock:
            if not (
                self._needs_reconfig_rebalance
                or self._connector_updates
                or self._task_updates
                or self._target_changes
            ):
                return
        # snapshot outside our lock: the store's log thread holds its lock while it calls
        # the update listener, which takes ours
        fresh = self.config_store.snapshot()
        with self._lock:
            old, self._config_state = self._config_state, fresh
            state = fresh
            rebalance = self._needs_reconfig_rebalance
            self._needs_reconfig_rebalance = False
            conns, self._connector_updates = self._connector_updates, set()
            tasks, self._task_updates = self._task_updates, set()
            targets, self._target_changes = self._target_changes, set()
        eager = self._protocol_version() == 0
        self._set_stage("applying config updates")
        for name in sorted(conns):
            if old.contains(name) and not state.contains(name):
                rebalance = True  # removed: the leader revokes its tasks in a rebalance
            if not self._rebalance.owns_connector(name):
                continue
            remains = state.contains(name)
            log.info("Handling connector-only config update by %s connector %s",
                     "restarting" if remains else "stopping", name)  # fmt: skip
            self._stop_connector(name)
            if remains:
                self._start_connector(name)
        for name in sorted(targets):
            target = state.target_state(name)
            if target is None:
                continue
            self.worker.set_target_state(name, target)
            if target is TargetState.STARTED:
                self._request_reconfiguration(name)
        if tasks and not eager:
            self._rebalance.stop_for_reconfiguration(
                t
                for t in self._rebalance.snapshot().tasks
                if t.connector in {x.connector for x in tasks}
            )
        if rebalance:
            log.debug("Requesting rebalance due to reconfiguration of connectors or tasks")
            self._rejoin("connectors or task configs changed")

    # -- restarts (KIP-745) -------------------------------------------------------------------

    def _process_restart_requests(self) -> None:
        with self._lock:
            if not self._pending_restarts:
                return
            requests = list(self._pending_restarts.values())
            self._pending_restarts.clear()
        for request in requests:
            self._set_stage(f"handling restart request for connector {request.connector}")
            try:
                self._do_restart(request)
            except Exception:
                log.warning("Unexpected error while trying to process %s, the restart request "
                            "will be skipped.", request, exc_info=True)  # fmt: skip

    def _do_restart(self, request: RestartRequest) -> None:
        from kconnect.runtime.common.restart import RestartPlan

        name = request.connector
        status = self.status_store.get_connector(name)
        if status is None:
            log.debug("Skipping restart of connector '%s' since no status is available", name)
            return
        plan = RestartPlan.build(request, status, self.status_store.get_all(name))
        log.info("Executing %s", plan)
        tasks = [t for t in plan.task_ids_to_restart if self._rebalance.owns_task(t)]
        connector = plan.restart_connector and self._rebalance.owns_connector(name)
        if connector:
            self._stop_connector(name)
            self.on_restart(name)
        if tasks:
            self.worker.stop_and_await_tasks(tasks)
            for t in tasks:
                self.on_restart(t)
        if connector:
            self._start_connector(name)
        for t in tasks:
            self._start_task_safely(t)

    # -- starting and stopping work -----------------------------------------------------------

    def _start_connector(self, name: str) -> None:
        state = self.config_store.snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            log.warning("Not starting connector %s: it has no config (deleted?)", name)
            return
        target = state.target_state(name) or TargetState.STARTED
        log.info("Starting connector %s", name)
        try:
            props = self._resolved(raw)
        except Exception as e:
            self.on_failure(name, e)
            return
        self.worker.start_connector(name, props, self, target, self._request_reconfiguration)

    def _start_task_safely(self, task_id: ConnectorTaskId) -> None:
        try:
            self._start_task(task_id)
        except Exception as e:
            log.error("Couldn't instantiate task %s because it has an invalid task "
                      "configuration. This task will not execute until reconfigured.",
                      task_id, exc_info=e)  # fmt: skip
            self.on_failure(task_id, e)

    def _start_task(self, task_id: ConnectorTaskId) -> bool:
        state = self.config_store.snapshot()
        raw = state.raw_connector_config(task_id.connector)
        task_raw = state.raw_task_config(task_id)
        if raw is None or task_raw is None:
            log.warning("Not starting task %s: its config is gone", task_id)
            return False
        target = state.target_state(task_id.connector) or TargetState.STARTED
        log.info("Starting task %s", task_id)
        return bool(
            self.worker.start_task(
                task_id, self._resolved(raw), self._resolved(task_raw), self, target
            )
        )

    def _stop_connector(self, name: str) -> None:
        self.worker.stop_and_await_connector(name)

    def _stop_tasks(self, ids: list[ConnectorTaskId]) -> None:
        self.worker.stop_and_await_tasks(ids)

    # -- task reconfiguration -----------------------------------------------------------------

    def _request_reconfiguration(self, name: str) -> None:
        """Queue a task-config refresh for ``name`` (any thread)."""
        if not self._stopping.is_set():
            self._requests.submit(
                lambda: self._reconfigure(name),
                description=f"generating task configs for connector {name}",
            )

    def request_task_reconfiguration(self, name: str) -> None:
        self._request_reconfiguration(name)

    def _reconfigure(self, name: str) -> None:
        """On the herder thread: generate task configs; leader writes, follower forwards."""
        state = self.config_store.snapshot()
        raw = state.raw_connector_config(name)
        if raw is None or not self.worker.is_running(name):
            log.info("Skipping reconfiguration of connector %s since it is not running", name)
            return
        if state.target_state(name) is not TargetState.STARTED:
            log.info("Skipping reconfiguration of connector %s since its target state is %s",
                     name, state.target_state(name))  # fmt: skip
            return
        from kconnect.runtime.config.config_transformer import reverse_transform

        try:
            configs = self.worker.connector_task_configs(name, self._resolved(raw))
        except Exception as e:
            log.error("Connector %s failed to generate task configs: %s", name, e)
            self._retry_reconfiguration(name)
            return
        raw_configs = reverse_transform(raw, [dict(c) for c in configs])
        if not task_configs_changed(state, name, raw_configs):
            self._reconfigure_backoff.pop(name, None)
            return
        if self._is_leader():
            self._write_task_configs(name, raw_configs)
            self._reconfigure_backoff.pop(name, None)
            return
        key = self._session_key if self._sessioned() else None
        future = self._leader_client.submit(
            self._leader_url(), name, raw_configs, key, self.config.signature_algorithm
        )

        def done(f: Any) -> None:
            error = f.exception()
            if error is None:
                self._reconfigure_backoff.pop(name, None)
            else:
                log.error("Request to leader to reconfigure connector tasks failed: %s", error)
                self._retry_reconfiguration(name)

        future.add_done_callback(done)

    def _retry_reconfiguration(self, name: str) -> None:
        delay = self._reconfigure_backoff.get(name, RECONFIGURE_BACKOFF_INITIAL_MS // 2) * 2
        delay = min(delay, RECONFIGURE_BACKOFF_MAX_MS)
        self._reconfigure_backoff[name] = delay
        if not self._stopping.is_set():
            self._requests.submit(
                lambda: self._reconfigure(name),
                delay_ms=delay,
                description=f"retrying task config generation for connector {name}",
            )

    def _write_task_configs(self, name: str, raw_configs: list[dict[str, str]]) -> None:
        from kconnect.runtime.common.rest_errors import BadRequestException

        state = self.config_store.snapshot()
        if raw_configs and state.target_state(name) is TargetState.STOPPED:
            raise BadRequestException(
                f"Cannot submit non-empty set of task configs for stopped connector {name}"
            )
        self._set_stage(
            f"writing {len(raw_configs)} task configs for connector {name} to the config topic"
        )
        self.config_store.put_task_configs(name, raw_configs)

    # -- StatusListener (connector/task threads) ----------------------------------------------

    def _status_generation(self) -> int:
        return max(self._generation, 0)

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        super().on_startup(key)
        if not isinstance(key, ConnectorTaskId):
            self._request_reconfiguration(key)  # a running connector generates task configs

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        super().on_resume(key)
        if not isinstance(key, ConnectorTaskId):
            self._request_reconfiguration(key)


class _ConfigUpdates(ConfigUpdateListener):
    """The config store's update listener: records what changed and wakes the herder.

    Called on the config log's thread; only bookkeeping under the herder's lock.
    """

    def __init__(self, herder: DistributedHerder) -> None:
        self.h = herder

    def on_connector_config_update(self, name: str) -> None:
        log.info("Connector %s config updated", name)
        h = self.h
        with h._lock:
            if h._config_state.contains(name):
                h._connector_updates.add(name)  # bounce it (or stop it, if it was removed)
            else:
                h._needs_reconfig_rebalance = True  # a new connector needs an owner
        h._wakeup()

    def on_connector_config_remove(self, name: str) -> None:
        self.on_connector_config_update(name)

    def on_task_config_update(self, task_ids_: Any) -> None:
        ids = task_ids(task_ids_)
        log.info("Tasks %s configs updated", sorted(str(t) for t in ids))
        h = self.h
        with h._lock:
            h._needs_reconfig_rebalance = True
            h._task_updates.update(ids)
        h._wakeup()

    def on_connector_target_state_change(self, name: str) -> None:
        log.info("Connector %s target state change", name)
        h = self.h
        with h._lock:
            h._target_changes.add(name)
        h._wakeup()

    def on_session_key_update(self, key: Any) -> None:
        log.info("Session key updated")
        with self.h._lock:
            self.h._session_key = key_material(key)

    def on_restart_request(self, request: RestartRequest) -> None:
        log.info("Received and enqueuing %s", request)
        h = self.h
        with h._lock:
            existing = h._pending_restarts.get(request.connector)
            if existing is None or request.impact() > existing.impact():
                h._pending_restarts[request.connector] = request
        h._wakeup()

    def on_logger_level(self, namespace: str, level: str) -> None:
        try:
            self.h.loggers.set_level(namespace, level)
        except Exception:
            log.warning("Ignoring invalid cluster logger level %s=%s", namespace, level)


#: Connect protocol version -> the protocol name connect-worker-rebalance-metrics reports.
_PROTOCOL_NAMES = {0: "eager", 1: "compatible", 2: "sessioned"}


class _RebalanceEvents:
    """The group member's rebalance listener (called on the member's thread)."""

    def __init__(self, herder: DistributedHerder) -> None:
        self.h = herder

    def on_assigned(self, assignment: Any, generation: int) -> None:
        h = self.h
        log.info("Joined group at generation %d with protocol version %d and got assignment: "
                 "leader=%s connectors=%s tasks=%s revoked=%s/%s delay=%d", generation,
                 h._protocol_version(), assignment.leader, sorted(assignment.connectors),
                 sorted(str(ConnectorTaskId(*t)) for t in assignment.tasks),
                 assignment.revoked_connectors, [str(ConnectorTaskId(*t)) for t in
                                                 assignment.revoked_tasks],
                 assignment.delay)  # fmt: skip
        member_id = h.member.member_id() if h.member is not None else ""
        with h._lock:
            h._assignment = assignment
            h._assigned_member_id = member_id
            h._generation = generation
            h._rebalance_resolved = False
            h._scheduled_rebalance_ms = (
                time.time() * 1000 + assignment.delay if assignment.delay > 0 else None
            )
        h._wakeup()

    def on_revoked(self, leader: Any, connectors: Any, tasks: Any) -> None:
        h = self.h
        conns = list(connectors)
        ids = task_ids(tasks)
        log.info("Rebalance: stopping %d revoked connector(s) and %d task(s)", len(conns), len(ids))
        h._rebalance_metrics_started()
        h._rebalance.revoke(conns, ids)
        flush = getattr(h.status_store, "flush", None)
        if callable(flush):
            try:
                flush()
            except Exception:
                log.warning("Flushing the status store before rebalancing failed", exc_info=True)
