"""A task's own metrics (``context.domain_metrics()``) on a real ``kconnect standalone`` worker: served
at ``/metrics`` under the plugin's domain, group and tags, whether the task runs on a thread of
the worker or in a task process, and gone once the connector is deleted."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from kconnect.testing.ports import free_port
from tests.integration.distributed_support import wait_for
from tests.integration.rest_support import WorkerProcess, base_props, write_plugin

pytestmark = [pytest.mark.kafka]

COUNTING = "org.example.CountingSourceConnector"

_PLUGIN = """
import threading

from kconnect.api import ConfigDef, PluginMetric, SourceConnector, SourceTask, Stat


class CountingTask(SourceTask):
    def version(self):
        return "1.0"

    def start(self, props):
        self.sensor = self.context.domain_metrics().sensor(
            "widgets",
            {"kind": "round", "task": props["n"]},
            [PluginMetric("polls-total", Stat.TOTAL, "Polls so far."),
             PluginMetric("poll-size", Stat.VALUE, "The last poll's size.")],
            domain="org.example",
        )

    def poll(self):
        threading.Event().wait(0.05)
        self.sensor.record_many([3.0])
        return []

    def stop(self):
        pass


class CountingSourceConnector(SourceConnector):
    def version(self):
        return "1.0"

    def start(self, props):
        pass

    def task_class(self):
        return CountingTask

    def task_configs(self, max_tasks):
        return [{"n": str(i)} for i in range(max_tasks)]

    def stop(self):
        pass

    def config(self):
        return ConfigDef()
"""


def _write_plugin(root: Path) -> Path:
    return write_plugin(
        root, "kc_counting", _PLUGIN, "kconnect.source_connector",
        {COUNTING: "kc_counting:CountingSourceConnector"},
    )  # fmt: skip


def _series(base: str, name: str) -> dict[str, float]:
    """``name``'s samples in /metrics: labels text -> value."""
    text = httpx.get(base + "/metrics", timeout=10).text
    got = {}
    for m in re.finditer(rf"^{name}\{{([^}}]*)\}} (\S+)$", text, re.M):
        got[m.group(1)] = float(m.group(2))
    return got


@pytest.mark.parametrize("processes", ["1", "2"], ids=["threads", "task-processes"])
def test_a_tasks_own_metrics_are_served_and_removed_with_it(
    tmp_path: Path, kafka_bootstrap: str, processes: str
) -> None:
    port = free_port()
    props = base_props(
        kafka_bootstrap, tmp_path, port,
        **{"plugin.path": str(_write_plugin(tmp_path)), "task.processes": processes},
    )  # fmt: skip
    worker = WorkerProcess(tmp_path, props).start()
    base = f"http://127.0.0.1:{port}"
    try:
        worker.wait_ready(base + "/")
        r = httpx.post(
            base + "/connectors",
            json={"name": "counting", "config": {"connector.class": COUNTING, "tasks.max": "2"}},
            timeout=30,
        )
        assert r.status_code == 201, r.text
        totals = wait_for(
            lambda: (s := _series(base, "org_example_widgets_polls_total")) and len(s) == 2
            and all(v >= 9 for v in s.values()) and s,
            60, "both tasks' polls-total",
        )  # fmt: skip
        assert set(totals) == {'kind="round",task="0"', 'kind="round",task="1"'}
        assert all(v % 3 == 0 for v in totals.values())
        sizes = _series(base, "org_example_widgets_poll_size")
        assert sizes == {'kind="round",task="0"': 3.0, 'kind="round",task="1"': 3.0}
        assert httpx.delete(base + "/connectors/counting", timeout=30).status_code == 204
        wait_for(lambda: not _series(base, "org_example_widgets_polls_total"), 30, "removed")
    finally:
        worker.stop()
    assert "Traceback" not in worker.log()


MONITORED = "org.example.MonitoredSourceConnector"

