"""``kconnect mirror-maker`` (dedicated mode) and the Mirror connectors on a Connect worker,
against a private broker A (started for this module) and the shared broker B:

* ``--clusters B`` runs only the flows into B; with ``dedicated.mode.enable.internal.rest`` each
  flow's REST API answers under ``/<source>/<target>/`` and an unknown flow gets Java's 404,
  and two nodes with the same file share a flow's tasks;
* bad input stops start-up with one line naming the setting: a cluster listed twice, A->B and
  B->A under IdentityReplicationPolicy, a cluster without bootstrap servers, an unreachable
  target, no flow at all;
* on a Connect worker: an unreachable source cluster fails the connector naming
  ``source.cluster.bootstrap.servers``, one alias for both clusters is a validation error on
  ``target.cluster.alias``, and a flow the other way under IdentityReplicationPolicy fails the
  connector as a replication cycle.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.testing.embedded_cluster import EmbeddedConnectCluster
from kconnect.testing.ports import free_port
from tests.integration.mirror_support import (
    IDENTITY,
    MirrorMakerProcess,
    PrivateKafka,
    create_topic,
    list_topics,
    mm2_file,
    private_kafka,
    produce,
    read_all,
    until,
)

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster_a() -> Iterator[PrivateKafka]:
    with private_kafka() as a:
        yield a


def test_clusters_option_runs_the_flows_into_those_clusters_with_rest(
    tmp_path: Path, cluster_a: PrivateKafka, kafka_bootstrap: str
) -> None:
    a, b = cluster_a.bootstrap, kafka_bootstrap
    u = uuid.uuid4().hex[:6]
    sa, ta = f"A{u}", f"B{u}"
    topic = f"d-{u}"
    create_topic(a, topic, 2)
    produce(a, topic, [(i % 2, None, f"v{i}".encode(), None, 0) for i in range(50)])  # 0: now
    create_topic(b, f"back-{u}", 1)  # B->A is enabled too, but this node only runs A->B
    port = free_port()
    f = mm2_file(
        tmp_path / "mm2.properties", {sa: a, ta: b}, [f"{sa}->{ta}", f"{ta}->{sa}"],
        **{"topics": f".*-{u}", "dedicated.mode.enable.internal.rest": "true",
           "listeners": f"http://127.0.0.1:{port}"},
    )  # fmt: skip
    node = MirrorMakerProcess("kconnect", f, "--clusters", ta).start()
    base = f"http://127.0.0.1:{port}"
    try:

        def statuses() -> dict[str, Any]:
            r = httpx.get(f"{base}/{sa}/{ta}/connectors?expand=status", timeout=5)
            r.raise_for_status()
            return {n: s["status"] for n, s in r.json().items()}

        got = until(
            lambda: (s := statuses()) and len(s) == 3
            and all(x["connector"]["state"] == "RUNNING" for x in s.values())
            and s["MirrorSourceConnector"]["tasks"]
            and s["MirrorSourceConnector"]["tasks"][0]["state"] == "RUNNING" and s,
            90, "the A->B connectors RUNNING",
        )  # fmt: skip
        assert set(got) == {
            "MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector",
        }  # fmt: skip
        until(lambda: len(read_all(b, f"{sa}.{topic}")) == 50, 90, "records replicated A->B")

        def mirror_metric(name: str) -> dict[str, float]:
            """MirrorMaker's own metric ``name`` per partition of the remote topic, from the
            flow's /metrics (Prometheus text)."""
            text = httpx.get(f"{base}/{sa}/{ta}/metrics", timeout=5).text
            prefix = f"kafka_connect_mirror_MirrorSourceConnector_{name}{{"
            got = {}
            for line in text.splitlines():
                if line.startswith(prefix) and f'topic="{sa}.{topic}"' in line:
                    labels, value = line[len(prefix) :].rsplit(" ", 1)
                    assert f'source="{sa}"' in labels and f'target="{ta}"' in labels
                    got[labels.split('partition="')[1].split('"')[0]] = float(value)
            return got

        until(
            lambda: mirror_metric("record_count") == {"0": 25.0, "1": 25.0}, 30,
            "MirrorMaker's record-count: the 25 records of each partition",
        )  # fmt: skip
        # "v0".."v49": five values of 2 bytes and twenty of 3 in each partition
        assert mirror_metric("byte_count") == {"0": 70.0, "1": 70.0}
        latency = mirror_metric("replication_latency_ms_max")
        age = mirror_metric("record_age_ms_min")
        assert set(latency) == set(age) == {"0", "1"}
        assert all(0 <= v < 120_000 for v in (*latency.values(), *age.values()))
        config = httpx.get(f"{base}/{sa}/{ta}/connectors/MirrorSourceConnector/config").json()
        assert config["source.cluster.bootstrap.servers"] == a
        assert config["target.cluster.alias"] == ta and config["enabled"] == "true"
        missing = httpx.get(f"{base}/{ta}/{sa}/connectors", timeout=5)
        assert missing.status_code == 404
        assert missing.json()["message"] == (
            f"No replication flow found for source '{ta}' and target '{sa}'"
        )
        assert f"{ta}.back-{u}" not in list_topics(a)  # nothing ran B->A
        assert node.running()
    finally:
        node.stop()
    assert "Traceback" not in node.output()


