"""JDBC connectors end to end, in one run on the same broker and PostgreSQL:

* sink: N rows pre-produced to a P-partition topic as JsonConverter bytes (schemas on, the
  seed's ``table01`` records: ``{"id","user_id","item"}`` with a string key; row i goes to
  partition i mod P, so the partitions hold equal shares) → PostgreSQL ``dst_table01``-shaped
  tables, by
    - kconnect + ``io.confluent.connect.jdbc.JdbcSinkConnector``: one standalone worker
      (``--workers 1``, the default) or a ``kconnect distributed`` cluster of N worker
      processes (one group, unique internal topics with replication factor 1) — kconnect's way
      to use several cores, as one worker process is bound by the GIL,
    - Apache Kafka Connect 4.1.2 standalone + Debezium's JDBC sink
      (``io.debezium.connector.jdbc.JdbcSinkConnector`` from Maven Central): one JVM, which
      runs its tasks on threads over all cores,
  both with ``tasks.max=P``, beside the raw COPY rate of the same rows from Python tuples
  (the limit for any sink);
* source: N rows of a table → Kafka by kconnect standalone + ``JdbcSourceConnector``
  (incrementing mode, JsonConverter).

Each rate is rows / seconds from connector creation until the last row is in the table
(``max(id)``, an index probe, polled every 50 ms, then confirmed with ``count(*)``) or the
topic (end offset); a 2.5 s run polled every 0.25 s was read ~5% slow on average. Beside it,
the steady rate: rows/s from the first check that saw rows landed to the end, i.e. without
the start-up (consumer group join, first fetch); the goal (>= 60% of raw COPY) is on the
end-to-end rate. The clock starts once ``POST /connectors`` has answered, on both sides.
Cost over the same seconds: CPU-µs per row and cores used, from the CPU
time of the worker's whole process tree (the JVM, or each kconnect worker process and any task
processes it starts; summed over a cluster's workers); for raw COPY, of the bench's own
process. PostgreSQL's and the broker's CPU are in no row's figure. Memory: worker RSS idle
(REST ready, no connector) and peak under load, summed over the process tree(s) (the peak of
the sum). Both runtimes get the same worker properties (JsonConverter with schemas,
``consumer.max.poll.records``) and the same number of tasks.

    python bench/jdbc.py                      # 1,000,000 rows, 1 partition, 1 task
    python bench/jdbc.py --workers 2          # 2 kconnect worker processes, 2 partitions/tasks
    python bench/jdbc.py --rows 200000 --skip-java
    python bench/jdbc.py --repeat 3           # 3 interleaved rounds: medians and ranges

Needs Kafka and PostgreSQL (``KCONNECT_BOOTSTRAP_SERVERS``/``KCONNECT_PG_DSN`` or the local
stack) and, for the Java side, Java 17+ and Maven.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    Interval,
    TreeMeter,
    cpu_interval,
    free_port,
    rss_mib,
    stop_process,
    table,
    wait_rest_ready,
)
from file_pipeline import REFERENCE_CONNECT_VERSION, kconnect_command

DEBEZIUM_VERSION = "3.3.1.Final"  # built against Kafka 4.1.0, Java 17 (3.4.x: debezium-sink jar missing on Central)
PGJDBC_VERSION = "42.7.7"
LOG4J_VERSION = "2.25.5"
JSON = "org.apache.kafka.connect.json.JsonConverter"
BATCH = 3000
#: How often a run checks whether all rows have landed (an index probe, or the end offset).
POLL_S = 0.05

_KEY_SCHEMA = b'{"schema":{"type":"string","optional":true},"payload":"'
_VALUE_SCHEMA = (
    b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
    b'{"type":"string","optional":true,"field":"user_id"},'
    b'{"type":"string","optional":true,"field":"item"}],"optional":false,"name":"table01"},'
    b'"payload":'
)


@dataclass
class Result:
    name: str
    rows: int
    cpu: Interval
    idle_rss: float = 0.0
    peak_rss: float = 0.0
    #: rows/s from the first poll that saw rows landed to the end (start-up left out), if known
    steady: float | None = None

    @property
    def seconds(self) -> float:
        return self.cpu.wall_s

    @property
    def rate(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu.cpu_us_per(self.rows)


def _row(i: int) -> tuple[int, str, str]:
    return (i, f"user{i % 100:02d}", f"item-{i % 10000}")


def produce_rows(bootstrap: str, topic: str, n: int, partitions: int) -> None:
    """Row i to partition (i - 1) mod ``partitions``: equal shares, whatever the keys hash to."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    p = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1 << 20, "acks": "1"}
    )
    for i in range(1, n + 1):
        rid, user, item = _row(i)
        key = _KEY_SCHEMA + user.encode() + b'"}'
        value = _VALUE_SCHEMA + orjson.dumps({"id": rid, "user_id": user, "item": item}) + b"}"
        while True:
            try:
                p.produce(topic, value, key, (i - 1) % partitions)
                break
            except BufferError:
                p.poll(0.1)
        if i % 10000 == 0:
            p.poll(0)
    assert p.flush(120) == 0, "not every bench record was produced"


