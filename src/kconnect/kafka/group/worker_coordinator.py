"""The worker-group coordinator: kafka-python's ``BaseCoordinator`` speaking protocol ``connect``.

Kafka's ``WorkerCoordinator`` on kafka-python 3.0.x. kafka-python runs the group machinery
(FindCoordinator, JoinGroup, SyncGroup, heartbeats, LeaveGroup) as coroutines on the client's
IO thread; this class adds Connect's metadata and assignment handling and hands every listener
call to the thread that calls :meth:`poll` (the member thread), so a slow ``on_revoked`` never
stalls heartbeats.

Threads:
- IO thread (kafka-python): ``group_protocols`` (reads the config offset supplier),
  ``_perform_assignment`` (runs the assign callable: may block while the leader re-reads the
  config topic), the join hooks (they only queue work for the poll thread and await it).
- poll thread (the caller of :meth:`poll`): runs ``on_revoked`` / ``on_assigned``.
- any thread: :meth:`request_rejoin`, :meth:`wakeup`, :meth:`member_id`, read-only accessors.

Callback order per rebalance: eager — ``on_revoked(everything)`` before JoinGroup is sent, then
``on_assigned(assignment)``; incremental — ``on_revoked(revoked items)`` (only if any) then
``on_assigned(assignment augmented with the retained work)``, both after SyncGroup.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from kafka.coordinator.base import BaseCoordinator
from kafka.future import Future
from kafka.net.compat import KafkaNetClient

from kconnect.kafka.clients import outage_log
from kconnect.kafka.clients.client_security import client_security, kafka_python_config
from kconnect.kafka.group.connect_protocol import (
    ConnectProtocolCompatibility,
    ExtendedAssignment,
    WorkerState,
    decode_assignment,
    decode_metadata,
    encode_assignment,
    join_group_protocols,
)

__all__ = ["CoordinatorListener", "WorkerCoordinator"]

log = logging.getLogger(__name__)

AssignFn = Callable[[str, str, Mapping[str, WorkerState]], Mapping[str, ExtendedAssignment]]


class CoordinatorListener(Protocol):
    def on_assigned(self, assignment: ExtendedAssignment, generation: int) -> None: ...

    def on_revoked(self, leader: str | None, connectors: list[str], tasks: list[Any]) -> None: ...


class WorkerCoordinator(BaseCoordinator):  # type: ignore[misc]  # kafka-python is untyped
    """Group membership for one worker. Create, then call :meth:`poll` in a loop; :meth:`close`."""

    def __init__(
        self,
        *,
        bootstrap_servers: str,
        group_id: str,
        rest_url: str,
        compatibility: ConnectProtocolCompatibility,
        config_offset: Callable[[], int],
        assign: AssignFn,
        listener: CoordinatorListener,
        session_timeout_ms: int = 10000,
        heartbeat_interval_ms: int = 3000,
        rebalance_timeout_ms: int = 60000,
        request_timeout_ms: int = 40000,
        retry_backoff_ms: int = 100,
        client_id: str = "",
        task_id: Callable[[str, int], Any] = lambda c, t: (c, t),
        client_configs: Mapping[str, Any] | None = None,
        security_props: Mapping[str, object] | None = None,
    ) -> None:
        """``security_props``: the worker's Java-named client security settings
        (``security.protocol``, ``sasl.*``, ``ssl.*``), translated for kafka-python by
        :mod:`kconnect.kafka.clients.client_security` (raises its ``ClientSecurityError``)."""
        extra = dict(client_configs or {})
        if security_props:
            extra.update(kafka_python_config(client_security(security_props)))
        outage_log.install_for_group_member(bootstrap_servers)
        self._client_obj = KafkaNetClient(
            bootstrap_servers=bootstrap_servers.split(","),
            client_id=client_id or f"connect-{group_id}",
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            **extra,
        )
        self._client_obj._net.start()
        manager = self._client_obj._manager
        if manager.broker_version_data is None:
            manager.bootstrap(request_timeout_ms)
        super().__init__(
            self._client_obj,
            group_id=group_id,
            session_timeout_ms=session_timeout_ms,
            heartbeat_interval_ms=heartbeat_interval_ms,
            # The rebalance timeout is what JoinGroup sends and how long poll() may lag.
            max_poll_interval_ms=rebalance_timeout_ms,
            request_timeout_ms=request_timeout_ms,
            retry_backoff_ms=retry_backoff_ms,
            api_version=manager.broker_version,
        )
        self.rest_url = rest_url
        self.compatibility = compatibility
        self.current_protocol = compatibility
        self._config_offset = config_offset
        self._assign = assign
        self._listener = listener
        self._task_id = task_id
        self.assignment_snapshot: ExtendedAssignment | None = None
        self.last_completed_generation = -1
        self._rejoin_requested = False
        self._calls: queue.Queue[tuple[Callable[[], None], Future]] = queue.Queue()
        self._cond = threading.Condition()
        self._woken = False
        self._driver: Future | None = None
        self._joined_round = False

    # --- BaseCoordinator hooks (IO thread) -------------------------------------------------

    def protocol_type(self) -> str:
        return "connect"

    def group_protocols(self) -> list[tuple[str, bytes]]:
        state = WorkerState(self.rest_url, self._config_offset(), self.assignment_snapshot)
        return join_group_protocols(self.compatibility, state)

    def need_rejoin(self) -> bool:
        return bool(self.rejoin_needed or self._rejoin_requested)

    def request_rejoin(self, reason: str | None = None) -> None:
        if reason:
            log.debug("Request joining group due to: %s", reason)
        self._rejoin_requested = True
        super().request_rejoin()
        self._notify()

    def reset_generation(self, member_id: str = "") -> None:
        super().reset_generation(member_id)
        self._notify()

    async def _on_join_prepare_async(
        self, generation: int, member_id: str, timeout_ms: int | None = None
    ) -> None:
        log.info("Rebalance started")
        snap = self.assignment_snapshot
        if (
            self.current_protocol is ConnectProtocolCompatibility.EAGER
            and snap is not None
            and not snap.failed
        ):
            # Eager: stop everything before joining (on the poll thread; heartbeats go on).
            await self._handoff(
                lambda: self._listener.on_revoked(
                    snap.leader, list(snap.connectors), list(snap.tasks)
                )
            )

    def _perform_assignment(
        self, leader_id: str, protocol: str, members: list[Any]
    ) -> dict[str, bytes]:
        states = {m.member_id: decode_metadata(bytes(m.metadata), self._task_id) for m in members}
        result = self._assign(leader_id, protocol, states)
        version = ConnectProtocolCompatibility.from_protocol(protocol).protocol_version
        return {m: encode_assignment(a, version) for m, a in result.items()}

    async def _on_join_complete_async(
        self, generation: int, member_id: str, protocol: str, member_assignment_bytes: bytes
    ) -> None:
        new = decode_assignment(bytes(member_assignment_bytes), self._task_id)
        self.current_protocol = ConnectProtocolCompatibility.from_protocol(protocol)
        self._rejoin_requested = False
        revoke = None
        if self.current_protocol is not ConnectProtocolCompatibility.EAGER:
            if new.revoked_connectors or new.revoked_tasks:
                revoke = (new.leader, list(new.revoked_connectors), list(new.revoked_tasks))
            old = self.assignment_snapshot
            if old is not None:
                gone_c = set(new.revoked_connectors)
                gone_t = set(new.revoked_tasks)
                new.connectors += [c for c in old.connectors if c not in gone_c]
                new.tasks += [t for t in old.tasks if t not in gone_t]
        self.assignment_snapshot = new
        self.last_completed_generation = generation
        listener = self._listener

        def deliver() -> None:
            if revoke is not None:
                listener.on_revoked(*revoke)
            listener.on_assigned(new, generation)

        self._joined_round = True
        await self._handoff(deliver)

    # --- hand-off to the poll thread --------------------------------------------------------

    async def _handoff(self, fn: Callable[[], None]) -> None:
        fut = Future()
        self._calls.put((fn, fut))
        self._notify()
        await fut

    def _run_calls(self) -> None:
        while True:
            try:
                fn, fut = self._calls.get_nowait()
            except queue.Empty:
                return
            error: BaseException | None = None
            try:
                fn()
            except Exception as e:  # the listener failed: log, do not kill the group loop
                log.exception("Rebalance listener failed")
                error = e
            net = self._client_obj._net
            if error is None:
                net.call_soon_threadsafe(lambda f=fut: f.success(None))
            else:
                net.call_soon_threadsafe(lambda f=fut: f.success(None))

    def _notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    # --- the poll loop (member thread) ------------------------------------------------------

    def wakeup(self) -> None:
        """Make a blocked :meth:`poll` return soon (any thread)."""
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def poll(self, timeout_ms: float) -> None:
        """Keep membership and deliver listener calls for up to ``timeout_ms``.

        Starts a (re)join when one is needed (first join, rejoin requested, kicked out of the
        group); returns early after a join completed (its callbacks delivered) or on
        :meth:`wakeup`. Exceptions from the group machinery are logged and retried.
        """
        deadline = time.monotonic() + timeout_ms / 1000.0
        try:
            self.poll_heartbeat()
        except Exception as e:  # the heartbeat loop died; ensure_active_group restarts it
            log.warning("Heartbeat loop failed, will restart it: %s", e)
        while True:
            snap = self.assignment_snapshot
            if self._driver is None and (
                self.need_rejoin() or snap is None or self.coordinator_unknown()
            ):
                self._driver = self._manager.call_soon(self.ensure_active_group_async, None)
            self._run_calls()
            driver = self._driver
            if driver is not None and driver.is_done:
                self._driver = None
                self._run_calls()
                if driver.failed():
                    log.warning("Joining group %s failed, will retry: %s", self.group_id,
                                driver.exception)  # fmt: skip
                    time.sleep(self.config["retry_backoff_ms"] / 1000.0)
                elif self._joined_round:
                    self._joined_round = False
                    return
            remaining = deadline - time.monotonic()
            with self._cond:
                if self._woken:
                    self._woken = False
                    return
                if remaining <= 0:
                    return
                if self._calls.empty() and not (driver is not None and driver.is_done):
                    self._cond.wait(min(remaining, 0.05))

    def member_id(self) -> str:
        gen = self.generation_if_stable()
        return gen.member_id if gen is not None else ""

    def generation_id(self) -> int:
        return int(self._generation.generation_id)

    def close(self, timeout_ms: int | None = 5000) -> None:
        """Leave the group (a clean LeaveGroup) and stop the IO thread."""
        try:
            super().close(timeout_ms=timeout_ms)
        finally:
            self._client_obj._net.stop(timeout_ms)
            self._client_obj.close()

    def kill(self) -> None:
        """Stop without LeaveGroup (tests: a crashed worker)."""
        self._close_heartbeat()
        self._client_obj._net.stop(1000)
        self._client_obj.close()
