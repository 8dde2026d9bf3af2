"""Exactly-once source (KIP-618) on kconnect worker processes, against the real broker.

Workers run with ``exactly.once.source.support=enabled`` (tasks in task processes, the
default): a FileStreamSource keeps reading a growing file while the worker running its task is
killed with SIGKILL again and again; a ``read_committed`` consumer must then see every line
exactly once -- no gap, no duplicate -- where at-least-once delivery duplicates what was sent
since the last offset flush. Also: the task count record the leader writes, the signed
internal ``PUT /connectors/{c}/fence`` (from a follower too), and the validation of
``exactly.once.support`` / ``transaction.boundary``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import signal
import threading
import time
import uuid
from pathlib import Path

import orjson
import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.integration.distributed_support import Cluster, status, wait_for

pytestmark = [pytest.mark.kafka]

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


class ExactlyOnceCluster(Cluster):
    def props(self, port: int) -> str:
        return super().props(port) + "exactly.once.source.support=enabled\n"


@pytest.fixture
def eos_cluster(tmp_path: Path, kafka_bootstrap: str):
    c = ExactlyOnceCluster(tmp_path, kafka_bootstrap)
    yield c
    c.close()


def read_committed(bootstrap: str, topic: str, expected: int, timeout: float = 90.0) -> list[str]:
    """Every value of ``topic`` a read_committed consumer sees once ``expected`` arrived (or
    the timeout passed), then a little longer, so duplicates after the last line show too."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"eos-reader-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
        }
    )
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        out: list[str] = []
        deadline = time.monotonic() + timeout
        settle: float | None = None
        while time.monotonic() < deadline:
            for m in c.consume(10000, 0.5):
                if m.error() is None:
                    out.append(m.value().decode())
            if len(out) >= expected and settle is None:
                settle = time.monotonic() + 3.0
            if settle is not None and time.monotonic() >= settle:
                break
        return out
    finally:
        c.close()


def config_records(bootstrap: str, topic: str) -> list[tuple[str, object]]:
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"cfg-reader-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
        }
    )
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        out: list[tuple[str, object]] = []
        while True:
            msgs = c.consume(1000, 2.0)
            if not msgs:
                break
            done = False
            for m in msgs:
                if m.error() is not None:
                    done = True
                    continue
                value = None if m.value() is None else orjson.loads(m.value())
                out.append((m.key().decode(), value))
            if done:
                break
        return out
    finally:
        c.close()


@pytest.mark.slow
def test_kill_9_rounds_leave_no_gap_and_no_duplicate(eos_cluster, tmp_path, kafka_bootstrap):
    workers = [eos_cluster.add_worker(), eos_cluster.add_worker()]
    source = tmp_path / "in.txt"
    source.write_text("")
    topic = f"eos-{uuid.uuid4().hex[:8]}"
    total = 60_000
    written = threading.Event()

    def append() -> None:
        # about 1,000 lines/s, so the file keeps growing through every kill round
        with open(source, "a") as f:
            for i in range(total):
                f.write(f"line-{i:06d}\n")
                if i % 100 == 99:
                    f.flush()
                    time.sleep(0.1)
        written.set()

    r = workers[0].request(
        "PUT",
        "/connectors/eos-file/config",
        json={
            "connector.class": FILE_SOURCE,
            "file": str(source),
            "topic": topic,
            "batch.size": "200",
            "exactly.once.support": "required",
        },
    )
    assert r.status_code == 201, r.text
    wait_for(
        lambda: status(workers[0], "eos-file")["tasks"][0]["state"] == "RUNNING",
        what="eos-file task RUNNING",
    )
    writer = threading.Thread(target=append, daemon=True)
    writer.start()

    # The leader wrote the task count record after the first start (no fencing needed then).
    group = eos_cluster.group
    records = config_records(kafka_bootstrap, f"{group}-configs")
    assert ("tasks-fencing-eos-file", {"task-count": 1}) in records

    for round_ in range(3):
        time.sleep(3.0)
        assert not written.is_set(), "the file must still grow while tasks are killed"
        owner = status(eos_cluster.alive()[0], "eos-file")
        owner_id = owner["tasks"][0]["worker_id"]
        victim = next(w for w in eos_cluster.alive() if w.worker_id == owner_id)
        victim.stop(signal.SIGKILL)
        survivor = next(w for w in eos_cluster.alive())
        eos_cluster.add_worker()  # a replacement joins, as in Kafka's bounce tests

        def moved(survivor=survivor, owner_id=owner_id) -> bool:
            task = status(survivor, "eos-file")["tasks"][0]
            return bool(task["state"] == "RUNNING" and task["worker_id"] != owner_id)

        wait_for(
            moved,
            timeout=90,
            what=f"round {round_}: the task running again on another worker",
        )
    assert written.wait(120)
    lines = read_committed(kafka_bootstrap, topic, total, timeout=120)
    expected = [f"line-{i:06d}" for i in range(total)]
    duplicates = len(lines) - len(set(lines))
    missing = sorted(set(expected) - set(lines))
    assert not missing, f"{len(missing)} lines lost, first {missing[:5]}"
    assert duplicates == 0, f"{duplicates} duplicates read_committed"
    assert lines == expected  # in order, one partition


