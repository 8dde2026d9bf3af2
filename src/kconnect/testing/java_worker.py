"""Worker processes for side-by-side tests: Kafka Connect's JVM and ``kconnect``, run alike.

A side-by-side test starts the real Kafka Connect worker (the oracle) and a kconnect worker
with the same properties, sends both the same requests and compares the answers. Both are
child processes handled the same way:

- :class:`WorkerProcess` -- any worker command, its output in a log file; :meth:`wait_ready
  <WorkerProcess.wait_ready>` polls its REST API, :meth:`stop <WorkerProcess.stop>` ends only
  this process (SIGTERM, then SIGKILL);
- :class:`JavaWorker` -- a Kafka Connect worker: writes its properties file and runs
  ``ConnectDistributed`` (or ``ConnectStandalone`` with connector files) on the jars
  :mod:`kconnect.testing.java` resolves;
- :func:`kconnect_command` -- the matching ``kconnect`` command line;
- :func:`stop_process` -- SIGTERM, then SIGKILL: how every worker child process is ended;
- :func:`eventually` -- poll a check until it holds (HTTP errors count as "not yet").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import httpx

from kconnect.testing.java import CONNECT_VERSION, DISTRIBUTED, STANDALONE, worker_command

__all__ = [
    "CONNECT_VERSION",
    "DISTRIBUTED",
    "STANDALONE",
    "JavaWorker",
    "WorkerProcess",
    "eventually",
    "kconnect_command",
    "stop_process",
]

T = TypeVar("T")


def eventually(check: Callable[[], T], timeout: float = 30.0, what: str = "") -> T:
    """Call ``check`` every 0.2 s until it returns something true, and return that; an HTTP
    error, ``KeyError`` or ``IndexError`` counts as not yet (the REST answer is not there).
    Raises AssertionError naming ``what`` and the last answer after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            result = check()
            if result:
                return result
            last = result
        except (httpx.HTTPError, KeyError, IndexError) as e:
            last = e
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """End a worker child process as a clean shutdown does: SIGTERM, and SIGKILL when it is
    still running after ``timeout`` seconds. Nothing when it has exited already."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def kconnect_command(mode: str, *args: str | Path) -> list[str]:
    """``kconnect <mode> <args>`` (``standalone``/``distributed``, a properties file, connector
    files) with this interpreter, as a child process runs it."""
    return [sys.executable, "-m", "kconnect.cli.main", mode, *map(str, args)]


class WorkerProcess:
    """One worker (Kafka Connect's JVM or kconnect) in a child process, its standard output
    and error in ``log_path``; ``url`` is its REST API (``http://127.0.0.1:<port>``)."""

    def __init__(
        self,
        cmd: Sequence[str],
        log_path: Path,
        *,
        url: str = "",
        label: str = "worker",
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.label = label
        self.url = url
        self.log_path = log_path
        self.started = time.monotonic()
        with log_path.open("ab") as log:
            self.proc: subprocess.Popen[bytes] = subprocess.Popen(
                list(cmd), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=None if env is None else {**os.environ, **env}, cwd=cwd,
            )  # fmt: skip

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def running(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, timeout: float = 120.0, path: str = "/connectors") -> None:
        """Wait until ``GET <url><path>`` answers 200; AssertionError (with the log's tail)
        when the worker exits first or ``timeout`` seconds pass."""

        def ready() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"{self.label} exited ({self.proc.returncode}) while starting:\n"
                    + self.log()[-3000:]
                )
            return httpx.get(self.url + path, timeout=2).status_code == 200

        eventually(ready, timeout, f"the REST API of {self.label} at {self.url}")

    def exit_text(self, timeout: float = 120.0) -> str:
        """For a worker that must stop by itself: wait for it, assert it failed, and return
        its whole output."""
        self.proc.wait(timeout)
        assert self.proc.returncode != 0, f"{self.label} exited 0"
        return self.log()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 30 s; only this process."""
        stop_process(self.proc)


class JavaWorker(WorkerProcess):
    """A Kafka Connect JVM: ``ConnectDistributed`` on ``props`` by default, or
    ``ConnectStandalone`` with ``connectors`` (``.properties`` files) after the worker's.

    ``props`` (a map, or the file's text) is written to ``<work>/<name>.properties``, the
    output goes to ``<work>/<name>.log``; ``url`` is taken from ``listeners`` when ``props``
    is a map. ``extra_modules``, ``version``, ``heap`` and ``options`` go to
    :func:`~kconnect.testing.java.worker_command`. Skips the calling test without Java.
    """

    def __init__(
        self,
        props: Mapping[str, str] | str,
        work: Path,
        *,
        main_class: str = DISTRIBUTED,
        connectors: Sequence[Path] = (),
        name: str = "java-worker",
        extra_modules: Sequence[str] = (),
        version: str = CONNECT_VERSION,
        heap: str = "512m",
        options: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.props_path = work / f"{name}.properties"
        text = props if isinstance(props, str) else "".join(f"{k}={v}\n" for k, v in props.items())
        self.props_path.write_text(text)
        cmd = worker_command(
            main_class, [self.props_path, *connectors], extra_modules=extra_modules,
            version=version, heap=heap, options=options,
        )  # fmt: skip
        url = "" if isinstance(props, str) else props.get("listeners", "")
        super().__init__(cmd, work / f"{name}.log", url=url, label=name, env=env, cwd=cwd)
