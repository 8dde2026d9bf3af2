"""``MockSinkConnector``: a sink connector that delegates everything to a
:class:`~kconnect.connectors.tools.mock_connector.MockConnector` and runs
:class:`~kconnect.connectors.tools.mock_sink_task.MockSinkTask`."""

from __future__ import annotations

from kconnect.api import SinkConnector, Task
from kconnect.connectors.tools.mock_connector import MockDelegate
from kconnect.connectors.tools.mock_sink_task import MockSinkTask

__all__ = ["MockSinkConnector"]


class MockSinkConnector(MockDelegate, SinkConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.MockSinkConnector"

    def task_class(self) -> type[Task]:
        return MockSinkTask