def _session_key(bootstrap: str, group: str) -> bytes:
    keys = [v for k, v in config_records(bootstrap, f"{group}-configs") if k == "session-key"]
    assert keys, "no session key in the config topic"
    return base64.b64decode(keys[-1]["key"])  # type: ignore[index]


def test_fence_endpoint_is_signed_and_forwarded(eos_cluster, tmp_path, kafka_bootstrap):
    a, b = eos_cluster.add_worker(), eos_cluster.add_worker()
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n")
    topic = f"eos-{uuid.uuid4().hex[:8]}"
    r = a.request(
        "PUT",
        "/connectors/fenced/config",
        json={"connector.class": FILE_SOURCE, "file": str(source), "topic": topic},
    )
    assert r.status_code == 201, r.text
    wait_for(lambda: status(a, "fenced")["tasks"][0]["state"] == "RUNNING", what="task RUNNING")
    # unsigned: refused as Kafka refuses it
    r = a.request("PUT", "/connectors/fenced/fence")
    assert r.status_code == 400, r.text
    assert r.json()["message"] == "Internal request missing required signature"
    key = _session_key(kafka_bootstrap, eos_cluster.group)
    signature = base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
    headers = {
        "X-Connect-Authorization": signature,
        "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
    }
    for worker in (a, b):  # the leader answers, the follower forwards
        r = worker.request("PUT", "/connectors/fenced/fence", headers=headers)
        assert r.status_code == 204, r.text
    bad = {**headers, "X-Connect-Authorization": base64.b64encode(b"x" * 32).decode()}
    r = a.request("PUT", "/connectors/fenced/fence", headers=bad)
    assert r.status_code == 403, r.text
    r = a.request("PUT", "/connectors/nope/fence", headers=headers)
    assert r.status_code == 404, r.text
    lines = read_committed(kafka_bootstrap, topic, 2, timeout=30)
    assert lines == ["a", "b"]


def test_exactly_once_validation(eos_cluster, tmp_path):
    w = eos_cluster.add_worker()

    def errors(config: dict[str, str], key: str) -> list[str]:
        r = w.request("PUT", f"/connector-plugins/{FILE_SOURCE}/config/validate", json=config)
        assert r.status_code == 200, r.text
        for c in r.json()["configs"]:
            if c["value"]["name"] == key:
                return list(c["value"]["errors"])
        raise AssertionError(f"{key} not in the answer")

    base = {"connector.class": FILE_SOURCE, "topic": "t", "name": "v"}
    assert errors({**base, "file": "/tmp/x", "exactly.once.support": "required"},
                  "exactly.once.support") == []  # fmt: skip
    assert errors({**base, "exactly.once.support": "required"}, "exactly.once.support") == [
        "The connector does not support exactly-once semantics with the provided configuration."
    ]
    boundary = {**base, "file": "/tmp/x", "transaction.boundary": "connector"}
    assert errors(boundary, "transaction.boundary") == [
        "The connector does not support connector-defined transaction boundaries with the "
        "given configuration. Please reconfigure it to use a different transaction boundary "
        "definition."
    ]


class UpgradingCluster(Cluster):
    """A cluster whose ``exactly.once.source.support`` changes between worker restarts."""

    mode = "disabled"

    def props(self, port: int) -> str:
        return super().props(port) + f"exactly.once.source.support={self.mode}\n"


