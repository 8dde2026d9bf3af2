"""Pre-filled topic -> JsonConverter -> SMT chain -> FileStreamSink: kconnect beside Kafka Connect.

The scenario of issue #29. A 2-partition topic is filled once, before either worker starts, with
``--records`` records of a ``bench/workloads.py`` shape (default ``customer``: the 10-field
record with a Decimal, a Timestamp, an array, a nested struct, nulls and unicode), keys and
values written by kconnect's JsonConverter (the schema envelope in every key and value when the
shape has schemas). Then, on the same broker in the same run, a ``kconnect standalone`` worker
and Apache Kafka Connect 4.1.2's ``ConnectStandalone`` each run, as a user runs them
(``worker.properties connector.properties`` on the command line, default worker settings but
for the converters, which both get), a FileStreamSink with ``tasks.max=2`` (``--tasks``), its
own consumer group and its own output file, JsonConverter for keys and values and the chain:
by default the six SMTs of the issue (``workloads.SINK_CHAIN``: ReplaceField, Cast,
TimestampConverter, MaskField, Flatten, InsertField), ``--chain NAME`` one of the shape's
chains (``workloads.chains(shape)``: ``cleanup`` -- the same six kinds, the default on the
other shapes --, ``routing``, ``unwrap``), ``--no-chain`` none.

For each worker it prints records/s (records / seconds from connector creation until the
output file holds every record's line), over the same seconds the CPU-µs per record and the
cores used (CPU time of the worker's whole process tree -- the JVM, or the kconnect worker and
any task processes -- / records, and / wall time; the broker's CPU is not in it), the seconds
until the first line appeared (tasks starting, the consumer group forming), start-up (process
start until the REST API answers) and peak RSS (summed over the tree); then kconnect/Java
ratios. The time to fill the topic is reported on its own. The output files are compared as
sorted lists of lines (the two tasks interleave their lines), with the identity hash in a
BYTES value's rendering (``[B@1b6d3586``: Java's ``byte[].toString()``, different in every JVM
run) masked: ``lines identical: yes``, or how many differ with three examples side by side.

    python bench/sink_pipeline.py                        # 600,000 customer records
    python bench/sink_pipeline.py --records 50000 --repeat 1
    python bench/sink_pipeline.py --shape wide --chain NAME   # a chain of workloads.chains()
    python bench/sink_pipeline.py --repeat 3             # interleaved rounds: medians, ranges

``--repeat R`` runs R interleaved rounds (the runtimes alternate which goes first) and prints
medians and the per-round ranges of the ratios, never the best round. Timings are reported,
never asserted. Needs a broker (``KCONNECT_BOOTSTRAP_SERVERS`` or the local stack, started if
absent) and, for the Java side, Java 17+ and Maven (the connect-runtime/file/json jars come
from Maven Central).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    LineCounter,
    WorkerRun,
    around_difference,
    chain_types,
    print_runs,
    run_standalone,
)

JSON = "org.apache.kafka.connect.json.JsonConverter"


def resolve_chain(shape: str, name: str | None, none: bool) -> tuple[str, dict[str, str]]:
    """(label, connector properties) of the chain the options pick: by default the shape's
    ``cleanup`` chain, which on the customer shape is ``SINK_CHAIN``."""
    import workloads

    if none:
        return "no chain", {}
    if name is None and shape == "customer":
        return "SINK_CHAIN", dict(workloads.SINK_CHAIN)
    name = name or "cleanup"
    chains = workloads.chains(shape)
    if name not in chains:
        raise SystemExit(f"no chain {name!r} for {shape}; choose one of: {', '.join(chains)}")
    return name, dict(chains[name])


def fill_topic(
    bootstrap: str, topic: str, keys: Sequence[bytes | None], values: Sequence[bytes | None]
) -> float:
    """Produce the records to ``topic`` (partitioned by key as Java's producer does); the
    seconds it took. Raises unless the topic then holds every record."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "partitioner": "murmur2_random",
            "linger.ms": 20,
            "batch.size": 1_000_000,
            "queue.buffering.max.messages": 500_000,
            "queue.buffering.max.kbytes": 1_048_576,
        }
    )
    start = time.monotonic()
    for k, v in zip(keys, values, strict=True):
        while True:
            try:
                producer.produce(topic, v, k)
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                producer.poll(0.05)
        producer.poll(0)
    left = producer.flush(120)
    elapsed = time.monotonic() - start
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-fill-{topic}"})
    try:
        held = sum(consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1] for p in (0, 1))
    finally:
        consumer.close()
    if left or held != len(values):
        raise RuntimeError(
            f"filling {topic}: {held:,} of {len(values):,} records in the topic "
            f"({left} still queued)"
        )
    return elapsed


