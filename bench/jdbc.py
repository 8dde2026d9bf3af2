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

``--shape narrow,customer,wide`` measures the sink on records of ``bench/workloads.py``
shapes instead of the seed's rows (no source run then): each shape's JsonConverter bytes
(``workloads.encoded``) go to a topic of their own, and the table, the rows of the raw COPY
and the connector settings come from the records themselves. Before the clock, the records
are decoded and written once by kconnect's sink in process (``auto.create``), into a scratch
table whose definition every run's destination copies (with ``id`` as primary key when the
records carry a unique ``id``) and whose rows are the raw COPY's tuples: the same rows, the
same column types on every side. Nested structs are flattened (``Flatten$Value``, delimiter
``_``) and maps left out (``ReplaceField$Value``), on both runtimes, as a JDBC sink needs.
After the shapes, a table gives the sink as % of raw COPY per shape.

    python bench/jdbc.py --shape narrow,customer,wide --rows 100000 --repeat 1 --skip-java

Needs Kafka and PostgreSQL (``KCONNECT_BOOTSTRAP_SERVERS``/``KCONNECT_PG_DSN`` or the local
stack) and, for the Java side, Java 17+ and Maven.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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


@dataclass
class Workload:
    """What a sink run reads and writes: how to create a destination table, the raw COPY's
    rows and column types, the connector settings both runtimes add (``transforms``), the
    converters' ``schemas.enable``, and the ids in offset order when they increase (``max(id)``
    then tells the rows landed), else None."""

    label: str
    create: Callable[[psycopg.Connection[Any], str], None]
    columns: list[str]
    types: Sequence[str | int]
    rows: Callable[[], list[Sequence[Any]]]
    ids: Sequence[int] | None
    schemas: bool = True
    transforms: dict[str, str] = field(default_factory=dict)
    binary: bool = True


def seed_workload(n: int) -> Workload:
    """The seed's ``table01`` rows (the default)."""
    return Workload(
        "table01 (3 columns)",
        create_dst,
        ["id", "user_id", "item"],
        ["int4", "varchar", "varchar"],
        lambda: [_row(i) for i in range(1, n + 1)],
        range(1, n + 1),
    )


def _seed_messages(n: int) -> Iterable[tuple[bytes, bytes]]:
    """The seed's rows 1..n as JsonConverter keys and values (schemas on)."""
    for i in range(1, n + 1):
        rid, user, item = _row(i)
        key = _KEY_SCHEMA + user.encode() + b'"}'
        value = _VALUE_SCHEMA + orjson.dumps({"id": rid, "user_id": user, "item": item}) + b"}"
        yield key, value


