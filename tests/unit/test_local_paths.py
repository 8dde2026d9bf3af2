"""kconnect.local.paths: home resolution, pid files, state files, the lock."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kconnect.local import paths


def test_home_defaults_to_dot_kconnect_in_cwd(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("KCONNECT_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    assert paths.home() == tmp_path.resolve() / ".kconnect"
    assert paths.cache_dir() == tmp_path.resolve() / ".kconnect" / "cache"


def test_home_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path / "h"))
    assert paths.home() == (tmp_path / "h").resolve()
    assert paths.pid_file("kafka") == (tmp_path / "h" / "kafka" / "kafka.pid").resolve()
    assert paths.state_file("postgres").name == "postgres.json"
    assert paths.log_file("kafka").name == "kafka.log"


def test_pid_file_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "a" / "x.pid"
    assert paths.read_pid(f) is None
    paths.write_pid(f, 4242)
    assert f.read_text() == "4242\n"
    assert paths.read_pid(f) == 4242


@pytest.mark.parametrize("content", ["", "abc", "-5", "0", "\n"])
def test_bad_pid_files_read_as_none(tmp_path: Path, content: str) -> None:
    f = tmp_path / "x.pid"
    f.write_text(content)
    assert paths.read_pid(f) is None


def test_running_pid_ignores_dead_processes(tmp_path: Path) -> None:
    f = tmp_path / "x.pid"
    paths.write_pid(f, os.getpid())
    assert paths.running_pid(f) == os.getpid()

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    paths.write_pid(f, proc.pid)
    assert not paths.pid_alive(proc.pid)
    assert paths.running_pid(f) is None


def test_zombie_is_not_alive(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while paths.pid_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # exited but not yet reaped: a zombie
    assert not paths.pid_alive(proc.pid)
    proc.wait()


def test_state_file_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "s" / "kafka.json"
    assert paths.read_state(f) is None
    paths.write_state(f, {"address": "127.0.0.1:9092", "pid": 1})
    assert paths.read_state(f) == {"address": "127.0.0.1:9092", "pid": 1}
    f.write_text("[1, 2]")
    assert paths.read_state(f) is None
    f.write_text("{not json")
    assert paths.read_state(f) is None


def test_file_lock_serialises_holders(tmp_path: Path) -> None:
    lock = tmp_path / "stack.lock"
    events: list[str] = []
    entered = threading.Event()

    def second() -> None:
        entered.set()
        with paths.file_lock(lock, timeout_s=10):
            events.append("second")

    with paths.file_lock(lock):
        t = threading.Thread(target=second)
        t.start()
        entered.wait(5)
        time.sleep(0.4)
        events.append("first-done")
    t.join(10)
    assert events == ["first-done", "second"]


def test_file_lock_times_out(tmp_path: Path) -> None:
    lock = tmp_path / "stack.lock"
    with paths.file_lock(lock):
        errors: list[BaseException] = []

        def contender() -> None:
            try:
                with paths.file_lock(lock, timeout_s=0.3):
                    pass
            except BaseException as e:
                errors.append(e)

        t = threading.Thread(target=contender)
        t.start()
        t.join(5)
    assert len(errors) == 1 and isinstance(errors[0], TimeoutError)


def test_running_pid_checks_the_command_line(tmp_path: Path) -> None:
    f = tmp_path / "x.pid"
    paths.write_pid(f, os.getpid())
    cmdline = paths.process_cmdline(os.getpid())
    assert cmdline
    assert paths.running_pid(f, expect=cmdline.split()[0]) == os.getpid()
    assert paths.running_pid(f, expect="kafka.Kafka-not-this-process") is None
