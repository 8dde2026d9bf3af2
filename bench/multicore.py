"""One worker, 1, 2 and 4 busy tasks: how far each runtime spreads a CPU-heavy pipeline over cores.

For each task count N, one ``kconnect standalone`` worker and, beside it, one Apache Kafka
Connect 4.1.2 ``ConnectStandalone`` JVM (fresh workers for every run, one after the other, on
the same broker, with the same worker properties and connector configs) copy N files of
``--records`` lines each into N topics through a CPU-heavy source pipeline:

    FileStreamSource -> HoistField$Value (field=line)
                     -> InsertField$Value (static.field=source, static.value=multicore-bench)
                     -> InsertField$Value (timestamp.field=ts)
                     -> JsonConverter (schemas.enable=true: the schema envelope in every value)

How N tasks really run: both runtimes' FileStreamSourceConnector hands out exactly one task
whatever ``tasks.max`` says (one input stream per connector: Kafka's ``taskConfigs`` returns
one config, and kconnect's does the same), so a bigger ``tasks.max`` would still give one task.
The bench therefore creates N FileStreamSource connectors, each with ``tasks.max=1``, its own
input file and its own one-partition topic: N source tasks in one worker, each doing the whole
per-record work (read, three SMTs, JSON encoding, produce). It is the source side because that
is where this pipeline's CPU goes; a FileStreamSink over N partitions would measure JSON
decoding and file writes instead, and every sink task would write the same file.

For each run it prints records/s (N x ``--records`` / seconds from the first connector creation
until the topics' end offsets hold every record), over the same seconds the CPU-µs per record
and the cores used (CPU time of the worker's whole process tree -- the JVM, or the kconnect
worker and every task process it starts -- / records, and / wall time; the broker's CPU is not
in it), the cores the broker used over the same seconds when ``kconnect local`` runs it (worker
plus broker near the machine's core count means the machine, not the worker, is the limit),
records/s, cores and broker cores again over the busy part of the run alone ("busy": from
the moment the first records are in the topics until the last, so without the worker's and
the tasks' start-up, which weighs most in the short kconnect runs), the same three once more
while all N tasks are busy ("all-busy": from the moment every topic holds records until the
first topic holds all of its own -- the tasks share the machine unevenly, so one finishes
first and the others run the rest alone, on fewer cores), the most processes alive
at once in that tree, idle RSS (REST ready, no connector) and peak RSS (summed over the
tree); then per N the kconnect/Java ratios, and each runtime's
speed-up over its own 1-task run. The first record of each run's first topic is compared
between the runtimes (with the ``ts`` value masked) to show both did the same work.

Before the measured runs each runtime makes one unmeasured run (``--warmup`` lines per task,
the largest task count): a broker JVM meeting this pipeline for the first time spends about
twice the user CPU per record until its JIT has compiled the paths it takes, and on a
saturated 2-core machine that lasts longer than a whole measured run. Measured on a broker just
started by ``kconnect local start``, without a warm-up: broker 0.54-0.65 cores beside the
kconnect worker's 1.31-1.40 (1,313 broker CPU ticks of user time in that run), then in the
next run 0.26-0.36 beside 1.61-1.70 (627 ticks). A broker that has run for a while is the
common case, and both runtimes then meet the same one. A plain producer (large and 16 KB
batches, 15 s) did not warm it: the connector's requests take other paths.

``--task-processes`` passes ``task.processes`` (the number of task processes; 0 or 1 = tasks
as threads in the worker process) to the kconnect worker only; unset, the worker's default
applies. A worker that does not know the property ignores it; the ``procs`` column shows
whether task processes ran.

    python bench/multicore.py                          # tasks 1, 2, 4; 500,000 lines per task
    python bench/multicore.py --tasks 2 --records 50000 --task-processes 2
    python bench/multicore.py --only kconnect
    python bench/multicore.py --tasks 2 --warmup 0            # the broker as it is

Needs a broker (``KCONNECT_BOOTSTRAP_SERVERS`` or the local stack, started if absent) and, for
the Java side, Java 17+ and Maven (the connect-runtime/file/json jars come from Maven Central).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx
from confluent_kafka import Consumer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    Interval,
    TreeMeter,
    free_port,
    local_broker_pid,
    rss_mib,
    stop_process,
    table,
    wait_rest_ready,
)
from file_pipeline import REFERENCE_CONNECT_VERSION, java_command, kconnect_command

JSON = "org.apache.kafka.connect.json.JsonConverter"

#: The three SMTs, in order, with their settings: the same on both runtimes.
TRANSFORMS = {
    "transforms": "hoist,static,ts",
    "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
    "transforms.hoist.field": "line",
    "transforms.static.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.static.static.field": "source",
    "transforms.static.static.value": "multicore-bench",
    "transforms.ts.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.ts.timestamp.field": "ts",
}

#: Seconds between progress lines while a run waits for its records.
PROGRESS_S = 5.0
#: The shortest span with every task busy that is reported: the tree's CPU time has a
#: resolution of one clock tick (10 ms) per process, and the span's ends one poll (50 ms).
MIN_ALL_BUSY_S = 1.0

_TS = re.compile(rb'"ts":\d+')


@dataclass
class Result:
    runtime: str
    tasks: int
    records: int
    cpu: Interval
    processes: int
    startup_s: float
    idle_rss: float
    peak_rss: float
    first_record: tuple[bytes | None, bytes | None]
    broker: Interval | None = None  # the local broker's CPU over the same span, when metered
    # From the first records in the topics to the last: the tasks busy, start-up left out.
    busy: Interval | None = None
    busy_records: int = 0
    busy_broker: Interval | None = None
    # While every task still had records to send: from the moment each topic holds records to
    # the moment the first topic holds all of its own. This is what "N busy tasks" means. Past
    # that moment fewer tasks are left, and they cannot use the cores the finished ones used.
    all_busy: Interval | None = None
    all_busy_records: int = 0
    all_busy_broker: Interval | None = None

    @property
    def rate(self) -> float:
        return self.records / self.cpu.wall_s if self.cpu.wall_s else 0.0

    @property
    def busy_rate(self) -> float:
        return self.busy_records / self.busy.wall_s if self.busy and self.busy.wall_s else 0.0

    @property
    def all_busy_rate(self) -> float:
        a = self.all_busy
        return self.all_busy_records / a.wall_s if a and a.wall_s else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu.cpu_us_per(self.records)


def worker_props(
    bootstrap: str, port: int, offsets: Path, runtime: str, task_processes: int | None
) -> str:
    lines = [
        f"bootstrap.servers={bootstrap}",
        f"key.converter={JSON}",
        f"value.converter={JSON}",
        "key.converter.schemas.enable=true",
        "value.converter.schemas.enable=true",
        f"offset.storage.file.filename={offsets}",
        "offset.flush.interval.ms=10000",
        f"listeners=http://127.0.0.1:{port}",
    ]
    if runtime == "kconnect" and task_processes is not None:
        lines.append(f"task.processes={task_processes}")
    return "\n".join(lines) + "\n"


def write_inputs(work: Path, prefix: str, files: int, lines: int) -> list[Path]:
    """``files`` input files of ``lines`` lines each, one per FileStreamSource task."""
    inputs = []
    for i in range(files):
        path = work / f"{prefix}-{i}.txt"
        with path.open("w") as f:
            for n in range(lines):
                f.write(f"task {i} line {n:09d} the quick brown fox jumps over the lazy dog\n")
        inputs.append(path)
    return inputs


def end_offsets(consumer: Consumer, topics: list[str]) -> list[int]:
    """Records in each of the topics (one partition each) so far."""
    got = []
    for t in topics:
        try:
            got.append(int(consumer.get_watermark_offsets(TopicPartition(t, 0), 5)[1]))
        except Exception:  # not answered in time: counts as nothing yet, asked again next turn
            got.append(0)
    return got


def first_record(bootstrap: str, topic: str) -> tuple[bytes | None, bytes | None]:
    """Key and value of the record at offset 0 of ``topic``'s partition 0."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-multicore-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is not None and m.error() is None:
                return m.key(), m.value()
        raise RuntimeError(f"no record at offset 0 of {topic} after 30 s")
    finally:
        c.close()


