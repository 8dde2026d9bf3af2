"""``kconnect ui --url URL``: the dashboard in front of a Kafka Connect cluster that does not
serve it itself -- a Java one, say, to try the dashboard before migrating.

Every kconnect worker already serves the dashboard at ``http://<worker>:8083/ui``. This
command serves the same page on ``--listen`` (default ``127.0.0.1:8090``) and passes the page's
REST calls through to ``--url`` (with the browser's credentials when the cluster asks for
them). The cluster view, connector pages, config editor, offsets and restarts work against any
Kafka Connect 3.x/4.x; charts need kconnect workers (Java workers keep no metrics history) and
the dead letter queue browser needs ``--bootstrap-servers``.

Examples::

    kconnect ui --url http://connect-1:8083
    kconnect ui --url https://connect-1:8443 --bootstrap-servers kafka-1:9092 --listen 0.0.0.0:8090
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect ui``."""
    p = subparsers.add_parser(
        "ui",
        help="serve the dashboard in front of any Kafka Connect cluster (Java's too)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--url", required=True, help="a worker's REST URL, e.g. http://connect-1:8083")
    p.add_argument("--listen", default="127.0.0.1:8090", metavar="HOST:PORT",
                   help="where to serve the dashboard (default 127.0.0.1:8090)")  # fmt: skip
    p.add_argument("--bootstrap-servers", metavar="HOST:PORT[,...]",
                   help="Kafka, for the dead letter queue browser (plaintext)")  # fmt: skip
    p.add_argument("--insecure", action="store_true",
                   help="do not verify the cluster's TLS certificate")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from kconnect.ui.proxy_app import create_proxy_app

    host, _, port = str(args.listen).rpartition(":")
    if not port.isdecimal():
        print(f"kconnect ui: error: --listen {args.listen}: give HOST:PORT", file=sys.stderr)
        return 2
    kafka = {"bootstrap.servers": args.bootstrap_servers} if args.bootstrap_servers else None
    app = create_proxy_app(args.url, kafka_props=kafka, verify=not args.insecure)
    print(f"kconnect dashboard for {args.url} at http://{host or '127.0.0.1'}:{port}/ui/",
          flush=True)  # fmt: skip
    uvicorn.run(app, host=host or "127.0.0.1", port=int(port), log_level="warning")
    return 0
