"""Shared helpers of the side-by-side benchmarks: CPU time and RSS, REST readiness, tables.

Benchmarks run kconnect and the Apache Kafka Connect reference in one run on the same broker
and print records/s, ratios, memory, start-up time and what the speed costs: CPU-µs per
record and cores used. They never assert timings.

CPU time is measured one way everywhere:

* a worker in its own process: ``TreeMeter`` over the worker's whole process tree (the JVM, or
  the kconnect worker and every task process it starts), from Linux's ``/proc/<pid>/stat``;
* work done inside the bench's own process (``converters.py``, the raw COPY baseline): the
  process's CPU time (all threads) around the timed loop, ``cpu_interval``; the Java side of
  ``converters.py`` reads the same quantity in its JVM with
  ``OperatingSystemMXBean.getProcessCpuTime``.

Either way an ``Interval`` carries wall and CPU seconds of the same span the records/s figure
uses: ``cores`` = CPU / wall, ``cpu_us_per(records)`` = CPU-µs per record. CPU spent by the
broker or PostgreSQL on a worker's behalf is in neither runtime's figure.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import httpx

#: The Apache Kafka Connect release compared against: the 4.1 line that
#: shared/reference/kafka-connect.md describes (connect-file 4.4.0 is not on Maven Central).
REFERENCE_CONNECT_VERSION = "4.1.2"

#: Seconds between progress lines while a run waits for its records.
PROGRESS_S = 5.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                text = Path(f"/proc/{pid}/task/{tid}/children").read_text()
            except OSError:
                continue
            for c in text.split():
                out.append(int(c))
                out.extend(_children(int(c)))
    except OSError:
        pass
    return out


def rss_mib(pid: int) -> float:
    """Resident set size of a process and its children, in MiB (0 if it is gone)."""
    total = 0
    for p in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total / 1024.0


_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
_PAGE_MIB = os.sysconf("SC_PAGE_SIZE") / (1024.0 * 1024.0)


@dataclass(frozen=True)
class Interval:
    """Wall and CPU seconds of one measured span."""

    wall_s: float
    cpu_s: float

    @property
    def cores(self) -> float:
        """CPU time / wall time: 1.0 = one core busy the whole span."""
        return self.cpu_s / self.wall_s if self.wall_s else 0.0

    def cpu_us_per(self, records: int) -> float:
        return self.cpu_s * 1e6 / records if records else 0.0


@contextmanager
def cpu_interval() -> Iterator[list[Interval]]:
    """Wall and CPU time of this process (all its threads) over the ``with`` body.

    ``with cpu_interval() as got: ...`` then ``got[0]`` is the ``Interval``."""
    got: list[Interval] = []
    w0, c0 = time.perf_counter(), time.process_time()
    yield got
    got.append(Interval(time.perf_counter() - w0, time.process_time() - c0))


@dataclass(frozen=True)
class _Stat:
    ppid: int
    own: int  # utime + stime of the whole thread group, clock ticks
    reaped: int  # cutime + cstime: children it (or they, recursively) waited for, clock ticks
    rss: int  # pages


def _read_stat(pid: int) -> tuple[int, _Stat] | None:
    """``(starttime, stat)`` of a process, None if it is gone. The start time (clock ticks
    after boot) tells a process from a later one that got the same pid."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    # Field 2 (comm) may hold spaces and parentheses: split after its closing one. f[0] is
    # field 3 (state), so field n of proc(5) is f[n - 3].
    f = raw[raw.rindex(b")") + 2 :].split()
    return int(f[19]), _Stat(
        int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14]), int(f[21])
    )


