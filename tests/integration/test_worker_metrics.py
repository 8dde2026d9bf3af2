"""Worker metrics against the real broker: exact totals for a file source -> topic -> file
sink pipeline, and task-error-metrics for a sink with DLQ'd, skipped and retried records."""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

import pytest

from kconnect.api import ConfigDef, RetriableException, Transformation
from kconnect.runtime.worker.worker import Worker
from kconnect.testing.fakes import RecordingStatusListener
from tests.integration.test_worker_sink_errors import PUTS
from tests.integration.worker_support import (
    make_worker,
    produce,
    start_connector_and_tasks,
    wait_until,
)

pytestmark = pytest.mark.kafka

N = 1000


def metric(worker: Worker, group: str, name: str, **tags: str) -> Any:
    """The current value of one metric (KeyError when it is not registered)."""
    for m, value in worker.metrics.registry.snapshot():
        if (
            m.group == group
            and m.name == name
            and all(m.tag_dict.get(k) == v for k, v in tags.items())
        ):
            return value
    raise KeyError(f"{group}/{name} {tags}")


def producer_client_ids(worker: Worker) -> set[str]:
    return {
        m.tag_dict["client-id"]
        for m, _ in worker.metrics.registry.snapshot()
        if m.group == "producer-metrics"
    }


