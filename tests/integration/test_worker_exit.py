"""A worker that has stopped also exits, whatever threads a plugin left running.

CPython joins every non-daemon thread before the process exits, so one thread left busy (a
plugin's, or an HTTP call of the worker's own to a leader that is stopping too) used to keep
a SIGTERMed worker alive after its "worker stopped" line: a system test's restart waited 60 s
for it and failed. The worker now ends its process a grace period after the orderly stop,
logging the threads that held it and their stacks. A real ``kconnect standalone`` process
with a plugin from ``plugin.path``.
"""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from kconnect.testing.ports import free_port
from tests.integration.rest_support import WorkerProcess, base_props, write_plugin

pytestmark = [pytest.mark.kafka]

STUCK = "org.example.StuckThreadSourceConnector"

_PLUGIN = '''
import threading

from kconnect.api import ConfigDef, SourceConnector, SourceTask


class IdleTask(SourceTask):
    def version(self):
        return "1.0"

    def start(self, props):
        pass

    def poll(self):
        threading.Event().wait(0.1)
        return []

    def stop(self):
        pass


class StuckThreadSourceConnector(SourceConnector):
    """Starts a non-daemon thread that never ends, and forgets it."""

    def version(self):
        return "1.0"

    def start(self, props):
        threading.Thread(
            target=threading.Event().wait, name="plugin-thread-that-never-ends", daemon=False
        ).start()

    def task_class(self):
        return IdleTask

    def task_configs(self, max_tasks):
        return [{}]

    def stop(self):
        pass

    def config(self):
        return ConfigDef()
'''


def _write_plugin(root: Path) -> Path:
    return write_plugin(
        root, "kc_stuck_thread", _PLUGIN, "kconnect.source_connector",
        {STUCK: "kc_stuck_thread:StuckThreadSourceConnector"},
    )  # fmt: skip


def test_a_stopped_worker_exits_though_a_plugin_thread_still_runs(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    port = free_port()
    plugins = _write_plugin(tmp_path)
    props = base_props(kafka_bootstrap, tmp_path, port, **{"plugin.path": str(plugins)})
    worker = WorkerProcess(tmp_path, props).start()
    base = f"http://127.0.0.1:{port}"
    try:
        worker.wait_ready(base + "/")
        r = httpx.post(
            base + "/connectors",
            json={"name": "stuck", "config": {"connector.class": STUCK}},
            timeout=30,
        )
        assert r.status_code == 201, r.text
        assert worker.proc is not None
        worker.proc.send_signal(signal.SIGTERM)
        # the grace period is 15 s; 60 s is the system tests' own limit for a clean stop
        status = worker.wait_exit(60)
    finally:
        worker.stop()
    log = worker.log()
    assert status == 0, log
    assert "Kafka Connect standalone worker stopped" in log, log
    # what held the process, and where, for whoever has to fix it
    assert "its process has not exited" in log, log
    assert "\nThread plugin-thread-that-never-ends:\n" in log, log
