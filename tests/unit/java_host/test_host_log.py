"""The Java plugin host's log lines (PROTOCOL.md v4) read and logged on the worker's side."""

from __future__ import annotations

import json
import logging

import pytest

from kconnect.api.secrets import remember_secret
from kconnect.java_host.host_log import (
    LOG_PREFIX,
    JavaLogEvent,
    NewJavaLogger,
    log_event,
    parse_line,
)
from kconnect.runtime.common.log_context import CONNECTOR_CONTEXT, ConnectorContextFilter

TRACE = (
    "java.lang.IllegalStateException: boom\n"
    "\tat test.log.LoggingTask.poll(LoggingTask.java:42)\n"
    "Caused by: java.io.IOException: disk\n"
    "\t... 3 more"
)


def _line(**fields: object) -> str:
    return LOG_PREFIX + json.dumps(fields)


def test_an_event_line_with_a_multi_line_trace_and_mdc() -> None:
    line = _line(
        ts=1712345678901,
        level="WARN",
        logger="io.debezium.connector.postgresql.PostgresConnectorTask",
        thread="plugin-host-op-3",
        mdc={"connector.context": "[pg|task-0] ", "dbz.connectorType": "Postgres"},
        message="line one\nline two",
        trace=TRACE,
    )
    assert "\n" not in line  # one physical line, whatever the message holds
    assert parse_line(line) == JavaLogEvent(
        ts_ms=1712345678901,
        level="WARN",
        logger="io.debezium.connector.postgresql.PostgresConnectorTask",
        thread="plugin-host-op-3",
        message="line one\nline two",
        mdc={"connector.context": "[pg|task-0] ", "dbz.connectorType": "Postgres"},
        trace=TRACE,
    )


def test_optional_fields_and_the_new_logger_notice() -> None:
    event = parse_line(_line(ts=1, level="debug", logger="a.B", thread="t", message=None))
    assert event == JavaLogEvent(1, "DEBUG", "a.B", "t", "null")
    assert isinstance(event, JavaLogEvent) and event.connector_context == ""
    assert parse_line(_line(new_logger="io.debezium.util.Threads")) == NewJavaLogger(
        "io.debezium.util.Threads"
    )


@pytest.mark.parametrize(
    "line",
    [
        "",
        "[0.004s][info][gc] Using Serial",  # the JVM's own output
        'Exception in thread "main" java.lang.Error',
        "@kclog",  # the prefix without its space
        "@kclog not json",
        "@kclog [1, 2]",
        _line(level="INFO", logger="a", thread="t", message="no ts"),
        _line(ts=1, level="LOUD", logger="a", thread="t", message="m"),
        _line(ts=1, level="INFO", thread="t", message="no logger"),
        _line(ts=True, level="INFO", logger="a", thread="t", message="m"),
        _line(ts=1, level="INFO", logger="a", thread="t", message="m", mdc=["x"]),
        "  " + _line(ts=1, level="INFO", logger="a", thread="t", message="indented"),
    ],
)
def test_anything_else_is_not_an_event(line: str) -> None:
    assert parse_line(line) is None


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []
        self.lines: list[str] = []
        self.addFilter(ConnectorContextFilter())
        self.setFormatter(
            logging.Formatter("%(levelname)s %(message)s (%(name)s) [%(threadName)s]")
        )

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.lines.append(self.format(record))


@pytest.fixture
def kept() -> object:
    handler = _Keep()
    logger = logging.getLogger("kc_test_java")
    logger.addHandler(handler)
    logger.setLevel(logging.ERROR)  # Java decided already: the Python level does not filter
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)


def test_an_event_is_logged_under_the_java_name_with_context_and_trace(kept: _Keep) -> None:
    event = parse_line(
        _line(
            ts=1712345678901,
            level="DEBUG",
            logger="kc_test_java.Task",
            thread="plugin-host-op-1",
            mdc={"connector.context": "[pg|task-0] ", "dbz.taskId": "0"},
            message="polled 3 %s records",  # a % in Java text is no format string here
            trace=TRACE,
        )
    )
    assert event is not None
    log_event(event)
    (record,) = kept.records
    assert record.name == "kc_test_java.Task" and record.levelno == logging.DEBUG
    assert record.getMessage() == "[pg|task-0] polled 3 %s records"
    assert record.threadName == "plugin-host-op-1"
    assert record.created == pytest.approx(1712345678.901)
    assert record.__dict__["java_mdc"] == {"connector.context": "[pg|task-0] ", "dbz.taskId": "0"}
    assert record.__dict__["connector_context"] == "[pg|task-0]"  # the filter saw it set
    assert kept.lines == [
        "DEBUG [pg|task-0] polled 3 %s records (kc_test_java.Task) [plugin-host-op-1]\n" + TRACE
    ]
    assert CONNECTOR_CONTEXT.get() == ""  # reset after the record


def test_levels_map_to_pythons(kept: _Keep) -> None:
    for level in ("TRACE", "DEBUG", "INFO", "WARN", "ERROR"):
        log_event(JavaLogEvent(1, level, "kc_test_java.Levels", "t", level.lower()))
    assert [r.levelname for r in kept.records] == ["TRACE", "DEBUG", "INFO", "WARNING", "ERROR"]


def test_a_new_logger_is_made_and_secrets_are_hidden_in_traces(kept: _Keep) -> None:
    log_event(NewJavaLogger("kc_test_java.made.here"))
    assert "kc_test_java.made.here" in logging.Logger.manager.loggerDict
    assert not kept.records
    remember_secret("s3cr3t-pw-for-host-log")
    log_event(
        JavaLogEvent(
            1, "ERROR", "kc_test_java.Jdbc", "t", "cannot connect with s3cr3t-pw-for-host-log",
            trace="java.sql.SQLException: password s3cr3t-pw-for-host-log refused",
        )
    )  # fmt: skip
    (record,) = kept.records
    assert "s3cr3t" not in record.getMessage() and "s3cr3t" not in (record.exc_text or "")