def create_dst(db: psycopg.Connection[Any], name: str) -> None:
    db.execute(f"DROP TABLE IF EXISTS {name}")
    db.execute(
        f"CREATE TABLE {name} (id integer NOT NULL, user_id varchar(10), item varchar(10), "
        "PRIMARY KEY (id))"
    )


def raw_copy(dsn: str, db: psycopg.Connection[Any], table_name: str, n: int) -> Result:
    create_dst(db, table_name)
    rows = [_row(i) for i in range(1, n + 1)]
    try:
        with psycopg.connect(dsn) as conn, cpu_interval() as got:
            for s in range(0, n, BATCH):
                with (
                    conn.cursor() as cur,
                    cur.copy(
                        f"COPY {table_name} (id,user_id,item) FROM STDIN (FORMAT BINARY)"
                    ) as cp,
                ):
                    cp.set_types(["int4", "varchar", "varchar"])
                    for r in rows[s : s + BATCH]:
                        cp.write_row(r)
                conn.commit()
        return Result("raw COPY (psycopg, tuples)", n, got[0])
    finally:
        db.execute(f"DROP TABLE IF EXISTS {table_name}")


def _central_only_maven(work: Path) -> None:
    """Make the ``mvn`` run by ``resolve_classpath`` use Maven Central for every repository.

    Debezium's poms declare Confluent's repository; where that host is unreachable Maven fails
    instead of falling back to Central. Maven 3.8 reads ``~/.m2/settings.xml`` from
    ``user.home``, so point that at a settings file with a mirror (same local repository).
    """
    home = work / "maven-home"
    (home / ".m2").mkdir(parents=True, exist_ok=True)
    local = Path.home() / ".m2" / "repository"
    (home / ".m2" / "settings.xml").write_text(
        f"<settings><localRepository>{local}</localRepository><mirrors><mirror>"
        "<id>central-for-all</id><mirrorOf>*</mirrorOf>"
        "<url>https://repo1.maven.org/maven2</url></mirror></mirrors></settings>\n"
    )
    os.environ["MAVEN_OPTS"] = (os.environ.get("MAVEN_OPTS", "") + f" -Duser.home={home}").strip()


def java_command(props: Path) -> list[str]:
    from kconnect.local.maven import require_java, resolve_classpath

    _central_only_maven(props.parent)
    cp = resolve_classpath(
        [
            f"org.apache.kafka:connect-runtime:{REFERENCE_CONNECT_VERSION}",
            f"org.apache.kafka:connect-json:{REFERENCE_CONNECT_VERSION}",
            f"io.debezium:debezium-connector-jdbc:{DEBEZIUM_VERSION}",
            f"org.postgresql:postgresql:{PGJDBC_VERSION}",
            f"org.apache.logging.log4j:log4j-core:{LOG4J_VERSION}",
            f"org.apache.logging.log4j:log4j-slf4j2-impl:{LOG4J_VERSION}",
        ],
        progress=lambda m: print(f"  {m}", flush=True),
    )
    return [
        require_java(),
        "-Xmx1g",
        "-cp",
        os.pathsep.join(map(str, cp)),
        "-Dlog4j2.level=WARN",
        "org.apache.kafka.connect.cli.ConnectStandalone",
        str(props),
    ]


