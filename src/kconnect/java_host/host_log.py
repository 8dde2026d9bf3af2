"""The Java plugin host's log lines, turned into this process's log records.

The host writes one line per SLF4J event of its plugins (and of itself) on its standard error
(``java/PROTOCOL.md``, v6): ``@kclog `` and a JSON object with the level, the logger's name, the
thread, the MDC (Kafka's ``connector.context`` among it), the message and the throwable's
trace. :func:`parse_line` reads one; :func:`log_event` logs it through :mod:`logging` under the
Java logger's name (``io.debezium.connector.postgresql.PostgresConnectorTask``), at the matching
level, its message prefixed by the connector context as kconnect's own lines are
(``[name|task-0] ...``), the trace as the record's exception text, the time and thread the
JVM's. ``@kclog {"new_logger": name}`` makes the Python logger of that name, so
``/admin/loggers`` knows the host's loggers. Every other line (the JVM's own output, a plugin's
``println``) is not parsed and stays a plain line, as before.

Levels were checked in Java (the host's levels follow ``/admin/loggers``), so a record is
handed to the handlers without the Python logger's level check.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from kconnect.api.secrets import redact
from kconnect.runtime.common.log_context import CONNECTOR_CONTEXT
from kconnect.runtime.common.loggers import python_level

__all__ = ["LOG_PREFIX", "JavaLogEvent", "NewJavaLogger", "log_event", "parse_line"]

#: What starts the host's structured lines.
LOG_PREFIX = "@kclog "
#: Kafka's MDC key for the connector context of a line.
CONNECTOR_CONTEXT_KEY = "connector.context"


@dataclass(frozen=True)
class JavaLogEvent:
    """One SLF4J event of the host."""

    ts_ms: int
    level: str
    logger: str
    thread: str
    message: str
    mdc: Mapping[str, str] = field(default_factory=dict)
    trace: str | None = None

    @property
    def connector_context(self) -> str:
        """``[name|task-0] `` (with its trailing space, as Kafka's MDC has it), or ``""``."""
        return self.mdc.get(CONNECTOR_CONTEXT_KEY) or ""


@dataclass(frozen=True)
class NewJavaLogger:
    """A logger the host made (announced once per name)."""

    name: str


def parse_line(line: str) -> JavaLogEvent | NewJavaLogger | None:
    """The event or announcement on one line of the host's standard error; None for a line
    that is not one of them (it is then logged as it is)."""
    if not line.startswith(LOG_PREFIX):
        return None
    try:
        data = json.loads(line[len(LOG_PREFIX) :])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    new_logger = data.get("new_logger")
    if isinstance(new_logger, str):
        return NewJavaLogger(new_logger)
    level, logger, message = data.get("level"), data.get("logger"), data.get("message")
    ts, thread = data.get("ts"), data.get("thread")
    if not (
        isinstance(level, str)
        and python_level(level) is not None
        and isinstance(logger, str)
        and (message is None or isinstance(message, str))
        and isinstance(ts, int)
        and not isinstance(ts, bool)
    ):
        return None
    raw_mdc = data.get("mdc") or {}
    if not isinstance(raw_mdc, dict):
        return None
    trace = data.get("trace")
    return JavaLogEvent(
        ts_ms=ts,
        level=level.upper(),
        logger=logger,
        thread=thread if isinstance(thread, str) else "",
        message="null" if message is None else message,  # as log4j prints a null message
        mdc={str(k): str(v) for k, v in raw_mdc.items() if v is not None},
        trace=trace if isinstance(trace, str) and trace else None,
    )


def log_event(event: JavaLogEvent | NewJavaLogger) -> None:
    """Log ``event`` through :mod:`logging` (see the module docstring); a new logger is made."""
    logger = logging.getLogger(event.name if isinstance(event, NewJavaLogger) else event.logger)
    if isinstance(event, NewJavaLogger):
        return
    level = python_level(event.level) or logging.INFO
    context = event.connector_context
    record = logger.makeRecord(logger.name, level, "(java)", 0, context + event.message, (), None)
    record.created = event.ts_ms / 1000.0
    record.msecs = float(event.ts_ms % 1000)
    record.threadName = event.thread
    record.__dict__["java_mdc"] = dict(event.mdc)  # every MDC key (Debezium's dbz.* too)
    if event.trace:
        record.exc_text = redact(event.trace)
    # a handler that formats %(connector_context)s (ConnectorContextFilter) sees it too
    token = CONNECTOR_CONTEXT.set(context.strip())
    try:
        logger.handle(record)
    finally:
        CONNECTOR_CONTEXT.reset(token)
