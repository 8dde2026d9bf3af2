"""``JavaPluginHost``: this worker's one JVM child process running Java plugins.

Lifecycle: nothing runs until the first :meth:`JavaPluginHost.call`, which starts the JVM
(building the host jar first if this machine never did). A JVM that exited -- crashed, killed,
out of memory -- fails the calls that were waiting with a :class:`JavaHostError` naming its
exit status, and the next call starts a new one. :meth:`JavaPluginHost.close` asks it to shut
down and waits a little; whatever happens to the worker, the JVM exits when its stdin closes,
which the operating system does when the worker dies (kill -9 included), so no JVM outlives
its worker.

Threads: any thread may call; calls are multiplexed over the one pipe pair by request id, so a
slow call does not hold up the others. One reader thread per JVM reads replies, one more
copies the JVM's stderr into the worker's log: the plugins' SLF4J events under their own
logger names and levels (:mod:`.host_log`), other lines under ``kconnect.java_host.jvm``.

Logging: a call carries the connector context of the connector or task it is made for (the
context of the thread that started the handle, else the calling thread's), which the host puts
in SLF4J's MDC around the call, as Kafka's ``LoggingContext`` does. Every level set through
``/admin/loggers`` in this process is passed on to a running JVM (``set_log_level``), and a new
JVM starts with the levels the process's loggers have. The running JVM is registered as a child
process, so the worker's metrics report its memory.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import subprocess
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import IO, Any

from kconnect.api.errors import ConnectException, RetriableException
from kconnect.api.metrics_sources import add_metrics_source
from kconnect.java_host.frames import FrameError, read_frame, write_frame
from kconnect.java_host.host_jar import HOST_MAIN_CLASS, host_classpath
from kconnect.java_host.host_log import log_event, parse_line
from kconnect.java_host.host_metrics import HostMetrics
from kconnect.local.maven import java_executable
from kconnect.runtime.common.child_processes import register_child_process
from kconnect.runtime.common.log_context import CONNECTOR_CONTEXT
from kconnect.runtime.common.loggers import add_level_listener, explicit_levels

__all__ = [
    "CallbackHandler",
    "EventHandler",
    "JavaHostError",
    "JavaPluginError",
    "JavaPluginHost",
    "JavaRetriableError",
    "plugin_error",
    "shared_host",
]

#: ``(event name, message)`` from the host about one handle; runs on the reply reader thread.
EventHandler = Callable[[str, dict[str, Any]], None]
#: ``(op, message) -> result`` asked by the host for one handle; runs on a callback thread.
CallbackHandler = Callable[[str, dict[str, Any]], dict[str, Any]]

log = logging.getLogger(__name__)
jvm_log = logging.getLogger("kconnect.java_host.jvm")

#: How long a call waits for its reply unless told otherwise.
DEFAULT_CALL_TIMEOUT_S = 120.0
#: JVM options from the environment, as Kafka's scripts pass them (``kafka-run-class.sh``).
JVM_OPTION_VARIABLES = ("KAFKA_HEAP_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_OPTS")
#: The heap when ``KAFKA_HEAP_OPTS`` is unset. The host holds plugins and the batches in
#: flight only (converters, producers and consumers live in the worker), so it gets less than
#: a Java worker (Kafka's ``connect-distributed.sh``: ``-Xms256M -Xmx2G``); without a limit
#: the JVM sizes its heap from the machine's memory and grows it toward a quarter of it.
DEFAULT_HEAP_OPTS = ("-Xms64m", "-Xmx512m")
#: The collector when neither ``KAFKA_HEAP_OPTS`` nor ``KAFKA_JVM_PERFORMANCE_OPTS`` is set and
#: no option names one: the serial collector keeps the default heap near the plugins' live set
#: (G1 grows it toward ``-Xmx`` under a connector's allocation rate: 618 against 244 MiB for
#: the JVM on the Debezium benchmark, at the same records/s) and costs no GC threads; a full
#: collection of a heap this size takes milliseconds. Kafka's scripts choose G1 in
#: ``KAFKA_JVM_PERFORMANCE_OPTS``; setting that variable (or a larger heap) keeps the JVM's
#: choice to the operator.
DEFAULT_GC_OPTS = ("-XX:+UseSerialGC",)
#: How long ``/admin/loggers`` waits for a JVM to take a new level.
LOG_LEVEL_TIMEOUT_S = 10.0


def _names_a_collector(option: str) -> bool:
    """Whether a JVM option chooses a garbage collector (``-XX:+UseG1GC``, ``-XX:+UseZGC``...)."""
    return option.startswith("-XX:+Use") and option.endswith("GC")


class JavaHostError(ConnectException):
    """The host could not be started, or exited while a call waited for it."""


class JavaPluginError(ConnectException):
    """Java plugin code (or the host on its behalf) threw; carries the Java class and trace.

    The Java stack trace is a note of the exception, so a failed task's status trace ends with
    it, as on Kafka Connect."""

    def __init__(self, java_class: str, message: str | None, trace: str) -> None:
        super().__init__(f"{java_class}: {message}" if message else java_class)
        self.java_class = java_class
        self.java_message = message
        self.java_trace = trace
        if trace:
            self.add_note("Java stack trace (in the plugin host):\n" + trace.rstrip())

    @property
    def java_class_name(self) -> str:
        """The Java exception's class, which DLQ headers and logs name (as Kafka Connect's)."""
        return self.java_class


class JavaRetriableError(JavaPluginError, RetriableException):
    """The Java plugin threw a ``RetriableException``: the runtime retries, as Kafka does."""


def plugin_error(error: Mapping[str, Any]) -> JavaPluginError:
    """The exception for an error object of the host (a reply's or an event's)."""
    kind = JavaRetriableError if error.get("retriable") else JavaPluginError
    return kind(
        str(error.get("class") or "java.lang.Throwable"),
        error.get("message"),
        str(error.get("trace") or ""),
    )


class _Jvm:
    """One started JVM: its process, pending calls and reader threads."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.ready = threading.Event()  # its plugins are loaded (the first scan answered)
        self.prepare_lock = threading.Lock()
        self.pending: dict[int, Future[dict[str, Any]]] = {}
        self.write_lock = threading.Lock()
        self.dead: str | None = None
        self.stopping = False

    @property
    def stdin(self) -> IO[bytes]:
        assert self.process.stdin is not None
        return self.process.stdin


