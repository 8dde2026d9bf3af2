"""A kconnect cluster with the FileStream connectors: writes through any worker (forwarded to
the leader), a joining worker takes over work, a worker that stops cleanly hands its work over,
pause/resume/stop/restart/offsets/delete through followers -- on in-process workers
(``embedded_cluster_factory``) -- and, on ``kconnect distributed`` processes, a ``kill -9``-ed
worker's work runs elsewhere within delay + session timeout, SIGTERM exits 0 having left the
group, and no record is lost."""

from __future__ import annotations

import signal
import uuid

import pytest

from tests.integration.distributed_support import (
    Cluster,
    all_running,
    status,
    wait_for,
)

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

DELAY_PLUS_SESSION_S = 3 + 6


@pytest.fixture
def cluster(tmp_path, kafka_bootstrap):
    c = Cluster(tmp_path, kafka_bootstrap)
    yield c
    c.close()


def _lines(path) -> set[str]:
    return set(path.read_text().splitlines()) if path.exists() else set()


def _append(path, start: int, end: int) -> set[str]:
    lines = [f"record-{i}" for i in range(start, end)]
    with open(path, "a") as f:
        f.write("".join(x + "\n" for x in lines))
    return set(lines)


def _workers_of(worker, names: list[str]) -> set[str]:
    out = set()
    for name in names:
        s = status(worker, name)
        out |= {s["connector"]["worker_id"]} | {t["worker_id"] for t in s["tasks"]}
    return out


