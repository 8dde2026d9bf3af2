"""A Kafka Connect 4.1.2 (Java) worker process for side-by-side tests.

Builds the worker's classpath from Maven Central (connect-runtime, connect-file,
connect-json, log4j) and runs ``ConnectDistributed`` or ``ConnectStandalone`` with its output
in a log file, so a test can start the real worker as the oracle for kconnect's behaviour.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

CONNECT_VERSION = "4.1.2"
DISTRIBUTED = "org.apache.kafka.connect.cli.ConnectDistributed"
STANDALONE = "org.apache.kafka.connect.cli.ConnectStandalone"


def eventually(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Call ``check`` until it returns something true (HTTP errors count as not yet)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (httpx.HTTPError, KeyError, IndexError) as e:
            last = e
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")


def java_command(main_class: str, args: Sequence[str | Path]) -> list[str]:
    """The ``java`` command line running ``main_class`` of Kafka Connect with ``args``.

    Skips the calling test without Java (fails it under CI).
    """
    from kconnect.local import maven
    from kconnect.testing.services import require_java

    require_java()
    cp = maven.resolve_classpath(
        [
            f"org.apache.kafka:connect-runtime:{CONNECT_VERSION}",
            f"org.apache.kafka:connect-file:{CONNECT_VERSION}",
            f"org.apache.kafka:connect-json:{CONNECT_VERSION}",
            "org.apache.logging.log4j:log4j-core:2.25.5",
            # slf4j 1.7's binding, as kafka-clients: with slf4j2's the worker logged nothing
            "org.apache.logging.log4j:log4j-slf4j-impl:2.25.5",
        ]
    )
    return [
        maven.require_java(), "-Xmx512m", "-cp", os.pathsep.join(map(str, cp)),
        "-Dlog4j2.level=WARN", main_class, *map(str, args),
    ]  # fmt: skip


class JavaWorker:
    """One Kafka Connect JVM: ``ConnectDistributed`` on ``props`` by default, or
    ``ConnectStandalone`` with connector ``.properties`` files after the worker's."""

    def __init__(
        self,
        props: dict[str, str] | str,
        work: Path,
        *,
        main_class: str = DISTRIBUTED,
        connectors: Sequence[Path] = (),
        name: str = "java-worker",
    ) -> None:
        path = work / f"{name}.properties"
        text = props if isinstance(props, str) else "".join(f"{k}={v}\n" for k, v in props.items())
        path.write_text(text)
        cmd = java_command(main_class, [path, *connectors])
        self.log_path = work / f"{name}.log"
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self.log_path.open("wb"), stderr=subprocess.STDOUT)
        listeners = props.get("listeners") if isinstance(props, dict) else None
        self.url = listeners or ""

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 90.0) -> None:
        def ready() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError("Java worker exited: " + self.log()[-3000:])
            return httpx.get(self.url + "/connectors", timeout=2).status_code == 200

        eventually(ready, timeout, "the Java worker's REST API")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
