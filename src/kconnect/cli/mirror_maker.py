"""``kconnect mirror-maker mm2.properties``: MirrorMaker 2 in dedicated mode, like Kafka's
``connect-mirror-maker.sh``.

The file is Java's (``clusters = A, B``, ``A.bootstrap.servers``, ``A->B.enabled = true``,
``A->B.topics = ...``, per-flow overrides; see kconnect.connectors.mirror.maker_config). Every
flow targeting one of this node's clusters (``--clusters``, default: all) runs as its own
distributed Connect worker on the target cluster (group ``<source>-mm2``, internal topics
``mm2-{configs,offsets,status}.<source>.internal``) with the three Mirror connectors; whichever
node leads a flow writes its connector configs from the file. Several nodes with the same file
share the flows; they need ``dedicated.mode.enable.internal.rest = true`` (and ``listeners``)
so followers can hand their task configs to the leader. That REST server serves each flow's
Kafka Connect REST API under ``/<source>/<target>/`` (``/A/B/connectors``...), the internal
endpoints Java's serves included.

Refused at start, with a line naming the setting: a bad or missing key, a cluster listed
twice in ``clusters``, a cluster without ``<alias>.bootstrap.servers``, a target cluster that
cannot be reached or refuses the login or TLS handshake of its clients (``B.security.protocol``,
``B.sasl.*``, ``B.ssl.*``: the error names the setting), and ``A->B`` plus ``B->A`` under
``IdentityReplicationPolicy`` (a cycle: topic names do not change, so records would go round
forever). SIGINT/SIGTERM stop every flow.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from kconnect.api.errors import ConfigException, ConnectException
from kconnect.cli.worker_startup import (
    LEVELS,
    StartupError,
    StopSignal,
    configure_logging,
    exit_when_stuck,
    load_worker_props,
)

__all__ = ["add_parser", "run"]

# the node's logger: its lines and the command's read as one source
log = logging.getLogger("kconnect.mirror_maker")


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect mirror-maker``."""
    p = subparsers.add_parser(
        "mirror-maker",
        help="run MirrorMaker 2 replication flows (like connect-mirror-maker.sh)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("config", metavar="mm2.properties", help="MirrorMaker 2 configuration file")
    p.add_argument(
        "--clusters", nargs="+", metavar="CLUSTER",
        help="target clusters of this node (default: every cluster of the file)",
    )  # fmt: skip
    p.add_argument(
        "--log-level", default=os.environ.get("KCONNECT_LOG_LEVEL", "INFO"),
        choices=LEVELS, type=str.upper, help="root log level (default INFO)",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the exit status."""
    configure_logging(args.log_level)
    # Imported here, not at module level: every ``kconnect`` invocation imports each command
    # module (kconnect.cli.main), and these pull in uvicorn, FastAPI, the runtime and the
    # Kafka clients.
    from kconnect.rest.server import RestServerError

    def fail(message: str) -> int:
        print(f"kconnect mirror-maker: error: {message}", file=sys.stderr)
        return 1

    try:
        # inside the try: a dependency that fails to import is a start-up error (one line)
        from kconnect.mirror_maker import MirrorMakerNode

        node = MirrorMakerNode.from_properties(load_worker_props(args.config), args.clusters)
        node.start()
    except (StartupError, RestServerError) as e:
        return fail(str(e))
    except ConfigException as e:
        return fail(f"{args.config}: {e}; fix the file and retry")
    except (ConnectException, ImportError, OSError) as e:
        log.debug("start-up failed", exc_info=True)
        return fail(f"cannot start MirrorMaker: {e}")

    stop_signal = StopSignal()
    log.info("Kafka MirrorMaker started")
    try:
        stop_signal.wait()
    finally:
        node.stop()
        log.info("Kafka MirrorMaker stopped.")
    exit_when_stuck(0)
    return 0
