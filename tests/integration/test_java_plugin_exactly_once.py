"""A Java source connector run exactly once by kconnect (KIP-618), against the real broker.

``test.jeos.CountingSource`` (compiled here) is the Java twin of the Python counting connector
of ``test_exactly_once_boundaries.py``: it declares exactly-once support and connector-defined
transaction boundaries, and its task asks its ``TransactionContext`` to commit after every 25th
record and to abort the batch holding record 55. Run by an in-process worker with
``exactly.once.source.support=enabled``, a ``read_committed`` consumer must see exactly what
the Python twin gives (and Kafka's WorkerTransactionContext defines): r-0..r-49 and r-60..r-99,
with the offsets of the aborted batch committed all the same.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kconnect.java_host.host_process import shared_host
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.worker import Worker
from kconnect.testing.exactly_once import (
    committed_records,
    exactly_once_worker,
    last_offset,
    start_exactly_once_task,
)
from kconnect.testing.fakes import RecordingStatusListener
from kconnect.testing.java import compiled_plugin
from tests.integration.worker_support import wait_until

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.slow]

COUNTING = "test.jeos.CountingSource"
#: The one source partition of the counting task.
PARTITION = {"p": "x"}

SOURCES = {
    "test/jeos/CountingSource.java": """
        package test.jeos;

        import java.util.*;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.source.*;

        public class CountingSource extends SourceConnector {
            private Map<String, String> props;
            public void start(Map<String, String> props) { this.props = props; }
            public Class<? extends Task> taskClass() { return CountingTask.class; }
            public List<Map<String, String>> taskConfigs(int max) { return List.of(props); }
            public void stop() { }
            public ConfigDef config() { return new ConfigDef(); }
            public String version() { return "1.0"; }
            public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> c) {
                return ExactlyOnceSupport.SUPPORTED;
            }
            public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> c) {
                return ConnectorTransactionBoundaries.SUPPORTED;
            }
        }
    """,
    "test/jeos/CountingTask.java": """
        package test.jeos;

        import java.util.*;
        import org.apache.kafka.connect.data.Schema;
        import org.apache.kafka.connect.source.*;

        public class CountingTask extends SourceTask {
            private String topic;
            private int count, every, abortAt, next;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                topic = props.get("topic");
                count = Integer.parseInt(props.get("count"));
                every = Integer.parseInt(props.getOrDefault("commit.every", "0"));
                abortAt = Integer.parseInt(props.getOrDefault("abort.batch", "-1"));
                Map<String, Object> stored = context.offsetStorageReader().offset(Map.of("p", "x"));
                next = stored == null ? 0 : ((Number) stored.get("n")).intValue() + 1;
            }
            public List<SourceRecord> poll() {
                if (next >= count) {
                    return null;
                }
                TransactionContext tx = context.transactionContext();
                List<SourceRecord> batch = new ArrayList<>();
                for (int n = next; n < Math.min(next + 10, count); n++) {
                    SourceRecord r = new SourceRecord(Map.of("p", "x"), Map.of("n", n), topic,
                            Schema.STRING_SCHEMA, "r-" + n);
                    batch.add(r);
                    if (tx != null && every > 0 && n % every == every - 1) {
                        tx.commitTransaction(r);
                    }
                    if (tx != null && n == abortAt) {
                        tx.abortTransaction();
                    }
                }
                next += batch.size();
                return batch;
            }
            public void stop() { }
        }
    """,
}


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_plugin(SOURCES, tmp_path_factory.mktemp("jeos-build"),
                           tmp_path_factory.mktemp("jeos-plugins"), "counting-plugin")  # fmt: skip


@pytest.fixture
def eos_worker(kafka_bootstrap: str, plugin_path: Path) -> Iterator[tuple[Worker, str]]:
    plugins = Plugins.load([str(plugin_path)])
    settings = {"plugin.path": str(plugin_path)}
    with exactly_once_worker(
        kafka_bootstrap, plugins, name="eos-java-worker", group_prefix="eos-j", settings=settings
    ) as (worker, group):
        yield worker, group
    shared_host().stop_jvm()


def _run(worker: Worker, name: str, props: dict[str, str]) -> RecordingStatusListener:
    return start_exactly_once_task(worker, COUNTING, name, props)


def _values(bootstrap: str, topic: str) -> list[Any]:
    return [m.value().decode() for m in committed_records(bootstrap, topic)]


def test_java_task_defines_its_transactions(
    eos_worker: tuple[Worker, str], kafka_bootstrap: str
) -> None:
    worker, group = eos_worker
    topic = f"eos-j-{uuid.uuid4().hex[:8]}"
    listener = _run(worker, "jcounting", {"topic": topic, "count": "100",
                                          "transaction.boundary": "connector",
                                          "commit.every": "25", "abort.batch": "55"})  # fmt: skip
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 90, 60,
               message="the committed records")  # fmt: skip
    worker.stop_and_await_task(ConnectorTaskId("jcounting", 0))
    assert listener.failure(ConnectorTaskId("jcounting", 0)) is None
    assert _values(kafka_bootstrap, topic) == [f"r-{n}" for n in range(50)] + [
        f"r-{n}" for n in range(60, 100)
    ]
    assert last_offset(kafka_bootstrap, f"{group}-offsets", "jcounting", PARTITION) == {"n": 99}


def test_java_task_with_poll_boundaries_resumes_from_committed_offsets(
    eos_worker: tuple[Worker, str], kafka_bootstrap: str
) -> None:
    worker, group = eos_worker
    topic = f"eos-j-{uuid.uuid4().hex[:8]}"
    _run(worker, "jpoll", {"topic": topic, "count": "40"})
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 40, 60,
               message="40 records")  # fmt: skip
    worker.stop_and_await_task(ConnectorTaskId("jpoll", 0))
    assert last_offset(kafka_bootstrap, f"{group}-offsets", "jpoll", PARTITION) == {"n": 39}
    _run(worker, "jpoll", {"topic": topic, "count": "60"})
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 60, 60,
               message="60 records")  # fmt: skip
    worker.stop_and_await_task(ConnectorTaskId("jpoll", 0))
    assert _values(kafka_bootstrap, topic) == [f"r-{n}" for n in range(60)]
