"""Helpers for the distributed-mode tests: ``kconnect distributed`` worker processes on
127.0.0.1 with distinct REST ports, a unique group and unique internal topics per cluster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

from kconnect.testing.ports import free_port


def wait_for(predicate, timeout=60.0, what="condition", interval=0.25):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as e:
            last = e
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class Cluster:
    """Worker processes sharing one group id and set of internal topics."""

    def __init__(self, tmp_path: Path, bootstrap: str) -> None:
        self.tmp = tmp_path
        self.bootstrap = bootstrap
        self.group = f"kc-dist-{uuid.uuid4().hex[:10]}"
        self.workers: list[WorkerProcess] = []

    def props(self, port: int) -> str:
        g = self.group
        return (
            f"bootstrap.servers={self.bootstrap}\n"
            f"group.id={g}\n"
            f"config.storage.topic={g}-configs\n"
            f"offset.storage.topic={g}-offsets\n"
            f"status.storage.topic={g}-status\n"
            "config.storage.replication.factor=1\n"
            "offset.storage.replication.factor=1\n"
            "status.storage.replication.factor=1\n"
            "offset.storage.partitions=3\n"
            "status.storage.partitions=2\n"
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
            "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
            f"listeners=http://127.0.0.1:{port}\n"
            "session.timeout.ms=6000\n"
            "heartbeat.interval.ms=1000\n"
            "scheduled.rebalance.max.delay.ms=3000\n"
            "offset.flush.interval.ms=500\n"
        )

    def add_worker(self) -> WorkerProcess:
        w = WorkerProcess(self, len(self.workers))
        self.workers.append(w)
        w.start()
        return w

    def alive(self) -> list[WorkerProcess]:
        return [w for w in self.workers if w.running()]

    def close(self) -> None:
        for w in self.workers:
            w.stop(signal.SIGKILL)


class WorkerProcess:
    def __init__(self, cluster: Cluster, index: int) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.worker_id = f"127.0.0.1:{self.port}"
        self.props = cluster.tmp / f"worker{index}.properties"
        self.props.write_text(cluster.props(self.port))
        self.log = cluster.tmp / f"worker{index}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kconnect.cli.main", "distributed", str(self.props)],
                stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )  # fmt: skip
        wait_for(
            lambda: httpx.get(self.url + "/health", timeout=5).status_code == 200,
            what=f"worker {self.worker_id} healthy; log:\n{self.log}",
        )

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int | None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=timeout)
        return None if self.proc is None else self.proc.returncode

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=100)

    def request(self, method: str, path: str, **kw) -> httpx.Response:
        return httpx.request(method, self.url + path, timeout=100, **kw)


def status(worker: WorkerProcess, name: str) -> dict:
    r = worker.get(f"/connectors/{name}/status")
    r.raise_for_status()
    return r.json()


def all_running(worker: WorkerProcess, name: str, tasks: int, on: set[str] | None = None) -> bool:
    s = status(worker, name)
    states = [s["connector"]] + s["tasks"]
    if s["connector"]["state"] != "RUNNING" or len(s["tasks"]) != tasks:
        return False
    if any(x["state"] != "RUNNING" for x in states):
        return False
    return on is None or all(x["worker_id"] in on for x in states)
