"""The FileStream connectors pass kconnect.testing's connector conformance suite (resolved by
their Java class names). Nothing running is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from kconnect.testing.conformance.connectors import (
    SinkConnectorConformance,
    SourceOffsetsConformance,
)


class TestFileStreamSource(SourceOffsetsConformance):
    connector_class = "org.apache.kafka.connect.file.FileStreamSourceConnector"

    @pytest.fixture(autouse=True)
    def _file(self, tmp_path: Path) -> None:
        self.path = tmp_path / "in.txt"

    def connector_config(self) -> dict[str, str]:
        return {"file": str(self.path), "topic": "conformance-lines"}

    def add_source_data(self, round: int) -> None:
        with self.path.open("a") as f:
            f.writelines(f"round {round} line {i}\n" for i in range(3))


class TestFileStreamSink(SinkConnectorConformance):
    connector_class = "org.apache.kafka.connect.file.FileStreamSinkConnector"

    @pytest.fixture(autouse=True)
    def _file(self, tmp_path: Path) -> None:
        self.path = tmp_path / "out.txt"

    def connector_config(self) -> dict[str, str]:
        return {"file": str(self.path), "topics": "conformance-lines"}
