"""Builds the pieces of a worker task from the worker and connector configuration.

Kept apart from :mod:`kconnect.runtime.worker.worker` so the Worker only manages lifecycles. Called
on the thread that starts the task (the herder's); everything it creates is handed to the task,
which owns and closes it. Client settings are layered as Kafka does: Connect's defaults, then
the worker's ``producer.``/``consumer.``/``admin.`` settings, then the connector's
``*.override.*`` settings (checked against ``connector.client.config.override.policy``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api.converter import Converter, HeaderConverter
from kconnect.api.task import SinkTask, SourceTask
from kconnect.kafka.admin import Admin
from kconnect.kafka.consumer import Consumer, consumer_defaults
from kconnect.kafka.producer import Producer, producer_defaults
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.client_overrides import (
    ADMIN_OVERRIDE_PREFIX,
    CONSUMER_OVERRIDE_PREFIX,
    PRODUCER_OVERRIDE_PREFIX,
    client_overrides,
)
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.worker.errors.reporters import DeadLetterQueueReporter, LogReporter
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.topic_creation import TopicCreation
from kconnect.runtime.worker.transformation_chain import TransformationChain
from kconnect.runtime.worker.worker_sink_task import WorkerSinkTask
from kconnect.runtime.worker.worker_source_task import WorkerSourceTask

__all__ = ["TaskBuilder", "sink_group_id"]

log = logging.getLogger(__name__)


def sink_group_id(name: str, connector_props: Mapping[str, str]) -> str:
    """``consumer.override.group.id`` or ``connect-<name>``."""
    return connector_props.get(CONSUMER_OVERRIDE_PREFIX + "group.id") or f"connect-{name}"


class TaskBuilder:
    def __init__(
        self,
        config: WorkerConfig,
        plugins: Any,
        offset_store: OffsetBackingStore,
        clock: Clock | None,
    ) -> None:
        self.config = config
        self.plugins = plugins
        self.offset_store = offset_store
        self.clock = clock

    @property
    def policy(self) -> str:
        return str(self.config.get_string("connector.client.config.override.policy"))

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
        self, task_id: ConnectorTaskId, connector_props: Mapping[str, str]
    ) -> dict[str, object]:
        return {
            **consumer_defaults(
                sink_group_id(task_id.connector, connector_props), f"connector-consumer-{task_id}"
            ),
            **self.config.java_consumer_props(),
            **client_overrides(self.policy, connector_props, CONSUMER_OVERRIDE_PREFIX),
        }

    def admin_props(self, connector_props: Mapping[str, str] | None = None) -> dict[str, object]:
        overrides = (
            client_overrides(self.policy, connector_props, ADMIN_OVERRIDE_PREFIX)
            if connector_props is not None
            else {}
        )
        return {**self.config.java_admin_props(), **overrides}

    # -- converters and transforms --------------------------------------------------------------

    def converters(
        self, connector_props: Mapping[str, str]
    ) -> tuple[Converter, Converter, HeaderConverter]:
        """Key, value and header converters: the connector's own when it sets one, else the
        worker's (a connector's ``key.converter.*`` settings only apply to its own class)."""

        def pick(kind: str) -> tuple[str, dict[str, str]]:
            cls = (connector_props.get(f"{kind}.converter") or "").strip()
            if cls:
                prefix = f"{kind}.converter."
                return cls, {
                    k[len(prefix) :]: v
                    for k, v in connector_props.items()
                    if k.startswith(prefix) and k != prefix + "plugin.version"
                }
            return self.config.converter_configs(kind)

        made: list[Any] = []
        try:
            name, cfg = pick("key")
            made.append(self.plugins.new_converter(name, cfg, True))
            name, cfg = pick("value")
            made.append(self.plugins.new_converter(name, cfg, False))
            name, cfg = pick("header")
            made.append(self.plugins.new_header_converter(name, cfg))
        except BaseException:
            for c in made:
                try:
                    c.close()
                except Exception:
                    pass
            raise
        return made[0], made[1], made[2]

    def transformation_chain(self, connector_props: Mapping[str, str]) -> Any | None:
        if not (connector_props.get("transforms") or "").strip():
            return None
        chain = TransformationChain.from_config(connector_props, self.plugins)
        return None if chain.is_empty() else chain

    def retry_operator(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        sink: bool,
        metrics: TaskMetricsBundle | None = None,
    ) -> tuple[RetryWithToleranceOperator, bool]:
        """The task's operator with its reporters; also whether an errant-record reporter
        applies (a DLQ topic or error logging is configured)."""
        errors = metrics.errors if metrics is not None else None
        op = RetryWithToleranceOperator.from_connector_config(connector_props, self.clock)
        op.metrics = errors
        log_reporter = LogReporter(task_id, connector_props, errors)
        op.reporters.append(log_reporter)
        dlq_topic = (connector_props.get("errors.deadletterqueue.topic.name") or "").strip()
        if sink and dlq_topic:
            op.reporters.append(
                DeadLetterQueueReporter.create(
                    Admin(self.admin_props(connector_props)),
                    self.producer_props(task_id, connector_props),
                    task_id,
                    connector_props,
                    errors,
                )
            )
        return op, bool(dlq_topic) or log_reporter.enabled

    # -- tasks ----------------------------------------------------------------------------------

    def source_task(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        listener: StatusListener,
        target: TargetState,
        topic_tracker: Callable[[str, str], None] | None,
        metrics: TaskMetricsBundle | None = None,
    ) -> WorkerSourceTask:
        closers: list[Any] = []
        try:
            kc, vc, hc = self.converters(connector_props)
            closers += [kc, vc, hc]
            chain = self.transformation_chain(connector_props)
            if chain is not None:
                closers.append(chain)
            op, _ = self.retry_operator(task_id, connector_props, sink=False, metrics=metrics)
            producer_props = self.producer_props(task_id, connector_props)
            producer = Producer(
                producer_props,
                metrics.client(str(producer_props["client.id"]), "producer").on_stats
                if metrics is not None
                else None,
            )
            creation = TopicCreation.from_config(
                self.config.topic_creation_enable,
                connector_props,
                Admin(self.admin_props(connector_props))
                if any(k.startswith("topic.creation.") for k in connector_props)
                else None,
            )
        except BaseException:
            for c in closers:
                try:
                    c.close()
                except Exception:
                    pass
            raise
        wt = WorkerSourceTask(
            task_id,
            task,
            task_props,
            listener,
            target,
            key_converter=kc,
            value_converter=vc,
            header_converter=hc,
            transformation_chain=chain,
            producer=producer,
            offset_reader=OffsetStorageReaderImpl(self.offset_store, task_id.connector),
            offset_writer=OffsetStorageWriter(self.offset_store, task_id.connector),
            retry_operator=op,
            topic_creation=creation,
            offset_flush_interval_ms=self.config.offset_flush_interval_ms,
            offset_flush_timeout_ms=self.config.offset_flush_timeout_ms,
            topic_tracker=topic_tracker,
            clock=self.clock,
            metrics=metrics,
        )
        op.bind_stop_event(wt._stopping)
        return wt

    def sink_task(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        listener: StatusListener,
        target: TargetState,
        topic_tracker: Callable[[str, str], None] | None,
        metrics: TaskMetricsBundle | None = None,
    ) -> WorkerSinkTask:
        closers: list[Any] = []
        try:
            kc, vc, hc = self.converters(connector_props)
            closers += [kc, vc, hc]
            chain = self.transformation_chain(connector_props)
            if chain is not None:
                closers.append(chain)
            op, errant = self.retry_operator(task_id, connector_props, sink=True, metrics=metrics)
            closers.append(op)
            java_consumer = self.consumer_props(task_id, connector_props)
            max_poll = int(str(java_consumer.get("max.poll.records", 500)))
            consumer = Consumer(
                java_consumer,
                metrics.client(str(java_consumer["client.id"]), "consumer").on_stats
                if metrics is not None
                else None,
            )
        except BaseException:
            for c in closers:
                try:
                    c.close()
                except Exception:
                    pass
            raise
        wt = WorkerSinkTask(
            task_id,
            task,
            task_props,
            connector_props,
            listener,
            target,
            key_converter=kc,
            value_converter=vc,
            header_converter=hc,
            transformation_chain=chain,
            consumer=consumer,
            retry_operator=op,
            errant_reporter_enabled=errant,
            offset_flush_interval_ms=self.config.offset_flush_interval_ms,
            offset_flush_timeout_ms=self.config.offset_flush_timeout_ms,
            max_poll_records=max_poll,
            topic_tracker=topic_tracker,
            clock=self.clock,
            metrics=metrics,
        )
        op.bind_stop_event(wt._stopping)
        return wt
