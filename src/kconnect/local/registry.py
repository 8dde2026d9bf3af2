"""A schema registry with Confluent's REST API for development and tests: Apicurio Registry.

Apicurio Registry 2.6 (Apache-2.0) serves Confluent's schema registry API under
``/apis/ccompat/v7``, which is what the Avro, Protobuf and JSON Schema converters talk to. It
runs on Java 17 with in-memory storage: every start begins empty.

Lifecycle as :mod:`kconnect.local.kafka`: :func:`start` fetches the distribution once through
Maven (``io.apicurio:apicurio-registry-app:<version>:tar.gz:all``, into ``~/.m2``), unpacks it
under ``<home>/cache``, launches ``java -jar apicurio-registry-app-<version>-runner.jar`` bound
to 127.0.0.1 as a detached daemon (own session, output to ``registry.log``), records its pid
and state, and returns once ``/apis/ccompat/v7/subjects`` answers. :func:`stop` sends SIGTERM,
waits, then SIGKILLs.

Differences from Confluent's registry worth knowing in tests: the default compatibility is NONE,
and there is no ``/associations`` endpoint (404; the AssociatedNameStrategy falls back to the
topic name).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kconnect.local import LocalStackError, maven, paths

SERVICE = "registry"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8081
DEFAULT_HEAP = "384m"
APICURIO_VERSION = "2.6.13.Final"
#: Where Apicurio serves Confluent's API.
CCOMPAT_PATH = "/apis/ccompat/v7"

Progress = Callable[[str], None]


def artifact(version: str = APICURIO_VERSION) -> str:
    """The Maven coordinate of the distribution (``group:artifact:type:classifier:version``)."""
    return f"io.apicurio:apicurio-registry-app:tar.gz:all:{version}"


def runner_jar_name(version: str = APICURIO_VERSION) -> str:
    return f"apicurio-registry-app-{version}-runner.jar"


@dataclass(frozen=True)
class RegistrySettings:
    """Where the local registry listens and with how much heap."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    heap: str = DEFAULT_HEAP
    version: str = APICURIO_VERSION

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """The base URL converters take as ``schema.registry.url``."""
        return f"http://{self.host}:{self.port}{CCOMPAT_PATH}"

    @property
    def directory(self) -> Path:
        """The service directory, ``<home>/registry``."""
        return paths.service_dir(SERVICE)


def distribution_dir(version: str = APICURIO_VERSION) -> Path:
    """Where the unpacked distribution lives: ``<home>/cache/apicurio-registry-<version>``."""
    return paths.cache_dir() / f"apicurio-registry-{version}"


def ensure_distribution(version: str = APICURIO_VERSION, progress: Progress | None = None) -> Path:
    """The directory holding the runner jar, fetched (Maven) and unpacked on first use."""
    target = distribution_dir(version)
    if (target / runner_jar_name(version)).is_file():
        return target
    with paths.file_lock(target.with_suffix(".lock"), timeout_s=1800):
        if (target / runner_jar_name(version)).is_file():
            return target
        mvn = maven.require_mvn()
        if progress is not None:
            progress(f"Fetching Apicurio Registry {version} through Maven (first run, ~140 MB)...")
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix="apicurio.") as tmp:
            cmd = [
                mvn, "-B", "-q",
                "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy",
                f"-Dartifact={_dependency_copy_coordinate(version)}",
                f"-DoutputDirectory={tmp}",
            ]  # fmt: skip
            try:
                done = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=1800, check=False, cwd=tmp
                )
            except subprocess.TimeoutExpired:
                raise LocalStackError(f"Maven did not fetch {artifact(version)} within 30 min")
            if done.returncode != 0:
                tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
                raise LocalStackError(f"Maven could not fetch {artifact(version)}:\n{tail}")
            archives = list(Path(tmp).glob("*.tar.gz"))
            if not archives:
                raise LocalStackError(f"Maven fetched no archive for {artifact(version)}")
            staging = Path(tmp) / "unpacked"
            with tarfile.open(archives[0]) as tar:
                if hasattr(tarfile, "data_filter"):  # Python 3.11.4+: refuse unsafe members
                    tar.extractall(staging, filter="data")
                else:
                    tar.extractall(staging)  # an artifact from Maven Central
            if not (staging / runner_jar_name(version)).is_file():
                raise LocalStackError(f"{archives[0].name} holds no {runner_jar_name(version)}")
            if target.exists():
                shutil.rmtree(target)
            os.replace(staging, target)
    return target


def _dependency_copy_coordinate(version: str) -> str:
    # maven-dependency-plugin's copy takes group:artifact:version[:packaging[:classifier]]
    return f"io.apicurio:apicurio-registry-app:{version}:tar.gz:all"