#: How Java's ``String.valueOf`` renders a BYTES value: ``byte[]``'s ``toString``, the class
#: name and the array's identity hash code, which differs between any two JVM runs (kconnect
#: writes a made-up one). Compared as ``[B@<hash>``.
_BYTE_ARRAY = re.compile(rb"\[B@[0-9a-f]+")


def _normal(line: bytes) -> bytes:
    return _BYTE_ARRAY.sub(b"[B@<hash>", line) if b"[B@" in line else line


def line_digests(path: Path) -> Counter[bytes]:
    """The file's lines (byte arrays' identity hashes masked) as a multiset of digests:
    comparing two of them is comparing the sorted lists of lines, without holding hundreds of
    MB of lines twice."""
    got: Counter[bytes] = Counter()
    with path.open("rb") as f:
        for line in f:
            got[hashlib.blake2b(_normal(line), digest_size=16).digest()] += 1
    return got


def lines_with(path: Path, digests: set[bytes], limit: int) -> list[bytes]:
    """Up to ``limit`` lines of the file (masked as ``line_digests`` does) whose digest is in
    ``digests``."""
    out: list[bytes] = []
    with path.open("rb") as f:
        for line in f:
            line = _normal(line)
            if hashlib.blake2b(line, digest_size=16).digest() in digests:
                out.append(line.rstrip(b"\n"))
                if len(out) >= limit:
                    break
    return out


