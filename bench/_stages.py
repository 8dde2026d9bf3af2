"""The machinery of the per-stage benches (``converters.py``, ``smt.py``,
``registry_converters.py``): kconnect beside Java.

A bench describes *cases*: one shape's records (keys and values as bytes, timestamps), the key
and value converters, and the phases to time -- ``decode``, ``encode``, ``render``,
``smt:<name>`` and ``chain:<name>`` with their connector properties. Each case runs, per round,
in a new Python process (``python bench/_stages.py SPEC``, which times the phases through
``_record_path``) and a new JVM (``bench/java/RecordBench.java``), from the same records file and
the same JSON spec, so both sides do the same work:

* the records are decoded into SinkRecords (topic ``bench``, partition = offset % 2) before
  timing; the ``decode`` phase decodes them again, every other phase reads those;
* every phase runs over the first ``warmup`` records, then ``rounds`` times over all of them in
  ``batch``-record batches, each batch's output kept until the next one replaces it;
* per round: wall seconds, and the CPU seconds of the whole process (``time.process_time``;
  Java's ``getProcessCpuTime``: JIT and GC threads included) over the same span;
* the kconnect side runs with the worker's GC settings, applied after its inputs are built.

In the first round both sides also write what each phase produced for the first
``check_records`` records (records described in full -- schemas, ``String.valueOf`` of keys and
values, headers --, encoded bytes, rendered lines); the bench compares them and reports the
mismatches, which are differences between kconnect and Java to fix, not noise.

Results are medians over all rounds (never the best), with the range of the per-round
kconnect/Java ratios. The JVM runs with connect-standalone's default heap and GC options.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REFERENCE_CONNECT_VERSION, Interval, cpu_interval, table

JAVA_SRC = Path(__file__).resolve().parent / "java" / "RecordBench.java"
TOPIC = "bench"
#: connect-standalone.sh's KAFKA_HEAP_OPTS and kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS
JVM_OPTS = [
    "-Xms256M", "-Xmx2G", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true",
]  # fmt: skip
# java.util.Date.toString (Timestamp, Date, Time values) prints in the process's zone: both
# sides run in UTC so the texts compare
ENV = {**os.environ, "TZ": "UTC"}
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"


@dataclass
class Phase:
    name: str  # decode, encode, render, smt:<name>, chain:<name>
    label: str  # what the table prints
    props: dict[str, str] | None = None


@dataclass
class JavaSide:
    """How a case runs on the JVM when RecordBench's own classpath is not enough: a function
    giving (classes directory, classpath) with RecordBench and the case's classes compiled,
    and the Java class standing in for each kconnect converter class the case names, and
    settings only the Java converters get (``key_config``, ``value_config``)."""

    classes: Callable[[], tuple[Path, str]]
    converters: dict[str, str] = field(default_factory=dict)
    key_config: dict[str, str] = field(default_factory=dict)
    value_config: dict[str, str] = field(default_factory=dict)


@dataclass
class Case:
    """One shape's records through one pair of converters, and the phases timed on them."""

    shape: str
    keys: list[bytes | None]
    values: list[bytes | None]
    timestamps: list[int]
    key_converter: tuple[str, dict[str, str]]
    value_converter: tuple[str, dict[str, str]]
    phases: list[Phase]
    label: str = ""
    java: JavaSide | None = None
    #: encoded outputs compared with their 4-byte schema ids masked (a schema registry's wire
    #: format): for a Java side that writes the id its records were read with, where kconnect
    #: registers the schema it derives from the decoded records, which may be given a new id
    mask_schema_ids: bool = False


