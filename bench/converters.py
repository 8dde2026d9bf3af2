"""JsonConverter throughput: kconnect's batch API vs Apache Kafka's JsonConverter, in one run.

    python bench/converters.py [--records N]

Both sides convert the same N records of the seed document's ``table01`` struct (id INT32,
user_id and item optional STRING) with ``schemas.enable=true``: encode (fromConnectData) and
decode (toConnectData). The Java side (``bench/java/ConverterBench.java``, compiled with javac
against the jars resolved from Maven Central) warms the JIT up before timing. When
``kconnect.transforms.value_to_key`` is importable, the ValueToKey(user_id) + ExtractField$Key
chain is timed too, against Kafka's classes from ``connect-transforms``: kconnect's through
``TransformationChain.apply_batch`` (what the worker calls) over 10,000-record batches of
SourceRecords built before timing, Java's ``apply`` calls over the same records built before
timing (best of three rounds).
Both sides run as a worker does: kconnect with the worker's GC settings
(``kconnect.runtime.gc_tuning``, applied after the inputs are built), on the hot path
``kconnect._hot_path`` picked (printed; ``KCONNECT_NATIVE=0`` for the pure-Python one).
Prints records/s for each and the kconnect/Java ratio. Timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table

from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct
from kconnect.converters.json_converter import JsonConverter
from kconnect.local import maven
from kconnect.local.paths import cache_dir
from kconnect.runtime.gc_tuning import tune_for_worker
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationStage

JAVA_SRC = Path(__file__).resolve().parent / "java" / "ConverterBench.java"


def java_bench(records: int, chain: bool) -> dict[str, float]:
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
        subprocess.run(
            ["javac", "-nowarn", "-cp", cp, "-d", str(out), str(JAVA_SRC)],
            check=True,
            capture_output=True,
        )
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
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def python_bench(n: int, chain: bool) -> dict[str, float]:
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
        for i in range(n)
    ]
    conv = JsonConverter()
    conv.configure({}, False)
    batch = 10_000  # what a task's poll() typically hands over
    pairs = [(schema, v) for v in values]
    records: list[list[SourceRecord]] = []
    if chain:
        for i in range(0, n, batch):
            records.append(
                [
                    SourceRecord(None, None, "t", None, None, None, schema, v)
                    for v in values[i : i + batch]
                ]
            )
    tune_for_worker()
    # compile the schema's codecs and learn its text before timing
    conv.to_connect_batch("t", conv.from_connect_batch("t", pairs[:batch]))
    t0 = time.perf_counter()
    encoded: list[bytes | None] = []
    for i in range(0, n, batch):
        encoded.extend(conv.from_connect_batch("t", pairs[i : i + batch]))
    t1 = time.perf_counter()
    for i in range(0, n, batch):
        conv.to_connect_batch("t", encoded[i : i + batch])
    t2 = time.perf_counter()
    result = {"encode": n / (t1 - t0), "decode": n / (t2 - t1)}
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
        tchain.apply_batch(records[0])
        t3 = time.perf_counter()
        for b in records:
            tchain.apply_batch(b)
        t4 = time.perf_counter()
        result["chain"] = n / (t4 - t3)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    args = ap.parse_args()
    try:
        import kconnect.transforms.value_to_key  # noqa: F401

        chain = True
    except ImportError:
        chain = False
    py = python_bench(args.records, chain)
    java = java_bench(args.records, chain)
    rows = []
    for key, label in (
        ("encode", "JsonConverter encode (fromConnectData)"),
        ("decode", "JsonConverter decode (toConnectData)"),
        ("chain", "ValueToKey + ExtractField$Key"),
    ):
        if key in py:
            rows.append(
                [label, f"{py[key]:,.0f}", f"{java[key]:,.0f}", f"{py[key] / java[key]:.2f}"]
            )
    print(
        f"records: {args.records:,}  (schemas.enable=true, struct table01 with 3 fields; "
        f"kconnect hot path: {_hot_path.describe()})"
    )
    print(table(["operation", "kconnect rec/s", "Java rec/s", "kconnect/Java"], rows))


if __name__ == "__main__":
    main()