def test_two_nodes_share_a_flow_through_the_internal_rest_api(
    tmp_path: Path, cluster_a: PrivateKafka, kafka_bootstrap: str
) -> None:
    a, b = cluster_a.bootstrap, kafka_bootstrap
    u = uuid.uuid4().hex[:6]
    sa, ta = f"A{u}", f"B{u}"
    topic = f"two-{u}"
    create_topic(a, topic, 4)
    produce(a, topic, [(i % 4, None, f"v{i}".encode(), None, 0) for i in range(400)])
    nodes, ports = [], [free_port(), free_port()]
    for i, port in enumerate(ports):
        f = mm2_file(
            tmp_path / f"node{i}.properties", {sa: a, ta: b}, [f"{sa}->{ta}"],
            **{"topics": topic, "tasks.max": "4", "emit.heartbeats.enabled": "false",
               "dedicated.mode.enable.internal.rest": "true",
               "listeners": f"http://127.0.0.1:{port}"},
        )  # fmt: skip
        nodes.append(MirrorMakerProcess("kconnect", f).start())
    try:
        url = f"http://127.0.0.1:{ports[0]}/{sa}/{ta}/connectors/MirrorSourceConnector/status"

        def spread() -> set[str] | None:
            status = httpx.get(url, timeout=5).json()
            tasks = status.get("tasks", [])
            if len(tasks) != 4 or any(t["state"] != "RUNNING" for t in tasks):
                return None
            workers = {t["worker_id"] for t in tasks}
            return workers if len(workers) == 2 else None

        # whichever node runs the connector, its task configs reach the leader over the
        # internal REST API (/<source>/<target>/connectors/.../tasks): tasks run on both nodes
        workers = until(spread, 120, "four tasks RUNNING on two nodes")
        assert workers == {f"127.0.0.1:{p}/{sa}->{ta}" for p in ports}  # Java's worker ids
        until(lambda: len(read_all(b, f"{sa}.{topic}")) == 400, 90, "records replicated")
        assert all(n.running() for n in nodes)
    finally:
        for n in nodes:
            n.stop()


@pytest.mark.parametrize(
    "extra, flows, expected",
    [
        ({"X.bootstrap.servers": "127.0.0.1:3"}, ["X->Y"], "cluster alias 'X' is listed twice"),
        ({"replication.policy.class": IDENTITY}, ["X->Y", "Y->X"],
         "replication.policy.class=IdentityReplicationPolicy with both X->Y.enabled and "
         "Y->X.enabled"),
        ({"emit.heartbeats.enabled": "false"}, [], "No source->target replication flows"),
    ],
)  # fmt: skip
def test_bad_files_stop_start_up_naming_the_setting(
    tmp_path: Path, extra: dict[str, str], flows: list[str], expected: str
) -> None:
    clusters = {"X": "127.0.0.1:1", "Y": "127.0.0.1:2"}
    f = mm2_file(tmp_path / "bad.properties", clusters, flows, **extra)
    if "X.bootstrap.servers" in extra:  # the same alias twice in clusters
        f.write_text(f.read_text().replace("clusters = X, Y", "clusters = X, Y, X"))
    status, output = MirrorMakerProcess("kconnect", f).run_to_exit()
    assert status == 1, output
    assert "kconnect mirror-maker: error:" in output and expected in output, output
    assert "Traceback" not in output


