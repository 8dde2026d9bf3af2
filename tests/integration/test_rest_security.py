"""REST security on real worker processes, configured as Kafka Connect users configure it:
``rest.extension.classes=...BasicAuthSecurityRestExtension`` and the JAAS file in
``KAFKA_OPTS``. A standalone worker: 401 on every public endpoint, read-only users, start-up
errors, no credential in the log even at DEBUG. Two distributed workers: requests forwarded
to the leader carry the caller's credentials (the leader checks them itself), and the
internal task-config writes from a follower are not blocked by basic auth; between HTTPS
workers that require client certificates, forwarding presents the worker's own."""

from __future__ import annotations

import base64
import re
import ssl
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.testing.ports import free_port
from tests.integration.rest_support import WorkerProcess, base_props, jaas_file
from tests.pki import Pki

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

BASIC_AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
UNAUTHORIZED = {"error_code": 401, "message": "User cannot access the resource."}


def _opts(jaas: Path) -> dict[str, str]:
    return {"KAFKA_OPTS": f"-Xmx512m -Djava.security.auth.login.config={jaas}"}


def _concrete(path: str) -> str:
    return (
        path.replace("{connector}", "c").replace("{task}", "0")
        .replace("{plugin_name}", "FileStreamSource").replace("{logger}", "root")
    )  # fmt: skip


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


