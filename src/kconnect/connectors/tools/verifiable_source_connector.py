"""``VerifiableSourceConnector``: ``tasks.max`` copies of its config, each with ``id`` set to
the task number, for :class:`~kconnect.connectors.tools.verifiable_source_task.
VerifiableSourceTask`. No settings of its own (an empty ConfigDef), as Kafka's.

Kafka's connector does not override ``exactlyOnceSupport()``: it answers null (unknown), so
``exactly.once.support=requested`` (the default) accepts it and ``required`` refuses it. The
same holds here (``exactly_once_support`` returns None).
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import ExactlyOnceSupport, SourceConnector
from kconnect.connectors.tools.numbered_tasks import NumberedTasks
from kconnect.connectors.tools.verifiable_source_task import VerifiableSourceTask

__all__ = ["VerifiableSourceConnector"]


class VerifiableSourceConnector(NumberedTasks, SourceConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.VerifiableSourceConnector"

    task = VerifiableSourceTask

    def exactly_once_support(
        self, connector_config: Mapping[str, str]
    ) -> ExactlyOnceSupport | None:
        # Kafka's VerifiableSourceConnector inherits SourceConnector's null: unknown.
        return None
