"""Connector/task context on log lines: ``[<connector>|task-<n>]`` (Kafka's MDC ``connector.context``).

Every worker thread sets :data:`CONNECTOR_CONTEXT` for its lifetime, so log lines written by
plugin code on that thread can carry the context too: install :class:`ConnectorContextFilter`
on a handler and use ``%(connector_context)s`` in its format. Worker code itself logs through
:func:`context_logger`, which prefixes the context explicitly.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import MutableMapping
from typing import Any

__all__ = [
    "CONNECTOR_CONTEXT",
    "ConnectorContextFilter",
    "ContextLogger",
    "context_logger",
    "context_prefix",
]

CONNECTOR_CONTEXT: contextvars.ContextVar[str] = contextvars.ContextVar(
    "kconnect_connector_context", default=""
)


def context_prefix(connector: str, task: int | None = None) -> str:
    """``[conn|task-0] `` for a task, ``[conn|worker] `` for a connector (Kafka's scopes)."""
    scope = "worker" if task is None else f"task-{task}"
    return f"[{connector}|{scope}] "


class ConnectorContextFilter(logging.Filter):
    """Adds ``record.connector_context`` (empty outside connector/task threads)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.connector_context = CONNECTOR_CONTEXT.get()
        return True


class _Prefixed(logging.LoggerAdapter[logging.Logger]):
    def __init__(self, logger: logging.Logger, prefix: str) -> None:
        super().__init__(logger, {"prefix": prefix})
        self.prefix = prefix

    def process(
        self, msg: Any, kwargs: MutableMapping[str, Any]
    ) -> tuple[Any, MutableMapping[str, Any]]:
        return f"{self.prefix}{msg}", kwargs


ContextLogger = logging.LoggerAdapter[logging.Logger]
"""A logger whose messages carry a ``[connector|task-n]`` prefix."""


def context_logger(logger: logging.Logger, prefix: str) -> ContextLogger:
    """``logger`` with every message prefixed by ``prefix`` (see :func:`context_prefix`)."""
    return _Prefixed(logger, prefix)
