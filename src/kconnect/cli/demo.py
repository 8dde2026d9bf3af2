"""``kconnect demo``: the seed walkthrough, replayed and narrated on the local stack.

Replays "Kafka Connect in practice" (Hitachi): two ``kconnect distributed`` workers (node01 and
node02, REST on 8083/8084) form the cluster ``mycluster``; the Confluent JDBC source copies the
PostgreSQL tables table01/table02 into the topics dst_table01/dst_table02 (2 partitions, keyed
by user_id) and the JDBC sink copies them into dst_table01/dst_table02, with a dead letter
queue for the row that does not fit varchar(10). Then a third worker (node03, 8085) joins and
takes over some tasks, and node02 is killed with SIGKILL: its work moves to the others after
scheduled.rebalance.max.delay.ms. Each step prints what the article prints (REST responses,
psql tables, console-consumer lines) and checks the messages are byte-identical to the
article's.

Needs `kconnect local start` (Kafka on 127.0.0.1:9092, PostgreSQL on 127.0.0.1:5432). A previous
demo run's workers, tables, topics and connectors are removed first. Worker files and logs are
in $KCONNECT_HOME/demo/. The cluster keeps running afterwards; `kconnect demo --stop` stops it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

__all__ = ["add_parser", "run"]

WIDTH = 78


def add_parser(subparsers: Any) -> None:
    """Register ``kconnect demo``."""
    p = subparsers.add_parser(
        "demo",
        help="replay the JDBC walkthrough on a 3-worker cluster (needs `kconnect local start`)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--workers-base-port", type=int, default=8083, metavar="PORT",
        help="REST port of node01; node02 and node03 use the next two (default 8083)",
    )  # fmt: skip
    p.add_argument(
        "--rebalance-delay-ms", type=int, default=10000, metavar="MS",
        help="scheduled.rebalance.max.delay.ms of the workers (default 10000; Kafka's 300000)",
    )  # fmt: skip
    p.add_argument(
        "--keep-running", action=argparse.BooleanOptionalAction, default=True,
        help="leave the cluster running at the end (default) or stop it",
    )  # fmt: skip
    p.add_argument("--stop", action="store_true", help="stop the demo's workers and exit")
    p.set_defaults(func=run)


# -- narration ---------------------------------------------------------------------------------


def _section(title: str) -> None:
    print(f"\n{'=' * WIDTH}\n{title}\n{'=' * WIDTH}", flush=True)


def _say(text: str) -> None:
    print(text, flush=True)


def _cmd(text: str) -> None:
    print(f"\n$ {text}", flush=True)


def _block(text: str, indent: str = "  ") -> None:
    print("\n".join(indent + line if line else line for line in text.splitlines()), flush=True)


def _json(value: Any) -> None:
    _block(json.dumps(value, indent=4, ensure_ascii=False))


class _Progress:
    """Shows the latest wait message on one line (a TTY) or every 5 s (a log)."""

    def __init__(self) -> None:
        self.tty = sys.stdout.isatty()
        self.shown = ""
        self.last_print: float | None = None

    def __call__(self, message: str) -> None:
        now = time.monotonic()
        if self.tty:
            line = f"  ... {message}"
            sys.stdout.write("\r" + line.ljust(len(self.shown)))
            sys.stdout.flush()
            self.shown = line
        elif self.last_print is None:
            self.last_print = now  # a log gets a line only for waits longer than 5 s
        elif now - self.last_print >= 5:
            print(f"  ... {message}", flush=True)
            self.last_print = now

    def done(self) -> None:
        if self.tty and self.shown:
            sys.stdout.write("\r" + " " * len(self.shown) + "\r")
            sys.stdout.flush()
        self.shown = ""
        self.last_print = None


# -- the command -------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Stop (``--stop``) or replay the walkthrough; 0 when every check passed."""
    from kconnect.local import paths

    workdir = paths.home() / "demo"
    if args.stop:
        return _stop(workdir)
    from kconnect.cli.demo_scenario import Scenario

    base = args.workers_base_port
    scenario = Scenario(
        workdir=workdir,
        ports=(base, base + 1, base + 2),
        rebalance_delay_ms=args.rebalance_delay_ms,
        detach=True,
    )
    try:
        ok = _walkthrough(scenario, _Progress(), explore=args.keep_running)
    except (AssertionError, RuntimeError, OSError) as e:
        print(f"\nkconnect demo: error: {e}", file=sys.stderr)
        print(
            f"Worker logs: {workdir}/node0N.log. Stop the demo's workers with "
            "`kconnect demo --stop`.",
            file=sys.stderr,
        )
        return 1
    if not args.keep_running:
        _section("Stopping the cluster (--no-keep-running)")
        scenario.stop_workers()
        _say("All demo workers stopped.")
    return 0 if ok else 1


