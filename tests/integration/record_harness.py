"""Apache Kafka Connect's own sink record path as a test oracle (``tests/java/RecordHarness.java``).

One JVM per test session runs the harness, compiled with javac into the kconnect cache against
the Kafka Connect 4.1.2 jars (connect-transforms, connect-json and what they need, resolved
from Maven Central). :meth:`RecordJava.run` sends one request -- key and value JsonConverter
settings, a transformation chain as connector properties, records as bytes -- and returns
Java's answer: per record the decode error, the stage that dropped it, the stage that failed
(exception class and message), or the transformed record (topic, partition, timestamp, schema
signatures, ``String.valueOf`` of key and value, the key and value re-encoded by the same
converters, the headers). The protocol is described at the top of the Java file.

The JVM runs in UTC (``java.util.Date.toString``), and the fixture puts this process in UTC
too for the test's duration, so both sides print dates alike.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

__all__ = ["CONNECT_VERSION", "RecordJava", "record_java"]

CONNECT_VERSION = "4.1.2"
HARNESS_SRC = Path(__file__).resolve().parents[1] / "java" / "RecordHarness.java"
_ARTIFACTS = [
    f"org.apache.kafka:connect-transforms:{CONNECT_VERSION}",
    f"org.apache.kafka:connect-json:{CONNECT_VERSION}",
]


class RecordJava:
    """The long-lived harness process; one request line in, one answer line out."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """Java's answer to ``request`` (see the module docstring)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(orjson.dumps(request).decode() + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"Java record harness died (exit code {self.proc.poll()})")
        answer: dict[str, Any] = orjson.loads(line)
        if "harness_error" in answer:
            raise RuntimeError(f"Java record harness failed: {answer['harness_error']}")
        return answer


def _compile(classpath: list[Path]) -> Path:
    from kconnect.local.paths import cache_dir

    digest = hashlib.sha256(HARNESS_SRC.read_bytes())
    for jar in classpath:
        digest.update(str(jar).encode())
    out = cache_dir() / "java-harness" / digest.hexdigest()[:16]
    if not (out / "RecordHarness.class").is_file():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["javac", "-nowarn", "-cp", os.pathsep.join(map(str, classpath)), "-d", str(out),
             str(HARNESS_SRC)],
            check=True,
            capture_output=True,
        )  # fmt: skip
    return out


@pytest.fixture(scope="session")
def record_java() -> Iterator[RecordJava]:
    """The harness JVM, with this process in UTC while it runs."""
    from kconnect.local import maven
    from kconnect.testing.services import require_java

    require_java()
    classpath = maven.resolve_classpath(_ARTIFACTS)
    classes = _compile(classpath)
    proc = subprocess.Popen(
        [maven.require_java(), "-Xmx256m", "-XX:+UseSerialGC", "-Duser.timezone=UTC",
         "-cp", os.pathsep.join([str(classes), *map(str, classpath)]), "RecordHarness"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )  # fmt: skip
    old_tz = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield RecordJava(proc)
    finally:
        if old_tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old_tz
        time.tzset()
        proc.terminate()
        proc.wait(timeout=30)
