"""Per-task metric groups: ``connector-task-metrics``, ``source-task-metrics``,
``sink-task-metrics``, ``task-error-metrics`` (names from Kafka's ``ConnectMetricsRegistry``)
and kconnect's ``task`` group in the ``kconnect`` domain (idle time).

Each group is created when the task is built and closed when it stops. ``record_*`` methods
are called on the task thread once per batch/commit; gauges are read on the scrape thread.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry, constant
from kconnect.runtime.metrics.state_tracker import StateTracker
from kconnect.runtime.metrics.stats import (
    Avg,
    CumulativeSum,
    Frequencies,
    Max,
    Min,
    Rate,
    Value,
)

__all__ = [
    "ErrorHandlingMetrics",
    "SinkTaskMetrics",
    "SourceTaskMetrics",
    "TaskMetrics",
]

KCONNECT_DOMAIN = "kconnect"


def _task_tags(task_id: ConnectorTaskId) -> dict[str, str]:
    return {"connector": task_id.connector, "task": str(task_id.task)}


class TaskMetrics:
    """``connector-task-metrics``: status, running/pause ratio, batch sizes, offset commits,
    4.1's plugin class/version info; plus kconnect's ``idle-seconds`` (time since the task
    last moved a record, or since it started)."""

    def __init__(
        self,
        registry: MetricsRegistry,
        task_id: ConnectorTaskId,
        info: Mapping[str, str] | None = None,
    ) -> None:
        self.task_id = task_id
        self.clock: Clock = registry.clock
        self.group = g = MetricGroup(registry, "connector-task-metrics", _task_tags(task_id))
        self.states = StateTracker(registry.clock, "unassigned")
        g.gauge(
            "status",
            "The status of the connector task. One of 'unassigned', 'running', 'paused', "
            "'failed', or 'restarting'.",
            lambda: self.states.state or "unassigned",
        )
        g.gauge(
            "running-ratio",
            "The fraction of time this task has spent in the running state.",
            lambda: self.states.ratio("running"),
        )
        g.gauge(
            "pause-ratio",
            "The fraction of time this task has spent in the pause state.",
            lambda: self.states.ratio("paused"),
        )
        self.commit_time = g.sensor(
            "offset-commit-time",
            ("offset-commit-max-time-ms", "The maximum time in milliseconds taken by this "
             "task to commit offsets.", Max()),
            ("offset-commit-avg-time-ms", "The average time in milliseconds taken by this "
             "task to commit offsets.", Avg()),
        )  # fmt: skip
        self.batch_size = g.sensor(
            "batch-size",
            ("batch-size-max", "The number of records in the largest batch the task has "
             "processed so far.", Max()),
            ("batch-size-avg", "The average number of records in the batches the task has "
             "processed so far.", Avg()),
        )  # fmt: skip
        self.commit_attempts = g.frequencies(
            "offset-commit-completion",
            {
                "offset-commit-success-percentage": (
                    "The average percentage of this task's offset commit attempts that succeeded.",
                    1.0,
                ),
                "offset-commit-failure-percentage": (
                    "The average percentage of this task's offset commit attempts that failed.",
                    0.0,
                ),
            },
            Frequencies.for_booleans(),
        )
        self.add_info(info or {})
        self._last_activity = self.clock.monotonic_ms()
        self.idle = MetricGroup(registry, "task", _task_tags(task_id), KCONNECT_DOMAIN)
        self.idle.gauge(
            "idle-seconds",
            "kconnect extension: seconds since this task last polled/read a record (or "
            "since it started); grows while a RUNNING task moves nothing.",
            self.idle_seconds,
        )
        self.python_fallbacks = self.idle.sensor(
            "python-fallback",
            ("python-fallback-total", "kconnect extension: records that a converter's or a "
             "transformation's native form handed to its Python code (the native record "
             "path's fallbacks; 0 on the pure-Python path, where nothing is native).",
             CumulativeSum()),
        )  # fmt: skip

    def add_info(self, info: Mapping[str, str]) -> None:
        """Register string gauges such as ``task-class`` or ``key-converter-version``."""
        for key, value in info.items():
            self.group.gauge(key, f"The {key.replace('-', ' ')} of the task.", constant(value))

    # -- task thread ---------------------------------------------------------------------------

    def record_state(self, state: str) -> None:
        self.states.change(state)

    def record_batch(self, size: int) -> None:
        self.batch_size.record(size)

    def record_activity(self) -> None:
        self._last_activity = self.clock.monotonic_ms()

    def record_python_fallbacks(self, records: int) -> None:
        """Records of a batch that the native record path handed to Python code."""
        if records:
            self.python_fallbacks.record(records)

    def record_commit_success(self, duration_ms: float, now_ms: float | None = None) -> None:
        """An offset commit that succeeded, ending at ``now_ms`` (an idle task's empty one
        too, every ``offset.flush.interval.ms``, as Kafka counts it): recorded later
        (:meth:`Sensor.record_later`), so that each idle task's commit stays cheap."""
        now = self.clock.monotonic_ms() if now_ms is None else now_ms
        self.commit_time.record_later(duration_ms, now)
        self.commit_attempts.record_later(1.0, now)

    def record_commit_failure(self, duration_ms: float, now_ms: float | None = None) -> None:
        now = self.clock.monotonic_ms() if now_ms is None else now_ms
        self.commit_time.record_later(duration_ms, now)
        self.commit_attempts.record_later(0.0, now)

    def idle_seconds(self) -> float:
        return max(0.0, self.clock.monotonic_ms() - self._last_activity) / 1000.0

    def close(self) -> None:
        self.group.close()
        self.idle.close()


