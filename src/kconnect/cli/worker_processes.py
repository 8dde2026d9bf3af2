"""``kconnect distributed`` workers as operating-system processes, like ``connect-distributed.sh``
started on separate servers: each with its own properties file, log file and pid file.

A :class:`WorkerProcess` may be *detached* (its own session, so it outlives the Python process
that started it, as ``kconnect demo`` leaves its cluster running); :func:`stop_recorded`
finds such workers again through their pid files. All methods block the calling thread
(start waits for ``GET /health``); none is thread-safe.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

__all__ = ["WorkerProcess", "WorkerStartError", "port_in_use", "stop_recorded"]


class WorkerStartError(RuntimeError):
    """A worker exited or did not answer ``GET /health`` in time; the message names its log."""


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    import socket

    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


class WorkerProcess:
    """One worker: ``name`` (e.g. ``node01``) labels its files in ``workdir``."""

    def __init__(self, name: str, workdir: Path, port: int, properties: str) -> None:
        self.name = name
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.worker_id = f"127.0.0.1:{port}"
        self.props_file = workdir / f"{name}.properties"
        self.log_file = workdir / f"{name}.log"
        self.pid_file = workdir / f"{name}.pid"
        workdir.mkdir(parents=True, exist_ok=True)
        self.props_file.write_text(properties)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *, detach: bool = False, timeout_s: float = 90.0) -> None:
        """Start ``kconnect distributed <name>.properties`` and wait until it is healthy.

        Raises :class:`WorkerStartError` when the process exits first or ``timeout_s`` passes
        (the process is then killed).
        """
        with open(self.log_file, "wb") as log:  # one log per start, as the files are per node
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kconnect.cli.main", "distributed", str(self.props_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=detach,
            )
        self.pid_file.write_text(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise WorkerStartError(
                    f"worker {self.name} exited with status {self.proc.returncode} while "
                    f"starting; see {self.log_file}"
                )
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise WorkerStartError(
                    f"worker {self.name} did not answer {self.url}/health within "
                    f"{timeout_s:.0f} s; see {self.log_file}"
                )
            time.sleep(0.3)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """``kill -9``: no offsets committed, no group leave; the cluster notices through the
        group session timeout."""
        self._signal(signal.SIGKILL, 10.0)

    def stop(self, timeout_s: float = 60.0) -> None:
        """SIGTERM and wait (the worker commits, leaves the group and exits); SIGKILL after
        ``timeout_s``."""
        try:
            self._signal(signal.SIGTERM, timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()

    def _signal(self, sig: int, timeout_s: float) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=timeout_s)
        self.pid_file.unlink(missing_ok=True)


def _is_worker(pid: int) -> bool:
    """True when ``pid`` is a live ``kconnect ... distributed`` process (not a reused pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"distributed" in cmdline and any(b"kconnect" in part for part in cmdline)


def stop_recorded(workdir: Path, timeout_s: float = 30.0) -> list[str]:
    """Stop every worker whose pid file is in ``workdir`` (SIGTERM, SIGKILL after
    ``timeout_s``); remove the pid files. Returns the names of the workers that were running.
    Pid files of processes that are gone, or that are no kconnect worker, are just removed."""
    stopped: list[str] = []
    pending: dict[int, str] = {}
    for pid_file in sorted(workdir.glob("*.pid")):
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            pid = -1
        if pid > 0 and _is_worker(pid):
            os.kill(pid, signal.SIGTERM)
            pending[pid] = pid_file.stem
        pid_file.unlink(missing_ok=True)
    deadline = time.monotonic() + timeout_s
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            if not _is_worker(pid):
                stopped.append(pending.pop(pid))
        time.sleep(0.2)
    for pid, name in pending.items():
        os.kill(pid, signal.SIGKILL)
        stopped.append(name)
    return sorted(stopped)
