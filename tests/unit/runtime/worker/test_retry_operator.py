import logging
import re

import pytest

from kconnect.api.errors import ConnectException, DataException, RetriableException
from kconnect.api.records import SourceRecord, TimestampType
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.connector_config import ConnectorConfig, ToleranceType
from kconnect.runtime.worker.errors.reporters import LogReporter
from kconnect.runtime.worker.errors.retry_operator import (
    ErrorReporter,
    ProcessingContext,
    RawRecord,
    RetryWithToleranceOperator,
    ToleranceExceededError,
)
from kconnect.runtime.worker.errors.stage import (
    Stage,
    exception_class_name,
    executing_class_name,
)


def connector_config(**settings: str) -> ConnectorConfig:
    return ConnectorConfig({"name": "conn", "connector.class": "Sink", **settings})


RAW = RawRecord("t", 2, 17, 1000, TimestampType.CREATE_TIME, b"k", b"v", None)


class Recording(ErrorReporter):
    def __init__(self):
        self.contexts = []

    def report(self, context):
        self.contexts.append((context.stage, context.executing_class, context.error))


class Flaky:
    def __init__(self, failures, exc=RetriableException):
        self.failures = failures
        self.calls = 0
        self.exc = exc

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.exc(f"boom {self.calls}")
        return "ok"


def test_backoff_doubles_from_300ms_and_caps_random_below_max() -> None:
    clock = MockClock()
    op = RetryWithToleranceOperator(retry_timeout_ms=-1, max_delay_ms=1000, clock=clock)
    assert op.backoff_delay_ms(1, None) == 300
    assert op.backoff_delay_ms(2, None) == 600
    for _ in range(20):
        assert 0 <= op.backoff_delay_ms(3, None) < 1000  # 1200 > max -> random in [0, max)
    now = clock.monotonic_ms()
    assert op.backoff_delay_ms(2, now + 250) == 250  # capped by the deadline


def test_retries_until_success_within_timeout() -> None:
    clock = MockClock()
    op = RetryWithToleranceOperator(retry_timeout_ms=10_000, max_delay_ms=60_000, clock=clock)
    flaky = Flaky(3)
    assert op.execute(ProcessingContext(RAW), flaky, Stage.TASK_PUT, object) == "ok"
    assert flaky.calls == 4
    assert clock.sleeps == [300, 600, 1200]
    assert op.total_retries == 3 and op.total_failures == 0


def test_no_retry_with_zero_timeout_and_tolerance_none_fails() -> None:
    op = RetryWithToleranceOperator(0, 60000, ToleranceType.NONE, MockClock())
    rep = Recording()
    op.reporters.append(rep)
    with pytest.raises(
        ToleranceExceededError, match=re.escape("topic 't', partition 2, offset 17")
    ) as ei:
        op.execute(ProcessingContext(RAW), Flaky(1), Stage.KEY_CONVERTER, Flaky)
    assert str(ei.value).startswith("Tolerance exceeded in error handler")
    assert isinstance(ei.value.__cause__, RetriableException)
    assert rep.contexts[0][0] is Stage.KEY_CONVERTER


def test_retries_exhausted_then_tolerated_with_all() -> None:
    clock = MockClock()
    op = RetryWithToleranceOperator(1000, 60000, ToleranceType.ALL, clock)
    flaky = Flaky(100)
    assert op.execute(ProcessingContext(RAW), flaky, Stage.TASK_PUT, object) is None
    assert sum(clock.sleeps) == pytest.approx(1000)  # 300 + 600 + 100 (deadline)
    assert op.total_skipped == 1


def test_converter_stage_tolerates_any_exception_others_only_retriable() -> None:
    op = RetryWithToleranceOperator(0, 60000, ToleranceType.ALL, MockClock())
    assert (
        op.execute(ProcessingContext(RAW), Flaky(1, DataException), Stage.VALUE_CONVERTER, object)
        is None
    )
    assert (
        op.execute(ProcessingContext(RAW), Flaky(1, ValueError), Stage.TRANSFORMATION, object)
        is None
    )
    with pytest.raises(ConnectException, match="Unhandled exception in error handler"):
        op.execute(ProcessingContext(RAW), Flaky(1, ValueError), Stage.TASK_PUT, object)


def test_failed_context_short_circuits() -> None:
    op = RetryWithToleranceOperator(0, 60000, ToleranceType.ALL, MockClock())
    ctx = ProcessingContext(RAW)
    op.execute(ctx, Flaky(1, DataException), Stage.KEY_CONVERTER, object)
    later = Flaky(0)
    assert op.execute(ctx, later, Stage.VALUE_CONVERTER, object) is None
    assert later.calls == 0


def test_class_names() -> None:
    assert (
        exception_class_name(DataException("x")) == "org.apache.kafka.connect.errors.DataException"
    )
    assert exception_class_name(ValueError("x")) == "ValueError"
    assert executing_class_name(Flaky) == f"{__name__}.Flaky"

    class WithJava:
        __kconnect_class_name__ = "org.apache.kafka.connect.json.JsonConverter"

    assert executing_class_name(WithJava()) == "org.apache.kafka.connect.json.JsonConverter"


def test_log_reporter_message(caplog) -> None:
    tid = ConnectorTaskId("conn", 0)
    rep = LogReporter(
        tid,
        connector_config(**{"errors.log.enable": "true", "errors.log.include.messages": "true"}),
    )
    ctx = ProcessingContext(
        RAW, stage=Stage.VALUE_CONVERTER, executing_class="a.B", error=DataException("bad")
    )
    assert rep.message(ctx) == (
        "Error encountered in task conn-0. Executing stage 'VALUE_CONVERTER' with class "
        "'a.B', where consumed record is {topic='t', partition=2, offset=17, timestamp=1000, "
        "timestampType=CreateTime}."
    )
    with caplog.at_level(logging.ERROR):
        rep.report(ctx)
    assert "Executing stage 'VALUE_CONVERTER'" in caplog.text
    src = ProcessingContext(
        source_record=SourceRecord({"p": 1}, {"o": 1}, "t"),
        stage=Stage.TRANSFORMATION,
        executing_class="x.Y",
    )
    assert ", where source record is = SourceRecord{" in rep.message(src)
    quiet = LogReporter(tid, connector_config(**{"errors.log.enable": "true"}))
    assert quiet.message(ctx).endswith("with class 'a.B'.")


def test_from_connector_config() -> None:
    op = RetryWithToleranceOperator.from_connector_config(
        connector_config(
            **{
                "errors.retry.timeout": "-1",
                "errors.retry.delay.max.ms": "5",
                "errors.tolerance": "all",
            }
        )
    )
    assert (op.retry_timeout_ms, op.max_delay_ms, op.tolerance) == (-1, 5, ToleranceType.ALL)
    with pytest.raises(ConnectException, match=r"errors\.tolerance"):
        RetryWithToleranceOperator.from_connector_config(
            connector_config(**{"errors.tolerance": "some"})
        )


def test_stacktrace_of_an_exception_that_was_never_raised_shows_the_reporting_stack() -> None:
    from kconnect.runtime.worker.errors.stage import stacktrace

    def report_from_sink_task() -> str:
        return stacktrace(ValueError("value too long"))

    text = report_from_sink_task()
    assert text.startswith("ValueError: value too long\n")
    assert "report_from_sink_task" in text
