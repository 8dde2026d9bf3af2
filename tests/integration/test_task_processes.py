"""Task processes: one ``kconnect distributed`` worker runs its tasks in child processes.

Against the real broker, with real worker and task processes: busy tasks land in separate task
processes and copy every record; ``/metrics`` and the status API show one worker; a task
process killed with SIGKILL fails its task with the exit cause and a restart brings it back;
log levels set through ``/admin/loggers`` reach the task processes; kill -9 of the worker takes
its task processes with it at once (nothing writes after), and a worker without tasks runs no
task process.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.integration.distributed_support import Cluster, WorkerProcess, all_running, wait_for

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

TASK_PROCESS = b"kconnect.runtime.worker.task_processes.task_process"


def task_processes(worker: WorkerProcess) -> list[int]:
    """Pids of the worker's live task processes."""
    assert worker.proc is not None
    pids: list[int] = []
    for tid in os.listdir(f"/proc/{worker.proc.pid}/task"):
        try:
            children = Path(f"/proc/{worker.proc.pid}/task/{tid}/children").read_text().split()
        except OSError:
            continue
        for pid in map(int, children):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if TASK_PROCESS in cmdline and _alive(pid):
                pids.append(pid)
    return sorted(set(pids))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def line_count(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


@pytest.fixture
def cluster(tmp_path: Path, kafka_bootstrap: str):
    c = Cluster(tmp_path, kafka_bootstrap)
    yield c
    c.close()


def file_pipeline(worker: WorkerProcess, tmp_path: Path, lines: int) -> tuple[str, str, Path, Path]:
    topic = f"tp-{uuid.uuid4().hex[:8]}"
    src_file, out_file = tmp_path / "in.txt", tmp_path / "out.txt"
    src_file.write_text("".join(f"line-{i}\n" for i in range(lines)))
    source, sink = f"src-{topic}", f"sink-{topic}"
    for name, config in (
        (source, {"connector.class": "FileStreamSource", "file": str(src_file), "topic": topic}),
        (sink, {"connector.class": "FileStreamSink", "file": str(out_file), "topics": topic}),
    ):
        r = worker.request("PUT", f"/connectors/{name}/config", json=config)
        assert r.status_code == 201, r.text
    for name in (source, sink):
        wait_for(lambda n=name: all_running(worker, n, 1), what=f"{name} running")
    return source, sink, src_file, out_file


def metric_lines(worker: WorkerProcess, needle: str) -> list[str]:
    text = worker.get("/metrics").text
    return [ln for ln in text.splitlines() if ln.startswith(needle)]


def test_busy_tasks_run_in_task_processes_and_heal_after_a_restart(
    cluster: Cluster, tmp_path: Path
) -> None:
    worker = cluster.add_worker()
    assert task_processes(worker) == []  # no tasks yet: no task process (idle RSS stays low)
    source, sink, src_file, out_file = file_pipeline(worker, tmp_path, 20_000)
    wait_for(lambda: line_count(out_file) == 20_000, what="every line copied")
    pids = task_processes(worker)
    assert len(pids) == 2  # the two busy tasks went to two task processes (two cores)
    # One worker to the outside: statuses name it, /metrics merges the task processes' groups.
    s = worker.get(f"/connectors/{source}/status").json()
    assert s["tasks"][0]["worker_id"] == worker.worker_id
    polled = metric_lines(worker, "kafka_connect_source_task_metrics_source_record_poll_total{")
    assert polled == [
        f'kafka_connect_source_task_metrics_source_record_poll_total{{connector="{source}",'
        'task="0"} 20000.0'
    ]
    assert metric_lines(worker, "kafka_connect_connect_worker_metrics_task_count ") == [
        "kafka_connect_connect_worker_metrics_task_count 2.0"
    ]
    per_connector = worker.get(f"/connectors/{sink}/metrics").text
    assert "sink-record-send-total" in per_connector

    # A task process killed on its own: its task is FAILED with the cause, the other runs on.
    victim = pids[0]
    os.kill(victim, signal.SIGKILL)

    def failed_task() -> tuple[str, str] | None:
        # the trace is read with the FAILED state: auto.restart may restart the task soon after
        for name in (source, sink):
            task = worker.get(f"/connectors/{name}/status").json()["tasks"][0]
            if task["state"] == "FAILED":
                return name, str(task["trace"])
        return None

    name, trace = wait_for(failed_task, what="a task FAILED after its process was killed")
    assert f"The task process (pid {victim})" in trace and "killed by SIGKILL" in trace
    other = sink if name == source else source
    assert worker.get(f"/connectors/{other}/status").json()["tasks"][0]["state"] == "RUNNING"

    # A restart runs it again, in a new task process, and the pipeline goes on.
    r = worker.request("POST", f"/connectors/{name}/tasks/0/restart")
    assert r.status_code == 204, r.text
    wait_for(lambda: all_running(worker, name, 1), what=f"{name} running again")
    assert victim not in task_processes(worker)
    with open(src_file, "a") as f:
        f.write("".join(f"line-{i}\n" for i in range(20_000, 20_500)))
    # at least once: the restarted task may copy some lines again, so a line count is no
    # sign that every appended line arrived
    expected = {f"line-{i}" for i in range(20_500)}
    wait_for(lambda: set(out_file.read_text().splitlines()) >= expected,
             what="every line, the appended ones too, copied after the restart")  # fmt: skip
    assert set(out_file.read_text().splitlines()) == expected  # nothing lost, nothing else


def test_log_levels_reach_task_processes(cluster: Cluster, tmp_path: Path) -> None:
    worker = cluster.add_worker()
    _source, _sink, _src, out_file = file_pipeline(worker, tmp_path, 100)
    wait_for(lambda: line_count(out_file) == 100, what="lines copied")
    assert task_processes(worker)
    r = worker.request(
        "PUT", "/admin/loggers/kconnect.connectors.file.sink_task", json={"level": "DEBUG"}
    )
    assert r.status_code == 200, r.text
    # The sink task (in a task process) logs each flush at DEBUG: those lines now appear in
    # the worker's log, which the task processes share.
    wait_for(
        lambda: "Flushing output stream for" in worker.log.read_text(),
        what="a DEBUG line from the task process",
    )


def test_kill_9_of_the_worker_stops_its_task_processes_at_once(
    cluster: Cluster, tmp_path: Path
) -> None:
    worker = cluster.add_worker()
    source, _sink, src_file, out_file = file_pipeline(worker, tmp_path, 1_000)
    wait_for(lambda: line_count(out_file) == 1_000, what="lines copied")
    pids = task_processes(worker)
    assert pids
    worker.stop(signal.SIGKILL)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], "task processes outlived their worker"
    # Nothing writes after the worker is gone.
    copied = line_count(out_file)
    with open(src_file, "a") as f:
        f.write("".join(f"late-{i}\n" for i in range(100)))
    time.sleep(2)
    assert line_count(out_file) == copied
    with pytest.raises(httpx.HTTPError):
        worker.get(f"/connectors/{source}/status")


