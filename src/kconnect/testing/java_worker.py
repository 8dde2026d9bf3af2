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
- :class:`KconnectWorker` -- the same for ``kconnect standalone`` / ``kconnect distributed``;
  :func:`kconnect_command` -- its command line;
- :func:`standalone_props` / :func:`distributed_props` -- a worker's properties (internal
  topics, converters, ``plugin.path``), the same for both runtimes;
- :func:`running` -- workers awaited, used, and stopped however the block ends;
  :func:`standalone_pair` -- a Kafka Connect and a kconnect standalone worker side by side;
- :func:`put_connector` / :func:`create_connector` / :func:`connector_running` -- the REST
  calls every side-by-side test makes;
- :func:`stop_process` -- SIGTERM, then SIGKILL: how every worker child process is ended;
  :func:`child_processes` / :func:`exited` -- a worker's children (its plugin host JVMs) and
  whether a process is gone, from ``/proc``;
- :func:`eventually` -- poll a check until it holds (HTTP errors count as "not yet").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import httpx

from kconnect.testing.java import CONNECT_VERSION, DISTRIBUTED, STANDALONE, worker_command

__all__ = [
    "CONNECT_VERSION",
    "DISTRIBUTED",
    "JSON_CONVERTER",
    "STANDALONE",
    "STRING_CONVERTER",
    "JavaWorker",
    "KconnectWorker",
    "WorkerProcess",
    "child_processes",
    "connector_running",
    "create_connector",
    "distributed_props",
    "eventually",
    "exited",
    "kconnect_command",
    "put_connector",
    "running",
    "standalone_pair",
    "standalone_props",
    "stop_process",
]

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"

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


def _properties_text(props: Mapping[str, str] | str) -> str:
    return props if isinstance(props, str) else "".join(f"{k}={v}\n" for k, v in props.items())


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
        self.props_path.write_text(_properties_text(props))
        cmd = worker_command(
            main_class, [self.props_path, *connectors], extra_modules=extra_modules,
            version=version, heap=heap, options=options,
        )  # fmt: skip
        url = "" if isinstance(props, str) else props.get("listeners", "")
        super().__init__(cmd, work / f"{name}.log", url=url, label=name, env=env, cwd=cwd)


class KconnectWorker(WorkerProcess):
    """A kconnect worker: ``kconnect <mode>`` on ``props``, with ``connectors`` (a standalone
    worker's ``.properties`` files) after the worker's.

    As :class:`JavaWorker`: ``props`` (a map, or the file's text) is written to
    ``<work>/<name>.properties``, the output goes to ``<work>/<name>.log``; ``url`` is taken
    from ``listeners`` when ``props`` is a map; ``env`` is added to this process's environment.
    """

    def __init__(
        self,
        props: Mapping[str, str] | str,
        work: Path,
        *,
        mode: str = "standalone",
        connectors: Sequence[Path] = (),
        name: str = "kconnect",
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.props_path = work / f"{name}.properties"
        self.props_path.write_text(_properties_text(props))
        url = "" if isinstance(props, str) else props.get("listeners", "")
        super().__init__(
            kconnect_command(mode, self.props_path, *connectors), work / f"{name}.log",
            url=url, label=name, env=env, cwd=cwd,
        )  # fmt: skip


def standalone_props(
    bootstrap: str,
    work: Path,
    name: str,
    plugin_path: Path | None = None,
    *,
    port: int | None = None,
    settings: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A standalone worker's properties: ``bootstrap``, REST on 127.0.0.1:``port`` (a free
    port by default), offsets in ``<work>/<name>.offsets``, :data:`JSON_CONVERTER` for keys and
    values, ``plugin_path`` when given; then ``settings``, which win."""
    from kconnect.testing.ports import free_port

    return {
        "bootstrap.servers": bootstrap,
        "listeners": f"http://127.0.0.1:{free_port() if port is None else port}",
        "offset.storage.file.filename": str(work / f"{name}.offsets"),
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        **({} if plugin_path is None else {"plugin.path": str(plugin_path)}),
        **(settings or {}),
    }


def distributed_props(
    bootstrap: str, group: str, settings: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A distributed worker's properties: ``bootstrap``, ``group``, the internal topics
    ``<group>-configs``, ``<group>-offsets`` and ``<group>-status`` (replication factor 1, for a
    one-broker cluster), :data:`JSON_CONVERTER` for keys and values; then ``settings``, which
    win (``listeners``, partition counts, ``plugin.path``...)."""
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        **(settings or {}),
    }


@contextmanager
def running(*workers: WorkerProcess, timeout: float = 120.0) -> Iterator[None]:
    """Wait until each of ``workers`` answers (in order, :meth:`WorkerProcess.wait_ready`), run
    the block, and stop them all (in reverse order) however it ends -- or when one never
    answers."""
    try:
        for worker in workers:
            worker.wait_ready(timeout)
        yield
    finally:
        for worker in reversed(workers):
            worker.stop()


@contextmanager
def standalone_pair(
    bootstrap: str,
    work: Path,
    plugin_path: Path,
    *,
    settings: Mapping[str, str] | None = None,
    kconnect_settings: Mapping[str, str] | None = None,
) -> Iterator[tuple[str, str]]:
    """(Kafka Connect's URL, kconnect's URL): a standalone Java worker (``java``) and a
    standalone kconnect worker (``kconnect``) on the same ``plugin_path``, each with
    :func:`standalone_props` and ``settings`` (kconnect's with ``kconnect_settings`` too), their
    files in ``work``; both stopped at the end of the block."""
    java = JavaWorker(
        standalone_props(bootstrap, work, "java", plugin_path, settings=settings), work,
        main_class=STANDALONE, name="java",
    )  # fmt: skip
    kc_settings = {**(settings or {}), **(kconnect_settings or {})}
    kc = KconnectWorker(
        standalone_props(bootstrap, work, "kconnect", plugin_path, settings=kc_settings), work
    )
    with running(java, kc):
        yield java.url, kc.url


def put_connector(url: str, name: str, config: Mapping[str, str]) -> None:
    """``PUT <url>/connectors/<name>/config``: creates or updates; asserts 200 or 201."""
    answer = httpx.put(f"{url}/connectors/{name}/config", json=dict(config), timeout=120)
    assert answer.status_code in (200, 201), answer.text


def create_connector(url: str, name: str, config: Mapping[str, str]) -> None:
    """``POST <url>/connectors``: creates; asserts 201."""
    answer = httpx.post(
        f"{url}/connectors", json={"name": name, "config": dict(config)}, timeout=120
    )
    assert answer.status_code == 201, answer.text


def connector_running(url: str, name: str) -> bool:
    """Whether connector ``name`` and all its tasks (at least one) are RUNNING; AssertionError
    (with the status) as soon as a task FAILED."""
    status = httpx.get(f"{url}/connectors/{name}/status", timeout=10).json()
    tasks = status.get("tasks", [])
    if any(t["state"] == "FAILED" for t in tasks):
        raise AssertionError(f"{name} failed: {status}")
    return (
        status["connector"]["state"] == "RUNNING"
        and bool(tasks)
        and all(t["state"] == "RUNNING" for t in tasks)
    )


def child_processes(pid: int) -> list[tuple[int, str]]:
    """``(pid, command name)`` of each child process of ``pid`` (``"java"`` for a plugin host
    JVM), from ``/proc``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == pid:
            found.append((int(entry), comm))
    return found


def exited(pid: int) -> bool:
    """Whether process ``pid`` no longer exists or is a zombie (its parent died: init reaps
    it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"
