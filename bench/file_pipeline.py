"""FileStreamSource -> topic -> FileStreamSink: kconnect standalone beside Apache Kafka Connect.

Both workers run in one run, one after the other, on the same broker with the same worker
properties and connector configs, for StringConverter and for JsonConverter. For each it
prints records/s (lines copied end to end / seconds from connector creation until the sink
file holds every line), what that costs over the same seconds: CPU-µs per record and cores
used (CPU time of the worker's whole process tree -- the JVM, or the kconnect worker and any
task processes -- / records, and / wall time; the broker's CPU is not in it), RSS when idle
(REST ready, no connectors) and peak RSS under load (summed over the tree), and the time from
process start to REST ready; then kconnect/Java ratios.

    python bench/file_pipeline.py                 # 1,000,000 lines
    python bench/file_pipeline.py --records 200000 --only kconnect
    python bench/file_pipeline.py --repeat 3         # 3 interleaved rounds: medians and ranges

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
from statistics import median

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    PROGRESS_S,
    REFERENCE_CONNECT_VERSION,
    Interval,
    LineCounter,
    TreeMeter,
    count_lines,
    free_port,
    java_command,
    kconnect_command,
    rss_mib,
    stop_process,
    table,
    wait_rest_ready,
)

# Other benches import these from here; they live in _common now.
__all__ = [
    "CONVERTERS",
    "PROGRESS_S",
    "REFERENCE_CONNECT_VERSION",
    "count_lines",
    "java_command",
    "kconnect_command",
    "main",
    "run_one",
]

CONVERTERS = {
    "string": "org.apache.kafka.connect.storage.StringConverter",
    "json": "org.apache.kafka.connect.json.JsonConverter",
}


@dataclass
class Result:
    runtime: str
    converter: str
    records: int
    cpu: Interval
    startup_s: float
    idle_rss: float
    peak_rss: float

    @property
    def seconds(self) -> float:
        return self.cpu.wall_s

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu.cpu_us_per(self.records)


def run_one(
    runtime: str,
    converter: str,
    bootstrap: str,
    source: Path,
    records: int,
    work: Path,
    timeout_s: float,
) -> Result:
    run_id = f"{runtime}-{converter}-{uuid.uuid4().hex[:8]}"
    port = free_port()
    sink = work / f"{run_id}.out"
    props = work / f"{run_id}.properties"
    props.write_text(
        "\n".join(
            [
                f"bootstrap.servers={bootstrap}",
                f"key.converter={CONVERTERS[converter]}",
                f"value.converter={CONVERTERS[converter]}",
                "key.converter.schemas.enable=false",
                "value.converter.schemas.enable=false",
                f"offset.storage.file.filename={work / (run_id + '.offsets')}",
                "offset.flush.interval.ms=10000",
                f"listeners=http://127.0.0.1:{port}",
                "",
            ]
        )
    )
    cmd = java_command(props) if runtime == "java" else kconnect_command(props)
    log = (work / f"{run_id}.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        startup = wait_rest_ready(base + "/", proc)
        time.sleep(1.0)
        idle = rss_mib(proc.pid)
        topic = f"bench-{run_id}"
        # Created up front so neither sink waits for its consumer to discover a topic the
        # source auto-creates (that discovery delay differs between the Java and librdkafka
        # clients and is not what this bench measures).
        from kconnect.kafka.tools.admin_ping import create_topic

        create_topic(bootstrap, topic, partitions=1)
        with httpx.Client(base_url=base, timeout=30.0) as client, TreeMeter(proc.pid) as meter:
            start = meter.started
            for body in (
                {
                    "name": f"src-{run_id}",
                    "config": {
                        "connector.class": "FileStreamSource",
                        "tasks.max": "1",
                        "file": str(source),
                        "topic": topic,
                    },
                },
                {
                    "name": f"sink-{run_id}",
                    "config": {
                        "connector.class": "FileStreamSink",
                        "tasks.max": "1",
                        "file": str(sink),
                        "topics": topic,
                    },
                },
            ):
                r = client.post("/connectors", json=body)
                if r.status_code != 201:
                    raise RuntimeError(
                        f"{runtime}: creating {body['name']} gave {r.status_code} {r.text}"
                    )
            deadline = start + timeout_s
            done = 0
            next_report = start + PROGRESS_S
            lines = LineCounter(sink)
            while time.monotonic() < deadline:
                done = lines()
                if done >= records:
                    break
                if time.monotonic() >= next_report:
                    next_report += PROGRESS_S
                    print(f"  {time.monotonic() - start:5.1f} s: {done:,} lines", flush=True)
                time.sleep(0.05)
            cpu = meter.stop()
        if done < records:
            raise RuntimeError(
                f"{runtime}/{converter}: only {done} of {records} lines after {timeout_s} s"
            )
        print(
            f"  {records:,} lines in {cpu.wall_s:.1f} s, {cpu.cores:.2f} cores, "
            f"peak RSS {meter.peak_rss:,.0f} MiB",
            flush=True,
        )
        return Result(runtime, converter, records, cpu, startup, idle, meter.peak_rss)
    finally:
        stop_process(proc)
        log.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--records", type=int, default=1_000_000, help="lines in the source file")
    ap.add_argument(
        "--converters", default="string,json", help="comma-separated: string, json (both)"
    )
    ap.add_argument(
        "--only", choices=["kconnect", "java"], default=None, help="run one runtime, no ratios"
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="interleaved rounds (every converter and runtime in turn): medians and per-round "
        "ranges (default 1)",
    )
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    from kconnect.testing.services import ensure_kafka

    bootstrap = ensure_kafka()
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    converters = args.converters.split(",")
    rounds: list[list[Result]] = []
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-") as tmp:
        work = Path(tmp)
        source = work / "input.txt"
        with source.open("w") as f:
            for i in range(args.records):
                f.write(f"line {i:09d} the quick brown fox jumps over the lazy dog\n")
        for round_no in range(1, args.repeat + 1):
            if args.repeat > 1:
                print(f"round {round_no} of {args.repeat}", flush=True)
            results: list[Result] = []
            for conv in converters:
                for rt in runtimes:
                    print(
                        f"running {rt} with {conv} converter over {args.records:,} lines...",
                        flush=True,
                    )
                    results.append(
                        run_one(rt, conv, bootstrap, source, args.records, work, args.timeout)
                    )
            rounds.append(results)

    def runs(rt: str, conv: str) -> list[Result]:
        return [next(r for r in rs if r.runtime == rt and r.converter == conv) for rs in rounds]

    print()
    print(
        table(
            [
                "runtime",
                "converter",
                "records/s",
                "seconds",
                "CPU-µs/rec",
                "cores",
                "startup s",
                "idle RSS MiB",
                "peak RSS MiB",
            ],
            [
                [
                    rt,
                    conv,
                    median([r.rate for r in runs(rt, conv)]),
                    median([r.seconds for r in runs(rt, conv)]),
                    median([r.cpu_us for r in runs(rt, conv)]),
                    median([r.cpu.cores for r in runs(rt, conv)]),
                    median([r.startup_s for r in runs(rt, conv)]),
                    median([r.idle_rss for r in runs(rt, conv)]),
                    median([r.peak_rss for r in runs(rt, conv)]),
                ]
                for conv in converters
                for rt in runtimes
            ],
        )
    )
    if len(runtimes) == 2:
        print()
        rows = []
        for conv in converters:
            pairs = list(zip(runs("kconnect", conv), runs("java", conv), strict=True))
            speed = [k.rate / j.rate for k, j in pairs]
            cost = [k.cpu_us / j.cpu_us for k, j in pairs]
            row: list[object] = [
                conv,
                median(speed),
                median(cost),
                median([k.idle_rss / j.idle_rss for k, j in pairs]),
                median([k.startup_s / j.startup_s for k, j in pairs]),
            ]
            if args.repeat > 1:
                row += [
                    f"{min(speed):.2f}-{max(speed):.2f}",
                    f"{min(cost):.2f}-{max(cost):.2f}",
                ]
            rows.append(row)
        head = [
            "converter",
            "throughput kconnect/java",
            "CPU-µs/rec kconnect/java",
            "idle RSS kconnect/java",
            "startup kconnect/java",
        ]
        if args.repeat > 1:
            head += ["throughput per round", "CPU-µs/rec per round"]
        print(table(head, rows))
        print("goals: throughput >= 1.5, CPU-µs/rec <= 0.5, idle RSS <= 0.25, startup <= 0.33")
    if args.repeat > 1:
        print(f"medians of {args.repeat} interleaved rounds; ranges are per round")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
