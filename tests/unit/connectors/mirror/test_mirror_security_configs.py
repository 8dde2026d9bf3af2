"""A secured cluster in a MirrorMaker 2 file (``B.security.protocol``, ``B.sasl.*``,
``B.ssl.*``) reaches every client of that cluster and no client of the other one, in dedicated
mode (the flow's worker, its connectors) and in connector mode (``target.cluster.*``), and
translates for librdkafka; a bad store stops ``kconnect mirror-maker`` naming the setting.
No broker: tests/integration/test_mirror_maker_secured.py runs the flow against one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kconnect.cli.worker_startup import StartupError
from kconnect.connectors.mirror.checkpoint_config import MirrorCheckpointConfig
from kconnect.connectors.mirror.heartbeat_config import MirrorHeartbeatConfig
from kconnect.connectors.mirror.maker_config import (
    CONNECTOR_CLASSES,
    MirrorMakerConfig,
    SourceAndTarget,
)
from kconnect.connectors.mirror.source_config import MirrorSourceConfig
from kconnect.kafka.clients.client_config import to_librdkafka
from kconnect.mirror_maker import MirrorMakerNode
from kconnect.runtime.config.distributed_config import DistributedConfig
from tests.pki import Pki

AB = SourceAndTarget("A", "B")
JAAS = (
    "org.apache.kafka.common.security.scram.ScramLoginModule required "
    'username="mm2" password="mm2-secret";'
)


@pytest.fixture(scope="module")
def ca_pem(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Pki(tmp_path_factory.mktemp("pki")).ca_cert


def _file(ca: Path, **extra: str) -> dict[str, str]:
    return {
        "clusters": "A, B",
        "A.bootstrap.servers": "a:9092",
        "B.bootstrap.servers": "b:9102",
        "B.security.protocol": "SASL_SSL",
        "B.sasl.mechanism": "SCRAM-SHA-256",
        "B.sasl.jaas.config": JAAS,
        "B.ssl.truststore.type": "PEM",
        "B.ssl.truststore.location": str(ca),
        "A->B.enabled": "true",
        **extra,
    }


SECURITY = {
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "SCRAM-SHA-256",
    "sasl.jaas.config": JAAS,
    "ssl.truststore.type": "PEM",
}


def _secured(props: dict[str, Any], ca: Path) -> bool:
    return all(props.get(k) == v for k, v in SECURITY.items()) and props.get(
        "ssl.truststore.location"
    ) == str(ca)


def _plain(props: dict[str, Any]) -> bool:
    return not any(k == "security.protocol" or k.startswith(("sasl.", "ssl.")) for k in props)


def test_the_flow_worker_clients_of_the_secured_target_carry_its_security(ca_pem: Path) -> None:
    worker = MirrorMakerConfig(_file(ca_pem)).worker_config(AB)
    config = DistributedConfig(worker)
    # the stores and group member, the tasks' producers and consumers, the connectors' admins
    assert _secured(config.internal_client_props(), ca_pem)
    assert _secured({k: str(v) for k, v in config.java_producer_props().items()}, ca_pem)
    assert _secured({k: str(v) for k, v in config.java_consumer_props().items()}, ca_pem)
    assert _secured({k: str(v) for k, v in config.java_admin_props().items()}, ca_pem)
    # the reverse flow's worker runs on A, which is plaintext
    back = DistributedConfig(
        MirrorMakerConfig(_file(ca_pem)).worker_config(SourceAndTarget("B", "A"))
    )
    assert _plain(back.internal_client_props())


def test_each_connector_client_gets_its_own_cluster_security(ca_pem: Path) -> None:
    maker = MirrorMakerConfig(_file(ca_pem))
    configs = {n: maker.connector_base_config(AB, c) for n, c in CONNECTOR_CLASSES}
    source = MirrorSourceConfig(configs["MirrorSourceConnector"])
    checkpoint = MirrorCheckpointConfig(configs["MirrorCheckpointConnector"])
    heartbeat = MirrorHeartbeatConfig(configs["MirrorHeartbeatConnector"])
    for role in ("replication-target-admin", None):
        assert _secured(source.target_admin_config(role), ca_pem)
        assert _secured(source.target_producer_config(role), ca_pem)
        assert _secured(checkpoint.target_admin_config(role), ca_pem)
        assert _secured(checkpoint.target_consumer_config(role), ca_pem)
        assert _secured(heartbeat.target_admin_config(role), ca_pem)
        # A is plaintext: none of B's settings leak into its clients
        assert _plain(source.source_consumer_config(role))
        assert _plain(source.source_admin_config(role))
        assert _plain(checkpoint.source_admin_config(role))
    # offset syncs live on the source by default, on the target with location=target
    assert _plain(source.offset_syncs_producer_config())
    assert _plain(checkpoint.offset_syncs_consumer_config())
    assert _plain(source.offset_syncs_admin_config())
    on_target = MirrorMakerConfig(_file(ca_pem, **{"offset-syncs.topic.location": "target"}))
    base = {n: on_target.connector_base_config(AB, c) for n, c in CONNECTOR_CLASSES}
    assert _secured(MirrorSourceConfig(base["MirrorSourceConnector"])
                    .offset_syncs_producer_config(), ca_pem)  # fmt: skip
    assert _secured(MirrorCheckpointConfig(base["MirrorCheckpointConnector"])
                    .offset_syncs_consumer_config(), ca_pem)  # fmt: skip
    assert _secured(MirrorSourceConfig(base["MirrorSourceConnector"])
                    .offset_syncs_admin_config(), ca_pem)  # fmt: skip


def test_client_specific_settings_refine_the_cluster_ones(ca_pem: Path) -> None:
    other = JAAS.replace("mm2-secret", "producer-secret")
    maker = MirrorMakerConfig(_file(ca_pem, **{"B.producer.sasl.jaas.config": other}))
    source = MirrorSourceConfig(maker.connector_base_config(AB, CONNECTOR_CLASSES[0][1]))
    assert source.target_producer_config(None)["sasl.jaas.config"] == other
    assert source.target_admin_config(None)["sasl.jaas.config"] == JAAS
    worker = DistributedConfig(maker.worker_config(AB))
    assert worker.java_producer_props()["sasl.jaas.config"] == other
    assert worker.internal_client_props()["sasl.jaas.config"] == JAAS
    # connector mode: target.cluster.* for every target client, target.admin.* for admins only
    props = {
        "name": "MirrorSourceConnector",
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": "a:9092",
        "target.cluster.bootstrap.servers": "b:9102",
        **{f"target.cluster.{k}": v for k, v in SECURITY.items()},
        "target.cluster.ssl.truststore.location": str(ca_pem),
        "target.admin.sasl.jaas.config": other,
    }
    connector = MirrorSourceConfig(props)
    assert _secured(connector.target_producer_config(None), ca_pem)
    assert connector.target_admin_config(None)["sasl.jaas.config"] == other
    assert _plain(connector.source_consumer_config(None))


def test_the_cluster_admin_config_is_javas_client_config(ca_pem: Path) -> None:
    maker = MirrorMakerConfig(
        _file(ca_pem, **{"B.admin.sasl.mechanism": "SCRAM-SHA-512", "B.linger.ms": "5"})
    )
    admin = maker.client_config("B")
    assert admin["sasl.mechanism"] == "SCRAM-SHA-512"  # B.admin.* wins for the admin
    assert maker.client_config("B", "producer")["sasl.mechanism"] == "SCRAM-SHA-256"
    assert "linger.ms" not in admin  # only bootstrap and security settings, as Java's
    assert maker.client_config("A") == {"bootstrap.servers": "a:9092"}


def test_the_secured_settings_translate_for_librdkafka(ca_pem: Path) -> None:
    maker = MirrorMakerConfig(_file(ca_pem))
    source = MirrorSourceConfig(maker.connector_base_config(AB, CONNECTOR_CLASSES[0][1]))
    rd = to_librdkafka(source.target_producer_config("replication-producer"))
    assert str(rd["security.protocol"]).upper() == "SASL_SSL"
    assert rd["sasl.mechanism"] == "SCRAM-SHA-256"
    assert (rd["sasl.username"], rd["sasl.password"]) == ("mm2", "mm2-secret")
    assert "BEGIN CERTIFICATE" in str(rd["ssl.ca.pem"])
    assert "sasl.jaas.config" not in rd


def test_a_missing_trust_store_stops_the_start_naming_the_setting(
    tmp_path: Path, ca_pem: Path
) -> None:
    missing = tmp_path / "nowhere.jks"
    maker = MirrorMakerConfig(
        _file(
            ca_pem,
            **{
                "B.ssl.truststore.location": str(missing),
                "B.ssl.truststore.type": "JKS",
                "B.ssl.truststore.password": "pw",
            },
        )
    )
    node = MirrorMakerNode(maker, ["B"])
    # B is the target: the start is refused before A (unreachable here) is tried
    with pytest.raises(StartupError) as e:
        node._check_clusters()
    assert "B.ssl.truststore.location" in str(e.value)
    assert "cluster 'B'" in str(e.value)
