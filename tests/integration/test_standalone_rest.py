"""``kconnect standalone`` as a subprocess with the FileStream connectors, driven over HTTP
(httpx) and through a third-party Kafka Connect client (``kafka-connect-py``): create, status,
pause/resume, stop, offsets, restart, delete; offsets survive a clean restart and ``kill -9``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from kconnect.testing.ports import free_port

pytest.importorskip("kconnect.runtime.worker.worker")
pytest.importorskip("kconnect.connectors.file.source_connector")

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


def _wait(predicate, timeout=30.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


class Worker:
    def __init__(self, tmp_path, bootstrap, flush_ms=500):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.props = tmp_path / "worker.properties"
        self.props.write_text(
            f"bootstrap.servers={bootstrap}\n"
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
            "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
            f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
            f"offset.flush.interval.ms={flush_ms}\n"
            f"listeners=http://127.0.0.1:{self.port}\n"
        )
        self.proc = None
        self.log = tmp_path / "worker.log"

    def start(self):
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kconnect.cli.main", "standalone", str(self.props)],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait(lambda: httpx.get(self.url + "/health").status_code == 200, what="worker health")

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)


@pytest.fixture
def worker(tmp_path, kafka_bootstrap):
    w = Worker(tmp_path, kafka_bootstrap)
    w.start()
    yield w
    w.stop(signal.SIGKILL)


def _source(tmp_path, topic):
    src = tmp_path / "in.txt"
    src.write_text("".join(f"line-{i}\n" for i in range(100)))
    return src, {
        "connector.class": "FileStreamSource",
        "file": str(src),
        "topic": topic,
        "tasks.max": "1",
    }


def _offset_position(url, name):
    offsets = httpx.get(f"{url}/connectors/{name}/offsets").json()["offsets"]
    return offsets[0]["offset"]["position"] if offsets else 0


def test_lifecycle_over_http(worker, tmp_path):
    topic = f"h-src-{os.getpid()}-{time.time_ns()}"
    src, config = _source(tmp_path, topic)
    r = httpx.post(worker.url + "/connectors", json={"name": "src", "config": config})
    assert r.status_code == 201 and r.headers["location"] == worker.url + "/connectors/src"
    assert r.json()["type"] == "source" and r.json()["config"]["name"] == "src"
    assert httpx.post(worker.url + "/connectors", json={"name": "src", "config": config}).json() == {
        "error_code": 409, "message": "Connector src already exists",
    }  # fmt: skip
    _wait(
        lambda: (
            httpx.get(worker.url + "/connectors/src/status").json()["tasks"][0]["state"]
            == "RUNNING"
        )
    )
    assert httpx.put(worker.url + "/connectors/src/pause").status_code == 202
    _wait(
        lambda: (
            httpx.get(worker.url + "/connectors/src/status").json()["connector"]["state"]
            == "PAUSED"
        )
    )
    assert httpx.put(worker.url + "/connectors/src/resume").status_code == 202
    _wait(
        lambda: (
            httpx.get(worker.url + "/connectors/src/status").json()["connector"]["state"]
            == "RUNNING"
        )
    )
    r = httpx.post(worker.url + "/connectors/src/restart?includeTasks=true")
    assert r.status_code == 202 and r.json()["connector"]["state"] == "RESTARTING"
    assert httpx.post(worker.url + "/connectors/src/restart").status_code == 204
    # offsets can only be changed when STOPPED
    assert httpx.delete(worker.url + "/connectors/src/offsets").status_code == 400
    _wait(lambda: _offset_position(worker.url, "src") > 0, what="committed offsets")
    assert httpx.put(worker.url + "/connectors/src/stop").status_code == 204
    _wait(
        lambda: (
            httpx.get(worker.url + "/connectors/src/status").json()["connector"]["state"]
            == "STOPPED"
        )
    )
    assert httpx.get(worker.url + "/connectors/src/tasks").json() == []
    r = httpx.patch(
        worker.url + "/connectors/src/offsets",
        json={"offsets": [{"partition": {"filename": str(src)}, "offset": {"position": 7}}]},
    )
    assert r.status_code == 200, r.text
    assert _offset_position(worker.url, "src") == 7
    # a STOPPED connector resumes with its tasks (the worker still holds it, STOPPED)
    r = httpx.put(worker.url + "/connectors/src/resume")
    assert r.status_code == 202, r.text
    _wait(lambda: _states(worker.url, "src") == ("RUNNING", ["RUNNING"]), what="src resumed")
    assert httpx.delete(worker.url + "/connectors/src").status_code == 204
    assert httpx.get(worker.url + "/connectors/src").status_code == 404
    assert httpx.put(worker.url + "/connectors/src/resume").json() == {
        "error_code": 404, "message": "Unknown connector src",
    }  # fmt: skip


def _states(url, name):
    status = httpx.get(f"{url}/connectors/{name}/status").json()
    return status["connector"]["state"], [t["state"] for t in status["tasks"]]


def test_a_connector_created_stopped_resumes(worker, tmp_path):
    _, config = _source(tmp_path, f"h-stopped-{os.getpid()}-{time.time_ns()}")
    r = httpx.post(
        worker.url + "/connectors",
        json={"name": "c", "config": config, "initial_state": "STOPPED"},
    )
    assert r.status_code == 201, r.text
    _wait(lambda: _states(worker.url, "c") == ("STOPPED", []), what="c STOPPED")
    for _ in range(2):  # a second resume of a running connector changes nothing
        r = httpx.put(worker.url + "/connectors/c/resume")
        assert r.status_code == 202, r.text
        _wait(lambda: _states(worker.url, "c") == ("RUNNING", ["RUNNING"]), what="c resumed")


def test_offsets_survive_clean_restart_and_kill_9(tmp_path, kafka_bootstrap):
    topic = f"h-off-{os.getpid()}-{time.time_ns()}"
    _, config = _source(tmp_path, topic)
    w = Worker(tmp_path, kafka_bootstrap, flush_ms=200)
    w.start()
    try:
        httpx.post(w.url + "/connectors", json={"name": "src", "config": config}).raise_for_status()
        _wait(lambda: _offset_position(w.url, "src") > 0, what="first flush")
        w.stop(signal.SIGTERM)
        assert w.proc.returncode == 0, w.log.read_text()
        w.start()
        # the REST-created connector is gone (memory config store) but the offsets file stays
        httpx.post(w.url + "/connectors", json={"name": "src", "config": config}).raise_for_status()
        before = _offset_position(w.url, "src")
        assert before > 0
        w.stop(signal.SIGKILL)
        w.start()
        httpx.post(w.url + "/connectors", json={"name": "src", "config": config}).raise_for_status()
        assert _offset_position(w.url, "src") >= before  # at-least-once, never corrupt
    finally:
        w.stop(signal.SIGKILL)


def test_third_party_client_kafka_connect_py(worker, tmp_path):
    kafka_connect = pytest.importorskip("kafka_connect")
    client = kafka_connect.KafkaConnect(url=worker.url)
    assert "version" in client.get_cluster_info()
    _, config = _source(tmp_path, f"h-tp-{time.time_ns()}")
    client.create_connector({"name": "tp", "config": config})
    assert "tp" in client.list_connectors()
    assert client.get_connector("tp")["name"] == "tp"
    assert client.get_connector_config("tp")["connector.class"] == "FileStreamSource"
    _wait(lambda: client.get_connector_status("tp")["connector"]["state"] == "RUNNING")
    client.pause_connector("tp")
    client.resume_connector("tp")
    client.restart_connector("tp")
    assert any(
        p["class"].endswith("FileStreamSourceConnector") for p in client.list_connector_plugins()
    )
    client.stop_connector("tp")
    client.delete_connector("tp")
    assert "tp" not in client.list_connectors()