def test_standalone_worker_with_basic_auth(kafka_bootstrap: str, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    password = "Zebra-8472-Quokka"  # distinctive: must never show up in the log
    jaas = jaas_file(tmp_path, f"alice={password}\nviewer=look,readonly\n")
    props = base_props(kafka_bootstrap, tmp_path, port, **{"rest.extension.classes": BASIC_AUTH})
    worker = WorkerProcess(
        tmp_path, props, env={**_opts(jaas), "KCONNECT_LOG_LEVEL": "DEBUG"}
    ).start()
    alice = ("alice", password)
    try:
        assert worker.wait_ready(url + "/").status_code == 401
        doc = httpx.get(url + "/openapi.json", auth=alice).json()
        operations = 0
        for path, item in doc["paths"].items():
            for method in item:
                # Kafka's exempt internal endpoints (the exactly-once fence came with KIP-618)
                internal = (method, path) in {
                    ("post", "/connectors/{connector}/tasks"),
                    ("put", "/connectors/{connector}/fence"),
                }
                for auth in (None, ("alice", "not-" + password), ("nobody", password)):
                    r = httpx.request(
                        method, url + _concrete(path), auth=auth, content=b"[]", timeout=30
                    )
                    if internal:
                        assert r.status_code != 401, r.text  # signed, not basic-auth'd
                    else:
                        assert (r.status_code, r.json()) == (401, UNAUTHORIZED), (method, path)
                operations += 1
        assert operations >= 31
        malformed = httpx.get(url + "/connectors", headers={"Authorization": "Basic !!!"})
        assert (malformed.status_code, malformed.json()) == (401, UNAUTHORIZED)

        # alice may do everything; the connector runs
        source = tmp_path / "in.txt"
        source.write_text("a\nb\n")
        config = {"connector.class": "FileStreamSource", "file": str(source),
                  "topic": f"sec-{uuid.uuid4().hex[:8]}", "tasks.max": "1"}  # fmt: skip
        r = httpx.post(url + "/connectors", json={"name": "src", "config": config}, auth=alice)
        assert r.status_code == 201, r.text
        _wait(
            lambda: (
                httpx.get(url + "/connectors/src/status", auth=alice).json()["tasks"][0]["state"]
                == "RUNNING"
            ),
            what="task RUNNING",
        )
        # the read-only user reads, and cannot change anything
        viewer = ("viewer", "look")
        assert httpx.get(url + "/connectors", auth=viewer).json() == ["src"]
        for method, path in [("DELETE", "/connectors/src"), ("PUT", "/connectors/src/pause"),
                             ("POST", "/connectors/src/restart")]:  # fmt: skip
            r = httpx.request(method, url + path, auth=viewer)
            assert r.status_code == 403, (method, path, r.text)
        assert (
            httpx.get(url + "/connectors/src/status", auth=viewer).json()["connector"]["state"]
            == "RUNNING"
        )
        assert httpx.delete(url + "/connectors/src", auth=alice).status_code == 204
    finally:
        worker.stop()
    log = worker.log()
    assert "Basic authentication for the REST API" in log
    assert '"GET /connectors" 401' in log  # requests are logged, by method, path and status
    token = base64.b64encode(f"alice:{password}".encode()).decode()
    for secret in (password, token, "not-" + password, "Authorization"):
        assert secret not in log, f"{secret!r} is in the worker's log"


def test_anonymous_health_for_load_balancers(kafka_bootstrap: str, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    jaas = jaas_file(tmp_path, "alice=a\n")
    props = base_props(kafka_bootstrap, tmp_path, port, **{
        "rest.extension.classes": BASIC_AUTH,
        "rest.extension.basic.auth.anonymous.health": "true",
    })  # fmt: skip
    worker = WorkerProcess(tmp_path, props, env=_opts(jaas)).start()
    try:
        worker.wait_ready(url + "/")
        _wait(lambda: httpx.get(url + "/health").status_code == 200, what="healthy")
        assert httpx.get(url + "/health").json()["status"] == "healthy"
        assert httpx.head(url + "/health").status_code == 200
        for path in ("/", "/connectors", "/connector-plugins", "/admin/loggers", "/metrics"):
            assert httpx.get(url + path).status_code == 401, path
    finally:
        worker.stop()
    assert "The configuration 'rest.extension.basic.auth.anonymous.health'" not in worker.log()


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("no KAFKA_OPTS", "set KAFKA_OPTS"),
        ("no KafkaConnect entry", "has no 'KafkaConnect' entry"),
        ("missing credentials file", "Error loading Property Credentials file"),
        ("unknown extension", "rest.extension.classes"),
    ],
)
def test_start_up_errors_are_one_line(
    kafka_bootstrap: str, tmp_path: Path, case: str, message: str
) -> None:
    jaas = jaas_file(tmp_path, "alice=a\n")
    env = _opts(jaas)
    extension = BASIC_AUTH
    if case == "no KAFKA_OPTS":
        env = {"KAFKA_OPTS": "-Xmx1g"}
    elif case == "no KafkaConnect entry":
        jaas.write_text(jaas.read_text().replace("KafkaConnect", "KafkaServer"))
    elif case == "missing credentials file":
        jaas.write_text(jaas.read_text().replace(".credentials.properties", ".nope"))
    else:
        extension = "com.example.NoSuchExtension"
    props = base_props(kafka_bootstrap, tmp_path, free_port(), **{
        "rest.extension.classes": extension})  # fmt: skip
    worker = WorkerProcess(tmp_path, props, env=env).start()
    assert worker.wait_exit(60) == 2  # Kafka Connect's launchers exit 2 on a start-up error
    errors = [line for line in worker.log().splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0], worker.log()[-3000:]
    assert "Traceback" not in worker.log()


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
        "rest.extension.classes": BASIC_AUTH,
        **extra,
    }


