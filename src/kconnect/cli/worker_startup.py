"""Starting a worker in this process, what ``kconnect standalone``, ``kconnect distributed`` and
``kconnect mirror-maker`` share: arguments, logging, start-up error reporting (one line, no
traceback, exit status 2), plugin and config-provider loading, serving REST, and running until
SIGINT/SIGTERM. (Workers as separate operating-system processes, for ``kconnect demo``, are
:mod:`kconnect.cli.worker_processes`.)"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from kconnect.runtime.common.failures import StartupError

__all__ = [
    "LEVELS",
    "StartupError",
    "StopSignal",
    "add_worker_arguments",
    "configure_logging",
    "exit_when_stuck",
    "load_plugins",
    "load_worker_props",
    "run_worker",
    "serve",
]

LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR")
#: How long a stopped worker's interpreter may take to exit before :func:`exit_when_stuck`
#: ends the process.
EXIT_GRACE_S = 15.0
#: The longest the main thread sleeps between looks for a SIGINT/SIGTERM; see :class:`StopSignal`.
SIGNAL_POLL_S = 0.5

log = logging.getLogger("kconnect.worker_process")


class StopSignal:
    """SIGINT and SIGTERM, caught: building one installs the handlers; :meth:`wait` returns
    in the main thread once either arrives (each is logged as ``Received SIGTERM, ...``).

    Why :meth:`wait` wakes every :data:`SIGNAL_POLL_S` instead of sleeping until set: the
    kernel may hand a process-directed signal to any thread of the process (a Kafka client's,
    a task pool's). CPython's C handler, run there, only marks the signal pending; its Python
    handler runs in the main thread, and a main thread asleep on a lock is not woken for it.
    A worker waiting without a timeout then ignored SIGTERM until a second one arrived (in
    CI on 2026-12-04 a worker sat out a test's whole 60 s). Create and wait in the main thread.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)

    def _on_signal(self, signum: int, _frame: Any) -> None:
        log.info("Received %s, shutting down", signal.Signals(signum).name)
        self._event.set()

    def wait(self) -> None:
        """Block until SIGINT or SIGTERM has arrived."""
        while not self._event.wait(SIGNAL_POLL_S):
            pass


def add_worker_arguments(p: argparse.ArgumentParser) -> None:
    """The worker properties file and ``--log-level``."""
    p.add_argument("worker_properties", help="worker config (.properties)")
    p.add_argument(
        "--log-level", default=os.environ.get("KCONNECT_LOG_LEVEL", "INFO"),
        choices=LEVELS, type=str.upper, help="root log level (default INFO)",
    )  # fmt: skip


#: Loggers a worker starts with an explicit level, as Kafka's connect-log4j2 config ships
#: ``org.reflections`` at ERROR. psycopg gives its logger WARN itself when first imported; set
#: here, ``GET /admin/loggers`` lists it whether or not a task has imported psycopg yet.
DEFAULT_LOGGER_LEVELS = {"psycopg": logging.WARNING}


def configure_logging(level: str) -> None:
    from kconnect.runtime.common.loggers import LOG_FORMAT, python_level

    logging.basicConfig(
        level=python_level(level) or logging.INFO, format=LOG_FORMAT, stream=sys.stderr
    )
    for name, default in DEFAULT_LOGGER_LEVELS.items():
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(default)


def load_worker_props(path: str) -> dict[str, str]:
    from kconnect.runtime.config.worker_config import load_properties

    try:
        return dict(load_properties(path))
    except OSError as e:
        raise StartupError(f"cannot read worker config {path}: {e.strerror}") from None


def load_plugins(config: Any, worker_props: dict[str, str]) -> tuple[Any, Any]:
    """(Plugins from the environment and ``plugin.path``, ConfigTransformer or None)."""
    from kconnect.runtime.config.config_transformer import ConfigTransformer, load_config_providers
    from kconnect.runtime.plugins.plugins import Plugins

    plugins = Plugins.load(
        config.get_list("plugin.path") or [],
        sources_first=bool(config.get("plugin.java.preferred")),
    )
    providers = load_config_providers(
        worker_props, instantiate=lambda n: plugins.new_instance("config_provider", n)
    )
    return plugins, (ConfigTransformer(providers) if providers else None)


def resolve_worker_variables(worker_props: dict[str, str], transformer: Any) -> dict[str, str]:
    """The worker properties with ``${provider:path:key}`` variables resolved, as Kafka's
    ``AbstractConfig`` resolves them in a config that defines ``config.providers`` (the
    provider settings themselves stay as written). Values read this way are remembered as
    secrets by the transformer, so they never reach a log line."""
    if transformer is None:
        return worker_props
    keep = {k: v for k, v in worker_props.items() if k.startswith("config.providers")}
    resolved = transformer.transform({k: v for k, v in worker_props.items() if k not in keep})
    return {**{k: str(v) for k, v in resolved.items() if v is not None}, **keep}


def serve(herder: Any, config: Any) -> Any:
    """Start the REST server, then the herder; tune the GC for the worker. The server."""
    from kconnect.rest.app import admin_listeners, create_admin_app, create_app
    from kconnect.rest.server import RestServer
    from kconnect.runtime.common.gc_tuning import tune_for_worker

    app = create_app(herder, worker_config=config, plugins=getattr(herder, "plugins", None))
    admin = create_admin_app(herder) if admin_listeners(config) else None
    server = RestServer(app, config, admin)
    try:
        server.start()
    except Exception:
        server.stop()
        raise
    try:
        herder.start()
    except Exception:
        server.stop()
        raise
    tune_for_worker()
    return server


def run_worker(
    command: str,
    args: argparse.Namespace,
    start: Callable[[dict[str, str]], tuple[Any, Any]],
    on_started: Callable[[Any], None] | None = None,
    stop_order: Callable[[Any, Any], None] | None = None,
) -> int:
    """Load the worker properties, ``start`` (→ herder, server), run ``on_started(herder)``,
    wait for SIGINT/SIGTERM, stop; the exit status. Start-up problems print one line."""
    configure_logging(args.log_level)
    from kconnect.api.errors import ConfigException, ConnectException
    from kconnect.rest.server import RestServerError

    def fail(message: str) -> int:
        print(f"kconnect {command}: error: {message}", file=sys.stderr)
        return 2  # as Kafka Connect's launchers exit on a start-up error

    try:
        herder, server = start(load_worker_props(args.worker_properties))
    except (StartupError, RestServerError) as e:
        return fail(str(e))
    except ConfigException as e:
        return fail(f"{args.worker_properties}: {e}; fix the worker config and retry")
    except (ConnectException, ImportError, OSError) as e:
        log.debug("start-up failed", exc_info=True)
        return fail(f"cannot start the worker: {e}")

    stop_signal = StopSignal()
    status = 0
    try:
        if on_started is not None:
            on_started(herder)
        log.info("Kafka Connect %s worker started", command)
        stop_signal.wait()
    except StartupError as e:
        status = fail(str(e))
    finally:
        if stop_order is not None:
            stop_order(herder, server)
        else:
            server.stop()
            herder.stop()
        log.info("Kafka Connect %s worker stopped", command)
    exit_when_stuck(status)
    return status


def exit_when_stuck(status: int, grace_s: float = EXIT_GRACE_S) -> None:
    """Make sure a worker that has stopped also exits, as a JVM does after its shutdown hook.

    Call once the orderly stop is done. The interpreter then joins every non-daemon thread
    (executor threads included) before it exits; a thread still busy -- an HTTP call to a
    leader that is itself stopping, say -- would keep the stopped worker alive for as long
    as it runs. If the process has not exited ``grace_s`` seconds later, this logs the
    threads still running with their stacks (what to fix) and ends the process with
    ``status``. A daemon timer: a process that exits in time never sees it fire. For the
    command line's own process only: it ends whatever process calls it.
    """

    def expire() -> None:
        # Every other thread, with its stack: executor threads hold the exit too (they are
        # joined at exit even when they are daemons), so the culprit may be either kind.
        me = threading.current_thread()
        frames = sys._current_frames()
        others = [t for t in threading.enumerate() if t not in (me, threading.main_thread())]
        stacks = "".join(
            f"\nThread {t.name}{' (daemon)' if t.daemon else ''}:\n"
            + "".join(traceback.format_stack(frames[t.ident]))
            for t in others
            if t.ident in frames
        )
        log.warning(
            "The worker stopped %.0f s ago but its process has not exited; exiting now. "
            "A thread below keeps it alive:%s",
            grace_s, stacks,
        )  # fmt: skip
        logging.shutdown()
        os._exit(status)

    timer = threading.Timer(grace_s, expire)
    timer.name = "exit-watchdog"
    timer.daemon = True
    timer.start()
