"""``Worker``: runs the connectors and tasks the herder assigns to this worker.

The worker owns no cluster state: the herder tells it what to start and stop. Each connector
runs on its own thread (:class:`~kconnect.runtime.worker.worker_connector.WorkerConnector`);
tasks go to the worker's :class:`~kconnect.runtime.worker.task_processes.task_executor.TaskExecutor` -- threads
of this process (:class:`~kconnect.runtime.worker.task_processes.local_tasks.LocalTasks`) or, with
``task.processes`` above 1, child task processes
(:class:`~kconnect.runtime.worker.task_processes.task_pool.TaskProcessPool`), so busy tasks use every core
-- but for connectors that ask for the worker process, such as Java plugins sharing its one JVM
(:class:`~kconnect.runtime.worker.task_processes.split_tasks.SplitTasks`).
Statuses are reported to the listener the herder passes in. The offsets API lives in
:mod:`kconnect.runtime.worker.connector_offsets`.

All public methods are thread-safe and are called from herder/REST threads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kconnect.api.config_types import class_name
from kconnect.api.connector import Connector, SinkConnector, SourceConnector
from kconnect.api.errors import ConfigException, ConnectException
from kconnect.kafka.clients.admin import Admin
from kconnect.kafka.clients.errors import KafkaSecurityError
from kconnect.kafka.clients.fencing import fence_producers
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.config_transformer import ConfigTransformer
from kconnect.runtime.config.connector_config import (
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    ConnectorConfig,
    SinkConnectorConfig,
)
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.worker.connector_offsets import SinkOffsets, SourceOffsets
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.task_builder import TaskBuilder
from kconnect.runtime.worker.task_processes.local_tasks import (
    LocalTasks,
    connector_info,
    new_connector,
    plugin_version_of,
)
from kconnect.runtime.worker.task_processes.split_tasks import SplitTasks
from kconnect.runtime.worker.task_processes.task_executor import TaskExecutor
from kconnect.runtime.worker.task_processes.task_pool import TaskProcessPool
from kconnect.runtime.worker.worker_connector import WorkerConnector

__all__ = ["CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S", "TooManyTasksException", "Worker"]

log = logging.getLogger(__name__)

CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S = 5.0
TASK_CLASS_CONFIG = "task.class"


class TooManyTasksException(ConnectException):
    """The connector produced more task configs than ``tasks.max`` (KIP-1004)."""


#: How long start_connector waits for Connector.start() before returning anyway.
CONNECTOR_START_WAIT_S = 30.0


class Worker:
    def __init__(
        self,
        worker_id: str,
        config: WorkerConfig,
        plugins: Plugins,
        offset_store: OffsetBackingStore,
        *,
        config_transformer: ConfigTransformer | None = None,
        clock: Clock | None = None,
        metrics: ConnectMetrics | None = None,
    ) -> None:
        self.worker_id = worker_id
        self.config = config
        self.plugins = plugins
        self.offset_store = offset_store
        self.config_transformer = config_transformer
        self.clock = clock or SystemClock()
        # Worker-wide metrics (``/metrics``); the distributed herder calls
        # ``metrics.rebalance.rebalance_started/completed``.
        self.metrics = metrics or ConnectMetrics.from_worker_config(worker_id, config, clock)
        self.builder = TaskBuilder(config, plugins, offset_store, self.clock)
        self._lock = threading.RLock()
        self._connectors: dict[str, WorkerConnector] = {}
        self._active_topics: dict[str, set[str]] = {}
        self._cluster_id: str | None = None
        self._admin: Admin | None = None
        self._tracking = config.get_boolean("topic.tracking.enable")
        self._check_worker_converters()
        tracker = self._track_topic if self._tracking else None
        #: Where tasks run: threads of this process, or task processes (``task.processes``).
        self.tasks: TaskExecutor = (
            LocalTasks(config, plugins, offset_store, self.metrics, self.clock, tracker)
            if config.task_processes <= 1
            else SplitTasks(
                LocalTasks(config, plugins, offset_store, self.metrics, self.clock, tracker),
                TaskProcessPool(
                    worker_id,
                    config,
                    plugins,
                    offset_store,
                    self.metrics,
                    self.clock,
                    tracker,
                    size=config.task_processes,
                ),
                plugins,
                {
                    f"{k}.converter": config.converter_configs(k)[0]
                    for k in ("key", "value", "header")
                },
            )
        )

    def _check_worker_converters(self) -> None:
        """Refuse to start with a worker converter class no plugin provides, as Kafka's
        WorkerConfig does (CLASS keys must resolve), naming the key and the closest names."""
        for kind in ("key", "value", "header"):
            name, _ = self.config.converter_configs(kind)
            plugin_kind = "header_converter" if kind == "header" else "converter"
            try:
                self.plugins.resolve(plugin_kind, name)
            except ConfigException as e:
                raise ConfigException(f"{kind}.converter", name, str(e)) from None

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the offset store (loads stored offsets). Called once by the herder."""
        log.info("Worker starting")
        self.offset_store.start()
        log.info("Worker started")

    def stop(self) -> None:
        """Stop every task and connector (``task.shutdown.graceful.timeout.ms`` in total for
        the tasks), then the offset store."""
        log.info("Worker stopping")
        self.stop_and_await_tasks(self.task_ids())
        for name in list(self.connector_names()):
            self.stop_and_await_connector(name)
        self.tasks.close()
        self.offset_store.stop()
        log.info("Worker stopped")

    def _shared_admin(self) -> Admin:
        with self._lock:
            if self._admin is None:
                self._admin = Admin(
                    {
                        **self.config.java_admin_props(),
                        "client.id": f"{self.worker_id}-shared-admin",
                    }
                )
            return self._admin

    def kafka_cluster_id(self) -> str:
        """The Kafka cluster id (cached). Raises KafkaClientError when Kafka is unreachable."""
        if self._cluster_id is None:
            self._cluster_id = self._shared_admin().cluster_id()
        return self._cluster_id

    def check_cluster_access(self) -> None:
        """At start-up, as Kafka Connect: a cluster that refuses the worker's login or TLS
        handshake stops the worker (raises :class:`~kconnect.kafka.clients.errors.KafkaSecurityError`
        naming the settings). A cluster not reachable yet is only logged: the worker starts
        and its clients keep retrying."""
        try:  # a refused login or handshake is known within a second; don't wait long for more
            self._cluster_id = self._shared_admin().cluster_id(timeout=5.0)
        except KafkaSecurityError:
            raise
        except ConnectException as e:
            log.warning(
                "Kafka cluster not reachable at start-up (%s); its clients keep retrying", e
            )

    # -- connectors -----------------------------------------------------------------------------

    def _new_connector(self, props: Mapping[str, str]) -> Connector:
        return new_connector(self.plugins, props)

    def start_connector(
        self,
        name: str,
        props: Mapping[str, str],
        status_listener: StatusListener,
        target_state: TargetState,
        request_reconfiguration: Callable[[str], None],
        wait_for_start: bool = True,
    ) -> None:
        """Start ``name`` (on the connector pool) in ``target_state``.

        ``wait_for_start``: wait, bounded by :data:`CONNECTOR_START_WAIT_S`, for its initial
        state to be applied (the standalone herder asks for task configs right after); the
        distributed herder does not wait -- it asks for task configs when the connector reports
        RUNNING, as Kafka's does from its start callback -- so a slow ``start()`` delays no
        other work of the rebalance or the herder.

        A connector that cannot be created is reported FAILED through the listener (no
        exception). Raises ConnectException if it already runs on this worker.
        """
        with self._lock:
            if name in self._connectors:
                raise ConnectException(f"Connector with name {name} already exists")
            try:
                connector = self._new_connector(props)
            except Exception as e:
                log.error("[%s|worker] Failed to start connector %s", name, name, exc_info=e)
                self.metrics.connector_startup_failed()
                status_listener.on_failure(name, e)
                return
            status_listener = self.metrics.connector_listener(
                name, status_listener, connector_info(connector)
            )
            reader = (
                OffsetStorageReaderImpl(self.offset_store, name)
                if isinstance(connector, SourceConnector)
                else None
            )
            wc = WorkerConnector(
                name,
                connector,
                props,
                status_listener,
                target_state,
                request_reconfiguration,
                reader,
                self.metrics.connector_plugin_metrics(name),
            )
            self._connectors[name] = wc
        log.info(
            "[%s|worker] Creating connector %s of type %s",
            name,
            name,
            class_name(type(connector)),
        )
        wc.start()
        if wait_for_start:
            # Like Kafka's herders, which ask for task configs only from the start callback:
            # wait (bounded) for start() so the caller's connector_task_configs finds it
            # running; a connector that takes longer requests its task reconfiguration once it
            # has started.
            wc.await_initial_state(CONNECTOR_START_WAIT_S)

    def plugin_version(self, key: str | ConnectorTaskId) -> str | None:
        """The ``version()`` of the connector (``key`` a name) or task running here, as Kafka
        4.1 writes it into each status; None when it is not running on this worker."""
        if isinstance(key, ConnectorTaskId):
            return self.tasks.plugin_version(key)
        wc = self._connectors.get(key)
        return None if wc is None else plugin_version_of(wc.connector)

    def is_running(self, name: str) -> bool:
        wc = self._connectors.get(name)
        return wc is not None and wc.is_running()

    def connector_task_configs(self, name: str, props: Mapping[str, str]) -> list[dict[str, str]]:
        """Task configs from the running connector, with ``task.class`` (and, for sinks,
        ``topics``/``topics.regex``) added.

        Raises:
            ConnectException: the connector is not running here.
            TooManyTasksException: more configs than ``tasks.max`` and ``tasks.max.enforce``.
        """
        wc = self._connectors.get(name)
        if wc is None:
            raise ConnectException(f"Connector {name} not found in this worker.")
        config = ConnectorConfig(props)
        max_tasks = config.tasks_max
        connector = wc.connector
        with wc.lock:
            configs = connector.task_configs(max_tasks)
        if len(configs) > max_tasks:
            if config.tasks_max_enforce:
                error = TooManyTasksException(
                    f"The connector {name} has generated {len(configs)} tasks, which is greater "
                    f"than {max_tasks}, the maximum number of tasks it is configured to create. "
                    "This behaviour should be considered a bug and is disallowed. If necessary, "
                    "it can be permitted by reconfiguring the connector with 'tasks.max.enforce' "
                    "set to false; however, this option will be removed in a future release of "
                    "Kafka Connect."
                )
                wc._fail(error)
                raise error
            log.warning(
                "[%s|worker] The connector %s has generated %d tasks, which is greater "
                "than %d, the maximum number of tasks it is configured to create. This "
                "behaviour should be considered a bug and will be disallowed in future "
                "releases of Kafka Connect. Please report this to the maintainers of "
                "the connector and request that they adjust their connector's "
                "taskConfigs() method to respect the maxTasks parameter.",
                name,
                name,
                len(configs),
                max_tasks,
            )
        task_class = class_name(connector.task_class())
        out = []
        for c in configs:
            cfg = {str(k): str(v) for k, v in c.items()}
            cfg[TASK_CLASS_CONFIG] = task_class
            if isinstance(connector, SinkConnector):
                # Kafka copies the connector's subscription into every sink task config.
                for key in (TOPICS_CONFIG, TOPICS_REGEX_CONFIG):
                    if key in config.props:
                        cfg[key] = config.props[key]
            out.append(cfg)
        return out

    def stop_and_await_connector(self, name: str) -> None:
        """Stop the connector (``connector.stop()`` on its thread) and wait up to 5 s."""
        with self._lock:
            wc = self._connectors.pop(name, None)
        if wc is None:
            log.warning("Ignoring stop request for unowned connector %s", name)
            return
        wc.shutdown()
        self.metrics.connector_removed(name)
        if not wc.await_shutdown(CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S):
            log.error(
                "[%s|worker] Connector '%s' failed to properly shut down, has become "
                "unresponsive, and may be consuming external resources. Correct the "
                "configuration for this connector or remove the connector.",
                name,
                name,
            )

    def set_target_state(self, name: str, state: TargetState) -> None:
        """Pause/resume/stop the connector (applied before returning, up to 5 s) and move its
        tasks on this worker to the same target (tasks treat STOPPED as PAUSED; the herder
        stops them)."""
        wc = self._connectors.get(name)
        if wc is not None:
            wc.transition_to(state, CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_S)
        self.tasks.transition(name, state)

    def connector_names(self) -> set[str]:
        with self._lock:
            return set(self._connectors)

    # -- tasks ----------------------------------------------------------------------------------

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        status_listener: StatusListener,
        target_state: TargetState,
        preflight: ExactlyOncePreflight | None = None,
    ) -> bool:
        """Build and start a task; False (and FAILED reported) if it could not be built.
        With ``preflight``, a source task runs exactly once (KIP-618).

        Raises ConnectException if the task already runs on this worker.
        """
        return self.tasks.start_task(
            task_id, connector_props, task_props, status_listener, target_state, preflight
        )

    def fence_zombies(
        self, name: str, num_tasks: int, connector_props: Mapping[str, str], timeout_s: float
    ) -> None:
        """Fence out the transactional producers of ``name``'s tasks 0..num_tasks-1 with the
        connector's admin settings (Java's ``Worker.fenceZombies``); blocks.

        Raises:
            KafkaClientError: a producer could not be fenced in time.
        """
        config = self.config
        if not isinstance(config, DistributedConfig):
            raise ConnectException("Zombie fencing needs a distributed worker")
        log.debug("Fencing out %d task producers for source connector %s", num_tasks, name)
        ids = [config.task_transactional_id(name, i) for i in range(num_tasks)]
        props = {
            **self.builder.admin_props(connector_props),
            "client.id": f"connector-worker-adminclient-{name}",
        }
        fence_producers(props, ids, timeout_s)
        log.debug("Finished fencing out %d task producers for source connector %s",
                  num_tasks, name)  # fmt: skip

    def stop_and_await_task(self, task_id: ConnectorTaskId) -> None:
        self.stop_and_await_tasks([task_id])

    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
        """Stop tasks and wait for them, ``task.shutdown.graceful.timeout.ms`` in total; a task
        still running then is cancelled (abandoned) with an error log."""
        self.tasks.stop_and_await_tasks(ids)

    def task_ids(self) -> set[ConnectorTaskId]:
        return self.tasks.task_ids()

    def set_logger_level(self, namespace: str, level: str) -> None:
        """A log level changed through ``/admin/loggers``: task processes follow it."""
        self.tasks.set_logger_level(namespace, level)

    # -- topic tracking (KIP-558) ---------------------------------------------------------------

    def _track_topic(self, connector: str, topic: str) -> None:
        with self._lock:
            self._active_topics.setdefault(connector, set()).add(topic)

    def connector_active_topics(self, name: str) -> set[str]:
        with self._lock:
            return set(self._active_topics.get(name, ()))

    def reset_connector_active_topics(self, name: str) -> None:
        with self._lock:
            self._active_topics.pop(name, None)

    # -- offsets (KIP-875) ----------------------------------------------------------------------

    def connector_offsets(self, name: str, props: Mapping[str, str]) -> list[dict[str, Any]]:
        """``[{"partition": {...}, "offset": {...}}]`` of a source or sink connector."""
        connector = self._new_connector(props)
        if isinstance(connector, SinkConnector):
            return SinkOffsets(self._shared_admin()).read(SinkConnectorConfig(props).sink_group_id)
        return SourceOffsets(self.offset_store).read(name)

    def modify_connector_offsets(
        self, name: str, props: Mapping[str, str], offsets: list[dict[str, Any]] | None
    ) -> str:
        """Alter (``offsets``) or reset (None) the connector's offsets; Kafka's message.

        Raises:
            BadRequestException: malformed offsets (400).
            ConnectException: the connector refused or the write failed.
        """
        connector = self._new_connector(props)
        if isinstance(connector, SinkConnector):
            admin = Admin(self.builder.admin_props(props))
            group = SinkConnectorConfig(props).sink_group_id
            return SinkOffsets(admin).modify(group, connector, props, offsets)
        if isinstance(connector, SourceConnector):
            return SourceOffsets(self.offset_store).modify(name, connector, props, offsets)
        raise ConnectException(
            f"{type(connector).__name__} is neither a source nor a sink connector"
        )
