"""The test kit's ports, Java artifact lists and worker processes (no Java or Kafka needed)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from kconnect.testing.java import CONNECT_VERSION, kafka_artifacts, worker_artifacts
from kconnect.testing.java_worker import WorkerProcess, eventually, kconnect_command
from kconnect.testing.ports import free_port, free_ports


def test_free_ports_are_distinct_and_bindable() -> None:
    ports = free_ports(5)
    assert len(set(ports)) == 5
    for port in (*ports, free_port()):
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_artifacts_keep_their_order_and_log_through_slf4j_1_7() -> None:
    assert kafka_artifacts("connect-json", version="4.4.0") == [
        "org.apache.kafka:connect-json:4.4.0"
    ]
    assert worker_artifacts("connect-transforms") == [
        f"org.apache.kafka:connect-runtime:{CONNECT_VERSION}",
        f"org.apache.kafka:connect-file:{CONNECT_VERSION}",
        f"org.apache.kafka:connect-json:{CONNECT_VERSION}",
        f"org.apache.kafka:connect-transforms:{CONNECT_VERSION}",
        "org.apache.logging.log4j:log4j-core:2.25.5",
        # slf4j 2's binding (log4j-slf4j2-impl) would leave the worker silent
        "org.apache.logging.log4j:log4j-slf4j-impl:2.25.5",
    ]


def test_kconnect_command_runs_this_interpreter() -> None:
    assert kconnect_command("standalone", Path("w.properties"), "c.properties") == [
        sys.executable, "-m", "kconnect.cli.main", "standalone", "w.properties", "c.properties",
    ]  # fmt: skip


def test_eventually_returns_the_first_true_answer_or_names_what_it_waited_for() -> None:
    answers = iter([0, KeyError("not yet"), 7])

    def check() -> int:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert eventually(check, 5) == 7
    with pytest.raises(AssertionError, match="timed out waiting for nothing: False"):
        eventually(lambda: False, 0.3, "nothing")


def test_worker_process_waits_for_its_rest_api_and_stops(tmp_path: Path) -> None:
    port = free_port()
    server = WorkerProcess(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        tmp_path / "server.log",
        url=f"http://127.0.0.1:{port}",
        label="server",
    )
    try:
        server.wait_ready(30, path="/")
        assert server.running()
    finally:
        server.stop()
    assert not server.running()


def test_worker_process_that_exits_fails_the_wait_with_its_log(tmp_path: Path) -> None:
    worker = WorkerProcess(
        [sys.executable, "-c", "import sys; print('no bootstrap.servers'); sys.exit(2)"],
        tmp_path / "worker.log",
        url=f"http://127.0.0.1:{free_port()}",
        label="broken",
    )
    with pytest.raises(AssertionError, match=r"broken exited \(2\)[\s\S]*no bootstrap.servers"):
        worker.wait_ready(30)
    assert "no bootstrap.servers" in worker.exit_text(5)
