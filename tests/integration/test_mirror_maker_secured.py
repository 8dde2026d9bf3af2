"""``kconnect mirror-maker`` from a plaintext cluster A (a private broker started for this
module) into a secured cluster B (the local node's SASL_SSL listener, SCRAM-SHA-256, trust store
in JKS), configured as Java's MirrorMakerConfig reads it: ``B.security.protocol``,
``B.sasl.*`` and ``B.ssl.*`` reach every client of B (the flow's worker, the connectors' admins,
the replication producer, the checkpoint and heartbeat clients).

* records produced to A's topic appear in B's ``A.<topic>``, read back by a SASL_SSL consumer,
  and B gets the flow's checkpoints topic and heartbeats from A;
* a wrong password in ``B.sasl.jaas.config`` stops the start at once with an error naming
  ``sasl.jaas.config`` and the cluster.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as TP
from confluent_kafka.admin import AdminClient

from kconnect.testing.services import ensure_secure_kafka
from tests.integration.mirror_support import (
    MirrorMakerProcess,
    PrivateKafka,
    create_topic,
    mm2_file,
    private_kafka,
    produce,
    until,
)

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.fixture(scope="module")
def secure() -> dict[str, Any]:
    listeners = ensure_secure_kafka()
    material = Path(listeners["material"])
    return {**listeners, **json.loads((material / "credentials.json").read_text())}


@pytest.fixture(scope="module")
def cluster_a() -> Iterator[PrivateKafka]:
    with private_kafka() as a:
        yield a


def _b_settings(secure: dict[str, Any], password: str) -> dict[str, str]:
    material = Path(secure["material"])
    return {
        "B.security.protocol": "SASL_SSL",
        "B.sasl.mechanism": "SCRAM-SHA-256",
        "B.sasl.jaas.config": (
            f'{SCRAM} required username="{secure["user"]}" password="{password}";'
        ),
        "B.ssl.truststore.location": str(material / "truststore.jks"),
        "B.ssl.truststore.password": secure["store_password"],
    }


def _librdkafka_b(secure: dict[str, Any]) -> dict[str, Any]:
    """confluent-kafka settings for B written out by hand, independent of kconnect's
    translation of the Java names."""
    return {
        "bootstrap.servers": secure["sasl_ssl"],
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.username": secure["user"],
        "sasl.password": secure["password"],
        "ssl.ca.location": str(Path(secure["material"]) / "ca.pem"),
    }


def _secured_topics(secure: dict[str, Any]) -> dict[str, int]:
    md = AdminClient(_librdkafka_b(secure)).list_topics(timeout=20)
    return {n: len(t.partitions) for n, t in md.topics.items() if t.error is None}


def _secured_read(secure: dict[str, Any], topic: str, partitions: int) -> list[Any]:
    """Every record of ``topic`` on B, through the SASL_SSL listener."""
    c = Consumer({**_librdkafka_b(secure), "group.id": f"read-{uuid.uuid4().hex}",
                  "enable.auto.commit": False})  # fmt: skip
    try:
        ends = {p: c.get_watermark_offsets(TP(topic, p), timeout=10)[1] for p in range(partitions)}
        c.assign([TP(topic, p, 0) for p, end in ends.items() if end > 0])
        got: list[Any] = []
        done = {p for p, end in ends.items() if end == 0}
        deadline = time.monotonic() + 30
        while len(done) < partitions and time.monotonic() < deadline:
            for m in c.consume(500, 1.0):
                if m.error() is None:
                    got.append(m)
                    if m.offset() + 1 >= ends[m.partition()]:
                        done.add(m.partition())
        return got
    finally:
        c.close()


def test_records_flow_from_a_plaintext_cluster_into_a_sasl_ssl_cluster(
    tmp_path: Path, cluster_a: PrivateKafka, secure: dict[str, Any]
) -> None:
    u = uuid.uuid4().hex[:6]
    sa, sb = f"A{u}", "B"  # a fresh source alias: its internal topics on B are this test's
    topic = f"sec-{u}"
    a = cluster_a.bootstrap
    create_topic(a, topic, 2)
    produce(a, topic, [(i % 2, f"k{i}".encode(), f"v{i}".encode(), None, 0) for i in range(40)])
    # B.* is written for alias "B"; the helper writes B.bootstrap.servers from the mapping
    f = mm2_file(
        tmp_path / "mm2.properties", {sa: a, sb: secure["sasl_ssl"]}, [f"{sa}->{sb}"],
        **{f"{sa}->{sb}.topics": topic, **_b_settings(secure, secure["password"])},
    )  # fmt: skip
    node = MirrorMakerProcess("kconnect", f, "--clusters", sb).start()
    remote = f"{sa}.{topic}"
    try:
        until(lambda: _secured_topics(secure).get(remote) == 2, 120, f"{remote} on B")

        def values() -> list[bytes] | None:
            got = sorted(m.value() for m in _secured_read(secure, remote, 2))
            return got if len(got) >= 40 else None

        got = until(values, 120, f"40 records in {remote}")
        assert got == sorted(f"v{i}".encode() for i in range(40))
        # the checkpoint connector's topic and the heartbeats from A, on B
        until(
            lambda: f"{sa}.checkpoints.internal" in _secured_topics(secure),
            90, f"{sa}.checkpoints.internal on B",
        )  # fmt: skip

        def heartbeat_from_a() -> bool:
            n = _secured_topics(secure).get("heartbeats", 0)
            return n > 0 and any(sa.encode() in (m.key() or b"")
                                 for m in _secured_read(secure, "heartbeats", n))  # fmt: skip

        until(heartbeat_from_a, 90, f"a heartbeat from {sa} in B's heartbeats topic")
        assert node.running(), node.output()[-3000:]
        # the librdkafka clients of B never failed a login or handshake
        assert "Authentication with" not in node.output()
        assert "SSL handshake failed" not in node.output()
    finally:
        node.stop()


def test_a_wrong_password_for_the_secured_cluster_stops_the_start(
    tmp_path: Path, cluster_a: PrivateKafka, secure: dict[str, Any]
) -> None:
    f = mm2_file(
        tmp_path / "bad.properties", {"A": cluster_a.bootstrap, "B": secure["sasl_ssl"]},
        ["A->B"], **_b_settings(secure, "not-the-password"),
    )  # fmt: skip
    status, output = MirrorMakerProcess("kconnect", f, "--clusters", "B").run_to_exit(90)
    assert status == 1, output
    error = [line for line in output.splitlines() if "kconnect mirror-maker: error:" in line]
    assert error, output
    assert "cluster 'B'" in error[0] and "sasl.jaas.config" in error[0], output
    assert "B.security.protocol=SASL_SSL" in error[0], output
    assert "not-the-password" not in output  # the secret never shows
