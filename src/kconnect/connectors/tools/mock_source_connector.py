"""``MockSourceConnector``: a source connector that delegates everything to a
:class:`~kconnect.connectors.tools.mock_connector.MockConnector` and runs
:class:`~kconnect.connectors.tools.mock_source_task.MockSourceTask`."""

from __future__ import annotations

from kconnect.api import SourceConnector, Task
from kconnect.connectors.tools.mock_connector import MockDelegate
from kconnect.connectors.tools.mock_source_task import MockSourceTask

__all__ = ["MockSourceConnector"]


class MockSourceConnector(MockDelegate, SourceConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.MockSourceConnector"

    def task_class(self) -> type[Task]:
        return MockSourceTask
