"""``WorkerConnector``: one connector instance, driven by target state.

Its work runs on a :class:`~kconnect.runtime.common.cached_threads.CachedThreadPool` (as
Kafka Connect runs connectors on a cached executor), one command at a time and in order: a
connector holds a thread only while it has something to do, so a thousand idle connectors
hold none, and a slow ``start()`` holds one thread without delaying the other connectors. The
first command initializes the connector, then target-state changes are applied one at a time:

* STARTED: ``connector.start(props)`` → RUNNING (``on_startup``; ``on_resume`` when coming
  back from PAUSED/STOPPED);
* PAUSED / STOPPED: ``connector.stop()`` if it was started → ``on_pause`` / ``on_stop``
  (Kafka stops the connector instance while paused; its tasks are paused separately);
* shutdown: ``connector.stop()`` if started → ``on_shutdown``.

A failure in ``start``/``stop`` (or ``context.raise_error``) reports FAILED with the error;
a FAILED connector only moves on to STOPPED or shutdown. ``task_configs`` is called from the
caller's thread under the connector lock (it must not run concurrently with start/stop).
"""

from __future__ import annotations

import enum
import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from kconnect.api.connector import (
    Connector,
    SinkConnector,
    SinkConnectorContext,
    SourceConnector,
    SourceConnectorContext,
)
from kconnect.api.errors import ConnectException
from kconnect.api.plugin_metrics import PluginMetrics
from kconnect.runtime.common.cached_threads import CachedThreadPool
from kconnect.runtime.common.log_context import CONNECTOR_CONTEXT, context_logger, context_prefix
from kconnect.runtime.common.states import StatusListener, TargetState
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl

__all__ = ["ConnectorState", "WorkerConnector"]


class ConnectorState(enum.Enum):
    INIT = "INIT"
    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"


class _Context(SourceConnectorContext, SinkConnectorContext):
    def __init__(self, owner: WorkerConnector) -> None:
        self._owner = owner

    def request_task_reconfiguration(self) -> None:
        self._owner._request_reconfiguration()

    def raise_error(self, error: BaseException) -> None:
        self._owner._fail(error)

    def plugin_metrics(self) -> PluginMetrics | None:
        return self._owner.plugin_metrics

    def offset_storage_reader(self) -> OffsetStorageReaderImpl:
        reader = self._owner.offset_reader
        if reader is None:
            raise ConnectException("Sink connectors have no source offsets")
        return reader


_SHUTDOWN = object()

#: The pool connectors run on when their worker gives none (one per process).
_DEFAULT_POOL = CachedThreadPool("connector-thread")