class SourceTaskMetrics:
    """``source-task-metrics``. Poll counts are recorded when ``SourceTask.poll`` returns a
    batch, writes when every record of a batch is acknowledged by Kafka (minus the records
    dropped by transformations or tolerated errors), as Kafka's ``SourceRecordWriteCounter``."""

    def __init__(self, registry: MetricsRegistry, task_id: ConnectorTaskId) -> None:
        self.group = g = MetricGroup(registry, "source-task-metrics", _task_tags(task_id))
        self.poll = g.sensor(
            "source-record-poll",
            ("source-record-poll-rate", "The average per-second number of records "
             "produced/polled (before transformation) by this task.", Rate()),
            ("source-record-poll-total", "The total number of records produced/polled "
             "(before transformation) by this task.", CumulativeSum()),
        )  # fmt: skip
        self.write = g.sensor(
            "source-record-write",
            ("source-record-write-rate", "The average per-second number of records written "
             "to Kafka for this task (after transformations, excluding dropped records).",
             Rate()),
            ("source-record-write-total", "The number of records output written to Kafka "
             "for this task (after transformations, excluding dropped records).",
             CumulativeSum()),
        )  # fmt: skip
        self.poll_time = g.sensor(
            "poll-batch-time",
            ("poll-batch-max-time-ms", "The maximum time in milliseconds taken by this task "
             "to poll for a batch of source records.", Max()),
            ("poll-batch-avg-time-ms", "The average time in milliseconds taken by this task "
             "to poll for a batch of source records.", Avg()),
        )  # fmt: skip
        self.active = g.sensor(
            "source-record-active-count",
            ("source-record-active-count", "The number of records that have been produced by "
             "this task but not yet completely written to Kafka.", Value()),
            ("source-record-active-count-max", "The maximum number of records that have been "
             "produced by this task but not yet completely written to Kafka.", Max()),
            ("source-record-active-count-avg", "The average number of records that have been "
             "produced by this task but not yet completely written to Kafka.", Avg()),
        )  # fmt: skip
        # Only exactly-once source tasks (transactions) record into this; NaN otherwise.
        self.transaction_size = g.sensor(
            "transaction-size",
            ("transaction-size-min", "The number of records in the smallest transaction the "
             "task has committed so far.", Min()),
            ("transaction-size-max", "The number of records in the largest transaction the "
             "task has committed so far.", Max()),
            ("transaction-size-avg", "The average number of records in the transactions the "
             "task has committed so far.", Avg()),
        )  # fmt: skip
        self._lock = threading.Lock()
        self._active_count = 0

    def record_poll(self, count: int, duration_ms: float) -> None:
        self.poll.record(count)
        self.poll_time.record(duration_ms)
        with self._lock:
            self._active_count += count
            active = self._active_count
        self.active.record(active)

    def record_write(self, batch_size: int, skipped: int) -> None:
        """A batch is fully acknowledged (may run on the producer callback thread)."""
        self.write.record(batch_size - skipped)
        with self._lock:
            self._active_count = max(0, self._active_count - batch_size)
            active = self._active_count
        self.active.record(active)

    def close(self) -> None:
        self.group.close()


