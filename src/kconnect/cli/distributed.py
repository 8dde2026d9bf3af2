"""``kconnect distributed worker.properties``: a worker of a Connect cluster.

Kafka's ``connect-distributed``: workers with the same ``group.id`` share connectors and
tasks through Kafka's group protocol; configs, statuses and source offsets live in the
``config.storage.topic``, ``status.storage.topic`` and ``offset.storage.topic`` topics
(created compacted when missing), so every worker — kconnect or Apache Kafka Connect — sees
the same state. Any worker's REST API serves the whole cluster (writes are forwarded to the
leader).

Start-up errors (unreadable file, bad or missing config key, port in use, unusable internal
topic) print one line naming the key or file, the reason and what to do, and exit with
status 1. SIGINT/SIGTERM stop tasks and connectors (committing offsets), leave the group so
the others take the work over at once, and exit 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading
from typing import Any

from kconnect.cli.standalone import _LEVELS, StartupError, _configure_logging, _load_worker_props

__all__ = ["add_parser", "run"]

log = logging.getLogger("kconnect.distributed")


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect distributed``."""
    p = subparsers.add_parser(
        "distributed",
        help="run a worker of a Connect cluster (like connect-distributed.sh)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("worker_properties", help="worker config (.properties)")
    p.add_argument(
        "--log-level", default=os.environ.get("KCONNECT_LOG_LEVEL", "INFO"),
        choices=_LEVELS, type=str.upper, help="root log level (default INFO)",
    )  # fmt: skip
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    import sys

    print(f"kconnect distributed: error: {message}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the exit status."""
    _configure_logging(args.log_level)
    from kconnect.api.errors import ConfigException, ConnectException
    from kconnect.rest.server import RestServerError

    stop_event = threading.Event()
    try:
        worker_props = _load_worker_props(args.worker_properties)
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
    log.info("Kafka Connect distributed worker started")
    try:
        stop_event.wait()
    finally:
        herder.stop()  # stops work and leaves the group before the REST server goes away
        server.stop()
        log.info("Kafka Connect distributed worker stopped")
    return 0


def _start(worker_props: dict[str, str]) -> tuple[Any, Any]:
    """Build and start stores, worker, herder and REST server."""
    from kconnect.runtime.distributed_config import DistributedConfig

    config = DistributedConfig(worker_props)  # bad keys/values fail here, before heavy imports
    from kconnect.rest.app import create_app
    from kconnect.rest.server import RestServer
    from kconnect.runtime.config_transformer import ConfigTransformer, load_config_providers
    from kconnect.runtime.distributed_herder import DistributedHerder
    from kconnect.runtime.kafka_config_store import KafkaConfigBackingStore
    from kconnect.runtime.kafka_offset_store import KafkaOffsetBackingStore
    from kconnect.runtime.kafka_status_store import KafkaStatusBackingStore
    from kconnect.runtime.plugins import Plugins
    from kconnect.runtime.worker import Worker

    plugins = Plugins.load(config.get_list("plugin.path") or [])
    providers = load_config_providers(
        worker_props, instantiate=lambda n: plugins.new_instance("config_provider", n)
    )
    transformer = ConfigTransformer(providers) if providers else None
    worker = Worker(config.worker_id(), config, plugins, KafkaOffsetBackingStore(config))
    herder = DistributedHerder(
        config,
        worker,
        plugins,
        KafkaConfigBackingStore(config),
        KafkaStatusBackingStore(config),
        config_transformer=transformer,
    )
    server = RestServer(create_app(herder, worker_config=config), config)
    server.start()
    try:
        herder.start()
    except Exception:
        server.stop()
        raise
    from kconnect.runtime.gc_tuning import tune_for_worker

    tune_for_worker()
    return herder, server
