"""A Java plugin's JMX MBeans and KIP-877 metrics on a kconnect worker's ``/metrics`` (issue 32).

A source connector and task compiled here (``test.metrics``) run in a standalone kconnect worker
with two task processes, so the connector runs in the worker's plugin host and the task in its
task process's: the task registers an MXBean (from a thread it starts, with a number, a
boolean, a string, a double, a ``Map`` -- a ``TabularData`` over JMX --, a ``MemoryUsage`` -- a
``CompositeData`` -- and a ``Date``) and KIP-877 metrics (a gauge and a sensor), the connector a
KIP-877 gauge. ``GET /metrics`` serves them under the names the Prometheus JMX exporter gives
them without rules, and Kafka's names for the plugin metrics; ``GET /connectors/{name}/metrics``
shows the task's bean with its task. A scrape starts no JVM, and a stopped (SIGSTOP) or killed
JVM holds up no scrape.
"""

from __future__ import annotations

import os
import signal
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from kconnect.testing.java import CONNECT_VERSION, classpath
from kconnect.testing.java_worker import WorkerProcess, eventually, kconnect_command
from kconnect.testing.ports import free_port

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.slow]

CONNECTOR = "test.metrics.MetricsConnector"
NAME = "jmx-test"
BEAN = "kconnect.test:type=source-stats,server=s1"

SOURCES = {
    "test/metrics/StatsMXBean.java": """
        package test.metrics;
        import java.lang.management.MemoryUsage;
        import java.util.Date;
        import java.util.Map;
        public interface StatsMXBean {
            long getPolls();
            boolean isHealthy();
            String getName();
            double getRatio();
            Map<String, Long> getRowsScanned();
            MemoryUsage getUsage();
            Date getStarted();
        }
    """,
    "test/metrics/Stats.java": """
        package test.metrics;
        import java.lang.management.MemoryUsage;
        import java.util.*;
        import java.util.concurrent.atomic.AtomicLong;
        public class Stats implements StatsMXBean {
            final AtomicLong polls = new AtomicLong();
            public long getPolls() { return polls.get(); }
            public boolean isHealthy() { return true; }
            public String getName() { return "left out"; }
            public double getRatio() { return 0.25; }
            public Map<String, Long> getRowsScanned() {
                Map<String, Long> rows = new LinkedHashMap<>();
                rows.put("public.a", 3L);
                rows.put("public.b", 5L);
                return rows;
            }
            public MemoryUsage getUsage() { return new MemoryUsage(1, 2, 3, 4); }
            public Date getStarted() { return new Date(1700000000000L); }
        }
    """,
    "test/metrics/MetricsConnector.java": """
        package test.metrics;
        import java.util.*;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.common.metrics.Gauge;
        import org.apache.kafka.common.metrics.PluginMetrics;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.source.SourceConnector;
        public class MetricsConnector extends SourceConnector {
            private Map<String, String> props;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                this.props = props;
                PluginMetrics metrics = context().pluginMetrics();
                metrics.addMetric(
                    metrics.metricName("connector-gauge", "A gauge of the connector", new LinkedHashMap<>()),
                    (Gauge<Integer>) (config, now) -> 42);
            }
            public Class<? extends Task> taskClass() { return MetricsTask.class; }
            public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
            public void stop() { }
            public ConfigDef config() { return new ConfigDef(); }
        }
    """,
    "test/metrics/MetricsTask.java": """
        package test.metrics;
        import java.lang.management.ManagementFactory;
        import java.util.*;
        import java.util.concurrent.atomic.AtomicReference;
        import javax.management.ObjectName;
        import org.apache.kafka.common.metrics.Gauge;
        import org.apache.kafka.common.metrics.PluginMetrics;
        import org.apache.kafka.common.metrics.Sensor;
        import org.apache.kafka.common.metrics.stats.Max;
        import org.apache.kafka.connect.source.SourceRecord;
        import org.apache.kafka.connect.source.SourceTask;
        public class MetricsTask extends SourceTask {
            private final Stats stats = new Stats();
            private ObjectName name;
            private Sensor sizes;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                AtomicReference<Exception> failed = new AtomicReference<>();
                // registered from a thread of the task's own, as Debezium's threads do
                Thread registrar = new Thread(() -> {
                    try {
                        name = new ObjectName("kconnect.test:type=source-stats,server=" + props.get("server"));
                        ManagementFactory.getPlatformMBeanServer().registerMBean(stats, name);
                    } catch (Exception e) {
                        failed.set(e);
                    }
                });
                registrar.start();
                try {
                    registrar.join();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                if (failed.get() != null) {
                    throw new RuntimeException(failed.get());
                }
                PluginMetrics metrics = context.pluginMetrics();
                LinkedHashMap<String, String> tags = new LinkedHashMap<>();
                tags.put("kind", "test");
                metrics.addMetric(metrics.metricName("polls-seen", "Polls the task saw", tags),
                    (Gauge<Long>) (config, now) -> stats.polls.get());
                sizes = metrics.addSensor("poll-sizes");
                sizes.add(metrics.metricName("poll-size-max", "The largest poll", new LinkedHashMap<>()), new Max());
            }
            public List<SourceRecord> poll() throws InterruptedException {
                stats.polls.incrementAndGet();
                sizes.record(7);
                Thread.sleep(100);
                return null;
            }
            public void stop() {
                try {
                    ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
                } catch (Exception e) {
                    // not registered
                }
            }
        }
    """,
}


