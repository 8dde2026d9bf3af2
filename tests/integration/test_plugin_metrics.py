"""A task's own metrics (``context.metrics()``) on a real ``kconnect standalone`` worker: served
at ``/metrics`` under the plugin's domain, group and tags, whether the task runs on a thread of
the worker or in a task process, and gone once the connector is deleted."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.integration.distributed_support import wait_for
from tests.integration.rest_support import WorkerProcess, base_props, free_port, write_plugin

pytestmark = [pytest.mark.kafka]

COUNTING = "org.example.CountingSourceConnector"

_PLUGIN = """
import threading

from kconnect.api import ConfigDef, PluginMetric, SourceConnector, SourceTask, Stat


class CountingTask(SourceTask):
    def version(self):
        return "1.0"

    def start(self, props):
        self.sensor = self.context.metrics().sensor(
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
