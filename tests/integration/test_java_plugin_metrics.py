"""A Java plugin's JMX MBeans and KIP-877 metrics on a kconnect worker's ``/metrics`` (issue 32).

A source connector and task compiled here (``test.metrics``) run in a standalone kconnect worker
(with two task processes, though a Java connector's tasks run beside the worker's one plugin
host JVM): the task registers an MXBean (from a thread it starts, with a number, a
boolean, a string, a double, a ``Map`` -- a ``TabularData`` over JMX --, a ``MemoryUsage`` -- a
``CompositeData`` -- and a ``Date``) and KIP-877 metrics (a gauge and a sensor), the connector a
KIP-877 gauge. ``GET /metrics`` serves them under the names the Prometheus JMX exporter gives
them without rules, and Kafka's names for the plugin metrics; ``GET /connectors/{name}/metrics``
shows the task's bean with its task. A scrape starts no JVM, and a stopped (SIGSTOP) or killed
JVM holds up no scrape. The connector also registers beans shaped like the JMX exporter's own
test beans (nested tables, composite row keys, booleans, a quoted key value, a date), which get
the names the exporter's tests expect of them.

Debezium's PostgreSQL connector (3.6.1.Final, on the local PostgreSQL with ``wal_level=logical``)
shows its snapshot and streaming beans (``SnapshotCompleted``, ``RowsScanned`` per table,
``TotalNumberOfEventsSeen``, ``Connected``, ``MilliSecondsBehindSource``) the same way.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from kconnect.testing.java import compiled_plugin, java_plugin_path
from kconnect.testing.java_worker import (
    STRING_CONVERTER,
    KconnectWorker,
    WorkerProcess,
    child_processes,
    create_connector,
    eventually,
    running,
    standalone_props,
)

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
    # Beans shaped like the JMX exporter's own test beans (collector/src/test/java/io/prometheus/
    # jmx: HadoopMBean, HadoopDataNodeMXBean, ExistDbMXBean, BoolMBean, CamelMBean), with the
    # names its JmxCollectorTest expects of the default rule: see EXPORTER_CASES below.
    "test/metrics/ExporterCases.java": """
        package test.metrics;
        import java.lang.management.ManagementFactory;
        import java.util.*;
        import javax.management.*;
        public class ExporterCases {
            public interface ActivityMBean { long getreplaceBlockOpMinTime(); }
            public static class Activity implements ActivityMBean {
                public long getreplaceBlockOpMinTime() { return 200; }
            }
            public interface DataNodeMXBean { Map<String, Map<String, Long>> getDatanodeNetworkCounts(); }
            public static class DataNode implements DataNodeMXBean {
                public Map<String, Map<String, Long>> getDatanodeNetworkCounts() {
                    return Map.of("1.2.3.4", Map.of("networkErrors", 338L));
                }
            }
            public static class QueryKey implements Comparable<QueryKey> {
                private final int id; private final String path;
                public QueryKey(int id, String path) { this.id = id; this.path = path; }
                public int getId() { return id; }
                public String getPath() { return path; }
                public int compareTo(QueryKey o) { return path.compareTo(o.path); }
            }
            public static class Query {
                private final int id; private final long started;
                public Query(int id, long started) { this.id = id; this.started = started; }
                public int getId() { return id; }
                public long getStartedAtTime() { return started; }
            }
            public interface ReportMXBean { Map<QueryKey, Query> getRunningQueries(); }
            public static class Report implements ReportMXBean {
                public Map<QueryKey, Query> getRunningQueries() {
                    Map<QueryKey, Query> queries = new TreeMap<>();
                    queries.put(new QueryKey(1, "/db/query1.xq"), new Query(1, 5L));
                    queries.put(new QueryKey(2, "/db/query2.xq"), new Query(2, 6L));
                    return queries;
                }
            }
            public interface FlagsMBean { boolean getTrue(); boolean getFalse(); }
            public static class Flags implements FlagsMBean {
                public boolean getTrue() { return true; }
                public boolean getFalse() { return false; }
            }
            public interface RouteMBean { Date getLastExchangeFailureTimestamp(); }
            public static class Route implements RouteMBean {
                public Date getLastExchangeFailureTimestamp() { return new Date(1573285945111L); }
            }
            static final Map<String, Object> BEANS = new LinkedHashMap<>();
            static {
                BEANS.put("hadoop:service=DataNode,name=DataNodeActivity-ams-hdd001-50010", new Activity());
                BEANS.put("Hadoop:name=DataNodeInfo,service=DataNode", new DataNode());
                BEANS.put("org.exist.management.exist:type=ProcessReport", new Report());
                BEANS.put("boolean:Type=Test", new Flags());
                BEANS.put("org.apache.camel:context=my-camel-context,type=routes,name=\\"my-route-name\\"", new Route());
            }
            static void register() throws JMException {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                for (Map.Entry<String, Object> e : BEANS.entrySet()) {
                    server.registerMBean(e.getValue(), new ObjectName(e.getKey()));
                }
            }
            static void unregister() throws JMException {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                for (String name : BEANS.keySet()) {
                    server.unregisterMBean(new ObjectName(name));
                }
            }
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
                try {
                    ExporterCases.register();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
                PluginMetrics metrics = context().pluginMetrics();
                metrics.addMetric(
                    metrics.metricName("connector-gauge", "A gauge of the connector", new LinkedHashMap<>()),
                    (Gauge<Integer>) (config, now) -> 42);
            }
            public Class<? extends Task> taskClass() { return MetricsTask.class; }
            public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
            public void stop() {
                try {
                    ExporterCases.unregister();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }
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


#: (name, labels, value) the JMX exporter's JmxCollectorTest expects of the default rule for the
#: beans of ExporterCases (defaultExportTest, nestedTabularDataTest,
#: tabularDataCompositeKeyTest, testBooleanValues; the quoted key value and the date as
#: JmxMBeanPropertyCacheTest and testCamelLastExchangeFailureTimestamp show them).
EXPORTER_CASES: list[tuple[str, dict[str, str], float]] = [
    ("hadoop_DataNode_replaceBlockOpMinTime", {"name": "DataNodeActivity-ams-hdd001-50010"}, 200),
    (
        "Hadoop_DataNodeInfo_DatanodeNetworkCounts",
        {"service": "DataNode", "key": "1.2.3.4", "key_": "networkErrors"},
        338,
    ),
    (
        "org_exist_management_exist_ProcessReport_RunningQueries_id",
        {"key_id": "1", "key_path": "/db/query1.xq"},
        1,
    ),
    (
        "org_exist_management_exist_ProcessReport_RunningQueries_id",
        {"key_id": "2", "key_path": "/db/query2.xq"},
        2,
    ),
    (
        "org_exist_management_exist_ProcessReport_RunningQueries_startedAtTime",
        {"key_id": "2", "key_path": "/db/query2.xq"},
        6,
    ),
    ("boolean_Test_True", {}, 1),
    ("boolean_Test_False", {}, 0),
    (
        "org_apache_camel_my_camel_context_LastExchangeFailureTimestamp",
        {"type": "routes", "name": '"my-route-name"'},
        1.573285945111e9,
    ),
]


@pytest.fixture(scope="module")
def worker(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[WorkerProcess]:
    """A standalone kconnect worker (two task processes) whose plugin.path holds
    ``test.metrics`` (as ``metrics-plugin/metrics-plugin.jar``)."""
    work = tmp_path_factory.mktemp("jmx")
    plugins = compiled_plugin(SOURCES, work / "build", work / "plugins",
                              "metrics-plugin/metrics-plugin.jar")  # fmt: skip
    props = standalone_props(kafka_bootstrap, work, "kconnect", plugins, settings={
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "task.processes": "2",
        # the test kills the JVMs and checks their metrics are gone: kconnect's automatic
        # restart of the failed task would (rightly) bring a new JVM and its metrics back
        "auto.restart.enable": "false",
    })  # fmt: skip
    kc = KconnectWorker(props, work)
    with running(kc):
        yield kc


# ---------------------------------------------------------------------------- processes


def _jvms(worker_pid: int) -> dict[str, list[int]]:
    """The plugin host JVMs of the worker (``worker``) and of its task processes (``tasks``)."""
    own, tasks = [], []
    for pid, comm in child_processes(worker_pid):
        if comm == "java":
            own.append(pid)
        else:
            tasks.extend(p for p, c in child_processes(pid) if c == "java")
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


def _sample(samples: Samples, name: str, /, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def test_java_plugin_metrics_on_the_worker(worker: WorkerProcess) -> None:
    url = worker.url
    # a scrape starts no JVM (none runs: the plugins were listed from the scan's cache)
    eventually(lambda: _jvms(worker.proc.pid) == {"worker": [], "tasks": []}, 60, "no JVM")
    samples, _ = _scrape(url)
    assert not [k for k in samples if k[0].startswith("kconnect_test")]
    assert _jvms(worker.proc.pid)["worker"] == []

    create_connector(url, NAME, {"connector.class": CONNECTOR, "tasks.max": "1", "server": "s1"})

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
    # KIP-877: Kafka's names and tags, the connector's and the task's
    task = {"connector": NAME, "task": "0"}
    polls_seen = _sample(samples, "kafka_connect_plugins_polls_seen", **task, kind="test")
    assert polls_seen is not None and polls_seen > 0
    assert _sample(samples, "kafka_connect_plugins_poll_size_max", **task) == 7.0
    assert _sample(samples, "kafka_connect_plugins_connector_gauge", connector=NAME) == 42.0
    assert helps["kafka_connect_plugins_polls_seen"] == "Polls the task saw"
    # the exporter's own test cases, registered by the connector in the worker's JVM
    for name, labels, value in EXPORTER_CASES:
        assert _sample(samples, name, **labels) == pytest.approx(value), (name, labels)
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
    assert body["connector"]["boolean:Type=Test"] == {"True": True, "False": False}
    assert BEAN not in body["connector"]

    # a stopped JVM holds up no scrape: its last answer stands in
    jvms = _jvms(worker.proc.pid)
    every_jvm = jvms["worker"] + jvms["tasks"]
    assert every_jvm, jvms
    polls = _sample(_scrape(url)[0], "kconnect_test_source_stats_Polls", server="s1")
    for pid in every_jvm:
        os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past the cached answer's freshness
        for _ in range(2):  # the second finds the first's request still out
            started = time.monotonic()
            samples, _ = _scrape(url)
            assert time.monotonic() - started < 5
            assert _sample(samples, "kafka_connect_connect_worker_metrics_connector_count") == 1.0
            assert _sample(samples, "kconnect_test_source_stats_Polls", server="s1") == polls
            assert _sample(samples, "kafka_connect_plugins_connector_gauge", connector=NAME) == 42
    finally:
        for pid in every_jvm:
            os.kill(pid, signal.SIGCONT)

    # a killed JVM: its metrics are gone, the scrape answers
    for pid in every_jvm:
        os.kill(pid, signal.SIGKILL)

    def gone() -> bool:
        s, _ = _scrape(url)
        return _sample(s, "kconnect_test_source_stats_Polls", server="s1") is None

    eventually(gone, 30, "the killed JVM's metrics to go")
    samples, _ = _scrape(url)
    assert _sample(samples, "kafka_connect_plugins_connector_gauge", connector=NAME) is None
    assert _sample(samples, "kafka_connect_connect_worker_metrics_connector_count") == 1.0


# ------------------------------------------------------------------ Debezium PostgreSQL


@pytest.fixture(scope="module")
def debezium_workers(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[dict[str, WorkerProcess]]:
    """Two standalone kconnect workers whose plugin.path holds Debezium's PostgreSQL connector
    3.6.1.Final: ``jar`` prefers it to the native one (``plugin.java.preferred``), ``native``
    runs kconnect's own under the same class name."""
    workers = {}
    for kind, preferred in (("jar", "true"), ("native", "false")):
        work = tmp_path_factory.mktemp(f"debezium-{kind}")
        plugins = java_plugin_path(work / "plugins")
        props = standalone_props(kafka_bootstrap, work, "kconnect", plugins,
                                 settings={"task.processes": "1",
                                           "plugin.java.preferred": preferred})  # fmt: skip
        workers[kind] = KconnectWorker(props, work, name=f"kconnect-{kind}")
    with running(*workers.values()):
        yield workers


def _debezium_sample(samples: Samples, name: str, **labels: str) -> float | None:
    """A Debezium metric by name and some of its labels (its beans may carry more keys)."""
    wanted = set(labels.items())
    for (n, found), value in samples.items():
        if n == name and wanted <= set(found):
            return value
    return None


DEBEZIUM_METRIC = "debezium_postgres_connector_metrics_"


def _debezium_run(url: str, pg_dsn: str) -> tuple[Samples, dict[str, Any]]:
    """Debezium's PostgreSQL connector on a fresh 3-row table, snapshot then 2 inserts: the
    worker's ``/metrics`` once both are seen, and the connector's JSON metrics."""
    import uuid

    import psycopg

    suffix = uuid.uuid4().hex[:8]
    table, prefix, slot = f"jmx_{suffix}", f"jmxpg{suffix}", f"jmx_{suffix}"
    with psycopg.connect(pg_dsn, autocommit=True) as db:
        db.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, note TEXT)")
        db.execute(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    config = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "tasks.max": "1",
        "database.hostname": "127.0.0.1",
        "database.port": "5432",
        "database.user": "kcuser",
        "database.password": "kcpw",
        "database.dbname": "kcdb",
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": slot,
        "slot.drop.on.stop": "true",
        "publication.name": f"jmx_pub_{suffix}",
        "publication.autocreate.mode": "filtered",
        "table.include.list": f"public.{table}",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
    }
    name = f"debezium-{suffix}"
    answer = httpx.post(f"{url}/connectors", json={"name": name, "config": config}, timeout=120)
    assert answer.status_code == 201, answer.text
    try:
        snapshot = {"context": "snapshot", "server": prefix}
        streaming = {"context": "streaming", "server": prefix}

        def snapshotted() -> Samples:
            s, _ = _scrape(url)
            done = _debezium_sample(s, DEBEZIUM_METRIC + "SnapshotCompleted", **snapshot)
            return s if done == 1.0 else {}

        samples = eventually(snapshotted, 180, "Debezium's snapshot metrics")
        rows = _debezium_sample(
            samples, DEBEZIUM_METRIC + "RowsScanned", **snapshot, key=f"public.{table}"
        )
        assert rows == 3
        with psycopg.connect(pg_dsn, autocommit=True) as db:
            db.execute(f"INSERT INTO {table} VALUES (4, 'd'), (5, 'e')")

        def streamed() -> Samples:
            s, _ = _scrape(url)
            seen = _debezium_sample(s, DEBEZIUM_METRIC + "TotalNumberOfEventsSeen", **streaming)
            return s if seen is not None and seen >= 2 else {}

        samples = eventually(streamed, 120, "Debezium's streaming metrics")
        body = httpx.get(f"{url}/connectors/{name}/metrics", timeout=30).json()
        # the run's own names set aside: its server (topic.prefix) and table
        return {
            (n, tuple((k, "<table>" if k == "key" else v) for k, v in labels if k != "server")): (
                value
            )
            for (n, labels), value in samples.items()
            if n.startswith(DEBEZIUM_METRIC) and ("server", prefix) in labels
        }, body
    finally:
        httpx.delete(f"{url}/connectors/{name}", timeout=60)
        with psycopg.connect(pg_dsn, autocommit=True) as db:
            eventually(
                lambda: (
                    not db.execute(
                        "SELECT 1 FROM pg_replication_slots WHERE slot_name = %s AND active",
                        (slot,),
                    ).fetchall()
                ),
                60,
                "the replication slot to be released",
            )
            db.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                "WHERE slot_name = %s",
                (slot,),
            )
            db.execute(f"DROP PUBLICATION IF EXISTS jmx_pub_{suffix}")
            db.execute(f"DROP TABLE IF EXISTS {table}")


@pytest.mark.postgres
def test_debeziums_metrics_native_as_from_the_jar(
    debezium_workers: dict[str, WorkerProcess], pg_dsn: str
) -> None:
    """Debezium's PostgreSQL connector shows its snapshot and streaming MBeans
    (``debezium.postgres:type=connector-metrics,context=...,server=<topic.prefix>``) on
    ``/metrics`` as the JMX exporter names them -- run from the jar by kconnect's plugin host,
    and run natively: the same names, and the same values where the run decides them."""
    runs = {kind: _debezium_run(w.url, pg_dsn) for kind, w in debezium_workers.items()}
    (jar, jar_body), (native, native_body) = runs["jar"], runs["native"]
    for samples in (jar, native):
        assert samples[(DEBEZIUM_METRIC + "Connected", (("context", "streaming"),))] == 1.0
        assert (DEBEZIUM_METRIC + "MilliSecondsBehindSource", (("context", "streaming"),)) in (
            samples
        )
    for body in (jar_body, native_body):  # the connector's JSON metrics show the bean too
        beans = {
            group: values
            for task in body["tasks"]
            for group, values in task["metrics"].items()
            if group.startswith("debezium.postgres:type=connector-metrics,context=streaming")
        }
        assert [bool(values["Connected"]) for values in beans.values()] == [True], body
    missing = sorted(set(jar) - set(native))
    assert not missing, f"the jar shows, the native connector does not: {missing}"
    # what the run decides, not the clock: counts, states, capacities
    timing = ("MilliSeconds", "DurationInSeconds")
    decided = {k: v for k, v in jar.items() if not any(t in k[0] for t in timing)}
    differ = {k: (v, native[k]) for k, v in decided.items() if native[k] != v}
    assert not differ, f"(jar, native): {differ}"
