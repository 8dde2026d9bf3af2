"""``MockConnector``: the behaviour behind ``MockSourceConnector`` and ``MockSinkConnector``,
which fail on purpose for system tests.

Settings (shared by the connector and its single task, which gets the connector's config):

* ``mock_mode``: ``connector-failure`` -- the connector fails ``delay_ms`` after it started
  (``context.raise_error``), its task keeps running; ``task-failure`` -- the task raises from
  its first ``poll``/``put`` after ``delay_ms``; anything else (or nothing) -- no failure;
* ``delay_ms``: the delay, default 15000 (``Long.parseLong``).

As in Kafka, ``MockConnector`` itself is neither a source nor a sink connector, so it is no
plugin: a config can only name ``MockSourceConnector`` or ``MockSinkConnector``. Its ConfigDef
is empty; ``task_configs`` returns one copy of the config whatever ``tasks.max`` says.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from kconnect.api import Config, ConfigDef, Connector, ConnectorContext, Task
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.task_settings import parse_long

__all__ = [
    "CONNECTOR_FAILURE",
    "DEFAULT_FAILURE_DELAY_MS",
    "DELAY_MS_KEY",
    "MOCK_MODE_KEY",
    "TASK_FAILURE",
    "MockConnector",
    "MockDelegate",
    "failure_delay_ms",
]

log = logging.getLogger(__name__)

MOCK_MODE_KEY = "mock_mode"
DELAY_MS_KEY = "delay_ms"
CONNECTOR_FAILURE = "connector-failure"
TASK_FAILURE = "task-failure"
DEFAULT_FAILURE_DELAY_MS = 15_000


def failure_delay_ms(props: Mapping[str, str]) -> int:
    """``delay_ms`` as ``Long.parseLong`` reads it, or the default when absent."""
    if props.get(DELAY_MS_KEY) is None:
        return DEFAULT_FAILURE_DELAY_MS
    return parse_long(props.get(DELAY_MS_KEY))


class MockConnector(Connector):
    """Kafka's ``MockConnector`` (see the module docstring); the Mock source and sink
    connectors delegate every call to one of these."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._timer: threading.Timer | None = None

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        if props.get(MOCK_MODE_KEY) == CONNECTOR_FAILURE:
            delay_ms = failure_delay_ms(props)
            log.debug("Started MockConnector with failure delay of %d ms", delay_ms)
            self._timer = threading.Timer(delay_ms / 1000.0, self._fail)
            self._timer.daemon = True
            self._timer.name = "mock-connector-failure"
            self._timer.start()

    def _fail(self) -> None:
        log.debug("Triggering connector failure")
        self.context.raise_error(RuntimeError())

    def task_class(self) -> type[Task]:
        raise NotImplementedError("MockConnector has no task class; use MockSource/SinkConnector")

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        log.debug("Creating single task for MockConnector")
        return [dict(self._props)]

    def stop(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            if timer is not threading.current_thread():
                timer.join(20)

    def config(self) -> ConfigDef:
        return ConfigDef()


class MockDelegate(Connector):
    """What ``MockSourceConnector`` and ``MockSinkConnector`` share, as Kafka's do: every call
    goes to a :class:`MockConnector`; the subclass names only its task class. List it before
    ``SourceConnector`` / ``SinkConnector`` among the bases."""

    def __init__(self) -> None:
        self._delegate = MockConnector()

    def initialize(self, context: ConnectorContext) -> None:
        super().initialize(context)
        self._delegate.initialize(context)

    def version(self) -> str:
        return self._delegate.version()

    def start(self, props: Mapping[str, str]) -> None:
        self._delegate.start(props)

    def reconfigure(self, props: Mapping[str, str]) -> None:
        self._delegate.reconfigure(props)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return self._delegate.task_configs(max_tasks)

    def stop(self) -> None:
        self._delegate.stop()

    def config(self) -> ConfigDef:
        return self._delegate.config()

    def validate(self, connector_configs: Mapping[str, str]) -> Config:
        return self._delegate.validate(connector_configs)
