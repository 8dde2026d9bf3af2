"""The ``Herder``: owner of connector configs, target states, task configs and statuses.

The REST layer and the CLI talk only to this interface. Every method is synchronous and
thread-safe (called from REST worker threads); it may block while connectors or tasks are
stopped or started. Errors are raised, not returned:
:class:`~kconnect.api.errors.NotFoundException` (REST 404),
:class:`~kconnect.api.errors.AlreadyExistsException` (409) and
:class:`~kconnect.runtime.common.request_errors.ConnectRestException` (its status, e.g. 400 for an
invalid config); anything else is a 500 with the exception's message.

The result types here have Kafka Connect's REST JSON shapes through ``to_json()``. Configs
in them are *raw*: config-provider variables as written, never resolved.
"""

from __future__ import annotations

import ssl
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kconnect.api.config_infos import ConfigInfos, ConfigKeyInfo
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.loggers import LoggerLevel
from kconnect.runtime.common.restart import RestartRequest
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.herder.session_keys import RequestSignature
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.plugins.versions import VersionRange

__all__ = [
    "ConnectorInfo",
    "ConnectorStateInfo",
    "Created",
    "Herder",
    "PluginInfo",
    "StateInfo",
    "TaskInfo",
    "WorkerHealth",
]


@dataclass(frozen=True)
class ConnectorInfo:
    """``{"name", "config", "tasks": [{"connector","task"}], "type"}``."""

    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": dict(self.config),
            "tasks": [t.to_json() for t in self.tasks],
            "type": self.type,
        }


@dataclass(frozen=True)
class StateInfo:
    """A connector's or task's state; ``id`` is the task number (None for the connector)."""

    state: str
    worker_id: str
    trace: str | None = None
    id: int | None = None
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.id is not None:
            out["id"] = self.id
        out["state"] = self.state
        out["worker_id"] = self.worker_id
        if self.trace:
            out["trace"] = self.trace
        if self.version and self.version != "undefined":
            out["version"] = self.version
        return out


@dataclass(frozen=True)
class ConnectorStateInfo:
    """``{"name", "connector": {...}, "tasks": [...], "type"}`` (tasks sorted by id)."""

    name: str
    connector: StateInfo
    tasks: list[StateInfo]
    type: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "connector": self.connector.to_json(),
            "tasks": [t.to_json() for t in self.tasks],
            "type": self.type,
        }


@dataclass(frozen=True)
class TaskInfo:
    """``{"id": {"connector","task"}, "config": {...}}``."""

    id: ConnectorTaskId
    config: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id.to_json(), "config": dict(self.config)}


@dataclass(frozen=True)
class Created:
    """Result of a config write: whether the connector was new, and its info."""

    created: bool
    info: ConnectorInfo | None


@dataclass(frozen=True)
class PluginInfo:
    """``{"class", "type", "version"}`` (version omitted when undefined)."""

    class_name: str
    type: str
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.class_name, "type": self.type}
        if self.version and self.version != "undefined":
            out["version"] = self.version
        return out


@dataclass(frozen=True)
class WorkerHealth:
    """``GET /health``: ``status`` is healthy | starting | unhealthy; ``http_status`` 200/503/500."""

    status: str
    message: str
    http_status: int = 200

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message}