def _stop(workdir: Any) -> int:
    from kconnect.cli.worker_processes import stop_recorded

    stopped = stop_recorded(workdir) if workdir.is_dir() else []
    _say(
        f"Stopped demo workers: {', '.join(stopped)}" if stopped else "No demo worker was running."
    )
    _say("Kafka and PostgreSQL keep running; `kconnect local stop` stops them.")
    return 0


def _check_stack(s: Any) -> None:
    import psycopg

    from kconnect.kafka.tools.admin_ping import wait_for_broker

    try:
        wait_for_broker(s.bootstrap, timeout_s=10)
        psycopg.connect(s.pg_dsn, connect_timeout=5).close()
    except (TimeoutError, psycopg.Error) as e:
        raise RuntimeError(
            f"the local stack is not reachable ({e}); start it with `kconnect local start`"
        ) from e


def _walkthrough(s: Any, progress: _Progress, explore: bool) -> bool:
    from kconnect.cli.demo_scenario import NODES
    from kconnect.cli.worker_processes import port_in_use

    _say('kconnect demo: the walkthrough "Kafka Connect in practice" (JDBC source/sink,')
    _say("dead letter queue, scale-out, fault tolerance), replayed with kconnect workers.")
    _section("Preparation: Kafka and PostgreSQL (kconnect local)")
    _check_stack(s)
    _say(f"Kafka at {s.bootstrap}, PostgreSQL at {s.pg_dsn.replace(':kcpw@', ':***@')}")
    removed = s.reset(progress)
    progress.done()
    if removed:
        _say("Removed what a previous demo run left: " + ", ".join(removed))
    busy = [p for p in s.ports if port_in_use(p)]
    if busy:
        raise RuntimeError(
            f"port(s) {', '.join(map(str, busy))} are in use; stop what listens there or pick "
            "other ports with --workers-base-port"
        )

    _section("Creating the PostgreSQL tables")
    _say("dst_table01.item is varchar(10) while table01.item is varchar(20): a longer item")
    _say("fails in the sink and goes to the dead letter queue.")
    _cmd("psql -d kcdb")
    for ddl in _ddl():
        _block(ddl)
    rows = s.create_tables()
    _cmd("\\dt")
    from kconnect.cli.demo_scenario import psql_table

    _block(psql_table(["Schema", "Name", "Type", "Owner"], rows))

    _section("Creating the Kafka topics")
    for t in s.topics:
        _cmd(
            f"kafka-topics.sh --bootstrap-server {s.bootstrap} --create --topic {t} --partitions 2"
        )
    _cmd(f"kafka-topics.sh --bootstrap-server {s.bootstrap} --create --topic {s.dlq_topic}")
    _say("  (added: with one broker the DLQ topic is created beforehand with replication")
    _say("  factor 1; the connector would ask for 3, the default)")
    s.create_topics(progress)
    progress.done()
    _say("Created: " + ", ".join([*s.topics, s.dlq_topic]))

    _section("Worker configuration file")
    _say(f"One file per node in {s.workdir}/ (only listeners differs). node01.properties:")
    _block(s.worker_properties("node01"))

    _section("Starting the workers")
    for node in ("node01", "node02"):
        port = s.ports[("node01", "node02").index(node)]
        _cmd(f"kconnect distributed {s.workdir}/{node}.properties   # {node}, REST on {port}")
        w = s.start_worker(node)
        _say(f"  started, pid {w.proc.pid}, log {w.log_file}")
    from kconnect.kafka.clients.admin import Admin

    _say(
        "Worker ids are host:port: "
        + ", ".join(f"{n} = 127.0.0.1:{p}" for n, p in zip(NODES, s.ports, strict=True))
        + "."
    )
    internal = Admin({"bootstrap.servers": s.bootstrap}).topic_partition_counts(s.internal_topics)
    _cmd(f"kafka-topics.sh --bootstrap-server {s.bootstrap} --list")
    _block("\n".join(sorted(internal)))
    _say("The workers share group.id=mycluster and created the three internal topics.")

    _section("Checking the connector plugins")
    _cmd(f"curl -X GET {s.url()}/connector-plugins")
    plugins = s.get("/connector-plugins")
    _json(plugins)
    jdbc = [p["class"] for p in plugins if ".jdbc." in p["class"]]
    _say(f"The JDBC connectors are there: {', '.join(jdbc)}")

    _section("Starting the connectors: JDBC Source Connector")
    _start_connector(s, s.source_config(), tasks=2, progress=progress)
    _say("The source started 2 tasks: one per table (tasks.max is 5).")

    _section("Starting the connectors: JDBC Sink Connector")
    _start_connector(s, s.sink_config(), tasks=5, progress=progress)
    holders = s.wait(s.sink_partition_holders, 60, "the sink's consumer group", progress)
    progress.done()
    _cmd(f"kafka-consumer-groups.sh --bootstrap-server {s.bootstrap} --describe --group "
         f"{s.sink_group}")  # fmt: skip
    _show_holders(holders)
    idle = [str(t) for t, parts in sorted(holders.items()) if not parts]
    _say("The sink started tasks.max=5 tasks, but the topics have 2 partitions each: only 2")
    _say(f"tasks get partitions; tasks {', '.join(idle)} wait for more partitions.")

    _section("Testing the JDBC connectors: inserting rows into PostgreSQL")
    from kconnect.cli.demo_scenario import INSERTS

    for statement in INSERTS:
        _block(statement)
        s.insert(statement)
    s.wait(lambda: s.count("dst_table01") >= 4 and s.count("dst_table02") >= 4, 90,
           "the rows to arrive in dst_table01 and dst_table02", progress)  # fmt: skip
    progress.done()
    for table in ("table01", "table02", "dst_table01", "dst_table02"):
        _select(s, table)
    _say("The destination tables may list the rows in another order: order is kept per key")
    _say("(user_id), not across keys, since each topic has 2 partitions.")

    _section("Checking the messages in the topics")
    ok = _messages(s)

    _section("Testing the dead letter queue (DLQ)")
    from kconnect.cli.demo_scenario import BAD_INSERT

    _block(BAD_INSERT)
    s.insert(BAD_INSERT)
    records = s.wait(s.dlq_records, 60, "the record in the dead letter queue", progress)
    progress.done()
    _select(s, "table01")
    _select(s, "dst_table01")
    _cmd(f"kafka-console-consumer.sh --bootstrap-server {s.bootstrap} --topic {s.dlq_topic} "
         "--property print.headers=true --property print.key=true --property print.value=true "
         "--from-beginning")  # fmt: skip
    from kconnect.cli.demo_scenario import headers_text

    for r in records:
        _block(f"{headers_text(r.headers)}\t{_text(r.key)}\t{_text(r.value)}")
    _say("The row is not in dst_table01; the DLQ record keeps the original key and value, and")
    _say("its __connect.errors.* headers say where it came from and why it failed.")

    _section("Testing scale-out")
    before = s.placements()
    _cmd(f"kconnect distributed {s.workdir}/node03.properties   # node03, REST on {s.ports[2]}")
    w3 = s.start_worker("node03")
    _say(f"  started, pid {w3.proc.pid}, log {w3.log_file}")
    s.wait(lambda: s.settled(lambda ids: w3.worker_id in ids), 90,
           "node03 to take over work", progress)  # fmt: skip
    progress.done()
    _statuses(s)
    _moves(s, before, s.placements())

    _section("Testing fault tolerance")
    before = s.placements()
    victim = s.workers["node02"]
    _say(f"scheduled.rebalance.max.delay.ms={s.rebalance_delay_ms} (Kafka's default 300000):")
    _say("the leader waits that long for a departed worker to come back before reassigning.")
    _cmd(f"kill -9 {victim.proc.pid}   # node02")
    killed_at = time.monotonic()
    s.kill_worker("node02")
    _cmd(f"curl -X GET {s.url()}/connectors/{s.source_name}/status   # right after the kill")
    _json(s.status(s.source_name))
    s.wait(lambda: s.settled(lambda ids: victim.worker_id not in ids), 120 + s.rebalance_delay_ms / 1000,
           "node02's work to move", progress)  # fmt: skip
    progress.done()
    _say(f"node02's work moved {time.monotonic() - killed_at:.1f} s after the kill "
         "(group session timeout + rebalance delay).")  # fmt: skip
    _statuses(s)
    _moves(s, before, s.placements())
    _say("The killed worker's sink consumers keep their partitions until the consumer")
    _say("session times out (session.timeout.ms, 45 s by default):")
    try:
        holders = s.wait(s.sink_partition_holders, 90, "the sink's consumer group", progress)
        progress.done()
        _show_holders(holders)
    except AssertionError as e:
        progress.done()
        _say(f"  (not settled yet: {e})")

    if explore:
        _explore(s)
    if not ok:
        _say("\nSome messages differ from the article's; see above.")
    return ok