def _compile_plugin(target: Path, work: Path) -> None:
    """``test.metrics`` compiled against Kafka's API jars into ``target/metrics-plugin.jar``."""
    import subprocess

    jars = classpath([f"org.apache.kafka:connect-api:{CONNECT_VERSION}"])
    src, classes = work / "src", work / "classes"
    files = []
    for rel, text in SOURCES.items():
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        files.append(str(path))
    done = subprocess.run(
        ["javac", "--release", "17", "-nowarn", "-cp", os.pathsep.join(map(str, jars)),
         "-d", str(classes), *files],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["jar", "--create", "--file", str(target / "metrics-plugin.jar"), "-C", str(classes), "."],
        check=True,
    )


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker (two task processes) whose plugin.path holds ``test.metrics``."""
    work = tmp_path_factory.mktemp("jmx")
    plugins = work / "plugins"
    _compile_plugin(plugins / "metrics-plugin", work / "build")
    port = free_port()
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "listeners": f"http://127.0.0.1:{port}",
        "offset.storage.file.filename": str(work / "offsets"),
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "plugin.path": str(plugins),
        "task.processes": "2",
    }
    path = work / "worker.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    kc = WorkerProcess(
        kconnect_command("standalone", path), work / "worker.log", url=props["listeners"],
        label="kconnect",
    )  # fmt: skip
    try:
        kc.wait_ready()
        yield kc
    finally:
        kc.stop()


# ---------------------------------------------------------------------------- processes


def _children(pid: int) -> list[tuple[int, str]]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == pid:
            found.append((int(entry), comm))
    return found


def _jvms(worker_pid: int) -> dict[str, list[int]]:
    """The plugin host JVMs of the worker (``worker``) and of its task processes (``tasks``)."""
    own, tasks = [], []
    for pid, comm in _children(worker_pid):
        if comm == "java":
            own.append(pid)
        else:
            tasks.extend(p for p, c in _children(pid) if c == "java")
    return {"worker": own, "tasks": tasks}


# ------------------------------------------------------------------------------ scrapes


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def _scrape(url: str) -> tuple[Samples, dict[str, str]]:
    """``GET /metrics`` as {(name, sorted labels): value} and {name: HELP}."""
    answer = httpx.get(f"{url}/metrics", timeout=30)
    assert answer.status_code == 200, answer.text
    samples: Samples = {}
    helps = {}
    for family in text_string_to_metric_families(answer.text):
        helps[family.name] = family.documentation
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples, helps


def _sample(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def _create(url: str) -> None:
    config = {"connector.class": CONNECTOR, "tasks.max": "1", "server": "s1"}
    answer = httpx.post(f"{url}/connectors", json={"name": NAME, "config": config}, timeout=120)
    assert answer.status_code == 201, answer.text


def test_java_plugin_metrics_on_the_worker(worker: WorkerProcess) -> None:
    url = worker.url
    # a scrape starts no JVM (none runs: the plugins were listed from the scan's cache)
    eventually(lambda: _jvms(worker.proc.pid) == {"worker": [], "tasks": []}, 60, "no JVM")
    samples, _ = _scrape(url)
    assert not [k for k in samples if k[0].startswith("kconnect_test")]
    assert _jvms(worker.proc.pid)["worker"] == []

    _create(url)

    def polled() -> Samples:
        s, _ = _scrape(url)
        polls = _sample(s, "kconnect_test_source_stats_Polls", server="s1")
        return s if polls and polls > 2 else {}

    samples = eventually(polled, 120, "the task's MBean on /metrics")
    _, helps = _scrape(url)
    bean = {"server": "s1"}
    # the JMX exporter's names: domain, the first key's value, (composite,) attribute
    assert _sample(samples, "kconnect_test_source_stats_Healthy", **bean) == 1.0
    assert _sample(samples, "kconnect_test_source_stats_Ratio", **bean) == 0.25
    assert _sample(samples, "kconnect_test_source_stats_Started", **bean) == 1.7e9
    assert _sample(samples, "kconnect_test_source_stats_Usage_used", **bean) == 2.0
    assert _sample(samples, "kconnect_test_source_stats_Usage_max", **bean) == 4.0
    # a Map is a TabularData: one sample per row, labelled with its key; "value" not in the name
    assert _sample(samples, "kconnect_test_source_stats_RowsScanned", **bean, key="public.a") == 3
    assert _sample(samples, "kconnect_test_source_stats_RowsScanned", **bean, key="public.b") == 5
    # strings are left out, as the exporter leaves them out
    assert not [k for k in samples if k[0] == "kconnect_test_source_stats_Name"]
    # the exporter's HELP (an MXBean's descriptions are the attribute names: not repeated)
    assert helps["kconnect_test_source_stats_Polls"] == (
        "kconnect.test:name=null,type=source-stats,attribute=Polls"
    )
    # KIP-877: Kafka's names and tags, from the task process's JVM and the worker's
    task = {"connector": NAME, "task": "0"}
    polls_seen = _sample(samples, "kafka_connect_plugins_polls_seen", **task, kind="test")
    assert polls_seen is not None and polls_seen > 0
    assert _sample(samples, "kafka_connect_plugins_poll_size_max", **task) == 7.0
    assert _sample(samples, "kafka_connect_plugins_connector_gauge", connector=NAME) == 42.0
    assert helps["kafka_connect_plugins_polls_seen"] == "Polls the task saw"
    # the worker's own metrics are all still there
    assert _sample(samples, "kafka_connect_connect_worker_metrics_connector_count") == 1.0

    # the connector's JSON metrics: the bean with the task that registered it
    body = httpx.get(f"{url}/connectors/{NAME}/metrics", timeout=30).json()
    tasks: dict[int, Any] = {t["id"]: t["metrics"] for t in body["tasks"]}
    assert tasks[0][BEAN]["Polls"] > 0
    assert tasks[0][BEAN]["RowsScanned{key=public.a}"] == 3
    assert tasks[0][BEAN]["Usage.used"] == 2
    assert tasks[0]["plugins"]["poll-size-max"] == 7
    assert body["connector"]["plugins"]["connector-gauge"] == 42
    assert BEAN not in body["connector"]

    # a stopped JVM holds up no scrape: the task process's shows its last answer
    jvms = _jvms(worker.proc.pid)
    assert len(jvms["worker"]) == 1 and len(jvms["tasks"]) == 1, jvms
    os.kill(jvms["tasks"][0], signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past the cached answer's freshness
        started = time.monotonic()
        samples, _ = _scrape(url)
        assert time.monotonic() - started < 5
        assert _sample(samples, "kafka_connect_plugins_connector_gauge", connector=NAME) == 42.0
        assert _sample(samples, "kafka_connect_connect_worker_metrics_connector_count") == 1.0
        os.kill(jvms["worker"][0], signal.SIGSTOP)
        try:
            started = time.monotonic()
            samples, _ = _scrape(url)
            assert time.monotonic() - started < 5
            assert _sample(samples, "kafka_connect_connect_worker_metrics_connector_count") == 1.0
        finally:
            os.kill(jvms["worker"][0], signal.SIGCONT)
    finally:
        os.kill(jvms["tasks"][0], signal.SIGCONT)

    # a killed JVM: its metrics are gone, the scrape answers
    os.kill(jvms["tasks"][0], signal.SIGKILL)

    def gone() -> bool:
        s, _ = _scrape(url)
        return _sample(s, "kconnect_test_source_stats_Polls", server="s1") is None

    eventually(gone, 30, "the killed JVM's metrics to go")