def _worker_props(bootstrap: str, port: int, run_id: str, work: Path, group: str | None) -> str:
    """The worker properties both runtimes get; ``group``: distributed, else standalone."""
    common = (
        f"bootstrap.servers={bootstrap}\n"
        f"key.converter={JSON}\nvalue.converter={JSON}\n"
        "key.converter.schemas.enable=true\nvalue.converter.schemas.enable=true\n"
        "offset.flush.interval.ms=10000\n"
        f"consumer.max.poll.records={BATCH}\n"
        f"listeners=http://127.0.0.1:{port}\n"
    )
    if group is None:
        return common + f"offset.storage.file.filename={work / (run_id + '.offsets')}\n"
    return common + (
        f"group.id={group}\n"
        f"config.storage.topic={group}-configs\n"
        f"offset.storage.topic={group}-offsets\n"
        f"status.storage.topic={group}-status\n"
        "config.storage.replication.factor=1\n"
        "offset.storage.replication.factor=1\n"
        "status.storage.replication.factor=1\n"
        "offset.storage.partitions=3\n"
        "status.storage.partitions=2\n"
        "rest.advertised.host.name=127.0.0.1\n"
        f"rest.advertised.port={port}\n"
    )


class WorkerProcess:
    """One worker (kconnect or Java) with JsonConverter, in its own process: standalone, or a
    member of the distributed ``group``. Starting returns once REST answers."""

    def __init__(self, runtime: str, bootstrap: str, work: Path, group: str | None = None) -> None:
        run_id = f"{runtime}-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        props = work / f"{run_id}.properties"
        props.write_text(_worker_props(bootstrap, self.port, run_id, work, group))
        cmd = java_command(props) if runtime == "java" else kconnect_command(props)
        if group is not None:
            assert runtime == "kconnect", "the Java side runs standalone (one JVM, task threads)"
            cmd[cmd.index("standalone")] = "distributed"
        self.log_path = work / f"{run_id}.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT)
        self.startup = wait_rest_ready(self.url + "/", self.proc)

    def stop(self) -> None:
        stop_process(self.proc)
        self._log.close()


class Workers:
    """The worker processes of one run: one standalone worker, or a distributed cluster of
    ``count`` kconnect workers. REST calls go to the first worker (the first to join the
    group, so its leader); RSS is summed over all processes."""

    def __init__(self, runtime: str, bootstrap: str, work: Path, count: int = 1) -> None:
        self.group = f"bench-jdbc-{uuid.uuid4().hex[:8]}" if count > 1 else None
        self.procs: list[WorkerProcess] = []
        try:
            for _ in range(count):
                self.procs.append(WorkerProcess(runtime, bootstrap, work, self.group))
            if self.group is not None:
                _wait_group_members(self.procs)
        except BaseException:
            self.stop()
            raise
        self.url = self.procs[0].url
        self.log_path = self.procs[0].log_path
        time.sleep(1.0)
        self.idle_rss = self.rss()
        self.peak_rss = 0.0  # of the last measured span (``_until``)

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.procs]

    def rss(self) -> float:
        return sum(rss_mib(pid) for pid in self.pids())

    def create(self, name: str, config: dict[str, str]) -> None:
        started = time.monotonic()
        r = httpx.post(self.url + "/connectors", json={"name": name, "config": config}, timeout=60)
        if r.status_code != 201:
            raise RuntimeError(f"creating {name}: {r.status_code} {r.text}")
        # Not in the rate: kconnect answers once the task (and its task process) has started,
        # Java once the connector has; printed so that the start-up is visible for both.
        print(f"  POST /connectors answered in {time.monotonic() - started:.2f} s", flush=True)

    def status(self, name: str) -> dict[str, Any]:
        return dict(httpx.get(f"{self.url}/connectors/{name}/status", timeout=10).json())

    def stop(self) -> None:
        for w in self.procs:
            w.stop()


def _wait_group_members(workers: list[WorkerProcess], timeout_s: float = 90.0) -> None:
    """Until every worker has joined the same (latest) group generation, so that no later join
    moves tasks (and re-delivers records) while the sink runs. Read from the workers' logs
    ("Joined group at generation G"): librdkafka's admin client describes consumer groups
    only, not Connect's."""
    deadline = time.monotonic() + timeout_s
    last: list[int | None] = []
    while time.monotonic() < deadline:
        last = [_last_generation(w.log_path) for w in workers]
        if None not in last and len(set(last)) == 1:
            return
        time.sleep(0.25)
    raise RuntimeError(f"workers not in one group generation after {timeout_s} s ({last})")


