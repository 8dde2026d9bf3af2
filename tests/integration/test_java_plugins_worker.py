"""Java plugins in a kconnect worker's plugin.path, beside Kafka Connect 4.1.2 with the same one.

Real jars from Maven Central (Kafka's connect-file, Debezium's PostgreSQL connector 3.6.1.Final),
laid out in plugin.path as an operator does. Both workers answer ``GET /connector-plugins``,
``GET /connector-plugins/{plugin}/config`` and ``PUT .../config/validate`` for them, and the
answers are compared field for field. Also: a worker whose plugin.path holds no Java starts no
JVM; one that does keeps none idle after listing them; the JVM that validates is gone when the
worker is killed with SIGKILL.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.testing.file_sink import masked, produce_inputs
from kconnect.testing.java import java_plugin_path
from kconnect.testing.java_worker import (
    KconnectWorker,
    child_processes,
    create_connector,
    eventually,
    exited,
    standalone_pair,
    standalone_props,
)
from kconnect.testing.ports import free_port
from tests.integration.test_rest_compat_java import _same_plugins

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.slow]

POSTGRES = "io.debezium.connector.postgresql.PostgresConnector"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


# (``_worker_props``, ``_kconnect``, ``_create``, ``_java_children``, ``_task_state`` and
# ``_topic_lines`` are imported by test_java_converters.py as well.)


def _worker_props(
    bootstrap: str, work: Path, name: str, plugin_path: Path, port: int
) -> dict[str, str]:
    return standalone_props(bootstrap, work, name, plugin_path, port=port)


def _kconnect(work: Path, name: str, props: dict[str, str]) -> KconnectWorker:
    return KconnectWorker(props, work, name=name)


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return java_plugin_path(tmp_path_factory.mktemp("plugin-path"))


@pytest.fixture(scope="module")
def workers(
    tmp_path_factory: pytest.TempPathFactory, plugin_path: Path, kafka_bootstrap: str
) -> Iterator[tuple[str, str]]:
    """(Kafka Connect's URL, kconnect's URL): standalone workers on the same plugin.path;
    kconnect prefers the Java FileStream connectors over its own (``plugin.java.preferred``)."""
    with standalone_pair(kafka_bootstrap, tmp_path_factory.mktemp("workers"), plugin_path,
                         kconnect_settings={"plugin.java.preferred": "true"}) as urls:  # fmt: skip
        yield urls


def _plugins(url: str) -> dict[str, dict[str, str]]:
    answer = httpx.get(f"{url}/connector-plugins?connectorsOnly=false", timeout=30)
    assert answer.status_code == 200, answer.text
    return {p["class"]: p for p in answer.json()}


def test_java_plugins_are_listed_with_their_types_and_versions(workers: tuple[str, str]) -> None:
    java, kc = workers
    java_plugins, kc_plugins = _plugins(java), _plugins(kc)
    debezium = {c: p for c, p in java_plugins.items() if c.startswith("io.debezium.")}
    assert POSTGRES in debezium and len(debezium) > 5, sorted(debezium)
    assert {c: kc_plugins.get(c) for c in debezium} == debezium
    for cls in (FILE_SOURCE, "org.apache.kafka.connect.file.FileStreamSinkConnector"):
        assert kc_plugins[cls] == java_plugins[cls]


@pytest.mark.parametrize("plugin", [POSTGRES, "PostgresConnector", FILE_SOURCE])
def test_a_java_plugins_config_is_the_one_kafka_connect_shows(
    workers: tuple[str, str], plugin: str
) -> None:
    answers = [httpx.get(f"{u}/connector-plugins/{plugin}/config", timeout=60) for u in workers]
    assert answers[0].status_code == 200, answers[0].text
    assert answers[1].status_code == 200, answers[1].text
    # Connect's own keys: kconnect's documentation texts, and its own converters' versions
    assert _same_plugins(answers[1].json()) == _same_plugins(answers[0].json())


VALIDATE_CASES: dict[str, dict[str, str]] = {
    "postgres, no database reachable": {
        "connector.class": POSTGRES,
        "topic.prefix": "pg",
        "database.hostname": "127.0.0.1",
        "database.port": "1",
        "database.user": "nobody",
        "database.password": "not-shown",
        "database.dbname": "nothing",
        "plugin.name": "pgoutput",
    },
    "postgres, required keys missing": {"connector.class": POSTGRES},
    "file source, topic missing": {"connector.class": FILE_SOURCE, "file": "/tmp/x"},
    "file source, valid": {"connector.class": FILE_SOURCE, "file": "/tmp/x", "topic": "t"},
}


@pytest.mark.parametrize("case", list(VALIDATE_CASES))
def test_validation_is_the_java_plugins_own_field_for_field(
    workers: tuple[str, str], case: str
) -> None:
    config = VALIDATE_CASES[case]
    plugin = config["connector.class"].rsplit(".", 1)[-1]
    answers = [
        httpx.put(f"{u}/connector-plugins/{plugin}/config/validate", json=config, timeout=120)
        for u in workers
    ]
    java, kc = (a.json() for a in answers)
    assert answers[0].status_code == 200, answers[0].text
    assert answers[1].status_code == 200, answers[1].text
    assert _by_name(_same_plugins(kc)) == _by_name(_same_plugins(java))
    assert (kc["name"], kc["error_count"], kc["groups"]) == (
        java["name"],
        java["error_count"],
        java["groups"],
    )
    assert "not-shown" not in answers[1].text


def _by_name(result: dict[str, Any]) -> dict[str, Any]:
    return {c["definition"]["name"]: c for c in result["configs"]}


# ------------------------------------------------------------------------------ the JVM


def _java_children(pid: int) -> list[int]:
    return [child for child, command in child_processes(pid) if command == "java"]


def test_no_jvm_without_java_plugins(tmp_path: Path, kafka_bootstrap: str) -> None:
    empty = tmp_path / "plugins"
    empty.mkdir()
    props = _worker_props(kafka_bootstrap, tmp_path, "plain", empty, free_port())
    kc = _kconnect(tmp_path, "plain", props)
    try:
        kc.wait_ready()
        assert httpx.get(f"{kc.url}/connector-plugins", timeout=10).status_code == 200
        assert _java_children(kc.proc.pid) == []
    finally:
        kc.stop()


def test_the_jvm_runs_only_while_needed_and_dies_with_the_worker(
    tmp_path: Path, plugin_path: Path, kafka_bootstrap: str
) -> None:
    props = _worker_props(kafka_bootstrap, tmp_path, "kc", plugin_path, free_port())
    props["plugin.java.preferred"] = "true"  # Debezium's jar, not the native connector
    kc = _kconnect(tmp_path, "kc", props)
    try:
        kc.wait_ready()
        # listed from the scan (or its cache): no JVM kept for that
        assert POSTGRES in _plugins(kc.url)
        assert _java_children(kc.proc.pid) == []
        answer = httpx.put(
            f"{kc.url}/connector-plugins/PostgresConnector/config/validate",
            json=VALIDATE_CASES["postgres, required keys missing"],
            timeout=120,
        )
        assert answer.status_code == 200 and answer.json()["error_count"] > 0, answer.text
        jvms = _java_children(kc.proc.pid)
        assert len(jvms) == 1, jvms
        kc.proc.send_signal(signal.SIGKILL)
        kc.proc.wait(30)
        eventually(lambda: exited(jvms[0]), 15, "the plugin host JVM to exit")
    finally:
        if kc.running():
            kc.stop()


# ------------------------------------------------------------------- running a Java source


_create = create_connector


def _task_state(url: str, name: str) -> str:
    status = httpx.get(f"{url}/connectors/{name}/status", timeout=10).json()
    tasks = status.get("tasks") or []
    return tasks[0]["state"] if tasks else ""


def _topic_lines(bootstrap: str, topic: str, n: int) -> list[tuple[bytes | None, bytes | None]]:
    from kconnect.kafka.tools.inspection import read_topic

    def enough() -> list[tuple[bytes | None, bytes | None]]:
        records = [(r.key, r.value) for r in read_topic(bootstrap, topic)]
        return records if len(records) >= n else []

    return eventually(enough, 60, f"{n} records in {topic}")


def test_kafkas_java_file_source_runs_on_kconnect_as_on_kafka_connect(
    workers: tuple[str, str], kafka_bootstrap: str, topic_factory: Any, tmp_path: Path
) -> None:
    """Kafka's own FileStreamSourceConnector jar (plugin.java.preferred on kconnect) copies the
    same file into one topic per runtime: the same keys and value bytes, in order; after a
    restart of the connector it resumes from its committed offset, not from the start."""
    java_url, kc_url = workers
    lines = [f"line {i}: données-{i % 7} 🚀" for i in range(300)]
    source = tmp_path / "input.txt"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    topics = {"java": topic_factory(), "kconnect": topic_factory()}
    for url, label in ((java_url, "java"), (kc_url, "kconnect")):
        _create(url, f"file-{label}", {
            "connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(source),
            "topic": topics[label],
        })  # fmt: skip
    java_records = _topic_lines(kafka_bootstrap, topics["java"], len(lines))
    kc_records = _topic_lines(kafka_bootstrap, topics["kconnect"], len(lines))
    assert kc_records == java_records
    assert len(kc_records) == len(lines)
    # the task runs in the plugin host, reported RUNNING like any task
    assert _task_state(kc_url, "file-kconnect") == "RUNNING"

    # restart: offsets were committed and are read back through the OffsetStorageReader.
    # (An ASCII file: Kafka's FileStreamSourceTask counts its position in characters but skips
    # bytes when it resumes, so on a file with multi-byte characters it resumes mid-line -- on
    # Kafka Connect too.)
    ascii_file = tmp_path / "ascii.txt"
    ascii_file.write_text("".join(f"plain line {i}\n" for i in range(100)), encoding="ascii")
    topic = topic_factory()
    _create(kc_url, "file-resume", {
        "connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(ascii_file), "topic": topic,
    })  # fmt: skip
    _topic_lines(kafka_bootstrap, topic, 100)
    restart = httpx.post(f"{kc_url}/connectors/file-resume/restart?includeTasks=true", timeout=60)
    assert restart.status_code in (200, 202, 204), restart.text
    eventually(lambda: _task_state(kc_url, "file-resume") == "RUNNING", 60, "RUNNING again")
    with ascii_file.open("a", encoding="ascii") as f:
        f.write("after the restart\n")
    after = _topic_lines(kafka_bootstrap, topic, 101)
    time.sleep(2)  # a re-read would show up in this time
    after = _topic_lines(kafka_bootstrap, topic, 101)
    assert len(after) == 101, "lines read twice after the restart"
    assert after[-1][1] is not None and b"after the restart" in after[-1][1]


# -------------------------------------------------------------------- running a Java sink


FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"


def test_kafkas_java_file_sink_runs_on_kconnect_as_on_kafka_connect(
    workers: tuple[str, str], kafka_bootstrap: str, topic_factory: Any, tmp_path: Path
) -> None:
    """Kafka's own FileStreamSinkConnector jar, run by kconnect (plugin.java.preferred), writes
    the same file as Kafka Connect running it: every Connect type through JsonConverter
    (structs, arrays, maps, logical types, nulls, a tombstone) and schemaless values -- the
    records cross to the plugin host in kconnect's binary sink batches."""
    with_schema, schemaless = topic_factory(), topic_factory()
    expected = produce_inputs(kafka_bootstrap, with_schema, schemaless)
    outputs: dict[str, dict[str, Path]] = {}
    for url, label in zip(workers, ("java", "kconnect"), strict=True):
        outputs[label] = {}
        for kind, topic, schemas in (("schema", with_schema, True), ("plain", schemaless, False)):
            out = tmp_path / f"{label}-{kind}.txt"
            outputs[label][kind] = out
            _create(url, f"sink-{label}-{kind}", {
                "connector.class": FILE_SINK, "tasks.max": "1", "topics": topic,
                "file": str(out), "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                "value.converter.schemas.enable": str(schemas).lower(),
            })  # fmt: skip

    def lines(path: Path) -> list[str]:
        # a byte[] prints as its identity ([B@1b6d3586), different in any two JVMs
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        return masked(text).splitlines()

    eventually(
        lambda: all(
            len(lines(outputs[label][kind])) >= n
            for label in outputs
            for kind, n in expected.items()
        ),
        120,
        "both sinks to write every record",
    )
    for kind in expected:
        assert lines(outputs["kconnect"][kind]) == lines(outputs["java"][kind]), kind
    assert _task_state(workers[1], "sink-kconnect-schema") == "RUNNING"


