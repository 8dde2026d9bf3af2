"""The ``kconnect`` command line: a registry of subcommands, one module each.

Every module ``kconnect.cli.<name>`` (except this one and names starting with ``_``) that
defines ``add_parser(subparsers)`` is a subcommand. ``add_parser`` registers its parser on the
``argparse`` sub-parsers object and sets ``func`` -- a callable ``(argparse.Namespace) -> int``
returning the exit status -- with ``parser.set_defaults(func=...)``. To add ``kconnect foo``,
drop in ``kconnect/cli/foo.py``; nothing here changes.

Subcommand modules are imported for every invocation, so they import heavy dependencies
(FastAPI, Kafka clients, ...) inside their ``func``, not at module level. A module that fails to
import is reported on stderr and skipped, so one broken subcommand never breaks the others.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import kconnect
from kconnect import _hot_path as hot_path

DESCRIPTION = """\
kconnect is Apache Kafka Connect, written in Python: the same worker properties, the same
connector JSON, the same REST API and the same bytes on the wire and in the internal topics,
with connectors written in plain Python and installed with pip.
"""

EPILOG = """\
examples:
  kconnect local start                  start Apache Kafka (127.0.0.1:9092) and PostgreSQL (127.0.0.1:5432)
  kconnect demo                         replay the JDBC walkthrough: 3 workers, DLQ, scale-out, fail-over
  kconnect standalone worker.properties connector.json
                                        one worker, connectors from files (like connect-standalone.sh)
  kconnect distributed worker.properties
                                        join the cluster named by group.id (like connect-distributed.sh)
  kconnect status                       connectors, tasks, workers and throughput (REST on :8083)
  kconnect mirror-maker mm2.properties  MirrorMaker 2 replication flows (like connect-mirror-maker.sh)
  kconnect ui --url http://connect:8083 the dashboard in front of any cluster (workers serve it at /ui)
  KCONNECT_HOME=/tmp/cluster-a kconnect local start --kafka-only --kafka-port 9192
                                        a second Kafka cluster beside the first (for MirrorMaker 2)
  kconnect local stop                   stop what `kconnect local start` started

Run `kconnect COMMAND --help` for the options of a command.
"""


def _subcommand_modules() -> list[str]:
    import kconnect.cli as package

    return sorted(
        info.name
        for info in pkgutil.iter_modules(package.__path__)
        if info.name != "main" and not info.name.startswith("_")
    )


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every discoverable subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="kconnect",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"kconnect {kconnect.__version__}, hot path: {hot_path.describe()}",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in _subcommand_modules():
        try:
            module = importlib.import_module(f"kconnect.cli.{name}")
        except Exception as e:  # a broken subcommand must not take the others down
            print(f"kconnect: warning: subcommand {name!r} unavailable: {e}", file=sys.stderr)
            continue
        add_parser = getattr(module, "add_parser", None)
        if callable(add_parser):
            add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kconnect`` console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        print("kconnect: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
