"""Port of ``ConnectDistributedTest``'s restart and pause tests
(``tests/kafkatest/tests/connect/connect_distributed_test.py``): three ``kconnect
distributed`` workers, the Mock and Verifiable connectors, Kafka's constants (failure delay
5 s; FAILED seen within 15/20 s, RUNNING again within 10 s after the restart request).

The workers run with ``auto.restart.enable=false``: kconnect restarts a FAILED connector or
task by itself by default, Kafka Connect leaves it FAILED "until manually restarted", and
these tests check Kafka's behaviour -- a failure stays visible until the REST restart.

To fit the suite into CI, the tests of this module share one cluster (Kafka starts one per
test): each test deletes its connectors and clears the workers' standard output afterwards.
The exactly-once variants (``exactly_once_source=True``, ``connector_type='exactly-once
source'``) are left to the exactly-once work; ``connect_protocol`` is sessioned.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kconnect.kafka.tools.admin_ping import create_topic, delete_topics
from tests.system.connect_service import ConnectDistributedService, wait_until
from tests.system.distributed_support import Status
from tests.system.templates import SystemTestContext, connect_distributed
from tests.system.verifiable import MockSink, MockSource, VerifiableSink, VerifiableSource

pytestmark = [pytest.mark.slow, pytest.mark.kafka]

#: the paused connector must not produce or consume during this window (Kafka: 10 s)
PAUSED_WINDOW_S = 5


class Cluster:
    def __init__(self, cc: ConnectDistributedService, topic: str) -> None:
        self.cc = cc
        self.topic = topic
        self.status = Status(cc)


@pytest.fixture(scope="module")
def cluster(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("distributed")
    run = uuid.uuid4().hex[:8]
    ctx = SystemTestContext(
        bootstrap=kafka_bootstrap,
        group=f"connect-cluster-{run}",
        input_file=root / "connect.input",
        output_file=root / "connect.output",
        topic=f"test-{run}",
        external_configs_file=root / "connect-external-configs.properties",
        # kconnect-only: keep FAILED connectors and tasks FAILED, as Kafka Connect does
        extra_worker_props={"auto.restart.enable": "false"},
    )
    create_topic(kafka_bootstrap, ctx.topic, partitions=1)
    cc = ConnectDistributedService(root, 3)
    cc.set_configs(lambda node: connect_distributed(ctx, node.port))
    try:
        cc.start()
        yield Cluster(cc, ctx.topic)
    finally:
        cc.teardown()
        delete_topics(
            kafka_bootstrap, [ctx.topic, ctx.offsets_topic, ctx.config_topic, ctx.status_topic]
        )


@pytest.fixture
def cl(cluster: Cluster) -> Iterator[Cluster]:
    yield cluster
    for name in cluster.cc.list_connectors(cluster.cc.nodes[0]):
        cluster.cc.delete_connector(name, cluster.cc.nodes[0])
    wait_until(lambda: not cluster.cc.list_connectors(), 30, "connectors were not deleted")
    for node in cluster.cc.nodes:
        if node.stdout_file.exists():
            node.stdout_file.write_bytes(b"")


#: The two REST requests that restart a FAILED connector, and the two for a FAILED task, as
#: Kafka's ``test_restart_failed_*`` and ``test_restart_connector_and_tasks_failed_*`` send them.
CONNECTOR_RESTARTS: dict[str, Callable[[ConnectDistributedService, str], object]] = {
    "restart": lambda cc, name: cc.restart_connector(name),
    "restart_connector_and_tasks": lambda cc, name: cc.restart_connector_and_tasks(
        name, only_failed="true", include_tasks="false"
    ),
}
TASK_RESTARTS: dict[str, Callable[[ConnectDistributedService, str], object]] = {
    "restart": lambda cc, name: cc.restart_task(name, 0),
    "restart_connector_and_tasks": lambda cc, name: cc.restart_connector_and_tasks(
        name, only_failed="false", include_tasks="true"
    ),
}


@pytest.mark.parametrize("restart", CONNECTOR_RESTARTS)
def test_restart_failed_connector(cl: Cluster, restart: str) -> None:
    """``exactly_once_source=False``: a MockSink whose connector fails after 5 s."""
    connector = MockSink(cl.cc, [cl.topic], mode="connector-failure", delay_sec=5)
    connector.start()
    wait_until(
        lambda: cl.status.connector_is_failed(connector), 15,
        "Failed to see connector transition to the FAILED state",
    )  # fmt: skip
    CONNECTOR_RESTARTS[restart](cl.cc, connector.name)
    wait_until(
        lambda: cl.status.connector_is_running(connector), 10,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip


@pytest.mark.parametrize("restart", TASK_RESTARTS)
@pytest.mark.parametrize("connector_type", ["source", "sink"])
def test_restart_failed_task(cl: Cluster, connector_type: str, restart: str) -> None:
    if connector_type == "sink":
        connector: MockSink | MockSource = MockSink(
            cl.cc, [cl.topic], mode="task-failure", delay_sec=5
        )
    else:
        connector = MockSource(cl.cc, mode="task-failure", delay_sec=5)
    connector.start()
    task_id = 0
    wait_until(
        lambda: cl.status.task_is_failed(connector, task_id), 20,
        "Failed to see task transition to the FAILED state",
    )  # fmt: skip
    TASK_RESTARTS[restart](cl.cc, connector.name)
    wait_until(
        lambda: cl.status.task_is_running(connector, task_id), 10,
        "Failed to see task transition to the RUNNING state",
    )  # fmt: skip


@pytest.mark.parametrize("kind", ["source", "sink"])
def test_pause_and_resume(cl: Cluster, kind: str) -> None:
    """Source connectors stop producing records when paused and begin again when resumed
    (``exactly_once_source=False``); sink connectors stop consuming them and begin again."""
    source = VerifiableSource(cl.cc, topic=cl.topic)
    source.start()
    connector: VerifiableSource | VerifiableSink = source
    messages: Callable[[], list[dict[str, Any]]] = source.sent_messages
    verb = "produce"
    if kind == "sink":
        wait_until(
            lambda: len(source.committed_messages()) > 0, 30,
            "Timeout expired waiting for source task to produce a message",
        )  # fmt: skip
        sink = VerifiableSink(cl.cc, topics=[cl.topic])
        sink.start()
        connector, messages, verb = sink, sink.received_messages, "consume"
    wait_until(
        lambda: cl.status.is_running(connector), 30,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip
    cl.cc.pause_connector(connector.name)
    for node in cl.cc.nodes:  # every node reports the paused transition
        wait_until(
            lambda node=node: cl.status.is_paused(connector, node), 30,
            "Failed to see connector transition to the PAUSED state",
        )  # fmt: skip
    num_messages = len(messages())
    time.sleep(PAUSED_WINDOW_S)
    assert num_messages == len(messages()), (
        f"Paused {kind} connector should not {verb} any messages"
    )
    cl.cc.resume_connector(connector.name)
    for node in cl.cc.nodes:
        wait_until(
            lambda node=node: cl.status.is_running(connector, node), 30,
            "Failed to see connector transition to the RUNNING state",
        )  # fmt: skip
    wait_until(
        lambda: len(messages()) > num_messages, 30,
        f"Failed to {verb} messages after resuming {kind} connector",
    )  # fmt: skip


def test_pause_state_persistent(cl: Cluster) -> None:
    """The paused state is kept across a (clean) restart of every worker."""
    source = VerifiableSource(cl.cc, topic=cl.topic)
    source.start()
    wait_until(
        lambda: cl.status.is_running(source), 30,
        "Failed to see connector transition to the RUNNING state",
    )  # fmt: skip
    cl.cc.pause_connector(source.name)
    cl.cc.restart()
    for node in cl.cc.nodes:
        wait_until(
            lambda node=node: cl.status.is_paused(source, node), 120,
            "Failed to see connector startup in PAUSED state",
        )  # fmt: skip
