"""REST security on real worker processes: between HTTPS workers that require client
certificates, forwarding presents the worker's own."""

from __future__ import annotations

import ssl
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.rest_support import WorkerProcess, free_port
from tests.pki import Pki

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


def _wait(predicate: Any, timeout: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as e:
            last = e
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def _distributed_props(
    bootstrap: str, work: Path, port: int, group: str, **extra: str
) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "2",
        "status.storage.partitions": "2",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "listeners": f"http://127.0.0.1:{port}",
        "session.timeout.ms": "6000",
        "heartbeat.interval.ms": "1000",
        "scheduled.rebalance.max.delay.ms": "3000",
        "task.processes": "1",
        **extra,
    }


def test_forwarding_between_https_workers_with_client_certificates(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    """Both workers require client certificates: a follower reaches the leader with its
    ``listeners.https.*`` key store as the client certificate, as Kafka's RestClient does."""
    pki = Pki(tmp_path)
    key, cert = pki.issue("worker", server=True, client=True)
    group = f"kc-tls-{uuid.uuid4().hex[:10]}"
    ctx = ssl.create_default_context(cafile=str(pki.ca_cert))
    client_key, client_cert = pki.issue("operator", server=False)
    ctx.load_cert_chain(str(client_cert), str(client_key))
    workers, urls = [], []
    for i in range(2):
        work = tmp_path / f"w{i}"
        work.mkdir()
        port = free_port()
        urls.append(f"https://127.0.0.1:{port}")
        props = _distributed_props(kafka_bootstrap, work, port, group, **{
            "listeners": f"https://127.0.0.1:{port}",
            "listeners.https.ssl.keystore.type": "PEM",
            "listeners.https.ssl.keystore.certificate.chain": str(cert),
            "listeners.https.ssl.keystore.key": str(key),
            "listeners.https.ssl.truststore.type": "PEM",
            "listeners.https.ssl.truststore.location": str(pki.ca_cert),
            "listeners.https.ssl.client.auth": "required",
        })  # fmt: skip
        workers.append(WorkerProcess(work, props, mode="distributed").start())
    try:
        for w, url in zip(workers, urls, strict=True):
            w.wait_ready(url + "/", verify=ctx)
            _wait(lambda url=url: httpx.get(url + "/health", verify=ctx).status_code == 200,
                  what=f"{url} healthy")  # fmt: skip
        with pytest.raises(httpx.HTTPError):  # no client certificate: no connection
            httpx.get(urls[0] + "/", verify=ssl.create_default_context(cafile=str(pki.ca_cert)))
        answers = [
            httpx.delete(u + "/connectors/nope?forward=false", verify=ctx).status_code for u in urls
        ]
        assert sorted(answers) == [404, 409], answers
        follower = answers.index(409)
        # forwarded over TLS with the follower's certificate: the leader's answer comes back
        r = httpx.delete(urls[follower] + "/connectors/nope", verify=ctx)
        assert r.json() == {"error_code": 404, "message": "Connector nope not found"}
    finally:
        for w in workers:
            w.stop()