class JavaPluginHost:
    """See the module docstring for the lifecycle and threading contract."""

    #: What the worker's metrics call this child process.
    child_kind = "java-plugin-host"

    def __init__(
        self, java_options: list[str] | None = None, plugin_path: list[str] | None = None
    ) -> None:
        self._java_options = list(java_options or [])
        #: The worker's plugin.path: every JVM scans it before its first call.
        self.plugin_path: list[str] = list(plugin_path or [])
        self._lock = threading.Lock()
        self._jvm: _Jvm | None = None
        self._ids = itertools.count(1)
        self._closed = False
        self.starts = 0
        self._handles = itertools.count(1)
        self._events: dict[str, EventHandler] = {}
        self._callbacks: dict[str, CallbackHandler] = {}
        self._log_contexts: dict[str, str] = {}  # handle -> connector context of its starter
        self._callback_pool = ThreadPoolExecutor(4, thread_name_prefix="java-host-callback")
        add_level_listener(self)
        register_child_process(self)

    # -- public --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """A JVM is up (it may still die at any moment)."""
        jvm = self._jvm
        return jvm is not None and jvm.dead is None and jvm.process.poll() is None

    @property
    def pid(self) -> int | None:
        jvm = self._jvm
        return jvm.process.pid if jvm is not None and self.running else None

    def call(
        self,
        op: str,
        fields: Mapping[str, Any] | None = None,
        *,
        timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    ) -> dict[str, Any]:
        """Send ``op`` with ``fields``; the reply's ``result``.

        Raises:
            JavaPluginError: the plugin (or the host for it) threw.
            JavaHostError: the JVM could not start or exited before replying.
            TimeoutError: no reply within ``timeout_s``.
        """
        jvm = self._ensure_started()
        if op != "scan" and not jvm.ready.is_set():
            self._prepare(jvm)
        context = self._log_context(fields)
        if context:
            fields = {**(fields or {}), "log_context": context}
        reply = self._send(jvm, op, fields, timeout_s)
        if reply.get("ok"):
            if op == "scan":
                jvm.ready.set()
            result = reply.get("result")
            return result if isinstance(result, dict) else {}
        raise plugin_error(reply.get("error") or {})

    def call_if_running(
        self, op: str, fields: Mapping[str, Any] | None = None, *, timeout_s: float
    ) -> dict[str, Any] | None:
        """:meth:`call` on the JVM that runs now, if it is up and has loaded its plugins; None
        otherwise. Never starts a JVM (what ``/metrics`` asks must not start one)."""
        jvm = self._jvm
        if jvm is None or jvm.dead is not None or jvm.process.poll() is not None:
            return None
        if not jvm.ready.is_set():
            return None
        reply = self._send(jvm, op, fields, timeout_s)
        if reply.get("ok"):
            result = reply.get("result")
            return result if isinstance(result, dict) else {}
        raise plugin_error(reply.get("error") or {})

    def _send(
        self, jvm: _Jvm, op: str, fields: Mapping[str, Any] | None, timeout_s: float
    ) -> dict[str, Any]:
        request_id = next(self._ids)
        future: Future[dict[str, Any]] = Future()
        jvm.pending[request_id] = future
        try:
            with jvm.write_lock:
                if jvm.dead is not None:
                    raise JavaHostError(jvm.dead)
                write_frame(jvm.stdin, {"id": request_id, "op": op, **(fields or {})})
        except (BrokenPipeError, OSError) as e:
            jvm.pending.pop(request_id, None)
            raise JavaHostError(
                f"The Java plugin host is gone ({e}); it is restarted on the next call"
            ) from None
        try:
            return future.result(timeout_s)
        except FutureTimeout:
            jvm.pending.pop(request_id, None)
            raise TimeoutError(
                f"The Java plugin host did not answer '{op}' within {timeout_s:.0f} s"
            ) from None

    def _prepare(self, jvm: _Jvm) -> None:
        """Load the worker's plugin.path into a new JVM (its first caller does; others wait)."""
        with jvm.prepare_lock:
            if jvm.ready.is_set():
                return
            if self.plugin_path:
                reply = self._send(jvm, "scan", {"plugin_path": self.plugin_path}, 600.0)
                if not reply.get("ok"):
                    raise plugin_error(reply.get("error") or {})
            jvm.ready.set()

    def _log_context(self, fields: Mapping[str, Any] | None) -> str:
        """Kafka's ``connector.context`` for a call: ``[name|task-0] ``, ``[name|worker] ``."""
        handle = (fields or {}).get("handle")
        context = self._log_contexts.get(handle) if isinstance(handle, str) else None
        context = context or CONNECTOR_CONTEXT.get()
        return f"{context} " if context else ""

    def logger_level_set(self, namespace: str, level: str) -> None:
        """Pass a level set through ``/admin/loggers`` on to the running JVM, if any (a JVM
        started later takes the process's levels at start)."""
        with self._lock:
            jvm = self._jvm
        if jvm is None or jvm.dead is not None or jvm.process.poll() is not None:
            return
        try:
            reply = self._send(
                jvm, "set_log_level", {"logger": namespace, "level": level}, LOG_LEVEL_TIMEOUT_S
            )
        except (JavaHostError, TimeoutError) as e:
            log.warning("The Java plugin host did not take the level %s of %s: %s", level,
                        namespace, e)  # fmt: skip
            return
        if not reply.get("ok"):
            log.warning("The Java plugin host refused the level %s of %s: %s", level, namespace,
                        (reply.get("error") or {}).get("message"))  # fmt: skip

    def new_handle(self, prefix: str) -> str:
        """A name for a new plugin instance in the host (``c-1``, ``t-2``...)."""
        return f"{prefix}-{next(self._handles)}"

    def register(
        self,
        handle: str,
        *,
        on_event: EventHandler | None = None,
        on_callback: CallbackHandler | None = None,
    ) -> None:
        """Route the host's events and callbacks about ``handle`` to these functions; the
        calling thread's connector context is the one of every later call on ``handle``."""
        context = CONNECTOR_CONTEXT.get()
        if context:
            self._log_contexts[handle] = context
        if on_event is not None:
            self._events[handle] = on_event
        if on_callback is not None:
            self._callbacks[handle] = on_callback

    def unregister(self, handle: str) -> None:
        self._events.pop(handle, None)
        self._callbacks.pop(handle, None)
        self._log_contexts.pop(handle, None)

    def stop_jvm(self, timeout_s: float = 5.0) -> None:
        """Stop the running JVM, if any; the next call starts a new one."""
        with self._lock:
            jvm, self._jvm = self._jvm, None
        if jvm is not None:
            self._stop(jvm, timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop the JVM for good: further calls raise :class:`JavaHostError`."""
        with self._lock:
            self._closed = True
            jvm, self._jvm = self._jvm, None
        if jvm is not None:
            self._stop(jvm, timeout_s)

    @staticmethod
    def _stop(jvm: _Jvm, timeout_s: float) -> None:
        jvm.stopping = True
        try:
            with jvm.write_lock:
                jvm.stdin.close()  # the host exits when its stdin ends
        except OSError:
            pass
        try:
            jvm.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            jvm.process.kill()
            jvm.process.wait(timeout_s)

    # -- starting ------------------------------------------------------------------------------

    def _ensure_started(self) -> _Jvm:
        with self._lock:
            if self._closed:
                raise JavaHostError("The Java plugin host is closed (the worker is stopping)")
            jvm = self._jvm
            if jvm is not None and jvm.dead is None and jvm.process.poll() is None:
                return jvm
            if jvm is not None:
                log.warning(
                    "The Java plugin host exited (%s); starting a new one",
                    jvm.dead or jvm.process.returncode,
                )
            self._jvm = self._start()
            return self._jvm

    def _start(self) -> _Jvm:
        java = java_executable()
        if java is None:
            raise JavaHostError(
                "Java plugins need Java 17+ (java on PATH or JAVA_HOME): apt-get install "
                "openjdk-17-jdk-headless"
            )
        classpath = os.pathsep.join(str(p) for p in host_classpath())
        # the process's levels now: a level set from here on is sent once the JVM is known
        # (self._jvm is set under the lock that logger_level_set takes to find it)
        levels = json.dumps(explicit_levels(), separators=(",", ":"))
        command = [
            java, *self._jvm_options(), "-cp", classpath, HOST_MAIN_CLASS, "--log-levels", levels,
        ]  # fmt: skip
        log.info("Starting the Java plugin host")
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
        )
        jvm = _Jvm(process)
        self.starts += 1
        threading.Thread(
            target=self._read_replies, args=(jvm,), name="java-host-replies", daemon=True
        ).start()
        threading.Thread(
            target=self._copy_log, args=(jvm,), name="java-host-log", daemon=True
        ).start()
        return jvm

    def _jvm_options(self) -> list[str]:
        options: list[str] = []
        heap_set = bool((os.environ.get("KAFKA_HEAP_OPTS") or "").strip())
        performance_set = bool((os.environ.get("KAFKA_JVM_PERFORMANCE_OPTS") or "").strip())
        if not heap_set:
            options.extend(DEFAULT_HEAP_OPTS)
        for variable in JVM_OPTION_VARIABLES:
            options.extend((os.environ.get(variable) or "").split())
        options.extend(self._java_options)
        if not (heap_set or performance_set or any(_names_a_collector(o) for o in options)):
            options[len(DEFAULT_HEAP_OPTS) : len(DEFAULT_HEAP_OPTS)] = DEFAULT_GC_OPTS
        return options

    # -- reader threads ------------------------------------------------------------------------

    def _read_replies(self, jvm: _Jvm) -> None:
        stdout = jvm.process.stdout
        assert stdout is not None
        reason = "the Java plugin host closed its output"
        try:
            while True:
                message = read_frame(stdout)
                if message is None:
                    break
                if "event" in message:
                    self._dispatch_event(message)
                elif "callback" in message:
                    self._callback_pool.submit(self._answer_callback, jvm, message)
                else:
                    future = jvm.pending.pop(int(message.get("id", -1)), None)
                    if future is not None and not future.done():
                        future.set_result(message)
        except (FrameError, OSError, ValueError) as e:
            reason = f"unreadable reply from the Java plugin host: {e}"
        status = jvm.process.wait()
        with jvm.write_lock:
            jvm.dead = f"The Java plugin host exited with status {status} ({reason})"
        for future in list(jvm.pending.values()):
            if not future.done():
                future.set_exception(JavaHostError(jvm.dead))
        jvm.pending.clear()
        if not jvm.stopping:
            log.warning("%s; see the Java log lines above", jvm.dead)

    def _dispatch_event(self, message: dict[str, Any]) -> None:
        handler = self._events.get(str(message.get("handle")))
        if handler is None:
            log.debug("Event %s for unknown handle %s", message.get("event"), message.get("handle"))
            return
        try:
            handler(str(message["event"]), message)
        except Exception:
            log.exception("Handling the Java plugin host's event %s failed", message.get("event"))

    def _answer_callback(self, jvm: _Jvm, message: dict[str, Any]) -> None:
        callback_id = message.get("callback")
        handler = self._callbacks.get(str(message.get("handle")))
        reply: dict[str, Any]
        try:
            if handler is None:
                raise ConnectException(f"No plugin instance {message.get('handle')} in this worker")
            reply = {
                "callback": callback_id,
                "ok": True,
                "result": handler(str(message.get("op")), message),
            }
        except Exception as e:
            reply = {
                "callback": callback_id,
                "ok": False,
                "error": {"message": f"{type(e).__name__}: {e}"},
            }
        try:
            with jvm.write_lock:
                if jvm.dead is None:
                    write_frame(jvm.stdin, reply)
        except OSError:
            pass  # the JVM is gone; its reader thread reports that

    @staticmethod
    def _copy_log(jvm: _Jvm) -> None:
        stderr = jvm.process.stderr
        assert stderr is not None
        for raw in stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if not line:
                continue
            event = parse_line(line)
            if event is not None:
                try:
                    log_event(event)
                    continue
                except Exception:  # a handler failed: the line still reaches the log
                    pass
            jvm_log.info("%s", line)


_shared: JavaPluginHost | None = None
_shared_lock = threading.Lock()


#: Environment variable carrying the worker's plugin.path to its task processes' hosts.
PLUGIN_PATH_VARIABLE = "KCONNECT_JAVA_PLUGIN_PATH"


def shared_host() -> JavaPluginHost:
    """This process's plugin host (created, not started, on first use). In a task process it
    inherits the worker's plugin.path through :data:`PLUGIN_PATH_VARIABLE`. Its plugins'
    metrics are a source of every worker registry of the process (:mod:`.host_metrics`)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            inherited = os.environ.get(PLUGIN_PATH_VARIABLE, "")
            _shared = JavaPluginHost(plugin_path=[p for p in inherited.split(os.pathsep) if p])
            add_metrics_source(HostMetrics(_shared).collect)
        return _shared