def run_one(
    runtime: str,
    tasks: int,
    bootstrap: str,
    inputs: list[Path],
    per_task: int,
    work: Path,
    timeout_s: float,
    task_processes: int | None,
) -> Result:
    from kconnect.kafka.tools.admin_ping import create_topic, delete_topics

    run_id = f"{runtime}-{tasks}-{uuid.uuid4().hex[:8]}"
    port = free_port()
    props = work / f"{run_id}.properties"
    props.write_text(
        worker_props(bootstrap, port, work / f"{run_id}.offsets", runtime, task_processes)
    )
    topics = [f"bench-multicore-{run_id}-{i}" for i in range(tasks)]
    # Created up front, as in file_pipeline: topic auto-creation is not what is measured.
    for t in topics:
        create_topic(bootstrap, t, partitions=1)
    total = tasks * per_task
    cmd = java_command(props) if runtime == "java" else kconnect_command(props)
    log_path = work / f"{run_id}.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{run_id}"})
    try:
        startup = wait_rest_ready(base + "/", proc)
        time.sleep(1.0)
        idle = rss_mib(proc.pid)
        broker_pid = local_broker_pid(bootstrap)
        with (
            httpx.Client(base_url=base, timeout=30.0) as client,
            TreeMeter(*([broker_pid] if broker_pid else []), tree=False) as broker,
            TreeMeter(proc.pid) as meter,
        ):
            start = meter.started
            for i, topic in enumerate(topics):
                body = {
                    "name": f"src-{run_id}-{i}",
                    "config": {
                        "connector.class": "FileStreamSource",
                        "tasks.max": "1",
                        "file": str(inputs[i]),
                        "topic": topic,
                        **TRANSFORMS,
                    },
                }
                r = client.post("/connectors", json=body)
                if r.status_code != 201:
                    raise RuntimeError(
                        f"{runtime}: creating {body['name']} gave {r.status_code} {r.text}"
                    )
            done = 0
            first_seen = 0
            # (worker checkpoint, broker checkpoint, records) when every task is sending, and
            # when the first one has sent all its records
            Point = tuple[tuple[float, int], tuple[float, int] | None, int]
            all_from: Point | None = None
            all_to: Point | None = None

            def point(records: int) -> Point:
                return (meter.checkpoint(), broker.checkpoint() if broker_pid else None, records)

            next_report = start + PROGRESS_S
            while time.monotonic() < start + timeout_s:
                per_topic = end_offsets(consumer, topics)
                done = sum(per_topic)
                if all_from is None and min(per_topic) > 0:
                    all_from = point(done)
                if all_from is not None and all_to is None and max(per_topic) >= per_task:
                    all_to = point(done)
                if done >= total:
                    break
                if done and not first_seen:
                    # the tasks are running: the busy span starts here
                    meter.mark()
                    broker.mark()
                    first_seen = done
                if time.monotonic() >= next_report:
                    next_report += PROGRESS_S
                    print(
                        f"  {time.monotonic() - start:5.1f} s: {done:,} of {total:,} records",
                        flush=True,
                    )
                time.sleep(0.05)
            cpu = meter.stop()
            broker_cpu = broker.stop() if broker_pid else None
            busy = meter.since_mark
            busy_broker = broker.since_mark if broker_pid else None
            all_busy = all_busy_broker = None
            all_busy_records = 0
            if all_from and all_to and all_to[0][0] - all_from[0][0] >= MIN_ALL_BUSY_S:
                all_busy = TreeMeter.between(all_from[0], all_to[0])
                all_busy_records = all_to[2] - all_from[2]
                if all_from[1] and all_to[1]:
                    all_busy_broker = TreeMeter.between(all_from[1], all_to[1])
        if done < total:
            raise RuntimeError(
                f"{runtime}, {tasks} tasks: only {done:,} of {total:,} records after "
                f"{timeout_s} s (log {log_path})"
            )
        running = sum(
            t["state"] == "RUNNING"
            for c in client_get(base, "/connectors?expand=status").values()
            for t in c["status"]["tasks"]
        )
        print(
            f"  {total:,} records in {cpu.wall_s:.1f} s: {total / cpu.wall_s:,.0f} records/s, "
            f"{cpu.cores:.2f} cores, {meter.processes} process(es), {running} tasks RUNNING, "
            f"peak RSS {meter.peak_rss:,.0f} MiB"
            + (f"; broker {broker_cpu.cores:.2f} cores" if broker_cpu else "")
            + (
                f"; busy (after the first {first_seen:,} records): "
                f"{(total - first_seen) / busy.wall_s:,.0f} records/s, {busy.cores:.2f} cores"
                if busy and busy.wall_s
                else ""
            )
            + (
                f"; all {tasks} busy: {all_busy_records / all_busy.wall_s:,.0f} records/s, "
                f"{all_busy.cores:.2f} cores over {all_busy.wall_s:.1f} s"
                if all_busy
                else f"; all {tasks} busy for less than {MIN_ALL_BUSY_S} s: not measured"
            ),
            flush=True,
        )
        sample = first_record(bootstrap, topics[0])
        return Result(
            runtime,
            tasks,
            total,
            cpu,
            meter.processes,
            startup,
            idle,
            meter.peak_rss,
            sample,
            broker_cpu,
            busy,
            total - first_seen if busy else 0,
            busy_broker,
            all_busy,
            all_busy_records,
            all_busy_broker,
        )
    finally:
        consumer.close()
        stop_process(proc)
        log.close()
        delete_topics(bootstrap, topics)  # ~0.5 KB a record: keep the shared broker's disk


