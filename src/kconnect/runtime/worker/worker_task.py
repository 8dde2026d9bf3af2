"""``WorkerTask``: the thread, target state and status reporting shared by source and sink tasks.

Lifecycle (who calls what):

* the worker constructs the task and calls :meth:`WorkerTask.start` (any thread); the task
  thread then runs :meth:`_initialize_and_start` (plugin ``start``), reports RUNNING (or
  PAUSED when the initial target state says so), and loops in :meth:`_execute` until stopped;
* :meth:`transition_to` (any thread) changes the target state; the loop notices it between
  batches and reports PAUSED/RUNNING through the status listener;
* :meth:`stop` (any thread) asks the loop to end; :meth:`await_stop` waits for the thread;
  :meth:`cancel` abandons a task that did not stop in time (its later failures are not
  reported).

Statuses: ``on_startup`` when running, ``on_pause``/``on_resume`` on target-state changes,
``on_failure(id, error)`` when the loop raises (the status trace is the formatted traceback),
``on_shutdown`` when it ends without failing.

What a task is built from, grouped: :class:`TaskServices` (what the worker lends every task:
the status listener, clock, metrics, topic tracker, close notice), :class:`TaskPlugins` (the
converters and the transformation chain its records go through) and :class:`CommitSettings`
(the worker's ``offset.flush.*``).
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

from kconnect.api.converter import Converter, HeaderConverter
from kconnect.runtime.common.clock import Clock, SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.log_context import (
    CONNECTOR_CONTEXT,
    ContextLogger,
    context_logger,
    context_prefix,
)
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.worker_config import WorkerConfig
from kconnect.runtime.metrics.worker_metrics import TaskMetricsBundle, detached_task_metrics
from kconnect.runtime.worker.errors.retry_operator import RetryWithToleranceOperator
from kconnect.runtime.worker.transformation_chain import TransformationChain

__all__ = ["CommitSettings", "TaskPlugins", "TaskServices", "WorkerTask"]

_log = logging.getLogger("kconnect.runtime.worker.worker_task")


@dataclass(frozen=True)
class TaskServices:
    """What the worker lends a task: its status listener, clock and metric groups, the
    KIP-558 topic tracker ``(connector, topic)`` and ``on_close``, called once the task has
    released its resources."""

    status_listener: StatusListener
    clock: Clock = field(default_factory=SystemClock)
    metrics: TaskMetricsBundle | None = None
    topic_tracker: Callable[[str, str], None] | None = None
    on_close: Callable[[], None] | None = None


@dataclass(frozen=True)
class TaskPlugins:
    """The converters and the transformation chain a task's records go through (the task
    owns them and closes them when it stops)."""

    key_converter: Converter
    value_converter: Converter
    header_converter: HeaderConverter
    chain: TransformationChain | None = None

    def close(self, log: ContextLogger) -> None:
        """Close the chain and the converters; a failure is logged and the rest still close."""
        for closeable in (
            self.chain,
            self.key_converter,
            self.value_converter,
            self.header_converter,
        ):
            if closeable is None:
                continue
            try:
                closeable.close()
            except Exception:
                log.exception("Failed to close %s", type(closeable).__name__)


@dataclass(frozen=True)
class CommitSettings:
    """The worker's ``offset.flush.interval.ms`` and ``offset.flush.timeout.ms``."""

    interval_ms: int = 60_000
    timeout_ms: int = 5_000

    @classmethod
    def from_worker_config(cls, config: WorkerConfig) -> CommitSettings:
        return cls(config.offset_flush_interval_ms, config.offset_flush_timeout_ms)


