"""``RetryWithToleranceOperator``: retry transient failures, tolerate bad records (§6.4).

One operator per task, used on the task thread only. For each record the task creates a
:class:`ProcessingContext` and runs each pipeline step through :meth:`execute`:

* a :class:`~kconnect.api.errors.RetriableException` is retried with back-off
  ``300 ms << (attempt - 1)`` (a random delay below ``errors.retry.delay.max.ms`` once that
  is exceeded), until ``errors.retry.timeout`` ms have passed since the first attempt
  (0 = no retries, -1 = forever). When retries run out the exception goes on to the
  tolerance check (Kafka 4.0+ behaviour, KAFKA-18073);
* tolerable failures are any exception in the converter and transformation stages, and only
  RetriableException elsewhere; anything else raises ``ConnectException("Unhandled
  exception in error handler")``;
* with ``errors.tolerance=none`` a tolerable failure raises :class:`ToleranceExceededError`
  (the task fails); with ``all`` the step returns None and the record is skipped.

Every failure is handed to the reporters (log, dead letter queue) first. Reporters may return
futures (DLQ produce); they are collected in :attr:`RetryWithToleranceOperator.pending` so a
sink task can wait for them before committing offsets.

``task-error-metrics`` follow Kafka's counting (when :attr:`RetryWithToleranceOperator.metrics`
is set): every caught failure -- each retriable attempt and the final one -- adds to
``total-record-failures``; each back-off that leads to another attempt to ``total-retries``;
a record that ends failed in :meth:`~RetryWithToleranceOperator.execute` to
``total-record-errors`` (and, when tolerated, ``total-records-skipped``);
:meth:`~RetryWithToleranceOperator.execute_failed` counts a failure, and an error only when
the tolerance is exceeded. ``last-error-timestamp`` is set on every failed record.
"""

from __future__ import annotations

import logging
import random
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from kconnect.api.errors import ConnectException, RetriableException
from kconnect.api.records import SourceRecord, TimestampType
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.config.connector_config import ConnectorConfig, ToleranceType
from kconnect.runtime.metrics.task_metrics import ErrorHandlingMetrics
from kconnect.runtime.worker.errors.stage import Stage, executing_class_name

