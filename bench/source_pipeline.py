"""FileStreamSource -> SMT chain -> JsonConverter -> topic: kconnect beside Kafka Connect.

A file of ``--records`` varied text lines (log lines and CSV rows of many values: names,
cities and messages in several scripts, emoji, quotes, backslashes and tabs; reproducible from
``--seed``) is read by a FileStreamSource, each line goes through ``workloads.SOURCE_CHAIN``
(HoistField, InsertField, Cast, TimestampConverter; ``--chain FILE`` takes the ``transforms``
properties from a ``.properties`` file instead, ``--no-chain`` none) and JsonConverter with ``schemas.enable=true`` into a topic. A ``kconnect standalone`` worker and
Apache Kafka Connect 4.1.2's ``ConnectStandalone`` each run it, on the same broker in the same
run, as a user runs them (``worker.properties connector.properties`` on the command line,
default worker settings but for the converters, which both get), each into its own topic.

FileStreamSource runs one task whatever ``tasks.max`` says, so ``--tasks N`` runs N
connectors, each on its own 1/N of the lines and its own one-partition topic.

``--java-connector`` gives both workers a ``plugin.path`` holding Kafka's own connect-file 4.1.2
jar and makes kconnect run that Java FileStreamSource in its Java plugin host
(``plugin.java.preferred=true``) instead of its built-in one: the same connector code on both
runtimes, kconnect doing the converting, transforming and producing around it.

For each worker it prints records/s (records / seconds from connector creation until the
topics' end offsets hold every record), over the same seconds the CPU-µs per record and the
cores used (CPU time of the worker's whole process tree / records, and / wall time; the
broker's CPU is not in it), the seconds until the first record arrived, start-up (process
start until the REST API answers) and peak RSS; then kconnect/Java ratios. The first
``--sample`` (1,000) records of each topic are compared byte for byte between the runtimes,
with the value of any field InsertField fills from the record's timestamp masked (a
FileStreamSource record's timestamp is the wall-clock time it was read, which differs between
any two runs) and the run's topic name replaced by ``<topic>`` (each run writes its own topic,
and InsertField's ``topic.field`` copies its name into every value).

    python bench/source_pipeline.py                      # 1,000,000 lines
    python bench/source_pipeline.py --records 50000 --repeat 1
    python bench/source_pipeline.py --repeat 3           # interleaved rounds: medians, ranges

``--repeat R`` runs R interleaved rounds (the runtimes alternate which goes first) and prints
medians and the per-round ranges of the ratios, never the best round. Timings are reported,
never asserted. Needs a broker (``KCONNECT_BOOTSTRAP_SERVERS`` or the local stack, started if
absent) and, for the Java side, Java 17+ and Maven.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from confluent_kafka import Consumer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import WorkerRun, around_difference, chain_types, print_runs, run_standalone

JSON = "org.apache.kafka.connect.json.JsonConverter"

_NAMES = [
    "José García", "Zoë Müller", "Łukasz Wójcik", "Søren Østergaard", "李雷", "王芳",
    "Ольга Иванова", "Chloé Dubois", "Αλέξανδρος Παπαδόπουλος", "محمد علي",
    "Björk Guðmundsdóttir", "Nguyễn Văn An", "Ngũgĩ wa Thiong'o", "Siobhán O'Brien",
    "Анна Смирнова", "田中 太郎", "Zoltán Kovács", "Ana Luísa Conceição", "Priya Raghavan",
    "John Smith", "Mary Johnson", "Ahmed Hassan", "Fatma Yılmaz", "Kim Min-jun",  # noqa: RUF001
]  # fmt: skip
_CITIES = [
    "São Paulo", "Zürich", "Kraków", "東京", "Reykjavík", "Montréal", "İstanbul", "Москва",
    "New York", "Ōsaka", "Malmö", "Düsseldorf", "Bogotá", "Hà Nội", "Αθήνα", "Lagos",
    "Nairobi", "Lima", "Québec", "Göteborg", "Toronto", "Sydney",
]  # fmt: skip
_LOGGERS = [
    "o.a.k.c.r.WorkerSinkTask", "o.a.k.c.r.WorkerSourceTask", "com.acme.orders.CheckoutService",
    "com.acme.orders.InventoryClient", "io.example.payments.Gateway", "io.example.auth.Session",
    "org.eclipse.jetty.server.Server", "c.z.hikari.pool.HikariPool",
]  # fmt: skip
_LEVELS = ["INFO"] * 12 + ["DEBUG"] * 5 + ["WARN"] * 3 + ["ERROR", "TRACE"]
_PATHS = ["/api/v1/orders", "/api/v1/orders/{id}", "/api/v2/customers/{id}/addresses",
          "/health", "/api/v1/cart/{id}/items", "/search?q=caf%C3%A9&page={n}"]  # fmt: skip
_REASONS = ['card "expired"', "insufficient funds", "3-D Secure failed — retry", "fraud check ⚠",
            "issuer unavailable"]  # fmt: skip
_PRODUCTS = ["Café au lait 250 g", "Crème brûlée set", "Überraschungsei", "Smørrebrød board",
             'Monitor 27" 4K', "Jalapeño sauce", "Niño's kite", "茶碗 (tea bowl)", "Tシャツ L",
             "Ёлочная игрушка", "Beer 🍺 6-pack", "Rocket 🚀 model"]  # fmt: skip


def _log_line(r: random.Random, i: int, at_ms: int) -> str:
    s, ms = divmod(at_ms, 1000)
    t = time.gmtime(s)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{ms:03d}Z"
    level = r.choice(_LEVELS)
    thread = r.choice(["main", f"task-thread-sink-{r.randint(0, 7)}", f"worker-{r.randint(1, 16)}",
                       f"kafka-producer-network-thread | producer-{r.randint(1, 4)}"])  # fmt: skip
    name = r.choice(_NAMES)
    kind = r.randrange(8)
    if kind == 0:
        region = r.choice(["eu", "us", "ap"])
        msg = f"Committing offsets for {r.randint(1, 50_000):,} records of topic 'orders-{region}'"
    elif kind == 1:
        user = name.split()[0].lower()
        email = f"{user}.{r.randint(1, 999)}@example.com"
        msg = f"User {name} <{email}> logged in from {r.choice(_CITIES)}"
    elif kind == 2:
        path = r.choice(_PATHS).format(id=r.randint(1, 10**7), n=r.randint(1, 40))
        method = r.choice(["GET", "POST", "PUT", "DELETE"])
        status = r.choice([200] * 8 + [201, 204, 400, 404, 500, 503])
        msg = f"{method} {path} took {r.expovariate(1 / 40):.1f} ms, status {status}"
    elif kind == 3:
        amount = f"{r.randint(1, 99_999) / 100:.2f} {r.choice(['EUR', 'USD', 'JPY', 'PLN'])}"
        msg = f'Payment of {amount} by {name} declined: "{r.choice(_REASONS)}"'
    elif kind == 4:
        msg = f"Cache miss for key {r.getrandbits(64):016x} in region\t{r.choice(_CITIES)}"
    elif kind == 5:
        where = f"C:\\apps\\svc-{r.randint(1, 20)}\\conf\\app.yaml"
        msg = f"Loaded config from {where} (took {r.randint(1, 900)} ms)"
    elif kind == 6:
        msg = (
            f"Deployed build {r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 200)} 🚀 by {name}"
        )
    else:
        item = f"{r.choice(_PRODUCTS)} x{r.randint(1, 12)}"
        msg = f"Order #{i} for {item} shipped to {r.choice(_CITIES)}"
    return f"{stamp} {level:<5} [{thread}] {r.choice(_LOGGERS)} - {msg}"


def _csv_line(r: random.Random, i: int, at_ms: int) -> str:
    s = at_ms // 1000
    day = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s))
    product = r.choice(_PRODUCTS).replace('"', '""')
    note = (
        ""
        if r.random() < 0.6
        else r.choice(["gift wrap", "leave at door", "fragile ⚠", "call before"])
    )
    return (
        f'{i},{r.choice(_NAMES)},"{r.choice(_CITIES)}","{product}",{r.randint(1, 12)},'
        f"{r.randint(50, 500_000) / 100:.2f},{r.choice(['true', 'false'])},{day},{note}"
    )


def input_lines(n: int, seed: int) -> Iterator[str]:
    """``n`` varied lines (about 70% log lines, 30% CSV rows), reproducible from ``seed``;
    none is empty or holds a line break (FileStreamSource would split it)."""
    r = random.Random(seed)
    at_ms = 1_717_200_000_000  # 2024-06-01, advancing a few ms a line
    for i in range(n):
        at_ms += r.randint(0, 40)
        yield (_log_line if r.random() < 0.7 else _csv_line)(r, i, at_ms)


def write_inputs(work: Path, records: int, files: int, seed: int) -> list[Path]:
    """The lines split over ``files`` files, each a contiguous share."""
    paths = [work / f"input-{i}.txt" for i in range(files)]
    lines = input_lines(records, seed)
    for n, path in enumerate(paths):
        with path.open("w", encoding="utf-8") as f:
            for _ in range(records // files + (n < records % files)):
                f.write(next(lines) + "\n")
    return paths


def resolve_chain(path: str | None, none: bool) -> tuple[str, dict[str, str]]:
    """(label, connector properties) of the chain the options pick. The shapes' named chains
    (``workloads.chains``) transform structured records, not a line of text: another chain for
    lines comes from a file."""
    import javaproperties
    import workloads

    if none:
        return "no chain", {}
    if path is None:
        return "SOURCE_CHAIN", dict(workloads.SOURCE_CHAIN)
    try:
        with open(path, encoding="utf-8") as f:
            props = dict(javaproperties.load(f))
    except OSError as e:
        raise SystemExit(f"--chain {path}: {e.strerror}") from None
    chain = {k: v for k, v in props.items() if k == "transforms" or k.startswith("transforms.")}
    if not chain.get("transforms"):
        raise SystemExit(f"--chain {path}: no 'transforms' property")
    return Path(path).name, chain


def timestamp_fields(chain: Mapping[str, str]) -> list[str]:
    """Fields an InsertField of the chain fills from the record's timestamp."""
    aliases = [a.strip() for a in chain.get("transforms", "").split(",") if a.strip()]
    return [
        chain[f"transforms.{a}.timestamp.field"]
        for a in aliases
        if "InsertField" in chain[f"transforms.{a}.type"]
        and chain.get(f"transforms.{a}.timestamp.field")
    ]


