"""Java plugins' logging in kconnect's log, following ``/admin/loggers`` (PROTOCOL.md v4), and the
plugin host's memory in ``kconnect status``.

A source connector and task compiled here (``test.log``) log through SLF4J 1.7 at every level,
with an exception and its cause, from the host's op threads (which carry the connector context
the worker sent) and from a thread of their own (which carries none), with an MDC key of their
own as Debezium does. Checked on the worker's side:

- through :class:`~kconnect.java_host.host_process.JavaPluginHost` and the proxies, in this
  process: each record's logger name, level, message with Kafka's ``[name|task-0] `` /
  ``[name|worker] `` prefix, thread, MDC and trace; DEBUG only after ``Loggers.set_level`` (the
  ``/admin/loggers`` code path), whose answer lists the Java loggers as Kafka's does; a JVM
  started later starts with those levels; no SLF4J "no binding" warning; the JVM's memory in
  the worker's metrics;
- on a kconnect worker process (``task.processes=2``; the Java task still runs in the worker
  process, beside its one JVM): the lines in the worker's log, ``PUT``/``GET /admin/loggers``,
  the DEBUG lines after the ``PUT``, and that one JVM in ``kconnect status``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from kconnect.java_host.host_process import JavaPluginHost
from kconnect.java_host.proxies import proxy_class, task_proxy_class
from kconnect.runtime.common.child_processes import resident_memory_bytes, running_child_processes
from kconnect.runtime.common.log_context import CONNECTOR_CONTEXT
from kconnect.runtime.common.loggers import Loggers
from kconnect.runtime.metrics import ConnectMetrics
from kconnect.testing.java import compiled_plugin
from kconnect.testing.java_worker import (
    KconnectWorker,
    create_connector,
    eventually,
    standalone_props,
)
from kconnect.testing.plugin_host import host_deps

pytestmark = [pytest.mark.java, pytest.mark.slow]

CONNECTOR = "test.log.LoggingConnector"
TASK = "test.log.LoggingTask"

LOGGING_SOURCES = {
    "test/log/LoggingConnector.java": """
        package test.log;

        import java.util.List;
        import java.util.Map;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.source.SourceConnector;
        import org.slf4j.Logger;
        import org.slf4j.LoggerFactory;

        public class LoggingConnector extends SourceConnector {
            private static final Logger log = LoggerFactory.getLogger(LoggingConnector.class);
            private Map<String, String> props;

            @Override public void start(Map<String, String> props) {
                this.props = props;
                log.info("connector starting for topic {}", props.get("topic"));
                log.debug("connector debug detail");
            }
            @Override public Class<? extends Task> taskClass() { return LoggingTask.class; }
            @Override public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
            @Override public void stop() { log.info("connector stopping"); }
            @Override public ConfigDef config() {
                return new ConfigDef()
                    .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "topic")
                    .define("poll.ms", ConfigDef.Type.LONG, 0L, ConfigDef.Importance.LOW, "sleep");
            }
            @Override public String version() { return "1.0"; }
        }
    """,
    "test/log/LoggingTask.java": """
        package test.log;

        import java.io.IOException;
        import java.util.List;
        import java.util.Map;
        import org.apache.kafka.connect.data.Schema;
        import org.apache.kafka.connect.source.SourceRecord;
        import org.apache.kafka.connect.source.SourceTask;
        import org.slf4j.Logger;
        import org.slf4j.LoggerFactory;
        import org.slf4j.MDC;

        public class LoggingTask extends SourceTask {
            private static final Logger log = LoggerFactory.getLogger(LoggingTask.class);
            private String topic;
            private long pollMs;
            private int polls;

            @Override public String version() { return "1.0"; }

            @Override public void start(Map<String, String> props) {
                topic = props.get("topic");
                pollMs = Long.parseLong(props.getOrDefault("poll.ms", "0"));
                log.info("task starting");
                Thread own = new Thread(() -> log.info("from a thread of the task's own"),
                        "logging-task-helper");
                own.start();
                try {
                    own.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override public List<SourceRecord> poll() throws InterruptedException {
                polls++;
                MDC.put("dbz.connectorName", "logsrc");  // a plugin's own MDC key (Debezium's)
                try {
                    log.trace("trace poll {}", polls);
                    log.debug("debug poll {} enabled={}", polls, log.isDebugEnabled());
                    log.info("info poll {}", polls);
                    if (polls == 1) {
                        log.warn("warn poll {} of {}", polls, "many");
                        log.error("error poll {}", polls, new IllegalStateException("boom",
                                new IOException("disk full")));
                    }
                } finally {
                    MDC.remove("dbz.connectorName");
                }
                Thread.sleep(pollMs);
                return List.of(new SourceRecord(Map.of("p", 0), Map.of("o", polls), topic,
                        Schema.STRING_SCHEMA, "poll " + polls));
            }

            @Override public void stop() { log.info("task stopping"); }
        }
    """,
}

T = TypeVar("T")


@pytest.fixture(scope="module")
def logging_plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plugin.path whose one location is ``test.log`` as a class directory."""
    return compiled_plugin(LOGGING_SOURCES, tmp_path_factory.mktemp("logging-build"),
                           tmp_path_factory.mktemp("logging-plugins"), "logging-plugin",
                           jars=host_deps())  # fmt: skip


class _Keep(logging.Handler):
    """Every record under ``test.log`` and ``kconnect.java_host.jvm``, as it reaches a handler."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []
        self._lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock:
            self.records.append(record)

    def messages(self, logger: str = "test.log.") -> list[str]:
        with self._lock:
            return [r.getMessage() for r in self.records if r.name.startswith(logger)]

    def find(self, text: str) -> logging.LogRecord | None:
        with self._lock:
            return next((r for r in self.records if r.getMessage().endswith(text)), None)


@pytest.fixture
def kept() -> Iterator[_Keep]:
    handler = _Keep()
    names = ("test.log", "kconnect.java_host.jvm")
    for name in names:
        logging.getLogger(name).addHandler(handler)
    # the root level a worker logs at (Python's default is WARNING); the JVM starts with it
    root, before = logging.getLogger(), logging.getLogger().level
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.setLevel(before)
        for name in names:
            logging.getLogger(name).removeHandler(handler)
        for name, lg in list(logging.Logger.manager.loggerDict.items()):
            if name.startswith("test.log") and isinstance(lg, logging.Logger):
                lg.setLevel(logging.NOTSET)


def _in_context(context: str, action: Callable[[], T]) -> T:
    """Run ``action`` as a worker thread with this connector context would."""
    token = CONNECTOR_CONTEXT.set(context)
    try:
        return action()
    finally:
        CONNECTOR_CONTEXT.reset(token)


def test_java_log_lines_reach_pythons_logging_with_context_levels_and_traces(
    logging_plugin_path: Path, kept: _Keep
) -> None:
    host = JavaPluginHost(java_options=["-Xmx96m"], plugin_path=[str(logging_plugin_path)])
    try:
        connector_cls = proxy_class(CONNECTOR, "source", "1.0", host=lambda: host)
        connector = connector_cls()
        props = {"name": "logsrc", "topic": "log-topic"}
        _in_context("[logsrc|worker]", lambda: connector.start(props))
        task = task_proxy_class(TASK, "source", lambda: host)()
        _in_context("[logsrc|task-0]", lambda: task.start(props))
        task.poll()  # on a thread without a context: the task's handle gives it
        info = eventually(lambda: kept.find("info poll 1"), 30, "the task's INFO line")

        # -- names, levels, context, thread, MDC
        record = kept.find("connector starting for topic log-topic")
        assert record is not None
        assert (record.name, record.levelname) == (CONNECTOR, "INFO")
        assert record.getMessage() == "[logsrc|worker] connector starting for topic log-topic"
        assert record.threadName.startswith("plugin-host-op-")
        assert (info.name, info.levelname) == (TASK, "INFO")
        assert info.getMessage() == "[logsrc|task-0] info poll 1"
        assert info.__dict__["java_mdc"] == {
            "connector.context": "[logsrc|task-0] ",
            "dbz.connectorName": "logsrc",
        }
        warn = eventually(lambda: kept.find("warn poll 1 of many"), 30, "the WARN line")
        assert (warn.name, warn.levelname) == (TASK, "WARNING")
        error = eventually(lambda: kept.find("error poll 1"), 30, "the ERROR line")
        assert (error.name, error.levelname) == (TASK, "ERROR")
        assert error.getMessage() == "[logsrc|task-0] error poll 1"
        trace = error.exc_text or ""
        assert trace.startswith("java.lang.IllegalStateException: boom\n\tat ")
        assert "test.log.LoggingTask.poll(LoggingTask.java:" in trace.splitlines()[1]
        assert "Caused by: java.io.IOException: disk full" in trace
        # a thread the plugin started inherits no context (as on Kafka Connect's log4j)
        own = eventually(
            lambda: kept.find("from a thread of the task's own"), 30, "its thread's line"
        )
        assert own.getMessage() == "from a thread of the task's own"
        assert own.threadName == "logging-task-helper" and own.__dict__["java_mdc"] == {}
        # INFO is the root's default: no DEBUG or TRACE yet
        assert not [m for m in kept.messages() if "debug" in m or "trace" in m]
        # SLF4J found its binding: no "NOP logger" warning among the JVM's plain lines
        assert not [m for m in kept.messages("kconnect.java_host.jvm") if "SLF4J" in m]

        # -- /admin/loggers: Kafka's answer names the Java loggers; DEBUG from then on
        eventually(
            lambda: TASK in logging.Logger.manager.loggerDict,
            30,
            "the host's announcement of its loggers",
        )
        changed = Loggers().set_level("test.log", "DEBUG")
        assert {"test.log", CONNECTOR, TASK} <= set(changed), changed
        task.poll()
        debug = eventually(lambda: kept.find("debug poll 2 enabled=true"), 30, "the DEBUG line")
        assert (debug.name, debug.levelname) == (TASK, "DEBUG")
        assert not [m for m in kept.messages() if "trace poll" in m]  # DEBUG, not TRACE
        assert Loggers().set_level(TASK, "WARN") == [TASK]
        task.poll()  # INFO and DEBUG lines not written
        assert Loggers().set_level(TASK, "INFO") == [TASK]
        task.poll()
        eventually(lambda: kept.find("[logsrc|task-0] info poll 4"), 30, "poll 4's INFO line")
        # one thread's lines come in order: poll 3's would have come before
        assert kept.find("info poll 3") is None
        assert kept.find("debug poll 3 enabled=true") is None
        assert kept.find("debug poll 4 enabled=true") is None

        # -- the JVM's memory, as the worker's metrics report it
        pid = host.pid
        assert pid is not None and ("java-plugin-host", pid) in running_child_processes()
        rss = resident_memory_bytes(pid)
        assert rss is not None and rss > 16 * 1024 * 1024
        samples = {
            n.tag_dict["pid"]: v
            for n, v in ConnectMetrics("w:1").registry.snapshot()
            if n.group == "child-process"
        }
        assert isinstance(samples.get(str(pid)), float) and samples[str(pid)] > 16 * 1024 * 1024

        # -- a JVM started later takes the levels the loggers have now (DEBUG, not INFO)
        task.stop()
        _in_context("[logsrc|worker]", connector.stop)
        eventually(lambda: kept.find("[logsrc|worker] connector stopping"), 30, "the stop line")
        host.stop_jvm()
        assert host.pid is None and ("java-plugin-host", pid) not in running_child_processes()
        Loggers().set_level(TASK, "DEBUG")  # no JVM to tell: the next one starts with it
        again = task_proxy_class(TASK, "source", lambda: host)()
        _in_context("[logsrc|task-1]", lambda: again.start(props))
        again.poll()
        eventually(
            lambda: kept.find("[logsrc|task-1] debug poll 1 enabled=true"), 30, "DEBUG in a new JVM"
        )
        assert host.pid not in (None, pid)
        again.stop()
    finally:
        host.close()


# ------------------------------------------------------------------ a kconnect worker process


@pytest.mark.kafka
def test_a_worker_logs_java_lines_and_follows_admin_loggers(
    tmp_path: Path, logging_plugin_path: Path, kafka_bootstrap: str, topic_factory: Any
) -> None:
    from kconnect.cli.status import collect, render

    props = standalone_props(kafka_bootstrap, tmp_path, "kconnect", logging_plugin_path,
                             settings={"offset.flush.interval.ms": "1000",
                                       "task.processes": "2"})  # fmt: skip
    worker = KconnectWorker(props, tmp_path, env={"KAFKA_HEAP_OPTS": "-Xmx96m"})
    url = worker.url
    try:
        worker.wait_ready()
        topic = topic_factory()
        create_connector(url, "logsrc", {
            "connector.class": CONNECTOR, "tasks.max": "1", "topic": topic, "poll.ms": "300",
        })  # fmt: skip

        # the connector's lines and the task's (both in the worker process), as kconnect's
        # own lines: "[time] LEVEL [name|scope] message (logger) [thread]"
        def lines(text: str) -> list[str]:
            return [line for line in worker.log().splitlines() if text in line]

        eventually(lambda: lines("] INFO [logsrc|task-0] info poll 1 (test.log.LoggingTask)"),
                   120, "the task's INFO line")  # fmt: skip
        assert lines("INFO [logsrc|worker] connector starting for topic")
        # the same poll's ERROR line (and its trace) may reach the log a moment after its INFO
        error_line = "ERROR [logsrc|task-0] error poll 1 (test.log.LoggingTask)"
        eventually(lambda: lines("Caused by: java.io.IOException: disk full"), 30, "the trace")
        (error,) = lines(error_line)
        log_text = worker.log()
        after = log_text[log_text.index(error) + len(error) :].lstrip("\n").splitlines()
        assert after[0] == "java.lang.IllegalStateException: boom"
        assert "Caused by: java.io.IOException: disk full" in after
        assert not lines("debug poll") and not lines("SLF4J")

        # PUT answers the loggers whose level changed in the worker process (the connector's
        # Java logger there), as Kafka's does; the JVM follows
        put = httpx.put(f"{url}/admin/loggers/test.log", json={"level": "DEBUG"}, timeout=30)
        assert put.status_code == 200, put.text
        assert {"test.log", CONNECTOR} <= set(put.json()), put.json()
        eventually(lambda: lines("DEBUG [logsrc|task-0] debug poll"), 60, "DEBUG lines")
        levels = httpx.get(f"{url}/admin/loggers", timeout=30).json()
        assert levels["test.log"]["level"] == "DEBUG"
        assert levels[CONNECTOR]["level"] == "DEBUG"
        one = httpx.get(f"{url}/admin/loggers/{CONNECTOR}", timeout=30).json()
        assert one["level"] == "DEBUG"

        # kconnect status: the worker's one JVM (the Java task runs in the worker process,
        # beside it: no task process starts a second one), with its memory
        with httpx.Client(timeout=30) as client:

            def with_a_jvm() -> dict[str, Any] | None:
                data = collect(client, url)
                found = [p for ps in data["processes"].values() for p in ps]
                return data if found else None

            data = eventually(with_a_jvm, 60, "the JVM in the worker's metrics")
        text = render(data)
        (row,) = [line for line in text.splitlines() if "JVM pid" in line]
        assert row.count("JVM pid") == 1 and row.count("MiB") == 1, text
        assert len([p for ps in data["processes"].values() for p in ps]) == 1
    finally:
        worker.stop()
