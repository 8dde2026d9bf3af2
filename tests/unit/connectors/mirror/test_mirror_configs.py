"""MirrorMaker 2 connector settings: Java's keys and defaults, how each cluster's clients are
configured, internal topic names, and the configs refused with a message naming the key."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException, TopicPartition
from kconnect.connectors.mirror.checkpoint_config import CHECKPOINT_CONFIG_DEF
from kconnect.connectors.mirror.heartbeat_config import HEARTBEAT_CONFIG_DEF, MirrorHeartbeatConfig
from kconnect.connectors.mirror.source_config import (
    SOURCE_CONFIG_DEF,
    MirrorSourceConfig,
    MirrorSourceTaskConfig,
)

BASE = {"name": "ms", "source.cluster.alias": "A", "target.cluster.alias": "B"}

#: Java's defaults (connect-mirror 4.1.2) of the keys the issue names.
JAVA_DEFAULTS = {
    "target.cluster.alias": "target",
    "replication.policy.class": "org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
    "replication.policy.separator": ".",
    "topics": ".*",
    "topics.exclude": r"mm2.*\.internal,.*\.replica,__.*",
    "refresh.topics.interval.seconds": "600",
    "sync.topic.configs.enabled": "true",
    "sync.topic.acls.enabled": "true",
    "offset-syncs.topic.location": "source",
    "offset.lag.max": "100",
    "replication.factor": "2",
    "offset-syncs.topic.replication.factor": "3",
    "emit.offset-syncs.enabled": "true",
    "admin.timeout.ms": "60000",
    "consumer.poll.timeout.ms": "1000",
}
CHECKPOINT_DEFAULTS = {
    "groups": ".*",
    "groups.exclude": "console-consumer-.*,connect-.*,__.*",
    "emit.checkpoints.interval.seconds": "60",
    "refresh.groups.interval.seconds": "600",
    "sync.group.offsets.enabled": "false",
    "sync.group.offsets.interval.seconds": "60",
    "checkpoints.topic.replication.factor": "3",
}
HEARTBEAT_DEFAULTS = {
    "emit.heartbeats.interval.seconds": "1",
    "heartbeats.topic.replication.factor": "3",
}


def _default(definition: object, key: str) -> str | None:
    from kconnect.api.config_types import convert_to_string

    k = definition.config_keys()[key]  # type: ignore[attr-defined]
    return convert_to_string(k.default_value, k.type)


@pytest.mark.parametrize("key, value", sorted(JAVA_DEFAULTS.items()))
def test_source_defaults_are_javas(key: str, value: str) -> None:
    assert _default(SOURCE_CONFIG_DEF, key) == value


@pytest.mark.parametrize("key, value", sorted(CHECKPOINT_DEFAULTS.items()))
def test_checkpoint_defaults_are_javas(key: str, value: str) -> None:
    assert _default(CHECKPOINT_CONFIG_DEF, key) == value


@pytest.mark.parametrize("key, value", sorted(HEARTBEAT_DEFAULTS.items()))
def test_heartbeat_defaults_are_javas(key: str, value: str) -> None:
    assert _default(HEARTBEAT_CONFIG_DEF, key) == value


def test_source_cluster_alias_is_required() -> None:
    with pytest.raises(ConfigException, match=r"source.cluster.alias"):
        MirrorSourceConfig({"name": "x"})


def test_the_same_alias_for_both_clusters_is_refused() -> None:
    with pytest.raises(ConfigException, match=r"target.cluster.alias.*both 'A'"):
        MirrorSourceConfig({**BASE, "target.cluster.alias": "A"})


def test_only_the_default_forwarding_admin_is_accepted() -> None:
    with pytest.raises(ConfigException, match=r"forwarding.admin.class"):
        MirrorSourceConfig({**BASE, "forwarding.admin.class": "com.example.MyAdmin"})


def test_client_configs_are_built_as_javas() -> None:
    c = MirrorSourceConfig({
        **BASE,
        "source.cluster.bootstrap.servers": "a:9092",
        "source.cluster.security.protocol": "SSL",
        "source.cluster.linger.ms": "5",  # not a cluster setting: dropped
        "consumer.fetch.min.bytes": "10",
        "source.consumer.fetch.min.bytes": "20",  # the per-side override wins
        "source.consumer.client.id": "mine",
        "target.cluster.bootstrap.servers": "b:9092",
        "target.admin.request.timeout.ms": "9",
    })  # fmt: skip
    consumer = c.source_consumer_config("replication-consumer")
    assert consumer == {
        "bootstrap.servers": "a:9092",
        "security.protocol": "SSL",
        "fetch.min.bytes": "20",
        "enable.auto.commit": "false",
        "auto.offset.reset": "earliest",
        "client.id": "mine|A->B|ms|replication-consumer",
    }
    assert c.target_admin_config("replication-target-admin") == {
        "bootstrap.servers": "b:9092",
        "request.timeout.ms": "9",
        "client.id": "A->B|ms|replication-target-admin",
    }


def test_internal_topic_names_follow_the_offset_syncs_location() -> None:
    c = MirrorSourceConfig(BASE)
    assert c.offset_syncs_topic() == "mm2-offset-syncs.B.internal"
    assert c.checkpoints_topic() == "A.checkpoints.internal"
    assert c.offset_syncs_on_source
    on_target = MirrorSourceConfig({**BASE, "offset-syncs.topic.location": "target"})
    assert on_target.offset_syncs_topic() == "mm2-offset-syncs.A.internal"
    assert on_target.offset_syncs_producer_config()["client.id"].endswith(
        "offset-syncs-target-producer"
    )
    with pytest.raises(ConfigException, match=r"offset-syncs.topic.location"):
        MirrorSourceConfig({**BASE, "offset-syncs.topic.location": "elsewhere"})


def test_task_configs_carry_partitions_and_index() -> None:
    c = MirrorSourceConfig(BASE)
    props = c.task_config([TopicPartition("a-b", 1), TopicPartition("t", 0)], 3)
    assert props["task.assigned.partitions"] == "a-b-1,t-0"
    task = MirrorSourceTaskConfig(props)
    assert task.task_topic_partitions() == [TopicPartition("a-b", 1), TopicPartition("t", 0)]
    assert task.entity_label() == "A->B|ms-3"


def test_disabled_intervals_are_none() -> None:
    c = MirrorSourceConfig({**BASE, "refresh.topics.enabled": "false"})
    assert c.refresh_topics_interval_s is None
    assert c.sync_topic_configs_interval_s == 600.0
    hb = MirrorHeartbeatConfig({**BASE, "emit.heartbeats.enabled": "false"})
    assert hb.emit_heartbeats_interval_s is None
