"""A task process: runs some of a worker's tasks, on its own core, for as long as the worker lives.

Started by :class:`~kconnect.runtime.worker.task_processes.task_pool.TaskProcessPool` as
``python -m kconnect.runtime.worker.task_processes.task_process <fd> <parent pid>``, with one end of a
socketpair (``fd``) as its :class:`~kconnect.runtime.worker.task_processes.task_channel.Channel` to the
worker. The worker first sends ``init`` (its properties, id, log levels); the process loads
the plugins and answers when it is ready. Then it serves, on the channel:

* ``start_task`` / ``stop_tasks`` / ``transition`` -- a :class:`~kconnect.runtime.worker.task_processes.
  local_tasks.LocalTasks` of its own runs the tasks, on threads, with its own Kafka clients,
  converters and transformations; status changes go back as ``status`` events, in order, and
  topics a task uses as ``topic`` events;
* ``metrics`` -- its tasks' metric groups, which the worker merges into ``/metrics``;
* ``log_level`` -- a level set through the worker's ``/admin/loggers``;
* ``shutdown`` -- stop every task, then exit.

Source offsets are read and written through the worker's offset store (``offsets.*``
requests, :class:`RemoteOffsetStore`), so one store per worker stays the single writer.

**No zombies.** The process dies with its worker: the kernel sends it SIGKILL when the parent
dies (``PR_SET_PDEATHSIG``), and, as a second watchdog, the channel's reader exits the process
the moment the worker's end of the socket closes -- kill -9 of the worker included -- so a
task process never writes anything after its worker is gone. Its log lines go to the stderr it
shares with the worker, in the worker's format, with the task's ``[connector|task-n]`` prefix.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.api.secrets import remember_secret
from kconnect.runtime.common.clock import SystemClock
from kconnect.runtime.common.failures import cannot_heal
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.loggers import LOG_FORMAT, Loggers, python_level
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.worker_config import StandaloneConfig, WorkerConfig
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.runtime.metrics.connect_metrics import PROCESS_GROUPS
from kconnect.runtime.metrics.registry import CONNECT_DOMAIN, MetricFilter, MetricName, MetricValue
from kconnect.runtime.plugins.descriptors import CLASSPATH, PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.task_processes.local_tasks import LocalTasks
from kconnect.runtime.worker.task_processes.task_channel import Channel, RemoteError

__all__ = ["RemoteOffsetStore", "StatusForwarder", "TaskProcessMain", "main"]

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
_CONFIGS: dict[str, type[WorkerConfig]] = {
    "worker": WorkerConfig,
    "standalone": StandaloneConfig,
    "distributed": DistributedConfig,
}
#: Exit status of a task process whose worker went away.
ORPHANED_EXIT = 70
#: How long an exactly-once preflight check (zombie fencing by the leader) may take.
PREFLIGHT_TIMEOUT_S = 120.0


class RemoteOffsetStore(OffsetBackingStore):
    """The worker's offset store, reached over the channel (thread-safe)."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes | None]:
        result: dict[bytes, bytes | None] = self._channel.call("offsets.get", list(keys))
        return result

    def set(self, values: Mapping[bytes, bytes | None]) -> Future[None]:
        return self._channel.call_async("offsets.set", dict(values))

    def all_keys(self) -> list[bytes]:
        keys: list[bytes] = self._channel.call("offsets.all_keys")
        return keys


class StatusForwarder(StatusListener):
    """Sends every status change of a task to the worker as a ``status`` event."""

    def __init__(self, channel: Channel, tasks: LocalTasks) -> None:
        self._channel = channel
        self._tasks = tasks

    def _send(self, method: str, key: str | ConnectorTaskId, detail: Any = None) -> None:
        version = self._tasks.plugin_version(key) if isinstance(key, ConnectorTaskId) else None
        self._channel.notify("status", (method, key, detail, version))

    def on_startup(self, key: str | ConnectorTaskId) -> None:
        self._send("on_startup", key)

    def on_pause(self, key: str | ConnectorTaskId) -> None:
        self._send("on_pause", key)

    def on_resume(self, key: str | ConnectorTaskId) -> None:
        self._send("on_resume", key)

    def on_stop(self, key: str | ConnectorTaskId) -> None:
        self._send("on_stop", key)

    def on_failure(self, key: str | ConnectorTaskId, error: BaseException) -> None:
        trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self._send(
            "on_failure", key, (str(error) or type(error).__name__, trace, cannot_heal(error))
        )

    def on_shutdown(self, key: str | ConnectorTaskId) -> None:
        self._send("on_shutdown", key)

    def on_deletion(self, key: str | ConnectorTaskId) -> None:
        self._send("on_deletion", key)

    def on_restart(self, key: str | ConnectorTaskId) -> None:
        self._send("on_restart", key)


