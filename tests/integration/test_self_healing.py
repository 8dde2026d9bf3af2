"""Self-healing connectors and tasks (kconnect's automatic restarts) on a real worker.

A ``kconnect distributed`` worker process (tasks in task processes) against the real broker:
a FileStreamSink whose directory does not exist yet fails, is restarted with backoff and heals
once the directory appears; the plan is visible in ``GET /connectors/{c}/auto-restart``,
``/metrics`` and ``kconnect status``; a manual restart resets it; a JDBC sink whose table is
missing with ``auto.create=false`` is left FAILED with the reason, not retried forever.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from tests.integration.distributed_support import Cluster, WorkerProcess, all_running, wait_for
from tests.integration.worker_support import produce

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


@pytest.fixture
def cluster(tmp_path: Path, kafka_bootstrap: str):
    c = Cluster(tmp_path, kafka_bootstrap)
    yield c
    c.close()


def task_state(worker: WorkerProcess, name: str) -> dict:
    return worker.get(f"/connectors/{name}/status").json()["tasks"][0]


def plan(worker: WorkerProcess, name: str) -> dict | None:
    r = worker.get(f"/connectors/{name}/auto-restart")
    if r.status_code == 404:  # no status written yet
        return None
    assert r.status_code == 200, r.text
    tasks = r.json()["tasks"]
    return tasks[0] if tasks else None


def test_a_failed_task_heals_itself_once_the_cause_is_gone(
    cluster: Cluster, tmp_path: Path, kafka_bootstrap: str, unique_topic: str
) -> None:
    worker = cluster.add_worker()
    produce(kafka_bootstrap, unique_topic, [(None, f"v{i}".encode()) for i in range(100)])
    out_dir = tmp_path / "not-yet"
    out = out_dir / "out.txt"
    name = f"heal-{uuid.uuid4().hex[:6]}"
    r = worker.request(
        "PUT",
        f"/connectors/{name}/config",
        json={
            "connector.class": "FileStreamSink",
            "file": str(out),
            "topics": unique_topic,
            "auto.restart.initial.backoff.ms": "500",
            "auto.restart.max.backoff.ms": "1000",
            "auto.restart.max.attempts": "-1",
        },
    )
    assert r.status_code == 201, r.text
    first = wait_for(lambda: plan(worker, name), what="an automatic restart planned")
    assert first["state"] in ("FAILED", "RESTARTING", "RUNNING")
    assert first["max_attempts"] == -1 and first["reason"] is None
    assert "No such file or directory" in (first["trace"] or "")
    wait_for(lambda: (plan(worker, name) or {}).get("attempts", 0) >= 2, what="a second attempt")
    # the plan is in /metrics and in kconnect status while the task stays FAILED
    metrics = worker.get("/metrics").text
    assert (
        f'kafka_connect_kconnect_auto_restart_metrics_restart_attempts{{connector="{name}",task="0"}}'
        in metrics
    )
    shown = subprocess.run(
        [sys.executable, "-m", "kconnect.cli.main", "status", "--url", worker.url],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    assert "auto-restart: attempt" in shown or "RESTARTING" in shown or "RUNNING" in shown, shown

    out_dir.mkdir()  # the cause goes away: the next automatic restart succeeds
    wait_for(lambda: all_running(worker, name, 1), what="the task RUNNING again", timeout=30)
    wait_for(lambda: out.exists() and len(out.read_text().splitlines()) == 100, what="every record")
    assert task_state(worker, name)["state"] == "RUNNING"

    # A manual restart starts the count afresh.
    r = worker.request("POST", f"/connectors/{name}/tasks/0/restart")
    assert r.status_code == 204, r.text
    wait_for(lambda: plan(worker, name) is None, what="the count reset by the manual restart")
    assert all_running(worker, name, 1)


def test_a_missing_table_with_auto_create_off_is_not_retried(
    cluster: Cluster, kafka_bootstrap: str, unique_topic: str, pg_dsn: str
) -> None:
    worker = cluster.add_worker()
    table = f"missing_{uuid.uuid4().hex[:8]}"
    value = (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],'
        b'"optional":false},"payload":{"id":1}}'
    )
    produce(kafka_bootstrap, unique_topic, [(None, value)])
    name = f"jdbc-{uuid.uuid4().hex[:6]}"
    url = pg_dsn.replace("postgresql://", "jdbc:postgresql://")
    user, password = "kcuser", "kcpw"
    host = url.split("@", 1)[1]
    r = worker.request(
        "PUT",
        f"/connectors/{name}/config",
        json={
            "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
            "connection.url": f"jdbc:postgresql://{host}",
            "connection.user": user,
            "connection.password": password,
            "topics": unique_topic,
            "table.name.format": table,
            "auto.create": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "auto.restart.initial.backoff.ms": "200",
        },
    )
    assert r.status_code == 201, r.text
    failed = wait_for(
        lambda: (p := plan(worker, name)) is not None and p.get("reason") and p,
        what="the failure classified as one a restart cannot heal",
    )
    assert failed["attempts"] == 0 and failed["next_attempt_ms"] is None
    assert "not restarted automatically" in failed["reason"]
    time.sleep(2)  # well past the 200 ms backoff: still FAILED, never restarted
    assert task_state(worker, name)["state"] == "FAILED"
    assert plan(worker, name)["attempts"] == 0
    with psycopg.connect(pg_dsn) as conn:
        exists = conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()
    assert exists == (None,)