def produce(
    bootstrap: str,
    topic: str,
    messages: Iterable[tuple[bytes | None, bytes | None]],
    partitions: int,
) -> None:
    """Message i to partition i mod ``partitions``: equal shares, whatever the keys hash to."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    p = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1 << 20, "acks": "1"}
    )
    for i, (key, value) in enumerate(messages):
        while True:
            try:
                p.produce(topic, value, key, i % partitions)
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


def _jdbc_transforms(records: Sequence[Any]) -> tuple[dict[str, str], Sequence[Any]]:
    """The SMT settings a JDBC sink needs for ``records`` (nested structs flattened, maps and
    arrays of non-primitives left out), and the records so transformed (by kconnect's SMTs)."""
    from kconnect.api import Type
    from kconnect.transforms.flatten import FlattenValue
    from kconnect.transforms.replace_field import ReplaceFieldValue

    config: dict[str, str] = {}
    names: list[str] = []
    if any(f.schema.type is Type.STRUCT for f in records[0].value_schema.fields):
        names.append("flatten")
        config["transforms.flatten.type"] = "org.apache.kafka.connect.transforms.Flatten$Value"
        config["transforms.flatten.delimiter"] = "_"
        flatten = FlattenValue()
        flatten.configure({"delimiter": "_"})
        records = [flatten.apply(r) for r in records]
    complex_ = (Type.STRUCT, Type.MAP, Type.ARRAY)
    drop = [
        f.name
        for f in records[0].value_schema.fields
        if f.schema.type is Type.MAP
        or (f.schema.type is Type.ARRAY and f.schema.value_schema.type in complex_)
    ]
    if drop:
        names.append("dropcomplex")
        config["transforms.dropcomplex.type"] = (
            "org.apache.kafka.connect.transforms.ReplaceField$Value"
        )
        config["transforms.dropcomplex.exclude"] = ",".join(drop)
        replace = ReplaceFieldValue()
        replace.configure({"exclude": ",".join(drop)})
        records = [replace.apply(r) for r in records]
    if names:
        config["transforms"] = ",".join(names)
    return config, records


def _decoded(topic: str, keys: list[Any], values: list[Any]) -> Sequence[Any]:
    """The records the sink gets for these keys and values (JsonConverter, schemas on): a
    native record batch when the native path runs (decoding 1M wide rows in Python would take
    minutes), else SinkRecords."""
    from kconnect._hot_path import native, native_converter
    from kconnect.api import SinkRecord
    from kconnect.converters.json_converter import JsonConverter

    convs = []
    for is_key in (True, False):
        conv = JsonConverter()
        conv.configure({"schemas.enable": "true"}, is_key)
        convs.append(conv)
    forms = [native_converter(c) for c in convs]
    if native is not None and None not in forms:
        from confluent_kafka import Message

        msgs = [
            Message(topic=topic, partition=0, offset=i, key=k, value=v, timestamp=(1, 0))
            for i, (k, v) in enumerate(zip(keys, values, strict=True))
        ]
        got = native.RecordBatch.from_messages(msgs, *forms)
        if got is not None and not any(got[1:]):
            return got[0]  # type: ignore[no-any-return]
    return [
        SinkRecord(topic, 0, None, None, sv.schema, sv.value, i)
        for i, sv in enumerate(convs[1].to_connect_batch(topic, values))
    ]


def _ids(records: Sequence[Any]) -> list[Any]:
    """The ``id`` field of each record's value (from a native batch without its records)."""
    from kconnect._hot_path import native

    if native is not None and records.__class__ is native.RecordBatch:
        got = records.rows(0, len(records), [(3, "id")], False)  # type: ignore[attr-defined]
        if got is not None:
            return [t[0] for t in got]
    return [r.value.get("id") for r in records]


def shape_workload(
    shape: str, n: int, dsn: str, db: psycopg.Connection[Any], topic: str
) -> tuple[Workload, list[tuple[bytes | None, bytes | None]], str]:
    """A ``workloads`` shape's workload, its messages and the scratch table (drop it after):
    see the module docstring."""
    import workloads
    from psycopg.adapt import Transformer
    from psycopg.pq import Format

    from kconnect.connectors.jdbc.sink.sink_task import JdbcSinkTask

    if shape not in workloads.SHAPES:
        raise SystemExit(f"--shape: {shape!r} is not one of {', '.join(workloads.SHAPES)}")
    if not workloads.SHAPES[shape].schemas_enable:
        raise SystemExit(f"--shape {shape}: schemaless records; the sink needs schemas here")
    keys, values = workloads.encoded(shape, n)
    records = _decoded(topic, keys, values)
    transforms, records = _jdbc_transforms(records)
    scratch = f"bench_shape_{uuid.uuid4().hex[:8]}"
    url, user, password = _jdbc_url(dsn)
    task = JdbcSinkTask()
    task.start(
        {
            "connection.url": url,
            "connection.user": user,
            "connection.password": password,
            "table.name.format": scratch,
            "auto.create": "true",
            "batch.size": str(BATCH),
        }
    )
    try:
        task.put(records)  # one put: flushed every batch.size rows
        task.flush({})  # raises if the last (deferred) COPY was refused
    finally:
        task.stop()
    cols = db.execute(
        "SELECT attname, atttypid::int FROM pg_attribute WHERE attrelid = %s::regclass "
        "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
        (f'"{scratch}"',),
    ).fetchall()
    names, oids = [c[0] for c in cols], [c[1] for c in cols]
    ids: list[int] | None = None
    if "id" in names and oids[names.index("id")] in (20, 21, 23):
        got = _ids(records)
        if all(a < b for a, b in itertools.pairwise(got)):
            ids = got  # increasing, so unique: the primary key, and max(id) says when done
    try:
        Transformer().set_dumper_types(oids, Format.BINARY)
        binary = True
    except psycopg.ProgrammingError:  # a type without a binary writer: text COPY
        binary = False
    pk = ", PRIMARY KEY (id)" if ids is not None else ""

    def create(db: psycopg.Connection[Any], name: str) -> None:
        db.execute(f"DROP TABLE IF EXISTS {name}")
        db.execute(f'CREATE TABLE {name} (LIKE "{scratch}" INCLUDING DEFAULTS{pk})')

    def rows() -> list[Sequence[Any]]:
        return db.execute(f'SELECT * FROM "{scratch}"').fetchall()

    label = f"{shape} ({len(names)} columns)"
    workload = Workload(label, create, names, oids, rows, ids, True, transforms, binary)
    return workload, list(zip(keys, values, strict=True)), scratch


def raw_copy(
    dsn: str,
    db: psycopg.Connection[Any],
    table_name: str,
    n: int,
    workload: Workload | None = None,
) -> Result:
    wl = workload or seed_workload(n)
    wl.create(db, table_name)
    rows = wl.rows()
    col_list = ",".join(f'"{c}"' for c in wl.columns)
    fmt = " (FORMAT BINARY)" if wl.binary else ""
    try:
        with psycopg.connect(dsn) as conn, cpu_interval() as got:
            for s in range(0, n, BATCH):
                with (
                    conn.cursor() as cur,
                    cur.copy(f"COPY {table_name} ({col_list}) FROM STDIN{fmt}") as cp,
                ):
                    if wl.binary:
                        cp.set_types(list(wl.types))
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


def _worker_props(
    bootstrap: str, port: int, run_id: str, work: Path, group: str | None, schemas: bool = True
) -> str:
    """The worker properties both runtimes get; ``group``: distributed, else standalone;
    ``schemas``: the JsonConverters' ``schemas.enable``."""
    enable = "true" if schemas else "false"
    common = (
        f"bootstrap.servers={bootstrap}\n"
        f"key.converter={JSON}\nvalue.converter={JSON}\n"
        f"key.converter.schemas.enable={enable}\nvalue.converter.schemas.enable={enable}\n"
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

    def __init__(
        self,
        runtime: str,
        bootstrap: str,
        work: Path,
        group: str | None = None,
        schemas: bool = True,
    ) -> None:
        run_id = f"{runtime}-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        props = work / f"{run_id}.properties"
        props.write_text(_worker_props(bootstrap, self.port, run_id, work, group, schemas))
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

    def __init__(
        self, runtime: str, bootstrap: str, work: Path, count: int = 1, schemas: bool = True
    ) -> None:
        self.group = f"bench-jdbc-{uuid.uuid4().hex[:8]}" if count > 1 else None
        self.procs: list[WorkerProcess] = []
        try:
            for _ in range(count):
                self.procs.append(WorkerProcess(runtime, bootstrap, work, self.group, schemas))
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
    workload: Workload | None = None,
) -> Result:
    """Rows/s of one sink run: ``tasks`` tasks; kconnect on ``workers`` worker processes
    (distributed when more than one), Java always in one standalone JVM. ``workload``: what
    the topic holds (default: the seed's rows)."""
    wl = workload or seed_workload(n)
    dst = f"bench_{runtime}_{uuid.uuid4().hex[:8]}"
    wl.create(db, dst)
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
    config.update({"topics": topic, "tasks.max": str(tasks), **wl.transforms})
    worker = Workers(runtime, bootstrap, work, workers, wl.schemas)
    name = f"sink-{dst}"
    try:

        def count() -> int:
            return int(db.execute(f"SELECT count(*) FROM {dst}").fetchone()[0])  # type: ignore[index]

        ids = wl.ids

        def top_id() -> Any:
            return db.execute(f"SELECT max(id) FROM {dst}").fetchone()[0]  # type: ignore[index]

        def landed() -> bool:
            # count(*) scans the table (~40 ms per 1M rows here), which would steal CPU from the
            # run being measured; the primary-key max is an index probe. When the ids increase
            # with the offsets, every row has landed once max(id) is the last id with one
            # partition (batches commit in order); otherwise, or to confirm, count(*) decides.
            if ids is None:
                return count() >= n
            top = top_id()
            return top is not None and top >= ids[-1] and count() >= n

        def landed_rows() -> int:
            if ids is None or tasks > 1:
                return count()
            top = top_id()
            return 0 if top is None else bisect.bisect_right(ids, top)

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
    ap.add_argument(
        "--shape",
        default=None,
        help="bench/workloads.py shapes to sink instead of the seed's rows, comma-separated "
        "(narrow,customer,wide); no source run then",
    )
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    workers = max(1, args.workers)
    partitions = args.partitions if args.partitions is not None else workers
    if partitions < 1:
        ap.error("--partitions must be at least 1")
    shapes: list[str | None] = [None]
    if args.shape is not None:
        shapes = [x.strip() for x in args.shape.split(",") if x.strip()]
        if not shapes:
            ap.error("--shape: name at least one shape")

    from kconnect.testing.services import ensure_kafka, ensure_postgres

    bootstrap, dsn = ensure_kafka(), ensure_postgres()
    by_shape: list[tuple[str, dict[str, Result]]] = []
    with (
        tempfile.TemporaryDirectory(prefix="kconnect-bench-jdbc-") as tmp,
        psycopg.connect(dsn, autocommit=True) as db,
    ):
        for shape in shapes:
            results = _run_workload(args, shape, bootstrap, dsn, db, Path(tmp), workers, partitions)
            by_shape.append((shape or "", results))
    if args.shape is not None:
        _shape_table(by_shape)
    return 0


def _run_workload(
    args: argparse.Namespace,
    shape: str | None,
    bootstrap: str,
    dsn: str,
    db: psycopg.Connection[Any],
    work: Path,
    workers: int,
    partitions: int,
) -> dict[str, Result]:
    """Every round of one workload (``shape`` None: the seed's rows, and the source run),
    then its table and ratios; returns the medians."""
    n = args.rows
    topic = f"bench-jdbc-sink-{uuid.uuid4().hex[:8]}"
    scratch = None
    workload = seed_workload(n)
    messages: Iterable[tuple[bytes | None, bytes | None]] = _seed_messages(n)
    if shape is not None:
        print(f"shape {shape}: preparing {n:,} records and their table...", flush=True)
        t0 = time.monotonic()
        workload, messages, scratch = shape_workload(shape, n, dsn, db, topic)
        print(
            f"  {workload.label}, transforms: {workload.transforms.get('transforms', 'none')}; "
            f"prepared in {time.monotonic() - t0:.1f} s",
            flush=True,
        )
    print(
        f"producing {n:,} {workload.label.split(' (')[0]} records (JsonConverter bytes) to "
        f"{topic} ({partitions} partition{'s' if partitions > 1 else ''})...",
        flush=True,
    )
    t0 = time.monotonic()
    produce(bootstrap, topic, messages, partitions)
    print(f"  produced in {time.monotonic() - t0:.1f} s", flush=True)
    runs: dict[str, list[Result]] = {}
    try:
        for round_no in range(1, args.repeat + 1):
            if args.repeat > 1:
                print(f"round {round_no} of {args.repeat}", flush=True)
            print("raw COPY...", flush=True)
            table_name = f"bench_raw_{uuid.uuid4().hex[:8]}"
            runs.setdefault("raw", []).append(raw_copy(dsn, db, table_name, n, workload))
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
                    workload,
                )
            )
            if not args.skip_java:
                print("Java sink...", flush=True)
                runs.setdefault("java", []).append(
                    run_sink(
                        "java",
                        bootstrap,
                        dsn,
                        db,
                        topic,
                        n,
                        work,
                        args.timeout,
                        partitions,
                        workload=workload,
                    )
                )
            if shape is None:
                print("kconnect source...", flush=True)
                runs.setdefault("source", []).append(
                    run_source(bootstrap, dsn, db, n, work, args.timeout)
                )
    finally:
        if scratch is not None:
            db.execute(f'DROP TABLE IF EXISTS "{scratch}"')
    results = {key: _median(rs) for key, rs in runs.items()}
    _report(args, runs, results, workers, workload.label)
    return results


def _report(
    args: argparse.Namespace,
    runs: dict[str, list[Result]],
    results: dict[str, Result],
    workers: int,
    label: str,
) -> None:
    """One workload's table of runs and the sink's ratios."""
    print()
    print(f"{label}:")
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


def _shape_table(by_shape: list[tuple[str, dict[str, Result]]]) -> None:
    """The sink against raw COPY of the same rows, one line per shape (medians)."""
    header = ["shape", "raw COPY rows/s", "kconnect rows/s", "% of raw COPY", "CPU-µs/row"]
    java = any("java" in results for _, results in by_shape)
    if java:
        header += ["Java rows/s", "kconnect / Java"]
    rows = []
    for shape, results in by_shape:
        raw, k = results["raw"], results["kconnect"]
        row: list[object] = [shape, raw.rate, k.rate, f"{k.rate / raw.rate:.1%}", k.cpu_us]
        if java:
            j = results.get("java")
            row += [j.rate, f"{k.rate / j.rate:.2f}x"] if j else ["-", "-"]
        rows.append(row)
    print()
    print("the JDBC sink per shape (goal: >= 60% of raw COPY)")
    print(table(header, rows))


if __name__ == "__main__":
    raise SystemExit(main())