class TaskProcessMain:
    """The process's handlers; built on the ``init`` request."""

    def __init__(self, sock: socket.socket, parent_pid: int) -> None:
        self.parent_pid = parent_pid
        self.channel = Channel(
            sock, "task-process", self._on_event, self._on_request, self._on_close
        )
        self.tasks: LocalTasks | None = None
        self.metrics: ConnectMetrics | None = None
        self.loggers = Loggers()
        self._shutting_down = False
        self._done = threading.Event()

    def run(self) -> None:
        self.channel.start()
        self._done.wait()

    # -- channel callbacks ----------------------------------------------------------------------

    def _on_close(self) -> None:
        # The worker is gone (or told us to go): stop at once, write nothing more.
        os._exit(0 if self._shutting_down else ORPHANED_EXIT)

    def _on_event(self, kind: str, payload: Any) -> None:
        tasks = self._require_tasks()
        if kind == "transition":
            connector, state = payload
            tasks.transition(connector, TargetState(state))
        elif kind == "log_level":
            namespace, level = payload
            self.loggers.set_level(namespace, level)
        else:
            log.warning("Unknown event %s from the worker", kind)

    def _on_request(self, kind: str, payload: Any) -> Any:
        if kind == "init":
            return self._init(payload)
        tasks = self._require_tasks()
        if kind == "start_task":
            task_id, connector_props, task_props, state, secrets, exactly_once = payload
            for secret in secrets:
                remember_secret(secret)
            started = tasks.start_task(
                task_id,
                connector_props,
                task_props,
                StatusForwarder(self.channel, tasks),
                TargetState(state),
                self._remote_preflight(task_id) if exactly_once else None,
            )
            return started
        if kind == "stop_tasks":
            tasks.stop_and_await_tasks(payload)
            return None
        if kind == "metrics":
            return self._metrics_snapshot(payload)
        if kind == "shutdown":
            self._shutting_down = True
            tasks.stop_and_await_tasks(tasks.task_ids())
            threading.Thread(target=self._exit_soon, daemon=True).start()
            return None
        raise ValueError(f"unknown request {kind}")

    def _remote_preflight(self, task_id: ConnectorTaskId) -> ExactlyOncePreflight:
        """The worker's exactly-once checks, run there (they talk to the herder)."""
        channel = self.channel

        def check(kind: str) -> Callable[[], None]:
            def run() -> None:
                try:
                    channel.call(kind, task_id, PREFLIGHT_TIMEOUT_S)
                except RemoteError as e:
                    raise ConnectException(str(e)) from None

            return run

        return ExactlyOncePreflight(
            check("preflight.before_producer"), check("preflight.after_producer")
        )

    def _exit_soon(self) -> None:
        # after the reply to "shutdown" is on its way; the worker closes its end too
        self.channel.close()

    # -- requests -------------------------------------------------------------------------------

    def _init(self, payload: Mapping[str, Any]) -> int:
        for namespace, level in payload["log_levels"].items():
            self.loggers.set_level(namespace, level)
        config = _CONFIGS[payload["config_kind"]](payload["worker_props"])
        entries: list[PluginEntry] = payload["plugins"]
        for location in {e.location for e in entries if e.location != CLASSPATH}:
            if location not in sys.path:
                sys.path.append(location)
        plugins = Plugins.lazy(entries, payload["aliases"])  # imported as tasks use them
        clock = SystemClock()
        self.metrics = ConnectMetrics.from_worker_config(payload["worker_id"], config, clock)
        tracking = config.get_boolean("topic.tracking.enable")
        self.tasks = LocalTasks(
            config,
            plugins,
            RemoteOffsetStore(self.channel),
            self.metrics,
            clock,
            self._track_topic if tracking else None,
        )
        from kconnect.runtime.common.gc_tuning import tune_for_worker

        tune_for_worker()
        log.info("Task process %d of worker %s ready", os.getpid(), payload["worker_id"])
        return os.getpid()

    def _track_topic(self, connector: str, topic: str) -> None:
        self.channel.notify("topic", (connector, topic))

    def _metrics_snapshot(
        self, payload: tuple[MetricFilter | None, int | None]
    ) -> tuple[int, tuple[MetricName, ...] | None, list[MetricValue]]:
        """This process's task metrics (those of ``only`` when it is given) as ``(generation,
        names, values)``; ``names`` is None when the worker said it holds this generation's
        (``known``), so a periodic snapshot sends values only (see ``MetricLayout``)."""
        assert self.metrics is not None
        only, known = payload
        registry = self.metrics.registry
        layout = registry.layout(only, _task_level)
        names = None if known == layout.generation else layout.names
        return layout.generation, names, registry.measure_layout(layout)

    def _require_tasks(self) -> LocalTasks:
        if self.tasks is None:
            raise RuntimeError("the task process has not been initialised")
        return self.tasks


def _task_level(name: MetricName) -> bool:
    """Not one of Connect's worker-wide groups (the worker has those; a plugin's MBean may be of
    type connector-metrics)."""
    return name.domain != CONNECT_DOMAIN or name.group not in PROCESS_GROUPS


def _die_with_parent(parent_pid: int) -> None:
    """SIGKILL when the parent dies (Linux); exit now if it is already gone."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            log.debug("prctl(PR_SET_PDEATHSIG) unavailable; the channel watchdog remains")
    if os.getppid() != parent_pid:
        os._exit(ORPHANED_EXIT)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    fd, parent_pid = int(args[0]), int(args[1])
    _die_with_parent(parent_pid)
    # SIGINT/SIGTERM go to the whole process group (Ctrl-C on the worker): the worker stops
    # the tasks in order, so a task process waits for its "shutdown" instead.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    level = python_level(os.environ.get("KCONNECT_LOG_LEVEL", "INFO")) or logging.INFO
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr)
    sock = socket.socket(fileno=fd)
    TaskProcessMain(sock, parent_pid).run()


if __name__ == "__main__":
    main()
