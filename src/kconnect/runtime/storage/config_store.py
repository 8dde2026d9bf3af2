"""Where connector configs, task configs and target states live (``ConfigBackingStore``).

The herder writes through this interface and reads :meth:`ConfigBackingStore.snapshot` (an
immutable :class:`ClusterConfigState`). Standalone mode keeps everything in memory
(:class:`MemoryConfigBackingStore`, as Kafka's ``MemoryConfigBackingStore``: configs given on
the command line are re-submitted at every start); distributed mode will implement the same
interface over ``config.storage.topic``. Configs are stored *raw* — config-provider variables as
written, never resolved. All methods are thread-safe; writes are visible to the next snapshot
immediately.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from kconnect.runtime.common.ids import ConnectorTaskId, task_ids
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.session_key import SessionKey
from kconnect.runtime.common.states import TargetState

__all__ = [
    "ClusterConfigState",
    "ConfigBackingStore",
    "ConfigUpdateListener",
    "MemoryConfigBackingStore",
]


@dataclass(frozen=True)
class ClusterConfigState:
    """An immutable view of every connector's raw config, task configs and target state."""

    connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    task_configs: Mapping[str, tuple[Mapping[str, str], ...]] = field(default_factory=dict)
    target_states: Mapping[str, TargetState] = field(default_factory=dict)
    applied_connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: The config offset this view reflects (Kafka's ``ClusterConfigState.offset()``); -1 when
    #: the store has no topic (memory store).
    offset: int = -1

    def contains(self, connector: str) -> bool:
        return connector in self.connector_configs

    def connectors(self) -> list[str]:
        """Connector names, sorted."""
        return sorted(self.connector_configs)

    def raw_connector_config(self, connector: str) -> dict[str, str] | None:
        config = self.connector_configs.get(connector)
        return None if config is None else dict(config)

    def target_state(self, connector: str) -> TargetState | None:
        return self.target_states.get(connector) if connector in self.connector_configs else None

    def tasks(self, connector: str) -> list[ConnectorTaskId]:
        return list(task_ids(connector, len(self.task_configs.get(connector, ()))))

    def task_count(self, connector: str) -> int:
        return len(self.task_configs.get(connector, ()))

    def raw_task_config(self, task_id: ConnectorTaskId) -> dict[str, str] | None:
        configs = self.task_configs.get(task_id.connector, ())
        return dict(configs[task_id.task]) if 0 <= task_id.task < len(configs) else None

    def applied_connector_config(self, connector: str) -> dict[str, str] | None:
        config = self.applied_connector_configs.get(connector)
        return None if config is None else dict(config)


class ConfigBackingStore(ABC):
    """Stores connector configs, task configs and target states."""

    def start(self) -> None:
        """Start (read existing state); called once by the herder before use."""

    def stop(self) -> None:
        """Stop; called once by the herder on shutdown."""

    @abstractmethod
    def snapshot(self) -> ClusterConfigState: ...

    @abstractmethod
    def put_connector_config(
        self, connector: str, config: Mapping[str, str], target_state: TargetState | None
    ) -> None:
        """Create or replace a config; ``target_state`` None keeps the current one (STARTED if new)."""

    @abstractmethod
    def remove_connector_config(self, connector: str) -> None: ...

    @abstractmethod
    def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Replace the connector's task configs; records the connector config they came from."""

    @abstractmethod
    def remove_task_configs(self, connector: str) -> None: ...

    @abstractmethod
    def put_target_state(self, connector: str, state: TargetState) -> None: ...


class MemoryConfigBackingStore(ConfigBackingStore):
    """The in-memory store used in standalone mode."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._configs: dict[str, Mapping[str, str]] = {}
        self._tasks: dict[str, tuple[Mapping[str, str], ...]] = {}
        self._targets: dict[str, TargetState] = {}
        self._applied: dict[str, Mapping[str, str]] = {}

    def snapshot(self) -> ClusterConfigState:
        with self._lock:
            return ClusterConfigState(
                MappingProxyType(dict(self._configs)),
                MappingProxyType(dict(self._tasks)),
                MappingProxyType(dict(self._targets)),
                MappingProxyType(dict(self._applied)),
            )

    def put_connector_config(
        self, connector: str, config: Mapping[str, str], target_state: TargetState | None
    ) -> None:
        with self._lock:
            self._configs[connector] = MappingProxyType(dict(config))
            if target_state is not None:
                self._targets[connector] = target_state
            else:
                self._targets.setdefault(connector, TargetState.STARTED)

    def remove_connector_config(self, connector: str) -> None:
        with self._lock:
            self._configs.pop(connector, None)
            self._tasks.pop(connector, None)
            self._targets.pop(connector, None)
            self._applied.pop(connector, None)

    def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        with self._lock:
            self._tasks[connector] = tuple(MappingProxyType(dict(c)) for c in configs)
            if connector in self._configs:
                self._applied[connector] = self._configs[connector]

    def remove_task_configs(self, connector: str) -> None:
        with self._lock:
            self._tasks.pop(connector, None)

    def put_target_state(self, connector: str, state: TargetState) -> None:
        with self._lock:
            self._targets[connector] = state


class ConfigUpdateListener:
    """Told about config-topic changes written by any worker (``ConfigBackingStore.UpdateListener``).

    Called on the config log's thread after the Kafka store's ``start`` returned
    (records read during start are not announced); implementations must be quick (record the
    change, wake the herder) and must not call back into the store's blocking methods.
    """

    def on_connector_config_update(self, connector: str) -> None:
        """A connector config was created or changed."""

    def on_connector_config_remove(self, connector: str) -> None:
        """A connector was deleted (defaults to :meth:`on_connector_config_update`)."""
        self.on_connector_config_update(connector)

    def on_task_config_update(self, task_ids: list[ConnectorTaskId]) -> None:
        """A commit record applied new task configs (the list may be empty)."""

    def on_connector_target_state_change(self, connector: str) -> None:
        """An existing connector's target state changed."""

    def on_session_key_update(self, key: SessionKey) -> None:
        """A new session key was distributed."""

    def on_restart_request(self, request: RestartRequest) -> None:
        """A restart was requested (KIP-745)."""

    def on_logger_level(self, namespace: str, level: str) -> None:
        """A cluster-wide logger level was set (KIP-976)."""