__all__ = [
    "ErrorReporter",
    "ProcessingContext",
    "RawRecord",
    "RetryWithToleranceOperator",
    "ToleranceExceededError",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRIES_DELAY_MIN_MS = 300
#: The backoff jitter's generator, one per process (a ``Random`` is 2.5 KiB of state, and a
#: worker may run thousands of tasks).
_JITTER = random.Random()

_TOLERATE_ALL = frozenset(
    {Stage.TRANSFORMATION, Stage.HEADER_CONVERTER, Stage.KEY_CONVERTER, Stage.VALUE_CONVERTER}
)


class RawRecord(NamedTuple):
    """A record as consumed from Kafka (bytes), kept for error reports and the DLQ."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None
    timestamp_type: TimestampType
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] | None

    def describe(self) -> str:
        """Kafka's LogReporter shape: ``{topic='t', partition=0, offset=5, ...}``."""
        return (
            f"{{topic='{self.topic}', partition={self.partition}, offset={self.offset}, "
            f"timestamp={self.timestamp if self.timestamp is not None else -1}, "
            f"timestampType={self.timestamp_type.value}}}"
        )


@dataclass
class ProcessingContext:
    """What is known about the record being processed and how it failed."""

    consumer_record: RawRecord | None = None
    source_record: SourceRecord | None = None
    stage: Stage | None = None
    executing_class: str | None = None
    error: BaseException | None = None
    attempt: int = 0

    @property
    def failed(self) -> bool:
        return self.error is not None

    def location(self) -> str:
        """Where the failing record came from, for messages."""
        if self.consumer_record is not None:
            r = self.consumer_record
            return f"topic '{r.topic}', partition {r.partition}, offset {r.offset}"
        if self.source_record is not None:
            r2 = self.source_record
            return (
                f"source partition {r2.source_partition}, source offset {r2.source_offset}, "
                f"topic '{r2.topic}'"
            )
        return "no record"


class ErrorReporter(ABC):
    """Receives every failure; called on the task thread, must not block for long."""

    @abstractmethod
    def report(self, context: ProcessingContext) -> Future[None] | None:
        """Report the failure; a future if the report completes asynchronously."""

    def flush(self, timeout_s: float) -> None:
        """Make outstanding reports complete (e.g. serve producer callbacks)."""

    def close(self) -> None:
        """Release resources (task stop)."""


class ToleranceExceededError(ConnectException):
    """A failure the connector's ``errors.tolerance`` does not allow; fails the task."""


class RetryWithToleranceOperator:
    def __init__(
        self,
        retry_timeout_ms: int = 0,
        max_delay_ms: int = 60000,
        tolerance: ToleranceType = ToleranceType.NONE,
        clock: Clock | None = None,
        reporters: Sequence[ErrorReporter] = (),
        stop_event: threading.Event | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.retry_timeout_ms = retry_timeout_ms
        self.max_delay_ms = max_delay_ms
        self.tolerance = tolerance
        self.clock = clock or SystemClock()
        self.reporters = list(reporters)
        self._stop = stop_event or threading.Event()
        self._rng = rng or _JITTER
        self.total_failures = 0
        self.total_skipped = 0
        self.total_retries = 0
        self.pending: list[Future[None]] = []
        self.metrics: ErrorHandlingMetrics | None = None

    @classmethod
    def from_connector_config(
        cls,
        config: ConnectorConfig,
        clock: Clock | None = None,
        stop_event: threading.Event | None = None,
    ) -> RetryWithToleranceOperator:
        """Built from the connector's ``errors.retry.*`` / ``errors.tolerance`` settings."""
        return cls(
            config.errors_retry_timeout_ms,
            config.errors_retry_max_delay_ms,
            config.errors_tolerance,
            clock,
            (),
            stop_event,
        )

    def bind_stop_event(self, event: threading.Event) -> None:
        """Back-off sleeps end early when ``event`` is set (the task is stopping)."""
        self._stop = event

    # -- running steps ------------------------------------------------------------------------

    def execute(
        self,
        context: ProcessingContext,
        operation: Callable[[], T],
        stage: Stage,
        executing: object,
        first_error: Exception | None = None,
    ) -> T | None:
        """Run ``operation`` for the record in ``context``; None if it failed but is tolerated.

        ``first_error`` is the error of a first attempt the caller already made (a batch fast
        path that failed on this record): it counts as attempt 1, so the operation runs again
        only if that error is retriable.

        Raises:
            ToleranceExceededError: the failure is tolerable but tolerance is ``none``.
            ConnectException: the failure is not tolerable in this stage.
        """
        context.stage = stage
        context.executing_class = executing_class_name(executing)
        if context.failed:
            return None
        try:
            return self._exec_and_retry(context, operation, first_error)
        except Exception as e:
            m = self.metrics
            if m is not None:
                m.failures.record()
                m.record_error_timestamp()
                m.errors.record()
            self._fail(context, e)
            if stage not in _TOLERATE_ALL and not isinstance(e, RetriableException):
                raise ConnectException("Unhandled exception in error handler") from e
            self._check_tolerance(context, e)
            if m is not None:
                m.skipped.record()
            return None

    def execute_failed(
        self, context: ProcessingContext, stage: Stage, executing: object, error: BaseException
    ) -> None:
        """Record a failure that happened outside :meth:`execute` (producer callback, errant
        record report): report it and apply the tolerance.

        Raises:
            ToleranceExceededError: tolerance is ``none``.
        """
        context.stage = stage
        context.executing_class = executing_class_name(executing)
        m = self.metrics
        if m is not None:
            m.failures.record()
            m.record_error_timestamp()
        self._fail(context, error)
        if m is not None and self.tolerance is ToleranceType.NONE:
            m.errors.record()
        self._check_tolerance(context, error)

    def _fail(self, context: ProcessingContext, error: BaseException) -> None:
        self.total_failures += 1
        context.error = error
        for reporter in self.reporters:
            try:
                fut = reporter.report(context)
            except Exception:
                log.exception("Error reporter %s failed", type(reporter).__name__)
                continue
            if fut is not None:
                self.pending.append(fut)

    def _check_tolerance(self, context: ProcessingContext, error: BaseException) -> None:
        if self.tolerance is ToleranceType.NONE:
            raise ToleranceExceededError(
                f"Tolerance exceeded in error handler (stage {context.stage.value if context.stage else '?'}"
                f", class {context.executing_class}, {context.location()})"
            ) from error
        self.total_skipped += 1

    def _exec_and_retry(
        self,
        context: ProcessingContext,
        operation: Callable[[], T],
        first_error: Exception | None = None,
    ) -> T:
        attempt = 0
        start = self.clock.monotonic_ms()
        infinite = self.retry_timeout_ms < 0
        deadline = start + self.retry_timeout_ms
        while True:
            attempt += 1
            context.attempt = attempt
            try:
                if first_error is not None:
                    error, first_error = first_error, None
                    raise error
                return operation()
            except RetriableException:
                if self.metrics is not None:
                    self.metrics.failures.record()
                if not (infinite or self.clock.monotonic_ms() - start < self.retry_timeout_ms):
                    raise
                if self.backoff(attempt, None if infinite else deadline):
                    raise  # stopping: no more retries
                self.total_retries += 1
                if self.metrics is not None:
                    self.metrics.retries.record()

    def backoff_delay_ms(self, attempt: int, deadline: float | None) -> float:
        """The delay before retry number ``attempt`` (1-based), capped by the deadline."""
        delay: float = RETRIES_DELAY_MIN_MS << (attempt - 1)
        if delay > self.max_delay_ms:
            delay = self._rng.randrange(self.max_delay_ms) if self.max_delay_ms > 0 else 0
        if deadline is not None:
            delay = min(delay, deadline - self.clock.monotonic_ms())
        return max(0.0, delay)

    def backoff(self, attempt: int, deadline: float | None) -> bool:
        """Sleep before the next attempt; True if the task is stopping (sleep cut short)."""
        delay = self.backoff_delay_ms(attempt, deadline)
        log.debug("Sleeping for %.0f millis", delay)
        return self.clock.wait(self._stop, delay)

    # -- reporters ----------------------------------------------------------------------------

    def await_pending(self, timeout_s: float) -> None:
        """Wait for outstanding reports (DLQ writes) to complete.

        Raises:
            ConnectException: a report failed or did not complete in time.
        """
        if not self.pending:
            return
        for reporter in self.reporters:
            reporter.flush(timeout_s)
        pending, self.pending = self.pending, []
        for fut in pending:
            try:
                fut.result(timeout=timeout_s)
            except Exception as e:
                raise ConnectException(f"Failed to report an errant record: {e}") from e

    def close(self) -> None:
        for reporter in self.reporters:
            try:
                reporter.close()
            except Exception:
                log.exception("Failed to close error reporter %s", type(reporter).__name__)