def _last_generation(log_path: Path) -> int | None:
    found = re.findall(rb"Joined group at generation (\d+)", log_path.read_bytes())
    return int(found[-1]) if found else None


def _until(
    done: Callable[[], bool],
    worker: Workers,
    name: str,
    timeout_s: float,
    n: int,
    landed: Callable[[], int] | None = None,
) -> tuple[Interval, float | None]:
    """Wall and CPU time of ``worker``'s process trees until ``done()``, timed from now, and the
    steady rate: with ``landed`` (rows landed so far), rows/s from the first check that saw
    any to the end, so without the start-up (consumer join, first fetch). Checks every
    :data:`POLL_S`. Fails early when the connector or a task FAILED. A progress line every
    5 s."""
    first: tuple[float, int] | None = None
    with TreeMeter(*worker.pids()) as meter:
        start = meter.started
        last_check = start
        while not done():
            if landed is not None and first is None:
                got = landed()
                if got > 0:
                    first = (time.monotonic(), got)
                else:
                    time.sleep(POLL_S)
                    continue
            now = time.monotonic()
            if now - start > timeout_s:
                raise RuntimeError(f"{name}: not done after {timeout_s} s (log {worker.log_path})")
            if now - last_check > 5:
                last_check = now
                print(f"  {now - start:5.1f} s: not all {n:,} rows yet", flush=True)
                s = worker.status(name)
                states = [s.get("connector", {}).get("state")] + [t["state"] for t in s["tasks"]]
                if "FAILED" in states:
                    raise RuntimeError(f"{name} failed: {str(s)[:2000]}")
            time.sleep(POLL_S)
        cpu = meter.stop()
        end = time.monotonic()
    worker.peak_rss = meter.peak_rss
    steady = (n - first[1]) / (end - first[0]) if first and end > first[0] else None
    print(
        f"  {n:,} rows in {cpu.wall_s:.1f} s, {cpu.cores:.2f} cores, "
        f"peak RSS {meter.peak_rss:,.0f} MiB"
        + (
            f"; first rows after {first[0] - start:.2f} s, then {steady:,.0f} rows/s"
            if first and steady
            else ""
        ),
        flush=True,
    )
    return cpu, steady


def _jdbc_url(dsn: str) -> tuple[str, str, str]:
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    url = f"jdbc:postgresql://{info.get('host', '127.0.0.1')}:{info.get('port', 5432)}/"
    return url + str(info["dbname"]), str(info.get("user", "")), str(info.get("password", ""))


def run_sink(
    runtime: str,
    bootstrap: str,
    dsn: str,
    db: psycopg.Connection[Any],
    topic: str,
    n: int,
    work: Path,
    timeout_s: float,
    tasks: int = 1,
    workers: int = 1,
) -> Result:
    """Rows/s of one sink run: ``tasks`` tasks; kconnect on ``workers`` worker processes
    (distributed when more than one), Java always in one standalone JVM."""
    dst = f"bench_{runtime}_{uuid.uuid4().hex[:8]}"
    create_dst(db, dst)
    url, user, password = _jdbc_url(dsn)
    if runtime == "java":
        config = {
            "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
            "connection.url": url,
            "connection.username": user,
            "connection.password": password,
            "insert.mode": "insert",
            "primary.key.mode": "none",
            "schema.evolution": "none",
            "collection.name.format": dst,
            "batch.size": str(BATCH),
        }
        label = f"Kafka Connect {REFERENCE_CONNECT_VERSION} + Debezium JDBC sink {DEBEZIUM_VERSION}"
        workers = 1
    else:
        config = {
            "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
            "connection.url": url,
            "connection.user": user,
            "connection.password": password,
            "insert.mode": "insert",
            "table.name.format": dst,
            "batch.size": str(BATCH),
        }
        label = (
            "kconnect standalone + JdbcSinkConnector"
            if workers == 1
            else f"kconnect distributed ({workers} workers) + JdbcSinkConnector"
        )
    if tasks > 1:
        label += f", {tasks} tasks"
    config.update({"topics": topic, "tasks.max": str(tasks)})
    worker = Workers(runtime, bootstrap, work, workers)
    name = f"sink-{dst}"
    try:

        def count() -> int:
            return int(db.execute(f"SELECT count(*) FROM {dst}").fetchone()[0])  # type: ignore[index]

        def landed() -> bool:
            # count(*) scans the table (~40 ms per 1M rows here), which would steal CPU from the
            # run being measured; the primary-key max is an index probe. Rows i = 1..n all land
            # once max(id) = n with one partition (batches commit in order); otherwise, or to
            # confirm, count(*) decides.
            top = db.execute(f"SELECT max(id) FROM {dst}").fetchone()[0]  # type: ignore[index]
            return top is not None and top >= n and count() >= n

        def landed_rows() -> int:
            top = db.execute(f"SELECT max(id) FROM {dst}").fetchone()[0]  # type: ignore[index]
            return 0 if top is None else (int(top) if tasks == 1 else count())

        worker.create(name, config)
        cpu, steady = _until(landed, worker, name, timeout_s, n, landed_rows)
        got = count()
        if workers > 1:
            placement = sorted(t["worker_id"] for t in worker.status(name)["tasks"])
            print(f"  tasks on workers: {placement}", flush=True)
        if got != n:
            raise RuntimeError(f"{label}: {got} rows in {dst}, expected {n}")
        return Result(label, n, cpu, worker.idle_rss, worker.peak_rss, steady)
    finally:
        worker.stop()
        db.execute(f"DROP TABLE IF EXISTS {dst}")


