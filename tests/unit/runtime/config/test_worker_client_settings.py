"""Top-level Kafka client settings of the worker file reach the clients Java gives them to
(the worker's own clients and the connectors' admin clients), translated for librdkafka, and
librdkafka 2.x accepts what they become."""

from __future__ import annotations

import logging

import confluent_kafka
import pytest

from kconnect.kafka.clients.client_config import to_librdkafka
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.worker_config import StandaloneConfig

BASE = {
    "bootstrap.servers": "127.0.0.1:1",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}
DISTRIBUTED = {
    **BASE,
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
}
SETTINGS = {
    "client.dns.lookup": "resolve_canonical_bootstrap_servers_only",
    "retry.backoff.max.ms": "2500",
    "metadata.recovery.strategy": "none",
    "metadata.recovery.rebootstrap.trigger.ms": "120000",
    "send.buffer.bytes": "262144",
    "receive.buffer.bytes": "-1",
    "socket.connection.setup.timeout.ms": "7000",
}
EXPECTED = {
    "client.dns.lookup": "resolve_canonical_bootstrap_servers_only",
    "retry.backoff.max.ms": "2500",
    "metadata.recovery.strategy": "none",
    "metadata.recovery.rebootstrap.trigger.ms": "120000",
    "socket.send.buffer.bytes": "262144",
    "socket.receive.buffer.bytes": 0,  # Java's -1: the OS's size
    "socket.connection.setup.timeout.ms": "7000",
}


def _librdkafka_accepts(config: dict[str, object]) -> None:
    quiet = logging.getLogger("test.librdkafka")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    producer = confluent_kafka.Producer({**config, "logger": quiet})
    producer.flush(0)


def test_the_worker_clients_get_the_top_level_client_settings() -> None:
    config = DistributedConfig({**DISTRIBUTED, **SETTINGS})
    librdkafka = to_librdkafka(config.internal_client_props())
    assert {k: librdkafka.get(k) for k in EXPECTED} == EXPECTED
    _librdkafka_accepts(librdkafka)


def test_connector_admin_clients_get_them_then_admin_prefixed_ones() -> None:
    config = DistributedConfig({**DISTRIBUTED, **SETTINGS, "admin.retry.backoff.max.ms": "900"})
    admin = config.admin_props()
    assert admin["client.dns.lookup"] == "resolve_canonical_bootstrap_servers_only"
    assert admin["retry.backoff.max.ms"] == "900"
    assert admin["socket.send.buffer.bytes"] == "262144"


def test_task_producers_and_consumers_take_only_their_prefix() -> None:
    config = DistributedConfig(
        {**DISTRIBUTED, **SETTINGS, "producer.client.dns.lookup": "use_all_dns_ips"}
    )
    assert config.producer_props()["client.dns.lookup"] == "use_all_dns_ips"
    assert "client.dns.lookup" not in config.consumer_props()
    assert "socket.send.buffer.bytes" not in config.producer_props()


def test_unset_settings_are_not_forwarded() -> None:
    props = DistributedConfig(DISTRIBUTED).internal_client_props()
    assert not set(SETTINGS) & set(props)


def test_standalone_admin_clients_get_client_dns_lookup() -> None:
    config = StandaloneConfig(
        {**BASE, "offset.storage.file.filename": "/tmp/x",
         "client.dns.lookup": "resolve_canonical_bootstrap_servers_only"}
    )  # fmt: skip
    assert config.admin_props()["client.dns.lookup"] == "resolve_canonical_bootstrap_servers_only"


@pytest.mark.parametrize("key", ["send.buffer.bytes", "receive.buffer.bytes"])
def test_minus_one_buffer_is_accepted_as_in_java(key: str) -> None:
    config = DistributedConfig({**DISTRIBUTED, key: "-1"})
    assert config.get_int(key) == -1
    librdkafka = to_librdkafka(config.internal_client_props())
    assert librdkafka["socket." + key] == 0
    _librdkafka_accepts(librdkafka)


def test_producer_overrides_with_minus_one_buffers_are_translated_too() -> None:
    assert to_librdkafka({"send.buffer.bytes": -1})["socket.send.buffer.bytes"] == 0
    assert to_librdkafka({"send.buffer.bytes": 1024})["socket.send.buffer.bytes"] == 1024
