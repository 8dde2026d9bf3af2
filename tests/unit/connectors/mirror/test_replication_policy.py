"""DefaultReplicationPolicy and IdentityReplicationPolicy name topics as Java's do
(tests/integration/test_mirror_java_harness.py runs the same calls against Java's classes)."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException
from kconnect.connectors.mirror.replication_policy import (
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
    replication_policy,
)


def default(**props: str) -> DefaultReplicationPolicy:
    p = DefaultReplicationPolicy()
    p.configure(props)
    return p


def test_default_policy_prefixes_the_source_alias() -> None:
    p = default()
    assert p.format_remote_topic("A", "orders") == "A.orders"
    assert p.topic_source("A.orders") == "A"
    assert p.upstream_topic("B.A.orders") == "A.orders"
    assert p.original_topic("B.A.orders") == "orders"
    assert p.topic_source("orders") is None
    assert p.upstream_topic("orders") is None


@pytest.mark.parametrize(
    "topic, source",
    [("A.", None), (".x", ""), ("a..b", "a"), ("...", None), ("", None), ("A.b.c", "A")],
)
def test_topic_source_splits_like_javas_pattern_split(topic: str, source: str | None) -> None:
    # Java drops trailing empty strings and keeps a leading one
    assert default().topic_source(topic) == source


def test_internal_topic_names() -> None:
    p = default()
    assert p.heartbeats_topic() == "heartbeats"
    assert p.checkpoints_topic("A") == "A.checkpoints.internal"
    assert p.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"
    assert p.is_heartbeats_topic("B.A.heartbeats")
    assert p.is_checkpoints_topic("A.checkpoints.internal")
    for topic in (
        "__consumer_offsets",
        ".hidden",
        "mm2-offsets.A.internal",
        "B.checkpoints.internal",
    ):
        assert p.is_internal_topic(topic), topic
    # Kafka 4.1: other *.internal / *-internal topics are ordinary topics again
    for topic in ("orders", "connect-configs-internal", "x.internal"):
        assert not p.is_internal_topic(topic), topic


def test_a_custom_separator_applies_to_internal_topics_unless_disabled() -> None:
    p = default(**{"replication.policy.separator": "__"})
    assert p.format_remote_topic("A", "t") == "A__t"
    assert p.topic_source("A__t") == "A"
    assert p.checkpoints_topic("A") == "A__checkpoints__internal"
    assert p.offset_syncs_topic("B") == "mm2-offset-syncs__B__internal"
    legacy = default(**{
        "replication.policy.separator": "__",
        "replication.policy.internal.topic.separator.enabled": "false",
    })  # fmt: skip
    assert legacy.checkpoints_topic("A") == "A.checkpoints.internal"
    assert legacy.format_remote_topic("A", "t") == "A__t"


def test_identity_policy_keeps_names_but_prefixes_heartbeats() -> None:
    p = IdentityReplicationPolicy()
    p.configure({"source.cluster.alias": "A"})
    assert p.format_remote_topic("A", "orders") == "orders"
    assert p.topic_source("orders") == "A"
    assert p.upstream_topic("orders") == "orders"
    assert p.original_topic("orders") == "orders"
    assert p.format_remote_topic("A", "heartbeats") == "A.heartbeats"
    assert p.topic_source("A.heartbeats") == "A"
    unconfigured = IdentityReplicationPolicy()
    assert unconfigured.topic_source("orders") is None


def test_policy_classes_by_java_name_simple_name_and_python_path() -> None:
    assert isinstance(
        replication_policy("org.apache.kafka.connect.mirror.IdentityReplicationPolicy", {}),
        IdentityReplicationPolicy,
    )
    assert isinstance(replication_policy("DefaultReplicationPolicy", {}), DefaultReplicationPolicy)
    custom = replication_policy(f"{__name__}:Upper", {})
    assert custom.format_remote_topic("a", "t") == "A.T"
    with pytest.raises(ConfigException, match=r"replication.policy.class"):
        replication_policy("com.example.Missing", {})
    with pytest.raises(ConfigException, match="is not a ReplicationPolicy"):
        replication_policy("collections.OrderedDict", {})


class Upper(DefaultReplicationPolicy):
    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}.{topic}".upper()


def test_base_class_requires_the_three_naming_methods() -> None:
    with pytest.raises(NotImplementedError):
        ReplicationPolicy().format_remote_topic("A", "t")
