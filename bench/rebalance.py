"""Rebalance speed: kconnect distributed beside Apache Kafka Connect (ConnectDistributed).

For each runtime, in one run with the same worker settings (session.timeout.ms=6000,
heartbeat.interval.ms=1000, scheduled.rebalance.max.delay.ms=3000, RF 1) and the same
connectors (``--connectors`` FileStreamSource connectors, one task each):

* join: a third worker is started; seconds from its process start to its first RUNNING task;
* kill: of the workers that are not the group leader, the one running the most tasks is
  ``kill -9``-ed; seconds until every task of every connector is RUNNING on a surviving
  worker. Bounded below by the session timeout (the group notices the death only when the
  broker has had no heartbeat for ``session.timeout.ms``: at least 5 s after the kill with a
  heartbeat a second) plus the scheduled-rebalance delay (the leader then waits up to 3 s for
  the worker to come back before reassigning its tasks): about 8-9 s for both runtimes. A
  figure under 5 s cannot be a fail-over and stops the bench. The leader is the worker that
  serves a leader-only request it is told not to forward (a restart of the failed tasks of a
  healthy connector, which restarts nothing); killing the leader instead would let a new
  leader with no memory of the old assignment hand the work out right after the session
  timeout, which is a different measurement.

  Two faults made earlier figures too low (5.9 s and 6.6 s in the README): the wait ended on
  any answer without tasks in it (a failed or timed-out status request read as "all
  RUNNING"), and the bench took the first worker started for the leader, though the two first
  workers start together and either may join the group first, so the leader itself could be
  the one killed.

For each of the two spans it also prints what the rebalance costs: the CPU seconds of the
whole cluster (every worker's process tree -- the JVMs, or the kconnect workers and any task
processes -- the joiner's from its start, the killed worker's until its death) and the cores
used (CPU ÷ wall time of the span). No records are counted in these spans (the tasks move, the
lines were copied before), so there is no per-record figure here; the broker's CPU is not in
it, answering the bench's status polls (one ``GET /connectors?expand=status`` every 50 ms) is.

Then the kconnect/Java ratios. Each cluster uses its own group and internal topics.

    python bench/rebalance.py
    python bench/rebalance.py --only kconnect --connectors 6

Needs a broker (``KCONNECT_BOOTSTRAP_SERVERS`` or the local stack on 127.0.0.1:9092) and, for
the Java side, Java 17+ and Maven (connect-runtime/file/json jars from Maven Central).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Interval, TreeMeter, free_port, table, wait_rest_ready
from file_pipeline import REFERENCE_CONNECT_VERSION, java_command, kconnect_command

SETTINGS = {
    "session.timeout.ms": "6000",
    "heartbeat.interval.ms": "1000",
    "scheduled.rebalance.max.delay.ms": "3000",
}
# No fail-over can be faster: the broker drops a member session.timeout.ms after the last
# heartbeat it got, which the killed worker sent at most heartbeat.interval.ms before dying.
FAILOVER_FLOOR_S = (
    int(SETTINGS["session.timeout.ms"]) - int(SETTINGS["heartbeat.interval.ms"])
) / 1000


def worker_props(
    bootstrap: str, group: str, port: int, settings: dict[str, str] | None = None
) -> str:
    """The worker properties of one bench worker; ``settings`` replaces :data:`SETTINGS`
    (``{}``: Kafka Connect's defaults for the group's timings)."""
    lines = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "3",
        "status.storage.partitions": "2",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "listeners": f"http://127.0.0.1:{port}",
        "rest.advertised.host.name": "127.0.0.1",
        "offset.flush.interval.ms": "1000",
        **(SETTINGS if settings is None else settings),
    }
    return "".join(f"{k}={v}\n" for k, v in lines.items())


class Node:
    def __init__(
        self,
        runtime: str,
        tmp: Path,
        bootstrap: str,
        group: str,
        i: int,
        settings: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.worker_id = f"127.0.0.1:{self.port}"
        props = tmp / f"{runtime}-{i}.properties"
        props.write_text(worker_props(bootstrap, group, self.port, settings))
        command = java_command if runtime == "java" else kconnect_command
        cmd = command(props, "distributed")
        self.log = open(tmp / f"{runtime}-{i}.log", "wb")  # noqa: SIM115  (closed in close())
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)

    def ready(self) -> None:
        wait_rest_ready(self.url + "/connectors", self.proc)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.log.close()


def task_states(url: str, names: list[str]) -> dict[str, tuple[str, str]] | None:
    """``{task id: (state, worker_id)}`` over the named connectors, from one request (so that
    the polling itself costs the cluster little CPU); None when the answer does not hold the
    status of every one of them (an error body such as a 409 during a rebalance, a timeout)."""
    try:
        r = httpx.get(f"{url}/connectors?expand=status", timeout=10)
        body = r.json()
    except (httpx.HTTPError, ValueError):
        return None
    if r.status_code != 200 or not isinstance(body, dict):
        return None
    out: dict[str, tuple[str, str]] = {}
    for name in names:
        status = body.get(name, {}).get("status") if isinstance(body.get(name), dict) else None
        if not isinstance(status, dict):
            return None
        for t in status.get("tasks", []):
            out[f"{name}-{t['id']}"] = (t["state"], t["worker_id"])
    return out


def all_running(url: str, names: list[str], on: set[str]) -> bool:
    """Whether every connector's one task is RUNNING on a worker of ``on`` (an answer
    without them, or with fewer tasks, is not)."""
    states = task_states(url, names)
    return (
        states is not None
        and len(states) == len(names)
        and all(s == "RUNNING" and w in on for s, w in states.values())
    )


def find_leader(nodes: list[Node], connector: str) -> Node:
    """The group leader: the one worker that serves a leader-only request itself when told
    not to forward it (the others answer 409). The request restarts the failed tasks of a
    running connector, so nothing restarts."""
    leaders = []
    for n in nodes:
        r = httpx.post(
            f"{n.url}/connectors/{connector}/restart",
            params={"includeTasks": "true", "onlyFailed": "true", "forward": "false"},
            timeout=30,
        )
        if r.status_code == 202:
            leaders.append(n)
        elif r.status_code != 409:
            raise RuntimeError(f"{n.url} answered the leader probe with {r.status_code}: {r.text}")
    if len(leaders) != 1:
        raise RuntimeError(f"expected one leader, found {[n.worker_id for n in leaders]}")
    return leaders[0]


def wait(predicate, timeout_s: float, what: str) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        if predicate():
            return time.monotonic()
        time.sleep(0.05)
    raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def run_one(runtime: str, bootstrap: str, connectors: int, tmp: Path) -> tuple[Interval, Interval]:
    """The join span and the kill -9 span, each with the cluster's CPU time over it."""
    group = f"bench-rebalance-{runtime}-{uuid.uuid4().hex[:8]}"
    nodes: list[Node] = []
    try:
        for i in range(2):
            nodes.append(Node(runtime, tmp, bootstrap, group, i))
        for n in nodes:
            n.ready()
        names = [f"src{i}" for i in range(connectors)]
        src = tmp / f"{runtime}-in.txt"
        src.write_text("".join(f"line-{i}\n" for i in range(1000)))
        for name in names:
            config = {"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                      "file": str(src), "topic": f"{group}-t", "tasks.max": "1"}  # fmt: skip
            r = httpx.put(f"{nodes[0].url}/connectors/{name}/config", json=config, timeout=100)
            r.raise_for_status()
        live = {n.worker_id for n in nodes}
        wait(lambda: all_running(nodes[-1].url, names, live), 120,
             "all tasks RUNNING on two workers")  # fmt: skip
        print(f"  {connectors} tasks RUNNING on two workers; starting a third", flush=True)

        with TreeMeter(*(n.proc.pid for n in nodes)) as meter:
            joiner = Node(runtime, tmp, bootstrap, group, 2)
            meter.add(joiner.proc.pid)
            nodes.append(joiner)
            wait(
                lambda: any(
                    s == "RUNNING" and w == joiner.worker_id
                    for s, w in (task_states(nodes[0].url, names) or {}).values()
                ),
                120,
                "a RUNNING task on the new worker",
            )
            join = meter.stop()
        print(f"  joined: {join.wall_s:.1f} s, {join.cores:.2f} cores", flush=True)
        live.add(joiner.worker_id)
        wait(lambda: all_running(nodes[0].url, names, live), 120,
             "all tasks RUNNING on three workers")  # fmt: skip

        counts = {n.worker_id: 0 for n in nodes}
        for _, w in (task_states(nodes[0].url, names) or {}).values():
            counts[w] = counts.get(w, 0) + 1
        leader = find_leader(nodes, names[0])
        followers = [n for n in nodes if n is not leader]
        victim = max(followers, key=lambda n: counts[n.worker_id])
        if counts[victim.worker_id] == 0:
            raise RuntimeError(f"no task runs on a worker other than the leader: {counts}")
        survivors = [n for n in nodes if n is not victim]
        print(f"  kill -9 of a worker with {counts[victim.worker_id]} tasks", flush=True)
        with TreeMeter(*(n.proc.pid for n in nodes)) as meter:
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait()
            live.discard(victim.worker_id)
            wait(
                lambda: all_running(survivors[0].url, names, live),
                180,
                "the killed worker's tasks RUNNING elsewhere",
            )
            kill = meter.stop()
        if kill.wall_s < FAILOVER_FLOOR_S:
            raise RuntimeError(
                f"the tasks read as moved {kill.wall_s:.1f} s after the kill -9, before the "
                f"group can notice a death ({FAILOVER_FLOOR_S:.0f} s with session.timeout.ms="
                f"{SETTINGS['session.timeout.ms']} and heartbeat.interval.ms="
                f"{SETTINGS['heartbeat.interval.ms']}): the status answers are wrong"
            )
        print(f"  tasks moved: {kill.wall_s:.1f} s, {kill.cores:.2f} cores", flush=True)
        return join, kill
    finally:
        for n in nodes:
            n.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--connectors",
        type=int,
        default=6,
        help="FileStreamSource connectors, one task each (at least 3: one per worker)",
    )
    ap.add_argument(
        "--only", choices=["kconnect", "java"], default=None, help="run one runtime, no ratios"
    )
    args = ap.parse_args(argv)
    if args.connectors < 3:
        ap.error("--connectors must be at least 3, so that the killed worker runs a task")
    bootstrap = os.environ.get("KCONNECT_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
    runtimes = [args.only] if args.only else ["kconnect", "java"]
    results: dict[str, tuple[Interval, Interval]] = {}
    with tempfile.TemporaryDirectory(prefix="kconnect-bench-rebalance-") as tmp:
        for runtime in runtimes:
            print(f"running {runtime} ...", flush=True)
            results[runtime] = run_one(runtime, bootstrap, args.connectors, Path(tmp))
    rows = [
        [
            f"{r} ({'kconnect' if r == 'kconnect' else 'Kafka Connect ' + REFERENCE_CONNECT_VERSION})",
            join.wall_s,
            kill.wall_s,
            join.cpu_s,
            join.cores,
            kill.cpu_s,
            kill.cores,
        ]
        for r, (join, kill) in results.items()
    ]
    print()
    print(
        table(
            [
                "runtime",
                "join: start -> first RUNNING task (s)",
                "kill -9 -> tasks RUNNING elsewhere (s)",
                "join CPU-s",
                "join cores",
                "kill CPU-s",
                "kill cores",
            ],
            rows,
        )
    )
    if len(results) == 2:
        k, j = results["kconnect"], results["java"]
        print(
            f"ratios kconnect/java: join {k[0].wall_s / j[0].wall_s:.2f}, "
            f"kill -9 failover {k[1].wall_s / j[1].wall_s:.2f}; cluster CPU time: "
            f"join {k[0].cpu_s / j[0].cpu_s:.2f}, kill -9 failover {k[1].cpu_s / j[1].cpu_s:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
