"""The herder's view of group membership (Kafka's ``WorkerGroupMember``).

``WorkerGroupMember`` owns a :class:`~kconnect.kafka.group.worker_coordinator.WorkerCoordinator` and a
member thread that polls it. The leader runs the assignor for the negotiated protocol (eager or
incremental cooperative) over the config snapshot. The listener is called on the member thread:

- ``on_revoked(leader, connectors, tasks)``: stop these now; eager calls it with everything
  before rejoining, incremental with the revoked items after SyncGroup (then the herder should
  :meth:`request_rejoin` once they are stopped, as Kafka's herder does);
- ``on_assigned(assignment, generation)``: the full current assignment (incremental: already
  augmented with retained work). ``assignment.error == CONFIG_MISMATCH`` means read the config
  topic to ``assignment.config_offset`` and :meth:`request_rejoin`; ``assignment.delay > 0``
  means rejoin after that many ms (the herder schedules it).

Listeners may block (heartbeats continue on kafka-python's IO thread) but not longer than
``rebalance.timeout.ms``. Every public method is thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from kconnect.kafka.group.connect_protocol import (
    ConnectProtocolCompatibility,
    ExtendedAssignment,
    WorkerState,
)
from kconnect.kafka.group.worker_coordinator import WorkerCoordinator
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.herder.assignors import (
    EagerAssignor,
    IncrementalCooperativeAssignor,
    LeaderState,
    config_offset,
)

__all__ = ["RebalanceListener", "WorkerGroupMember"]

log = logging.getLogger(__name__)


class RebalanceListener(Protocol):
    def on_assigned(self, assignment: ExtendedAssignment, generation: int) -> None: ...

    def on_revoked(
        self, leader: str | None, connectors: list[str], tasks: list[ConnectorTaskId]
    ) -> None: ...


def _get(config: Any, key: str, default: Any) -> Any:
    try:
        value = config.get(key)
    except Exception:
        return default
    return default if value is None else value


def _security_props(config: Any) -> dict[str, object]:
    """The worker-level client security settings the group member connects with (as the
    worker's internal clients: top-level ``security.protocol``, ``sasl.*``, ``ssl.*``)."""
    props = getattr(config, "internal_client_props", None)
    if props is None:
        return {}
    return {
        k: v
        for k, v in props().items()
        if k == "security.protocol" or k.startswith(("sasl.", "ssl."))
    }


#: Worker client settings the group member's kafka-python client takes, Java name -> its name.
_NETWORK_SETTINGS = {
    "reconnect.backoff.ms": "reconnect_backoff_ms",
    "reconnect.backoff.max.ms": "reconnect_backoff_max_ms",
    "metadata.max.age.ms": "metadata_max_age_ms",
    "connections.max.idle.ms": "connections_max_idle_ms",
    "socket.connection.setup.timeout.ms": "socket_connection_setup_timeout_ms",
}


def _network_settings(config: Any) -> dict[str, int]:
    """The worker's network settings the group member uses too, as Java's WorkerGroupMember
    does (only those set in the worker file; kafka-python's defaults are Java's)."""
    props = getattr(config, "internal_client_props", None)
    if props is None:
        return {}
    given = props()
    out: dict[str, int] = {}
    for key, name in _NETWORK_SETTINGS.items():
        if key in given:
            try:
                out[name] = int(str(given[key]))
            except ValueError:
                continue  # the worker config validated it; a non-number cannot reach here
    return out


class WorkerGroupMember:
    """Membership of ``group.id``; start() spawns the member thread, stop() leaves the group."""

    runs_own_thread = True

    def __init__(
        self,
        config: Any,
        rest_url: str,
        config_state_supplier: Callable[[], Any],
        listener: RebalanceListener,
        clock: Clock | None = None,
        *,
        fresh_config_state_supplier: Callable[[], Any] | None = None,
    ) -> None:
        """``fresh_config_state_supplier`` (optional) re-reads the config topic and returns the
        new snapshot; the leader calls it (on the IO thread) when a member is ahead of it."""
        self._config = config
        self._rest_url = rest_url
        self._supplier = config_state_supplier
        self._fresh = fresh_config_state_supplier
        self._listener = listener
        self._clock = clock or SystemClock()
        self._compat = ConnectProtocolCompatibility.for_name(
            str(_get(config, "connect.protocol", "sessioned"))
        )
        self._eager = EagerAssignor()
        self._incremental = IncrementalCooperativeAssignor(
            int(_get(config, "scheduled.rebalance.max.delay.ms", 300000)), self._clock
        )
        self._leader_state: LeaderState | None = None
        self._coordinator: WorkerCoordinator | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect to the cluster and start the member thread (returns once connected)."""
        cfg = self._config
        bootstrap = getattr(cfg, "bootstrap_servers", None) or ",".join(
            _get(cfg, "bootstrap.servers", ["localhost:9092"])
        )
        self._coordinator = WorkerCoordinator(
            bootstrap_servers=str(bootstrap),
            group_id=str(_get(cfg, "group.id", "connect-cluster")),
            rest_url=self._rest_url,
            compatibility=self._compat,
            config_offset=lambda: config_offset(self._supplier()),
            assign=self._assign,
            listener=self._listener,
            session_timeout_ms=int(_get(cfg, "session.timeout.ms", 10000)),
            heartbeat_interval_ms=int(_get(cfg, "heartbeat.interval.ms", 3000)),
            rebalance_timeout_ms=int(_get(cfg, "rebalance.timeout.ms", 60000)),
            request_timeout_ms=int(_get(cfg, "request.timeout.ms", 40000)),
            retry_backoff_ms=int(_get(cfg, "retry.backoff.ms", 100)),
            client_id=str(_get(cfg, "client.id", "")),
            task_id=ConnectorTaskId,
            security_props=_security_props(cfg),
            client_configs=_network_settings(cfg),
        )
        self._thread = threading.Thread(target=self._run, name="connect-group-member", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        coord = self._coordinator
        assert coord is not None
        while not self._stopping.is_set():
            try:
                coord.poll(1000)
            except Exception:
                log.exception("Group member poll failed; retrying")
                self._stopping.wait(1.0)

    def stop(self) -> None:
        """Leave the group (others rebalance at once) and stop; idempotent."""
        self._stopping.set()
        coord = self._coordinator
        if coord is not None:
            coord.wakeup()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if coord is not None:
            coord.close()
            self._coordinator = None

    def kill(self) -> None:
        """Stop heartbeating without leaving (simulates a crash; for tests)."""
        self._stopping.set()
        coord = self._coordinator
        if coord is not None:
            coord.wakeup()
            if self._thread is not None:
                self._thread.join(timeout=30)
            coord.kill()
            self._coordinator = None

    # --- herder API ----------------------------------------------------------------------------

    def poll(self, timeout_s: float) -> None:
        """Not needed: the member has its own thread (``runs_own_thread``)."""

    def wakeup(self) -> None:
        if self._coordinator is not None:
            self._coordinator.wakeup()

    def request_rejoin(self, reason: str | None = None) -> None:
        if self._coordinator is not None:
            self._coordinator.request_rejoin(reason or "requested by the herder")

    def maybe_leave_group(self, reason: str) -> None:
        if self._coordinator is not None:
            self._coordinator.maybe_leave_group(reason)

    def member_id(self) -> str:
        return self._coordinator.member_id() if self._coordinator is not None else ""

    def generation_id(self) -> int:
        return self._coordinator.generation_id() if self._coordinator is not None else -1

    def current_protocol_version(self) -> int:
        coord = self._coordinator
        protocol = coord.current_protocol if coord is not None else self._compat
        return int(protocol.protocol_version)

    def owner_url(self, item: str | ConnectorTaskId) -> str | None:
        """Leader only (else None): the REST URL of the worker running ``item``."""
        coord = self._coordinator
        if coord is None or coord.need_rejoin():
            return None
        snap = coord.assignment_snapshot
        if snap is None or snap.leader != coord.member_id() or self._leader_state is None:
            return None
        return self._leader_state.owner_url(item)

    def member_urls(self) -> list[str]:
        """Leader only (else []): the REST URL of every member of the last assignment, idle
        ones included (the dashboard's worker list)."""
        coord = self._coordinator
        state = self._leader_state
        if coord is None or state is None:
            return []
        snap = coord.assignment_snapshot
        if snap is None or snap.leader != coord.member_id():
            return []
        return sorted(set(state.member_urls.values()))

    # --- leader: assignment (IO thread) ---------------------------------------------------------

    def _assign(
        self, leader_id: str, protocol: str, members: Mapping[str, WorkerState]
    ) -> Mapping[str, ExtendedAssignment]:
        coord = self._coordinator
        snapshot = self._supplier()
        if (
            ConnectProtocolCompatibility.from_protocol(protocol)
            is ConnectProtocolCompatibility.EAGER
        ):
            assignor: Any = self._eager
        else:
            assignor = self._incremental
        result = assignor.perform_assignment(
            leader_id,
            protocol,
            members,
            snapshot,
            self._fresh,
            last_completed_generation=coord.last_completed_generation if coord else -1,
            current_generation=coord.generation_id() if coord else -1,
        )
        self._leader_state = assignor.leader_state
        return dict(result)
