"""Kafka's test connectors pass kconnect.testing's connector conformance suite (resolved by
their Java class names, as a worker resolves them although GET /connector-plugins leaves them
out). Nothing running is needed."""

from __future__ import annotations

from kconnect.testing.conformance.connectors import (
    SinkConnectorConformance,
    SourceConnectorConformance,
    SourceOffsetsConformance,
)


class TestVerifiableSource(SourceOffsetsConformance):
    connector_class = "org.apache.kafka.connect.tools.VerifiableSourceConnector"

    def connector_config(self) -> dict[str, str]:
        return {"name": "conformance", "topic": "verifiable", "throughput": "-1"}

    def add_source_data(self, round: int) -> None:
        """The task makes its own data: the next seqnos after the committed one."""


class TestSchemaSource(SourceOffsetsConformance):
    connector_class = "org.apache.kafka.connect.tools.SchemaSourceConnector"

    def connector_config(self) -> dict[str, str]:
        return {
            "name": "conformance", "topic": "schemas", "throughput": "-1",
            "num.messages": "5", "multiple.schema": "true",
        }  # fmt: skip

    def add_source_data(self, round: int) -> None:
        """Each start sends num.messages more, after the committed seqno."""


class TestVerifiableSink(SinkConnectorConformance):
    connector_class = "org.apache.kafka.connect.tools.VerifiableSinkConnector"

    def connector_config(self) -> dict[str, str]:
        return {"name": "conformance", "topics": "verifiable"}


class TestMockSource(SourceConnectorConformance):
    connector_class = "org.apache.kafka.connect.tools.MockSourceConnector"

    def connector_config(self) -> dict[str, str]:
        return {"name": "conformance"}


class TestMockSink(SinkConnectorConformance):
    connector_class = "org.apache.kafka.connect.tools.MockSinkConnector"

    def connector_config(self) -> dict[str, str]:
        return {"name": "conformance", "topics": "t"}