class WorkerConnector:
    def __init__(
        self,
        name: str,
        connector: Connector,
        props: Mapping[str, str],
        status_listener: StatusListener,
        initial_state: TargetState,
        request_reconfiguration: Callable[[str], None],
        offset_reader: OffsetStorageReaderImpl | None,
        plugin_metrics: PluginMetrics | None = None,
        pool: CachedThreadPool | None = None,
    ) -> None:
        self.name = name
        self.plugin_metrics = plugin_metrics
        self.connector = connector
        self.props = dict(props)
        self.status_listener = status_listener
        self.offset_reader = offset_reader
        self._request_reconfig_cb = request_reconfiguration
        self.state = ConnectorState.INIT
        self.target_state = initial_state
        self.log = context_logger(logging.getLogger(__name__), context_prefix(name))
        self.lock = threading.RLock()
        self._pool = pool or _DEFAULT_POOL
        # commands not yet run, and whether a pool thread is running them (under _queue_lock)
        self._queue_lock = threading.Lock()
        self._commands: deque[Any] = deque()
        self._draining = False
        self._started = False
        self._initialized = False
        self._done = threading.Event()
        # Set once the initial target state was applied (start() returned or failed).
        self._initial_applied = threading.Event()
        self._reconfigure_when_started = False
        self._commands.append((initial_state, None))

    @property
    def is_sink(self) -> bool:
        return isinstance(self.connector, SinkConnector)

    @property
    def is_source(self) -> bool:
        return isinstance(self.connector, SourceConnector)

    def start(self) -> None:
        """Run the queued commands (the initial target state first) on the pool."""
        with self._queue_lock:
            self._started = True
        self._kick()

    def _put(self, command: Any) -> None:
        with self._queue_lock:
            self._commands.append(command)
        self._kick()

    def _kick(self) -> None:
        """Hand the commands to a pool thread unless one is running them already."""
        with self._queue_lock:
            if not self._started or self._draining or not self._commands:
                return
            self._draining = True
        self._pool.execute(self._drain)

    def is_running(self) -> bool:
        return self.state is ConnectorState.STARTED

    def await_initial_state(self, timeout_s: float) -> bool:
        """Wait until the initial target state was applied; False if still busy after
        ``timeout_s``, in which case the connector asks for a task reconfiguration itself
        as soon as it has started (so a slow ``start()`` still gets its tasks)."""
        if self._initial_applied.wait(timeout_s):
            return True
        with self.lock:
            if not self._initial_applied.is_set():
                self._reconfigure_when_started = True
                return False
        return True

    def transition_to(self, state: TargetState, timeout_s: float | None = None) -> None:
        """Apply a target state on the connector thread; waits up to ``timeout_s`` for it."""
        done = threading.Event()
        self.target_state = state
        self._put((state, done))
        if timeout_s:
            done.wait(timeout_s)

    def shutdown(self) -> None:
        """Ask for the connector to be stopped and dropped (returns immediately)."""
        self._put(_SHUTDOWN)

    def await_shutdown(self, timeout_s: float) -> bool:
        return self._done.wait(max(0.0, timeout_s))

    # -- on a pool thread -----------------------------------------------------------------------

    def _drain(self) -> None:
        """Run the queued commands in order until none is left (one pool thread at a time)."""
        token = CONNECTOR_CONTEXT.set(context_prefix(self.name).strip())
        try:
            if not self._initialized:
                self._initialized = True
                try:
                    with self.lock:
                        self.connector.initialize(_Context(self))
                except Exception as e:
                    self.log.error("Error initializing connector", exc_info=e)
                    self._fail(e)
            while True:
                with self._queue_lock:
                    if not self._commands or self._done.is_set():
                        self._draining = False
                        return
                    cmd = self._commands.popleft()
                if cmd is _SHUTDOWN:
                    try:
                        self._do_shutdown()
                    finally:
                        if self.offset_reader is not None:
                            self.offset_reader.close()
                        self._done.set()
                    continue
                state, done = cmd
                try:
                    self._do_transition(state)
                finally:
                    if done is not None:
                        done.set()
                    if not self._initial_applied.is_set():
                        self._after_initial_state()
        except BaseException:
            # the commands left must still run: another pool thread takes them
            with self._queue_lock:
                self._draining = False
            self._kick()
            raise
        finally:
            CONNECTOR_CONTEXT.reset(token)

    def _after_initial_state(self) -> None:
        with self.lock:
            self._initial_applied.set()
            late = self._reconfigure_when_started and self.state is ConnectorState.STARTED
        if late:
            self.log.info("Connector finished starting; requesting its task configurations")
            self._request_reconfig_cb(self.name)

    def _do_transition(self, target: TargetState) -> None:
        if self.state is ConnectorState.FAILED and target is not TargetState.STOPPED:
            self.log.debug("Ignoring transition to %s: the connector failed", target.value)
            return
        if target is TargetState.STARTED:
            if self.state is ConnectorState.STARTED:
                return
            resumed = self.state is not ConnectorState.INIT
            if self._do_start():
                if resumed:
                    self.status_listener.on_resume(self.name)
                else:
                    self.status_listener.on_startup(self.name)
        else:
            new = ConnectorState.PAUSED if target is TargetState.PAUSED else ConnectorState.STOPPED
            if self.state is new:
                return
            try:
                with self.lock:
                    if self.state is ConnectorState.STARTED:
                        self.connector.stop()
                    self.state = new
            except Exception as e:
                self.log.error("Error while stopping connector", exc_info=e)
                self._fail(e)
                return
            if new is ConnectorState.PAUSED:
                self.status_listener.on_pause(self.name)
            else:
                self.status_listener.on_stop(self.name)

    def _do_start(self) -> bool:
        try:
            with self.lock:
                self.connector.start(self.props)
                self.state = ConnectorState.STARTED
            self.log.info("Connector started")
            return True
        except Exception as e:
            self.log.error("Error while starting connector", exc_info=e)
            self._fail(e)
            return False

    def _do_shutdown(self) -> None:
        failed = self.state is ConnectorState.FAILED
        try:
            with self.lock:
                if self.state is ConnectorState.STARTED:
                    self.connector.stop()
                self.state = ConnectorState.STOPPED
        except Exception as e:
            self.log.error("Error while shutting down connector", exc_info=e)
            self._fail(e)
            failed = True
        if not failed:
            self.status_listener.on_shutdown(self.name)

    def _fail(self, error: BaseException) -> None:
        with self.lock:
            self.state = ConnectorState.FAILED
        self.status_listener.on_failure(self.name, error)

    def _request_reconfiguration(self) -> None:
        if self.state is ConnectorState.STARTED:
            self._request_reconfig_cb(self.name)
        else:
            self.log.debug("Skipping reconfiguration request: connector is %s", self.state.value)
