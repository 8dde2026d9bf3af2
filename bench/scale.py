"""Control plane at size: kconnect distributed beside Apache Kafka Connect 4.1.2.

Two phases per runtime, in one run on the same broker, each cluster with its own group and
internal topics and the same worker settings (those of ``bench/rebalance.py``):

**One worker, N connectors** (``--connectors``, default 100; 1,000 and 3,000 with
``--sizes``): N FileStreamSource connectors (one task each, a 200-line file each, one shared
topic) are created one after another with ``PUT /connectors/<name>/config``. Printed: seconds
from the first PUT until every task is RUNNING, PUT latency percentiles (p50/p90/p99),
``GET /connectors?expand=status&expand=info`` latency (median of 5), ``GET /metrics`` scrape
time (kconnect; Java has no such endpoint: JMX only), the dashboard's cluster page
(``GET /ui/api/cluster``, its first page of connectors; kconnect), the worker's RSS with every connector
RUNNING, its RSS before the first PUT, and its idle CPU (cores over 10 s with nothing to do:
the files are read; measured 10 s after the last request, past start-up's last work).

**Three workers, N tasks** (``--cluster-connectors``, default the first size; 0 skips it):
the same connectors on three workers (their mean RSS and idle CPU printed); then

* *add*: a fourth worker starts; seconds until every task is RUNNING and the new worker
  runs its share (N/4 rounded down, at least one), and how many tasks were stopped that did
  not move (tasks whose status was written during the span -- a task that stops writes
  UNASSIGNED, one that starts writes RUNNING -- but that run on the same worker after it);
* *kill*: the non-leader worker with the most tasks is ``kill -9``-ed; seconds until every
  task is RUNNING on a survivor, and how many tasks of the survivors were stopped.

The status topic is read by the bench itself (a consumer from the span's start), so a task
that stops and starts between two status polls is still counted. Both runtimes write the
same status records (the ``status-task-<connector>-<n>`` keys), so the count means the same.

Then the kconnect/Java ratios and the issue's goals (1,000 connectors on one worker: all
RUNNING in <= 0.5x Java's time, PUT median <= Java's, RSS <= 0.3x Java's, idle CPU <= Java's;
3 workers: add and kill each <= Java's time with no task stopped that did not move).

    python bench/scale.py                                # 100 connectors, both runtimes
    python bench/scale.py --sizes 1000 --cluster-connectors 1000
    python bench/scale.py --only kconnect --sizes 100 --cluster-connectors 0

Needs a broker (``KCONNECT_BOOTSTRAP_SERVERS`` or the local stack on 127.0.0.1:9092) and, for
the Java side, Java 17+ and Maven (the connect-runtime/file/json jars from Maven Central).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REFERENCE_CONNECT_VERSION, TreeMeter, rss_mib, table
from rebalance import Node, find_leader, task_states

LINES_PER_FILE = 200
IDLE_S = 10.0
#: Seconds between the last measured request and the idle-CPU window.
SETTLE_S = 10.0
POLL_S = 0.25


@dataclass
class SingleResult:
    connectors: int
    startup_s: float = 0.0
    all_running_s: float = 0.0
    put_ms: list[float] = field(default_factory=list)
    put_errors: list[str] = field(default_factory=list)
    restarted: list[str] = field(default_factory=list)  # connectors FAILED, then restarted
    status_ms: float = 0.0
    metrics_ms: float | None = None
    dashboard_ms: float | None = None
    rss_idle_empty: float = 0.0
    rss_running: float = 0.0
    idle_cores: float = 0.0


@dataclass
class EventResult:
    seconds: float
    moved: int
    stopped_unmoved: int


@dataclass
class ClusterResult:
    connectors: int
    rss_per_worker: float = 0.0
    idle_cores_per_worker: float = 0.0
    add: EventResult | None = None
    kill: EventResult | None = None
    restarted: list[str] = field(default_factory=list)  # connectors FAILED, then restarted


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def connector_config(src: Path, topic: str) -> dict[str, str]:
    return {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "file": str(src),
        "topic": topic,
        "tasks.max": "1",
    }


#: Attempts per PUT: a worker that answers 5xx or times out (Kafka Connect's herder answers 500
#: "Request timed out" when its request waited 90 s) is asked again, as an operator would.
PUT_ATTEMPTS = 3


def create_connectors(
    url: str, names: list[str], files: list[Path], topic: str, label: str, errors: list[str]
) -> list[float]:
    """PUT each connector in turn; the latency of each in ms, until it succeeded (a failed
    attempt is appended to ``errors`` and the PUT, idempotent, is sent again). Progress every
    10%."""
    out: list[float] = []
    step = max(1, len(names) // 10)
    with httpx.Client(timeout=120) as client:
        for i, (name, src) in enumerate(zip(names, files, strict=True)):
            t0 = time.perf_counter()
            for attempt in range(1, PUT_ATTEMPTS + 1):
                try:
                    r = client.put(
                        f"{url}/connectors/{name}/config", json=connector_config(src, topic)
                    )
                    if r.status_code in (200, 201):
                        break
                    failure = f"PUT {name}: {r.status_code} {r.text[:300]}"
                except httpx.TimeoutException as e:
                    failure = f"PUT {name}: no answer ({type(e).__name__})"
                errors.append(failure)
                print(f"  {label}: {failure} (attempt {attempt})", flush=True)
                if attempt == PUT_ATTEMPTS:
                    raise RuntimeError(failure)
            out.append((time.perf_counter() - t0) * 1000)
            if (i + 1) % step == 0:
                print(f"  {label}: {i + 1}/{len(names)} created", flush=True)
    return out


def restart_failed(url: str, restarted: list[str]) -> None:
    """Restart (``?includeTasks=true&onlyFailed=true``) every connector whose connector is
    FAILED and that was not restarted yet, as an operator would; their names go to
    ``restarted``. Kafka Connect 4.1.2 failed 2 of 1,000 connectors created on three workers
    with a NullPointerException in ``Worker.startConnector`` (no config on the worker that was
    assigned the connector yet), after which they never get tasks."""
    try:
        body = httpx.get(f"{url}/connectors?expand=status", timeout=30).json()
    except (httpx.HTTPError, ValueError):
        return
    if not isinstance(body, dict):
        return
    for name, entry in body.items():
        state = ((entry or {}).get("status") or {}).get("connector", {}).get("state")
        if state == "FAILED" and name not in restarted:
            restarted.append(name)
            print(f"    {name} FAILED; restarting it", flush=True)
            httpx.post(
                f"{url}/connectors/{name}/restart",
                params={"includeTasks": "true", "onlyFailed": "true"},
                timeout=60,
            )


def wait_all_running(
    url: str,
    names: list[str],
    on: set[str] | None,
    timeout_s: float,
    restarted: list[str] | None = None,
) -> float:
    """Poll until every connector's task is RUNNING (on a worker of ``on`` when given);
    returns the ``time.monotonic()`` at which it was seen. Every 10 s without that, a FAILED
    connector is restarted once (:func:`restart_failed`, names into ``restarted``)."""
    deadline = time.monotonic() + timeout_s
    last_report = last_check = time.monotonic()
    while time.monotonic() < deadline:
        states = task_states(url, names)
        if states is not None and len(states) == len(names):
            running = sum(
                1 for s, w in states.values() if s == "RUNNING" and (on is None or w in on)
            )
            if running == len(names):
                return time.monotonic()
        else:
            running = 0 if states is None else len(states)
        if time.monotonic() - last_report > 5:
            print(f"    {running}/{len(names)} RUNNING", flush=True)
            last_report = time.monotonic()
        if restarted is not None and time.monotonic() - last_check > 10:
            restart_failed(url, restarted)
            last_check = time.monotonic()
        time.sleep(POLL_S)
    raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for all tasks RUNNING")


def median_ms(client: httpx.Client, url: str, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        r = client.get(url)
        times.append((time.perf_counter() - t0) * 1000)
        if r.status_code != 200:
            raise RuntimeError(f"GET {url}: {r.status_code} {r.text[:200]}")
    return statistics.median(times)


def make_files(tmp: Path, prefix: str, n: int) -> list[Path]:
    body = "".join(f"line-{i}\n" for i in range(LINES_PER_FILE))
    files = []
    for i in range(n):
        p = tmp / f"{prefix}-{i}.txt"
        p.write_text(body)
        files.append(p)
    return files


def run_single(runtime: str, bootstrap: str, n: int, tmp: Path) -> SingleResult:
    group = f"bench-scale-{runtime}-{uuid.uuid4().hex[:8]}"
    res = SingleResult(connectors=n)
    # Kafka Connect's default group timings: what a user's single worker runs with
    node = Node(runtime, tmp, bootstrap, group, 0, settings={})
    try:
        t0 = time.monotonic()
        node.ready()
        res.startup_s = time.monotonic() - t0
        time.sleep(2)
        res.rss_idle_empty = rss_mib(node.proc.pid)
        names = [f"scale{i}" for i in range(n)]
        files = make_files(tmp, f"{runtime}-single", n)
        first_put = time.monotonic()
        res.put_ms = create_connectors(
            node.url, names, files, f"{group}-t", runtime, res.put_errors
        )
        done = wait_all_running(
            node.url, names, None, timeout_s=max(120, n * 0.5), restarted=res.restarted
        )
        res.all_running_s = done - first_put
        print(f"  all {n} RUNNING after {res.all_running_s:.1f} s", flush=True)
        time.sleep(3)  # the files are read; the tasks idle
        with httpx.Client(timeout=60) as client:
            res.status_ms = median_ms(client, f"{node.url}/connectors?expand=status&expand=info")
            if runtime == "kconnect":
                res.metrics_ms = median_ms(client, f"{node.url}/metrics")
                res.dashboard_ms = median_ms(client, f"{node.url}/ui/api/cluster")
        res.rss_running = rss_mib(node.proc.pid)
        time.sleep(SETTLE_S)  # past the start-up's last work (JIT, first commits, GC)
        with TreeMeter(node.proc.pid, period_s=1.0) as meter:
            time.sleep(IDLE_S)
        res.idle_cores = meter.stop().cores
        return res
    finally:
        node.close()


class StatusWatch:
    """Reads the status topic from 'now' on: the task ids whose status was written."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        from confluent_kafka import Consumer, TopicPartition

        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"bench-scale-watch-{uuid.uuid4().hex[:8]}",
                "enable.auto.commit": False,
            }
        )
        md = self._consumer.list_topics(topic, timeout=10)
        parts = [TopicPartition(topic, p) for p in md.topics[topic].partitions]
        ends = []
        for tp in parts:
            _, high = self._consumer.get_watermark_offsets(tp, timeout=10)
            ends.append(TopicPartition(topic, tp.partition, high))
        self._consumer.assign(ends)
        self.touched: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for m in self._consumer.consume(500, 0.2):
                if m.error() is None and m.key() is not None:
                    key = m.key().decode()
                    if key.startswith("status-task-"):
                        self.touched.add(key[len("status-task-") :])

    def stop(self) -> set[str]:
        time.sleep(1.0)  # the last status records of the span
        self._stop.set()
        self._thread.join()
        self._consumer.close()
        return self.touched


