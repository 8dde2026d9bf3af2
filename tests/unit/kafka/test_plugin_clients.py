"""kconnect.api.kafka_clients' implementation: found through its entry point, built from Java
client property names (unknown ones dropped with one warning naming them). Building a client
connects to nothing, so no broker is needed; tests/integration/test_mirror_*.py use the
clients against real clusters."""

from __future__ import annotations

import logging

import pytest

from kconnect.api.kafka_clients import (
    Admin,
    Consumer,
    KafkaClientException,
    KafkaClients,
    Producer,
    default_kafka_clients,
)
from kconnect.kafka.clients.plugin_clients import ConfluentKafkaClients


def test_the_entry_point_gives_kconnects_implementation_once() -> None:
    clients = default_kafka_clients()
    assert isinstance(clients, ConfluentKafkaClients) and isinstance(clients, KafkaClients)
    assert default_kafka_clients() is clients


def test_clients_take_java_property_names_and_drop_unknown_ones(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clients = ConfluentKafkaClients()
    props = {
        "bootstrap.servers": "127.0.0.1:1",
        "client.id": "A->B|MirrorSourceConnector|replication-consumer",
        "poll.timeout.ms": "1000",  # what MM2's consumer.poll.timeout.ms leaves behind
        "max.poll.records": "10",  # Java-only: honoured by the consumer, not passed on
        "key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
    }
    with caplog.at_level(logging.WARNING, logger="kconnect.kafka.clients.plugin_clients"):
        consumer = clients.consumer(props)
    assert isinstance(consumer, Consumer)
    warned = [r.getMessage() for r in caplog.records]
    assert any("not used: poll.timeout.ms" in m for m in warned), warned
    consumer.close()
    consumer.close()  # idempotent
    producer = clients.producer({"bootstrap.servers": "127.0.0.1:1", "linger.ms": "5"})
    assert isinstance(producer, Producer)
    producer.close(0.1)
    assert isinstance(clients.admin({"bootstrap.servers": "127.0.0.1:1"}), Admin)


def test_a_bad_value_raises_naming_the_property() -> None:
    with pytest.raises(KafkaClientException, match=r'Invalid value .*"batch.num.messages"'):
        ConfluentKafkaClients().producer({"bootstrap.servers": "x:1", "batch.num.messages": "a"})


def test_an_unreachable_cluster_times_out_as_a_kafka_client_exception() -> None:
    admin = ConfluentKafkaClients().admin(
        {"bootstrap.servers": "127.0.0.1:1", "socket.connection.setup.timeout.ms": "1000"}
    )
    with pytest.raises(KafkaClientException) as e:
        admin.cluster_id(1.0)
    assert e.value.error in ("TRANSPORT", "TIMED_OUT", "ALL_BROKERS_DOWN")
