"""Builds the pieces of a worker task from the worker and connector configuration.

Kept apart from :mod:`kconnect.runtime.worker.worker` so the Worker only manages lifecycles. Called
on the thread that starts the task (the herder's); everything it creates is handed to the task,
which owns and closes it. Client settings are layered as Kafka does: Connect's defaults, then
the worker's ``producer.``/``consumer.``/``admin.`` settings, then the connector's
``*.override.*`` settings (checked against ``connector.client.config.override.policy``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kconnect.api.task import SinkTask, SourceTask
from kconnect.kafka.admin import Admin
from kconnect.kafka.consumer import Consumer, consumer_defaults
from kconnect.kafka.producer import Producer, producer_defaults
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
from kconnect.runtime.config.secret_settings import password_keys, remember_config_secrets
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.worker.errors.reporters import DeadLetterQueueReporter, LogReporter
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.transformation_chain import TransformationChain
from kconnect.runtime.worker.worker_sink_task import WorkerSinkTask
from kconnect.runtime.worker.worker_source_task import WorkerSourceTask
from kconnect.runtime.worker.worker_task import CommitSettings, TaskPlugins, TaskServices

__all__ = ["TaskBuilder"]

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
            metrics = services.metrics
            producer = Producer(
                producer_props,
                metrics.client(str(producer_props["client.id"]), "producer").on_stats
                if metrics is not None
                else None,
            )
            creation = TopicCreation.from_config(
                self.config.topic_creation_enable,
                config.props,
                Admin(self.admin_props(config.props)) if config.topic_creation_configured else None,
            )
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
            max_poll = int(str(java_consumer.get("max.poll.records", 500)))
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
