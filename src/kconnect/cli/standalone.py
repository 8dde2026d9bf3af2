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
import sys
from typing import Any

from kconnect.cli.worker_startup import (
    StartupError,
    add_worker_arguments,
    load_plugins,
    resolve_worker_variables,
    run_worker,
    serve,
)

__all__ = ["add_parser", "read_connector_file", "run"]

log = logging.getLogger("kconnect.standalone")


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect standalone``."""
    p = subparsers.add_parser(
        "standalone",
        help="run a standalone worker (like connect-standalone.sh)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_worker_arguments(p)
    p.add_argument("connectors", nargs="*", help="connector configs (.properties or .json)")
    p.set_defaults(func=run)


def read_connector_file(path: str) -> tuple[dict[str, str | None], Any]:
    """(config, target state or None) from a .properties or .json connector file."""
    from kconnect.rest.entities import config_map, parse_create_request
    from kconnect.runtime.common.request_errors import BadRequestException
    from kconnect.runtime.config.worker_config import load_properties

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


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the exit status."""
    try:
        connector_files = [(*read_connector_file(p), p) for p in args.connectors]
    except StartupError as e:
        print(f"kconnect standalone: error: {e}", file=sys.stderr)
        return 1

    def create_connectors(herder: Any) -> None:
        from kconnect.api.errors import ConnectException

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
        herder.mark_ready()

    return run_worker("standalone", args, _start, on_started=create_connectors)


def _start(worker_props: dict[str, str]) -> tuple[Any, Any]:
    """Build and start worker, herder and REST server (raises StartupError/ConfigException)."""
    from kconnect.runtime.config.worker_config import StandaloneConfig

    config = StandaloneConfig(worker_props)  # bad keys/values fail here, before heavy imports
    from kconnect.runtime.herder.standalone_herder import StandaloneHerder
    from kconnect.runtime.storage.offset_store import FileOffsetBackingStore
    from kconnect.runtime.worker.worker import Worker

    plugins, transformer = load_plugins(config, worker_props)
    if transformer is not None:  # ${file:...} and friends in the worker file itself
        worker_props = resolve_worker_variables(worker_props, transformer)
        config = StandaloneConfig(worker_props)
    offsets_path = config.offset_storage_file
    parent = os.path.dirname(os.path.abspath(offsets_path))
    if not os.path.isdir(parent):
        raise StartupError(
            f"offset.storage.file.filename: directory {parent} does not exist; create it or "
            "point the setting at an existing directory"
        )
    worker = Worker(config.worker_id(), config, plugins, FileOffsetBackingStore(offsets_path))
    worker.check_cluster_access()  # a refused login or TLS handshake ends the start-up
    herder = StandaloneHerder(worker, plugins, worker_config=config, config_transformer=transformer)
    return herder, serve(herder, config)
