"""Debezium's heartbeat records: due every interval (never when off), on partition 0 of the
heartbeat topic with the ServerNameKey key, the Heartbeat value and the given offset."""

from __future__ import annotations

from kconnect.connectors.debezium.common.heartbeat import (
    HEARTBEAT_KEY_SCHEMA,
    HEARTBEAT_VALUE_SCHEMA,
    Heartbeat,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_due_every_interval_with_the_offset() -> None:
    clock = Clock()
    beat = Heartbeat("__debezium-heartbeat.srv", "srv", 5.0, clock, lambda: 1234)
    assert beat.enabled and not beat.due()
    clock.now += 5.0
    assert beat.due()
    record = beat.record({"server": "srv"}, {"lsn_proc": 7, "lsn": 7})
    assert record is not None
    assert (record.topic, record.kafka_partition) == ("__debezium-heartbeat.srv", 0)
    assert record.key_schema is HEARTBEAT_KEY_SCHEMA and record.key.get("serverName") == "srv"
    assert HEARTBEAT_KEY_SCHEMA.name == "io.debezium.connector.common.ServerNameKey"
    assert record.value_schema is HEARTBEAT_VALUE_SCHEMA and record.value.get("ts_ms") == 1234
    assert HEARTBEAT_VALUE_SCHEMA.name == "io.debezium.connector.common.Heartbeat"
    assert record.source_partition == {"server": "srv"} and record.source_offset == {
        "lsn_proc": 7,
        "lsn": 7,
    }
    assert not beat.due()


def test_no_offset_no_record_and_off_means_never() -> None:
    clock = Clock()
    beat = Heartbeat("t", "srv", 1.0, clock)
    clock.now += 2
    assert beat.due() and beat.record({"server": "srv"}, None) is None and not beat.due()
    off = Heartbeat("t", "srv", 0.0, clock)
    clock.now += 1000
    assert not off.enabled and not off.due()