def _ddl() -> list[str]:
    from kconnect.cli.demo_scenario import DDL

    return list(DDL.values())


def _text(b: bytes | None) -> str:
    return "null" if b is None else b.decode("utf-8", "replace")


def _start_connector(s: Any, payload: dict[str, Any], tasks: int, progress: _Progress) -> None:
    name = payload["name"]
    _say(f"{name}.json:")
    _json(payload)
    _cmd(f"curl -X POST \"{s.url()}/connectors\" -H 'Content-Type: application/json' "
         f"-d @{name}.json")  # fmt: skip
    code, body = s.post_connector(payload)
    if code != 201:
        raise RuntimeError(f"creating {name} answered {code}: {body}")
    _say(f"  HTTP {code} Created")
    _cmd(f"curl -X GET {s.url()}/connectors")
    _block(json.dumps(s.get("/connectors")))
    status = s.wait(lambda: s.all_running(name, tasks), 90, f"{name} to run {tasks} tasks",
                    progress)  # fmt: skip
    progress.done()
    _cmd(f"curl -X GET {s.url()}/connectors/{name}/status")
    _json(status)
    _say("  (" + _where(s, status) + ")")


def _where(s: Any, status: dict[str, Any]) -> str:
    parts = [f"connector on {s.node_of(status['connector']['worker_id'])}"]
    parts += [f"task {t['id']} on {s.node_of(t['worker_id'])}" for t in status["tasks"]]
    return ", ".join(parts)


