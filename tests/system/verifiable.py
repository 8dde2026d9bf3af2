"""The connector helpers of ``kafkatest.services.connect``: VerifiableSource/Sink (create the
connector, read its JSON lines back from every node's standard output) and MockSource/Sink.
The connector configs are the ones the ducktape helpers send, JSON numbers and booleans
included (a Connect REST API turns them into strings)."""

from __future__ import annotations

import uuid
from typing import Any

from tests.system.connect_service import ConnectServiceBase, stdout_json


class VerifiableConnector:
    name: str
    cc: ConnectServiceBase

    def messages(self) -> list[dict[str, Any]]:
        return [
            {**data, "node": node}
            for node, data in stdout_json(self.cc.nodes)
            if data.get("name") == self.name
        ]

    def stop(self) -> None:
        self.cc.delete_connector(self.name)


class VerifiableSource(VerifiableConnector):
    def __init__(
        self, cc: ConnectServiceBase, name: str = "verifiable-source", tasks: int = 1,
        topic: str = "verifiable", throughput: int = 1000, complete_records: bool = False,
    ) -> None:  # fmt: skip
        self.cc, self.name, self.tasks, self.topic = cc, name, tasks, topic
        self.throughput, self.complete_records = throughput, complete_records

    def committed_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages() if m.get("committed")]

    def sent_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages() if not m.get("committed")]

    def start(self) -> None:
        self.cc.create_connector(
            {
                "name": self.name,
                "connector.class": "org.apache.kafka.connect.tools.VerifiableSourceConnector",
                "tasks.max": self.tasks,
                "topic": self.topic,
                "throughput": self.throughput,
                "complete.record.data": self.complete_records,
            }
        )


def _sink_name(stem: str) -> str:
    """A sink connector's default name: its consumer group is ``connect-<name>`` on the shared
    broker, so system test modules running side by side (ducktape runs one at a time) must not
    share one -- a rebalance in one cluster would hold the other's sink."""
    return f"{stem}-{uuid.uuid4().hex[:8]}"


class VerifiableSink(VerifiableConnector):
    def __init__(
        self, cc: ConnectServiceBase, name: str | None = None, tasks: int = 1,
        topics: list[str] | None = None,
    ) -> None:  # fmt: skip
        self.cc, self.name, self.tasks = cc, name or _sink_name("verifiable-sink"), tasks
        self.topics = topics if topics is not None else ["verifiable"]

    def flushed_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages() if m.get("flushed")]

    def received_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages() if not m.get("flushed")]

    def start(self) -> None:
        self.cc.create_connector(
            {
                "name": self.name,
                "connector.class": "org.apache.kafka.connect.tools.VerifiableSinkConnector",
                "tasks.max": self.tasks,
                "topics": ",".join(self.topics),
            }
        )


class MockSink:
    def __init__(
        self, cc: ConnectServiceBase, topics: list[str], mode: str | None = None,
        delay_sec: int = 10, name: str | None = None,
    ) -> None:  # fmt: skip
        self.cc, self.topics, self.mode, self.delay_sec, self.name = (
            cc,
            topics,
            mode,
            delay_sec,
            name or _sink_name("mock-sink"),
        )
        self.tasks = 1

    def start(self) -> None:
        self.cc.create_connector(
            {
                "name": self.name,
                "connector.class": "org.apache.kafka.connect.tools.MockSinkConnector",
                "tasks.max": 1,
                "topics": ",".join(self.topics),
                "mock_mode": self.mode,
                "delay_ms": self.delay_sec * 1000,
            }
        )


class MockSource:
    def __init__(
        self, cc: ConnectServiceBase, mode: str | None = None, delay_sec: int = 10,
        name: str = "mock-source",
    ) -> None:  # fmt: skip
        self.cc, self.mode, self.delay_sec, self.name = cc, mode, delay_sec, name
        self.tasks = 1

    def start(self) -> None:
        self.cc.create_connector(
            {
                "name": self.name,
                "connector.class": "org.apache.kafka.connect.tools.MockSourceConnector",
                "tasks.max": 1,
                "mock_mode": self.mode,
                "delay_ms": self.delay_sec * 1000,
            }
        )
