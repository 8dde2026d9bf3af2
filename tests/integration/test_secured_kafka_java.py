"""One secured worker properties file, run by Apache Kafka Connect 4.1.2 and by kconnect.

The properties are what ``kconnect local`` renders for the local node's SASL_SSL listener
(SCRAM-SHA-512, a PKCS12 trust store, the same settings again under ``producer.``,
``consumer.`` and ``admin.``), plus a standalone worker's own keys. Java's
``ConnectStandalone`` is the oracle:

* with the right password, both workers copy a 2,000-line file through a topic of their own
  (a FileStreamSource and a FileStreamSink given as connector ``.properties`` files, as
  ``connect-standalone`` takes them), and both sink files hold the input's lines;
* with a wrong password, both stop at start with exit status 2, and kconnect's message points
  at ``sasl.jaas.config``.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kconnect.kafka.tools.admin_ping import delete_topics
from kconnect.local.secure import SecureListeners, SecureMaterial, worker_properties
from kconnect.testing.java_worker import (
    STANDALONE,
    JavaWorker,
    eventually,
    kconnect_command,
    stop_process,
)
from kconnect.testing.ports import free_port
from kconnect.testing.services import create_unique_topic, ensure_secure_kafka, require_java

# ~15 s for the module (two JVMs, two kconnect workers): not marked slow
pytestmark = [pytest.mark.java, pytest.mark.kafka]

LINES = 2000
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


@pytest.fixture(scope="module")
def secured() -> dict[str, Any]:
    """The local node's secured listeners and the client material that opens them."""
    require_java()
    found = ensure_secure_kafka()
    host, _, port = found["plaintext"].rpartition(":")
    return {
        **found,
        "client": SecureMaterial.load(Path(found["material"])),
        "listeners": SecureListeners(host, int(port)),
    }


@pytest.fixture
def topics(secured: dict[str, Any]) -> Iterator[list[str]]:
    """Two fresh topics (made over PLAINTEXT, so a sink never waits for the source to make
    one); deleted afterwards."""
    made: list[str] = []
    yield made
    if made:
        delete_topics(secured["plaintext"], made)


def _worker_text(material: SecureMaterial, listeners: SecureListeners, work: Path) -> str:
    """``kconnect local``'s SASL_SSL properties plus a standalone worker's own keys."""
    return worker_properties(material, listeners, "SCRAM-SHA-512") + "".join(
        f"{k}={v}\n"
        for k, v in {
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "offset.storage.file.filename": str(work / "offsets"),
            # the sink's file is flushed at each offset commit
            "offset.flush.interval.ms": "1000",
            "listeners": f"http://127.0.0.1:{free_port()}",
        }.items()
    )


def _connector_files(work: Path, topic: str, source: Path) -> tuple[list[Path], Path]:
    """A FileStreamSource (``source`` -> ``topic``) and a FileStreamSink (``topic`` -> file)."""
    sink_out = work / "sink.txt"
    configs = {
        "source": {
            "name": "secured-source",
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "tasks.max": "1",
            "file": str(source),
            "topic": topic,
        },
        "sink": {
            "name": "secured-sink",
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1",
            "file": str(sink_out),
            "topics": topic,
        },
    }
    paths = []
    for name, config in configs.items():
        path = work / f"{name}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in config.items()))
        paths.append(path)
    return paths, sink_out


class _Kconnect:
    """``kconnect standalone`` in a child process, stdout and stderr in separate files."""

    def __init__(self, text: str, work: Path, connectors: list[Path]) -> None:
        path = work / "kconnect-worker.properties"
        path.write_text(text)
        self.out_path = work / "kconnect.out"
        self.err_path = work / "kconnect.err"
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            kconnect_command("standalone", path, *connectors),
            stdout=self.out_path.open("wb"),
            stderr=self.err_path.open("wb"),
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def log(self) -> str:
        return self.out_path.read_text(errors="replace") + self.err_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.proc)


