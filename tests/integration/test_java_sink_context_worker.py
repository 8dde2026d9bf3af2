"""A Java sink task's ``SinkTaskContext`` on a kconnect worker, with Kafka Connect 4.1.2 running
the same plugin as the oracle.

``test.ctx.ContextSink`` (compiled here) writes the string values it is given to a file and,
for marker values, uses its context the way real sinks do: ``errantRecordReporter().report``
(into the worker's dead letter queue), a rewind (``offset``) that re-reads the partition from
the start, ``pause`` and a ``resume`` half a second later with the position set by ``offset``,
a ``RetriableException`` after ``timeout(100)`` (the same batch comes again), ``requestCommit``,
and ``assignment()``. The marker sequence is built so that the file does not depend on how the
consumer batches the records: both workers must write the same file, fill their DLQ with the same
records and headers (stack traces aside), and commit every record.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from kconnect.kafka.tools.admin_ping import create_topic
from kconnect.testing.java import compiled_plugin
from kconnect.testing.java_worker import (
    STRING_CONVERTER,
    eventually,
    put_connector,
    standalone_pair,
)
from tests.integration.worker_support import produce

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.slow]

SINK = "test.ctx.ContextSink"
SOURCES = {
    "test/ctx/ContextSink.java": """
        package test.ctx;

        import java.util.*;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.sink.SinkConnector;

        public class ContextSink extends SinkConnector {
            private Map<String, String> props;
            public void start(Map<String, String> props) { this.props = props; }
            public Class<? extends Task> taskClass() { return ContextSinkTask.class; }
            public List<Map<String, String>> taskConfigs(int max) { return List.of(props); }
            public void stop() { }
            public ConfigDef config() {
                return new ConfigDef().define("file", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "out");
            }
            public String version() { return "1.0"; }
        }
    """,
    "test/ctx/ContextSinkTask.java": """
        package test.ctx;

        import java.io.*;
        import java.nio.charset.StandardCharsets;
        import java.util.*;
        import org.apache.kafka.clients.consumer.OffsetAndMetadata;
        import org.apache.kafka.common.TopicPartition;
        import org.apache.kafka.connect.errors.DataException;
        import org.apache.kafka.connect.errors.RetriableException;
        import org.apache.kafka.connect.sink.*;

        public class ContextSinkTask extends SinkTask {
            private Writer out;
            private boolean rewound, retried, assignmentWritten;
            private long pausedAt = -1;
            private TopicPartition paused;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                try {
                    out = new OutputStreamWriter(new FileOutputStream(props.get("file"), true),
                            StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            private void write(String line) {
                try {
                    out.write(line + "\\n");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            public void put(Collection<SinkRecord> records) {
                if (!assignmentWritten && !records.isEmpty()) {
                    assignmentWritten = true;
                    write("assignment=" + context.assignment());
                }
                if (paused != null && System.currentTimeMillis() - pausedAt > 500) {
                    context.resume(paused);
                    paused = null;
                    write("resumed");
                }
                for (SinkRecord r : records) {
                    if ("retry-once".equals(r.value()) && !retried) {
                        retried = true;
                        context.timeout(100);
                        throw new RetriableException("try again");
                    }
                }
                for (SinkRecord r : records) {
                    String v = String.valueOf(r.value());
                    TopicPartition tp = new TopicPartition(r.topic(), r.kafkaPartition());
                    if (v.startsWith("bad-")) {
                        try {
                            context.errantRecordReporter().report(r, new DataException("bad value " + v)).get();
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                        continue;
                    }
                    write(v);
                    if (v.equals("rewind") && !rewound) {
                        rewound = true;
                        context.offset(tp, 0L);
                        return;
                    }
                    if (v.equals("pause") && paused == null && pausedAt < 0) {
                        pausedAt = System.currentTimeMillis();
                        paused = tp;
                        context.offset(tp, r.kafkaOffset() + 1);
                        context.pause(tp);
                        return;
                    }
                    if (v.equals("commit-now")) {
                        context.requestCommit();
                    }
                }
            }
            public void flush(Map<TopicPartition, OffsetAndMetadata> offsets) {
                try {
                    out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            public void stop() {
                try {
                    out.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    """,
}

VALUES = (
    [f"a-{i}" for i in range(10)] + ["bad-1"] + [f"a-{i}" for i in range(10, 15)] + ["rewind"]
    + [f"a-{i}" for i in range(15, 20)] + ["pause"] + [f"a-{i}" for i in range(20, 25)]
    + ["retry-once"] + [f"a-{i}" for i in range(25, 30)] + ["commit-now", "bad-2"]
    + [f"a-{i}" for i in range(30, 35)]
)  # fmt: skip


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_plugin(SOURCES, tmp_path_factory.mktemp("ctx-build"),
                           tmp_path_factory.mktemp("ctx-plugins"), "context-sink")  # fmt: skip


@pytest.fixture(scope="module")
def workers(
    tmp_path_factory: pytest.TempPathFactory, plugin_path: Path, kafka_bootstrap: str
) -> Iterator[dict[str, str]]:
    settings = {
        "offset.flush.interval.ms": "60000",  # commits come from requestCommit and stop
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
    }
    with standalone_pair(kafka_bootstrap, tmp_path_factory.mktemp("ctx-workers"), plugin_path,
                         settings=settings) as (java_url, kc_url):  # fmt: skip
        yield {"java": java_url, "kc": kc_url}


def _records(bootstrap: str, topic: str) -> list[Any]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "ctx-" + uuid.uuid4().hex})
    try:
        high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]
        c.assign([TopicPartition(topic, 0, 0)])
        out: list[Any] = []
        while len(out) < high:
            m = c.poll(5.0)
            if m is not None and not m.error():
                out.append(m)
        return out
    finally:
        c.close()


def _committed(bootstrap: str, group: str, topic: str) -> int:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        (tp,) = c.committed([TopicPartition(topic, 0)], timeout=10)
        return int(tp.offset)
    finally:
        c.close()


def test_a_java_sinks_context_on_kconnect_as_on_kafka_connect(
    workers: dict[str, str], kafka_bootstrap: str, tmp_path: Path
) -> None:
    topic = f"ctx-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic, partitions=1)
    produce(kafka_bootstrap, topic, [(None, v.encode()) for v in VALUES])
    files = {rt: tmp_path / f"{rt}.txt" for rt in workers}
    dlqs = {rt: f"{topic}-dlq-{rt}" for rt in workers}
    for rt, url in workers.items():
        put_connector(url, f"ctx-{rt}", {
            "connector.class": SINK, "tasks.max": "1", "topics": topic, "file": str(files[rt]),
            "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlqs[rt],
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        })  # fmt: skip

    def lines(rt: str) -> list[str]:
        return files[rt].read_text().splitlines() if files[rt].exists() else []

    last = "a-34"
    eventually(lambda: all(lines(rt).count(last) == 1 for rt in workers), 120, "both files")
    # the commit asked after "commit-now" (offset.flush.interval.ms is a minute)
    commit_now = VALUES.index("commit-now")
    for rt in workers:
        eventually(lambda r=rt: _committed(kafka_bootstrap, f"connect-ctx-{r}", topic) > commit_now,
                   60, f"{rt}'s requested commit")  # fmt: skip
    assert lines("kc") == lines("java")
    written = lines("kc")
    assert written[0] == f"assignment=[{topic}-0]"
    # read to "rewind", then again from the start (bad-1 reported twice), paused after "pause",
    # resumed, "retry-once" after one retriable failure
    assert written.count("a-0") == 2 and written.count("rewind") == 2 and "resumed" in written
    assert written.count("retry-once") == 1 and written.count("a-25") == 1
    dlq = {rt: _records(kafka_bootstrap, dlqs[rt]) for rt in workers}
    assert (
        [m.value() for m in dlq["kc"]]
        == [m.value() for m in dlq["java"]]
        == [b"bad-1", b"bad-1", b"bad-2"]
    )

    def headers(m: Any) -> dict[str, bytes]:
        # each runtime's connector has its own name; stack traces are each runtime's own
        return {
            k: v.replace(b"ctx-kc", b"ctx-java")
            for k, v in (m.headers() or [])
            if "stacktrace" not in k
        }

    for kc_record, java_record in zip(dlq["kc"], dlq["java"], strict=True):
        assert headers(kc_record) == headers(java_record)
