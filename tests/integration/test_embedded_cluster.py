"""kconnect.testing's EmbeddedConnectCluster against the real broker: N in-process distributed
workers form one group with one leader, its waits report a FAILED task with its trace, and
stop() stops every worker and deletes the internal topics."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from kconnect.testing.embedded_cluster import EmbeddedConnectCluster
from kconnect.testing.fixtures import ClusterFactory

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


def _topics(bootstrap: str) -> set[str]:
    from kconnect.kafka.clients.admin import Admin

    return set(Admin({"bootstrap.servers": bootstrap}).topic_partition_counts())


def _worker_threads(cluster: EmbeddedConnectCluster) -> list[str]:
    """Names of live threads of this cluster's workers (internal-topic logs, group client,
    REST servers)."""
    ports = [w.url.rsplit(":", 1)[1] for w in cluster.all_workers]
    return [
        t.name
        for t in threading.enumerate()
        if cluster.group_id in t.name or any(t.name == f"rest-http-{p}" for p in ports)
    ]


def _herders() -> int:
    return sum(t.name == "herder" for t in threading.enumerate())


def test_workers_form_one_group_and_stop_releases_them(kafka_bootstrap: str) -> None:
    herders = _herders()
    cluster = EmbeddedConnectCluster(kafka_bootstrap, workers=2)
    with cluster:
        assert _herders() == herders + 2
        assert sum(n.startswith("rest-http-") for n in _worker_threads(cluster)) == 2
        first, second = cluster.workers
        assert first.worker_id != second.worker_id
        roots = [w.get("/").json() for w in (first, second)]
        assert roots[0]["kafka_cluster_id"] == roots[1]["kafka_cluster_id"]
        # One group, one leader: asked not to forward, only the leader can answer for the
        # cluster (404); the follower refuses (409), as in Kafka.
        codes = sorted(
            w.request("DELETE", "/connectors/nope?forward=false").json()["error_code"]
            for w in cluster.workers
        )
        assert codes == [404, 409]
        assert {cluster.config_topic, cluster.offsets_topic, cluster.status_topic} <= _topics(
            kafka_bootstrap
        )
        urls = [w.url for w in cluster.workers]
    assert cluster.workers == []
    assert _worker_threads(cluster) == []
    assert _herders() == herders
    for url in urls:
        with pytest.raises(httpx.ConnectError):
            httpx.get(url + "/", timeout=5)
    internal = {cluster.config_topic, cluster.offsets_topic, cluster.status_topic}
    cluster.wait_until(
        lambda: not internal & _topics(kafka_bootstrap), "internal topics deleted", timeout_s=30
    )


def test_waits_fail_at_once_on_a_failed_task(
    embedded_cluster: EmbeddedConnectCluster, unique_topic: str, tmp_path: Path
) -> None:
    # The sink task cannot open a file in a directory that does not exist: the task FAILS.
    bad = tmp_path / "missing-dir" / "out.txt"
    embedded_cluster.configure_connector(
        "bad-sink",
        {"connector.class": "FileStreamSink", "file": str(bad), "topics": unique_topic},
    )
    with pytest.raises(AssertionError) as failed:
        embedded_cluster.wait_for_connector_and_tasks_running("bad-sink", tasks=1, timeout_s=120)
    assert "timed out" not in str(failed.value)
    assert "task 0 FAILED" in str(failed.value)
    assert "Couldn't find or create file" in str(failed.value)
    status = embedded_cluster.wait_for_connector_state(
        "bad-sink", "RUNNING", task_state="FAILED", tasks=1
    )
    assert status["tasks"][0]["worker_id"] == embedded_cluster.any_worker().worker_id
    embedded_cluster.delete_connector("bad-sink")
    embedded_cluster.wait_for_connector_gone("bad-sink")
    assert embedded_cluster.connectors() == []


def test_factory_clusters_are_independent(
    embedded_cluster_factory: ClusterFactory, unique_topic: str
) -> None:
    a = embedded_cluster_factory()
    b = embedded_cluster_factory(worker_props={"offset.flush.interval.ms": "1000"})
    assert a.group_id != b.group_id
    a.configure_connector(
        "only-in-a",
        {"connector.class": "FileStreamSource", "file": "/dev/null", "topic": unique_topic},
    )
    a.wait_for_connector_and_tasks_running("only-in-a", tasks=1)
    assert b.connectors() == []
    assert b.any_worker().props["offset.flush.interval.ms"] == "1000"
