"""``VerifiableSourceConnector``: ``tasks.max`` copies of its config, each with ``id`` set to
the task number, for :class:`~kconnect.connectors.tools.verifiable_source_task.
VerifiableSourceTask`. No settings of its own (an empty ConfigDef), as Kafka's.

Kafka's connector does not override ``exactlyOnceSupport()``: it answers null (unknown), so
``exactly.once.support=requested`` (the default) accepts it and ``required`` refuses it. The
same holds here (``exactly_once_support`` returns None).
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect.api import ConfigDef, ExactlyOnceSupport, SourceConnector, Task
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.verifiable_source_task import ID_CONFIG, VerifiableSourceTask

__all__ = ["VerifiableSourceConnector"]


class VerifiableSourceConnector(SourceConnector):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.VerifiableSourceConnector"

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return VerifiableSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, ID_CONFIG: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to release."""

    def config(self) -> ConfigDef:
        return ConfigDef()

    def exactly_once_support(
        self, connector_config: Mapping[str, str]
    ) -> ExactlyOnceSupport | None:
        # Kafka's VerifiableSourceConnector inherits SourceConnector's null: unknown.
        return None
