"""Helpers for the REST integration tests: a ``kconnect standalone`` (or ``distributed``)
worker process with given properties and environment, free ports, JAAS files."""

from __future__ import annotations

import os
import subprocess
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from kconnect.testing.java_worker import kconnect_command, stop_process

__all__ = ["WorkerProcess", "base_props", "jaas_file"]


class WorkerProcess:
    """``kconnect standalone`` (or ``distributed``) in a subprocess, its log in ``log_path``;
    :meth:`stop` ends only this process."""

    def __init__(
        self,
        work: Path,
        props: Mapping[str, str],
        *,
        env: Mapping[str, str] | None = None,
        mode: str = "standalone",
        name: str = "worker",
    ) -> None:
        self.work = work
        self.props_path = work / f"{name}.properties"
        self.props_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        self.log_path = work / f"{name}.log"
        self.env = {**os.environ, **(env or {})}
        self.mode = mode
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """What :meth:`start` runs: ``kconnect <mode>`` (a subclass runs Kafka Connect's)."""
        return kconnect_command(self.mode, self.props_path)

    def start(self) -> WorkerProcess:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.command(),
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=self.work, env=self.env,
            )  # fmt: skip
        return self

    def wait_ready(self, url: str, timeout: float = 60.0, **kw: Any) -> httpx.Response:
        """Poll ``url`` until it answers (any status); the first answer."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited ({self.proc.returncode}):\n{self.log()}")
            try:
                return httpx.get(url, timeout=2, **kw)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"worker did not answer at {url}:\n{self.log()}")
                time.sleep(0.2)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_exit(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)


def write_plugin(
    root: Path,
    package: str,
    source: str,
    group: str,
    entry_points: Mapping[str, str],
    more: Mapping[str, Mapping[str, str]] | None = None,
) -> Path:
    """An installed plugin under ``root/plugins`` (what ``plugin.path`` names): module
    ``package`` with ``source`` (dedented) and a dist-info whose ``group`` entry points (and
    ``more``'s, group -> entry points) map Java-style class names to ``package:Class``.
    Returns the ``plugin.path`` directory."""
    plugin = root / "plugins" / package
    (plugin / package).mkdir(parents=True)
    (plugin / package / "__init__.py").write_text(textwrap.dedent(source))
    dist = plugin / f"{package}-1.0.dist-info"
    dist.mkdir()
    name = package.replace("_", "-")
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    groups = {group: entry_points, **(more or {})}
    (dist / "entry_points.txt").write_text(
        "".join(
            f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items())
            for g, eps in groups.items()
        )
    )
    return root / "plugins"


def base_props(bootstrap: str, work: Path, port: int, **extra: str) -> dict[str, str]:
    """A standalone worker on ``127.0.0.1:port`` with StringConverters, tasks on threads."""
    return {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(work / "offsets"),
        "listeners": f"http://127.0.0.1:{port}",
        "task.processes": "1",
        **extra,
    }


def jaas_file(work: Path, credentials: str, *, name: str = "jaas.conf") -> Path:
    """A JAAS file with a ``KafkaConnect`` entry for PropertyFileLoginModule over a
    credentials file holding ``credentials``."""
    creds = work / f"{name}.credentials.properties"
    creds.write_text(credentials)
    path = work / name
    path.write_text(
        "KafkaConnect {\n"
        "  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n"
        f'  file="{creds}";\n'
        "};\n"
    )
    return path
