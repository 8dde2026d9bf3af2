"""The file pipeline with and without exactly-once source, kconnect beside Apache Kafka Connect.

FileStreamSource -> topic -> FileStreamSink on one *distributed* worker (exactly-once source
needs one: KIP-618), run four ways in one run on the same broker with the same properties and
connector configs: kconnect and Kafka Connect 4.1.2, each with
``exactly.once.source.support=disabled`` (at least once) and ``enabled`` (the source task's
records and offsets committed in one transaction per poll -- ``transaction.boundary=poll``,
FileStreamSource's 2,000-line batches -- and the sink reading ``read_committed``). For each it
prints records/s (lines copied end to end / seconds from connector creation until the sink
file holds every line; distributed start-up -- task configs, a rebalance, the sink's consumer
group -- is in it), steady records/s (from the moment 5% of the lines arrived to the last),
CPU-µs per record and cores used over the end-to-end seconds (the worker's whole process
tree; the broker's CPU is not in it), peak RSS; then what exactly-once costs each runtime
(enabled/disabled) and the kconnect/Java ratios.

    python bench/exactly_once.py                    # 1,000,000 lines, JsonConverter
    python bench/exactly_once.py --records 200000 --only kconnect

Needs a broker (``KCONNECT_BOOTSTRAP_SERVERS`` or the local stack, started if absent) and, for
the Java side, Java 17+ and Maven (the connect-runtime/file/json jars come from Maven Central).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Interval, TreeMeter, free_port, stop_process, table, wait_rest_ready
from file_pipeline import CONVERTERS, PROGRESS_S, count_lines, java_command, kconnect_command

MODES = ("disabled", "enabled")


@dataclass
class Result:
    runtime: str
    mode: str
    records: int
    cpu: Interval
    peak_rss: float
    steady_rate: float

    @property
    def rate(self) -> float:
        return self.records / self.cpu.wall_s if self.cpu.wall_s else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu.cpu_us_per(self.records)


def worker_props(bootstrap: str, run_id: str, port: int, converter: str, mode: str) -> str:
    lines = [
        f"bootstrap.servers={bootstrap}",
        f"group.id=bench-{run_id}",
        f"config.storage.topic=bench-{run_id}-configs",
        f"offset.storage.topic=bench-{run_id}-offsets",
        f"status.storage.topic=bench-{run_id}-status",
        "config.storage.replication.factor=1",
        "offset.storage.replication.factor=1",
        "status.storage.replication.factor=1",
        f"key.converter={CONVERTERS[converter]}",
        f"value.converter={CONVERTERS[converter]}",
        "key.converter.schemas.enable=false",
        "value.converter.schemas.enable=false",
        "offset.flush.interval.ms=10000",
        f"listeners=http://127.0.0.1:{port}",
        f"exactly.once.source.support={mode}",
    ]
    if mode == "enabled":
        lines.append("consumer.isolation.level=read_committed")
    return "\n".join(lines) + "\n"


def run_one(
    runtime: str,
    mode: str,
    converter: str,
    bootstrap: str,
    source: Path,
    records: int,
    work: Path,
    timeout_s: float,
) -> Result:
    run_id = f"{runtime}-{mode}-{uuid.uuid4().hex[:8]}"
    port = free_port()
    sink = work / f"{run_id}.out"
    props = work / f"{run_id}.properties"
    props.write_text(worker_props(bootstrap, run_id, port, converter, mode))
    command = java_command if runtime == "java" else kconnect_command
    cmd = command(props, "distributed")
    log = (work / f"{run_id}.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_rest_ready(base + "/", proc)
        # a distributed worker is ready for connectors once it joined its group: GET /health
        # (KIP-1017) answers 200 from then on in both runtimes (kconnect answers GET
        # /connectors before, from the config topic it read; Java only after joining)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(base + "/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        topic = f"bench-{run_id}"
        from kconnect.kafka.tools.admin_ping import create_topic

        create_topic(bootstrap, topic, partitions=1)
        with httpx.Client(base_url=base, timeout=60.0) as client, TreeMeter(proc.pid) as meter:
            start = meter.started
            for name, config in (
                (
                    f"src-{run_id}",
                    {
                        "connector.class": "FileStreamSource",
                        "tasks.max": "1",
                        "file": str(source),
                        "topic": topic,
                    },
                ),
                (
                    f"sink-{run_id}",
                    {
                        "connector.class": "FileStreamSink",
                        "tasks.max": "1",
                        "file": str(sink),
                        "topics": topic,
                    },
                ),
            ):
                r = client.put(f"/connectors/{name}/config", json=config)
                if r.status_code not in (200, 201):
                    raise RuntimeError(f"{runtime}: creating {name} gave {r.status_code} {r.text}")
            deadline = start + timeout_s
            done = 0
            next_report = start + PROGRESS_S
            first: tuple[float, int] | None = None  # (when, lines) once 5% arrived
            while time.monotonic() < deadline:
                done = count_lines(sink)
                if first is None and done >= records // 20:
                    first = (time.monotonic(), done)
                if done >= records:
                    break
                if time.monotonic() >= next_report:
                    next_report += PROGRESS_S
                    print(f"  {time.monotonic() - start:5.1f} s: {done:,} lines", flush=True)
                time.sleep(0.05)
            cpu = meter.stop()
            ended = time.monotonic()
        if done < records:
            raise RuntimeError(
                f"{runtime}/{mode}: only {done} of {records} lines after {timeout_s} s"
            )
        if done > records:
            raise RuntimeError(f"{runtime}/{mode}: {done - records} lines too many (duplicates)")
        print(
            f"  {records:,} lines in {cpu.wall_s:.1f} s, {cpu.cores:.2f} cores, "
            f"peak RSS {meter.peak_rss:,.0f} MiB",
            flush=True,
        )
        steady = 0.0
        if first is not None and ended > first[0]:
            steady = (records - first[1]) / (ended - first[0])
        return Result(runtime, mode, records, cpu, meter.peak_rss, steady)
    finally:
        stop_process(proc)
        log.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--records", type=int, default=1_000_000, help="lines in the source file")
    ap.add_argument("--converter", choices=sorted(CONVERTERS), default="json")
    ap.add_argument(
        "--only", choices=["kconnect", "java"], default=None, help="run one runtime, no ratios"
    )
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the workers' logs and files in this directory")  # fmt: skip
    args = ap.parse_args(argv)

    from kconnect.testing.services import ensure_kafka

    bootstrap = ensure_kafka()
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-eos-") as tmp:
        work = Path(tmp) if args.keep is None else args.keep
        work.mkdir(parents=True, exist_ok=True)
        source = work / "input.txt"
        with source.open("w") as f:
            for i in range(args.records):
                f.write(f"line {i:09d} the quick brown fox jumps over the lazy dog\n")
        for mode in MODES:
            for rt in runtimes:
                print(f"running {rt} with exactly.once.source.support={mode} over "
                      f"{args.records:,} lines ({args.converter})...", flush=True)  # fmt: skip
                results.append(
                    run_one(
                        rt,
                        mode,
                        args.converter,
                        bootstrap,
                        source,
                        args.records,
                        work,
                        args.timeout,
                    )
                )
    print()
    print(
        table(
            [
                "runtime",
                "exactly.once",
                "records/s",
                "steady rec/s",
                "seconds",
                "CPU-µs/rec",
                "cores",
                "peak RSS MiB",
            ],
            [
                [
                    r.runtime,
                    r.mode,
                    r.rate,
                    r.steady_rate,
                    r.cpu.wall_s,
                    r.cpu_us,
                    r.cpu.cores,
                    r.peak_rss,
                ]
                for r in results
            ],
        )
    )

    def pick(rt: str, mode: str) -> Result:
        return next(r for r in results if r.runtime == rt and r.mode == mode)

    print()
    print(
        table(
            ["runtime", "throughput enabled/disabled", "CPU-µs/rec enabled/disabled"],
            [
                [
                    rt,
                    pick(rt, "enabled").rate / pick(rt, "disabled").rate,
                    pick(rt, "enabled").cpu_us / pick(rt, "disabled").cpu_us,
                ]
                for rt in runtimes
            ],
        )
    )
    if len(runtimes) == 2:
        print()
        print(
            table(
                [
                    "exactly.once",
                    "throughput kconnect/java",
                    "steady kconnect/java",
                    "CPU-µs/rec kconnect/java",
                ],
                [
                    [
                        mode,
                        pick("kconnect", mode).rate / pick("java", mode).rate,
                        pick("kconnect", mode).steady_rate / pick("java", mode).steady_rate,
                        pick("kconnect", mode).cpu_us / pick("java", mode).cpu_us,
                    ]
                    for mode in MODES
                ],
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