@dataclass
class Side:
    """One runtime's run of a case: per phase its rounds (or its error), fallbacks, outputs."""

    rounds: dict[str, list[Interval]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    dumps: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Options:
    records: int
    repeat: int
    rounds: int
    warmup: int
    batch: int
    check_records: int


def add_options(ap: argparse.ArgumentParser, shapes: Iterable[str]) -> None:
    """The options both per-stage benches take."""
    ap.add_argument("--shapes", default=",".join(shapes), help="comma-separated (default: all)")
    ap.add_argument("--records", type=int, default=200_000, help="records per shape (200000)")
    ap.add_argument(
        "--repeat", type=int, default=1,
        help="rounds, each with a new Python process and a new JVM per case; medians and the "
        "per-round ratio ranges are printed (1)",
    )  # fmt: skip
    ap.add_argument("--rounds", type=int, default=1, help="timed passes per process (1)")
    ap.add_argument("--warmup", type=int, default=50_000, help="records run before timing (50000)")
    ap.add_argument("--batch", type=int, default=10_000, help="records per batch (10000)")
    ap.add_argument("--check-records", type=int, default=300, help="records compared (300)")
    ap.add_argument("--only", default="", help="only stages whose name or label contains this text")
    ap.add_argument("--seed", type=int, default=1, help="the workloads' seed (1)")


def options(args: argparse.Namespace) -> Options:
    if args.repeat < 1 or args.rounds < 1 or args.records < 1:
        raise SystemExit("--repeat, --rounds and --records must be at least 1")
    return Options(
        args.records, args.repeat, args.rounds, args.warmup, args.batch, args.check_records
    )


def shapes_of(args: argparse.Namespace) -> list[str]:
    import workloads

    chosen = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in workloads.SHAPES]
    if unknown:
        raise SystemExit(
            f"--shapes: unknown {', '.join(unknown)}; one of {', '.join(workloads.SHAPES)}"
        )
    return chosen


# -- running a case ------------------------------------------------------------------------


def java_classes(artifacts: Sequence[str] = (), sources: Sequence[Path] = ()) -> tuple[Path, str]:
    """RecordBench (and ``sources``) compiled, once per sources and classpath, and the
    classpath to run it: Kafka Connect's jars plus ``artifacts`` (Maven coordinates)."""
    from kconnect.local import maven
    from kconnect.local.paths import cache_dir

    jars = maven.resolve_classpath(
        [
            f"org.apache.kafka:connect-json:{REFERENCE_CONNECT_VERSION}",
            f"org.apache.kafka:connect-transforms:{REFERENCE_CONNECT_VERSION}",
            # ByteArrayConverter and the number converters live in connect-runtime
            f"org.apache.kafka:connect-runtime:{REFERENCE_CONNECT_VERSION}",
            *artifacts,
        ],
        progress=print,
    )
    cp = os.pathsep.join(str(j) for j in jars)
    files = [JAVA_SRC, *sources]
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files) + cp.encode())
    out = cache_dir() / "bench-java" / digest.hexdigest()[:16]
    if not (out / "RecordBench.class").is_file():
        out.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["javac", "-nowarn", "-cp", cp, "-d", str(out), *(str(f) for f in files)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"javac {JAVA_SRC.name} failed:\n{done.stdout}{done.stderr}")
    return out, cp


def _spec(
    case: Case, records: Path, opts: Options, dump: Path | None, runtime: str
) -> dict[str, Any]:
    java = case.java if runtime == "java" else None
    names = java.converters if java is not None else {}
    key_class, value_class = case.key_converter[0], case.value_converter[0]
    return {
        "records": str(records),
        "key_converter": {
            "class": names.get(key_class, key_class),
            "config": {**case.key_converter[1], **(java.key_config if java else {})},
        },
        "value_converter": {
            "class": names.get(value_class, value_class),
            "config": {**case.value_converter[1], **(java.value_config if java else {})},
        },
        "phases": [{"name": p.name, "props": p.props or {}} for p in case.phases],
        "batch": opts.batch,
        "rounds": opts.rounds,
        "warmup": opts.warmup,
        "dump": None if dump is None else str(dump),
        "dump_records": opts.check_records,
    }


def _side(stdout: str, dump: Path | None) -> Side:
    got = json.loads(stdout.strip().splitlines()[-1])
    side = Side()
    for name, phase in got["phases"].items():
        if "error" in phase:
            side.errors[name] = phase["error"]
        else:
            side.rounds[name] = [Interval(w, c) for w, c in phase["rounds"]]
        if "fallbacks" in phase:
            side.fallbacks[name] = phase["fallbacks"]
    if dump is not None and dump.is_file():
        side.dumps = json.loads(dump.read_text(encoding="utf-8"))
    return side


