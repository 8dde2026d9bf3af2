"""A task stopped while its task process is still starting stays stopped.

The first task of a worker with ``task.processes`` starts a child process (~0.3 s). A rebalance
may revoke the task in that time; the stop used to reach the child before the start did, the
child ignored it ("unowned task") and then ran the task: a zombie the worker no longer knew
about. Against the real broker, with a real task process.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.testing.fakes import RecordingStatusListener
from tests.integration.worker_support import make_worker, read_topic, wait_until

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


def test_a_stop_while_the_task_process_starts_is_not_overtaken(
    kafka_bootstrap: str, unique_topic: str, tmp_path: Path
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("".join(f"line-{i}\n" for i in range(50)))
    props = {
        "name": "src",
        "connector.class": "FileStreamSource",
        "file": str(src),
        "topic": unique_topic,
    }
    worker = make_worker(kafka_bootstrap, tmp_path, **{"task.processes": "2"})
    listener = RecordingStatusListener()
    try:
        worker.start_connector("src", props, listener, TargetState.STARTED, lambda _n: None)
        wait_until(lambda: worker.is_running("src"), 10, message="connector running")
        [task_props] = worker.connector_task_configs("src", props)
        task_id = ConnectorTaskId("src", 0)
        starting = threading.Thread(
            target=worker.start_task,
            args=(task_id, props, task_props, listener, TargetState.STARTED),
        )
        starting.start()
        # the task is registered as soon as its process is being started
        wait_until(lambda: task_id in worker.task_ids(), 10, message="task registered")
        worker.stop_and_await_tasks([task_id])  # what a revocation does meanwhile
        starting.join(30)
        assert not starting.is_alive()
        assert task_id not in worker.task_ids()
        # The start finished before the stop went out, so the task may have copied some lines
        # in between; once stopped it copies nothing more. A zombie tails the file.
        time.sleep(1.0)
        before = len(read_topic(kafka_bootstrap, unique_topic, 100, timeout=2.0))
        with src.open("a") as f:
            f.write("".join(f"later-{i}\n" for i in range(50)))
        time.sleep(3.0)
        assert len(read_topic(kafka_bootstrap, unique_topic, 100, timeout=2.0)) == before
    finally:
        worker.stop()
