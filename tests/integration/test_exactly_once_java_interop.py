"""Exactly-once source in one group of Apache Kafka Connect 4.1.2 and kconnect workers.

A Java ``ConnectDistributed`` worker and a ``kconnect distributed`` worker, both with
``exactly.once.source.support=enabled``, share a group and its internal topics. A
FileStreamSource keeps reading a growing file; the worker running its task is killed with
SIGKILL and restarted, twice, so the task moves from one implementation to the other and back.
Every time, the new task's preflight asks the leader -- Java or kconnect, whichever leads -- to
fence (the signed internal ``PUT /connectors/{c}/fence``), its transactional producer
(``<group>-<connector>-0`` on both) fences the killed one, and it resumes from the offsets the
other implementation committed in its transactions. A ``read_committed`` consumer must see
every line exactly once.
"""

from __future__ import annotations

import re
import signal
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from kconnect.testing.java_worker import JavaWorker
from kconnect.testing.ports import free_port
from tests.integration.distributed_support import Cluster, WorkerProcess, wait_for
from tests.integration.test_exactly_once_source import config_records, read_committed

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


class MixedCluster(Cluster):
    def props(self, port: int) -> str:
        return super().props(port) + "exactly.once.source.support=enabled\n"


def java_props(cluster: MixedCluster, port: int) -> dict[str, str]:
    props: dict[str, str] = {}
    for line in cluster.props(port).splitlines():
        key, _, value = line.partition("=")
        props[key] = value
    props["listeners"] = f"http://127.0.0.1:{port}"
    props["rest.advertised.host.name"] = "127.0.0.1"
    props["rest.advertised.port"] = str(port)
    return props


class Java:
    """A Java worker of the mixed cluster (restartable with the same port)."""

    def __init__(self, cluster: MixedCluster, work: Path) -> None:
        self.cluster = cluster
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.worker_id = f"127.0.0.1:{self.port}"
        self.work = work
        self.rounds = 0
        self.worker: JavaWorker | None = None

    def start(self) -> None:
        self.rounds += 1
        work = self.work / f"java-{self.rounds}"
        work.mkdir(parents=True)
        self.worker = JavaWorker(java_props(self.cluster, self.port), work)
        self.worker.wait_ready()

    def running(self) -> bool:
        return self.worker is not None and self.worker.proc.poll() is None

    def kill(self) -> None:
        assert self.worker is not None
        self.worker.proc.send_signal(signal.SIGKILL)
        self.worker.proc.wait(30)


def tasks_by_worker(url: str, names: list[str]) -> dict[str, list[str]]:
    """worker id -> the RUNNING tasks of ``names`` on it."""
    out: dict[str, list[str]] = {}
    for name in names:
        s = httpx.get(f"{url}/connectors/{name}/status", timeout=10).json()
        for t in s["tasks"]:
            if t["state"] == "RUNNING":
                out.setdefault(t["worker_id"], []).append(name)
    return out


def test_java_and_kconnect_fence_each_other(kafka_bootstrap: str, tmp_path: Path) -> None:
    """Java leads first, kconnect follows; then each is killed in turn, so the other leads
    and the restarted one follows. A task starting on a follower has its fencing done by the
    other implementation's leader; every takeover crosses implementations."""
    cluster = MixedCluster(tmp_path, kafka_bootstrap)
    java = Java(cluster, tmp_path)
    names = ["mixed-a", "mixed-b"]
    total = 80_000
    done = {n: threading.Event() for n in names}
    sources = {n: tmp_path / f"{n}.txt" for n in names}
    topics = {n: f"eos-{n}-{uuid.uuid4().hex[:8]}" for n in names}

    def append(name: str) -> None:
        with open(sources[name], "a") as f:
            for i in range(total):
                f.write(f"line-{i:06d}\n")
                if i % 100 == 99:
                    f.flush()
                    time.sleep(0.1)
        done[name].set()

    ours: WorkerProcess | None = None
    try:
        java.start()  # first in the group: the leader
        ours = cluster.add_worker()
        for name in names:
            sources[name].write_text("")
            r = httpx.put(
                f"{ours.url}/connectors/{name}/config",
                json={
                    "connector.class": FILE_SOURCE,
                    "file": str(sources[name]),
                    "topic": topics[name],
                    "batch.size": "200",
                    "exactly.once.support": "required",
                },
                timeout=100,
            )
            assert r.status_code == 201, r.text

        def spread(url: str, ids: tuple[str, str]) -> bool:
            placed = tasks_by_worker(url, names)
            return all(len(placed.get(w, [])) == 1 for w in ids)

        both = (java.worker_id, ours.worker_id)
        wait_for(lambda: spread(ours.url, both), 120, "one task RUNNING on each worker")
        for name in names:
            threading.Thread(target=append, args=(name,), daemon=True).start()
        # kconnect follows Java: restarting its task makes it ask Java's leader to fence
        placed = tasks_by_worker(ours.url, names)
        mine = placed[ours.worker_id][0]
        r = httpx.post(f"{ours.url}/connectors/{mine}/tasks/0/restart", timeout=100)
        assert r.status_code == 204, r.text
        wait_for(lambda: spread(ours.url, both), 60, "the restarted task RUNNING again")

        # Java dies: kconnect takes its task over and leads; Java comes back as a follower
        time.sleep(2.0)
        java.kill()
        wait_for(lambda: len(tasks_by_worker(ours.url, names).get(ours.worker_id, [])) == 2,
                 120, "kconnect running both tasks")  # fmt: skip
        java.start()
        wait_for(lambda: spread(ours.url, both), 120, "a task back on the Java follower")

        # kconnect dies: Java takes over and leads; kconnect comes back as a follower
        time.sleep(2.0)
        assert not any(e.is_set() for e in done.values()), "the files must grow throughout"
        ours.stop(signal.SIGKILL)
        wait_for(lambda: len(tasks_by_worker(java.url, names).get(java.worker_id, [])) == 2,
                 120, "Java running both tasks")  # fmt: skip
        ours = cluster.add_worker()
        both = (java.worker_id, ours.worker_id)
        wait_for(lambda: spread(java.url, both), 120, "a task back on the kconnect follower")

        for name in names:
            assert done[name].wait(180)
            lines = read_committed(kafka_bootstrap, topics[name], total, timeout=120)
            expected = [f"line-{i:06d}" for i in range(total)]
            missing = sorted(set(expected) - set(lines))
            assert not missing, f"{name}: {len(missing)} lines lost, first {missing[:5]}"
            dups = len(lines) - len(set(lines))
            assert dups == 0, f"{name}: {dups} duplicates read_committed"
            assert lines == expected
        records = dict(config_records(kafka_bootstrap, f"{cluster.group}-configs"))
        for name in names:
            assert records[f"tasks-fencing-{name}"] == {"task-count": 1}
        # kconnect asked Java's leader, and Java kconnect's, to fence (signed requests)
        ours_logs = "".join(p.read_text() for p in tmp_path.glob("worker*.log"))
        assert re.search(rf'PUT http://127.0.0.1:{java.port}/connectors/[^/]+/fence "HTTP/1.1 204',
                         ours_logs), "kconnect never asked Java's leader to fence"  # fmt: skip
        assert re.search(r'"PUT /connectors/[^/]+/fence" 204', ours_logs), (
            "Java never asked kconnect's leader to fence"
        )
    finally:
        if java.running():
            java.kill()
        cluster.close()
