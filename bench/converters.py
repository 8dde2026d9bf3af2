"""JsonConverter throughput: kconnect's batch API vs Apache Kafka's JsonConverter, in one run.

    python bench/converters.py [--records N] [--repeat R]

Both sides convert the same N records of the seed document's ``table01`` struct (id INT32,
user_id and item optional STRING) with ``schemas.enable=true``: encode (fromConnectData) and
decode (toConnectData), in 10,000-record batches: the encode phase keeps each batch's output
until the next batch (as a worker does; keeping all N outputs measured the operating system's
first touch of N fresh pages more than the converter), the decode phase reads records encoded
before timing. The Java side (``bench/java/ConverterBench.java``, compiled with javac against
the jars resolved from Maven Central) warms up with 3 x 200,000 encodes and decodes before
timing, and the kconnect side does the same. When
``kconnect.transforms.value_to_key`` is importable, the ValueToKey(user_id) + ExtractField$Key
chain is timed too, against Kafka's classes from ``connect-transforms``: kconnect's through
``TransformationChain.apply_batch`` (what the worker calls) over 10,000-record batches of
SourceRecords built before timing, Java's ``apply`` calls over the same records built before
timing; each side reports its best of three rounds over all the records.
Both sides run as a worker does: kconnect with the worker's GC settings
(``kconnect.runtime.gc_tuning``, applied after the inputs are built), on the hot path
``kconnect._hot_path`` picked (printed; ``KCONNECT_NATIVE=0`` for the pure-Python one).
Prints, for each operation and both sides, records/s, CPU-µs per record and cores used (CPU
time of the converting process -- this Python process, or the whole JVM with its JIT compiler
and GC threads -- over the timed loop alone, ÷ records and ÷ wall time), and the kconnect/Java
ratios of records/s and of CPU-µs per record. The JVM counts CPU time in 10 ms ticks: use
--records 1000000 or more for CPU figures to better than a few percent. Timings are reported,
never asserted. Each round runs the kconnect side in a new Python process, as the Java side
runs in a new JVM; ``--repeat R`` runs R rounds and prints the medians, with each round's
kconnect/Java ratio (this machine's rates drift between runs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Interval, cpu_interval, table

from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct
from kconnect.converters.json_converter import JsonConverter
from kconnect.local import maven
from kconnect.local.paths import cache_dir
from kconnect.runtime.gc_tuning import tune_for_worker
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationStage

JAVA_SRC = Path(__file__).resolve().parent / "java" / "ConverterBench.java"


def java_bench(records: int, chain: bool) -> dict[str, Interval]:
    v = maven.KAFKA_VERSION
    cp_jars = maven.resolve_classpath(
        [f"org.apache.kafka:connect-json:{v}", f"org.apache.kafka:connect-transforms:{v}"],
        progress=print,
    )
    digest = hashlib.sha256(JAVA_SRC.read_bytes())
    for j in cp_jars:
        digest.update(str(j).encode())
    out = cache_dir() / "bench-java" / digest.hexdigest()[:16]
    cp = ":".join(str(j) for j in cp_jars)
    if not (out / "ConverterBench.class").is_file():
        out.mkdir(parents=True, exist_ok=True)
        javac = subprocess.run(
            ["javac", "-nowarn", "-cp", cp, "-d", str(out), str(JAVA_SRC)],
            capture_output=True,
            text=True,
        )
        if javac.returncode != 0:
            raise RuntimeError(f"javac {JAVA_SRC.name} failed:\n{javac.stdout}{javac.stderr}")
    done = subprocess.run(
        [
            maven.require_java(),
            "-cp",
            f"{out}:{cp}",
            "ConverterBench",
            str(records),
            str(chain).lower(),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        phase: Interval(float(got[f"{phase}_s"]), float(got[f"{phase}_cpu_s"]))
        for phase in ("encode", "decode", "chain")
        if phase in got
    }


def python_bench(records: int, chain: bool) -> dict[str, Interval]:
    schema = (
        SchemaBuilder.struct()
        .name("table01")
        .field("id", Schema.INT32_SCHEMA)
        .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
        .field("item", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    items = ["apple", "orange", "banana", "melon"]
    values = [
        Struct(schema).put("id", i).put("user_id", f"user0{i % 10}").put("item", items[i % 4])
        for i in range(records)
    ]
    conv = JsonConverter()
    conv.configure({}, False)
    batch = 10_000  # what a task's poll() typically hands over
    pairs = [(schema, v) for v in values]
    built: list[list[SourceRecord]] = []
    if chain:
        for i in range(0, records, batch):
            built.append(
                [
                    SourceRecord(None, None, "t", None, None, None, schema, v)
                    for v in values[i : i + batch]
                ]
            )
    # the records the decode phase reads, encoded before timing
    encoded: list[bytes | None] = []
    for i in range(0, records, batch):
        encoded.extend(conv.from_connect_batch("t", pairs[i : i + batch]))
    tune_for_worker()
    # The Java side's warm-up, done the same way here: it compiles the schema's codecs and
    # learns its text on the first batch; the rest lets the allocator settle as the JIT does.
    for _round in range(3):
        for i in range(0, min(records, 200_000), batch):
            conv.to_connect_batch("t", conv.from_connect_batch("t", pairs[i : i + batch]))
    # Each batch's output is kept until the next batch is converted, as a worker does (and
    # as the Java side does), not all of them.
    with cpu_interval() as enc:
        for i in range(0, records, batch):
            out = conv.from_connect_batch("t", pairs[i : i + batch])
    del out
    with cpu_interval() as dec:
        for i in range(0, records, batch):
            conv.to_connect_batch("t", encoded[i : i + batch])
    result = {"encode": enc[0], "decode": dec[0]}
    if chain:
        from kconnect.transforms.extract_field import ExtractFieldKey
        from kconnect.transforms.value_to_key import ValueToKey

        v2k = ValueToKey()
        v2k.configure({"fields": "user_id"})
        extract = ExtractFieldKey()
        extract.configure({"field": "user_id"})
        tchain = TransformationChain(
            [
                TransformationStage("v2k", "ValueToKey", v2k),
                TransformationStage("extract", "ExtractField$Key", extract),
            ]
        )
        tchain.apply_batch(built[0])
        best: Interval | None = None
        for _round in range(3):  # as the Java side: the best of three rounds
            with cpu_interval() as ch:
                for b in built:
                    tchain.apply_batch(b)
            if best is None or ch[0].wall_s < best.wall_s:
                best = ch[0]
        assert best is not None
        result["chain"] = best
    return result


def python_bench_fresh(records: int, chain: bool) -> dict[str, Interval]:
    """``python_bench`` in a new interpreter, as each Java round gets a new JVM: no round
    inherits the heap another one left behind."""
    done = subprocess.run(
        [sys.executable, __file__, "--records", str(records), "--kconnect-side"],
        check=True,
        capture_output=True,
        text=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: Interval(*v) for k, v in got.items() if chain or k != "chain"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--records", type=int, default=1_000_000, help="records per operation (default 1000000)"
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds, each with a new Python process and a new JVM: medians and per-round "
        "ranges (default 1)",
    )
    ap.add_argument("--kconnect-side", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    try:
        import kconnect.transforms.value_to_key  # noqa: F401

        chain = True
    except ImportError:
        chain = False
    if args.kconnect_side:  # one round of the kconnect side, for python_bench_fresh
        got = python_bench(args.records, chain)
        print(json.dumps({k: [v.wall_s, v.cpu_s] for k, v in got.items()}))
        return
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    n = args.records
    rounds: list[tuple[dict[str, Interval], dict[str, Interval]]] = []
    for round_no in range(1, args.repeat + 1):
        if args.repeat > 1:
            print(f"round {round_no} of {args.repeat}", flush=True)
        print(f"kconnect: building and converting {n:,} records...", flush=True)
        py = python_bench_fresh(n, chain)
        print(f"Java: compiling, warming up and converting {n:,} records...", flush=True)
        java = java_bench(n, chain)
        rounds.append((py, java))
    rows = []
    for key, label in (
        ("encode", "JsonConverter encode (fromConnectData)"),
        ("decode", "JsonConverter decode (toConnectData)"),
        ("chain", "ValueToKey + ExtractField$Key"),
    ):
        if key not in rounds[0][0]:
            continue
        k_rates = [n / py[key].wall_s for py, _ in rounds]
        j_rates = [n / java[key].wall_s for _, java in rounds]
        ratios = [k / j for k, j in zip(k_rates, j_rates, strict=True)]
        k_cpu = [py[key].cpu_us_per(n) for py, _ in rounds]
        j_cpu = [java[key].cpu_us_per(n) for _, java in rounds]
        cpu_ratios = [k / j for k, j in zip(k_cpu, j_cpu, strict=True) if j]
        row = [
            label,
            f"{median(k_rates):,.0f}",
            f"{median(j_rates):,.0f}",
            f"{median(ratios):.2f}",
            median(k_cpu),
            median(j_cpu),
            f"{median(cpu_ratios):.2f}" if cpu_ratios else "-",
            median([py[key].cores for py, _ in rounds]),
            median([java[key].cores for _, java in rounds]),
        ]
        if args.repeat > 1:
            row.append(f"{min(ratios):.2f}-{max(ratios):.2f}")
        rows.append(row)
    print()
    print(
        f"records: {n:,}  (schemas.enable=true, struct table01 with 3 fields; "
        f"kconnect hot path: {_hot_path.describe()})"
    )
    header = [
        "operation",
        "kconnect rec/s",
        "Java rec/s",
        "kconnect/Java",
        "kconnect CPU-µs/rec",
        "Java CPU-µs/rec",
        "CPU-µs kconnect/Java",
        "kconnect cores",
        "Java cores",
    ]
    if args.repeat > 1:
        header.append("kconnect/Java per round")
    print(table(header, rows))
    if args.repeat > 1:
        print(f"medians of {args.repeat} rounds (a new Python process and a new JVM each)")


if __name__ == "__main__":
    main()
