"""``kconnect local start|stop|status``: a local Apache Kafka + PostgreSQL (+ a schema registry)
for development.

In the spirit of ``confluent local services start``: one KRaft Kafka node on 127.0.0.1:9092
and one PostgreSQL on 127.0.0.1:5432 (database ``kcdb``, user ``kcuser``, password ``kcpw``),
with all data, logs and pid files under ``$KCONNECT_HOME`` (default ``./.kconnect``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

HELP = "run Apache Kafka and PostgreSQL locally for development and tests"

DESCRIPTION = """\
Run a local development stack:

  kafka     Apache Kafka (the real broker, KRaft mode, one combined broker+controller node)
            on 127.0.0.1:9092, controller on 127.0.0.1:9093. Jars come from $KAFKA_HOME when it
            is a Kafka distribution, otherwise from Maven Central (needs java 17+ and mvn;
            downloaded once into $KCONNECT_HOME/cache).
  postgres  PostgreSQL on 127.0.0.1:5432, database kcdb, user kcuser, password kcpw
            (postgresql://kcuser:kcpw@127.0.0.1:5432/kcdb). Needs the PostgreSQL server
            binaries (initdb, pg_ctl).
  registry  with --registry (or --registry-only): Apicurio Registry 2.6 with Confluent's
            schema registry API at http://127.0.0.1:8081/apis/ccompat/v7 (the
            schema.registry.url of the Avro, Protobuf and JSON Schema converters), in-memory.
            Fetched once through Maven (needs java 17+ and mvn).

Data, logs and pid files live under $KCONNECT_HOME (default ./.kconnect). `start` is
idempotent and safe to run concurrently; `stop` stops only what `start` started.

A second Kafka cluster beside the first (to try MirrorMaker 2: `kconnect mirror-maker`) is
another home and port:

  KCONNECT_HOME=/tmp/cluster-a kconnect local start --kafka-only --kafka-port 9192

(controller on 9193; link /tmp/cluster-a/cache to the first home's cache to reuse its jars).
Stop it the same way: KCONNECT_HOME=/tmp/cluster-a kconnect local stop --purge.
"""


def _say(message: str) -> None:
    print(message, flush=True)


def _options(args: argparse.Namespace) -> Any:
    from kconnect.local.stack import StackOptions

    kafka_only = getattr(args, "kafka_only", False)
    postgres_only = getattr(args, "postgres_only", False)
    registry_only = getattr(args, "registry_only", False)
    if args.local_command == "start":
        registry = registry_only or getattr(args, "registry", False)
    else:  # stop and status act on the registry too unless another service is singled out
        registry = not (kafka_only or postgres_only)
    return StackOptions(
        kafka=not (postgres_only or registry_only),
        postgres=not (kafka_only or registry_only),
        kafka_port=args.kafka_port,
        controller_port=args.controller_port,
        pg_port=args.pg_port,
        secure=getattr(args, "secure", False),
        registry=registry,
        registry_port=args.registry_port,
    )


def _start(args: argparse.Namespace) -> int:
    from kconnect.local import paths, stack

    _say(f"kconnect home: {paths.home()}")
    options = _options(args)
    stack.start(options, progress=_say)
    _say("")
    _say(stack.format_table(stack.status(options)))
    if options.registry:
        _say("")
        _say(f"schema.registry.url={options.registry_settings().url}")
    if options.secure and options.kafka:
        from kconnect.local import secure

        settings = options.kafka_settings()
        material = secure.SecureMaterial.load(settings.directory / "secure")
        listeners = secure.SecureListeners(settings.host, settings.port)
        _say("")
        _say(secure.worker_properties(material, listeners))
    return 0


def _stop(args: argparse.Namespace) -> int:
    from kconnect.local import stack

    stopped = stack.stop(_options(args), progress=_say, purge=args.purge)
    if not stopped:
        _say("Nothing to stop (no service started from this home is running).")
    return 0


def _status(args: argparse.Namespace) -> int:
    from kconnect.local import paths, stack

    rows = stack.status(_options(args))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        _say(f"kconnect home: {paths.home()}")
        _say(stack.format_table(rows))
    return 0


def _run(handler: Any) -> Any:
    """Wrap a handler so missing tools and stack failures print one clear line."""

    def run(args: argparse.Namespace) -> int:
        from kconnect.local import LocalStackError, MissingToolError

        try:
            return int(handler(args))
        except MissingToolError as e:
            print(f"kconnect local: {e}", file=sys.stderr)
            return 3
        except (LocalStackError, TimeoutError) as e:
            print(f"kconnect local: error: {e}", file=sys.stderr)
            return 1

    return run


def _add_common(p: argparse.ArgumentParser, *, selection: bool = True) -> None:
    if selection:
        only = p.add_mutually_exclusive_group()
        only.add_argument("--kafka-only", action="store_true", help="only Apache Kafka")
        only.add_argument("--postgres-only", action="store_true", help="only PostgreSQL")
        only.add_argument("--registry-only", action="store_true", help="only the schema registry")
    p.add_argument(
        "--kafka-port", type=int, default=9092, metavar="PORT",
        help="Kafka port (default 9092); a second cluster needs another port and KCONNECT_HOME",
    )  # fmt: skip
    p.add_argument(
        "--controller-port",
        type=int,
        default=None,
        metavar="PORT",
        help="KRaft controller port (default: Kafka port + 1)",
    )
    p.add_argument(
        "--pg-port", type=int, default=5432, metavar="PORT", help="PostgreSQL port (default 5432)"
    )
    p.add_argument(
        "--registry-port", type=int, default=8081, metavar="PORT",
        help="schema registry port (default 8081)",
    )  # fmt: skip


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect local`` and its ``start``/``stop``/``status`` subcommands."""
    parser = subparsers.add_parser(
        "local",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="local_command", metavar="ACTION", title="actions")
    parser.set_defaults(func=lambda _args: (parser.print_help(), 2)[1])

    start = actions.add_parser(
        "start",
        help="start the services (idempotent)",
        description="Start the local stack. A second Kafka cluster beside the first (e.g. for "
        "MirrorMaker 2): KCONNECT_HOME=/tmp/cluster-a kconnect local start --kafka-only "
        "--kafka-port 9192",
    )
    _add_common(start)
    start.add_argument(
        "--secure",
        action="store_true",
        help="Kafka also listens with SASL_SSL (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER) on the "
        "Kafka port + 10, mutual TLS on + 11 and SASL_PLAINTEXT on + 12, with a generated CA "
        "and user; prints the worker properties to paste (restarts a running node without them)",
    )
    start.add_argument(
        "--registry",
        action="store_true",
        help="also run a schema registry with Confluent's API (Apicurio Registry, in-memory) "
        "at http://127.0.0.1:<registry port>/apis/ccompat/v7",
    )
    start.set_defaults(func=_run(_start))

    stop = actions.add_parser(
        "stop",
        help="stop the services started by `start`",
        description="Stop what `kconnect local start` started (graceful, then kill).",
    )
    _add_common(stop)
    stop.add_argument(
        "--purge",
        action="store_true",
        help="also delete the services' data directories (the jar cache stays)",
    )
    stop.set_defaults(func=_run(_stop))

    status = actions.add_parser(
        "status", help="show what runs where", description="Show the local services."
    )
    _add_common(status, selection=False)
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.set_defaults(func=_run(_status))