class TreeMeter:
    """CPU time and peak RSS of process trees (a worker and every descendant) over one span.

    ``with TreeMeter(pid) as m:`` takes the first sample and starts the span (``m.started``,
    a ``time.monotonic()`` value); ``m.stop()`` takes the last sample and ends it (leaving the
    ``with`` stops it too). Then ``m.interval`` holds wall and CPU seconds, ``m.peak_rss`` the
    highest summed RSS in MiB, ``m.processes`` the most processes seen alive at once.
    ``add(pid)`` adds a root started during the span (all its CPU time counts); ``mark()``
    starts a second span that ends with the first, ``since_mark``; ``checkpoint()`` samples
    any other point, and ``between(a, b)`` is the span from one checkpoint to a later one.

    The tree's CPU time at a sample is, over every live process in it, ``utime + stime`` (all
    its threads, exited ones included) ``+ cutime + cstime`` (the children it waited for, and
    theirs): a child that exits and is reaped by its parent inside the tree moves its whole
    time into the parent's ``cutime`` at that moment, so nothing is lost however short it
    lived, and nothing counts twice. Processes are sampled every ``period_s`` (default 50 ms,
    which the peak RSS needs anyway); descendants are looked for in
    ``/proc/<pid>/task/*/children`` every tenth sample (and at the first and last) and are followed
    by pid and start time even if they are re-parented out of the tree; one that vanishes
    without a tracked parent to reap it (killed with its worker, or orphaned) keeps the time
    of its last sample. The span's CPU time is the difference between the first and the last
    sample. Resolution: one clock tick (10 ms) per process. ``tree=False`` meters the given
    processes alone: finding children reads a file per thread, which for a JVM of a hundred
    threads (the broker) is CPU the bench would take from the worker it measures.
    """

    def __init__(self, *pids: int, period_s: float = 0.05, tree: bool = True) -> None:
        self._roots = list(pids)
        self._period_s = period_s
        self._tree = tree
        self._known: dict[tuple[int, int], _Stat] = {}
        self._lost = 0
        self._first = 0
        self._last = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.peak_rss = 0.0
        self.processes = 0
        self.started = 0.0
        self.interval: Interval | None = None
        self._mark: tuple[float, int] | None = None
        self._stopped = 0.0

    def __enter__(self) -> TreeMeter:
        self.started = time.monotonic()
        self._first = self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def add(self, pid: int) -> None:
        with self._lock:
            self._roots.append(pid)

    def mark(self) -> None:
        """Sample now and remember it (the first call only): after ``stop``, ``since_mark``
        is the part of the span from here to its end -- the busy part of a run, when marked
        as its first records arrive."""
        if self._mark is None:
            self._mark = self.checkpoint()

    def checkpoint(self) -> tuple[float, int]:
        """Sample now: a point of the span for ``between`` (wall clock, CPU ticks)."""
        return time.monotonic(), self._sample()

    @staticmethod
    def between(start: tuple[float, int], end: tuple[float, int]) -> Interval:
        """Wall and CPU seconds from one ``checkpoint`` to a later one."""
        return Interval(end[0] - start[0], (end[1] - start[1]) * _TICK_S)

    def stop(self) -> Interval:
        """End the span now (idempotent): the last sample, then ``interval``."""
        if self.interval is None:
            self._stop.set()
            self._thread.join()
            self._last = self._sample()
            self._stopped = time.monotonic()
            wall = self._stopped - self.started
            self.interval = Interval(wall, (self._last - self._first) * _TICK_S)
        return self.interval

    @property
    def since_mark(self) -> Interval | None:
        """Wall and CPU seconds from ``mark`` to ``stop``; None before both happened."""
        if self._mark is None or self.interval is None:
            return None
        at, ticks = self._mark
        return Interval(self._stopped - at, (self._last - ticks) * _TICK_S)

    def _run(self) -> None:
        n = 0
        while not self._stop.wait(self._period_s):
            n += 1
            # new children are looked for every tenth sample (and at the first and last):
            # the processes already found are read every time
            self._sample(discover=n % 10 == 0)

    def _sample(self, discover: bool = True) -> int:
        """One pass over the trees: updates the tracked processes and the peak RSS; returns the
        trees' CPU ticks so far. Without ``discover``, only the processes already tracked."""
        with self._lock:
            in_tree: set[int] = set()
            for root in self._roots:
                in_tree.add(root)
                if self._tree and discover:
                    in_tree.update(_children(root))
            current: dict[tuple[int, int], _Stat] = {}
            for pid in in_tree | {pid for pid, _ in self._known}:
                got = _read_stat(pid)
                # A pid known from an earlier sample but no longer in the tree counts only
                # while it is the same process (same start time), not a later one reusing it.
                if got is not None and (pid in in_tree or (pid, got[0]) in self._known):
                    current[(pid, got[0])] = got[1]
            live_pids = {pid for pid, _ in current}
            for key, last in self._known.items():
                if key not in current and last.ppid not in live_pids:
                    self._lost += last.own + last.reaped
            self._known = current
            self.peak_rss = max(self.peak_rss, sum(s.rss for s in current.values()) * _PAGE_MIB)
            self.processes = max(self.processes, len(current))
            return self._lost + sum(s.own + s.reaped for s in current.values())


