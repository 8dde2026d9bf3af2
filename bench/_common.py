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
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx


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
