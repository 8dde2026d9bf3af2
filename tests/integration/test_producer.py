"""kconnect's ``Producer`` on a real broker: what each argument of ``produce`` becomes.

``Producer.produce`` passes every argument to confluent-kafka by position (its keyword form
costs as much again as the rest of the call), so these tests pin the mapping: key, value,
an explicit partition, a timestamp and headers land on the record; the delivery callback
gets the record's metadata; without a partition the key's murmur2 partition is used (Java's
default partitioner), without a timestamp the send time, and without a callback nothing is
called.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from kconnect.kafka.clients.partitioner import partition_for_key
from kconnect.kafka.clients.producer import Producer

pytestmark = pytest.mark.kafka


def _read(bootstrap: str, topic: str, partitions: int, count: int) -> list[Any]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"g-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        got: list[Any] = []
        deadline = time.monotonic() + 30
        while len(got) < count and time.monotonic() < deadline:
            got += [m for m in consumer.consume(count, 1.0) if m.error() is None]
        return got
    finally:
        consumer.close()


def test_every_argument_reaches_the_record(kafka_bootstrap: str, topic_factory: Any) -> None:
    topic = topic_factory(partitions=3)
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "client.id": "producer-test"})
    # by key: records of different partitions are reported in no particular order
    reports: dict[bytes, tuple[Any, str, int, int, tuple[int, int]]] = {}

    def on_delivery(err: Any, msg: Any) -> None:
        reports[msg.key()] = (err, msg.topic(), msg.partition(), msg.offset(), msg.timestamp())

    before = int(time.time() * 1000)
    producer.produce(topic, b"v1", b"k1", 2, 1_700_000_000_123, [("h", b"x"), ("n", None)],
                     on_delivery)  # fmt: skip
    producer.produce(topic, b"v2", b"k2", None, None, None, on_delivery)
    producer.produce(topic, None, b"k3", -1, 0, [], None)  # no callback: none is called
    assert producer.flush(30) == 0
    after = int(time.time() * 1000)

    assert set(reports) == {b"k1", b"k2"}, reports
    assert reports[b"k1"] == (None, topic, 2, 0, (1, 1_700_000_000_123))
    err, t, p, _offset, (ts_type, ts) = reports[b"k2"]
    assert (err, t, p, ts_type) == (None, topic, partition_for_key(b"k2", 3), 1)
    assert before <= ts <= after

    got = {m.key(): m for m in _read(kafka_bootstrap, topic, 3, 3)}
    assert set(got) == {b"k1", b"k2", b"k3"}
    first = got[b"k1"]
    assert (first.value(), first.partition(), first.timestamp()) == (
        b"v1",
        2,
        (1, 1_700_000_000_123),
    )
    assert first.headers() == [("h", b"x"), ("n", None)]
    assert got[b"k2"].headers() is None and got[b"k2"].value() == b"v2"
    third = got[b"k3"]
    assert third.value() is None and third.partition() == partition_for_key(b"k3", 3)
    assert before <= third.timestamp()[1] <= after
    producer.close(5)


def test_a_partition_added_after_the_producer_started_is_written(
    kafka_bootstrap: str, topic_factory: Any
) -> None:
    """As Java's producer waits for metadata that has the partition (``max.block.ms``),
    kconnect's refreshes its metadata when librdkafka's cached copy lacks it, instead of
    failing with "Unknown partition" until the next periodic refresh (5 minutes)."""
    from confluent_kafka.admin import AdminClient, NewPartitions

    topic = topic_factory(partitions=1)
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "client.id": "producer-test"})
    got: list[tuple[Any, int]] = []
    producer.produce(
        topic, b"before", partition=0, on_delivery=lambda e, m: got.append((e, m.partition()))
    )
    assert producer.flush(30) == 0
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    admin.create_partitions([NewPartitions(topic, 2)])[topic].result(30)
    producer.produce(
        topic, b"after", partition=1, on_delivery=lambda e, m: got.append((e, m.partition()))
    )
    assert producer.flush(30) == 0
    assert got == [(None, 0), (None, 1)]
    assert [(m.partition(), m.value()) for m in _read(kafka_bootstrap, topic, 2, 2)] in (
        [(0, b"before"), (1, b"after")],
        [(1, b"after"), (0, b"before")],
    )
