"""The group member connects with the worker's security and network settings, as Java's
WorkerGroupMember does."""

from __future__ import annotations

from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.herder.group_member import _network_settings, _security_props

BASE = {
    "bootstrap.servers": "x:1", "group.id": "g", "config.storage.topic": "c",
    "offset.storage.topic": "o", "status.storage.topic": "s",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}  # fmt: skip


def test_network_settings_given_in_the_worker_file_reach_kafka_python() -> None:
    config = DistributedConfig({**BASE, "reconnect.backoff.max.ms": "2000",
                                "metadata.max.age.ms": "1000", "producer.linger.ms": "5"})  # fmt: skip
    assert _network_settings(config) == {
        "reconnect_backoff_max_ms": 2000,
        "metadata_max_age_ms": 1000,
    }
    assert _network_settings(DistributedConfig(BASE)) == {}


def test_top_level_security_settings_and_not_the_task_clients() -> None:
    config = DistributedConfig({**BASE, "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
                                "producer.security.protocol": "SSL",
                                "ssl.truststore.location": "/t.jks"})  # fmt: skip
    assert _security_props(config) == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
        "ssl.truststore.location": "/t.jks",
    }  # fmt: skip