def run_cluster(runtime: str, bootstrap: str, n: int, tmp: Path) -> ClusterResult:
    group = f"bench-scale3-{runtime}-{uuid.uuid4().hex[:8]}"
    res = ClusterResult(connectors=n)
    nodes: list[Node] = []
    try:
        nodes = [Node(runtime, tmp, bootstrap, group, i) for i in range(3)]
        for nd in nodes:
            nd.ready()
        names = [f"scale{i}" for i in range(n)]
        files = make_files(tmp, f"{runtime}-cluster", n)
        create_connectors(nodes[0].url, names, files, f"{group}-t", f"{runtime} x3", [])
        live = {nd.worker_id for nd in nodes}
        wait_all_running(
            nodes[0].url, names, live, timeout_s=max(180, n * 0.5), restarted=res.restarted
        )
        time.sleep(3)
        res.rss_per_worker = statistics.mean(rss_mib(nd.proc.pid) for nd in nodes)
        with TreeMeter(*(nd.proc.pid for nd in nodes), period_s=1.0) as meter:
            time.sleep(IDLE_S)
        res.idle_cores_per_worker = meter.stop().cores / len(nodes)
        print(
            f"  {n} tasks RUNNING on three workers ({res.rss_per_worker:.0f} MiB, "
            f"{res.idle_cores_per_worker:.3f} idle cores per worker); adding a fourth",
            flush=True,
        )
        before = task_states(nodes[0].url, names) or {}

        watch = StatusWatch(bootstrap, f"{group}-status")
        t0 = time.monotonic()
        joiner = Node(runtime, tmp, bootstrap, group, 3)
        nodes.append(joiner)
        live.add(joiner.worker_id)
        share = max(1, n // 4)

        def joined() -> bool:
            states = task_states(nodes[0].url, names)
            return (
                states is not None
                and len(states) == n
                and all(s == "RUNNING" and w in live for s, w in states.values())
                and sum(1 for _, w in states.values() if w == joiner.worker_id) >= share
            )

        last_check = time.monotonic()
        while not joined():
            if time.monotonic() - t0 > max(180, n * 0.3):
                raise RuntimeError("timed out waiting for the fourth worker's share")
            if time.monotonic() - last_check > 10:
                restart_failed(nodes[0].url, res.restarted)
                last_check = time.monotonic()
            time.sleep(POLL_S)
        seconds = time.monotonic() - t0
        touched = watch.stop()
        after = task_states(nodes[0].url, names) or {}
        moved = {t for t in after if before.get(t, ("", ""))[1] != after[t][1]}
        res.add = EventResult(seconds, len(moved), len(touched - moved))
        print(
            f"  add: {seconds:.1f} s, {len(moved)} moved, {len(touched - moved)} stopped "
            "without moving",
            flush=True,
        )
        time.sleep(3)

        before = task_states(nodes[0].url, names) or {}
        counts: dict[str, int] = {}
        for _, w in before.values():
            counts[w] = counts.get(w, 0) + 1
        leader = find_leader(nodes, names[0])
        followers = [nd for nd in nodes if nd is not leader]
        victim = max(followers, key=lambda nd: counts.get(nd.worker_id, 0))
        survivors = [nd for nd in nodes if nd is not victim]
        must_move = {t for t, (_, w) in before.items() if w == victim.worker_id}
        watch = StatusWatch(bootstrap, f"{group}-status")
        t0 = time.monotonic()
        victim.close()
        live.discard(victim.worker_id)
        done = wait_all_running(
            survivors[0].url, names, live, timeout_s=max(180, n * 0.3), restarted=res.restarted
        )
        seconds = done - t0
        touched = watch.stop()
        res.kill = EventResult(seconds, len(must_move), len(touched - must_move))
        print(
            f"  kill: {seconds:.1f} s, {len(must_move)} moved, "
            f"{len(touched - must_move)} stopped without moving",
            flush=True,
        )
        return res
    finally:
        for nd in nodes:
            nd.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--sizes",
        default="100",
        help="comma-separated connector counts for the one-worker phase (e.g. 100,1000,3000)",
    )
    ap.add_argument(
        "--cluster-connectors",
        type=int,
        default=None,
        help="tasks in the three-worker phase (default: the first size; 0 skips the phase)",
    )
    ap.add_argument(
        "--only", choices=["kconnect", "java"], default=None, help="run one runtime, no ratios"
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    cluster_n = sizes[0] if args.cluster_connectors is None else args.cluster_connectors
    bootstrap = os.environ.get("KCONNECT_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    singles: dict[tuple[str, int], SingleResult] = {}
    clusters: dict[str, ClusterResult] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-scale-") as tmp_s:
        tmp = Path(tmp_s)
        for n in sizes:
            for runtime in runtimes:
                print(f"{runtime}: one worker, {n} connectors ...", flush=True)
                singles[(runtime, n)] = run_single(runtime, bootstrap, n, tmp)
        if cluster_n:
            for runtime in runtimes:
                print(f"{runtime}: three workers, {cluster_n} tasks ...", flush=True)
                clusters[runtime] = run_cluster(runtime, bootstrap, cluster_n, tmp)

    def label(r: str) -> str:
        return "kconnect" if r == "kconnect" else f"Kafka Connect {REFERENCE_CONNECT_VERSION}"

    print()
    rows = []
    for (r, n), s in singles.items():
        rows.append(
            [
                label(r),
                n,
                s.startup_s,
                s.all_running_s,
                pct(s.put_ms, 0.5),
                pct(s.put_ms, 0.9),
                pct(s.put_ms, 0.99),
                s.status_ms,
                "n/a (JMX)" if s.metrics_ms is None else s.metrics_ms,
                "n/a" if s.dashboard_ms is None else s.dashboard_ms,
                s.rss_idle_empty,
                s.rss_running,
                s.idle_cores,
                len(s.put_errors),
                len(s.restarted),
            ]
        )
    print(
        table(
            [
                "runtime",
                "connectors",
                "start-up (s)",
                "first PUT -> all RUNNING (s)",
                "PUT p50 (ms)",
                "PUT p90 (ms)",
                "PUT p99 (ms)",
                "GET status+info (ms)",
                "GET /metrics (ms)",
                "dashboard page (ms)",
                "RSS empty (MiB)",
                "RSS running (MiB)",
                "idle cores",
                "PUT errors (retried)",
                "FAILED, restarted",
            ],
            rows,
        )
    )
    if clusters:
        print()
        crow = []
        for r, c in clusters.items():
            a, k = c.add, c.kill
            assert a is not None and k is not None
            crow.append(
                [
                    label(r),
                    c.connectors,
                    c.rss_per_worker,
                    c.idle_cores_per_worker,
                    a.seconds,
                    a.moved,
                    a.stopped_unmoved,
                    k.seconds,
                    k.moved,
                    k.stopped_unmoved,
                    len(c.restarted),
                ]
            )
        print(
            table(
                [
                    "runtime (3 workers)",
                    "tasks",
                    "RSS/worker (MiB)",
                    "idle cores/worker",
                    "add: -> all RUNNING (s)",
                    "add: moved",
                    "add: stopped, not moved",
                    "kill -9: -> all RUNNING (s)",
                    "kill: moved",
                    "kill: stopped, not moved",
                    "FAILED, restarted",
                ],
                crow,
            )
        )
    if len(runtimes) == 2:
        print()
        for n in sizes:
            k, j = singles[("kconnect", n)], singles[("java", n)]
            print(
                f"{n} connectors, kconnect/java: all RUNNING "
                f"{k.all_running_s / j.all_running_s:.2f} (goal <= 0.5), PUT p50 "
                f"{pct(k.put_ms, 0.5) / pct(j.put_ms, 0.5):.2f} (<= 1), RSS running "
                f"{k.rss_running / j.rss_running:.2f} (<= 0.3), idle CPU "
                f"{k.idle_cores / j.idle_cores if j.idle_cores else float('inf'):.2f} (<= 1), "
                f"status {k.status_ms / j.status_ms:.2f}"
            )
        if clusters:
            k3, j3 = clusters["kconnect"], clusters["java"]
            assert k3.add and j3.add and k3.kill and j3.kill
            print(
                f"3 workers, {cluster_n} tasks, kconnect/java: add "
                f"{k3.add.seconds / j3.add.seconds:.2f} (<= 1), kill -9 "
                f"{k3.kill.seconds / j3.kill.seconds:.2f} (<= 1); stopped without moving: "
                f"kconnect {k3.add.stopped_unmoved}+{k3.kill.stopped_unmoved}, "
                f"java {j3.add.stopped_unmoved}+{j3.kill.stopped_unmoved} (goal 0)"
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "single": [{"runtime": r, **s.__dict__} for (r, _), s in singles.items()],
                    "cluster": {
                        r: {
                            "connectors": c.connectors,
                            "rss_per_worker": c.rss_per_worker,
                            "idle_cores_per_worker": c.idle_cores_per_worker,
                            "add": c.add.__dict__ if c.add else None,
                            "kill": c.kill.__dict__ if c.kill else None,
                        }
                        for r, c in clusters.items()
                    },
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
