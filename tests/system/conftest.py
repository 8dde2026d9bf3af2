"""Fixtures of the Connect system-test port: a :class:`SystemTestContext` per test (unique group,
internal topics, data topic and DLQ topic on the shared broker; input/output files in the
test's directory) and teardown that kills every worker a test started and deletes its
topics."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from kconnect.kafka.tools.admin_ping import create_topic, delete_topics
from tests.system.connect_service import ConnectServiceBase
from tests.system.templates import SystemTestContext


class Services:
    """What one test started: services to kill and topics to delete at the end."""

    def __init__(self) -> None:
        self.services: list[ConnectServiceBase] = []
        self.topics: list[str] = []

    def add(self, service: ConnectServiceBase) -> ConnectServiceBase:
        self.services.append(service)
        return service


@pytest.fixture
def services(kafka_bootstrap: str) -> Iterator[Services]:
    started = Services()
    yield started
    for service in started.services:
        service.teardown()
    if started.topics:
        delete_topics(kafka_bootstrap, started.topics)


@pytest.fixture
def context(kafka_bootstrap: str, tmp_path: Path, services: Services) -> SystemTestContext:
    """The template variables, with per-test names (``test`` becomes ``test-<id>``)."""
    run = uuid.uuid4().hex[:8]
    ctx = SystemTestContext(
        bootstrap=kafka_bootstrap,
        group=f"connect-cluster-{run}",
        input_file=tmp_path / "connect.input",
        output_file=tmp_path / "connect.output",
        topic=f"test-{run}",
        external_configs_file=tmp_path / "connect-external-configs.properties",
        topic_test=f"test-{run}",
        override_deadletterqueue_topic_name=f"my-connector-errors-{run}",
    )
    services.topics += [
        ctx.topic, ctx.offsets_topic, ctx.config_topic, ctx.status_topic,
        ctx.override_deadletterqueue_topic_name, f"topic-{ctx.topic_test}",
    ]  # fmt: skip
    # KafkaService(topics={'test': {'partitions': 1, 'replication-factor': 1}})
    create_topic(kafka_bootstrap, ctx.topic, partitions=1)
    return ctx
