"""The local stack serves real clients: Kafka through confluent-kafka, PostgreSQL through psycopg."""

from __future__ import annotations

import os
import time
import uuid

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, ConfigResource

from kconnect.testing.services import TopicFactory


@pytest.mark.kafka
def test_compacted_topic_has_cleanup_policy_compact(
    topic_factory: TopicFactory, kafka_bootstrap: str
) -> None:
    topic = topic_factory(partitions=3, config={"cleanup.policy": "compact"})
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})

    md = admin.list_topics(topic=topic, timeout=10)
    assert len(md.topics[topic].partitions) == 3

    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    configs = admin.describe_configs([resource])[resource].result(timeout=10)
    assert configs["cleanup.policy"].value == "compact"


@pytest.mark.kafka
def test_keyed_records_with_headers_round_trip(
    topic_factory: TopicFactory, kafka_bootstrap: str
) -> None:
    topic = topic_factory(partitions=2)
    sent = [
        (b"key-a", b"value-1", 0, [("h1", b"x"), ("h2", b"")]),
        (b"key-b", b"value-2", 1, [("h1", b"y")]),
        (b"key-a", b"value-3", 0, []),
        (b"key-c", None, 1, [("trace", uuid.uuid4().bytes)]),  # a tombstone
    ]
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for key, value, partition, headers in sent:
        producer.produce(topic, key=key, value=value, partition=partition, headers=headers)
    assert producer.flush(30) == 0

    consumer = Consumer(
        {
            "bootstrap.servers": kafka_bootstrap,
            "group.id": f"g-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    received = []
    deadline = time.monotonic() + 30
    try:
        while len(received) < len(sent) and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            received.append(msg)
    finally:
        consumer.close()

    assert len(received) == len(sent)
    got = {(m.key(), m.value(), m.partition(), tuple(m.headers() or ())) for m in received}
    want = {(k, v, p, tuple(h)) for k, v, p, h in sent}
    assert got == want
    # Order is kept within a partition.
    for partition in (0, 1):
        values = [m.value() for m in received if m.partition() == partition]
        assert values == [v for _, v, p, _ in sent if p == partition]
        offsets = [m.offset() for m in received if m.partition() == partition]
        assert offsets == sorted(offsets) and offsets[0] == 0


@pytest.mark.postgres
def test_postgres_create_insert_select(pg_dsn: str) -> None:
    psycopg = pytest.importorskip("psycopg")
    table = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f"CREATE TABLE {table} (id int PRIMARY KEY, name text NOT NULL, amount numeric(10,2))"
        )
        try:
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {table} (id, name, amount) VALUES (%s, %s, %s)",
                    [(1, "alice", "10.50"), (2, "bob", None), (3, "zoë", "-0.01")],
                )
            rows = conn.execute(
                f"SELECT id, name, amount::text FROM {table} ORDER BY id"
            ).fetchall()
            assert rows == [(1, "alice", "10.50"), (2, "bob", None), (3, "zoë", "-0.01")]
            if "KCONNECT_PG_DSN" not in os.environ:
                who = conn.execute("SELECT current_database(), current_user").fetchone()
                assert who == ("kcdb", "kcuser")
        finally:
            conn.execute(f"DROP TABLE {table}")