def test_a_standalone_worker_stopped_with_sigterm_stops_its_task_processes_gracefully(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    """Connectors made over REST start their task processes from a REST request's thread; the
    processes must still live until the worker stops their tasks in order (a process forked
    from a thread that exits would get its PR_SET_PDEATHSIG SIGKILL then): on SIGTERM the sink
    commits its last offsets and leaves, the source flushes its offsets, nothing is killed."""
    from confluent_kafka import Consumer, TopicPartition

    from kconnect.testing.ports import free_port
    from tests.integration.rest_support import WorkerProcess as Standalone
    from tests.integration.rest_support import base_props

    port = free_port()
    worker = Standalone(tmp_path, base_props(kafka_bootstrap, tmp_path, port, **{
        "task.processes": "2", "offset.flush.interval.ms": "600000",
    })).start()  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        worker.wait_ready(base + "/")
        topic = f"tp-{uuid.uuid4().hex[:8]}"
        src_file, out_file = tmp_path / "in.txt", tmp_path / "out.txt"
        src_file.write_text("".join(f"line-{i}\n" for i in range(2_000)))
        source, sink = f"src-{topic}", f"sink-{topic}"
        for name, config in (
            (source, {"connector.class": "FileStreamSource", "file": str(src_file),
                      "topic": topic}),
            (sink, {"connector.class": "FileStreamSink", "file": str(out_file), "topics": topic}),
        ):  # fmt: skip
            r = httpx.post(base + "/connectors", json={"name": name, "config": config}, timeout=30)
            assert r.status_code == 201, r.text
        wait_for(lambda: line_count(out_file) == 2_000, what="every line copied")
        assert worker.proc is not None
        pids = [
            int(p)
            for tid in os.listdir(f"/proc/{worker.proc.pid}/task")
            for p in Path(f"/proc/{worker.proc.pid}/task/{tid}/children").read_text().split()
        ]
        assert len(pids) == 2
        worker.proc.send_signal(signal.SIGTERM)
        assert worker.wait_exit(60) == 0, worker.log()
    finally:
        worker.stop()
    log = worker.log()
    assert "killed by SIGKILL" not in log, log
    assert "went away" not in log, log
    assert "Restarting task" not in log, log
    assert not [p for p in pids if _alive(p)], "task processes outlived their worker"
    # The sink's last offsets were committed on the way out (offset.flush.interval.ms is 10
    # minutes, so only the stop can have committed them) ...
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": f"connect-{sink}"})
    try:
        committed = c.committed([TopicPartition(topic, 0)], timeout=10)
    finally:
        c.close()
    assert committed[0].offset == 2_000
    # ... and the source's position was written to the offsets file.
    assert str(src_file) in (tmp_path / "offsets").read_text(errors="replace")