def run_case(
    case: Case, work: Path, opts: Options, check: bool, java_first: bool
) -> tuple[Side, Side]:
    """One round of a case: (kconnect, Java), each in a new process; with ``check``, their dumps."""
    import workloads

    records = work / "records.bin"
    workloads.write_records_file(records, case.keys, case.values, case.timestamps)
    runs: dict[str, Side] = {}
    for runtime in ("java", "kconnect") if java_first else ("kconnect", "java"):
        dump = work / f"{runtime}-dump.json" if check else None
        spec_path = work / f"{runtime}-spec.json"
        spec = _spec(case, records, opts, dump, runtime)
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        if runtime == "java":
            classes, cp = (java_classes if case.java is None else case.java.classes)()
            from kconnect.local import maven

            cmd = [maven.require_java(), *JVM_OPTS, "-Duser.timezone=UTC", "-cp",
                   f"{classes}{os.pathsep}{cp}", "RecordBench", str(spec_path)]  # fmt: skip
        else:
            cmd = [sys.executable, str(Path(__file__).resolve()), str(spec_path)]
        done = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
        if done.returncode != 0:
            raise RuntimeError(
                f"{runtime} side of {case.shape} {case.label} failed ({done.returncode}):\n"
                f"{done.stderr[-3000:]}"
            )
        runs[runtime] = _side(done.stdout, dump)
    return runs["kconnect"], runs["java"]


# -- the kconnect side (this module run as a script) ------------------------------------------