@pytest.mark.slow
def test_two_step_rolling_upgrade_and_the_fencable_leader(tmp_path, kafka_bootstrap):
    """disabled -> preparing -> enabled, one worker at a time, with a connector running
    throughout; then the leader's config-topic writer (``connect-cluster-<group>``) is fenced
    from outside: its next write fails with Kafka's retriable error and the one after works."""
    from kconnect.kafka.clients.fencing import fence_producers

    cluster = UpgradingCluster(tmp_path, kafka_bootstrap)
    try:
        workers = [cluster.add_worker(), cluster.add_worker()]
        source = tmp_path / "in.txt"
        source.write_text("".join(f"early-{i}\n" for i in range(1000)))
        topic = f"eos-up-{uuid.uuid4().hex[:8]}"
        config = {"connector.class": FILE_SOURCE, "file": str(source), "topic": topic}
        r = workers[0].request("PUT", "/connectors/up/config", json=config)
        assert r.status_code == 201, r.text

        def running() -> bool:
            alive = cluster.alive()
            return bool(alive) and status(alive[0], "up")["tasks"][0]["state"] == "RUNNING"

        wait_for(running, what="task RUNNING")
        for mode in ("preparing", "enabled"):
            cluster.mode = mode
            for w in workers:
                w.stop(signal.SIGTERM)
                w.props.write_text(cluster.props(w.port))
                w.start()
                wait_for(running, 90, f"task RUNNING with {w.worker_id} on {mode}")
                with open(source, "a") as f:
                    f.write("".join(f"{mode}-{w.port}-{i}\n" for i in range(500)))
        wait_for(
            lambda: (
                "tasks-fencing-up"
                in dict(config_records(kafka_bootstrap, f"{cluster.group}-configs"))
            ),
            60,
            "the task count record of the first exactly-once task generation",
        )
        lines = read_committed(kafka_bootstrap, topic, 3000, timeout=60)
        assert set(lines) >= {f"early-{i}" for i in range(1000)}
        assert len(set(lines)) == 3000, "a line is missing"

        # Fence the leader's transactional config writer as a zombie leader would be fenced.
        fence_producers(
            {"bootstrap.servers": kafka_bootstrap}, [f"connect-cluster-{cluster.group}"], 30
        )
        r = workers[0].request("PUT", "/connectors/up/config", json={**config, "batch.size": "100"})
        assert r.status_code == 500, r.text
        assert r.json()["message"] == (
            "Failed to write to config topic; this may be due to a transient error and the "
            "request can be safely retried"
        )
        r = workers[0].request("PUT", "/connectors/up/config", json={**config, "batch.size": "100"})
        assert r.status_code == 200, r.text
    finally:
        cluster.close()


def test_a_new_task_generation_fences_the_old_one(eos_cluster, kafka_bootstrap):
    """tasks.max 2 -> 3: the leader fences the two producers of the previous generation
    before the three new tasks start, then records the new task count."""
    workers = [eos_cluster.add_worker(), eos_cluster.add_worker()]
    topic = f"eos-gen-{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": "org.apache.kafka.connect.tools.VerifiableSourceConnector",
        "topic": topic,
        "throughput": "50",
        "tasks.max": "2",
    }
    r = workers[0].request("PUT", "/connectors/gen/config", json=config)
    assert r.status_code == 201, r.text

    def running(n: int) -> bool:
        s = status(workers[0], "gen")
        return len(s["tasks"]) == n and all(t["state"] == "RUNNING" for t in s["tasks"])

    wait_for(lambda: running(2), 60, "2 tasks RUNNING")
    group = eos_cluster.group
    wait_for(
        lambda: (
            ("tasks-fencing-gen", {"task-count": 2})
            in config_records(kafka_bootstrap, f"{group}-configs")
        ),
        30,
        "the first generation's task count record",
    )
    r = workers[0].request("PUT", "/connectors/gen/config", json={**config, "tasks.max": "3"})
    assert r.status_code == 200, r.text
    wait_for(lambda: running(3), 60, "3 tasks RUNNING")
    wait_for(
        lambda: (
            dict(config_records(kafka_bootstrap, f"{group}-configs")).get("tasks-fencing-gen")
            == {"task-count": 3}
        ),
        30,
        "the new task count record",
    )
    logs = "".join(w.log.read_text() for w in workers)
    assert "Fencing out 2 task producers of connector gen before its 3 new tasks start" in logs