class SinkTaskMetrics:
    """``sink-task-metrics``. Reads are counted per consumed batch (before conversion and
    transformation), sends per successful ``put`` (the records handed to the task)."""

    def __init__(self, registry: MetricsRegistry, task_id: ConnectorTaskId) -> None:
        self.group = g = MetricGroup(registry, "sink-task-metrics", _task_tags(task_id))
        self.read = g.sensor(
            "sink-record-read",
            ("sink-record-read-rate", "The average per-second number of records read from "
             "Kafka for this task (before transformations).", Rate()),
            ("sink-record-read-total", "The total number of records read from Kafka by this "
             "task since it was last restarted.", CumulativeSum()),
        )  # fmt: skip
        self.send = g.sensor(
            "sink-record-send",
            ("sink-record-send-rate", "The average per-second number of records output from "
             "the transformations and sent/put to this task.", Rate()),
            ("sink-record-send-total", "The total number of records output from the "
             "transformations and sent/put to this task since it was last restarted.",
             CumulativeSum()),
        )  # fmt: skip
        self.lag = g.sensor(
            "sink-record-lag-max",
            ("sink-record-lag-max", "The maximum lag in terms of number of records that the "
             "sink task is behind the consumer's position for any topic partitions.", Max()),
        )  # fmt: skip
        self.partition_count = 0
        g.gauge(
            "partition-count",
            "The number of topic partitions assigned to this task.",
            lambda: float(self.partition_count),
        )
        self.commit_seq = g.sensor(
            "offset-commit-seq-no",
            ("offset-commit-seq-no", "The current sequence number for offset commits.",
             Value()),
        )  # fmt: skip
        self.commit_seq.record(0.0)
        self.commit_completion = g.sensor(
            "offset-commit-completion",
            ("offset-commit-completion-rate", "The average per-second number of offset "
             "commit completions that were completed successfully.", Rate()),
            ("offset-commit-completion-total", "The total number of offset commit "
             "completions that were completed successfully.", CumulativeSum()),
        )  # fmt: skip
        self.commit_skip = g.sensor(
            "offset-commit-skip",
            ("offset-commit-skip-rate", "The average per-second number of offset commit "
             "completions that were received too late and skipped/ignored.", Rate()),
            ("offset-commit-skip-total", "The total number of offset commit completions "
             "that were received too late and skipped/ignored.", CumulativeSum()),
        )  # fmt: skip
        self.put_time = g.sensor(
            "put-batch-time",
            ("put-batch-max-time-ms", "The maximum time taken by this task to put a batch of "
             "sinks records.", Max()),
            ("put-batch-avg-time-ms", "The average time taken by this task to put a batch of "
             "sinks records.", Avg()),
        )  # fmt: skip
        self.active = g.sensor(
            "sink-record-active-count",
            ("sink-record-active-count", "The number of records that have been read from "
             "Kafka but not yet completely committed/flushed/acknowledged by the sink task.",
             Value()),
            ("sink-record-active-count-max", "The maximum number of records that have been "
             "read from Kafka but not yet completely committed/flushed/acknowledged by the "
             "sink task.", Max()),
            ("sink-record-active-count-avg", "The average number of records that have been "
             "read from Kafka but not yet completely committed/flushed/acknowledged by the "
             "sink task.", Avg()),
        )  # fmt: skip

    def close(self) -> None:
        self.group.close()


class ErrorHandlingMetrics:
    """``task-error-metrics``; recorded by the retry operator and the error reporters with
    Kafka's rules (see :mod:`kconnect.runtime.worker.errors.retry_operator`)."""

    def __init__(self, registry: MetricsRegistry, task_id: ConnectorTaskId) -> None:
        self.clock = registry.clock
        self.group = g = MetricGroup(registry, "task-error-metrics", _task_tags(task_id))

        def total(metric: str, description: str) -> tuple[str, str, CumulativeSum]:
            return (metric, description, CumulativeSum())

        self.failures = g.sensor(
            "total-record-failures",
            total("total-record-failures", "The number of record processing failures in "
                  "this task."),
        )  # fmt: skip
        self.errors = g.sensor(
            "total-record-errors",
            total("total-record-errors", "The number of record processing errors in this "
                  "task."),
        )  # fmt: skip
        self.skipped = g.sensor(
            "total-records-skipped",
            total("total-records-skipped", "The number of records skipped due to errors."),
        )
        self.retries = g.sensor(
            "total-retries", total("total-retries", "The number of operations retried.")
        )
        self.logged = g.sensor(
            "total-errors-logged",
            total("total-errors-logged", "The number of errors that were logged."),
        )
        self.dlq_requests = g.sensor(
            "deadletterqueue-produce-requests",
            total("deadletterqueue-produce-requests", "The number of attempted writes to "
                  "the dead letter queue."),
        )  # fmt: skip
        self.dlq_failures = g.sensor(
            "deadletterqueue-produce-failures",
            total("deadletterqueue-produce-failures", "The number of failed writes to the "
                  "dead letter queue."),
        )  # fmt: skip
        self.last_error_ms = 0
        g.gauge(
            "last-error-timestamp",
            "The epoch timestamp when this task last encountered an error.",
            lambda: float(self.last_error_ms),
        )

    def record_error_timestamp(self) -> None:
        self.last_error_ms = self.clock.milliseconds()

    def close(self) -> None:
        self.group.close()
