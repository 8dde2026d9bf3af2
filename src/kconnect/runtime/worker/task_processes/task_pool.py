"""``TaskProcessPool``: a worker's tasks spread over child processes, so busy tasks use every core.

The worker stays one process to the outside -- one REST listener, one worker id, one group
member, one herder and set of stores -- and hands its tasks to up to ``task.processes`` task
processes (:mod:`kconnect.runtime.worker.task_processes.task_process`). A new task goes to the process with
the fewest tasks, and a new process is started when every running one already has work and
the pool is not full, so N busy tasks use up to min(N, ``task.processes``) cores. Processes
start with their first task (an idle worker runs none) and stop after
:data:`IDLE_PROCESS_S` without tasks.

Over each process's :class:`~kconnect.runtime.worker.task_processes.task_channel.Channel`:

* the worker sends ``start_task`` / ``stop_tasks`` / ``transition`` / ``log_level`` and asks
  for ``metrics``, which :meth:`TaskProcessPool.remote_metrics` merges into the worker's
  registry (``/metrics``, ``GET /connectors/{c}/metrics`` and ``kconnect status`` see one
  worker);
* the process sends ``status`` events, which go, in order, to the herder's listener (through
  the worker-level metrics), ``topic`` events (KIP-558), and ``offsets.*`` requests served by
  the worker's offset store.

Every task process is forked from one thread the pool owns (``task-process-spawner``), which
lives until :meth:`TaskProcessPool.close`: Linux sends a child's ``PR_SET_PDEATHSIG`` when the
*thread* that forked it exits, so a process forked from a REST request's thread (standalone
``POST /connectors``) would be killed when the web server retires that thread -- idle, or at
shutdown, before the worker had stopped its tasks in order.

A process that dies on its own (killed, out of memory, a crash in native code) fails its
tasks: each is reported FAILED with a trace naming the exit cause, and a restart of the task
starts it again in a new process. Thread-safe.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.api.secrets import known_secrets
from kconnect.runtime.common.clock import Clock
from kconnect.runtime.common.failures import RemoteFailure
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.loggers import explicit_levels
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.worker_config import StandaloneConfig, WorkerConfig
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.metrics.registry import (
    MetricColumns,
    MetricFilter,
    MetricName,
    MetricValue,
)
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.task_processes.task_channel import Channel, ChannelClosed, RemoteError
from kconnect.runtime.worker.task_processes.task_executor import TaskExecutor

__all__ = ["IDLE_PROCESS_S", "TaskProcessPool"]

log = logging.getLogger(__name__)

#: A task process without tasks for this long is stopped (its memory returned).
IDLE_PROCESS_S = 30.0
#: How long a task process may take to start and load the plugins.
START_TIMEOUT_S = 60.0
#: How long /metrics waits for a task process's metrics before showing the last ones.
METRICS_TIMEOUT_S = 2.0
#: Beyond task.shutdown.graceful.timeout.ms: a process answers stop_tasks after that.
STOP_MARGIN_S = 10.0


@dataclass
class _Task:
    listener: StatusListener
    version: str | None = None
    preflight: ExactlyOncePreflight | None = None
    #: Set once ``start_task`` is done with this task (started or failed): a stop that comes
    #: while the task process is still starting waits for it, so it cannot overtake the
    #: start on the channel (the process would ignore the stop, then run the task).
    started: threading.Event = field(default_factory=threading.Event)


@dataclass
class _Process:
    """One task process, as the worker sees it."""

    index: int
    ready: threading.Event = field(default_factory=threading.Event)
    popen: subprocess.Popen[bytes] | None = None
    channel: Channel | None = None
    pid: int = 0
    error: BaseException | None = None
    tasks: dict[ConnectorTaskId, _Task] = field(default_factory=dict)
    dead: bool = False
    idle_since: float | None = None
    last_metrics: MetricColumns = ((), ())
    #: per snapshot filter: the generation of the process's metric layout and its names, so
    #: the process sends values only while its metrics stay the same (``MetricLayout``)
    metric_names: dict[MetricFilter | None, tuple[int, tuple[MetricName, ...]]] = field(
        default_factory=dict
    )

    @property
    def name(self) -> str:
        return f"task process {self.index} (pid {self.pid})"


class TaskProcessPool(TaskExecutor):
    def __init__(
        self,
        worker_id: str,
        config: WorkerConfig,
        plugins: Plugins,
        offset_store: OffsetBackingStore,
        metrics: ConnectMetrics,
        clock: Clock,
        topic_tracker: Callable[[str, str], None] | None,
        *,
        size: int,
    ) -> None:
        self.worker_id = worker_id
        self.config = config
        self.plugins = plugins
        self.offset_store = offset_store
        self.metrics = metrics
        self.clock = clock
        self.size = max(1, size)
        self._tracker = topic_tracker
        self._lock = threading.RLock()
        self._slots: list[_Process | None] = [None] * self.size
        #: Tasks whose process died: they count as present (FAILED) until stopped.
        self._orphans: dict[ConnectorTaskId, _Task] = {}
        self._closed = threading.Event()
        # One long-lived thread forks every task process (see the module docstring).
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="task-process-spawner")
        self._reaper = threading.Thread(
            target=self._reap_idle, name="task-pool-reaper", daemon=True
        )
        self._reaper.start()
        metrics.registry.add_source(self.remote_metrics, self.remote_metric_columns)

    # -- TaskExecutor ---------------------------------------------------------------------------

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        listener: StatusListener,
        target_state: TargetState,
        preflight: ExactlyOncePreflight | None = None,
    ) -> bool:
        with self._lock:
            if self._owner(task_id) is not None or task_id in self._orphans:
                raise ConnectException(f"Task already exists in this worker: {task_id}")
        log.info("[%s|task-%d] Creating task %s", task_id.connector, task_id.task, task_id)
        wrapped = self.metrics.remote_task_started(task_id, listener)
        entry = _Task(wrapped, preflight=preflight)
        try:
            proc = self._process_for(task_id, entry)
            assert proc.channel is not None
            started = bool(
                proc.channel.call(
                    "start_task",
                    (
                        task_id,
                        dict(connector_props),
                        dict(task_props),
                        target_state.value,
                        known_secrets(),  # the task process hides them in its logs too
                        preflight is not None,  # exactly once: checks come back here
                    ),
                    START_TIMEOUT_S,
                )
            )
        except Exception as e:
            log.error("[%s|task-%d] Failed to start task %s in a task process: %s",
                      task_id.connector, task_id.task, task_id, e)  # fmt: skip
            self._forget(task_id)
            self.metrics.task_startup_failed(task_id)
            wrapped.on_failure(task_id, e)
            return False
        finally:
            entry.started.set()
        return started

    def stop_and_await_tasks(self, ids: Iterable[ConnectorTaskId]) -> None:
        ids = list(ids)
        with self._lock:
            starting = [p.tasks[t].started for t in ids if (p := self._owner(t)) is not None]
        for event in starting:  # let starts in progress finish first (see _Task.started)
            event.wait(START_TIMEOUT_S)
        by_process: dict[int, tuple[_Process, list[ConnectorTaskId]]] = {}
        gone: list[ConnectorTaskId] = []
        with self._lock:
            for task_id in ids:
                if self._orphans.pop(task_id, None) is not None:
                    gone.append(task_id)
                    continue
                proc = self._owner(task_id)
                if proc is None:
                    log.warning("Ignoring stop request for unowned task %s", task_id)
                    continue
                by_process.setdefault(proc.index, (proc, []))[1].append(task_id)
        for task_id in gone:
            self.metrics.task_removed(task_id)
        calls: list[tuple[_Process, list[ConnectorTaskId], Future[Any]]] = []
        for proc, task_ids in by_process.values():
            for t in task_ids:
                log.info("[%s|task-%d] Stopping task %s", t.connector, t.task, t)
            assert proc.channel is not None
            calls.append((proc, task_ids, proc.channel.call_async("stop_tasks", task_ids)))
        timeout = self.config.graceful_shutdown_timeout_ms / 1000.0 + STOP_MARGIN_S
        for proc, task_ids, future in calls:
            try:
                future.result(timeout)
            except (ChannelClosed, RemoteError, FutureTimeout) as e:
                log.error("Stopping tasks %s in %s failed: %s",
                          [str(t) for t in task_ids], proc.name, e)  # fmt: skip
            with self._lock:
                for t in task_ids:
                    proc.tasks.pop(t, None)
                    self._orphans.pop(t, None)
                if not proc.tasks:
                    proc.idle_since = self.clock.monotonic_ms() / 1000.0
            for t in task_ids:
                self.metrics.task_removed(t)

    def transition(self, connector: str, state: TargetState) -> None:
        for proc in self._live():
            if any(t.connector == connector for t in list(proc.tasks)):
                self._notify(proc, "transition", (connector, state.value))

    def task_ids(self) -> set[ConnectorTaskId]:
        with self._lock:
            ids = set(self._orphans)
            for proc in self._slots:
                if proc is not None:
                    ids.update(proc.tasks)
            return ids

    def plugin_version(self, task_id: ConnectorTaskId) -> str | None:
        with self._lock:
            proc = self._owner(task_id)
            entry = proc.tasks.get(task_id) if proc is not None else None
            return None if entry is None else entry.version

    def set_logger_level(self, namespace: str, level: str) -> None:
        for proc in self._live():
            self._notify(proc, "log_level", (namespace, level))

    def close(self) -> None:
        """Stop every task process (their tasks were stopped already)."""
        self._closed.set()
        with self._lock:
            procs = [p for p in self._slots if p is not None]
            self._slots = [None] * self.size
        for proc in procs:
            self._shutdown(proc)
        self._spawner.shutdown(wait=False)

    # -- metrics --------------------------------------------------------------------------------

    def remote_metrics(
        self, only: MetricFilter | None = None
    ) -> list[tuple[MetricName, MetricValue]]:
        """:meth:`remote_metric_columns` as ``(name, value)`` rows."""
        out: list[tuple[MetricName, MetricValue]] = []
        for names, values in self.remote_metric_columns(only):
            out.extend(zip(names, values, strict=True))
        return out

    def remote_metric_columns(self, only: MetricFilter | None = None) -> list[MetricColumns]:
        """The task-level metrics of every task process, limited to ``only`` when given (the
        process measures and sends just those), as ``(names, values)`` per process. While a
        process's metrics stay the same it sends values only, and ``names`` is the sequence
        it sent before. A process that does not answer within :data:`METRICS_TIMEOUT_S` gives
        its last known ones of a full snapshot."""
        asked = []
        for p in self._live():
            if p.channel:
                known = p.metric_names.get(only)
                payload = (only, None if known is None else known[0])
                asked.append((p, known, p.channel.call_async("metrics", payload)))
        out: list[MetricColumns] = []
        for proc, known, future in asked:
            try:
                generation, names, values = future.result(METRICS_TIMEOUT_S)
                if names is None:  # the process's metrics are those it sent before
                    assert known is not None and known[0] == generation
                    names = known[1]
                else:
                    proc.metric_names[only] = (generation, names)
                if only is None:
                    proc.last_metrics = (names, values)
                out.append((names, values))
            except (ChannelClosed, RemoteError, FutureTimeout) as e:
                log.debug("Metrics of %s unavailable: %s", proc.name, e)
                names, values = proc.last_metrics
                if only is not None:
                    kept = [i for i, n in enumerate(names) if (n.group, n.name) in only]
                    names, values = tuple(names[i] for i in kept), [values[i] for i in kept]
                out.append((names, values))
        return out

    # -- processes ------------------------------------------------------------------------------

    def _owner(self, task_id: ConnectorTaskId) -> _Process | None:
        for proc in self._slots:
            if proc is not None and task_id in proc.tasks:
                return proc
        return None

    def _forget(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            proc = self._owner(task_id)
            if proc is not None:
                proc.tasks.pop(task_id, None)

    def _live(self) -> list[_Process]:
        with self._lock:
            return [p for p in self._slots if p is not None and p.ready.is_set() and not p.dead]

    def _process_for(self, task_id: ConnectorTaskId, entry: _Task) -> _Process:
        """The process the task goes to (started if needed), with the task registered."""
        spawn = False
        with self._lock:
            if self._closed.is_set():
                raise ConnectException("The worker is stopping")
            candidates = [p for p in self._slots if p is not None and not p.dead]
            free = [i for i, p in enumerate(self._slots) if p is None or p.dead]
            least = min(candidates, key=lambda p: (len(p.tasks), p.index), default=None)
            if least is not None and (len(least.tasks) == 0 or not free):
                proc = least
            else:
                proc = _Process(free[0])
                self._slots[proc.index] = proc
                spawn = True
            proc.tasks[task_id] = entry
            proc.idle_since = None
        if spawn:
            self._spawn(proc)
        if not proc.ready.wait(START_TIMEOUT_S):
            raise ConnectException(f"{proc.name} did not start within {START_TIMEOUT_S:.0f} s")
        if proc.error is not None:
            raise ConnectException(f"Could not start a task process: {proc.error}")
        return proc

    def _spawn(self, proc: _Process) -> None:
        parent_end, child_end = socket.socketpair()
        try:
            proc.popen = self._spawner.submit(
                subprocess.Popen,
                [
                    sys.executable,
                    "-m",
                    "kconnect.runtime.worker.task_processes.task_process",
                    str(child_end.fileno()),
                    str(os.getpid()),
                ],
                pass_fds=(child_end.fileno(),),
                stdin=subprocess.DEVNULL,
                close_fds=True,
            ).result()
            proc.pid = proc.popen.pid
            channel = Channel(
                parent_end,
                f"task-process-{proc.index}",
                lambda kind, payload: self._on_event(proc, kind, payload),
                self._on_request,
                lambda: self._on_exit(proc),
            )
            proc.channel = channel
            channel.start()
            channel.call(
                "init",
                {
                    "worker_props": {
                        str(k): str(v) for k, v in self.config.originals_strings().items()
                    },
                    "config_kind": _config_kind(self.config),
                    "plugins": self.plugins.portable_entries(),
                    "aliases": self.plugins.aliases(),
                    "worker_id": self.worker_id,
                    "log_levels": explicit_levels(),
                },
                START_TIMEOUT_S,
            )
            log.info("Started %s for worker %s", proc.name, self.worker_id)
        except BaseException as e:
            proc.error = e
            proc.dead = True
            if proc.popen is not None and proc.popen.poll() is None:
                proc.popen.kill()
            raise
        finally:
            child_end.close()
            proc.ready.set()

    def _on_event(self, proc: _Process, kind: str, payload: Any) -> None:
        if kind == "status":
            method, task_id, detail, version = payload
            with self._lock:
                entry = proc.tasks.get(task_id)
            if entry is None:
                log.debug("Status %s of %s after it was removed; ignored", method, task_id)
                return
            if version is not None:
                entry.version = version
            if method == "on_failure":
                message, trace, permanent = detail
                entry.listener.on_failure(task_id, RemoteFailure(message, trace, permanent))
            else:
                getattr(entry.listener, method)(task_id)
        elif kind == "topic" and self._tracker is not None:
            connector, topic = payload
            self._tracker(connector, topic)

    def _on_request(self, kind: str, payload: Any) -> Any:
        if kind in ("preflight.before_producer", "preflight.after_producer"):
            return self._preflight(kind, payload)
        if kind == "offsets.get":
            return self.offset_store.get(payload)
        if kind == "offsets.set":
            self.offset_store.set(payload).result(self.config.offset_flush_timeout_ms / 1000.0)
            return None
        if kind == "offsets.all_keys":
            return self.offset_store.all_keys()
        raise ValueError(f"unknown request {kind}")

    def _preflight(self, kind: str, task_id: ConnectorTaskId) -> None:
        """An exactly-once task in a task process runs a preflight check (request thread)."""
        with self._lock:
            proc = self._owner(task_id)
            entry = proc.tasks.get(task_id) if proc is not None else None
        if entry is None or entry.preflight is None:
            raise ConnectException(f"Task {task_id} is no longer assigned to this worker")
        if kind == "preflight.before_producer":
            entry.preflight.before_producer()
        else:
            entry.preflight.after_producer()

    def _on_exit(self, proc: _Process) -> None:
        """The channel closed: a clean shutdown, or the process died on its own."""
        with self._lock:
            proc.dead = True
            orphans = dict(proc.tasks)
            proc.tasks.clear()
            if self._slots[proc.index] is proc:
                self._slots[proc.index] = None
            self._orphans.update(orphans)
        if not orphans:
            return
        cause = _exit_cause(proc)
        message = (
            f"The task process (pid {proc.pid}) of worker {self.worker_id} {cause}; its tasks "
            "stopped with it. Restart the task to run it again in a new task process."
        )
        log.error("%s Tasks: %s", message, sorted(str(t) for t in orphans))
        for task_id, entry in orphans.items():
            entry.listener.on_failure(task_id, RemoteFailure(message, message + "\n"))

    def _notify(self, proc: _Process, kind: str, payload: Any) -> None:
        try:
            if proc.channel is not None:
                proc.channel.notify(kind, payload)
        except ChannelClosed:
            pass  # _on_exit reports its tasks

    def _shutdown(self, proc: _Process) -> None:
        if not proc.ready.wait(START_TIMEOUT_S) or proc.channel is None:
            return
        if not proc.dead:
            try:
                proc.channel.call(
                    "shutdown",
                    None,
                    self.config.graceful_shutdown_timeout_ms / 1000.0 + STOP_MARGIN_S,
                )
            except (ChannelClosed, RemoteError, FutureTimeout) as e:
                log.debug("%s did not shut down cleanly: %s", proc.name, e)
        proc.channel.close()
        if proc.popen is not None:
            try:
                proc.popen.wait(5)
            except subprocess.TimeoutExpired:
                proc.popen.kill()
                proc.popen.wait(5)
        log.info("Stopped %s", proc.name)

    def _reap_idle(self) -> None:
        while not self._closed.wait(5.0):
            now = self.clock.monotonic_ms() / 1000.0
            idle: list[_Process] = []
            with self._lock:
                for i, proc in enumerate(self._slots):
                    if (
                        proc is not None
                        and proc.ready.is_set()
                        and not proc.tasks
                        and proc.idle_since is not None
                        and now - proc.idle_since >= IDLE_PROCESS_S
                    ):
                        self._slots[i] = None
                        idle.append(proc)
            for proc in idle:
                log.info("Stopping idle %s", proc.name)
                self._shutdown(proc)


def _config_kind(config: WorkerConfig) -> str:
    """Which config class the task process builds from the worker's properties."""
    if isinstance(config, DistributedConfig):
        return "distributed"
    if isinstance(config, StandaloneConfig):
        return "standalone"
    return "worker"


def _exit_cause(proc: _Process) -> str:
    code = None
    if proc.popen is not None:
        try:
            code = proc.popen.wait(2)
        except subprocess.TimeoutExpired:
            proc.popen.kill()
            return "stopped answering and was killed"
    if code is None:
        return "went away"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"