class WorkerTask(ABC):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        initial_state: TargetState,
        services: TaskServices,
        plugins: TaskPlugins,
        operator: RetryWithToleranceOperator,
    ) -> None:
        self.id = task_id
        self.status_listener = services.status_listener
        self.clock = services.clock
        self.plugins = plugins
        self.operator = operator
        self.topic_tracker = services.topic_tracker
        self._on_close_cb = services.on_close
        # The task's metric groups (closed by the worker when the task is removed).
        self.metrics = services.metrics or detached_task_metrics(task_id, self._is_sink, self.clock)
        self.log = context_logger(
            logging.getLogger(type(self).__module__),
            context_prefix(task_id.connector, task_id.task),
        )
        self._state_lock = threading.Condition()
        self._target_state = initial_state
        self._stopping = threading.Event()
        self._cancelled = False
        self._failed = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._reported_paused = False

    _is_sink = False

    # -- control (any thread) -----------------------------------------------------------------

    def start(self) -> None:
        """Start the task thread (returns immediately)."""
        self._thread = threading.Thread(
            target=self._run, name=f"task-thread-{self.id}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Ask the task to stop; returns immediately."""
        with self._state_lock:
            self._stopping.set()
            self._state_lock.notify_all()
        self._on_stop_requested()

    def await_stop(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the thread to end; True if it did."""
        return self._done.wait(max(0.0, timeout_s))

    def cancel(self) -> None:
        """Give up on a task that did not stop in time; its failures are no longer reported."""
        self._cancelled = True
        self._on_cancel()

    def transition_to(self, state: TargetState) -> None:
        """Change the target state (STOPPED is handled by the herder stopping the task and
        is treated as PAUSED here)."""
        with self._state_lock:
            if self._stopping.is_set():
                return
            self._target_state = state
            self._state_lock.notify_all()
        self._on_transition(state)

    @property
    def target_state(self) -> TargetState:
        return self._target_state

    def is_stopping(self) -> bool:
        return self._stopping.is_set()

    def is_done(self) -> bool:
        return self._done.is_set()

    def should_pause(self) -> bool:
        return self._target_state is not TargetState.STARTED

    # -- task thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        token = CONNECTOR_CONTEXT.set(context_prefix(self.id.connector, self.id.task).strip())
        try:
            try:
                if self._stopping.is_set():
                    return
                self._initialize_and_start()
                if self.should_pause():
                    self._report_pause()
                else:
                    self.status_listener.on_startup(self.id)
                self._execute()
            except BaseException as e:
                if self._cancelled:
                    self.log.warning("Task threw an exception after it was cancelled: %s", e)
                else:
                    self.log.error(
                        "Task threw an uncaught and unrecoverable exception. Task is "
                        "being killed and will not recover until manually restarted",
                        exc_info=e,
                    )
                    self._failed = True
                    self.status_listener.on_failure(self.id, e)
            finally:
                try:
                    self._close()
                except Exception:
                    self.log.exception("Failed to close task resources")
            if not self._failed and not self._cancelled:
                self.status_listener.on_shutdown(self.id)
        finally:
            CONNECTOR_CONTEXT.reset(token)
            self._done.set()

    def _report_pause(self) -> None:
        if not self._reported_paused:
            self._reported_paused = True
            self.status_listener.on_pause(self.id)

    def _report_resume(self) -> None:
        if self._reported_paused:
            self._reported_paused = False
            self.status_listener.on_resume(self.id)

    def await_unpause(self) -> bool:
        """Block (task thread) while paused; True when resumed, False when stopping."""
        with self._state_lock:
            while self.should_pause() and not self._stopping.is_set():
                self._state_lock.wait(1.0)
            return not self._stopping.is_set()

    def _close_plugins(self) -> None:
        """The end of a subclass's ``_close`` (task thread): close the transformation chain and
        converters, then the retry operator (its reporters), then tell the worker the task
        released its resources."""
        self.plugins.close(self.log)
        self.operator.close()
        if self._on_close_cb is not None:
            self._on_close_cb()

    # -- subclass hooks -------------------------------------------------------------------------

    @abstractmethod
    def _initialize_and_start(self) -> None:
        """Create clients/converters and call the plugin's ``initialize``/``start``."""

    @abstractmethod
    def _execute(self) -> None:
        """The main loop; returns when stopping. Raising fails the task."""

    @abstractmethod
    def _close(self) -> None:
        """Release everything (task thread, after the loop, also after a failure)."""

    def _on_stop_requested(self) -> None:
        """Called on the stopping thread right after the stop flag is set."""

    def _on_cancel(self) -> None:
        """Called when the task is cancelled."""

    def _on_transition(self, state: TargetState) -> None:
        """Called after the target state changed (caller's thread)."""