# ------------------------------------------------------------------- a Java SMT in a chain


def test_a_java_smt_in_a_source_chain_writes_what_kconnects_own_smt_writes(
    tmp_path: Path, kafka_bootstrap: str, topic_factory: Any
) -> None:
    """kconnect's own FileStreamSource with Kafka's ``HoistField$Value`` and
    ``InsertField$Value`` from a connect-transforms jar in plugin.path (preferred over kconnect's
    own, ``plugin.java.preferred``), beside the same connector whose chain names kconnect's Python
    SMTs by import path: both topics hold the same keys and value bytes, in order."""
    from kconnect.testing.java import CONNECT_VERSION, classpath

    plugins = tmp_path / "plugins"
    (plugins / "connect-transforms").mkdir(parents=True)
    jars = classpath([f"org.apache.kafka:connect-transforms:{CONNECT_VERSION}"])
    jar = next(j for j in jars if j.name == f"connect-transforms-{CONNECT_VERSION}.jar")
    (plugins / "connect-transforms" / jar.name).write_bytes(jar.read_bytes())
    props = _worker_props(kafka_bootstrap, tmp_path, "smt", plugins, free_port())
    props["plugin.java.preferred"] = "true"
    kc = _kconnect(tmp_path, "smt", props)
    lines = [f"line {i}: données-{i % 7}" for i in range(200)]
    source = tmp_path / "input.txt"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    smts = {
        "java": ("org.apache.kafka.connect.transforms.HoistField$Value",
                 "org.apache.kafka.connect.transforms.InsertField$Value"),
        "python": ("kconnect.transforms.hoist_field:HoistFieldValue",
                   "kconnect.transforms.insert_field:InsertFieldValue"),
    }  # fmt: skip
    topics = {label: topic_factory() for label in smts}
    try:
        kc.wait_ready()
        for label, (hoist, insert) in smts.items():
            _create(kc.url, f"file-{label}", {
                "connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(source),
                "topic": topics[label], "transforms": "hoist,insert",
                "transforms.hoist.type": hoist, "transforms.hoist.field": "line",
                "transforms.insert.type": insert, "transforms.insert.static.field": "origin",
                "transforms.insert.static.value": "kconnect",
            })  # fmt: skip
        java = _topic_lines(kafka_bootstrap, topics["java"], len(lines))
        python = _topic_lines(kafka_bootstrap, topics["python"], len(lines))
        assert java == python
        assert len(java) == len(lines)
        assert java[0][1] is not None and b'"origin":"kconnect"' in java[0][1]
        assert b'"line":"line 0: donn' in java[0][1]
        assert _task_state(kc.url, "file-java") == "RUNNING"
        assert len(_java_children(kc.proc.pid)) == 1  # the host runs the Java SMTs
    finally:
        kc.stop()