def _metric(worker, name: str) -> float:
    """The value of an unlabelled metric on a worker's /metrics (NaN if absent)."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(worker.get("/metrics").text):
        for sample in family.samples:
            if sample.name == name:
                return float(sample.value)
    return float("nan")


def _completed_rebalances(worker) -> float:
    return _metric(
        worker, "kafka_connect_connect_worker_rebalance_metrics_completed_rebalances_total"
    )


def _create_file_connectors(w1, w2, src, out, topic: str, sink: str) -> None:
    """A FileStreamSource (1 task) created through ``w2`` and a FileStreamSink (3 tasks)
    through ``w1``: whichever is the follower forwards its create to the leader."""
    r = w2.request("POST", "/connectors", json={"name": "src", "config": {
        "connector.class": "FileStreamSource", "file": str(src), "topic": topic,
        "tasks.max": "1"}})  # fmt: skip
    assert r.status_code == 201, r.text
    assert r.headers["location"] == w2.url + "/connectors/src"  # the asked worker, as Kafka
    r = w1.request("POST", "/connectors", json={"name": sink, "config": {
        "connector.class": "FileStreamSink", "file": str(out), "topics": topic,
        "tasks.max": "3",
        # a killed worker's sink consumer holds its partitions until the consumer session
        # times out (45 s by default); keep that short like the worker group's
        "consumer.override.session.timeout.ms": "6000",
        "consumer.override.heartbeat.interval.ms": "1000"}})  # fmt: skip
    assert r.status_code == 201, r.text


def test_writes_through_any_worker_and_work_moves_on_join_and_leave(
    embedded_cluster_factory, tmp_path
):
    # in-process workers (kconnect.testing.embedded_cluster): what needs no process
    cluster = embedded_cluster_factory(workers=2)
    topic = f"dist-{uuid.uuid4().hex[:8]}"
    sink = f"sink-{uuid.uuid4().hex[:6]}"
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    expected = _append(src, 0, 2000)
    w1, w2 = cluster.workers
    _create_file_connectors(w1, w2, src, out, topic, sink)
    assert w2.request("POST", "/connectors", json={"name": "src", "config": {
        "connector.class": "FileStreamSource", "file": str(src), "topic": topic}}).json() == {
        "error_code": 409, "message": "Connector src already exists"}  # fmt: skip
    names = ["src", sink]
    for w in (w1, w2):  # any worker answers reads for the whole cluster
        wait_for(lambda w=w: all_running(w, "src", 1) and all_running(w, sink, 3),
                 what="connectors RUNNING")  # fmt: skip
        assert sorted(w.get("/connectors").json()) == sorted(names)
    wait_for(lambda: _lines(out) >= expected, what="first 2000 records in the sink file")

    # a third worker joins: some work moves to it and everything keeps running
    rebalances_before = _completed_rebalances(w2)
    w3 = cluster.add_worker()
    wait_for(lambda: w3.worker_id in _workers_of(w1, names), what="work assigned to the new worker")
    cluster.wait_for_connector_and_tasks_running("src", 1)
    cluster.wait_for_connector_and_tasks_running(sink, 3)
    expected |= _append(src, 2000, 3000)
    wait_for(lambda: _lines(out) >= expected, what="records written across the move")
    # the join shows in connect-worker-rebalance-metrics of the workers already there
    wait_for(lambda: _completed_rebalances(w2) > rebalances_before, what="rebalance metrics")
    assert _metric(w2, "kafka_connect_connect_worker_rebalance_metrics_epoch") >= 2

    # a worker that stops cleanly leaves the group: its work runs on the others at once
    cluster.stop_worker(w1)
    survivors = {w2.worker_id, w3.worker_id}
    cluster.wait_for_connector_and_tasks_running("src", 1, on=survivors)
    cluster.wait_for_connector_and_tasks_running(sink, 3, on=survivors)
    expected |= _append(src, 3000, 4000)
    wait_for(lambda: _lines(out) >= expected, what="no record lost across the moves")


def test_killed_worker_work_moves_and_sigterm_leaves_cleanly(cluster, tmp_path):
    # worker processes (distributed_support): kill -9 and exit statuses need real processes
    topic = f"dist-{uuid.uuid4().hex[:8]}"
    # a unique sink name gives a fresh consumer group connect-<name>: killed workers of
    # earlier runs may still hold members of an old one until their sessions expire
    sink = f"sink-{uuid.uuid4().hex[:6]}"
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    expected = _append(src, 0, 2000)
    w1, w2, w3 = cluster.add_worker(), cluster.add_worker(), cluster.add_worker()
    _create_file_connectors(w1, w2, src, out, topic, sink)
    wait_for(lambda: all_running(w1, "src", 1) and all_running(w1, sink, 3),
             what="connectors RUNNING")  # fmt: skip
    wait_for(lambda: _lines(out) >= expected, what="first 2000 records in the sink file")

    # kill -9: the dead worker's work runs elsewhere after delay + session timeout (the wait's
    # bound leaves room for a busy machine; bench/rebalance.py measures the time)
    victim = w1
    victim.stop(signal.SIGKILL)
    survivors = {w2.worker_id, w3.worker_id}
    wait_for(lambda: all_running(w2, "src", 1, survivors) and all_running(w2, sink, 3, survivors),
             timeout=DELAY_PLUS_SESSION_S + 40, what="work moved off the killed worker")  # fmt: skip
    expected |= _append(src, 2000, 3000)
    wait_for(lambda: _lines(out) >= expected, timeout=90, what="records after the kill -9")

    # SIGTERM leaves the group: exit 0 and the last worker runs everything
    assert w2.stop(signal.SIGTERM) == 0, w2.log.read_text()[-3000:]
    wait_for(lambda: all_running(w3, "src", 1, {w3.worker_id})
             and all_running(w3, sink, 3, {w3.worker_id}), what="work on the last worker")  # fmt: skip
    expected |= _append(src, 3000, 4000)
    wait_for(lambda: _lines(out) >= expected, what="no record lost across all moves")


def test_operations_through_a_follower(embedded_cluster_factory, tmp_path):
    topic = f"dist-ops-{uuid.uuid4().hex[:8]}"
    src = tmp_path / "ops-in.txt"
    _append(src, 0, 500)
    workers = embedded_cluster_factory(workers=2).workers
    # the leader answers 404 for an unknown connector; a worker that is asked with
    # forward=false and cannot serve the request answers 409
    answers = {
        w.worker_id: w.request("DELETE", "/connectors/nope?forward=false").json() for w in workers
    }
    follower = next(w for w in workers if answers[w.worker_id]["error_code"] == 409)
    leader = next(w for w in workers if w is not follower)
    assert answers[follower.worker_id]["message"] == (
        "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
    )
    assert answers[leader.worker_id] == {"error_code": 404, "message": "Connector nope not found"}
    assert follower.request("DELETE", "/connectors/nope").json() == {
        "error_code": 404, "message": "Connector nope not found"}  # fmt: skip

    config = {"connector.class": "FileStreamSource", "file": str(src), "topic": topic,
              "tasks.max": "1"}  # fmt: skip
    r = follower.request("PUT", "/connectors/ops/config", json=config)
    assert r.status_code == 201, r.text
    r = follower.request("PUT", "/connectors/ops/config", json={**config, "batch.size": "100"})
    assert r.status_code == 200 and r.json()["config"]["batch.size"] == "100", r.text
    wait_for(lambda: follower.get("/connectors/ops/tasks").json()[0]["config"]["batch.size"]
             == "100", what="task configs regenerated")  # fmt: skip
    wait_for(lambda: all_running(follower, "ops", 1), what="ops RUNNING")
    r = follower.request("PATCH", "/connectors/ops/config", json={"batch.size": None})
    assert r.status_code == 200 and "batch.size" not in r.json()["config"]

    assert follower.request("PUT", "/connectors/ops/pause").status_code == 202
    wait_for(lambda: status(leader, "ops")["connector"]["state"] == "PAUSED"
             and status(leader, "ops")["tasks"][0]["state"] == "PAUSED", what="PAUSED")  # fmt: skip
    assert follower.request("PUT", "/connectors/ops/resume").status_code == 202
    wait_for(lambda: all_running(leader, "ops", 1), what="resumed")

    r = follower.request("POST", "/connectors/ops/restart?includeTasks=true")
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["connector"]["state"] == "RESTARTING"
    assert body["tasks"][0]["state"] == "RESTARTING"
    wait_for(lambda: all_running(leader, "ops", 1), what="running after restart")
    assert follower.request("POST", "/connectors/ops/restart").status_code == 204
    assert follower.request("POST", "/connectors/ops/tasks/0/restart").status_code == 204
    assert follower.request("POST", "/connectors/ops/tasks/7/restart").json() == {
        "error_code": 404, "message": "Unknown task: ops-7"}  # fmt: skip
    wait_for(lambda: all_running(leader, "ops", 1), what="running after task restart")

    def position():
        offsets = follower.get("/connectors/ops/offsets").json()["offsets"]
        return offsets[0]["offset"]["position"] if offsets else 0

    wait_for(lambda: position() > 0, what="committed source offsets")
    r = follower.request("DELETE", "/connectors/ops/offsets")
    assert r.status_code == 400 and "STOPPED state" in r.json()["message"]
    assert follower.request("PUT", "/connectors/ops/stop").status_code == 204
    wait_for(lambda: status(leader, "ops")["connector"]["state"] == "STOPPED"
             and follower.get("/connectors/ops/tasks").json() == [], what="STOPPED")  # fmt: skip
    r = follower.request("PATCH", "/connectors/ops/offsets", json={"offsets": [
        {"partition": {"filename": str(src)}, "offset": {"position": 7}}]})  # fmt: skip
    assert r.status_code == 200, r.text
    assert wait_for(lambda: position() == 7, what="altered offset")
    assert follower.request("PUT", "/connectors/ops/resume").status_code == 202
    wait_for(lambda: all_running(leader, "ops", 1), what="running again after STOPPED")

    assert follower.request("DELETE", "/connectors/ops").status_code == 204
    for w in workers:
        wait_for(lambda w=w: w.get("/connectors/ops").status_code == 404, what="deleted")
        wait_for(lambda w=w: w.get("/connectors/ops/status").status_code == 404,
                 what="status removed")  # fmt: skip
