"""Transaction boundaries of exactly-once source tasks, against the real broker.

An in-process worker with a distributed config runs exactly-once tasks (the herder's preflight
is not under test here: it passes) of a counting source connector defined below; a
``read_committed`` consumer shows what each ``transaction.boundary`` committed, and the
offsets topic shows that the offsets went with the records.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from kconnect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask, Task
from kconnect.api.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.worker import Worker
from kconnect.testing.exactly_once import (
    committed_records,
    exactly_once_worker,
    last_offset,
    start_exactly_once_task,
)
from kconnect.testing.fakes import RecordingStatusListener
from tests.integration.worker_support import wait_until

pytestmark = [pytest.mark.kafka]

COUNTING = "test.CountingSource"
#: The one source partition of the counting task.
PARTITION = {"p": "x"}


class CountingTask(SourceTask):
    """Emits ``r-<n>`` for n = offset+1 .. count-1 in batches of 10. With ``commit.every``
    it asks to commit after every n with n % every == every-1; ``abort.batch`` = n aborts
    the batch holding n."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.count = int(props["count"])
        self.every = int(props.get("commit.every", "0"))
        self.abort_at = int(props.get("abort.batch", "-1"))
        stored = self.context.offset_storage_reader().offset({"p": "x"})
        self.next = 0 if stored is None else int(stored["n"]) + 1

    def poll(self) -> Sequence[SourceRecord] | None:
        if self.next >= self.count:
            return None
        tx = self.context.transaction_context()
        batch = []
        for n in range(self.next, min(self.next + 10, self.count)):
            r = SourceRecord({"p": "x"}, {"n": n}, self.topic, value=f"r-{n}")
            batch.append(r)
            if tx is not None and self.every and n % self.every == self.every - 1:
                tx.commit_transaction(r)
            if tx is not None and n == self.abort_at:
                tx.abort_transaction()
        self.next += len(batch)
        return batch

    def stop(self) -> None:
        pass


class CountingSource(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return CountingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED


@pytest.fixture
def eos_worker(kafka_bootstrap: str, tmp_path: Path):
    base = Plugins.load()
    plugins = Plugins(
        [
            PluginEntry("source", COUNTING, CountingSource),
            *[
                PluginEntry(d.type, d.class_name, d.cls)
                for d in base.all_plugins()
                if d.type in ("converter", "header_converter")
            ],
        ]
    )
    settings = {"task.processes": "1"}
    with exactly_once_worker(
        kafka_bootstrap, plugins, name="eos-worker", group_prefix="eos-b", settings=settings
    ) as (worker, group):
        yield worker, group


def run_task(worker: Worker, name: str, props: dict[str, str]) -> RecordingStatusListener:
    return start_exactly_once_task(worker, COUNTING, name, props)


def test_connector_defined_boundaries_commit_and_abort(eos_worker, kafka_bootstrap):
    worker, group = eos_worker
    topic = f"eos-b-{uuid.uuid4().hex[:8]}"
    listener = run_task(
        worker,
        "counting",
        {
            "topic": topic,
            "count": "100",
            "transaction.boundary": "connector",
            "commit.every": "25",
            "abort.batch": "55",
        },
    )
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 90, 60,
               message="the committed records")  # fmt: skip
    worker.stop_and_await_task(ConnectorTaskId("counting", 0))
    assert listener.failure(ConnectorTaskId("counting", 0)) is None
    values = [m.value().decode() for m in committed_records(kafka_bootstrap, topic)]
    # commits after r-24, r-49, r-74, r-99; the batch r-50..r-59 was aborted (with nothing
    # committed since r-49, all of it); its offsets were still committed
    assert values == [f"r-{n}" for n in range(50)] + [f"r-{n}" for n in range(60, 100)]
    assert last_offset(kafka_bootstrap, f"{group}-offsets", "counting", PARTITION) == {"n": 99}


def test_poll_boundary_and_restart_resume_from_committed_offsets(eos_worker, kafka_bootstrap):
    worker, _ = eos_worker
    topic = f"eos-b-{uuid.uuid4().hex[:8]}"
    tid = ConnectorTaskId("polled", 0)
    run_task(worker, "polled", {"topic": topic, "count": "40"})
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 40, 60,
               message="40 records")  # fmt: skip
    sizes = {
        n.name: v
        for n, v in worker.metrics.registry.snapshot()
        if n.group == "source-task-metrics" and n.tag_dict.get("connector") == "polled"
        and n.name.startswith("transaction-size")
    }  # fmt: skip
    # one transaction per poll: every batch of the counting task holds 10 records
    assert sizes == {
        "transaction-size-min": 10.0,
        "transaction-size-max": 10.0,
        "transaction-size-avg": 10.0,
    }
    worker.stop_and_await_task(tid)
    # a new instance of the task resumes after the committed offset: nothing is repeated
    run_task(worker, "polled", {"topic": topic, "count": "60"})
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 60, 60,
               message="60 records")  # fmt: skip
    worker.stop_and_await_task(tid)
    values = [m.value().decode() for m in committed_records(kafka_bootstrap, topic)]
    assert values == [f"r-{n}" for n in range(60)]


def test_interval_boundary_and_own_offsets_topic(eos_worker, kafka_bootstrap):
    worker, group = eos_worker
    topic = f"eos-b-{uuid.uuid4().hex[:8]}"
    own = f"{group}-own-offsets"
    tid = ConnectorTaskId("interval", 0)
    run_task(
        worker,
        "interval",
        {
            "topic": topic,
            "count": "200",
            "transaction.boundary": "interval",
            "transaction.boundary.interval.ms": "100",
            "offsets.storage.topic": own,
        },
    )
    wait_until(lambda: len(committed_records(kafka_bootstrap, topic, idle_s=1.0)) >= 200, 60,
               message="200 records")  # fmt: skip
    worker.stop_and_await_task(tid)
    values = [m.value().decode() for m in committed_records(kafka_bootstrap, topic)]
    assert values == [f"r-{n}" for n in range(200)]
    # the offsets went to the connector's own topic (created), not the worker's
    assert last_offset(kafka_bootstrap, own, "interval", PARTITION) == {"n": 199}
    assert last_offset(kafka_bootstrap, f"{group}-offsets", "interval", PARTITION) is None

    # a task writing to its own offsets topic fails, as Kafka's does
    listener = run_task(worker, "selfish", {"topic": f"{group}-offsets", "count": "10"})
    selfish = ConnectorTaskId("selfish", 0)
    wait_until(lambda: listener.failure(selfish) is not None, 30, message="the task to fail")
    assert "Source tasks may not produce to their own offsets topics when exactly-once " \
        "support is enabled" in str(listener.failure(selfish))  # fmt: skip
    worker.stop_and_await_task(selfish)