_KIP877_PLUGIN = """
import threading

from kconnect.api import (
    ConfigDef, Monitorable, Predicate, SourceConnector, SourceRecord, SourceTask, Stat,
    Transformation,
)
from kconnect.converters.string_converter import StringConverter


class MonitoredTask(SourceTask):
    def start(self, props):
        pm = self.context.plugin_metrics()
        self.polls = pm.add_sensor("polls")
        self.polls.add(pm.metric_name("poll-count", "Polls so far.", {"kind": "round"}), Stat.COUNT)

    def poll(self):
        threading.Event().wait(0.05)
        self.polls.record()
        return [SourceRecord({"p": 0}, {"o": 0}, "kc-kip877", None, None, None, None, "x")]

    def stop(self):
        pass


class MonitoredSourceConnector(SourceConnector):
    def start(self, props):
        pm = self.context.plugin_metrics()
        pm.add_metric(pm.metric_name("tables", "Tables found."), lambda: 2.0)

    def task_class(self):
        return MonitoredTask

    def task_configs(self, max_tasks):
        return [{} for _ in range(max_tasks)]

    def stop(self):
        pass

    def config(self):
        return ConfigDef()


class Marking(Transformation, Monitorable):
    def with_plugin_metrics(self, metrics):
        self.seen = metrics.add_sensor("seen")
        self.seen.add(metrics.metric_name("records-total", "Records seen."), Stat.TOTAL)

    def configure(self, configs):
        pass

    def apply(self, record):
        self.seen.record()
        return record

    def config(self):
        return ConfigDef()

    def close(self):
        pass


class Always(Predicate, Monitorable):
    def with_plugin_metrics(self, metrics):
        self.tests = metrics.add_sensor("tests")
        self.tests.add(metrics.metric_name("tests-total", "Records tested."), Stat.TOTAL)

    def configure(self, configs):
        pass

    def test(self, record):
        self.tests.record()
        return True

    def config(self):
        return ConfigDef()

    def close(self):
        pass


class TaggedConverter(StringConverter, Monitorable):
    def with_plugin_metrics(self, metrics):
        metrics.add_metric(metrics.metric_name("configured", "1 once configured."), lambda: 1.0)
"""


def _write_kip877_plugin(root: Path) -> Path:
    return write_plugin(
        root, "kc_monitored", _KIP877_PLUGIN, "kconnect.source_connector",
        {MONITORED: "kc_monitored:MonitoredSourceConnector"},
        {
            "kconnect.transformation": {"org.example.Marking": "kc_monitored:Marking"},
            "kconnect.predicate": {"org.example.Always": "kc_monitored:Always"},
            "kconnect.converter": {"org.example.TaggedConverter": "kc_monitored:TaggedConverter"},
        },
    )  # fmt: skip


@pytest.mark.parametrize("processes", ["1", "2"], ids=["threads", "task-processes"])
def test_kip877_plugin_metrics_carry_javas_tags_and_go_with_their_plugin(
    tmp_path: Path, kafka_bootstrap: str, processes: str
) -> None:
    """Kafka 4.1's PluginMetrics (KIP-877) of a connector, its tasks, a converter, a
    transformation and its predicate: ``kafka.connect:type=plugins`` with the connector, task
    and plugin tags in Java's order before the plugin's own, from threads and task processes;
    all gone once the connector is deleted."""
    port = free_port()
    props = base_props(
        kafka_bootstrap, tmp_path, port,
        **{"plugin.path": str(_write_kip877_plugin(tmp_path)), "task.processes": processes},
    )  # fmt: skip
    worker = WorkerProcess(tmp_path, props).start()
    base = f"http://127.0.0.1:{port}"
    config = {
        "connector.class": MONITORED,
        "tasks.max": "2",
        "value.converter": "org.example.TaggedConverter",
        "transforms": "mark",
        "transforms.mark.type": "org.example.Marking",
        "transforms.mark.predicate": "always",
        "predicates": "always",
        "predicates.always.type": "org.example.Always",
    }
    try:
        worker.wait_ready(base + "/")
        r = httpx.post(base + "/connectors", json={"name": "mon", "config": config}, timeout=30)
        assert r.status_code == 201, r.text
        seen = wait_for(
            lambda: (s := _series(base, "kafka_connect_plugins_records_total")) and len(s) == 2
            and all(v >= 3 for v in s.values()) and s,
            60, "both tasks' transformations' records-total",
        )  # fmt: skip
        assert set(seen) == {f'connector="mon",task="{t}",transformation="mark"' for t in (0, 1)}
        assert _series(base, "kafka_connect_plugins_tables") == {'connector="mon"': 2.0}
        polls = _series(base, "kafka_connect_plugins_poll_count")
        # (Prometheus labels in name order; the JMX key order is Java's, see the unit tests)
        assert set(polls) == {f'connector="mon",kind="round",task="{t}"' for t in (0, 1)}
        tests = _series(base, "kafka_connect_plugins_tests_total")
        assert set(tests) == {f'connector="mon",predicate="always",task="{t}"' for t in (0, 1)}
        assert _series(base, "kafka_connect_plugins_configured") == {
            f'connector="mon",converter="value",task="{t}"': 1.0 for t in (0, 1)
        }
        assert httpx.delete(base + "/connectors/mon", timeout=30).status_code == 204
        wait_for(
            lambda: "kafka_connect_plugins_" not in httpx.get(base + "/metrics", timeout=10).text,
            30, "every plugin metric removed",
        )  # fmt: skip
    finally:
        worker.stop()
    assert "Traceback" not in worker.log()