def masker(fields: Sequence[str]) -> Callable[[bytes], bytes]:
    """Replaces the value of each of ``fields`` in a JSON document's bytes with ``"<masked>"``:
    a number, a string or null after ``"field":``. Only a member name is followed by ``":``
    (inside a string a quote is escaped), so field names in the schema part stay as they are."""
    if not fields:
        return lambda b: b
    pattern = re.compile(
        rb'("(?:'
        + b"|".join(re.escape(f.encode()) for f in fields)
        + rb')":)(?:-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*"|null)'
    )
    return lambda b: pattern.sub(rb'\1"<masked>"', b)


def first_records(bootstrap: str, topic: str, n: int) -> list[tuple[bytes | None, bytes | None]]:
    """Key and value of the first ``n`` records of the topic's partition 0."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-sample-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    out: list[tuple[bytes | None, bytes | None]] = []
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 60
        while len(out) < n and time.monotonic() < deadline:
            for m in c.consume(min(500, n - len(out)), 1.0):
                if m.error() is None:
                    out.append((m.key(), m.value()))
    finally:
        c.close()
    return out


def compare_samples(
    kconnect: Sequence[Sequence[tuple[bytes | None, bytes | None]]],
    java: Sequence[Sequence[tuple[bytes | None, bytes | None]]],
    masked: Sequence[str],
) -> str:
    """``values identical: yes``, or how many records differ, with three examples."""
    mask = masker(masked)
    total = differ = 0
    examples: list[tuple[bytes, bytes]] = []
    for ks, js in zip(kconnect, java, strict=True):
        if len(ks) != len(js):
            return f"values identical: NO -- sampled {len(ks)} kconnect and {len(js)} Java records"
        for (kk, kv), (jk, jv) in zip(ks, js, strict=True):
            total += 1
            a = b"key=" + (kk or b"<null>") + b" value=" + mask(kv or b"<null>")
            b = b"key=" + (jk or b"<null>") + b" value=" + mask(jv or b"<null>")
            if a != b:
                differ += 1
                if len(examples) < 3:
                    examples.append((a, b))
    note = f"; {', '.join(masked)} masked: the record's read time" if masked else ""
    if not differ:
        return f"values identical: yes ({total:,} records, keys and values byte for byte{note})"
    report = [
        f"values identical: NO -- {differ:,} of {total:,} sampled records differ ({note[2:] or 'nothing masked'})"
    ]
    for n, (a, b) in enumerate(examples):
        ca, cb, at = around_difference(a, b)
        report += [
            f"  example {n + 1} (first difference at byte {at}):",
            f"    kconnect: {ca}",
            f"    java:     {cb}",
        ]
    return "\n".join(report)


def end_offsets(consumer: Consumer, topics: Sequence[str]) -> Callable[[], int]:
    """``progress()`` for ``run_standalone``: the records the topics hold so far."""

    def held() -> int:
        got = 0
        for t in topics:
            try:
                got += int(consumer.get_watermark_offsets(TopicPartition(t, 0), 5)[1])
            except Exception:  # not answered in time: nothing yet, asked again next turn
                pass
        return got

    return held


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--records", type=int, default=1_000_000, help="lines in the input")
    group = ap.add_mutually_exclusive_group()
    group.add_argument(
        "--chain",
        default=None,
        metavar="FILE",
        help="a .properties file of transforms=... and transforms.<alias>.* properties",
    )
    group.add_argument("--no-chain", action="store_true", help="no transformations")
    ap.add_argument(
        "--tasks", type=int, default=1, help="FileStreamSource connectors, one task each (1)"
    )
    ap.add_argument("--only", choices=["kconnect", "java"], default=None, help="one runtime")
    ap.add_argument(
        "--java-connector",
        action="store_true",
        help="kconnect runs Kafka's FileStreamSource jar in its Java plugin host",
    )
    ap.add_argument(
        "--repeat", type=int, default=1, help="interleaved rounds: medians and ranges (1)"
    )
    ap.add_argument("--sample", type=int, default=1000, help="records compared per topic")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per run")
    ap.add_argument("--seed", type=int, default=1, help="the input generator's seed (1)")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.tasks < 1 or args.records < args.tasks:
        ap.error("--repeat and --tasks must be at least 1, --records at least --tasks")
    label, chain = resolve_chain(args.chain, args.no_chain)

    from kconnect import _hot_path
    from kconnect.kafka.tools.admin_ping import create_topic, delete_topics
    from kconnect.testing.services import ensure_kafka

    bootstrap = ensure_kafka()
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    masked = timestamp_fields(chain)
    print(
        f"{args.records:,} lines, chain {label}: {chain_types(chain)}; {args.tasks} "
        f"FileStreamSource connector(s); JsonConverter schemas.enable=true; "
        f"kconnect hot path: {_hot_path.describe()}",
        flush=True,
    )
    rounds: list[dict[str, WorkerRun]] = []
    verdicts: list[str] = []
    worker_props = {
        "bootstrap.servers": bootstrap,
        "key.converter": JSON,
        "value.converter": JSON,
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true",
    }
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-source-") as tmp:
        work = Path(tmp)
        if args.java_connector:
            from kconnect.testing.java import java_plugin_path

            plugins = java_plugin_path(work / "plugins", debezium=False)
            worker_props["plugin.path"] = str(plugins)
            worker_props["plugin.java.preferred"] = "true"
            print("kconnect runs Kafka's FileStreamSource jar in its Java plugin host", flush=True)
        t0 = time.monotonic()
        inputs = write_inputs(work, args.records, args.tasks, args.seed)
        size = sum(p.stat().st_size for p in inputs)
        print(
            f"wrote {size / 2**20:,.0f} MiB of input ({size / args.records:,.0f} bytes a line) "
            f"in {time.monotonic() - t0:.1f} s",
            flush=True,
        )
        for round_no in range(args.repeat):
            if args.repeat > 1:
                print(f"round {round_no + 1} of {args.repeat}", flush=True)
            order = runtimes if round_no % 2 == 0 else runtimes[::-1]
            results: dict[str, WorkerRun] = {}
            samples: dict[str, list[list[tuple[bytes | None, bytes | None]]]] = {}
            for rt in order:
                run_id = f"{rt}-{round_no}-{uuid.uuid4().hex[:8]}"
                topics = [f"bench-source-{run_id}-{i}" for i in range(args.tasks)]
                # Created up front: topic auto-creation is not what is measured.
                for t in topics:
                    create_topic(bootstrap, t, partitions=1)
                consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"b-{run_id}"})
                print(f"running {rt}...", flush=True)
                try:
                    results[rt] = run_standalone(
                        rt,
                        {
                            **worker_props,
                            "offset.storage.file.filename": str(work / f"{run_id}.offsets"),
                        },
                        [
                            {
                                "name": f"source-{run_id}-{i}",
                                "connector.class": "FileStreamSource",
                                "tasks.max": "1",
                                "file": str(inputs[i]),
                                "topic": topics[i],
                                **chain,
                            }
                            for i in range(args.tasks)
                        ],
                        work,
                        run_id,
                        end_offsets(consumer, topics),
                        args.records,
                        args.timeout,
                    )
                    # Each run writes its own topic, whose name InsertField's topic.field
                    # puts in every value: the name is replaced by "<topic>" for comparing.
                    samples[rt] = [
                        [
                            (k, v.replace(t.encode(), b"<topic>") if v else v)
                            for k, v in first_records(bootstrap, t, args.sample)
                        ]
                        for t in topics
                    ]
                finally:
                    consumer.close()
                    delete_topics(bootstrap, topics)  # hundreds of MB on the shared broker
            rounds.append(results)
            if len(samples) == 2:
                verdict = compare_samples(samples["kconnect"], samples["java"], masked)
                verdicts.append(verdict)
                print(verdict, flush=True)

    print()
    source = "FileStreamSource (Kafka's jar on both)" if args.java_connector else "FileStreamSource"
    print(
        f"{args.records:,} lines -> {source} x {args.tasks} -> {label} "
        f"({chain_types(chain)}) -> JsonConverter -> topic"
    )
    print_runs(rounds, runtimes, f"source, {label}")
    if len(runtimes) == 2:
        print("goals: throughput >= 2, peak RSS <= 0.5")
        same = sum(v.startswith("values identical: yes") for v in verdicts)
        print(
            f"values identical: yes (first {args.sample:,} records of each topic)"
            if same == len(verdicts)
            else f"values identical: NO in {len(verdicts) - same} of {len(verdicts)} rounds"
        )
    if args.repeat > 1:
        print(f"medians of {args.repeat} interleaved rounds; ranges are per round")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
