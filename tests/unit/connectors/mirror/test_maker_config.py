"""The connect-mirror-maker.sh file: flows, per-flow worker configs and connector configs
(tests/integration/test_mirror_java_harness.py compares them with Java's MirrorMakerConfig)."""

from __future__ import annotations

import pytest

from kconnect.api import ConfigException
from kconnect.connectors.mirror.maker_config import MirrorMakerConfig, SourceAndTarget

FILE = {
    "clusters": "A, B",
    "A.bootstrap.servers": "a:9092",
    "B.bootstrap.servers": "b:9092",
    "A->B.enabled": "true",
    "A->B.topics": "orders.*",
    "replication.factor": "3",
    "B.offset.flush.interval.ms": "1000",
    "not.a.connector.key": "x",
}
AB = SourceAndTarget("A", "B")


def test_enabled_flows_and_heartbeat_flows_run() -> None:
    m = MirrorMakerConfig(FILE)
    assert [str(p) for p in m.cluster_pairs()] == ["A->B", "B->A"]  # B->A emits heartbeats
    quiet = MirrorMakerConfig({**FILE, "emit.heartbeats.enabled": "false"})
    assert [str(p) for p in quiet.cluster_pairs()] == ["A->B"]


def test_worker_config_of_a_flow() -> None:
    w = MirrorMakerConfig(FILE).worker_config(AB)
    assert w["bootstrap.servers"] == "b:9092"
    assert w["group.id"] == "A-mm2"
    assert w["offset.storage.topic"] == "mm2-offsets.A.internal"
    assert w["config.storage.topic"] == "mm2-configs.A.internal"
    assert w["status.storage.topic"] == "mm2-status.A.internal"
    assert w["client.id"] == "A->B"
    assert w["offset.flush.interval.ms"] == "1000"
    assert w["value.converter"] == "org.apache.kafka.connect.converters.ByteArrayConverter"
    assert w["header.converter"] == "org.apache.kafka.connect.converters.ByteArrayConverter"
    assert "replication.factor" not in w


def test_connector_configs_of_a_flow() -> None:
    m = MirrorMakerConfig(FILE)
    c = m.connector_base_config(AB, "org.apache.kafka.connect.mirror.MirrorSourceConnector")
    assert c["name"] == "MirrorSourceConnector"
    assert c["source.cluster.alias"] == "A" and c["target.cluster.alias"] == "B"
    assert c["source.cluster.bootstrap.servers"] == "a:9092"
    assert c["source.consumer.bootstrap.servers"] == "a:9092"
    assert c["target.cluster.bootstrap.servers"] == "b:9092"
    assert c["topics"] == "orders.*" and c["enabled"] == "true"
    assert c["replication.factor"] == "3"
    assert "not.a.connector.key" not in c
    back = m.connector_base_config(
        SourceAndTarget("B", "A"), "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
    )
    assert back["enabled"] == "false"  # the heartbeat connector runs anyway


def test_a_cluster_listed_twice_is_refused() -> None:
    with pytest.raises(ConfigException, match=r"clusters.*'A' is listed twice"):
        MirrorMakerConfig({**FILE, "clusters": "A, B, A"})


def test_clusters_is_required() -> None:
    with pytest.raises(ConfigException, match="clusters"):
        MirrorMakerConfig({"A.bootstrap.servers": "a:1"})


def test_worker_configs_pass_through_the_transformer() -> None:
    m = MirrorMakerConfig(
        {**FILE, "B.sasl.jaas.config": "${file:/secret:jaas}"},
        transform=lambda p: {
            k: v.replace("${file:/secret:jaas}", "resolved") for k, v in p.items()
        },
    )
    assert m.worker_config(AB)["sasl.jaas.config"] == "resolved"
    # connector configs keep the variable: the worker resolves it
    assert (
        m.connector_base_config(AB, "org.apache.kafka.connect.mirror.MirrorSourceConnector")[
            "target.cluster.sasl.jaas.config"
        ]
        == "${file:/secret:jaas}"
    )