def local_broker_pid(bootstrap: str) -> int | None:
    """The pid of the broker at ``bootstrap`` when ``kconnect local`` started it (its state file
    names that address and the process is alive), else None: its CPU can then be metered beside
    the worker's, to show how much of the machine the broker took."""
    from kconnect.local.paths import pid_file, state_file

    try:
        address = json.loads(state_file("kafka").read_text())["address"]
        pid = int(pid_file("kafka").read_text().strip())
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if str(address) != bootstrap or _read_stat(pid) is None:
        return None
    return pid


def wait_rest_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 120.0) -> float:
    """Seconds until ``GET url`` answers 200; raises if the process exits or time runs out."""
    start = time.monotonic()
    deadline = start + timeout_s
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"worker exited with code {proc.returncode} before REST was ready"
                )
            try:
                if client.get(url).status_code == 200:
                    return time.monotonic() - start
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
    raise TimeoutError(f"REST at {url} not ready after {timeout_s} s")


def stop_process(proc: subprocess.Popen[bytes], grace_s: float = 20.0) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = [
        "  ".join(
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def java_command(
    props: Path, mode: str = "standalone", connectors: Sequence[Path] = ()
) -> list[str]:
    """Kafka Connect 4.1.2's ConnectStandalone (``mode`` "distributed": ConnectDistributed)
    with the worker properties ``props`` and, standalone, the ``connectors`` config files."""
    from kconnect.local.maven import require_java, resolve_classpath

    cp = resolve_classpath(
        [
            f"org.apache.kafka:connect-runtime:{REFERENCE_CONNECT_VERSION}",
            f"org.apache.kafka:connect-file:{REFERENCE_CONNECT_VERSION}",
            f"org.apache.kafka:connect-json:{REFERENCE_CONNECT_VERSION}",
            "org.apache.logging.log4j:log4j-core:2.25.5",
            "org.apache.logging.log4j:log4j-slf4j2-impl:2.25.5",
        ],
        progress=lambda m: print(f"  {m}", flush=True),
    )
    return [
        require_java(),
        "-Xmx1g",
        "-cp",
        os.pathsep.join(map(str, cp)),
        "-Dlog4j2.level=WARN",
        "org.apache.kafka.connect.cli.Connect" + mode.capitalize(),
        str(props),
        *map(str, connectors),
    ]


def kconnect_command(
    props: Path, mode: str = "standalone", connectors: Sequence[Path] = ()
) -> list[str]:
    """``kconnect <mode> props [connectors...]``, as a user runs it.

    The ``kconnect`` script of the interpreter running the bench, not the first one on PATH:
    that may be a shim into another environment with another checkout's kconnect (the script
    is a Python process itself, so the worker's pid is the Python process whose tree the CPU
    and RSS figures cover). Without that script, ``python -m kconnect.cli.main``: the same
    program."""
    script = Path(sys.executable).parent / "kconnect"
    head = (
        [str(script)]
        if script.is_file() and os.access(script, os.X_OK)
        else [sys.executable, "-m", "kconnect.cli.main"]
    )
    return [*head, mode, str(props), *map(str, connectors)]


def count_lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


class LineCounter:
    """Lines in a file that only grows (a FileStreamSink's output), counted incrementally:
    each call reads only what was appended since the last, so polling a file of hundreds of
    MB every 50 ms costs the bench (and the machine the worker shares) next to nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pos = 0
        self._lines = 0

    def __call__(self) -> int:
        try:
            with self.path.open("rb") as f:
                f.seek(self._pos)
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    self._lines += chunk.count(b"\n")
                    self._pos += len(chunk)
        except FileNotFoundError:
            pass
        return self._lines


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    """A ``.properties`` file both runtimes read alike: Java reads it as ISO-8859-1, so every
    non-ASCII character is written as a ``\\uXXXX`` escape (and ``=``, ``:``, ``\\`` escaped)."""
    import javaproperties

    path.write_text(javaproperties.dumps(dict(props), timestamp=False), encoding="ascii")
    return path


@dataclass(frozen=True)
class WorkerRun:
    """One standalone worker's run of a pipeline: ``cpu`` spans connector creation until the
    last record arrived; ``first_s`` is connector creation until the first one did (tasks
    starting, the consumer group forming: a fixed cost that weighs most in short runs)."""

    runtime: str
    records: int
    cpu: Interval
    first_s: float
    startup_s: float
    peak_rss: float
    processes: int
    log: Path

    @property
    def seconds(self) -> float:
        return self.cpu.wall_s

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu.cpu_us_per(self.records)


def run_standalone(
    runtime: str,
    worker_props: Mapping[str, str],
    connectors: Sequence[Mapping[str, str]],
    work: Path,
    run_id: str,
    progress: Callable[[], int],
    records: int,
    timeout_s: float,
) -> WorkerRun:
    """Run ``kconnect standalone`` or Java's ConnectStandalone (``runtime`` "kconnect" or "java")
    as a user does: ``worker.properties connector.properties...`` on the command line (the
    REST listener is added to ``worker_props``), until ``progress()`` (called every 50 ms)
    reaches ``records``; then stop the worker.

    Start-up is process start until ``GET /`` answers; the measured span starts when the first
    connector shows in ``GET /connectors`` (the worker creates them right after its REST server
    is up) and ends when ``progress()`` reaches ``records``. CPU time and peak RSS cover the
    worker's whole process tree. Raises when the worker exits early or time runs out (naming
    its log)."""
    port = free_port()
    props = write_properties(
        work / f"{run_id}.properties",
        {**worker_props, "listeners": f"http://127.0.0.1:{port}"},
    )
    files = [
        write_properties(work / f"{run_id}-{i}.connector.properties", c)
        for i, c in enumerate(connectors)
    ]
    names = {c["name"] for c in connectors}
    cmd = (
        java_command(props, connectors=files)
        if runtime == "java"
        else kconnect_command(props, connectors=files)
    )
    log_path = work / f"{run_id}.log"
    base = f"http://127.0.0.1:{port}"
    with log_path.open("wb") as log:
        launched = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            with TreeMeter(proc.pid) as meter, httpx.Client(base_url=base, timeout=5.0) as client:
                wait_rest_ready(base + "/", proc, timeout_s=min(timeout_s, 120.0))
                startup = time.monotonic() - launched
                deadline = time.monotonic() + 60.0
                while True:
                    if proc.poll() is not None:
                        raise RuntimeError(
                            f"{runtime} worker exited with code {proc.returncode} before its "
                            f"connectors were created (log {log_path})"
                        )
                    if time.monotonic() > deadline:
                        raise TimeoutError(
                            f"{runtime}: connectors not created after 60 s (log {log_path})"
                        )
                    try:
                        r = client.get("/connectors")
                        if r.status_code == 200 and names & set(r.json()):
                            break
                    except httpx.HTTPError:
                        pass
                    time.sleep(0.01)
                created = meter.checkpoint()
                done = 0
                first_s = 0.0
                next_report = created[0] + PROGRESS_S
                end = created[0] + timeout_s
                while time.monotonic() < end:
                    done = progress()
                    if done and not first_s:
                        first_s = time.monotonic() - created[0]
                    if done >= records:
                        break
                    if proc.poll() is not None:
                        raise RuntimeError(
                            f"{runtime} worker exited with code {proc.returncode} after "
                            f"{done:,} of {records:,} records (log {log_path})"
                        )
                    if time.monotonic() >= next_report:
                        next_report += PROGRESS_S
                        print(
                            f"  {time.monotonic() - created[0]:5.1f} s: {done:,} of "
                            f"{records:,} records",
                            flush=True,
                        )
                    time.sleep(0.05)
                cpu = TreeMeter.between(created, meter.checkpoint())
                meter.stop()
            if done < records:
                raise RuntimeError(
                    f"{runtime}: only {done:,} of {records:,} records after {timeout_s:.0f} s "
                    f"(log {log_path})"
                )
        finally:
            stop_process(proc)
    result = WorkerRun(
        runtime, records, cpu, first_s, startup, meter.peak_rss, meter.processes, log_path
    )
    print(
        f"  {records:,} records in {cpu.wall_s:.1f} s: {result.rate:,.0f} records/s, "
        f"{cpu.cores:.2f} cores, first after {first_s:.1f} s, peak RSS "
        f"{meter.peak_rss:,.0f} MiB, start-up {startup:.1f} s",
        flush=True,
    )
    return result


def _range(values: Sequence[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


def print_runs(
    rounds: Sequence[Mapping[str, WorkerRun]], runtimes: Sequence[str], label: str
) -> None:
    """The table of each runtime's medians over ``rounds`` (each maps runtime -> its run),
    then, with Java among them, every other runtime's ratios to Java in a row named ``label``
    (``label (runtime)`` when there are several): medians of the per-round ratios, and their
    range when there are several rounds."""
    runs = {rt: [r[rt] for r in rounds] for rt in runtimes}
    print(
        table(
            [
                "runtime",
                "records/s",
                "seconds",
                "CPU-µs/rec",
                "cores",
                "first s",
                "startup s",
                "peak RSS MiB",
            ],
            [
                [
                    rt,
                    median([r.rate for r in runs[rt]]),
                    median([r.seconds for r in runs[rt]]),
                    median([r.cpu_us for r in runs[rt]]),
                    median([r.cpu.cores for r in runs[rt]]),
                    median([r.first_s for r in runs[rt]]),
                    median([r.startup_s for r in runs[rt]]),
                    median([r.peak_rss for r in runs[rt]]),
                ]
                for rt in runtimes
            ],
        )
    )
    others = [rt for rt in runtimes if rt != "java"]
    if "java" not in runtimes or not others:
        return
    head = ["pipeline", *(f"{name} {{rt}}/java" for name in RATIOS)]
    if len(rounds) > 1:
        head += ["throughput per round", "CPU-µs/rec per round", "peak RSS per round"]
    rows: list[list[object]] = []
    for rt in others:
        pairs = list(zip(runs[rt], runs["java"], strict=True))
        ratios = {
            "throughput": [k.rate / j.rate for k, j in pairs],
            "CPU-µs/rec": [k.cpu_us / j.cpu_us for k, j in pairs],
            "peak RSS": [k.peak_rss / j.peak_rss for k, j in pairs],
            "startup": [k.startup_s / j.startup_s for k, j in pairs],
        }
        row: list[object] = [label if len(others) == 1 else f"{label} ({rt})"]
        row += [median(v) for v in ratios.values()]
        if len(rounds) > 1:
            row += [_range(ratios[k]) for k in ("throughput", "CPU-µs/rec", "peak RSS")]
        rows.append(row)
    name = others[0] if len(others) == 1 else "runtime"
    print()
    print(table([h.replace("{rt}", name) for h in head], rows))


RATIOS = ("throughput", "CPU-µs/rec", "peak RSS", "startup")


def around_difference(a: bytes, b: bytes, width: int = 200) -> tuple[str, str, int]:
    """Both byte strings cut to ``width`` bytes around their first difference (decoded for
    printing), and the byte offset of that difference."""
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    lo = max(0, at - width // 3)

    def cut(s: bytes) -> str:
        text = s[lo : lo + width].decode("utf-8", "replace")
        return ("..." if lo else "") + text + ("..." if lo + width < len(s) else "")

    return cut(a), cut(b), at


def chain_types(chain: Mapping[str, str]) -> str:
    """``ReplaceField$Value, Cast$Value, ...``: a connector config's transformations in order."""
    aliases = [a.strip() for a in chain.get("transforms", "").split(",") if a.strip()]
    return ", ".join(chain[f"transforms.{a}.type"].rsplit(".", 1)[-1] for a in aliases) or "none"