def test_same_secured_properties_copy_a_file_on_kafka_connect_and_kconnect(
    secured: dict[str, Any], topics: list[str], tmp_path: Path
) -> None:
    material: SecureMaterial = secured["client"]
    listeners: SecureListeners = secured["listeners"]
    assert listeners.sasl_ssl == secured["sasl_ssl"]
    run = uuid.uuid4().hex[:8]
    source = tmp_path / "input.txt"
    lines = [f"{run} line {i:04d} \u00e9t\u00e9 {'x' * (i % 17)}" for i in range(LINES)]
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    workers: dict[str, Any] = {}
    sinks: dict[str, Path] = {}
    try:
        for label in ("java", "kconnect"):
            work = tmp_path / label
            work.mkdir()
            topic = create_unique_topic(secured["plaintext"], f"secured-{label}")
            topics.append(topic)
            connectors, sinks[label] = _connector_files(work, topic, source)
            text = _worker_text(material, listeners, work)
            workers[label] = (
                JavaWorker(
                    text, work, main_class=STANDALONE, connectors=connectors, name="java-worker"
                )
                if label == "java"
                else _Kconnect(text, work, connectors)
            )

        def copied() -> bool:
            for label, worker in workers.items():
                if worker.proc.poll() is not None:
                    raise AssertionError(
                        f"{label} exited with {worker.proc.returncode}: {worker.log()[-3000:]}"
                    )
            return all(
                path.exists() and path.read_text(encoding="utf-8").count("\n") >= LINES
                for path in sinks.values()
            )

        eventually(copied, 180, "both sink files to hold every line")
    finally:
        for worker in workers.values():
            worker.stop()

    for label, path in sinks.items():
        assert path.read_text(encoding="utf-8").splitlines() == lines, label


def test_wrong_password_stops_both_workers_at_start(
    secured: dict[str, Any], topics: list[str], tmp_path: Path
) -> None:
    material = dataclasses.replace(secured["client"], password="not-" + uuid.uuid4().hex[:8])
    listeners: SecureListeners = secured["listeners"]
    source = tmp_path / "input.txt"
    source.write_text("never read\n")
    workers: dict[str, Any] = {}
    try:
        for label in ("java", "kconnect"):
            work = tmp_path / label
            work.mkdir()
            topic = create_unique_topic(secured["plaintext"], f"secured-bad-{label}")
            topics.append(topic)
            connectors, _ = _connector_files(work, topic, source)
            text = _worker_text(material, listeners, work)
            workers[label] = (
                JavaWorker(
                    text, work, main_class=STANDALONE, connectors=connectors, name="java-worker"
                )
                if label == "java"
                else _Kconnect(text, work, connectors)
            )
        # Polled together, so each exit is seen when it happens; the limit guards against a
        # worker that never gives up and is not a timing assertion.
        took: dict[str, float] = {}
        deadline = time.monotonic() + 90
        while len(took) < len(workers) and time.monotonic() < deadline:
            for label, worker in workers.items():
                if label not in took and worker.proc.poll() is not None:
                    took[label] = time.monotonic() - worker.started
            time.sleep(0.05)
        for label, worker in workers.items():
            if label not in took:
                pytest.fail(f"{label} still running with a wrong password: {worker.log()[-3000:]}")
    finally:
        for worker in workers.values():
            worker.stop()

    java, kc = workers["java"], workers["kconnect"]
    java_log, kc_err = java.log(), kc.err_path.read_text(errors="replace")
    print(f"exit after: java {took['java']:.1f} s, kconnect {took['kconnect']:.1f} s")
    print("java:", java_log[-2000:])
    print("kconnect stderr:", kc_err[-2000:])
    # Java gives up on the broker's verdict (not on a time-out) and exits 2, like kconnect.
    assert java.proc.returncode == 2, java_log[-3000:]
    assert "invalid credentials" in java_log, java_log[-3000:]
    assert kc.proc.returncode == 2, kc.log()[-3000:]
    assert "sasl.jaas.config" in kc_err, kc.log()[-3000:]
    assert f"Authentication with {listeners.sasl_ssl} failed" in kc_err, kc_err
    # The password is never printed.
    assert material.password not in kc.log()