def _show_holders(holders: dict[int, list[tuple[str, int]]]) -> None:
    for task, parts in sorted(holders.items()):
        owned = ", ".join(f"{t}-{p}" for t, p in parts) or "(no partitions)"
        _block(f"task {task}: {owned}")


def _select(s: Any, table: str) -> None:
    from kconnect.cli.demo_scenario import psql_table

    _cmd(f"psql -d kcdb -c 'SELECT * FROM {table};'")
    _block(psql_table(*s.select(table)))


def _messages(s: Any) -> bool:
    from kconnect.cli.demo_scenario import DOC_MESSAGES, console_line

    ok = True
    for table in ("table01", "table02"):
        topic = s.topic(table)
        _cmd(f"kafka-console-consumer.sh --bootstrap-server {s.bootstrap} --topic {topic} "
             "--property print.partition=true --property print.offset=true "
             "--property print.key=true --property print.value=true --from-beginning")  # fmt: skip
        got = [console_line(r.partition, r.offset, _text(r.key), _text(r.value))
               for r in s.topic_records(table)]  # fmt: skip
        _block("\n".join(got))
        want = [console_line(*m) for m in DOC_MESSAGES[table]]
        if got == want:
            _say(f"OK: the {len(got)} lines are byte-identical to the article's; user01 is on")
            _say("partition 0 and user02 on partition 1, as in the article.")
        else:
            ok = False
            _say("DIFFERENT from the article's lines:")
            _block("\n".join(want))
    return ok


def _statuses(s: Any) -> None:
    for name in (s.source_name, s.sink_name):
        _cmd(f"curl -X GET {s.url()}/connectors/{name}/status")
        status = s.status(name)
        _json(status)
        _say("  (" + _where(s, status) + ")")


def _moves(s: Any, before: dict[str, str], after: dict[str, str]) -> None:
    moved = [
        f"{k}: {s.node_of(before[k])} -> {s.node_of(v)}"
        for k, v in sorted(after.items())
        if k in before and before[k] != v
    ]
    _say("Moved: " + ("; ".join(moved) if moved else "nothing"))


def _explore(s: Any) -> None:
    _section("The cluster keeps running: explore it")
    url = s.url()
    _block(f"""\
Dashboard: {url}/ui
    the cluster in a browser: workers, connectors and tasks with where they run and the
    rebalances (generation, when, what moved, how long); each connector's config (validated
    as you type, passwords hidden), pause/resume/stop/restart, offsets, auto-restarts,
    charts of the last 15 minutes (records/s in and out, sink lag, batch sizes, errors and
    DLQ, put/poll latency) and the dead letter queue with each record's error headers

curl {url}/connectors?expand=status
    every connector with its tasks and where they run
curl {url}/connectors/{s.source_name}/offsets
    the source's committed offsets (the last id copied per table)
curl {url}/metrics
    Prometheus metrics of this worker
kconnect status --url {url}
    one screen of the cluster: connectors, tasks, workers, throughput
psql postgresql://kcuser:kcpw@127.0.0.1:5432/kcdb \\
    -c "INSERT INTO table02 (user_id, point) VALUES ('user03', 7)"
    a new row, copied to dst_table02 within poll.interval.ms (5 s)

Worker properties and logs: {s.workdir}/

Stop the demo's workers:   kconnect demo --stop
Stop Kafka and PostgreSQL: kconnect local stop""")
