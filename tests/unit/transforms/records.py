"""Record builders shared by the SMT tests."""

from __future__ import annotations

from typing import Any

from kconnect.api import Schema, SinkRecord, SourceRecord


def source(
    value_schema: Schema | None = None,
    value: Any = None,
    key_schema: Schema | None = None,
    key: Any = None,
    topic: str = "test",
    timestamp: int | None = None,
) -> SourceRecord:
    return SourceRecord(None, None, topic, 0, key_schema, key, value_schema, value, timestamp)


def sink(
    value_schema: Schema | None = None,
    value: Any = None,
    key_schema: Schema | None = None,
    key: Any = None,
    topic: str = "test",
    partition: int = 0,
    offset: int = 42,
    timestamp: int | None = None,
) -> SinkRecord:
    return SinkRecord(topic, partition, key_schema, key, value_schema, value, offset, timestamp)
