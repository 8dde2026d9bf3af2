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
from typing import Any

from kconnect.cli.worker_startup import (
    add_worker_arguments,
    load_plugins,
    resolve_worker_variables,
    run_worker,
    serve,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect distributed``."""
    p = subparsers.add_parser(
        "distributed",
        help="run a worker of a Connect cluster (like connect-distributed.sh)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_worker_arguments(p)
    p.set_defaults(func=run)


def _stop(herder: Any, server: Any) -> None:
    herder.stop()  # stops work and leaves the group before the REST server goes away
    server.stop()


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the exit status."""
    return run_worker("distributed", args, _start, stop_order=_stop)


def _start(worker_props: dict[str, str]) -> tuple[Any, Any]:
    """Build and start stores, worker, herder and REST server."""
    from kconnect.runtime.config.distributed_config import DistributedConfig

    config = DistributedConfig(worker_props)  # bad keys/values fail here, before heavy imports
    from kconnect.runtime.herder.distributed_herder import DistributedHerder
    from kconnect.runtime.storage.kafka_config_store import KafkaConfigBackingStore
    from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
    from kconnect.runtime.storage.kafka_status_store import KafkaStatusBackingStore
    from kconnect.runtime.worker.worker import Worker

    plugins, transformer = load_plugins(config, worker_props)
    if transformer is not None:  # ${file:...} and friends in the worker file itself
        worker_props = resolve_worker_variables(worker_props, transformer)
        config = DistributedConfig(worker_props)
    worker = Worker(config.worker_id(), config, plugins, KafkaOffsetBackingStore(config))
    worker.check_cluster_access()  # a refused login or TLS handshake ends the start-up
    herder = DistributedHerder(
        config,
        worker,
        plugins,
        KafkaConfigBackingStore(config),
        KafkaStatusBackingStore(config),
        config_transformer=transformer,
    )
    return herder, serve(herder, config)