def kconnect_side(spec_path: Path) -> None:
    """Time the spec's phases through ``_record_path``; print the result line, write the dump."""
    import _record_path as rp
    import workloads

    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    keys, values, stamps = workloads.read_records_file(Path(spec["records"]))
    n, size = len(keys), int(spec["batch"])
    conv = rp.converters(
        (spec["key_converter"]["class"], spec["key_converter"]["config"]),
        (spec["value_converter"]["class"], spec["value_converter"]["config"]),
    )
    starts = range(0, n, size)

    def msgs(s: int, end: int | None = None) -> list[Any]:
        e = min(n, s + size) if end is None else end
        return rp.messages(TOPIC, keys[s:e], values[s:e], stamps[s:e], s)

    # what the consumer hands the task loop, and the records the task loop converted
    consumed = [msgs(s) for s in starts]
    decoded = [rp.decode(conv, m) for m in consumed]
    rp.tune_for_worker()  # as a worker does once started: after the inputs are built
    warm = [i for i, s in enumerate(starts) if s < min(n, int(spec["warmup"]))]
    check = min(n, int(spec["dump_records"]))
    out: dict[str, Any] = {}
    dumps: dict[str, list[str]] = {}
    for phase in spec["phases"]:
        name = phase["name"]
        chain = None
        try:
            # a chain changes a native batch in place: each round runs on copies made first
            inputs = list(decoded)
            step: Callable[[int], Any]
            if name == "decode":
                step = lambda i: rp.decode(conv, consumed[i])  # noqa: E731
            elif name == "encode":
                step = lambda i: rp.encode(conv, TOPIC, decoded[i])  # noqa: E731
            elif name == "render":
                step = lambda i: rp.render(decoded[i])  # noqa: E731
            else:
                chain = rp.chain(phase["props"])
                step = lambda i, c=chain, b=inputs: rp.transform(c, b[i])  # type: ignore[misc]  # noqa: E731
            if chain is not None:
                inputs[:] = [rp.fresh(b) for b in decoded]
            for i in warm:
                step(i)
            rounds = []
            fallbacks = 0
            for _ in range(int(spec["rounds"])):
                fallbacks = 0
                result = None
                if chain is not None:
                    inputs[:] = [rp.fresh(b) for b in decoded]
                with cpu_interval() as got:
                    for i in range(len(starts)):
                        result = step(i)
                        fallbacks += rp.fallbacks(result)
                del result
                rounds.append([got[0].wall_s, got[0].cpu_s])
            del inputs
            out[name] = {"rounds": rounds, "fallbacks": fallbacks}
            if spec["dump"]:
                first = rp.decode(conv, msgs(0, check))
                if name == "decode":
                    dumps[name] = rp.describe(first)
                elif name == "encode":
                    dumps[name] = rp.dump_encoded(rp.encode(conv, TOPIC, first))
                elif name == "render":
                    dumps[name] = rp.rendered_lines(rp.render(first))
                else:
                    assert chain is not None
                    dumps[name] = rp.describe(rp.transform(chain, first))
        except Exception as e:
            out[name] = {"error": f"{type(e).__name__}: {e}"}
        finally:
            if chain is not None:
                chain.close()
    if spec["dump"]:
        Path(spec["dump"]).write_text(json.dumps(dumps, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({"records": n, "phases": out, "hot_path": rp.hot_path()}))


# -- comparing and reporting ---------------------------------------------------------------

_IDENTITY = re.compile(r"\[B@[0-9a-f]+")


def _normal(text: str) -> str:
    """``byte[]``'s toString is an identity hash (``[B@1b6d3586``) in either runtime."""
    return _IDENTITY.sub("[B@…", text)


@dataclass
class Mismatch:
    where: str
    phase: str
    index: int
    kconnect: str
    java: str


def compare(where: str, phase: str, kconnect: Sequence[str], java: Sequence[str]) -> list[Mismatch]:
    """The outputs that differ (``byte[]`` identities aside), and a count that differs."""
    out = []
    for i, (k, j) in enumerate(zip(kconnect, java, strict=False)):
        if _normal(k) != _normal(j):
            out.append(Mismatch(where, phase, i, k, j))
    if len(kconnect) != len(java):
        out.append(Mismatch(where, phase, -1, f"{len(kconnect)} outputs", f"{len(java)} outputs"))
    return out


def _show(text: str, other: str, phase: str) -> str:
    """The text around the first difference; encoded bytes decoded for reading (as UTF-8 when
    they are text, else as hex: Avro and Protobuf are binary)."""
    if phase == "encode":
        import base64

        def part(p: str) -> str:
            if p == "null":
                return p
            raw = base64.b64decode(p)
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return raw.hex(" ")

        def readable(t: str) -> str:
            return "\t".join(part(p) for p in t.split("\t"))

        text, other = readable(text), readable(other)
    at = next((i for i, (a, b) in enumerate(zip(text, other, strict=False)) if a != b), 0)
    lo = max(0, at - 80)
    return ("…" if lo else "") + text[lo : at + 160] + ("…" if at + 160 < len(text) else "")


@dataclass
class Row:
    """One shape x stage over all rounds."""

    shape: str
    label: str
    phase: str
    records: int
    kconnect: list[Interval] = field(default_factory=list)
    java: list[Interval] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # per round, kconnect/Java records/s
    fallbacks: int | None = None
    mismatches: int | None = None
    error: str = ""


def run_bench(
    cases_of: Callable[[str], list[Case]],
    shapes: Sequence[str],
    opts: Options,
    only: str,
    title: str,
) -> int:
    """Every case of every shape, ``opts.repeat`` rounds; prints the table, the mismatches and
    errors; returns 1 if there were mismatches or errors, else 0."""
    rows: dict[tuple[str, str, str], Row] = {}
    mismatches: list[Mismatch] = []
    with tempfile.TemporaryDirectory(prefix="kconnect-stages-") as tmp:
        work = Path(tmp)
        for shape in shapes:
            print(f"{shape}: generating {opts.records:,} records...", flush=True)
            cases = cases_of(shape)
            for case in cases:
                case.phases = [p for p in case.phases if only in p.name or only in p.label]
            for case in (c for c in cases if c.phases):
                for r in range(opts.repeat):
                    check = r == 0 and opts.check_records > 0
                    print(f"  {case.label or shape}: round {r + 1} of {opts.repeat} "
                          f"({len(case.phases)} phases)", flush=True)  # fmt: skip
                    k, j = run_case(case, work, opts, check, java_first=r % 2 == 1)
                    mismatches += _collect(rows, case, k, j, check)
            del cases
    print()
    print(title)
    print(_table(list(rows.values()), opts))
    failed = [row for row in rows.values() if row.error]
    if failed:
        print()
        print("errors (stage not timed):")
        for row in failed:
            print(f"  {row.shape} {row.label}: {row.error[:400]}")
    if mismatches:
        print()
        print(f"{len(mismatches)} outputs differ; examples (kconnect, then Java):")
        seen: set[str] = set()
        shown = 0
        for m in mismatches:
            if m.where in seen or shown >= 3:
                continue
            seen.add(m.where)
            shown += 1
            print(f"  {m.where}, record {m.index}:")
            print(f"    kconnect: {_show(m.kconnect, m.java, m.phase)}")
            print(f"    Java:     {_show(m.java, m.kconnect, m.phase)}")
        others = sorted({m.where for m in mismatches} - seen)
        if others:
            print(f"  also differing: {', '.join(others)}")
    return 1 if failed or mismatches else 0


def _collect(
    rows: dict[tuple[str, str, str], Row], case: Case, k: Side, j: Side, check: bool
) -> list[Mismatch]:
    """Add one round of a case to its rows; its mismatches (with ``check``)."""
    n = len(case.values)
    found: list[Mismatch] = []
    for p in case.phases:
        row = rows.setdefault((case.shape, case.label, p.name), Row(case.shape, p.label, p.name, n))
        err = k.errors.get(p.name) or j.errors.get(p.name)
        if err:
            row.error = f"{'kconnect' if p.name in k.errors else 'Java'}: {err}"
            continue
        kr, jr = k.rounds[p.name], j.rounds[p.name]
        row.kconnect += kr
        row.java += jr
        row.ratios.append(median(n / x.wall_s for x in kr) / median(n / x.wall_s for x in jr))
        row.fallbacks = k.fallbacks.get(p.name)
        if check:
            where = f"{case.shape} {p.label}"
            if p.name in k.dumps and p.name in j.dumps:
                kd, jd = k.dumps[p.name], j.dumps[p.name]
                if p.name == "encode" and case.mask_schema_ids:
                    kd, jd = [_mask_ids(t) for t in kd], [_mask_ids(t) for t in jd]
                got = compare(where, p.name, kd, jd)
            else:
                got = [Mismatch(where, p.name, -1, "no output", "no output")]
            row.mismatches = len(got)
            found += got
    return found


def _mask_ids(text: str) -> str:
    """An encoded record's text (base64 key and value) with bytes 1-4 of each -- a registry
    wire format's schema id -- zeroed."""
    import base64

    def masked(part: str) -> str:
        if part == "null":
            return part
        raw = bytearray(base64.b64decode(part))
        raw[1:5] = bytes(len(raw[1:5]))
        return base64.b64encode(bytes(raw)).decode("ascii")

    return "\t".join(masked(p) for p in text.split("\t"))


def _table(rows: Sequence[Row], opts: Options) -> str:
    head = [
        "shape", "stage", "kconnect rec/s", "Java rec/s", "kconnect/Java", "kconnect CPU-µs/rec",
        "Java CPU-µs/rec", "CPU kconnect/Java", "fallback", "mismatches",
    ]  # fmt: skip
    if opts.repeat > 1:
        head.append("kconnect/Java per round")
    body: list[list[object]] = []
    for r in rows:
        if r.error or not r.kconnect:
            body.append([r.shape, r.label, "error", *[""] * (len(head) - 3)])
            continue
        n = r.records
        k_rate = median(n / x.wall_s for x in r.kconnect)
        j_rate = median(n / x.wall_s for x in r.java)
        k_cpu = median(x.cpu_us_per(n) for x in r.kconnect)
        j_cpu = median(x.cpu_us_per(n) for x in r.java)
        row: list[object] = [
            r.shape, r.label, f"{k_rate:,.0f}", f"{j_rate:,.0f}", f"{median(r.ratios):.2f}",
            k_cpu, j_cpu, f"{k_cpu / j_cpu:.2f}" if j_cpu else "-",
            "-" if r.fallbacks is None else r.fallbacks,
            "-" if r.mismatches is None else r.mismatches,
        ]  # fmt: skip
        if opts.repeat > 1:
            row.append(f"{min(r.ratios):.2f}-{max(r.ratios):.2f}")
        body.append(row)
    return table(head, body)


def header(opts: Options, what: str) -> str:
    import _record_path as rp

    rounds = f"{opts.repeat} round{'s' if opts.repeat > 1 else ''}"
    return (
        f"{what}: {opts.records:,} records per shape, medians of {rounds} x {opts.rounds} "
        f"timed pass(es) after {min(opts.warmup, opts.records):,} warm-up records; kconnect hot "
        f"path: {rp.hot_path()}; Java: Kafka Connect {REFERENCE_CONNECT_VERSION}"
    )


if __name__ == "__main__":  # the kconnect side of a case: python bench/_stages.py SPEC
    kconnect_side(Path(sys.argv[1]))
