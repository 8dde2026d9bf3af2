"""DistributedConfig: Kafka's distributed keys, defaults, validators and internal topic specs."""

from __future__ import annotations

import pytest

from kconnect.api.errors import ConfigException
from kconnect.runtime.config.distributed_config import DistributedConfig

BASE = {
    "bootstrap.servers": "broker:9092",
    "group.id": "connect-cluster",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "config.storage.topic": "connect-configs",
    "offset.storage.topic": "connect-offsets",
    "status.storage.topic": "connect-status",
}


def cfg(**extra: str) -> DistributedConfig:
    return DistributedConfig({**BASE, **{k.replace("_", "."): v for k, v in extra.items()}})


def test_defaults_match_kafka() -> None:
    c = cfg()
    assert c.group_id == "connect-cluster"
    assert c.session_timeout_ms == 10000
    assert c.heartbeat_interval_ms == 3000
    assert c.rebalance_timeout_ms == 60000
    assert c.worker_sync_timeout_ms == 3000
    assert c.worker_unsync_backoff_ms == 300000
    assert c.scheduled_rebalance_max_delay_ms == 300000
    assert c.connect_protocol == "sessioned"
    assert c.key_ttl_ms == 3600000
    assert c.key_generation_algorithm == "HmacSHA256"
    assert c.signature_algorithm == "HmacSHA256"
    assert c.verification_algorithms == ["HmacSHA256"]
    assert c.key_size_bytes() == 32
    assert c.exactly_once_source_support == "disabled"
    assert c.get("request.timeout.ms") == 40000
    assert c.get("metadata.max.age.ms") == 300000
    assert c.get("inter.worker.key.size") is None
    assert c.transactional_producer_id() == "connect-cluster-connect-cluster"


def test_topic_specs_use_kafka_defaults_and_force_compaction() -> None:
    c = cfg()
    offsets, configs, statuses = c.offset_topic_spec(), c.config_topic_spec(), c.status_topic_spec()
    assert (offsets.name, offsets.partitions, offsets.replication_factor) == (
        "connect-offsets",
        25,
        3,
    )
    assert (configs.name, configs.partitions, configs.replication_factor) == (
        "connect-configs",
        1,
        3,
    )
    assert (statuses.partitions, statuses.replication_factor) == (5, 3)
    for spec in (offsets, configs, statuses):
        assert spec.config == {"cleanup.policy": "compact"}


def test_topic_settings_pass_through_and_policy_or_partitions_are_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    c = DistributedConfig(
        {
            **BASE,
            "offset.storage.min.insync.replicas": "2",
            "offset.storage.cleanup.policy": "delete",
            "config.storage.partitions": "4",
            "config.storage.replication.factor": "-1",
            "status.storage.partitions": "-1",
        }
    )
    assert c.offset_topic_spec().config == {"min.insync.replicas": "2", "cleanup.policy": "compact"}
    assert c.config_topic_spec().partitions == 1
    assert c.config_topic_spec().replication_factor == -1
    assert c.status_topic_spec().partitions == -1
    assert "since compaction is always used" in caplog.text
    assert "config topic partitions is always 1" in caplog.text
    # storage topic settings are not reported as unknown keys
    assert "offset.storage.min.insync.replicas' was supplied" not in caplog.text


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("connect.protocol", "fancy", "Invalid Connect protocol compatibility"),
        ("offset.storage.partitions", "0", "Number of partitions must be positive"),
        ("status.storage.replication.factor", "-2", "Replication factor must be positive"),
        ("scheduled.rebalance.max.delay.ms", "-1", "Value must be at least 0"),
        ("exactly.once.source.support", "maybe", "exactly.once.source.support"),
        ("inter.worker.signature.algorithm", "HmacFOO", "No Mac available"),
        ("inter.worker.verification.algorithms", "HmacSHA512", "must be present in"),
        ("session.timeout.ms", "ten", "session.timeout.ms"),
    ],
)
def test_invalid_values_are_refused(key: str, value: str, fragment: str) -> None:
    with pytest.raises(ConfigException, match=fragment):
        DistributedConfig({**BASE, key: value})


@pytest.mark.parametrize("missing", ["group.id", "config.storage.topic", "offset.storage.topic"])
def test_required_keys(missing: str) -> None:
    props = dict(BASE)
    del props[missing]
    with pytest.raises(ConfigException, match=missing):
        DistributedConfig(props)


def test_protocol_is_case_insensitive_and_key_size_configurable() -> None:
    c = DistributedConfig({**BASE, "connect.protocol": "EAGER", "inter.worker.key.size": "512"})
    assert c.connect_protocol == "eager"
    assert c.key_size_bytes() == 64


def test_internal_client_props_carry_security_not_worker_keys() -> None:
    c = DistributedConfig(
        {
            **BASE,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "producer.linger.ms": "5",
        }
    )
    props = c.internal_client_props()
    assert props == {
        "bootstrap.servers": "broker:9092",
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
    }
