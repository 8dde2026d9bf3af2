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

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from kconnect.testing.java import HarnessProcess, classpath, compile_harness, kafka_artifacts

__all__ = ["RecordJava", "record_java"]

HARNESS_SRC = Path(__file__).resolve().parents[1] / "java" / "RecordHarness.java"
_ARTIFACTS = kafka_artifacts("connect-transforms", "connect-json")


class RecordJava(HarnessProcess):
    """The long-lived harness process; one request line in, one answer line out."""

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """Java's answer to ``request`` (see the module docstring)."""
        answer: dict[str, Any] = orjson.loads(self.ask(orjson.dumps(request).decode()))
        if "harness_error" in answer:
            raise RuntimeError(f"Java record harness failed: {answer['harness_error']}")
        return answer


@pytest.fixture(scope="session")
def record_java() -> Iterator[RecordJava]:
    """The harness JVM, with this process in UTC while it runs."""
    classes = compile_harness(HARNESS_SRC, classpath(_ARTIFACTS))
    harness = RecordJava(
        "RecordHarness", artifacts=_ARTIFACTS, classes=[classes], heap="256m",
        options=["-XX:+UseSerialGC", "-Duser.timezone=UTC"], name="Java record harness",
    )  # fmt: skip
    old_tz = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield harness
    finally:
        if old_tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old_tz
        time.tzset()
        harness.close()