def test_missing_or_unreachable_target_clusters_are_named(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    dead = f"127.0.0.1:{free_port()}"
    f = mm2_file(tmp_path / "dead.properties", {"X": kafka_bootstrap, "Y": dead}, ["X->Y"],
                 **{"emit.heartbeats.enabled": "false"})  # fmt: skip
    status, output = MirrorMakerProcess("kconnect", f).run_to_exit()
    assert status == 1, output
    assert f"cannot reach cluster 'Y' at Y.bootstrap.servers={dead}" in output, output
    f.write_text(f.read_text().replace(f"Y.bootstrap.servers = {dead}\n", ""))
    status, output = MirrorMakerProcess("kconnect", f).run_to_exit()
    assert status == 1 and "Y.bootstrap.servers is not set" in output, output


MIRROR_SOURCE = "org.apache.kafka.connect.mirror.MirrorSourceConnector"


@pytest.fixture
def worker(embedded_cluster: EmbeddedConnectCluster) -> EmbeddedConnectCluster:
    return embedded_cluster


def _source_config(a: str, b: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": MIRROR_SOURCE,
        "source.cluster.alias": "A", "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": a, "target.cluster.bootstrap.servers": b,
        "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        "replication.factor": "1", "offset-syncs.topic.replication.factor": "1",
        "admin.timeout.ms": "4000", "sync.topic.acls.enabled": "false",
        **extra,
    }  # fmt: skip


def _failed_trace(worker: EmbeddedConnectCluster, name: str) -> str:
    def failed() -> str | None:
        status = worker.connector_status(name)
        if status and status["connector"]["state"] == "FAILED":
            return str(status["connector"]["trace"])
        return None

    return worker.wait_until(failed, f"connector {name} FAILED", timeout_s=60)


def test_an_unreachable_source_cluster_fails_the_connector_naming_the_setting(
    worker: EmbeddedConnectCluster, kafka_bootstrap: str
) -> None:
    dead = f"127.0.0.1:{free_port()}"
    name = f"mm2-dead-{uuid.uuid4().hex[:6]}"
    worker.configure_connector(name, _source_config(dead, kafka_bootstrap))
    trace = _failed_trace(worker, name)
    assert f"Cannot reach cluster 'A' at source.cluster.bootstrap.servers={dead}" in trace


def test_one_alias_for_both_clusters_is_a_validation_error(
    worker: EmbeddedConnectCluster, kafka_bootstrap: str
) -> None:
    config = _source_config(
        kafka_bootstrap, kafka_bootstrap, **{"target.cluster.alias": "A", "name": "mm2-clash"}
    )
    answer = worker.request(
        "PUT", "/connector-plugins/MirrorSourceConnector/config/validate", json=config
    ).json()
    errors = {
        c["value"]["name"]: c["value"]["errors"] for c in answer["configs"] if c["value"]["errors"]
    }
    assert errors == {
        "target.cluster.alias": [
            "source.cluster.alias and target.cluster.alias are both 'A': the two clusters of a "
            "replication flow need different aliases"
        ]
    }
    created = worker.request("PUT", "/connectors/mm2-clash/config", json=config)
    assert created.status_code == 400 and "both 'A'" in created.json()["message"]


def test_a_reverse_flow_under_identity_policy_fails_as_a_cycle(
    worker: EmbeddedConnectCluster, cluster_a: PrivateKafka, kafka_bootstrap: str
) -> None:
    # a B->A flow's checkpoint connector keeps B.checkpoints.internal on A
    create_topic(cluster_a.bootstrap, "B.checkpoints.internal", 1)
    name = f"mm2-cycle-{uuid.uuid4().hex[:6]}"
    worker.configure_connector(
        name,
        _source_config(cluster_a.bootstrap, kafka_bootstrap,
                       **{"replication.policy.class": IDENTITY, "topics": "nothing-here"}),
    )  # fmt: skip
    trace = _failed_trace(worker, name)
    assert (
        "Replication cycle: A->B runs with replication.policy.class=IdentityReplicationPolicy"
        in trace
    )
    assert "found B.checkpoints.internal on cluster 'A'" in trace
