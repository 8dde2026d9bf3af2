"""``WorkerSinkTask``: runs a SinkTask — consume, convert, transform, put, commit offsets.

The loop wires two halves, each in its own module:
:class:`~kconnect.runtime.worker.sink_consumer.SinkConsumer` (the consumer side: subscription,
assignment, polling, pausing, seeking) and
:class:`~kconnect.runtime.worker.sink_delivery.SinkDelivery` (the delivery side: convert,
transform, put, commit). Each iteration (task thread):

1. commit offsets when ``offset.flush.interval.ms`` passed or the task asked for it (async;
   sync on revocation and stop);
2. apply the target state (PAUSED pauses every assigned partition and keeps polling so the
   group membership stays alive) and offset resets asked through ``SinkTaskContext.offset``;
3. while a batch waits for redelivery (a put raised RetriableException), poll paused until it
   is due, then put it again;
4. otherwise ``consume`` a batch (without waiting right after a put of records, so that a task
   which completes a write at its next ``put`` gets that call at once), convert and transform
   it, and ``put`` it.

Rebalance callbacks run inside ``consume`` on this thread: ``open`` on assignment; on
revocation a synchronous commit, then ``close``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect._hot_path import release_thread_memory
from kconnect.api.errors import ConnectException
from kconnect.api.plugin_metrics import DomainMetrics, PluginMetrics
from kconnect.api.records import TopicPartition
from kconnect.api.task import ErrantRecordReporter, SinkTask, SinkTaskContext
from kconnect.kafka.clients.consumer import DEFAULT_MAX_POLL_RECORDS, Consumer
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.connector_config import SinkConnectorConfig, parse_topics_list
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.sink_consumer import PauseReason, SinkConsumer
from kconnect.runtime.worker.sink_delivery import SinkDelivery
from kconnect.runtime.worker.worker_task import (
    CommitSettings,
    TaskPlugins,
    TaskServices,
    WorkerTask,
)

__all__ = ["WorkerSinkTask", "WorkerSinkTaskContext"]

MAX_POLL_S = 1.0


class WorkerSinkTaskContext(SinkTaskContext):
    """The SinkTaskContext handed to the task; call from the task thread only."""

    def __init__(self, owner: WorkerSinkTask) -> None:
        self._owner = owner
        # one of each per task, as the source task's context has (and Java's WorkerTask)
        self._domain_metrics = owner.metrics.domain_metrics()
        self._plugin_metrics = owner.metrics.plugin_metrics()

    def configs(self) -> Mapping[str, str]:
        return self._owner.task_props

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self._owner.consumer.request_rewinds(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self._owner.delivery.context_timeout_ms = int(timeout_ms)

    def assignment(self) -> set[TopicPartition]:
        return set(self._owner.consumer.assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        self._owner.consumer.pause_partitions(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self._owner.consumer.resume_partitions(partitions)

    def request_commit(self) -> None:
        self._owner.commit_requested = True

    def domain_metrics(self) -> DomainMetrics | None:
        return self._domain_metrics

    def plugin_metrics(self) -> PluginMetrics | None:
        return self._plugin_metrics

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._owner.delivery.errant_reporter


class WorkerSinkTask(WorkerTask):
    _is_sink = True

    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        task_props: Mapping[str, str],
        config: SinkConnectorConfig,
        initial_state: TargetState,
        services: TaskServices,
        plugins: TaskPlugins,
        operator: RetryWithToleranceOperator,
        consumer: Consumer,
        *,
        commit: CommitSettings,
        errant_reporter_enabled: bool,
        max_poll_records: int = DEFAULT_MAX_POLL_RECORDS,
    ) -> None:
        super().__init__(task_id, initial_state, services, plugins, operator)
        self.task = task
        self.task_props = dict(task_props)
        self.config = config
        self.commit_settings = commit
        self.consumer = SinkConsumer(consumer, max_poll_records, self.log)
        self.delivery = SinkDelivery(
            task_id,
            task,
            plugins,
            operator,
            self.consumer,
            self.metrics,
            self.clock,
            self.log,
            errant_reporter_enabled=errant_reporter_enabled,
            flush_timeout_ms=commit.timeout_ms,
            topic_tracker=services.topic_tracker,
        )
        self.commit_requested = False
        self._task_started = False
        self._next_commit = 0.0
        self._busy = False  # messages arrived since the task last went idle

    # -- lifecycle ------------------------------------------------------------------------------

    def _subscription(self) -> tuple[list[str], str | None]:
        """``topics`` / ``topics.regex`` of the task config, else of the connector config."""
        props = self.task_props
        topics = parse_topics_list(props) if "topics" in props else self.config.topics
        regex = (props.get("topics.regex") or "").strip() or self.config.topics_regex
        return topics, regex

    def _initialize_and_start(self) -> None:
        self.task.initialize(WorkerSinkTaskContext(self))
        self._task_started = True
        self.task.start(self.task_props)
        topics, regex = self._subscription()
        if not topics and not regex:
            raise ConnectException(
                "Sink tasks require a list of topics or a topics.regex; set "
                "'topics' or 'topics.regex' in the connector config."
            )
        self.consumer.subscribe(topics, regex, self.delivery.opened, self._revoked)
        self.log.info("Sink task finished initialization and start")
        self._next_commit = self.clock.monotonic_ms() + self.commit_settings.interval_ms

    def _revoked(self, partitions: set[TopicPartition]) -> None:
        self.delivery.close_partitions(partitions, self._failed)

    def _execute(self) -> None:
        while not self.is_stopping():
            self._iteration()

    def _close(self) -> None:
        try:
            if self._task_started:
                try:
                    self.delivery.close_partitions(set(self.consumer.assigned), self._failed)
                finally:
                    try:
                        self.task.stop()
                    except Exception:
                        self.log.exception("Exception thrown while calling task.stop()")
        finally:
            try:
                self.consumer.close()
            except Exception:
                self.log.exception("Failed to close consumer")
            self._close_plugins()

    # -- the loop -------------------------------------------------------------------------------

    def _iteration(self) -> None:
        delivery, consumer, clock = self.delivery, self.consumer, self.clock
        if self.commit_requested or clock.monotonic_ms() >= self._next_commit:
            self.commit_requested = False
            delivery.commit(sync=False)
            self._next_commit = clock.monotonic_ms() + self.commit_settings.interval_ms
        self._apply_target_state()
        consumer.reapply_pause()
        rewound = consumer.apply_rewinds()
        if rewound:
            delivery.rewound(rewound)
        if delivery.awaiting_redelivery:
            if clock.monotonic_ms() >= delivery.redeliver_at:
                delivery.deliver(self._next_commit)
                return
            wait_ms = min(delivery.redeliver_at - clock.monotonic_ms(), MAX_POLL_S * 1000)
            consumer.consume(max(0.0, wait_ms) / 1000.0)  # keeps group membership; paused
            return
        if delivery.put_nonempty:
            # Right after a put of records, look only at what is already fetched: when nothing
            # is, put([]) comes at once, so a task that finishes its last write in the next put
            # (see SinkTask.put) does not wait for a poll timeout.
            timeout_ms = 0.0
        else:
            timeout_ms = max(0.0, self._next_commit - clock.monotonic_ms())
            timeout_ms = min(timeout_ms, MAX_POLL_S * 1000)
        msgs = consumer.consume(timeout_ms / 1000.0)
        if consumer.is_paused_for(PauseReason.TARGET_STATE):
            return
        if msgs:
            self._busy = True
            delivery.convert(msgs)
        elif self._busy and timeout_ms > 0:
            # a poll that waited found nothing after batches: the task is idle, and the
            # allocator's pages of this thread go back
            self._busy = False
            release_thread_memory()
        delivery.deliver(self._next_commit)

    def _apply_target_state(self) -> None:
        if self.should_pause():
            if self.consumer.pause_all(PauseReason.TARGET_STATE):
                self.delivery.commit(sync=False)
                self._report_pause()
        elif self.consumer.resume_all(PauseReason.TARGET_STATE):
            self._report_resume()