def java_command(java: str, settings: RegistrySettings, jar: Path) -> list[str]:
    """The ``java`` command line of the registry: loopback only, modest heap, in-memory."""
    return [
        java,
        "-Xms64m",
        f"-Xmx{settings.heap}",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Djava.awt.headless=true",
        f"-Dquarkus.http.host={settings.host}",
        f"-Dquarkus.http.port={settings.port}",
        # 3.x opens a management port on 0.0.0.0 unless told; harmless on 2.6
        f"-Dquarkus.management.host={settings.host}",
        "-jar",
        str(jar),
    ]


def answers(settings: RegistrySettings, timeout_s: float = 2.0) -> bool:
    """True when Confluent's API answers ``GET /subjects`` with 200 on the port."""
    try:
        with urllib.request.urlopen(f"{settings.url}/subjects", timeout=timeout_s) as r:
            return int(r.status) == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def status() -> dict[str, Any]:
    """The registry's state: ``{"state": "running"|"stopped"|"stale", "pid", "url", ...}``."""
    state = paths.read_state(paths.state_file(SERVICE)) or {}
    pid = paths.running_pid(paths.pid_file(SERVICE), "apicurio-registry")
    if pid is not None:
        return {**state, "state": "running", "pid": pid}
    stale = paths.read_pid(paths.pid_file(SERVICE)) is not None
    return {**state, "state": "stale" if stale else "stopped", "pid": None}


def start(
    settings: RegistrySettings,
    *,
    progress: Progress | None = None,
    timeout_s: float = 120.0,
) -> dict[str, Any]:
    """Start the registry unless it already runs; return its state (see :func:`status`).

    Idempotent; a registry answering on the port that this home did not start is reported as
    ``"external"``. Callers serialise through the stack lock (:mod:`kconnect.local.stack`).
    """
    say = progress or (lambda _msg: None)
    current = status()
    if current["state"] == "running":
        say(f"Schema registry already running on {current.get('url', settings.url)}")
        return current
    if _port_open(settings.host, settings.port):
        if answers(settings, timeout_s=10):
            say(f"Schema registry already answering on {settings.url} "
                f"(not started from {paths.home()})")  # fmt: skip
            return {
                "state": "external",
                "pid": None,
                "address": settings.address,
                "url": settings.url,
            }
        raise LocalStackError(
            f"port {settings.address} is taken by something that does not serve "
            f"{CCOMPAT_PATH}/subjects"
        )

    java = maven.require_java()
    dist = ensure_distribution(settings.version, progress)
    d = settings.directory
    d.mkdir(parents=True, exist_ok=True)
    say(f"Starting Apicurio Registry {settings.version} on {settings.url} ...")
    t0 = time.monotonic()
    log = paths.log_file(SERVICE)
    with open(log, "ab") as out:
        out.write(f"\n=== kconnect local start {time.strftime('%Y-%m-%d %H:%M:%S')} ===\n".encode())
        out.flush()
        proc = subprocess.Popen(
            java_command(java, settings, dist / runner_jar_name(settings.version)),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=dist,
            start_new_session=True,
            close_fds=True,
        )
    paths.write_pid(paths.pid_file(SERVICE), proc.pid)
    state: dict[str, Any] = {
        "service": SERVICE,
        "address": settings.address,
        "url": settings.url,
        "version": settings.version,
        "log": str(log),
        "started_at": time.time(),
    }
    paths.write_state(paths.state_file(SERVICE), state)
    deadline = time.monotonic() + timeout_s
    while not answers(settings, timeout_s=2.0):
        if proc.poll() is not None:
            paths.pid_file(SERVICE).unlink(missing_ok=True)
            raise LocalStackError(
                f"Apicurio Registry exited with code {proc.returncode} while starting; "
                f"log {log}:\n" + _tail(log)
            )
        if time.monotonic() > deadline:
            paths.terminate(proc.pid, grace_s=10)
            paths.pid_file(SERVICE).unlink(missing_ok=True)
            raise LocalStackError(
                f"Apicurio Registry did not answer on {settings.url} within {timeout_s:.0f} s; "
                f"log {log}:\n" + _tail(log)
            )
        time.sleep(0.3)
    say(f"Schema registry up on {settings.url} in {time.monotonic() - t0:.1f} s (pid {proc.pid})")
    return {**state, "state": "running", "pid": proc.pid}


def stop(*, progress: Progress | None = None, grace_s: float = 20.0) -> bool:
    """Stop the registry this home started (by pid file). True when something was stopped."""
    say = progress or (lambda _msg: None)
    return paths.stop_service(
        SERVICE, "apicurio-registry", "the schema registry", grace_s=grace_s, say=say
    )
