"""A Java connector plugin in one group of Apache Kafka Connect 4.1.2 and kconnect workers.

``test.mixed.SplitFileSink`` (compiled here, in both workers' ``plugin.path``) is a sink
connector whose task *i* appends the values it is given to ``task-<i>.txt``. With
``tasks.max=2`` on a two-partition topic in a group of one Java worker and one kconnect worker,
one task runs natively on the JVM worker and the other in kconnect's plugin host; together they
write every record once. When the Java worker is killed, its task moves to kconnect, which
resumes it from the offsets the Java task committed in the group's consumer group.
"""

from __future__ import annotations

import signal
import uuid
from pathlib import Path

import httpx
import pytest

from kconnect.kafka.tools.admin_ping import create_topic
from kconnect.testing.java import compiled_plugin
from kconnect.testing.java_worker import JavaWorker
from kconnect.testing.ports import free_port
from tests.integration.distributed_support import Cluster, wait_for
from tests.integration.worker_support import produce

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]

SINK = "test.mixed.SplitFileSink"
SOURCES = {
    "test/mixed/SplitFileSink.java": """
        package test.mixed;

        import java.util.*;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.sink.SinkConnector;

        public class SplitFileSink extends SinkConnector {
            private Map<String, String> props;
            public void start(Map<String, String> props) { this.props = props; }
            public Class<? extends Task> taskClass() { return SplitFileSinkTask.class; }
            public List<Map<String, String>> taskConfigs(int max) {
                List<Map<String, String>> configs = new ArrayList<>();
                for (int i = 0; i < max; i++) {
                    Map<String, String> c = new HashMap<>(props);
                    c.put("task.index", Integer.toString(i));
                    configs.add(c);
                }
                return configs;
            }
            public void stop() { }
            public ConfigDef config() {
                return new ConfigDef().define("directory", ConfigDef.Type.STRING,
                        ConfigDef.Importance.HIGH, "Where task-<i>.txt go");
            }
            public String version() { return "2.0"; }
        }
    """,
    "test/mixed/SplitFileSinkTask.java": """
        package test.mixed;

        import java.io.*;
        import java.nio.charset.StandardCharsets;
        import java.util.*;
        import org.apache.kafka.clients.consumer.OffsetAndMetadata;
        import org.apache.kafka.common.TopicPartition;
        import org.apache.kafka.connect.sink.*;

        public class SplitFileSinkTask extends SinkTask {
            private Writer out;
            public String version() { return "2.0"; }
            public void start(Map<String, String> props) {
                File file = new File(props.get("directory"), "task-" + props.get("task.index") + ".txt");
                try {
                    out = new OutputStreamWriter(new FileOutputStream(file, true), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            public void put(Collection<SinkRecord> records) {
                try {
                    for (SinkRecord r : records) {
                        out.write(r.value() + "\\n");
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
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


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_plugin(SOURCES, tmp_path_factory.mktemp("mixed-build"),
                           tmp_path_factory.mktemp("mixed-plugins"), "split-file-sink")  # fmt: skip


class PluginCluster(Cluster):
    def __init__(self, tmp_path: Path, bootstrap: str, plugin_path: Path) -> None:
        super().__init__(tmp_path, bootstrap)
        self.plugin_path = plugin_path

    def props(self, port: int) -> str:
        return super().props(port) + f"plugin.path={self.plugin_path}\n"


def _java_props(cluster: PluginCluster, port: int) -> dict[str, str]:
    props = dict(line.split("=", 1) for line in cluster.props(port).splitlines())
    props["rest.advertised.host.name"] = "127.0.0.1"
    props["rest.advertised.port"] = str(port)
    return props


def _placement(url: str, name: str) -> dict[int, str]:
    status = httpx.get(f"{url}/connectors/{name}/status", timeout=10).json()
    return {t["id"]: t["worker_id"] for t in status["tasks"] if t["state"] == "RUNNING"}


def _members_with_partitions(bootstrap: str, group: str) -> int:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    described = admin.describe_consumer_groups([group])[group].result(timeout=10)
    return sum(1 for m in described.members if m.assignment.topic_partitions)


def _lines(directory: Path) -> list[str]:
    return sorted(line for f in directory.glob("task-*.txt") for line in f.read_text().splitlines())


def test_a_java_connectors_tasks_run_on_both_kinds_of_worker(
    plugin_path: Path, kafka_bootstrap: str, tmp_path: Path
) -> None:
    cluster = PluginCluster(tmp_path, kafka_bootstrap, plugin_path)
    topic = f"mixed-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic, partitions=2)
    out = tmp_path / "out"
    out.mkdir()
    port = free_port()
    java = JavaWorker(_java_props(cluster, port), tmp_path, name="java-worker")
    try:
        java.wait_ready()
        ours = cluster.add_worker()
        answer = httpx.put(
            f"{ours.url}/connectors/split/config",
            json={"connector.class": SINK, "tasks.max": "2", "topics": topic,
                  "directory": str(out)},
            timeout=100,
        )  # fmt: skip
        assert answer.status_code == 201, answer.text
        java_id, ours_id = f"127.0.0.1:{port}", ours.worker_id
        wait_for(lambda: set(_placement(ours.url, "split").values()) == {java_id, ours_id},
                 120, "one task RUNNING on each worker")  # fmt: skip
        wait_for(lambda: _members_with_partitions(kafka_bootstrap, "connect-split") == 2, 120,
                 "both tasks' consumers in the group, a partition each")  # fmt: skip
        first = [f"v-{i:04d}" for i in range(400)]
        produce(
            kafka_bootstrap, topic, [(str(i).encode(), v.encode()) for i, v in enumerate(first)]
        )
        wait_for(lambda: _lines(out) == first, 90, "every record written once")
        assert all((out / f"task-{i}.txt").read_text() for i in (0, 1)), "both tasks wrote"
        # the plugin's own version, from both runtimes
        plugins = {
            p["class"]: p["version"]
            for p in httpx.get(f"{ours.url}/connector-plugins", timeout=30).json()
        }
        assert plugins[SINK] == "2.0"

        # the Java worker dies: its task moves to kconnect and resumes from Java's commits
        java.proc.send_signal(signal.SIGKILL)
        java.proc.wait(30)
        wait_for(lambda: set(_placement(ours.url, "split").values()) == {ours_id}
                 and len(_placement(ours.url, "split")) == 2, 120,
                 "both tasks RUNNING on kconnect")  # fmt: skip
        more = [f"w-{i:04d}" for i in range(200)]
        produce(kafka_bootstrap, topic, [(str(i).encode(), v.encode()) for i, v in enumerate(more)])
        # at least once across a kill -9: the Java task's uncommitted tail may come again
        wait_for(lambda: set(_lines(out)) == set(first + more), 90, "the records after the move")
        assert sorted(set(_lines(out))) == sorted(first + more)
    finally:
        cluster.close()
        java.stop()
