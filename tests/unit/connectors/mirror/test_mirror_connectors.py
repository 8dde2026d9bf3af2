"""The Mirror connectors' logic that needs no cluster: dealing partitions and groups to tasks
as Java does, validation messages, offsets checks, remote topic configs and ACLs, cycles, and
heartbeat records."""

from __future__ import annotations

from typing import Any

import pytest

from kconnect.api import ConnectException, RetriableException, TopicPartition
from kconnect.api.kafka_clients import AclBinding, ConfigSource, TopicConfigEntry
from kconnect.connectors.mirror.checkpoint_connector import (
    MirrorCheckpointConnector,
    group_partitions,
)
from kconnect.connectors.mirror.formats import Heartbeat
from kconnect.connectors.mirror.heartbeat_config import MirrorHeartbeatConfig
from kconnect.connectors.mirror.heartbeat_connector import MirrorHeartbeatConnector
from kconnect.connectors.mirror.heartbeat_task import MirrorHeartbeatTask
from kconnect.connectors.mirror.source_connector import MirrorSourceConnector

BASE = {"name": "ms", "source.cluster.alias": "A", "target.cluster.alias": "B"}


def source(**props: str) -> MirrorSourceConnector:
    c = MirrorSourceConnector()
    c.configure({**BASE, **props})
    return c


def test_partitions_go_round_robin_over_tasks() -> None:
    c = source()
    c.known_source_partitions = [TopicPartition("t0", p) for p in range(8)] + [
        TopicPartition("t1", 0), TopicPartition("t1", 1),
    ]  # fmt: skip
    tasks = c.task_configs(3)
    assert [t["task.assigned.partitions"] for t in tasks] == [
        "t0-0,t0-3,t0-6,t1-1", "t0-1,t0-4,t0-7", "t0-2,t0-5,t1-0",
    ]  # fmt: skip
    assert [t["task.index"] for t in tasks] == ["0", "1", "2"]
    assert len(c.task_configs(100)) == 10  # never more tasks than partitions
    c.known_source_partitions = []
    assert c.task_configs(3) == []


def test_a_disabled_connector_has_no_tasks() -> None:
    c = source(enabled="false")
    c.known_source_partitions = [TopicPartition("t", 0)]
    assert c.task_configs(2) == []


def test_groups_go_in_contiguous_runs() -> None:
    assert group_partitions(list("abcde"), 3) == [["a", "b"], ["c", "d"], ["e"]]
    c = MirrorCheckpointConnector()
    c.configure(BASE)
    with pytest.raises(RetriableException):
        c.task_configs(2)  # the first listing has not finished yet
    c.known_groups = []
    assert c.task_configs(2) == []
    c.known_groups = ["g1", "g2", "g3"]
    assert [t["task.assigned.groups"] for t in c.task_configs(2)] == ["g1,g2", "g3"]


def _errors(result: Any) -> dict[str, list[str]]:
    return {v.name: v.error_messages for v in result.config_values() if v.error_messages}


def test_source_validation_messages() -> None:
    c = MirrorSourceConnector()
    errors = _errors(c.validate({**BASE, "exactly.once.support": "required"}))
    assert "read_committed" in errors["exactly.once.support"][0]
    assert "exactly.once.support" not in _errors(
        c.validate({
            **BASE, "exactly.once.support": "required",
            "source.consumer.isolation.level": "read_committed",
        })
    )  # fmt: skip
    errors = _errors(
        c.validate({**BASE, "emit.offset-syncs.enabled": "false",
                    "offset-syncs.topic.location": "target"})
    )  # fmt: skip
    assert "can't setup offset-syncs" in errors["emit.offset-syncs.enabled"][0]
    errors = _errors(c.validate({**BASE, "target.cluster.alias": "A"}))
    assert "both 'A'" in errors["target.cluster.alias"][0]


def test_checkpoint_validation_messages() -> None:
    errors = _errors(
        MirrorCheckpointConnector().validate(
            {**BASE, "emit.checkpoints.enabled": "false", "emit.offset-syncs.enabled": "false"}
        )
    )
    assert errors["emit.checkpoints.enabled"] == [
        "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false"
    ]
    assert errors["emit.offset-syncs.enabled"] == [
        "MirrorCheckpointConnector can't run without offset syncs"
    ]