def compare_outputs(kconnect_out: Path, java_out: Path) -> str:
    """``lines identical: yes``, or how many lines differ, with three examples."""
    k, j = line_digests(kconnect_out), line_digests(java_out)
    if k == j:
        with java_out.open("rb") as f:
            masked = sum(b"[B@" in line for line in f)
        note = f", byte arrays' identity hashes masked in {masked:,}" if masked else ""
        return f"lines identical: yes ({sum(k.values()):,} lines{note})"
    only_k, only_j = k - j, j - k
    report = [
        f"lines identical: NO -- {sum(only_k.values()):,} of kconnect's {sum(k.values()):,} "
        f"lines are not in Java's output, {sum(only_j.values()):,} of Java's "
        f"{sum(j.values()):,} not in kconnect's"
    ]
    # The sorted differing lines side by side: records of neighbouring keys pair up, as in
    # a diff of the two sorted files.
    ks = sorted(lines_with(kconnect_out, set(only_k), 1000))[:3]
    js = sorted(lines_with(java_out, set(only_j), 1000))[:3]
    for n in range(max(len(ks), len(js))):
        a = ks[n] if n < len(ks) else b""
        b = js[n] if n < len(js) else b""
        ca, cb, at = around_difference(a, b)
        report += [
            f"  example {n + 1} (first difference at byte {at}):",
            f"    kconnect: {ca}",
            f"    java:     {cb}",
        ]
    return "\n".join(report)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--records", type=int, default=600_000, help="records in the topic")
    ap.add_argument("--shape", default="customer", help="a workloads.SHAPES name (customer)")
    group = ap.add_mutually_exclusive_group()
    group.add_argument(
        "--chain",
        default=None,
        help="a chain of workloads.chains(shape): cleanup (the default; SINK_CHAIN on the "
        "customer shape), routing, unwrap",
    )
    group.add_argument("--no-chain", action="store_true", help="no transformations")
    ap.add_argument("--tasks", type=int, default=2, help="the sink's tasks.max (2)")
    ap.add_argument("--only", choices=["kconnect", "java"], default=None, help="one runtime")
    ap.add_argument(
        "--repeat", type=int, default=1, help="interleaved rounds: medians and ranges (1)"
    )
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    ap.add_argument("--seed", type=int, default=1, help="the workload generator's seed (1)")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.tasks < 1 or args.records < 1:
        ap.error("--repeat, --tasks and --records must be at least 1")

    import workloads

    if args.shape not in workloads.SHAPES:
        ap.error(f"--shape: one of {', '.join(workloads.SHAPES)}")
    label, chain = resolve_chain(args.shape, args.chain, args.no_chain)

    from kconnect import _hot_path
    from kconnect.kafka.tools.admin_ping import create_topic, delete_topics
    from kconnect.testing.services import ensure_kafka

    bootstrap = ensure_kafka()
    schemas = "true" if workloads.SHAPES[args.shape].schemas_enable else "false"
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    print(
        f"shape {args.shape}, {args.records:,} records, chain {label}: {chain_types(chain)}; "
        f"FileStreamSink tasks.max={args.tasks}; JsonConverter schemas.enable={schemas}; "
        f"kconnect hot path: {_hot_path.describe()}",
        flush=True,
    )
    topic = f"bench-sink-{args.shape}-{uuid.uuid4().hex[:8]}"
    t0 = time.monotonic()
    keys, values = workloads.encoded(args.shape, args.records, args.seed)
    generated = time.monotonic() - t0
    size = sum(len(v or b"") + len(k or b"") for k, v in zip(keys, values, strict=True))
    create_topic(bootstrap, topic, partitions=2)
    rounds: list[dict[str, WorkerRun]] = []
    verdicts: list[str] = []
    try:
        fill_s = fill_topic(bootstrap, topic, keys, values)
        del keys, values
        print(
            f"filled {topic}: {args.records:,} records, {size / 2**20:,.0f} MiB "
            f"({size / args.records:,.0f} bytes a record), generated in {generated:.1f} s, "
            f"produced in {fill_s:.1f} s ({args.records / fill_s:,.0f} records/s)",
            flush=True,
        )
        worker_props = {
            "bootstrap.servers": bootstrap,
            "key.converter": JSON,
            "value.converter": JSON,
            "key.converter.schemas.enable": schemas,
            "value.converter.schemas.enable": schemas,
        }
        with tempfile.TemporaryDirectory(prefix="kconnect-bench-sink-") as tmp:
            work = Path(tmp)
            for round_no in range(args.repeat):
                if args.repeat > 1:
                    print(f"round {round_no + 1} of {args.repeat}", flush=True)
                # the runtimes take turns going first, so neither always meets a warmer
                # broker and page cache
                order = runtimes if round_no % 2 == 0 else runtimes[::-1]
                results: dict[str, WorkerRun] = {}
                outputs: dict[str, Path] = {}
                for rt in order:
                    run_id = f"{rt}-{round_no}-{uuid.uuid4().hex[:8]}"
                    out = work / f"{run_id}.out"
                    print(f"running {rt}...", flush=True)
                    results[rt] = run_standalone(
                        rt,
                        {
                            **worker_props,
                            "offset.storage.file.filename": str(work / f"{run_id}.offsets"),
                        },
                        [
                            {
                                "name": f"sink-{run_id}",
                                "connector.class": "FileStreamSink",
                                "tasks.max": str(args.tasks),
                                "file": str(out),
                                "topics": topic,
                                **chain,
                            }
                        ],
                        work,
                        run_id,
                        LineCounter(out),
                        args.records,
                        args.timeout,
                    )
                    outputs[rt] = out
                rounds.append(results)
                if len(outputs) == 2:
                    verdict = compare_outputs(outputs["kconnect"], outputs["java"])
                    verdicts.append(verdict)
                    print(verdict, flush=True)
                for out in outputs.values():
                    out.unlink(missing_ok=True)  # hundreds of MB each
    finally:
        delete_topics(bootstrap, [topic])

    print()
    print(
        f"{args.shape} x {args.records:,} -> JsonConverter -> {label} ({chain_types(chain)}) "
        f"-> FileStreamSink, tasks.max={args.tasks}"
    )
    print_runs(rounds, runtimes, f"{args.shape}, {label}")
    if len(runtimes) == 2:
        print("goals: throughput >= 2, CPU-µs/rec <= 0.5, peak RSS <= 0.5")
        same = sum(v.startswith("lines identical: yes") for v in verdicts)
        print(
            "lines identical: yes"
            if same == len(verdicts)
            else f"lines identical: NO in {len(verdicts) - same} of {len(verdicts)} rounds"
        )
    if args.repeat > 1:
        print(f"medians of {args.repeat} interleaved rounds; ranges are per round")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
