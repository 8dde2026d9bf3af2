"""FileStreamSink output, kconnect beside Apache Kafka Connect 4.1.2, from the same topics.

One ``ConnectStandalone`` JVM and one ``kconnect standalone`` worker (same TZ) each run two
FileStreamSinkConnectors over the same two topics: one of JsonConverter messages with
schemas (every Connect type: integers, FLOAT32/FLOAT64, booleans, strings, bytes, Decimal,
Date, Time, Timestamp, arrays, maps with string and with integer keys, nested structs with
null and defaulted fields, null), one of schemaless JSON (maps whose ``HashMap`` order shows,
nested lists, numbers in every JSON form), both from :mod:`kconnect.testing.file_sink`.
Java's sink prints ``String.valueOf(value)``; both output files must be equal line for line,
except that ``byte[]`` prints an object identity (``[B@1b6d3586``) whose digits differ between
any two runs -- those are compared by shape.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from kconnect.testing.file_sink import BYTES_IDENTITY, masked, produce_inputs
from kconnect.testing.java import STANDALONE, worker_command
from kconnect.testing.java_worker import WorkerProcess, kconnect_command
from kconnect.testing.ports import free_port

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]

TZ = "Europe/Berlin"  # not UTC, so both must print the zone's local time and its name


def _worker_props(tmp: Path, label: str, port: int) -> Path:
    props = tmp / f"{label}-worker.properties"
    props.write_text(
        f"bootstrap.servers={os.environ.get('KCONNECT_BOOTSTRAP_SERVERS', '127.0.0.1:9092')}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        f"offset.storage.file.filename={tmp / (label + '.offsets')}\n"
        f"listeners=http://127.0.0.1:{port}\n"
        "offset.flush.interval.ms=1000\n"
    )
    return props


def _sink(tmp: Path, label: str, name: str, topic: str, schemas: bool) -> tuple[Path, Path]:
    out = tmp / f"{label}-{name}.txt"
    props = tmp / f"{label}-{name}.properties"
    props.write_text(
        f"name={name}-{label}-{uuid.uuid4().hex[:6]}\n"
        "connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector\n"
        f"topics={topic}\nfile={out}\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        f"value.converter.schemas.enable={str(schemas).lower()}\n"
    )
    return props, out


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_file_sink_prints_every_connect_type_as_java(
    kafka_bootstrap: str, topic_factory, tmp_path: Path
) -> None:
    with_schema, schemaless = topic_factory(), topic_factory()
    # every Connect type, a tombstone (the sink prints null); the schemaless messages
    expected_lines = produce_inputs(kafka_bootstrap, with_schema, schemaless)

    outputs: dict[str, dict[str, Path]] = {}
    workers: list[WorkerProcess] = []
    env = {"TZ": TZ, "PYTHONUNBUFFERED": "1"}
    try:
        for label in ("java", "kconnect"):
            port = free_port()
            props = _worker_props(tmp_path, label, port)
            sink_schema, out_schema = _sink(tmp_path, label, "schema", with_schema, True)
            sink_plain, out_plain = _sink(tmp_path, label, "plain", schemaless, False)
            outputs[label] = {"schema": out_schema, "plain": out_plain}
            if label == "java":
                cmd = worker_command(STANDALONE, [props, sink_schema, sink_plain])
            else:
                cmd = kconnect_command("standalone", props, sink_schema, sink_plain)
            workers.append(WorkerProcess(cmd, tmp_path / f"{label}.log", label=label, env=env))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if all(
                len(_lines(outputs[label][kind])) >= n
                for label in outputs
                for kind, n in expected_lines.items()
            ):
                break
            assert all(w.running() for w in workers), "a worker exited; see the logs"
            time.sleep(0.5)
    finally:
        for w in workers:
            w.stop()

    for kind, n in expected_lines.items():
        java, kc = _lines(outputs["java"][kind]), _lines(outputs["kconnect"][kind])
        assert len(java) == n, f"Java wrote {len(java)} of {n} {kind} lines; see java.log"
        assert len(kc) == n, f"kconnect wrote {len(kc)} of {n} {kind} lines"
        for j, k in zip(java, kc, strict=True):
            # byte[] prints an identity hash: only its shape can match
            assert masked(j) == masked(k), (j, k)
    # the byte arrays were printed as identities on both sides, not as data
    assert BYTES_IDENTITY.fullmatch(_lines(outputs["kconnect"]["schema"])[13])
    assert BYTES_IDENTITY.fullmatch(_lines(outputs["java"]["schema"])[13])
