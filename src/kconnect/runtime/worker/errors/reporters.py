"""Error reporters: the log (``errors.log.*``) and the dead letter queue (sinks only).

Both run on the task thread from :class:`~kconnect.runtime.worker.errors.retry_operator.
RetryWithToleranceOperator` for every failure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.kafka.clients.admin import Admin, NewTopicSpec
from kconnect.kafka.clients.producer import Producer, delivery_error
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.connector_config import ConnectorConfig, SinkConnectorConfig
from kconnect.runtime.metrics.task_metrics import ErrorHandlingMetrics
from kconnect.runtime.worker.errors.retry_operator import ErrorReporter, ProcessingContext
from kconnect.runtime.worker.errors.stage import (
    exception_class_name,
    exception_message,
    stacktrace,
)

__all__ = ["DeadLetterQueueReporter", "LogReporter"]

log = logging.getLogger("kconnect.runtime.worker.errors.LogReporter")
dlq_log = logging.getLogger(__name__)

HEADER_PREFIX = "__connect.errors."
H_TOPIC = HEADER_PREFIX + "topic"
H_PARTITION = HEADER_PREFIX + "partition"
H_OFFSET = HEADER_PREFIX + "offset"
H_CONNECTOR = HEADER_PREFIX + "connector.name"
H_TASK = HEADER_PREFIX + "task.id"
H_STAGE = HEADER_PREFIX + "stage"
H_CLASS = HEADER_PREFIX + "class.name"
H_EXC = HEADER_PREFIX + "exception.class.name"
H_EXC_MSG = HEADER_PREFIX + "exception.message"
H_EXC_TRACE = HEADER_PREFIX + "exception.stacktrace"


class LogReporter(ErrorReporter):
    """Logs each failure at ERROR when ``errors.log.enable=true``.

    Message (Kafka's): ``Error encountered in task <id>. Executing stage '<STAGE>' with class
    '<class>'`` + (with ``errors.log.include.messages=true``) ``, where consumed record is
    {topic=..., partition=..., offset=..., timestamp=..., timestampType=...}`` or ``, where
    source record is = <record>``, then ``.``; the exception is attached.
    """

    def __init__(
        self,
        task_id: ConnectorTaskId,
        config: ConnectorConfig,
        metrics: ErrorHandlingMetrics | None = None,
    ) -> None:
        self.task_id = task_id
        self.metrics = metrics
        self.enabled = config.errors_log_enable
        self.include_messages = config.errors_log_include_messages

    def message(self, context: ProcessingContext) -> str:
        stage = context.stage.value if context.stage else "UNKNOWN"
        text = (
            f"Error encountered in task {self.task_id}. Executing stage '{stage}' with "
            f"class '{context.executing_class}'"
        )
        if self.include_messages and context.consumer_record is not None:
            text += ", where consumed record is " + context.consumer_record.describe()
        elif self.include_messages and context.source_record is not None:
            text += f", where source record is = {context.source_record!r}"
        return text + "."

    def report(self, context: ProcessingContext) -> None:
        if not self.enabled or context.error is None:
            return None
        log.error(self.message(context), exc_info=context.error)
        if self.metrics is not None:
            self.metrics.logged.record()
        return None


class DeliveryFuture(Future[None]):
    """The outcome of one record sent to the dead letter queue.

    The producer's delivery callback completes it, and that callback runs inside a ``poll`` of
    the producer -- which the task thread calls between batches. A caller that waits for it
    meanwhile (a sink task inside ``put`` waiting for its errant record reporter, as Kafka's
    contract allows; the Java plugin host's reporter callback) would wait for a thread that is
    waiting for it: so ``result`` and ``exception`` poll the producer themselves while they wait.
    """

    POLL_S = 0.05

    def __init__(self, poll: Callable[[float], Any]) -> None:
        super().__init__()
        self._poll = poll

    def _wait(self, timeout: float | None) -> float | None:
        """Poll until done or ``timeout``; the time left (0 when it ran out, None: none set)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return 0.0
            self._poll(self.POLL_S if left is None else min(self.POLL_S, left))
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def result(self, timeout: float | None = None) -> None:
        return super().result(self._wait(timeout))

    def exception(self, timeout: float | None = None) -> BaseException | None:
        return super().exception(self._wait(timeout))


class DeadLetterQueueReporter(ErrorReporter):
    """Writes the original consumed record to ``errors.deadletterqueue.topic.name``.

    Key, value, headers and timestamp are the bytes as consumed (partition left to the
    partitioner). With ``errors.deadletterqueue.context.headers.enable=true`` it adds the
    ``__connect.errors.*`` headers (UTF-8 strings): topic, partition, offset, connector.name,
    task.id, stage, class.name, and when there is an error exception.class.name (see
    :func:`~kconnect.runtime.worker.errors.stage.exception_class_name`), exception.message,
    exception.stacktrace. A header the record already carries is not overwritten.
    """

    def __init__(
        self,
        producer: Producer,
        topic: str,
        task_id: ConnectorTaskId,
        context_headers: bool,
        metrics: ErrorHandlingMetrics | None = None,
    ) -> None:
        self.metrics = metrics
        self.producer = producer
        self.topic = topic
        self.task_id = task_id
        self.context_headers = context_headers
        self.produce_failures = 0

    @classmethod
    def create(
        cls,
        admin: Admin,
        producer_props: Mapping[str, object],
        task_id: ConnectorTaskId,
        config: SinkConnectorConfig,
        metrics: ErrorHandlingMetrics | None = None,
    ) -> DeadLetterQueueReporter:
        """Create the DLQ topic if missing (1 partition, the configured replication factor),
        and the DLQ producer (client id ``connector-dlq-producer-<connector>-<task>``).

        Raises ConnectException when the connector has no ``errors.deadletterqueue.topic.name``.
        """
        topic = config.dlq_topic_name
        if topic is None:
            raise ConnectException(f"Connector {config.name} has no dead letter queue topic")
        rf = config.dlq_topic_replication_factor
        if topic not in admin.topic_partition_counts([topic]):
            dlq_log.error("Topic %s doesn't exist. Will attempt to create topic.", topic)
            admin.create_topics([NewTopicSpec(topic, 1, rf)])
        props = {**producer_props, "client.id": f"connector-dlq-producer-{task_id}"}
        return cls(
            Producer(props),
            topic,
            task_id,
            config.dlq_context_headers_enable,
            metrics,
        )

    def _context_headers(self, context: ProcessingContext) -> list[tuple[str, bytes]]:
        rec = context.consumer_record
        items = [
            (H_TOPIC, rec.topic if rec else ""),
            (H_PARTITION, str(rec.partition if rec else -1)),
            (H_OFFSET, str(rec.offset if rec else -1)),
            (H_CONNECTOR, self.task_id.connector),
            (H_TASK, str(self.task_id.task)),
            (H_STAGE, context.stage.value if context.stage else ""),
            (H_CLASS, context.executing_class or ""),
        ]
        err = context.error
        if err is not None:
            items.append((H_EXC, exception_class_name(err)))
            message = exception_message(err)
            if message is not None:
                items.append((H_EXC_MSG, message))
            items.append((H_EXC_TRACE, stacktrace(err)))
        return [(k, v.encode("utf-8")) for k, v in items]

    def report(self, context: ProcessingContext) -> Future[None] | None:
        rec = context.consumer_record
        m = self.metrics
        if m is not None:
            m.dlq_requests.record()
        if rec is None:
            if m is not None:
                m.dlq_failures.record()
            return None
        headers: list[tuple[str, bytes | None]] = list(rec.headers or [])
        if self.context_headers:
            present = {k for k, _ in headers}
            for k, v in self._context_headers(context):
                if k in present:
                    dlq_log.error("Header already contains the '%s' key.", k)
                else:
                    headers.append((k, v))
        fut: Future[None] = DeliveryFuture(self.producer.poll)
        topic = self.topic

        def on_delivery(err: Any, _msg: Any) -> None:
            if err is not None:
                self.produce_failures += 1
                if m is not None:
                    m.dlq_failures.record()
                dlq_log.error(
                    "Could not produce message to dead letter queue. topic=%s: %s", topic, err
                )
                fut.set_exception(delivery_error(err, topic))
            else:
                fut.set_result(None)

        timestamp = rec.timestamp if rec.timestamp is not None and rec.timestamp >= 0 else None
        self.producer.produce(topic, rec.value, rec.key, None, timestamp, headers, on_delivery)
        self.producer.poll(0)
        return fut

    def flush(self, timeout_s: float) -> None:
        self.producer.flush(timeout_s)

    def close(self) -> None:
        self.producer.close(5.0)
