"""``/metrics`` and ``/connectors/{name}/metrics`` of a running ``kconnect standalone``, and
``kconnect status`` against it: every metric of Kafka Connect's registry (reference §9) is
exposed under the JMX exporter's names."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.test_standalone_rest import Worker, _wait

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

# Reference §9: group -> metrics (Kafka's ConnectMetricsRegistry, 3.8-4.1).
REFERENCE = {
    "connector-metrics": "status connector-type connector-class connector-version",
    "connector-task-metrics": (
        "status running-ratio pause-ratio offset-commit-max-time-ms offset-commit-avg-time-ms "
        "batch-size-max batch-size-avg offset-commit-failure-percentage "
        "offset-commit-success-percentage connector-class connector-version connector-type "
        "task-class task-version key-converter-class value-converter-class "
        "header-converter-class key-converter-version value-converter-version "
        "header-converter-version"
    ),
    "source-task-metrics": (
        "source-record-poll-rate source-record-poll-total source-record-write-rate "
        "source-record-write-total poll-batch-max-time-ms poll-batch-avg-time-ms "
        "source-record-active-count source-record-active-count-max "
        "source-record-active-count-avg transaction-size-min transaction-size-max "
        "transaction-size-avg"
    ),
    "sink-task-metrics": (
        "sink-record-read-rate sink-record-read-total sink-record-send-rate "
        "sink-record-send-total sink-record-lag-max partition-count offset-commit-seq-no "
        "offset-commit-completion-rate offset-commit-completion-total offset-commit-skip-rate "
        "offset-commit-skip-total put-batch-max-time-ms put-batch-avg-time-ms "
        "sink-record-active-count sink-record-active-count-max sink-record-active-count-avg"
    ),
    "connect-worker-metrics": (
        "connector-count task-count connector-startup-attempts-total "
        "connector-startup-success-total connector-startup-success-percentage "
        "connector-startup-failure-total connector-startup-failure-percentage "
        "task-startup-attempts-total task-startup-success-total task-startup-success-percentage "
        "task-startup-failure-total task-startup-failure-percentage "
        "connector-total-task-count connector-running-task-count connector-paused-task-count "
        "connector-failed-task-count connector-unassigned-task-count "
        "connector-destroyed-task-count connector-restarting-task-count"
    ),
    "connect-worker-rebalance-metrics": (
        "connect-protocol leader-name epoch completed-rebalances-total rebalancing "
        "rebalance-max-time-ms rebalance-avg-time-ms time-since-last-rebalance-ms"
    ),
    "task-error-metrics": (
        "total-record-failures total-record-errors total-records-skipped total-retries "
        "total-errors-logged deadletterqueue-produce-requests deadletterqueue-produce-failures "
        "last-error-timestamp"
    ),
    "connector-transform-metrics": "transform-class transform-version",
    "connector-predicate-metrics": "predicate-class predicate-version",
    "connect-coordinator-metrics": "assigned-connectors assigned-tasks",
}


def _prom(group: str, metric: str) -> str:
    return f"kafka_connect_{group}_{metric}".replace("-", "_")


@pytest.fixture
def worker(tmp_path, kafka_bootstrap):
    w = Worker(tmp_path, kafka_bootstrap, flush_ms=200)
    w.start()
    yield w
    w.stop(signal.SIGKILL)


def test_metrics_endpoint_connector_view_and_status_cli(worker, tmp_path) -> None:
    topic = f"m-src-{os.getpid()}-{time.time_ns()}"
    src = tmp_path / "in.txt"
    src.write_text("".join(f"line-{i}\n" for i in range(50)) + "skip-me\n")
    url = worker.url
    # A unique sink name, so its consumer group has no stale member from an earlier run.
    sink_name = f"sink-{time.time_ns()}"
    source = {
        "connector.class": "FileStreamSource",
        "file": str(src),
        "topic": topic,
        "transforms": "drop",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
        "transforms.drop.predicate": "isSkip",
        "predicates": "isSkip",
        "predicates.isSkip.type":
            "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.isSkip.pattern": "no-such-topic",
    }  # fmt: skip
    sink = {"connector.class": "FileStreamSink", "file": str(tmp_path / "out.txt"), "topics": topic}
    broken = {
        "connector.class": "FileStreamSink",
        "file": str(tmp_path / "no-such-dir" / "out.txt"),
        "topics": topic,
        # Left FAILED: an automatic restart a second later would have the task RESTARTING
        # while the metrics and the status CLI below are read.
        "auto.restart.enable": "false",
    }

    def post(name: str, config: dict[str, str]) -> None:
        r = httpx.post(url + "/connectors", json={"name": name, "config": config})
        assert r.status_code == 201, r.text

    def source_written() -> object:
        tasks = httpx.get(url + "/connectors/src/metrics").json()["tasks"]
        return tasks and tasks[0]["metrics"]["source-task-metrics"]["source-record-write-total"]

    post("src", source)
    # The sinks subscribe once the topic exists: a consumer subscribed to a missing topic
    # may only see it at its next metadata refresh.
    _wait(lambda: source_written() == 51, what="51 records written by the source")
    post(sink_name, sink)
    post("broken", broken)

    def sink_sent() -> object:
        tasks = httpx.get(url + f"/connectors/{sink_name}/metrics").json()["tasks"]
        return tasks and tasks[0]["metrics"]["sink-task-metrics"]["sink-record-send-total"]

    try:
        _wait(lambda: sink_sent() == 51, what="51 records through source and sink")
    except AssertionError:
        print(httpx.get(url + f"/connectors/{sink_name}/metrics").text)
        print(httpx.get(url + "/connectors/src/metrics").text)
        print(worker.log.read_text()[-6000:])
        raise
    _wait(
        lambda: (
            httpx.get(url + "/connectors/broken/status").json()["tasks"][0]["state"] == "FAILED"
        ),
        what="broken sink task FAILED",
    )

    r = httpx.get(url + "/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    samples: dict[str, list] = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            samples.setdefault(s.name, []).append(s)
    missing = [
        _prom(group, m)
        for group, names in REFERENCE.items()
        for m in names.split()
        if _prom(group, m) not in samples
    ]
    assert missing == []

    def value(name: str, **labels: str) -> float:
        (s,) = [s for s in samples[name] if all(s.labels.get(k) == v for k, v in labels.items())]
        return float(s.value)

    assert value("kafka_connect_source_task_metrics_source_record_poll_total", connector="src",
                 task="0") == 51  # fmt: skip
    assert value("kafka_connect_sink_task_metrics_sink_record_read_total", connector=sink_name,
                 task="0") == 51  # fmt: skip
    assert value("kafka_connect_connector_metrics_status", connector="src", status="running") == 1
    assert value("kafka_connect_connector_task_metrics_status", connector="broken", task="0",
                 status="failed") == 1  # fmt: skip
    assert value("kafka_connect_connect_worker_metrics_connector_failed_task_count",
                 connector="broken") == 1  # fmt: skip
    assert value("kafka_connect_connect_worker_metrics_task_startup_failure_total") == 1
    assert value("kafka_connect_connect_worker_metrics_task_startup_success_total") == 2
    assert value("kafka_connect_connector_transform_metrics_transform_class", connector="src",
                 task="0", transform="drop",
                 transform_class="org.apache.kafka.connect.transforms.Filter") == 1  # fmt: skip
    assert value("kafka_connect_connect_worker_rebalance_metrics_rebalancing") == 0
    assert "kconnect_task_idle_seconds" in samples
    # plain records: nothing handed back to Python code by the native record path
    assert value("kconnect_task_python_fallback_total", connector="src", task="0") == 0
    assert "kafka_producer_producer_metrics_outgoing_byte_rate" in samples

    view = httpx.get(url + "/connectors/src/metrics").json()
    assert view["name"] == "src"
    assert view["connector"]["connector-metrics"]["status"] == "running"
    (task,) = view["tasks"]
    assert task["id"] == 0
    assert task["metrics"]["source-task-metrics"]["source-record-write-total"] == 51
    assert task["metrics"]["task-error-metrics"]["total-record-errors"] == 0
    assert httpx.get(url + "/connectors/nope/metrics").json() == {
        "error_code": 404,
        "message": "Connector nope not found",
    }

    # The failed task's status carries the error and its trace
    task = httpx.get(url + "/connectors/broken/status").json()["tasks"][0]
    assert task["state"] == "FAILED"
    trace = str(task["trace"])
    assert "no-such-dir" in trace and "Traceback" in trace

    out = subprocess.run(
        [sys.executable, "-m", "kconnect.cli.main", "status", "--url", url],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    src_row = next(line for line in lines if line.startswith("src "))
    assert src_row.split()[:5] == ["src", "source", "RUNNING", "0", "RUNNING"]
    assert src_row.split()[8:10] == ["51", "51"]  # polled, written
    assert any(line.startswith("! broken task 0 FAILED:") for line in lines)
