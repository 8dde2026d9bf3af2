"""connector.client.config.override.policy=Allowlist (KIP-1188) on a real distributed worker.

Validation reports Kafka's error on each refused ``consumer.override.*`` key and a create
with one is refused (400); an allowed override reaches the task's consumer (the broker sees
its ``client.id`` in the sink's consumer group); and a connector stored while the worker
allowed everything fails its task, with the policy's message, once the worker restarts with
the Allowlist policy: a task client is never built with a refused override.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.integration.distributed_support import (
    Cluster,
    WorkerProcess,
    all_running,
    status,
    wait_for,
)

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
REFUSED = (
    "The 'Allowlist' policy does not allow 'max.poll.records' to be overridden in the "
    "connector configuration."
)


class _PolicyCluster(Cluster):
    policy = "All"

    def props(self, port: int) -> str:
        return super().props(port) + (
            "task.processes=1\n"
            f"connector.client.config.override.policy={self.policy}\n"
            "connector.client.config.override.allowlist=client.id,auto.offset.reset\n"
        )


def _consumer_client_ids(bootstrap: str, group: str) -> set[str]:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    described = admin.describe_consumer_groups([group])[group].result(timeout=10)
    return {m.client_id for m in described.members}


def _produce(bootstrap: str, topic: str, value: bytes) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce(topic, value)
    assert producer.flush(30) == 0


def test_allowlist_policy_validation_creation_and_task_clients(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    cluster = _PolicyCluster(tmp_path, kafka_bootstrap)
    tag = uuid.uuid4().hex[:8]
    topic = f"kc_policy_{tag}"
    out = tmp_path / "sink.txt"

    def sink(**overrides: str) -> dict[str, str]:
        return {
            "connector.class": FILE_SINK,
            "topics": topic,
            "file": str(out),
            "consumer.override.auto.offset.reset": "earliest",
            **overrides,
        }

    try:
        # a connector stored while the worker allows every override
        cluster.policy = "All"
        first = cluster.add_worker()
        r = first.request(
            "PUT",
            "/connectors/stored/config",
            json=sink(**{"consumer.override.max.poll.records": "5"}),
        )
        assert r.status_code == 201, r.text
        wait_for(lambda: all_running(first, "stored", 1), what="stored connector running")
        first.stop()

        cluster.policy = "AllowlistConnectorClientConfigOverridePolicy"  # a class-name alias
        worker: WorkerProcess = cluster.add_worker()

        # the stored connector's task is never built with its refused override
        def stored_failed() -> str | None:
            tasks = status(worker, "stored")["tasks"]
            return tasks[0].get("trace") if tasks and tasks[0]["state"] == "FAILED" else None

        trace = wait_for(stored_failed, 90, "stored connector's task FAILED")
        assert "Client Config Overrides not allowed" in trace and REFUSED in trace

        # validation: Kafka's per-key errors, the allowed key has none
        client_id = f"kc-policy-client-{tag}"
        config = sink(
            **{
                "consumer.override.client.id": client_id,
                "consumer.override.max.poll.records": "5",
            }
        )
        r = worker.request(
            "PUT",
            "/connector-plugins/FileStreamSinkConnector/config/validate",
            json={**config, "name": "v"},
        )
        assert r.status_code == 200, r.text
        body = r.json()
        errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]}
        assert body["error_count"] == 1
        assert errors["consumer.override.max.poll.records"] == [REFUSED]
        assert errors["consumer.override.client.id"] == []

        # creation with a refused override: 400 with the same message
        r = worker.request("PUT", "/connectors/refused/config", json=config)
        assert r.status_code == 400, r.text
        assert REFUSED in r.json()["message"]
        assert worker.get("/connectors/refused").status_code == 404

        # an allowed override reaches the task's consumer
        allowed = sink(**{"consumer.override.client.id": client_id})
        r = worker.request("PUT", "/connectors/allowed/config", json=allowed)
        assert r.status_code == 201, r.text
        wait_for(lambda: all_running(worker, "allowed", 1), 90, what="allowed connector running")
        _produce(kafka_bootstrap, topic, b"through-the-allowlist")
        wait_for(
            lambda: out.exists() and "through-the-allowlist" in out.read_text(),
            60,
            "the record in the sink file",
        )
        assert client_id in _consumer_client_ids(kafka_bootstrap, "connect-allowed")
    finally:
        cluster.close()
