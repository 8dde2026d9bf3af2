"""The one transformation path of both task loops: the chain runs once over a batch, and a
failing stage hands its input to the retry/tolerance operator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kconnect.api import ConfigDef, DataException, RetriableException, SourceRecord, Transformation
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.config.connector_config import ToleranceType
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
    ToleranceExceededError,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.record_conversion import transform_batch
from kconnect.runtime.worker.transformation_chain import TransformationChain

CALLS: list[tuple[str, Any]] = []


class Tag(Transformation[Any]):
    """Appends ``tag`` to the value; on the value ``fail.on`` it raises RetriableException
    ``retries`` times and then succeeds, or (without ``retries``) raises DataException."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.tag = configs["tag"]
        self.fail_on = configs.get("fail.on")
        self.retries = configs.get("retries")

    def apply(self, record: Any) -> Any:
        CALLS.append((self.tag, record.value))
        if record.value == self.fail_on:
            if self.retries is None:
                raise DataException(f"{self.tag} refuses {record.value}")
            if int(self.retries) > 0:
                self.retries = str(int(self.retries) - 1)
                raise RetriableException("not yet")
        return record.new_record(
            record.topic,
            record.kafka_partition,
            record.key_schema,
            record.key,
            record.value_schema,
            f"{record.value}{self.tag}",
            record.timestamp,
        )

    def config(self) -> ConfigDef:
        return ConfigDef()


def chain(**second: str) -> TransformationChain:
    plugins = Plugins([PluginEntry("transformation", "com.example.Tag", Tag)])
    props = {
        "transforms": "a,b",
        "transforms.a.type": "com.example.Tag",
        "transforms.a.tag": "-a",
        "transforms.b.type": "com.example.Tag",
        "transforms.b.tag": "-b",
        **{f"transforms.b.{k.replace('_', '.')}": v for k, v in second.items()},
    }
    return TransformationChain.from_config(props, plugins)


def rec(value: str) -> SourceRecord:
    return SourceRecord({"p": 1}, {"o": 1}, "t", 0, None, None, None, value)


def contexts(records: list[SourceRecord]) -> tuple[dict[int, ProcessingContext], Any]:
    made: dict[int, ProcessingContext] = {}

    def ctx(i: int) -> ProcessingContext:
        return made.setdefault(i, ProcessingContext(source_record=records[i]))

    return made, ctx


def test_a_tolerated_failure_drops_only_that_record_and_nothing_runs_twice() -> None:
    CALLS.clear()
    records = [rec("x"), rec("bad"), rec("y")]
    op = RetryWithToleranceOperator(0, 60_000, ToleranceType.ALL, MockClock())
    made, ctx = contexts(records)
    out = transform_batch(chain(fail_on="bad-a"), op, ctx, records)
    assert [r.value if r is not None else None for r in out] == ["x-a-b", None, "y-a-b"]
    # every stage ran once per record: the batch is not transformed a second time
    assert CALLS == [("-a", "x"), ("-b", "x-a"), ("-a", "bad"), ("-b", "bad-a"), ("-a", "y"),
                     ("-b", "y-a")]  # fmt: skip
    assert made[1].failed and made[1].stage is Stage.TRANSFORMATION
    assert made[1].executing_class == "com.example.Tag"
    assert 0 not in made and 2 not in made  # good records need no error context
    assert op.total_failures == 1 and op.total_skipped == 1


def test_a_retriable_failure_is_retried_on_the_stage_input_only() -> None:
    CALLS.clear()
    records = [rec("bad")]
    clock = MockClock()
    op = RetryWithToleranceOperator(10_000, 60_000, ToleranceType.NONE, clock)
    _, ctx = contexts(records)
    out = transform_batch(chain(fail_on="bad-a", retries="2"), op, ctx, records)
    # the batch attempt is attempt 1; the operator retries stage b alone (never stage a)
    assert CALLS == [("-a", "bad"), ("-b", "bad-a"), ("-b", "bad-a"), ("-b", "bad-a")]
    assert clock.sleeps == [300, 600]
    assert [r.value for r in out] == ["bad-a-b"]
    assert op.total_retries == 2 and op.total_failures == 0


def test_tolerance_none_fails_the_batch_naming_the_stage() -> None:
    records = [rec("ok"), rec("bad")]
    op = RetryWithToleranceOperator(0, 60_000, ToleranceType.NONE, MockClock())
    _, ctx = contexts(records)
    with pytest.raises(
        ToleranceExceededError, match=r"stage TRANSFORMATION, class com\.example\.Tag"
    ):
        transform_batch(chain(fail_on="bad-a"), op, ctx, records)


class _Message:
    def __init__(self, headers: list[tuple[str, bytes | None]] | None) -> None:
        self._headers = headers

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return self._headers


def test_a_record_the_batch_call_refuses_gets_its_headers_on_the_per_record_path() -> None:
    """Java hands the record's Kafka headers to ``toConnectData``: a converter that finds the
    schema id in a header (Confluent 8) must see them when the batch call cannot do it."""
    from kconnect.runtime.worker.record_conversion import convert_column, raw_headers

    msgs = [_Message(None), _Message([("__value_schema_id", b"\x01id"), ("n", None)])]
    seen: list[Any] = []

    def batch(topic: str, values: list[Any]) -> list[Any]:
        raise DataException("no magic byte")

    def one(topic: str, value: Any, headers: Any = None) -> Any:
        seen.append(headers)
        return value

    op = RetryWithToleranceOperator(0, 60_000, ToleranceType.NONE, MockClock())
    records = [rec("a"), rec("b")]
    _, ctx = contexts(records)
    out = convert_column(
        op, ctx, {"t": [0, 1]}, ["a", "b"], batch, one, Stage.VALUE_CONVERTER, object(),
        [None, None], lambda i: raw_headers(msgs[i]),
    )  # fmt: skip
    assert out == ["a", "b"]
    assert seen[0] is None
    header = seen[1].last_with_name("__value_schema_id")
    assert header.value == b"\x01id"
    assert seen[1].last_with_name("n").value is None