def test_forwarded_requests_carry_the_callers_credentials(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    group = f"kc-sec-{uuid.uuid4().hex[:10]}"
    workers, urls, creds = [], [], []
    for i in range(2):
        work = tmp_path / f"w{i}"
        work.mkdir()
        port = free_port()
        jaas = jaas_file(work, "alice=a\ncarol=c\nviewer=v,readonly\n")
        creds.append(work / "jaas.conf.credentials.properties")
        urls.append(f"http://127.0.0.1:{port}")
        props = _distributed_props(kafka_bootstrap, work, port, group)
        workers.append(WorkerProcess(work, props, env=_opts(jaas), mode="distributed").start())
    alice = ("alice", "a")
    try:
        for w, url in zip(workers, urls, strict=True):
            w.wait_ready(url + "/")
            _wait(lambda url=url: httpx.get(url + "/health", auth=alice).status_code == 200,
                  what=f"{url} healthy")  # fmt: skip
        # the leader answers 404 for an unknown connector; a follower asked not to forward, 409
        answers = [
            httpx.delete(u + "/connectors/nope?forward=false", auth=alice).status_code for u in urls
        ]
        assert sorted(answers) == [404, 409], answers
        leader, follower = (0, 1) if answers[0] == 404 else (1, 0)
        # carol is a user of the follower only: the leader must see her credentials and refuse
        creds[leader].write_text("alice=a\nviewer=v,readonly\n")
        base = {"connector.class": "FileStreamSource", "tasks.max": "1"}
        r = httpx.post(urls[follower] + "/connectors", auth=("carol", "c"), json={
            "name": "by-carol", "config": {**base, "file": str(tmp_path / "c.txt"),
                                           "topic": "carol"}})  # fmt: skip
        assert (r.status_code, r.json()) == (401, UNAUTHORIZED), r.text
        r = httpx.post(urls[follower] + "/connectors", auth=("viewer", "v"), json={
            "name": "by-viewer", "config": {**base, "file": "x", "topic": "v"}})  # fmt: skip
        assert r.status_code == 403  # refused where it arrived, not forwarded
        # alice's creates are forwarded with her credentials; connectors land on both workers,
        # so followers post their task configs to the leader's internal endpoint, unsigned by
        # basic auth
        names = [f"src{i}" for i in range(4)]
        for name in names:
            (tmp_path / f"{name}.txt").write_text("x\n")
            r = httpx.post(urls[follower] + "/connectors", auth=alice, timeout=60, json={
                "name": name, "config": {**base, "file": str(tmp_path / f"{name}.txt"),
                                         "topic": f"{group}-{name}"}})  # fmt: skip
            assert r.status_code == 201, r.text
            assert r.headers["location"] == f"{urls[follower]}/connectors/{name}"

        def states() -> list[dict[str, Any]]:
            return [httpx.get(f"{urls[leader]}/connectors/{n}/status", auth=alice).json()
                    for n in names]  # fmt: skip

        def all_running() -> bool:
            return all(
                s["connector"]["state"] == "RUNNING" and [t["state"] for t in s["tasks"]]
                == ["RUNNING"] for s in states()
            )  # fmt: skip

        _wait(all_running, timeout=90, what="every connector and task RUNNING")
        follower_id = f"127.0.0.1:{urls[follower].rsplit(':', 1)[1]}"
        assert any(s["connector"]["worker_id"] == follower_id for s in states()), states()
    finally:
        for w in workers:
            w.stop()
    # the follower's task configs reached the leader through the internal endpoint
    assert re.search(r'"POST /connectors/src\d/tasks" 204', workers[leader].log())


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
        del props["rest.extension.classes"]
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
        # connectors on both workers: the follower's sends its task configs to the leader's
        # internal endpoint over TLS with its certificate too
        source = tmp_path / "in.txt"
        source.write_text("a\n")
        names = [f"tls-src-{i}" for i in range(2)]
        for name in names:
            config = {"connector.class": "FileStreamSource", "file": str(source), "topic": group}
            r = httpx.put(f"{urls[follower]}/connectors/{name}/config", json=config, verify=ctx)
            assert r.status_code == 201, r.text

        def tasks_running() -> bool:
            owners = set()
            for name in names:
                s = httpx.get(f"{urls[0]}/connectors/{name}/status", verify=ctx).json()
                if [t["state"] for t in s["tasks"]] != ["RUNNING"]:
                    return False
                owners.add(s["connector"]["worker_id"])
            return len(owners) == 2  # one connector on the follower

        _wait(tasks_running, what="both connectors' tasks RUNNING, one connector per worker")
        # the dashboard of the follower reaches the leader the same way (its worker info)
        view = httpx.get(urls[follower] + "/ui/api/cluster", verify=ctx, timeout=30).json()
        ids = sorted(u.removeprefix("https://") for u in urls)
        assert [w["id"] for w in view["workers"]] == ids
        assert all(w["reachable"] and w["kind"] == "kconnect" for w in view["workers"]), view
        assert [w["is_leader"] for w in view["workers"]].count(True) == 1
    finally:
        for w in workers:
            w.stop()