def run_source(
    bootstrap: str, dsn: str, db: psycopg.Connection[Any], n: int, work: Path, timeout_s: float
) -> Result:
    from confluent_kafka import Consumer, TopicPartition

    src = f"bench_src_{uuid.uuid4().hex[:8]}"
    db.execute(f"CREATE TABLE {src} (id serial PRIMARY KEY, user_id varchar(10), item varchar(20))")
    db.execute(
        f"INSERT INTO {src} (user_id, item) SELECT 'user' || lpad((g % 100)::text, 2, '0'), "
        f"'item-' || (g % 10000) FROM generate_series(1, {n}) g"
    )
    prefix = f"bench-src-{uuid.uuid4().hex[:6]}-"
    topic = prefix + src
    url, user, password = _jdbc_url(dsn)
    worker = Workers("kconnect", bootstrap, work)
    name = f"source-{src}"
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{uuid.uuid4().hex}"})
    try:

        def end_offset() -> int:
            try:
                return int(consumer.get_watermark_offsets(TopicPartition(topic, 0), 2)[1])
            except Exception:  # the topic does not exist yet
                return 0

        worker.create(
            name,
            {
                "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
                "connection.url": url,
                "connection.user": user,
                "connection.password": password,
                "mode": "incrementing",
                "incrementing.column.name": "id",
                "table.whitelist": src,
                "topic.prefix": prefix,
                "batch.max.rows": "10000",
                "tasks.max": "1",
                "topic.creation.default.replication.factor": "1",
                "topic.creation.default.partitions": "1",
            },
        )
        cpu, steady = _until(lambda: end_offset() >= n, worker, name, timeout_s, n, end_offset)
        return Result(
            "kconnect standalone + JdbcSourceConnector",
            n,
            cpu,
            worker.idle_rss,
            worker.peak_rss,
            steady,
        )
    finally:
        consumer.close()
        worker.stop()
        db.execute(f"DROP TABLE IF EXISTS {src}")