def client_get(base: str, path: str) -> dict[str, dict[str, dict[str, list[dict[str, str]]]]]:
    r = httpx.get(base + path, timeout=30.0)
    r.raise_for_status()
    return dict(r.json())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--tasks", default="1,2,4", help="comma-separated task counts, one run each (1,2,4)"
    )
    ap.add_argument(
        "--records",
        type=int,
        default=500_000,
        help="lines per input file, so per task (default 500000)",
    )
    ap.add_argument(
        "--task-processes",
        type=int,
        default=None,
        help="task.processes for the kconnect worker (default: unset, the worker's default)",
    )
    ap.add_argument(
        "--only", choices=["kconnect", "java"], default=None, help="run one runtime, no ratios"
    )
    ap.add_argument(
        "--warmup",
        type=int,
        default=500_000,
        help="lines per task of an unmeasured first run of each runtime, so that the broker's "
        "JIT has compiled its paths before the measured runs (default 500000; 0: none)",
    )
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.tasks.split(",")]
    if not counts or min(counts) < 1:
        ap.error("--tasks takes positive task counts, e.g. 1,2,4")

    from kconnect.testing.services import ensure_kafka

    bootstrap = ensure_kafka()
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    tp = (
        "unset (the worker's default)"
        if args.task_processes is None
        else f"task.processes={args.task_processes}"
    )
    print(f"kconnect worker: {tp}; Java: Kafka Connect {REFERENCE_CONNECT_VERSION}", flush=True)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-multicore-") as tmp:
        work = Path(tmp)
        inputs = write_inputs(work, "input", max(counts), args.records)
        if args.warmup > 0:
            warm = write_inputs(work, "warmup", max(counts), args.warmup)
            for rt in runtimes:
                print(
                    f"warming up the broker: {rt} with {max(counts)} task(s), "
                    f"{max(counts) * args.warmup:,} lines (not measured)...",
                    flush=True,
                )
                run_one(
                    rt,
                    max(counts),
                    bootstrap,
                    warm,
                    args.warmup,
                    work,
                    args.timeout,
                    args.task_processes,
                )
        for tasks in counts:
            for rt in runtimes:
                print(
                    f"running {rt} with {tasks} task(s), {tasks * args.records:,} lines...",
                    flush=True,
                )
                results.append(
                    run_one(
                        rt,
                        tasks,
                        bootstrap,
                        inputs,
                        args.records,
                        work,
                        args.timeout,
                        args.task_processes,
                    )
                )
    print()
    print(
        table(
            [
                "tasks",
                "runtime",
                "records",
                "seconds",
                "records/s",
                "CPU-µs/rec",
                "cores",
                "broker cores",
                "busy records/s",
                "busy cores",
                "busy broker cores",
                "all-busy records/s",
                "all-busy cores",
                "all-busy broker cores",
                "procs",
                "idle RSS MiB",
                "peak RSS MiB",
            ],
            [
                [
                    r.tasks,
                    r.runtime,
                    r.records,
                    r.cpu.wall_s,
                    r.rate,
                    r.cpu_us,
                    r.cpu.cores,
                    r.broker.cores if r.broker else "-",
                    r.busy_rate if r.busy else "-",
                    r.busy.cores if r.busy else "-",
                    r.busy_broker.cores if r.busy_broker else "-",
                    r.all_busy_rate if r.all_busy else "-",
                    r.all_busy.cores if r.all_busy else "-",
                    r.all_busy_broker.cores if r.all_busy_broker else "-",
                    r.processes,
                    r.idle_rss,
                    r.peak_rss,
                ]
                for r in results
            ],
        )
    )

    def get(rt: str, tasks: int) -> Result:
        return next(r for r in results if r.runtime == rt and r.tasks == tasks)

    print()
    scale_rows = []
    for tasks in counts:
        row: list[object] = [tasks]
        for rt in runtimes:
            r, one = get(rt, tasks), get(rt, counts[0])
            row += [r.rate / one.rate, r.cpu.cores]
        scale_rows.append(row)
    scale_head = ["tasks"]
    for rt in runtimes:
        scale_head += [f"{rt} records/s vs {counts[0]} task(s)", f"{rt} cores"]
    print(table(scale_head, scale_rows))
    if len(runtimes) == 2:
        print()
        print(
            table(
                [
                    "tasks",
                    "throughput kconnect/java",
                    "CPU-µs/rec kconnect/java",
                    "cores kconnect/java",
                    "busy throughput kconnect/java",
                    "all-busy throughput kconnect/java",
                    "peak RSS kconnect/java",
                ],
                [
                    [
                        tasks,
                        get("kconnect", tasks).rate / get("java", tasks).rate,
                        get("kconnect", tasks).cpu_us / get("java", tasks).cpu_us,
                        get("kconnect", tasks).cpu.cores / get("java", tasks).cpu.cores,
                        get("kconnect", tasks).busy_rate / get("java", tasks).busy_rate
                        if get("java", tasks).busy_rate
                        else "-",
                        get("kconnect", tasks).all_busy_rate / get("java", tasks).all_busy_rate
                        if get("java", tasks).all_busy_rate and get("kconnect", tasks).all_busy
                        else "-",
                        get("kconnect", tasks).peak_rss / get("java", tasks).peak_rss,
                    ]
                    for tasks in counts
                ],
            )
        )
        same = []
        for tasks in counts:
            k, j = get("kconnect", tasks).first_record, get("java", tasks).first_record
            masked = [
                tuple(None if b is None else _TS.sub(b'"ts":0', b) for b in kv) for kv in (k, j)
            ]
            if masked[0] == masked[1]:
                same.append(str(tasks))
            else:
                print(
                    f"first record differs with {tasks} task(s):\n  kconnect {k!r}\n  java     {j!r}"
                )
        if same:
            print(
                f"first record, kconnect vs Java (ts masked): identical for tasks {', '.join(same)}"
            )
        print(
            "goals: with 2 busy tasks kconnect uses >= 1.4 cores (all-busy cores: while both "
            "tasks still have records to send) and moves >= 1.5x Java's records/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
