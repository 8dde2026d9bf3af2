"""``SchemaSourceConnector``: ``tasks.max`` copies of its config, each with ``id`` set to the
task number, for :class:`~kconnect.connectors.tools.schema_source_task.SchemaSourceTask`.
No settings of its own (an empty ConfigDef), as Kafka's."""

from __future__ import annotations

from kconnect.api import SourceConnector
from kconnect.connectors.tools.numbered_tasks import NumberedTasks
from kconnect.connectors.tools.schema_source_task import SchemaSourceTask

__all__ = ["SchemaSourceConnector"]


class SchemaSourceConnector(NumberedTasks, SourceConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.SchemaSourceConnector"

    task = SchemaSourceTask
