"""``AbstractHerder``: what the standalone and the distributed herder do the same way.

Kafka's ``AbstractHerder`` plays this part. It holds the mode-independent half of the
:class:`~kconnect.runtime.herder.herder.Herder` contract: the worker's status listener (in
:mod:`kconnect.runtime.herder.herder_status`), status and config reads answered from the local
stores, plugin listing and plugin config, connector validation, worker loggers, ``/health``
and the pieces of the topic-tracking and offsets endpoints that do not depend on where a
write runs. Subclasses own the lifecycle and every write: the standalone herder runs writes
under its lock, the distributed herder queues them on its herder thread (and forwards
leader-only ones).

The threading and error contract is the ``Herder``'s: the methods here are called from REST
threads, raise ``NotFoundException``/``BadRequestException``/``ForbiddenException`` for the
REST layer to map, and only read thread-safe stores (the config store's snapshot, the status
store) unless a subclass runs them under its own serialisation.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from kconnect.api.config_infos import ConfigInfos, ConfigKeyInfo, convert_config_key
from kconnect.api.errors import NotFoundException
from kconnect.runtime.common.clock import SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.loggers import LoggerLevel, Loggers
from kconnect.runtime.common.request_errors import BadRequestException, ForbiddenException
from kconnect.runtime.common.restart import RestartPlan
from kconnect.runtime.common.states import AutoRestartInfo, TargetState
from kconnect.runtime.config import connector_config as cc
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.config.connector_validation import ConnectorValidator
from kconnect.runtime.config.restart_policy import AUTO_RESTART_KEYS, RestartPolicy
from kconnect.runtime.config.validation_results import config_error_message
from kconnect.runtime.config.worker_config import CONFIG_DEF as WORKER_CONFIG_DEF
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.herder.auto_restart import AutoRestarter
from kconnect.runtime.herder.herder import (
    ConnectorInfo,
    ConnectorStateInfo,
    Herder,
    PluginInfo,
    StateInfo,
    TaskInfo,
    WorkerHealth,
)
from kconnect.runtime.herder.herder_status import HerderStatusListener
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.plugins.descriptors import NOT_LISTED, VersionedPluginLoadingError
from kconnect.runtime.plugins.versions import VersionRange
from kconnect.runtime.plugins.view import (
    PLUGIN_TYPES_ORDER,
    PluginNotFound,
    desc_class_name,
    desc_type,
    desc_version,
)
from kconnect.runtime.storage.config_store import ClusterConfigState, ConfigBackingStore
from kconnect.runtime.storage.status_store import StatusBackingStore

__all__ = ["HEALTHY", "STARTING", "STOPPED_REQUIRED", "UNHEALTHY", "AbstractHerder"]

log = logging.getLogger(__name__)

HEALTHY = "Worker has completed startup and is ready to handle requests."
STARTING = "Worker is still starting up."
UNHEALTHY = "Worker was unable to handle this request and may be unable to handle other requests."
STOPPED_REQUIRED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be "
    "done for the specified connector by issuing a 'PUT' request to the "
    "'/connectors/{name}/stop' endpoint"
)


class AbstractHerder(HerderStatusListener, Herder):
    """The shared half of a herder; see the module docstring.

    ``__init__`` only stores its arguments and builds the validator and loggers; nothing starts
    until the subclass's ``start``. ``worker_config`` is the worker's config; None (a herder
    built for a test) reads every worker setting's default from the worker's ConfigDef.
    """

    def __init__(
        self,
        worker: Any,
        plugins: Any,
        *,
        worker_config: WorkerConfig | None,
        config_transformer: ConfigTransformer | None,
        status_store: StatusBackingStore,
        config_store: ConfigBackingStore,
        kafka_cluster_id: str | None,
        health_timeout_s: float,
    ) -> None:
        self.worker = worker
        self.plugins = plugins
        self._worker_config = worker_config
        self._transformer = config_transformer
        self.status_store = status_store
        self.config_store = config_store
        self._cluster_id = kafka_cluster_id
        self._health_timeout_s = health_timeout_s
        policy = self._worker_setting("connector.client.config.override.policy")
        self.validator = ConnectorValidator(
            plugins,
            config_transformer=config_transformer,
            override_policy=str(policy),
            worker_config=worker_config,
        )
        self.loggers = Loggers()
        if worker is not None:  # levels set through /admin/loggers reach task processes
            self.loggers.add_listener(worker.set_logger_level)
        self._ready = False
        self._worker_restart_policy = RestartPolicy.parse(
            {k: self._worker_setting(k) for k in AUTO_RESTART_KEYS}
        )
        metrics = self.metrics
        self.auto_restarter = AutoRestarter(
            getattr(worker, "clock", None) or SystemClock(),
            self._restart_policy,
            self._auto_restart,
            metrics.registry if metrics is not None else None,
        )

    # -- helpers ---------------------------------------------------------------------------

    def _worker_setting(self, key: str) -> object:
        """The worker's value of ``key`` (a key of the worker's ConfigDef), or its default."""
        if self._worker_config is None:
            return WORKER_CONFIG_DEF.default_values().get(key)
        return self._worker_config.get(key)

    def _snapshot(self) -> ClusterConfigState:
        return self.config_store.snapshot()

    # -- automatic restarts (kconnect) -----------------------------------------------------

    def _restart_policy(self, connector: str) -> RestartPolicy:
        """The connector's ``auto.restart.*`` settings over the worker's."""
        raw = self._snapshot().raw_connector_config(connector) or {}
        return RestartPolicy.parse(raw, self._worker_restart_policy)

    @abstractmethod
    def _auto_restart(self, key: str | ConnectorTaskId) -> None:
        """Restart a failed connector (``key`` a name) or task that runs on this worker (the
        auto-restart thread calls it); nothing when it no longer runs here."""

    def _failure_plan(
        self, key: str | ConnectorTaskId, error: BaseException
    ) -> AutoRestartInfo | None:
        return self.auto_restarter.failed(key, error)

    def _auto_restart_info(self, key: str | ConnectorTaskId) -> AutoRestartInfo | None:
        return self.auto_restarter.info(key)

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        super().on_startup(key)
        self.auto_restarter.started(key)

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        super().on_shutdown(key)
        self.auto_restarter.forget(key)

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        super().on_deletion(key)
        self.auto_restarter.forget(key)

    def auto_restart_state(self, name: str) -> dict[str, Any]:
        """``GET /connectors/{name}/auto-restart``: the automatic-restart plans of the
        connector and its tasks, as written with their statuses (any worker answers)."""
        status = self.status_store.get_connector(name)
        if status is None:
            raise NotFoundException(f"No status found for connector {name}")

        def view(s: Any) -> dict[str, Any] | None:
            if s.auto_restart is None:
                return None
            return {"state": s.state.value, **s.auto_restart.to_json(), "trace": s.trace}

        return {
            "name": name,
            "connector": view(status),
            "tasks": [
                {"id": t.id.task, **v}
                for t in self.status_store.get_all(name)
                if (v := view(t)) is not None
            ],
        }

    def _close_config_transformer(self) -> None:
        """Close the config providers (herder stop; once)."""
        transformer, self._transformer = self._transformer, None
        if transformer is not None:
            transformer.close()

    def resolved_config(self, raw: Mapping[str, str]) -> dict[str, str]:
        """``raw`` with config-provider variables resolved (for the worker, never stored);
        its secret values are remembered, so logs and traces hide them."""
        if self._transformer is None:
            resolved = dict(raw)
        else:
            resolved = {k: v for k, v in self._transformer.transform(raw).items() if v is not None}
        self.validator.remember_secrets(resolved)
        return resolved

    def _connector_type(self, raw: Mapping[str, str] | None) -> str:
        return self.validator.connector_type(raw)

    # -- health ----------------------------------------------------------------------------

    def is_ready(self) -> bool:
        return self._ready

    def mark_ready(self) -> None:
        """The worker is ready (``/health`` healthy): standalone once the connectors given at
        start-up are submitted, distributed once the first assignment is applied."""
        self._ready = True

    def health_check(self) -> WorkerHealth:
        if not self._ready:
            return WorkerHealth("starting", STARTING + self._starting_detail(), 503)
        busy = self._busy_detail(self._health_timeout_s)
        if busy is None:
            return WorkerHealth("healthy", HEALTHY, 200)
        return WorkerHealth("unhealthy", f"{UNHEALTHY} {busy}", 500)

    def _starting_detail(self) -> str:
        """Appended to the ``starting`` message (e.g. what startup is doing); empty by default."""
        return ""

    @abstractmethod
    def _busy_detail(self, timeout_s: float) -> str | None:
        """None when the herder can serve a request within ``timeout_s``, else why not.

        Called on a REST thread; may block up to ``timeout_s``.
        """

    @property
    def metrics(self) -> ConnectMetrics | None:
        return None if self.worker is None else self.worker.metrics

    def kafka_cluster_id(self) -> str | None:
        if self._cluster_id is None:
            try:
                self._cluster_id = self.worker.kafka_cluster_id()
            except Exception:
                log.warning("Kafka cluster id unavailable", exc_info=True)
        return self._cluster_id

    # -- reads -----------------------------------------------------------------------------

    def connectors(self) -> list[str]:
        return list(self._snapshot().connectors())

    def connector_info(self, name: str) -> ConnectorInfo:
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            raise NotFoundException(f"Connector {name} not found")
        return ConnectorInfo(name, raw, state.tasks(name), self._connector_type(raw))

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
            self._connector_type(self._snapshot().raw_connector_config(name)),
        )

    def task_status(self, task_id: ConnectorTaskId) -> StateInfo:
        status = self.status_store.get_task(task_id)
        if status is None:
            raise NotFoundException(f"No status found for task {task_id}")
        return StateInfo(
            status.state.value, status.worker_id, status.trace, task_id.task, status.version
        )

    def task_configs(self, name: str) -> list[TaskInfo]:
        state = self._snapshot()
        if not state.contains(name):
            raise NotFoundException(f"Connector {name} not found")
        return [TaskInfo(t, state.raw_task_config(t) or {}) for t in state.tasks(name)]

    def _restart_response(self, plan: RestartPlan) -> ConnectorStateInfo:
        """The KIP-745 response: the plan's statuses, restarting instances as RESTARTING."""
        c = plan.connector_status
        return ConnectorStateInfo(
            c.connector,
            StateInfo(plan.state_of_connector().value, c.worker_id, c.trace, None, c.version),
            [
                StateInfo(plan.state_of_task(t).value, t.worker_id, t.trace, t.id.task, t.version)
                for t in plan.task_statuses
            ],
            self._connector_type(self._snapshot().raw_connector_config(c.connector)),
        )

    # -- validation and config writes ------------------------------------------------------

    def validate_connector_config(self, props: Mapping[str, str | None]) -> ConfigInfos:
        return self.validator.validate(props)

    def _validated_config(self, config: Mapping[str, str | None]) -> dict[str, str]:
        """``config`` without null values, or BadRequestException listing every error."""
        message = config_error_message(self.validator.validate(config))
        if message is not None:
            raise BadRequestException(message)
        return {k: v for k, v in config.items() if v is not None}

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

    # -- topics and offsets ----------------------------------------------------------------

    def _check_topic_tracking(self, name: str, *, reset: bool = False) -> None:
        """403 when topic tracking (or its reset) is disabled; 404 for an unknown connector."""
        if not self._worker_setting("topic.tracking.enable"):
            raise ForbiddenException("Topic tracking is disabled.")
        if reset and not self._worker_setting("topic.tracking.allow.reset"):
            raise ForbiddenException("Topic tracking reset is disabled.")
        if not self._snapshot().contains(name):
            raise NotFoundException(f"Connector {name} not found")

    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        raw = self._snapshot().raw_connector_config(name)
        if raw is None:
            raise NotFoundException(f"Connector {name} not found")
        return list(self.worker.connector_offsets(name, self.resolved_config(raw)))

    def alter_connector_offsets(self, name: str, offsets: list[dict[str, Any]]) -> str:
        if not offsets:
            raise BadRequestException("The offsets to be altered may not be null or empty")
        return self._modify_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        return self._modify_offsets(name, None)

    @abstractmethod
    def _modify_offsets(self, name: str, offsets: list[dict[str, Any]] | None) -> str:
        """Alter (``offsets``) or reset (None) a connector's offsets where writes run."""

    def _modify_stopped_connector_offsets(
        self, name: str, offsets: list[dict[str, Any]] | None
    ) -> str:
        """Check the connector is STOPPED with no tasks, then have the worker modify them."""
        state = self._snapshot()
        raw = state.raw_connector_config(name)
        if raw is None:
            raise NotFoundException(f"Connector {name} not found")
        if state.target_state(name) is not TargetState.STOPPED or state.task_count(name):
            raise BadRequestException(STOPPED_REQUIRED.format(name=name))
        return str(self.worker.modify_connector_offsets(name, self.resolved_config(raw), offsets))

    # -- plugins ---------------------------------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]:
        kinds = ("sink", "source") if connectors_only else PLUGIN_TYPES_ORDER
        found: dict[tuple[str, str], PluginInfo] = {}
        for desc in self.plugins.all_plugins():
            kind = desc_type(desc)
            if kind in kinds and desc_class_name(desc) not in NOT_LISTED:
                info = PluginInfo(desc_class_name(desc), kind, desc_version(desc))
                found.setdefault((kind, info.class_name), info)
        return sorted(found.values(), key=lambda p: (kinds.index(p.type), p.class_name))

    def connector_plugin_config(
        self, plugin_name: str, version: VersionRange | None = None
    ) -> list[ConfigKeyInfo]:
        view = self.validator.view
        desc = None
        for kind in (*PLUGIN_TYPES_ORDER, "config_provider"):
            try:
                desc = view.resolve((kind,), plugin_name, "a plugin")
                break
            except PluginNotFound:
                continue
        if desc is None:
            raise NotFoundException(f"Unknown plugin {plugin_name}.")
        kind = desc_type(desc)
        if version is not None:
            try:
                self.plugins.resolve_version(kind, plugin_name, version)
            except VersionedPluginLoadingError as e:
                raise BadRequestException(str(e)) from None
        if kind not in PLUGIN_TYPES_ORDER:
            raise BadRequestException(
                f"Invalid plugin class {plugin_name}. Valid types are sink, source, converter, "
                "header_converter, transformation, predicate."
            )
        instance = self.plugins.new_instance(kind, plugin_name)
        keys = dict(instance.config().config_keys())
        if kind in ("sink", "source"):
            # Kafka's enrichedConfigDef(plugins, name): the latest installed version as the
            # default of connector.plugin.version, no worker converter defaults
            enrichment = {"connector_version": desc_version(desc)}
            base = (
                cc.sink_connector_config_def(**enrichment)
                if kind == "sink"
                else cc.source_connector_config_def(**enrichment)
            )
            for name, key in base.config_keys().items():
                keys.setdefault(name, key)
        return [convert_config_key(k) for k in keys.values()]

    # -- loggers ---------------------------------------------------------------------------

    def logger_level(self, logger: str) -> LoggerLevel | None:
        return self.loggers.level(logger)

    def all_logger_levels(self) -> dict[str, LoggerLevel]:
        return self.loggers.all_levels()

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        return self.loggers.set_level(namespace, level)