class Herder(ABC):
    """See the module docstring for the threading and error contract."""

    # -- lifecycle -------------------------------------------------------------------------

    @abstractmethod
    def start(self) -> None:
        """Start the worker and stores; called once, before the REST server accepts requests."""

    @abstractmethod
    def stop(self) -> None:
        """Stop every task and connector (committing offsets) and the worker; idempotent."""

    @abstractmethod
    def is_ready(self) -> bool:
        """True once startup finished (``/health`` says healthy)."""

    def use_internal_tls(self, context: Callable[[], ssl.SSLContext] | None) -> None:
        """The TLS context the worker's own requests to other workers' HTTPS listeners use
        (task configs and zombie fencing sent to the leader), set by the REST layer from the
        ``listeners.https.*`` settings before :meth:`start`. Standalone sends none."""

    @abstractmethod
    def health_check(self) -> WorkerHealth: ...

    @property
    @abstractmethod
    def worker_id(self) -> str: ...

    @abstractmethod
    def kafka_cluster_id(self) -> str | None: ...

    @property
    @abstractmethod
    def metrics(self) -> ConnectMetrics | None:
        """The worker's metrics (``/metrics``); None when the herder runs no worker."""

    @abstractmethod
    def auto_restart_state(self, name: str) -> dict[str, Any]:
        """kconnect's automatic-restart plans of the connector and its failed tasks
        (``GET /connectors/{name}/auto-restart``). Raises NotFoundException."""

    @abstractmethod
    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None
    ) -> None:
        """The internal endpoint ``POST /connectors/{c}/tasks``: a worker sends the leader the
        task configs its connector generated. Standalone refuses it (405)."""

    @abstractmethod
    def fence_zombie_source_tasks(self, name: str, signature: RequestSignature | None) -> None:
        """The internal endpoint ``PUT /connectors/{c}/fence``: a worker about to start an
        exactly-once source task asks the leader to fence out the connector's earlier task
        producers (KIP-618). Standalone refuses it (405)."""

    # -- connectors ------------------------------------------------------------------------

    @abstractmethod
    def connectors(self) -> list[str]: ...

    @abstractmethod
    def connector_info(self, name: str) -> ConnectorInfo: ...

    @abstractmethod
    def connector_config(self, name: str) -> dict[str, str]: ...

    @abstractmethod
    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        target_state: TargetState | None = None,
    ) -> Created:
        """Validate, store and (re)start a connector. 409 if it exists and not ``allow_replace``."""

    @abstractmethod
    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge ``patch`` (None removes a key) into the existing config, then as PUT."""

    @abstractmethod
    def delete_connector_config(self, name: str) -> None: ...

    @abstractmethod
    def connector_status(self, name: str) -> ConnectorStateInfo: ...

    @abstractmethod
    def task_status(self, task_id: ConnectorTaskId) -> StateInfo: ...

    @abstractmethod
    def task_configs(self, name: str) -> list[TaskInfo]: ...

    @abstractmethod
    def restart_connector(self, name: str) -> None:
        """Restart only the Connector instance (legacy restart, REST 204)."""

    @abstractmethod
    def restart_connector_and_tasks(self, request: RestartRequest) -> ConnectorStateInfo:
        """KIP-745 restart; returns the status with the restarting instances as RESTARTING."""

    @abstractmethod
    def restart_task(self, task_id: ConnectorTaskId) -> None: ...

    @abstractmethod
    def pause_connector(self, name: str) -> None: ...

    @abstractmethod
    def resume_connector(self, name: str) -> None: ...

    @abstractmethod
    def stop_connector(self, name: str) -> None: ...

    @abstractmethod
    def request_task_reconfiguration(self, name: str) -> None:
        """Called (from any thread) when a connector asks for new task configs."""

    # -- topics and offsets ----------------------------------------------------------------

    @abstractmethod
    def connector_active_topics(self, name: str) -> list[str]: ...

    @abstractmethod
    def reset_connector_active_topics(self, name: str) -> None: ...

    @abstractmethod
    def connector_offsets(self, name: str) -> list[dict[str, Any]]: ...

    @abstractmethod
    def alter_connector_offsets(self, name: str, offsets: list[dict[str, Any]]) -> str: ...

    @abstractmethod
    def reset_connector_offsets(self, name: str) -> str: ...

    # -- plugins and validation ------------------------------------------------------------

    @abstractmethod
    def validate_connector_config(self, props: Mapping[str, str | None]) -> ConfigInfos: ...

    @abstractmethod
    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]: ...

    @abstractmethod
    def connector_plugin_config(
        self, plugin_name: str, version: VersionRange | None = None
    ) -> list[ConfigKeyInfo]:
        """The plugin's keys (then, for connectors, the framework's); ``version`` (None: any)
        must match the installed plugin's version, else BadRequestException."""

    # -- loggers ---------------------------------------------------------------------------

    @abstractmethod
    def logger_level(self, logger: str) -> LoggerLevel | None: ...

    @abstractmethod
    def all_logger_levels(self) -> dict[str, LoggerLevel]: ...

    @abstractmethod
    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]: ...

    @abstractmethod
    def set_cluster_logger_level(self, namespace: str, level: str) -> None: ...