class _frozen(dict[str, Any]):
    """A source partition usable as a mapping key, as the runtime hands them over."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


def test_altered_offsets_are_checked_as_java_checks_them() -> None:
    c = MirrorSourceConnector()
    good = {"cluster": "A", "topic": "t", "partition": 0}
    assert c.alter_offsets(BASE, {_frozen(good): {"offset": 5}})
    with pytest.raises(ConnectException, match="missing the 'cluster' key"):
        c.alter_offsets(BASE, {_frozen({"topic": "t", "partition": 0}): {"offset": 5}})
    with pytest.raises(ConnectException, match="which cannot be negative"):
        c.alter_offsets(BASE, {_frozen(good): {"offset": -1}})
    assert c.alter_offsets(BASE, {_frozen({"garbage": 1}): None})  # tombstones always pass
    cp = MirrorCheckpointConnector()
    with pytest.raises(ConnectException, match="the only accepted value is 0"):
        cp.alter_offsets(
            BASE, {_frozen({"group": "g", "topic": "t", "partition": 0}): {"offset": 3}}
        )
    hb = MirrorHeartbeatConnector()
    with pytest.raises(ConnectException, match="targetClusterAlias"):
        hb.alter_offsets(BASE, {_frozen({"sourceClusterAlias": "A"}): {"offset": 0}})


def test_remote_topic_configs_are_filtered() -> None:
    c = source()
    entries = [
        TopicConfigEntry("retention.ms", "1000", ConfigSource.DYNAMIC_TOPIC_CONFIG),
        TopicConfigEntry("cleanup.policy", "delete", ConfigSource.DEFAULT_CONFIG),
        TopicConfigEntry("min.insync.replicas", "2", ConfigSource.DYNAMIC_TOPIC_CONFIG),
        TopicConfigEntry("segment.bytes", "1", ConfigSource.STATIC_BROKER_CONFIG),
        TopicConfigEntry("x.secret", "s", ConfigSource.DYNAMIC_TOPIC_CONFIG, is_sensitive=True),
        TopicConfigEntry("ro", "r", ConfigSource.DYNAMIC_TOPIC_CONFIG, is_read_only=True),
    ]
    assert [e.name for e in c.target_config(entries, False)] == ["retention.ms"]
    # incremental sync also carries defaults (to be deleted downstream)
    assert [e.name for e in c.target_config(entries, True)] == ["retention.ms", "cleanup.policy"]
    from_source = source(**{"use.defaults.from": "source"})
    assert [e.name for e in from_source.target_config(entries, False)] == [
        "retention.ms", "cleanup.policy",
    ]  # fmt: skip


def test_acls_move_to_the_remote_topic_and_allow_all_becomes_read() -> None:
    c = source()
    assert c.target_acl_binding(AclBinding("t", "User:u", "*", "ALL", "ALLOW")) == AclBinding(
        "A.t", "User:u", "*", "READ", "ALLOW"
    )
    assert c.target_acl_binding(AclBinding("t", "User:u", "*", "ALL", "DENY")).operation == "ALL"


def test_topics_from_the_target_are_cycles() -> None:
    c = source()
    assert c.is_cycle("B.t") and c.is_cycle("C.B.t")
    assert not c.is_cycle("C.t") and not c.is_cycle("t")
    assert c.should_replicate_topic("t")
    assert not c.should_replicate_topic("B.t")
    assert not c.should_replicate_topic("mm2-offset-syncs.B.internal")
    assert c.should_replicate_topic("C.heartbeats")  # heartbeats.replication.enabled
    no_hb = source(**{"topics": "t", "heartbeats.replication.enabled": "false"})
    assert not no_hb.should_replicate_topic("heartbeats")
    identity = source(**{
        "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
    })  # fmt: skip
    assert not identity.is_cycle("t")  # this policy cannot tell
    assert identity.format_remote_topic("t") == "t"


def test_heartbeat_task_writes_javas_record() -> None:
    task = MirrorHeartbeatTask()
    task.start({**BASE, "emit.heartbeats.interval.seconds": "0"})
    records = task.poll()
    assert records is not None and len(records) == 1
    r = records[0]
    assert (r.topic, r.kafka_partition) == ("heartbeats", 0)
    assert r.source_partition == {"sourceClusterAlias": "A", "targetClusterAlias": "B"}
    assert r.source_offset == {"offset": 0}
    hb = Heartbeat.from_record(r.key, r.value)
    assert (hb.source_cluster_alias, hb.target_cluster_alias, hb.timestamp) == (
        "A",
        "B",
        r.timestamp,
    )
    task.stop()
    assert task.poll() is None


def test_heartbeats_disabled_means_no_task() -> None:
    c = MirrorHeartbeatConnector()
    c._config = MirrorHeartbeatConfig({**BASE, "emit.heartbeats.enabled": "false"})
    assert c.task_configs(1) == []
