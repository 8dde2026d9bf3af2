"""``VerifiableSinkConnector``: ``tasks.max`` copies of its config, each with ``id`` set to the
task number, for :class:`~kconnect.connectors.tools.verifiable_sink_task.VerifiableSinkTask`.
No settings of its own beyond the sink ``topics`` / ``topics.regex``, as Kafka's."""

from __future__ import annotations

from kconnect.api import SinkConnector
from kconnect.connectors.tools.numbered_tasks import NumberedTasks
from kconnect.connectors.tools.verifiable_sink_task import VerifiableSinkTask

__all__ = ["VerifiableSinkConnector"]


class VerifiableSinkConnector(NumberedTasks, SinkConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.VerifiableSinkConnector"

    task = VerifiableSinkTask