@pytest.mark.parametrize("shared", [True, False], ids=["shared-producer", "own-producer"])
def test_file_source_to_file_sink_exact_totals(
    kafka_bootstrap, unique_topic, tmp_path, shared
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("".join(f"line-{i}\n" for i in range(N)))
    out = tmp_path / "out.txt"
    worker = make_worker(
        kafka_bootstrap,
        tmp_path,
        **{
            "producer.statistics.interval.ms": "200",
            "consumer.statistics.interval.ms": "200",
            "task.producers.shared": str(shared).lower(),
        },
    )
    listener = RecordingStatusListener()
    started = time.monotonic()
    try:
        start_connector_and_tasks(
            worker,
            "msrc",
            {"name": "msrc", "connector.class": "FileStreamSource", "file": str(src),
             "topic": unique_topic, "batch.size": "100"},
            listener,
        )  # fmt: skip
        start_connector_and_tasks(
            worker,
            "msink",
            {"name": "msink", "connector.class": "FileStreamSink", "file": str(out),
             "topics": unique_topic},
            listener,
        )  # fmt: skip
        src_tags = {"connector": "msrc", "task": "0"}
        sink_tags = {"connector": "msink", "task": "0"}
        wait_until(
            lambda: metric(worker, "sink-task-metrics", "sink-record-send-total", **sink_tags) == N,
            30,
            message="all records put to the file sink",
        )
        wait_until(
            lambda: (
                metric(worker, "source-task-metrics", "source-record-write-total", **src_tags) == N
            ),
            10,
            message="all records acknowledged",
        )
        elapsed_s = time.monotonic() - started
        assert metric(worker, "source-task-metrics", "source-record-poll-total", **src_tags) == N
        assert metric(worker, "sink-task-metrics", "sink-record-read-total", **sink_tags) == N
        assert out.read_text().splitlines() == [f"line-{i}" for i in range(N)]
        # Rates over Kafka's padded window (2 samples x 30 s): at most N per 30 s so far.
        for group, name, tags in (
            ("source-task-metrics", "source-record-poll-rate", src_tags),
            ("source-task-metrics", "source-record-write-rate", src_tags),
            ("sink-task-metrics", "sink-record-read-rate", sink_tags),
            ("sink-task-metrics", "sink-record-send-rate", sink_tags),
        ):
            rate = metric(worker, group, name, **tags)
            assert N / (30 + elapsed_s + 1) <= rate <= N / 30 + 1e-9, (name, rate)
        # FileStreamSource polls at most batch.size lines at a time.
        assert 1 <= metric(worker, "connector-task-metrics", "batch-size-max", **src_tags) <= 100
        assert metric(worker, "source-task-metrics", "poll-batch-max-time-ms", **src_tags) >= 0
        assert metric(worker, "source-task-metrics", "source-record-active-count", **src_tags) == 0
        assert metric(worker, "sink-task-metrics", "partition-count", **sink_tags) == 1
        assert metric(worker, "sink-task-metrics", "put-batch-max-time-ms", **sink_tags) >= 0
        # Commits every 200 ms (offset.flush.interval.ms): sequence numbers, completions.
        wait_until(
            lambda: metric(worker, "sink-task-metrics", "offset-commit-completion-total",
                           **sink_tags) >= 2,
            10,
            message="sink commits",
        )  # fmt: skip
        wait_until(
            lambda: (
                metric(worker, "sink-task-metrics", "sink-record-active-count", **sink_tags) == 0
            ),
            10,
            message="all read records committed",
        )
        assert metric(worker, "sink-task-metrics", "offset-commit-seq-no", **sink_tags) >= 2
        # The source commits on its own interval, checked between polls: FileStreamSource
        # waits up to 1 s at the end of its file, so its first commit may still be ahead.
        wait_until(
            lambda: sum(
                metric(worker, "connector-task-metrics", f"offset-commit-{kind}-percentage",
                       **src_tags)
                for kind in ("success", "failure")
            ) > 0,
            10,
            message="a source offset commit",
        )  # fmt: skip
        for tags in (src_tags, sink_tags):
            assert metric(worker, "connector-task-metrics", "status", **tags) == "running"
            assert (
                metric(worker, "connector-task-metrics", "offset-commit-success-percentage", **tags)
                == 1.0
            )
            assert metric(worker, "connector-task-metrics", "running-ratio", **tags) > 0.9
            assert metric(worker, "task-error-metrics", "total-record-failures", **tags) == 0
        assert metric(worker, "connector-task-metrics", "task-class", **src_tags) == (
            "org.apache.kafka.connect.file.FileStreamSourceTask"
        )
        assert metric(worker, "connector-task-metrics", "value-converter-class", **src_tags) == (
            "org.apache.kafka.connect.storage.StringConverter"
        )
        assert metric(worker, "connector-metrics", "status", connector="msrc") == "running"
        assert metric(worker, "connector-metrics", "connector-type", connector="msink") == "sink"
        # Worker-level counts.
        assert metric(worker, "connect-worker-metrics", "connector-count") == 2
        assert metric(worker, "connect-worker-metrics", "task-count") == 2
        assert metric(worker, "connect-worker-metrics", "task-startup-success-total") == 2
        assert metric(worker, "connect-worker-metrics", "connector-startup-success-total") == 2
        assert metric(worker, "connect-worker-metrics", "task-startup-success-percentage") == 1.0
        assert (
            metric(worker, "connect-worker-metrics", "connector-running-task-count",
                   connector="msink") == 1
        )  # fmt: skip
        # Client metrics from librdkafka statistics (every 200 ms here).
        # Kafka Connect's client.id with a producer of the task's own; with a shared one
        # (kconnect's default), the shared producer's, and no per-task producer
        ids = producer_client_ids(worker)
        if shared:
            assert len(ids) == 1 and next(iter(ids)).startswith("connector-producer-shared-"), ids
            producer = {"client-id": next(iter(ids))}
        else:
            assert ids == {"connector-producer-msrc-0"}
            producer = {"client-id": "connector-producer-msrc-0"}
        consumer = {"client-id": "connector-consumer-msink-0"}
        wait_until(
            lambda: (
                metric(worker, "producer-metrics", "outgoing-byte-total", **producer) > 0
                and metric(worker, "consumer-metrics", "incoming-byte-total", **consumer) > 0
            ),
            10,
            message="client statistics",
        )
        assert metric(worker, "producer-metrics", "connection-count", **producer) >= 1
        assert metric(worker, "producer-metrics", "request-total", **producer) > 0
        wait_until(
            lambda: metric(worker, "sink-task-metrics", "sink-record-lag-max", **sink_tags) == 0,
            # a max over the metrics' sample windows (2 x 30 s): on a loaded machine the sink may
            # still have lagged in the current window
            90,
            message="consumer lag reported",
        )
        # Nothing new to read: the idle gauge grows.
        time.sleep(0.5)
        idle = metric(worker, "task", "idle-seconds", **src_tags)
        assert idle >= 0.4
    finally:
        worker.stop()
    # Stopped tasks and connectors leave no metrics behind.
    assert metric(worker, "connect-worker-metrics", "task-count") == 0
    with pytest.raises(KeyError):
        metric(worker, "source-task-metrics", "source-record-poll-total", connector="msrc")


_FLAKY_LOCK = threading.Lock()
_FLAKY_FIRST_FAILURE: dict[str, float] = {}


class FlakyTransform(Transformation[Any]):
    """Raises RetriableException for the value ``"flaky"`` until 250 ms after it first did."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: Any) -> Any:
        if record.value == "flaky":
            key = f"{record.topic}/{record.kafka_offset}"
            with _FLAKY_LOCK:
                first = _FLAKY_FIRST_FAILURE.setdefault(key, time.monotonic())
            if time.monotonic() - first < 0.25:
                raise RetriableException("flaky downstream, try again")
        return record

    def config(self) -> ConfigDef:
        return ConfigDef()

    def close(self) -> None:
        pass


def test_sink_error_metrics_dlq_skips_and_retries(kafka_bootstrap, unique_topic, tmp_path) -> None:
    dlq = f"dlq-{uuid.uuid4().hex[:10]}"
    values = [b'"ok0"', b"{not json", b'"ok2"', b'"flaky"', b'"ok4"', b"{bad"]
    produce(kafka_bootstrap, unique_topic, [(f"k{i}".encode(), v) for i, v in enumerate(values)])
    name = f"msink-{uuid.uuid4().hex[:8]}"
    props = {
        "name": name,
        "connector.class": "tests.integration.test_worker_sink_errors.RecordingSinkConnector",
        "topics": unique_topic,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "transforms": "flaky",
        "transforms.flaky.type": f"{__name__}.FlakyTransform",
        "errors.tolerance": "all",
        "errors.retry.timeout": "10000",
        "errors.log.enable": "true",
        "errors.deadletterqueue.topic.name": dlq,
        "errors.deadletterqueue.topic.replication.factor": "1",
    }
    worker = make_worker(kafka_bootstrap, tmp_path)
    before_ms = time.time() * 1000
    try:
        start_connector_and_tasks(worker, name, props, RecordingStatusListener())
        tags = {"connector": name, "task": "0"}
        wait_until(
            lambda: metric(worker, "sink-task-metrics", "sink-record-send-total", **tags) == 4,
            20,
            message="good records put",
        )
        assert [r[3] for b in PUTS[name] for r in b] == ["ok0", "ok2", "flaky", "ok4"]
        assert metric(worker, "sink-task-metrics", "sink-record-read-total", **tags) == 6

        def err(n: str) -> float:
            return float(metric(worker, "task-error-metrics", n, **tags))

        wait_until(lambda: err("deadletterqueue-produce-requests") == 2, 10, message="DLQ")
        # Two converter failures (each: failure, error, skip, log line, DLQ write) and one
        # retriable transformation failure that succeeded on its retry.
        assert err("total-record-failures") == 3
        assert err("total-record-errors") == 2
        assert err("total-records-skipped") == 2
        assert err("total-retries") == 1
        assert err("total-errors-logged") == 2
        assert err("deadletterqueue-produce-failures") == 0
        assert before_ms <= err("last-error-timestamp") <= time.time() * 1000
        assert metric(worker, "connector-task-metrics", "status", **tags) == "running"
        assert not math.isnan(metric(worker, "connector-task-metrics", "batch-size-avg", **tags))
    finally:
        worker.stop()
