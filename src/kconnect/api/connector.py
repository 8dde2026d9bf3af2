"""Connectors: ``Connector``, ``SourceConnector``, ``SinkConnector`` and their contexts.

Lifecycle (who calls what, and where):

1. The worker instantiates the class with no arguments, then calls :meth:`Connector.initialize`
   with a context, then :meth:`Connector.start` with the connector's configuration (string
   map, config-provider variables resolved). ``start`` runs on the connector's own thread and
   may block (e.g. to connect to a database); raising fails the connector with the message
   and trace in its status.
2. :meth:`Connector.task_configs` is called (same thread) after start and whenever the
   connector calls ``context.request_task_reconfiguration()``; it returns at most
   ``max_tasks`` configuration maps, one per task.
3. :meth:`Connector.stop` is called once, on the same thread, when the connector is deleted,
   reconfigured, paused-to-stopped, or the worker shuts down; it must release every resource.

``version``, ``config`` and ``validate`` may be called on a fresh instance that was never
started (the REST API's plugin listing and ``config/validate``); they must not block.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from kconnect.api.config_def import Config, ConfigDef
from kconnect.api.plugin_metrics import PluginMetrics
from kconnect.api.records import TopicPartition
from kconnect.api.task import OffsetStorageReader, Task

__all__ = [
    "ConnectorContext",
    "ConnectorTransactionBoundaries",
    "ExactlyOnceSupport",
    "SinkConnector",
    "SinkConnectorContext",
    "SourceConnector",
    "SourceConnectorContext",
]


class ConnectorContext(ABC):
    """What the runtime offers a running connector. Methods are thread-safe."""

    @abstractmethod
    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call ``task_configs`` again and restart the tasks if they changed
        (e.g. a new table appeared)."""

    @abstractmethod
    def raise_error(self, error: BaseException) -> None:
        """Fail the connector from a background thread of its own, with ``error`` as the cause."""

    def plugin_metrics(self) -> PluginMetrics | None:
        """The connector's :class:`~kconnect.api.PluginMetrics` (Kafka 4.1, KIP-877: group
        ``plugins``, tagged ``connector``), or None when the runtime keeps no metrics."""
        return None


class SourceConnectorContext(ConnectorContext):
    """Context of a source connector: adds read access to the committed source offsets."""

    @abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of the offsets committed for this connector's source partitions."""


class SinkConnectorContext(ConnectorContext):
    """Context of a sink connector."""


class ExactlyOnceSupport(enum.Enum):
    """Whether a source connector can provide exactly-once delivery (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(enum.Enum):
    """Whether a source connector can define its own transaction boundaries (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class Connector(ABC):
    """Base class of source and sink connectors. See the module docstring for the lifecycle."""

    context: ConnectorContext

    def initialize(self, context: ConnectorContext) -> None:
        """Called once by the runtime before :meth:`start`; keeps the context."""
        self.context = context

    def version(self) -> str:
        """The connector's version, shown by ``GET /connector-plugins``."""
        return "undefined"

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with this configuration (on the connector thread; may block)."""

    def reconfigure(self, props: Mapping[str, str]) -> None:
        """Apply a new configuration: by default :meth:`stop` then :meth:`start`."""
        self.stop()
        self.start(props)

    @abstractmethod
    def task_class(self) -> type[Task]:
        """The Task class the runtime instantiates for each task configuration."""

    @abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """At most ``max_tasks`` task configurations (string maps)."""

    @abstractmethod
    def stop(self) -> None:
        """Stop and release every resource (on the connector thread)."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The ConfigDef declaring every key this connector reads."""

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        """Validate a configuration (REST ``config/validate`` and connector creation).

        The default validates against :meth:`config`; override to add cross-key checks, and
        put error messages on the returned ConfigValues rather than raising.
        """
        return Config(list(self.config().validate(connector_configs)))


class SourceConnector(Connector):
    """A connector that reads from an external system and produces records to Kafka."""

    context: SourceConnectorContext

    def exactly_once_support(
        self, connector_config: Mapping[str, str]
    ) -> ExactlyOnceSupport | None:
        """Whether this connector can deliver exactly once with this config (None: unknown)."""
        return None

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[Mapping[str, Any], Mapping[str, Any] | None],
    ) -> bool:
        """Called (connector stopped) before the runtime alters or resets source offsets.

        Raise to refuse the request (the REST call fails with the message); return True if
        the connector also changed offsets it keeps outside Kafka Connect.
        """
        return False


class SinkConnector(Connector):
    """A connector that consumes records from Kafka topics and writes them elsewhere."""

    context: SinkConnectorContext

    TOPICS_CONFIG = "topics"

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[TopicPartition, int | None],
    ) -> bool:
        """Called (connector stopped) before the runtime alters or resets consumer offsets."""
        return False
