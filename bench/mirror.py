"""MirrorMaker 2 from cluster A to cluster B: ``kconnect mirror-maker`` beside Java's dedicated
MirrorMaker (connect-mirror 4.1.2), in one run, on the same brokers and the same source topic.

For each record size (100 B and 1 KiB by default) one topic on A gets ``--records`` records
(``--partitions`` partitions, 16-byte keys); then each runtime runs the flow A->B from the same
mm2.properties (its own cluster aliases, so each writes its own remote topic) with
``tasks.max = --tasks``. Measured from the first replicated record on B until B holds every
record: records/s, CPU-µs per record and cores (CPU time of the runtime's whole process tree --
the JVM, or kconnect and its task processes -- over the same seconds; the brokers' CPU is in
neither) and peak RSS of that tree; also the seconds from process start to the first record.
Then the kconnect/Java ratios; goals: throughput >= 1.5x Java's, RSS <= 0.5x.

    python bench/mirror.py                          # 1,000,000 records of 100 B and 1 KiB
    python bench/mirror.py --records 200000 --sizes 100 --only kconnect

Cluster B is ``KCONNECT_BOOTSTRAP_SERVERS`` (or the local stack, started if absent); cluster A
is a private ``kconnect local`` broker started for the run (its own home and free ports,
purged afterwards) unless ``--source-bootstrap`` names one. The Java side needs Java 17+ and
Maven (the connect-mirror jars come from Maven Central).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Interval, TreeMeter, free_port, stop_process, table

MIRROR_VERSION = "4.1.2"
PROGRESS_S = 5.0


@dataclass
class Result:
    runtime: str
    size: int
    records: int
    cpu: Interval
    first_record_s: float
    peak_rss: float

    @property
    def rate(self) -> float:
        return self.records / self.cpu.wall_s if self.cpu.wall_s else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu.cpu_us_per(self.records)


# ----------------------------------------------------------------------------- clusters


class PrivateBroker:
    """Cluster A: ``kconnect local`` with its own home and ports, purged at the end."""

    def __init__(self) -> None:
        from kconnect.local import paths

        self.port, self.controller = free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.home = Path(tempfile.mkdtemp(prefix="kconnect-bench-mm2-"))
        os.chmod(self.home, 0o755)
        if paths.cache_dir().is_dir():
            (self.home / "cache").symlink_to(paths.cache_dir())

    def _local(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "kconnect.cli.main", "local", *args, "--kafka-only",
             "--kafka-port", str(self.port), "--controller-port", str(self.controller)],
            env={**os.environ, "KCONNECT_HOME": str(self.home)},
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip

    def __enter__(self) -> PrivateBroker:
        print(f"starting cluster A on {self.bootstrap} ...", flush=True)
        self._local("start")
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._local("stop", "--purge")
        finally:
            subprocess.run(["rm", "-rf", str(self.home)], check=False)


def produce(bootstrap: str, topic: str, records: int, size: int, partitions: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[
        topic
    ].result(60)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1_000_000,
                  "queue.buffering.max.messages": 1_000_000})  # fmt: skip
    value = b"x" * size
    started = time.monotonic()
    for i in range(records):
        key = b"%016d" % i
        while True:
            try:
                p.produce(topic, value, key, partition=i % partitions)
                break
            except BufferError:
                p.poll(0.05)
    p.flush(300)
    print(f"  produced {records:,} records of {size} B in {time.monotonic() - started:.1f} s")


def replicated(consumer: object, topic: str, partitions: int) -> int:
    from confluent_kafka import KafkaException
    from confluent_kafka import TopicPartition as TP

    total = 0
    for p in range(partitions):
        try:
            total += consumer.get_watermark_offsets(TP(topic, p), timeout=5)[1]  # type: ignore[attr-defined]
        except KafkaException:
            return 0  # not created yet
    return total


# ----------------------------------------------------------------------------- one run


def mm2_properties(path: Path, a: str, b: str, sa: str, sb: str, topic: str, tasks: int) -> Path:
    path.write_text(
        f"clusters = {sa}, {sb}\n"
        f"{sa}.bootstrap.servers = {a}\n{sb}.bootstrap.servers = {b}\n"
        f"{sa}->{sb}.enabled = true\n{sa}->{sb}.topics = {topic}\n"
        f"tasks.max = {tasks}\n"
        "replication.factor = 1\noffset-syncs.topic.replication.factor = 1\n"
        "checkpoints.topic.replication.factor = 1\nheartbeats.topic.replication.factor = 1\n"
        "offset.storage.replication.factor = 1\nconfig.storage.replication.factor = 1\n"
        "status.storage.replication.factor = 1\nsync.topic.acls.enabled = false\n"
    )
    return path


def command(runtime: str, config: Path, log: Path) -> list[str]:
    if runtime == "kconnect":
        return [sys.executable, "-m", "kconnect.cli.main", "mirror-maker", str(config),
                "--log-level", "WARN"]  # fmt: skip
    from kconnect.local.maven import require_java, resolve_classpath

    cp = resolve_classpath(
        [
            f"org.apache.kafka:connect-mirror:{MIRROR_VERSION}",
            f"org.apache.kafka:connect-mirror-client:{MIRROR_VERSION}",
            f"org.apache.kafka:connect-runtime:{MIRROR_VERSION}",
            f"org.apache.kafka:connect-json:{MIRROR_VERSION}",
            "org.apache.logging.log4j:log4j-core:2.25.5",
            "org.apache.logging.log4j:log4j-slf4j-impl:2.25.5",
        ]
    )
    conf = log.with_suffix(".log4j2.properties")
    conf.write_text(
        "status = warn\nappender.f.type = File\nappender.f.name = F\n"
        f"appender.f.fileName = {log}\nappender.f.layout.type = PatternLayout\n"
        "appender.f.layout.pattern = [%d] %p %m (%c)%n\n"
        "rootLogger.level = WARN\nrootLogger.appenderRef.f.ref = F\n"
    )
    # the heap connect-mirror-maker.sh gives MirrorMaker (KAFKA_HEAP_OPTS -Xms256M -Xmx2G)
    return [require_java(), "-Xms256M", "-Xmx2G", "-cp", os.pathsep.join(map(str, cp)),
            f"-Dlog4j2.configurationFile={conf}", "org.apache.kafka.connect.mirror.MirrorMaker",
            str(config)]  # fmt: skip


def run_one(
    runtime: str, a: str, b: str, topic: str, args: argparse.Namespace, size: int, work: Path
) -> Result:
    from confluent_kafka import Consumer

    u = uuid.uuid4().hex[:6]
    sa, sb = f"{runtime[0].upper()}{u}", f"{runtime[0].upper()}B{u}"
    config = mm2_properties(work / f"{runtime}-{u}.properties", a, b, sa, sb, topic, args.tasks)
    log = work / f"{runtime}-{u}.log"
    remote = f"{sa}.{topic}"
    counter = Consumer({"bootstrap.servers": b, "group.id": f"bench-{u}"})
    out = log.open("ab")
    started = time.monotonic()
    proc = subprocess.Popen(command(runtime, config, log), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = started + args.timeout
        first = 0
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{runtime} exited with {proc.returncode}; see {log}")
            first = replicated(counter, remote, args.partitions)
            if first > 0:
                break
            time.sleep(0.02)
        first_record_s = time.monotonic() - started
        done = first
        with TreeMeter(proc.pid) as meter:
            next_report = time.monotonic() + PROGRESS_S
            while time.monotonic() < deadline and done < args.records:
                time.sleep(0.05)
                done = replicated(counter, remote, args.partitions)
                if time.monotonic() >= next_report:
                    next_report += PROGRESS_S
                    print(f"  {time.monotonic() - meter.started:5.1f} s: {done:,} records",
                          flush=True)  # fmt: skip
            cpu = meter.stop()
        if done < args.records:
            raise RuntimeError(f"{runtime}: only {done} of {args.records} after {args.timeout} s")
        measured = args.records - first
        result = Result(runtime, size, measured, cpu, first_record_s, meter.peak_rss)
        print(f"  {measured:,} records in {cpu.wall_s:.1f} s: {result.rate:,.0f} records/s, "
              f"{cpu.cores:.2f} cores, peak RSS {meter.peak_rss:,.0f} MiB", flush=True)  # fmt: skip
        return result
    finally:
        stop_process(proc, grace_s=60)
        counter.close()
        out.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--records", type=int, default=1_000_000, help="records per size")
    ap.add_argument("--sizes", default="100,1024", help="comma-separated record sizes in bytes")
    ap.add_argument("--partitions", type=int, default=4, help="partitions of the source topic")
    ap.add_argument("--tasks", type=int, default=2, help="tasks.max of both runtimes")
    ap.add_argument("--only", choices=["kconnect", "java"], default=None,
                    help="run one runtime, no ratios")  # fmt: skip
    ap.add_argument("--source-bootstrap", default=None,
                    help="cluster A (default: a private broker started for the run)")  # fmt: skip
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    args = ap.parse_args(argv)

    from contextlib import nullcontext

    from kconnect.testing.services import ensure_kafka

    b = ensure_kafka()
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    sizes = [int(s) for s in args.sizes.split(",")]
    results: list[Result] = []
    source = nullcontext() if args.source_bootstrap else PrivateBroker()
    with source as broker, tempfile.TemporaryDirectory(prefix="kconnect-bench-mm2-") as tmp:
        a = args.source_bootstrap or broker.bootstrap  # type: ignore[union-attr]
        for size in sizes:
            topic = f"mm2-bench-{size}-{uuid.uuid4().hex[:6]}"
            produce(a, topic, args.records, size, args.partitions)
            for runtime in runtimes:
                print(f"running {runtime}: {args.records:,} records of {size} B, "
                      f"{args.partitions} partitions, tasks.max={args.tasks} ...", flush=True)  # fmt: skip
                results.append(run_one(runtime, a, b, topic, args, size, Path(tmp)))
    print()
    print(table(
        ["runtime", "record size", "records/s", "seconds", "CPU-µs/rec", "cores",
         "peak RSS MiB", "first record s"],
        [[r.runtime, r.size, r.rate, r.cpu.wall_s, r.cpu_us, r.cpu.cores, r.peak_rss,
          r.first_record_s] for r in results],
    ))  # fmt: skip
    if len(runtimes) == 2:
        rows = []
        for size in sizes:
            k = next(r for r in results if r.runtime == "kconnect" and r.size == size)
            j = next(r for r in results if r.runtime == "java" and r.size == size)
            rows.append([size, k.rate / j.rate, k.cpu_us / j.cpu_us, k.peak_rss / j.peak_rss])
        print()
        print(table(["record size", "throughput kconnect/java", "CPU-µs/rec kconnect/java",
                     "peak RSS kconnect/java"], rows))  # fmt: skip
        print("goals: throughput >= 1.5, peak RSS <= 0.5")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
