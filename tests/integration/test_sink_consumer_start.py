"""Where a sink consumer starts reading a newly assigned partition, on a real broker.

kconnect's consumer resolves the start positions itself on an eager assignment (the group's
committed offset, else the ``auto.offset.reset`` end: what Java's consumer does) instead of
leaving them to librdkafka, which waits 100 ms before looking up a partition without a
committed offset. These tests pin the positions: committed offsets win, the reset policy
applies where the group has none, a position chosen by the assignment callback wins over
both, and ``none`` still fails.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from confluent_kafka import Producer

from kconnect.api.records import TopicPartition
from kconnect.kafka.clients.consumer import Consumer

pytestmark = pytest.mark.kafka


def _produce(bootstrap: str, topic: str, first: int, count: int, partitions: int = 1) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(first, first + count):
        producer.produce(topic, str(i).encode(), partition=i % partitions)
    assert producer.flush(30) == 0


@contextmanager
def _consumer(bootstrap: str, group: str | None = None, **extra: str) -> Iterator[Consumer]:
    """A consumer of ``group`` (a fresh one by default), closed at the end."""
    props: dict[str, object] = {
        "bootstrap.servers": bootstrap,
        "group.id": group or f"g-{uuid.uuid4().hex}",
        "enable.auto.commit": "false",
        "auto.offset.reset": "earliest",
        **extra,
    }
    consumer = Consumer(props)
    try:
        yield consumer
    finally:
        consumer.close()


def _first_values(
    consumer: Consumer, want: int, timeout_s: float = 30.0
) -> tuple[list[int], list[Any]]:
    """The first ``want`` message values (as ints) and any error events seen meanwhile."""
    values: list[int] = []
    errors: list[Any] = []
    deadline = time.monotonic() + timeout_s
    while len(values) < want and time.monotonic() < deadline:
        for m in consumer.consume(100, 0.2):
            if m.error() is not None:
                errors.append(m.error())
            else:
                values.append(int(m.value()))
        if errors:
            break
    return values, errors


def _subscribe(
    consumer: Consumer, topic: str, starts: dict[TopicPartition, int] | None = None
) -> list[list[TopicPartition]]:
    assigned: list[list[TopicPartition]] = []

    def on_assign(parts: list[TopicPartition]) -> dict[TopicPartition, int] | None:
        assigned.append(parts)
        return starts

    consumer.subscribe([topic], None, on_assign, lambda parts: None)
    return assigned


def test_without_committed_offsets_earliest_starts_at_the_beginning(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    _produce(kafka_bootstrap, unique_topic, 0, 10)
    with _consumer(kafka_bootstrap) as consumer:
        assigned = _subscribe(consumer, unique_topic)
        values, errors = _first_values(consumer, 10)
        assert errors == [] and values == list(range(10))
        assert assigned == [[TopicPartition(unique_topic, 0)]]


def test_committed_offsets_win_over_the_reset_policy(
    kafka_bootstrap: str, topic_factory: Any
) -> None:
    topic = topic_factory(partitions=2)
    _produce(kafka_bootstrap, topic, 0, 20, partitions=2)  # even values on 0, odd on 1
    group = f"g-{uuid.uuid4().hex}"
    with _consumer(kafka_bootstrap, group) as first:
        _subscribe(first, topic)
        _first_values(first, 1)
        # partition 0 resumes at offset 3 (value 6); partition 1 has no committed offset
        first.commit({TopicPartition(topic, 0): 3}, asynchronous=False)
    with _consumer(kafka_bootstrap, group) as second:
        _subscribe(second, topic)
        values, errors = _first_values(second, 17)
        assert errors == []
        assert sorted(v for v in values if v % 2 == 0) == [6, 8, 10, 12, 14, 16, 18]
        assert sorted(v for v in values if v % 2 == 1) == list(range(1, 20, 2))


def test_latest_starts_at_the_end(kafka_bootstrap: str, unique_topic: str) -> None:
    _produce(kafka_bootstrap, unique_topic, 0, 5)
    with _consumer(kafka_bootstrap, **{"auto.offset.reset": "latest"}) as consumer:
        assigned = _subscribe(consumer, unique_topic)
        deadline = time.monotonic() + 30
        while not assigned and time.monotonic() < deadline:
            consumer.consume(10, 0.2)
        assert assigned
        # the end is resolved at assignment: only what comes after it is read
        pos: dict[TopicPartition, int | None] = {}
        while time.monotonic() < deadline:
            pos = consumer.position([TopicPartition(unique_topic, 0)])
            if pos[TopicPartition(unique_topic, 0)] is not None:
                break
            consumer.consume(10, 0.1)
        _produce(kafka_bootstrap, unique_topic, 5, 3)
        values, errors = _first_values(consumer, 3)
        assert errors == [] and values == [5, 6, 7]


def test_a_start_chosen_by_the_assignment_callback_wins(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    _produce(kafka_bootstrap, unique_topic, 0, 10)
    with _consumer(kafka_bootstrap) as consumer:
        _subscribe(consumer, unique_topic, {TopicPartition(unique_topic, 0): 7})
        values, errors = _first_values(consumer, 3)
        assert errors == [] and values == [7, 8, 9]


def test_reset_none_without_committed_offsets_still_fails(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    _produce(kafka_bootstrap, unique_topic, 0, 3)
    with _consumer(kafka_bootstrap, **{"auto.offset.reset": "none"}) as consumer:
        _subscribe(consumer, unique_topic)
        values, errors = _first_values(consumer, 1, timeout_s=20)
        assert values == []
        assert errors, "auto.offset.reset=none without a committed offset must raise an error"
