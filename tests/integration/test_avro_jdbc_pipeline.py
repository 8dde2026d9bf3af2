"""The seed walkthrough's pipeline with Confluent's AvroConverter in place of JsonConverter:
PostgreSQL table -> JDBC source -> Kafka (Avro, schemas in the registry) -> JDBC sink -> table,
through a real ``kconnect standalone`` worker, for every PostgreSQL type the JSON pipeline
covers; and a record that is not Avro going to the dead letter queue with Connect's error
headers and Confluent's message.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from tests.integration.test_jdbc_pipeline import (
    Standalone,
    _count,
    _name,
    _sink,
    every_type_round_trip,
)
from tests.integration.test_jdbc_pipeline import db as db  # the fixture (tracks created tables)
from tests.integration.worker_support import read_topic

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.registry, pytest.mark.slow]

AVRO = "io.confluent.connect.avro.AvroConverter"


@pytest.fixture
def avro_worker(
    tmp_path: Path, kafka_bootstrap: str, schema_registry_url: str
) -> Iterator[Standalone]:
    converters = (
        f"key.converter={AVRO}\nvalue.converter={AVRO}\n"
        f"key.converter.schema.registry.url={schema_registry_url}\n"
        f"value.converter.schema.registry.url={schema_registry_url}\n"
    )
    w = Standalone(tmp_path, kafka_bootstrap, converters)
    w.start()
    yield w
    w.stop(signal.SIGKILL)


def test_every_type_round_trips_through_avro(avro_worker: Standalone, db: Any, pg_dsn: str) -> None:
    every_type_round_trip(avro_worker, db, pg_dsn)


def test_a_record_that_is_not_avro_goes_to_the_dead_letter_queue(
    avro_worker: Standalone, db: Any, pg_dsn: str, kafka_bootstrap: str
) -> None:
    topic = _name("avro_dlq_src")
    table = topic
    dlq = _name("avro-dlq")
    db.created += [table]
    db.execute(f'CREATE TABLE "{table}" (id integer PRIMARY KEY, item varchar(20))')
    sink = _name("avro-dlq-sink")
    avro_worker.put(
        sink,
        _sink(
            pg_dsn,
            topic,
            **{
                "errors.tolerance": "all",
                "errors.deadletterqueue.topic.name": dlq,
                "errors.deadletterqueue.topic.replication.factor": "1",
                "errors.deadletterqueue.context.headers.enable": "true",
                "auto.create": "false",
            },
        ),
    )
    avro_worker.running(sink)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    producer.produce(topic, value=b'{"id": 1, "item": "not avro"}', key=None)
    producer.flush(30)
    (msg,) = read_topic(kafka_bootstrap, dlq, 1, timeout=60)
    headers = {k: (v or b"").decode() for k, v in msg.headers() or []}
    assert msg.value() == b'{"id": 1, "item": "not avro"}'
    assert headers["__connect.errors.stage"] == "VALUE_CONVERTER"
    assert headers["__connect.errors.class.name"] == AVRO
    assert (
        headers["__connect.errors.exception.class.name"]
        == "org.apache.kafka.connect.errors.DataException"
    )
    assert headers["__connect.errors.exception.message"] == (
        f"Failed to deserialize data for topic {topic} to Avro:"
    )
    assert "Unknown magic byte" in headers["__connect.errors.exception.stacktrace"]
    assert headers["__connect.errors.topic"] == topic
    assert _count(db, table) == 0