def _median(results: list[Result]) -> Result:
    """The run with the median time (the slower of the middle two for an even count)."""
    ordered = sorted(results, key=lambda r: r.seconds)
    return ordered[len(ordered) // 2]


def _range(runs: dict[str, list[Result]], other: str) -> str:
    """`` (per round: lo .. hi)``: kconnect's sink rate over ``other``'s, round by round."""
    if len(runs[other]) < 2:
        return ""
    ratios = sorted(k.rate / o.rate for k, o in zip(runs["kconnect"], runs[other], strict=True))
    if other == "raw":
        return f"   (per round: {ratios[0]:.1%} .. {ratios[-1]:.1%})"
    return f"   (per round: {ratios[0]:.2f}x .. {ratios[-1]:.2f}x)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows per run (sink and source)")
    ap.add_argument("--skip-java", action="store_true", help="no Java sink run, no Java ratios")
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds (raw COPY, kconnect, Java, source in turn); medians and ranges are shown",
    )
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed per run")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="kconnect sink worker processes (>= 2: a distributed cluster)",
    )
    ap.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="topic partitions = tasks.max on both sides (default: max(1, workers))",
    )
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    n = args.rows
    workers = max(1, args.workers)
    partitions = args.partitions if args.partitions is not None else workers
    if partitions < 1:
        ap.error("--partitions must be at least 1")

    from kconnect.testing.services import ensure_kafka, ensure_postgres

    bootstrap, dsn = ensure_kafka(), ensure_postgres()
    topic = f"bench-jdbc-sink-{uuid.uuid4().hex[:8]}"
    print(
        f"producing {n:,} table01 records (JsonConverter bytes) to {topic} "
        f"({partitions} partition{'s' if partitions > 1 else ''})...",
        flush=True,
    )
    t0 = time.monotonic()
    produce_rows(bootstrap, topic, n, partitions)
    print(f"  produced in {time.monotonic() - t0:.1f} s", flush=True)
    runs: dict[str, list[Result]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="kconnect-bench-jdbc-") as tmp,
        psycopg.connect(dsn, autocommit=True) as db,
    ):
        work = Path(tmp)
        for round_no in range(1, args.repeat + 1):
            if args.repeat > 1:
                print(f"round {round_no} of {args.repeat}", flush=True)
            print("raw COPY...", flush=True)
            table_name = f"bench_raw_{uuid.uuid4().hex[:8]}"
            runs.setdefault("raw", []).append(raw_copy(dsn, db, table_name, n))
            print("kconnect sink...", flush=True)
            runs.setdefault("kconnect", []).append(
                run_sink(
                    "kconnect",
                    bootstrap,
                    dsn,
                    db,
                    topic,
                    n,
                    work,
                    args.timeout,
                    partitions,
                    workers,
                )
            )
            if not args.skip_java:
                print("Java sink...", flush=True)
                runs.setdefault("java", []).append(
                    run_sink("java", bootstrap, dsn, db, topic, n, work, args.timeout, partitions)
                )
            print("kconnect source...", flush=True)
            runs.setdefault("source", []).append(
                run_source(bootstrap, dsn, db, n, work, args.timeout)
            )
    results = {key: _median(rs) for key, rs in runs.items()}
    print()
    header = [
        "run",
        "rows",
        "seconds",
        "rows/s",
        "steady rows/s",
        "CPU-µs/row",
        "cores",
        "idle RSS MiB",
        "peak RSS MiB",
    ]
    if args.repeat > 1:
        header.append(f"rows/s over {args.repeat} rounds")
    rows = []
    for key, r in results.items():
        row: list[object] = [
            r.name,
            r.rows,
            r.seconds,
            r.rate,
            r.steady if r.steady is not None else "-",
            r.cpu_us,
            r.cpu.cores,
            r.idle_rss or "-",
            r.peak_rss or "-",
        ]
        if args.repeat > 1:
            rates = sorted(x.rate for x in runs[key])
            row.append(f"{rates[0]:,.0f} .. {rates[-1]:,.0f}")
        rows.append(row)
    print(table(header, rows))
    raw, k = results["raw"], results["kconnect"]
    print()
    if args.repeat > 1:
        print(f"medians of {args.repeat} interleaved rounds; ranges are per round")
    if workers > 1:
        print(
            f"kconnect RSS, {workers} worker processes summed: idle {k.idle_rss:,.1f} MiB, "
            f"peak {k.peak_rss:,.1f} MiB"
        )
    print(
        f"kconnect sink / raw COPY: {k.rate / raw.rate:.1%}   (goal >= 60%)" + _range(runs, "raw")
    )
    steadies = sorted(
        x.steady / r.rate for x, r in zip(runs["kconnect"], runs["raw"], strict=True) if x.steady
    )
    if steadies:
        print(
            f"kconnect sink steady rate / raw COPY: {steadies[len(steadies) // 2]:.1%} "
            f"(median; start-up left out, so not the goal's figure)"
            + (
                f"   (per round: {steadies[0]:.1%} .. {steadies[-1]:.1%})"
                if len(steadies) > 1
                else ""
            )
        )
    if "java" in results:
        j = results["java"]
        print(
            f"kconnect sink / Java sink: {k.rate / j.rate:.2f}x   (goal >= 4x)"
            + _range(runs, "java")
        )
        print(f"kconnect sink CPU-µs/row / Java: {k.cpu_us / j.cpu_us:.2f}")
        print(f"kconnect sink peak RSS / Java: {k.peak_rss / j.peak_rss:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
