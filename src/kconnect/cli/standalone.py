"""``kconnect standalone worker.properties [connector.properties|connector.json ...]``.

Kafka's ``connect-standalone``: one worker, connector configs from the command line (and the
REST API), source offsets in ``offset.storage.file.filename``. A connector file is a
``.properties`` file or JSON, either a flat ``{"key": "value"}`` map or
``{"name": ..., "config": {...}}`` (optionally with ``"initial_state"``).

Start-up errors (unreadable file, bad config key/value, port in use) print one line naming the
key or file, the reason and what to do, and exit with status 1 — no traceback. SIGINT/SIGTERM
stop tasks and connectors (committing offsets) and exit 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import Any

__all__ = ["add_parser", "run"]

log = logging.getLogger("kconnect.standalone")

_LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR")


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect standalone``."""
    p = subparsers.add_parser(
        "standalone",
        help="run a standalone worker (like connect-standalone.sh)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("worker_properties", help="worker config (.properties)")
    p.add_argument("connectors", nargs="*", help="connector configs (.properties or .json)")
    p.add_argument(
        "--log-level", default=os.environ.get("KCONNECT_LOG_LEVEL", "INFO"),
        choices=_LEVELS, type=str.upper, help="root log level (default INFO)",
    )  # fmt: skip
    p.set_defaults(func=run)


class StartupError(Exception):
    """A problem the operator must fix before the worker can start (one line, no trace)."""


def _fail(message: str) -> int:
    print(f"kconnect standalone: error: {message}", file=sys.stderr)
    return 1


def read_connector_file(path: str) -> tuple[dict[str, str | None], Any]:
    """(config, target state or None) from a .properties or .json connector file."""
    from kconnect.rest.entities import config_map, parse_create_request
    from kconnect.runtime.herder_errors import BadRequestException
    from kconnect.runtime.worker_config import load_properties

    try:
        if path.endswith(".json"):
            import orjson

            with open(path, "rb") as f:
                data = orjson.loads(f.read())
            if isinstance(data, dict) and isinstance(data.get("config"), dict):
                name, config, target = parse_create_request(data)
                if name and "name" not in config:
                    config["name"] = name
                return config, target
            return config_map(data, f"connector file {path}"), None
        return dict(load_properties(path)), None
    except OSError as e:
        raise StartupError(f"cannot read connector config {path}: {e.strerror}") from None
    except (ValueError, BadRequestException) as e:
        raise StartupError(f"connector config {path} is not valid: {e}") from None


def _configure_logging(level: str) -> None:
    from kconnect.runtime.loggers import python_level

    logging.basicConfig(
        level=python_level(level) or logging.INFO,
        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s) [%(threadName)s]",
        stream=sys.stderr,
    )


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the exit status."""
    _configure_logging(args.log_level)
    from kconnect.api.errors import ConfigException, ConnectException
    from kconnect.rest.server import RestServerError

    stop_event = threading.Event()
    try:
        worker_props = _load_worker_props(args.worker_properties)
        connector_files = [(*read_connector_file(p), p) for p in args.connectors]
        herder, server = _start(worker_props)
    except StartupError as e:
        return _fail(str(e))
    except ConfigException as e:
        return _fail(f"{args.worker_properties}: {e}; fix the worker config and retry")
    except RestServerError as e:
        return _fail(str(e))
    except (ConnectException, ImportError, OSError) as e:
        log.debug("start-up failed", exc_info=True)
        return _fail(f"cannot start the worker: {e}")

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("Received %s, shutting down", signal.Signals(signum).name)
        stop_event.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    status = 0
    try:
        for config, target, path in connector_files:
            name = config.get("name")
            if not name:
                raise StartupError(
                    f"connector config {path} has no 'name'; add name=<connector name>"
                )
            try:
                herder.put_connector_config(
                    str(name), config, allow_replace=False, target_state=target
                )
                log.info("Created connector %s", name)
            except ConnectException as e:
                raise StartupError(f"connector config {path}: {e}") from None
        herder.ready()
        log.info("Kafka Connect standalone worker started")
        stop_event.wait()
    except StartupError as e:
        status = _fail(str(e))
    finally:
        server.stop()
        herder.stop()
        log.info("Kafka Connect standalone worker stopped")
    return status


def _load_worker_props(path: str) -> dict[str, str]:
    from kconnect.runtime.worker_config import load_properties

    try:
        return dict(load_properties(path))
    except OSError as e:
        raise StartupError(f"cannot read worker config {path}: {e.strerror}") from None


def _start(worker_props: dict[str, str]) -> tuple[Any, Any]:
    """Build and start worker, herder and REST server (raises StartupError/ConfigException)."""
    from kconnect.rest.app import create_app
    from kconnect.rest.server import RestServer
    from kconnect.runtime.config_transformer import ConfigTransformer, load_config_providers
    from kconnect.runtime.worker_config import StandaloneConfig

    config = StandaloneConfig(worker_props)  # bad keys/values fail here, before heavy imports
    from kconnect.runtime.offset_store import FileOffsetBackingStore
    from kconnect.runtime.plugins import Plugins
    from kconnect.runtime.standalone_herder import StandaloneHerder
    from kconnect.runtime.worker import Worker

    plugins = Plugins.load(config.get_list("plugin.path") or [])
    providers = load_config_providers(
        worker_props, instantiate=lambda n: plugins.new_instance("config_provider", n)
    )
    transformer = ConfigTransformer(providers) if providers else None
    offsets_path = config.offset_storage_file
    parent = os.path.dirname(os.path.abspath(offsets_path))
    if not os.path.isdir(parent):
        raise StartupError(
            f"offset.storage.file.filename: directory {parent} does not exist; create it or "
            "point the setting at an existing directory"
        )
    offset_store = FileOffsetBackingStore(offsets_path)
    worker = Worker(config.worker_id(), config, plugins, offset_store)
    herder = StandaloneHerder(worker, plugins, worker_config=config, config_transformer=transformer)
    app = create_app(herder, worker_config=config)
    server = RestServer(app, config)
    server.start()
    try:
        herder.start()
    except Exception:
        server.stop()
        raise
    from kconnect.runtime.gc_tuning import tune_for_worker

    tune_for_worker()
    return herder, server
