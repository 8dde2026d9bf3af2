"""Builds the pieces of a worker task from the worker and connector configuration.

Kept apart from :mod:`kconnect.runtime.worker.worker` so the Worker only manages lifecycles. Called
on the thread that starts the task (the herder's); everything it creates is handed to the task,
which owns and closes it. Client settings are layered as Kafka does: Connect's defaults, then
the worker's ``producer.``/``consumer.``/``admin.`` settings, then the connector's
``*.override.*`` settings (checked against ``connector.client.config.override.policy``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.api.task import SinkTask, SourceTask
from kconnect.kafka.clients.admin import Admin
from kconnect.kafka.clients.client_stats import ClientStats
from kconnect.kafka.clients.consumer import Consumer, consumer_defaults, max_poll_records
from kconnect.kafka.clients.producer import Producer, TaskProducer, producer_defaults
from kconnect.kafka.clients.shared_producer import SharedProducers
from kconnect.kafka.log.kafka_based_log import InternalTopicAdmin, KafkaBasedLog
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.log_context import context_logger
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.client_overrides import (
    ADMIN_OVERRIDE_PREFIX,
    CONSUMER_OVERRIDE_PREFIX,
    PRODUCER_OVERRIDE_PREFIX,
    ConnectorClientConfigOverridePolicy,
    client_overrides,
)
from kconnect.runtime.config.connector_config import (
    ConnectorConfig,
    SinkConnectorConfig,
    SourceConnectorConfig,
)
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.secret_settings import password_keys, remember_config_secrets
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics.client_metrics import ClientMetrics
from kconnect.runtime.metrics.registry import MetricsRegistry
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.internal_topics import ensure_internal_topic
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.storage.transactional_offset_store import TransactionalOffsetStore
from kconnect.runtime.worker.errors.reporters import DeadLetterQueueReporter, LogReporter
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.exactly_once_source_task import (
    ExactlyOncePreflight,
    ExactlyOnceWorkerSourceTask,
)
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.transformation_chain import TransformationChain
from kconnect.runtime.worker.worker_sink_task import WorkerSinkTask
from kconnect.runtime.worker.worker_source_task import WorkerSourceTask
from kconnect.runtime.worker.worker_task import CommitSettings, TaskPlugins, TaskServices

__all__ = ["DEFAULT_TRANSACTION_TIMEOUT_MS", "TaskBuilder"]

#: The producer's ``transaction.timeout.ms`` default (Java's and librdkafka's).
DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000

log = logging.getLogger(__name__)
_plugins_log = context_logger(log, "")


class TaskBuilder:
    def __init__(
        self,
        config: WorkerConfig,
        plugins: Plugins,
        offset_store: OffsetBackingStore,
        clock: Clock,
    ) -> None:
        self.config = config
        self.plugins = plugins
        self.offset_store = offset_store
        self.clock = clock
        self._password_keys: dict[str, frozenset[str]] = {}
        #: the source task producers shared by configuration (``task.producers.shared``)
        self.shared_producers = (
            SharedProducers(f"connector-producer-shared-{os.getpid()}")
            if config.task_producers_shared
            else None
        )

    @property
    def policy(self) -> ConnectorClientConfigOverridePolicy:
        """The worker's ``connector.client.config.override.policy`` (with its allowlist)."""
        return self.config.client_override_policy

    # -- clients --------------------------------------------------------------------------------

    def producer_props(
        self, task_id: ConnectorTaskId, connector_props: Mapping[str, str]
    ) -> dict[str, object]:
        return {
            **producer_defaults(f"connector-producer-{task_id}"),
            **self.config.java_producer_props(),
            **client_overrides(self.policy, connector_props, PRODUCER_OVERRIDE_PREFIX),
        }

    def _source_task_producer(
        self, producer_props: Mapping[str, Any], services: TaskServices
    ) -> TaskProducer:
        """An at-least-once source task's producer: a handle on the shared producer of its
        settings (``task.producers.shared``), else its own."""
        if self.shared_producers is None:
            return _task_producer(producer_props, services)
        metrics = services.metrics
        return self.shared_producers.acquire(
            producer_props, _shared_producer_stats(metrics.registry) if metrics else None
        )

    def exactly_once_producer_props(
        self, task_id: ConnectorTaskId, connector_props: Mapping[str, str]
    ) -> dict[str, object]:
        """Java's ``exactlyOnceSourceTaskProducerConfigs``: the task producer's settings with
        idempotence on and ``transactional.id`` = ``<group.id>-<connector>-<task>`` (both
        forced, with a warning when a setting said otherwise). librdkafka refuses a delivery
        timeout longer than the transaction timeout, so Connect's unlimited default becomes
        ``transaction.timeout.ms`` unless one was configured."""
        config = self.config
        assert isinstance(config, DistributedConfig)
        props = self.producer_props(task_id, connector_props)
        overrides = client_overrides(self.policy, connector_props, PRODUCER_OVERRIDE_PREFIX)
        worker = config.originals_with_prefix("producer.")
        configured = {**worker, **overrides}
        for key, value in (
            ("enable.idempotence", "true"),
            ("transactional.id", config.task_transactional_id(task_id.connector, task_id.task)),
        ):
            given = configured.get(key)
            if given is not None and str(given).strip().lower() != value.lower():
                log.warning(
                    "Ignoring the configured value '%s' for '%s' of task %s: it must be '%s' "
                    "for connectors when exactly-once source support is enabled",
                    given,
                    key,
                    task_id,
                    value,
                )
            props[key] = value
        if "delivery.timeout.ms" not in configured:
            props["delivery.timeout.ms"] = int(
                str(configured.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))
            )
        return props

    def consumer_props(
        self, task_id: ConnectorTaskId, config: ConnectorConfig
    ) -> dict[str, object]:
        return {
            **consumer_defaults(config.sink_group_id, f"connector-consumer-{task_id}"),
            **self.config.java_consumer_props(),
            **client_overrides(self.policy, config.props, CONSUMER_OVERRIDE_PREFIX),
        }

    def admin_props(self, connector_props: Mapping[str, str] | None = None) -> dict[str, object]:
        overrides = (
            client_overrides(self.policy, connector_props, ADMIN_OVERRIDE_PREFIX)
            if connector_props is not None
            else {}
        )
        return {**self.config.java_admin_props(), **overrides}

    # -- secrets ----------------------------------------------------------------------------------

    def remember_secrets(self, config: ConnectorConfig, task_props: Mapping[str, str]) -> None:
        """Remember the task's secret settings in this process (a task process included), so
        they are hidden in its log lines and traces even if a plugin quotes its config: the
        keys its connector declares PASSWORD, client secrets, keys named like secrets."""
        cls = config.connector_class
        keys = self._password_keys.get(cls)
        if keys is None:
            try:
                keys = password_keys(self.plugins.new_connector(cls).config())
            except Exception:  # the task's own start reports a broken connector
                keys = frozenset()
            self._password_keys[cls] = keys
        remember_config_secrets(config.props, keys)
        remember_config_secrets(task_props, keys)

    # -- converters and transforms --------------------------------------------------------------

    def plugins_for(self, config: ConnectorConfig) -> TaskPlugins:
        """Key, value and header converters -- the connector's own when it sets one, else the
        worker's (a connector's ``key.converter.*`` settings only apply to its own class) --
        and the transformation chain. Raises (after closing what it made) when one fails."""

        def pick(kind: str) -> tuple[str, dict[str, str]]:
            cls = config.converter_class(kind)
            if cls is not None:
                return cls, config.converter_settings(kind)
            return self.config.converter_configs(kind)

        made: list[Any] = []
        try:
            name, cfg = pick("key")
            made.append(self.plugins.new_converter(name, cfg, True))
            name, cfg = pick("value")
            made.append(self.plugins.new_converter(name, cfg, False))
            name, cfg = pick("header")
            made.append(self.plugins.new_header_converter(name, cfg))
            chain = None
            if config.transforms:
                chain = TransformationChain.from_config(config.props, self.plugins)
                if chain.is_empty():
                    chain = None
        except BaseException:
            for c in made:
                try:
                    c.close()
                except Exception:
                    pass
            raise
        return TaskPlugins(made[0], made[1], made[2], chain)

    def retry_operator(
        self,
        task_id: ConnectorTaskId,
        config: ConnectorConfig,
        metrics: TaskMetricsBundle | None = None,
    ) -> tuple[RetryWithToleranceOperator, bool]:
        """The task's operator with its reporters (log; DLQ for sinks that name a topic); also
        whether an errant-record reporter applies (a DLQ topic or error logging is set)."""
        errors = metrics.errors if metrics is not None else None
        op = RetryWithToleranceOperator.from_connector_config(config, self.clock)
        op.metrics = errors
        log_reporter = LogReporter(task_id, config, errors)
        op.reporters.append(log_reporter)
        dlq = isinstance(config, SinkConnectorConfig) and config.dlq_topic_name is not None
        if isinstance(config, SinkConnectorConfig) and dlq:
            op.reporters.append(
                DeadLetterQueueReporter.create(
                    Admin(self.admin_props(config.props)),
                    self.producer_props(task_id, config.props),
                    task_id,
                    config,
                    errors,
                )
            )
        return op, dlq or log_reporter.enabled

    # -- tasks ----------------------------------------------------------------------------------

    def source_task(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        config: SourceConnectorConfig,
        task_props: Mapping[str, str],
        target: TargetState,
        services: TaskServices,
    ) -> WorkerSourceTask:
        self.remember_secrets(config, task_props)
        plugins = self.plugins_for(config)
        closers: list[Any] = [plugins]
        try:
            op, _ = self.retry_operator(task_id, config, services.metrics)
            closers.append(op)
            producer_props = self.producer_props(task_id, config.props)
            producer = self._source_task_producer(producer_props, services)
            creation = self._topic_creation(config)
        except BaseException:
            _close_all(closers)
            raise
        wt = WorkerSourceTask(
            task_id,
            task,
            task_props,
            config,
            target,
            services,
            plugins,
            op,
            producer,
            offset_reader=OffsetStorageReaderImpl(self.offset_store, task_id.connector),
            offset_writer=OffsetStorageWriter(self.offset_store, task_id.connector),
            topic_creation=creation,
            commit=CommitSettings.from_worker_config(self.config),
        )
        op.bind_stop_event(wt._stopping)
        return wt

    def _topic_creation(self, config: SourceConnectorConfig) -> TopicCreation | None:
        """KIP-158 topic creation for a source task (an admin client only when configured)."""
        return TopicCreation.from_config(
            self.config.topic_creation_enable,
            config.props,
            Admin(self.admin_props(config.props)) if config.topic_creation_configured else None,
        )

    def exactly_once_source_task(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        config: SourceConnectorConfig,
        task_props: Mapping[str, str],
        target: TargetState,
        services: TaskServices,
        preflight: ExactlyOncePreflight,
    ) -> ExactlyOnceWorkerSourceTask:
        """An exactly-once source task (``exactly.once.source.support=enabled``): a
        transactional producer, and an offset store on the connector's
        ``offsets.storage.topic`` (else the worker's) that this producer writes."""
        worker_config = self.config
        if not isinstance(worker_config, DistributedConfig):
            raise ConnectException("Exactly-once source tasks need a distributed worker")
        self.remember_secrets(config, task_props)
        plugins = self.plugins_for(config)
        closers: list[Any] = [plugins]
        try:
            op, _ = self.retry_operator(task_id, config, services.metrics)
            closers.append(op)
            producer_props = self.exactly_once_producer_props(task_id, config.props)
            producer = _task_producer(producer_props, services)
            closers.append(producer)
            store = self._transactional_offset_store(task_id, config, producer)
            creation = self._topic_creation(config)
        except BaseException:
            _close_all(closers)
            raise
        wt = ExactlyOnceWorkerSourceTask(
            task_id,
            task,
            task_props,
            config,
            target,
            services,
            plugins,
            op,
            producer,
            offset_store=store,
            topic_creation=creation,
            commit=CommitSettings.from_worker_config(worker_config),
            preflight=preflight,
            transaction_timeout_ms=int(
                str(producer_props.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))
            ),
        )
        op.bind_stop_event(wt._stopping)
        return wt

    def _transactional_offset_store(
        self, task_id: ConnectorTaskId, config: SourceConnectorConfig, producer: Producer
    ) -> TransactionalOffsetStore:
        """The task's offsets: written by ``producer``, read ``read_committed`` (Java's
        ``offsetStoreForExactlyOnceSourceTask``); the connector's own topic is created like
        the worker's offsets topic when missing, and the worker's store is read for
        partitions it does not have."""
        worker_config = self.config
        assert isinstance(worker_config, DistributedConfig)
        worker_spec = worker_config.offset_topic_spec()
        topic = config.offsets_storage_topic or worker_spec.name
        spec = dataclasses.replace(worker_spec, name=topic)
        consumer: dict[str, object] = {
            "client.id": f"connector-consumer-{task_id}",
            **worker_config.java_consumer_props(),
            **client_overrides(self.policy, config.props, CONSUMER_OVERRIDE_PREFIX),
        }
        for key in ("group.id", "enable.auto.commit", "auto.offset.reset"):
            consumer.pop(key, None)  # the log reads every partition from the start itself
        consumer["isolation.level"] = "read_committed"
        store = TransactionalOffsetStore(
            topic,
            producer,
            fallback=self.offset_store if topic != worker_spec.name else None,
        )
        admin_props = self.admin_props(config.props)

        def create_topic() -> None:
            if topic != worker_spec.name:
                ensure_internal_topic(InternalTopicAdmin(admin_props), spec)

        store.bind(
            KafkaBasedLog(
                topic,
                None,
                consumer,
                store.on_record,
                create_topic,
                f"connector-consumer-{task_id}-offsets",
            )
        )
        return store

    def sink_task(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        config: SinkConnectorConfig,
        task_props: Mapping[str, str],
        target: TargetState,
        services: TaskServices,
    ) -> WorkerSinkTask:
        self.remember_secrets(config, task_props)
        plugins = self.plugins_for(config)
        closers: list[Any] = [plugins]
        try:
            op, errant = self.retry_operator(task_id, config, services.metrics)
            closers.append(op)
            java_consumer = self.consumer_props(task_id, config)
            max_poll = max_poll_records(java_consumer)
            metrics = services.metrics
            consumer = Consumer(
                java_consumer,
                metrics.client(str(java_consumer["client.id"]), "consumer").on_stats
                if metrics is not None
                else None,
            )
        except BaseException:
            _close_all(closers)
            raise
        wt = WorkerSinkTask(
            task_id,
            task,
            task_props,
            config,
            target,
            services,
            plugins,
            op,
            consumer,
            commit=CommitSettings.from_worker_config(self.config),
            errant_reporter_enabled=errant,
            max_poll_records=max_poll,
        )
        op.bind_stop_event(wt._stopping)
        return wt


def _close_all(closers: list[Any]) -> None:
    for c in closers:
        try:
            if isinstance(c, TaskPlugins):
                c.close(_plugins_log)
            else:
                c.close()
        except Exception:
            pass


def _shared_producer_stats(
    registry: MetricsRegistry,
) -> Callable[[str], tuple[Callable[[ClientStats], None], Callable[[], None]]]:
    """The statistics of a shared producer: its own ``producer-metrics`` in the process's
    registry, closed with it."""

    def make(client_id: str) -> tuple[Callable[[ClientStats], None], Callable[[], None]]:
        cm = ClientMetrics(registry, client_id, "producer")
        return cm.on_stats, cm.close

    return make


def _task_producer(producer_props: Mapping[str, Any], services: TaskServices) -> Producer:
    """A source task's producer, its librdkafka statistics fed to the task's client metrics."""
    metrics = services.metrics
    return Producer(
        producer_props,
        metrics.client(str(producer_props["client.id"]), "producer").on_stats
        if metrics is not None
        else None,
    )
