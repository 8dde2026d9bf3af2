"""kconnect's basic auth, response header rules and CORS beside Apache Kafka Connect 4.1.2's.

One ``ConnectStandalone`` JVM with ``connect-basic-auth-extension`` and one ``kconnect
standalone`` run with the same worker properties and the same JAAS and credentials files
(the JVM gets ``-Djava.security.auth.login.config``, kconnect ``KAFKA_OPTS``, as
``kafka-run-class.sh`` would pass it). Every request goes to both; equal answers are asserted
equal, and where kconnect answers differently on purpose the test asserts both answers:

- the 401 body: Java sends the bare text ``User cannot access the resource.`` labelled
  ``application/json``; kconnect sends ``{"error_code": 401, "message": <the same text>}``
  and a ``WWW-Authenticate: Basic`` challenge, which Java omits;
- malformed credentials (bad base64): Java 500, kconnect 401;
- a CORS preflight: Java runs it through the auth filter (401), kconnect answers it (200).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
import pytest

from kconnect.testing.java import STANDALONE, worker_command
from kconnect.testing.ports import free_port
from tests.integration.rest_support import WorkerProcess, base_props, jaas_file

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]

BASIC_AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MESSAGE = "User cannot access the resource."
RULES = 'set X-Frame-Options: DENY,"add Cache-Control: no-cache, no-store",setDate Expires: 3600000'


class _Java(WorkerProcess):
    def __init__(self, work: Path, props: dict[str, str], jaas: Path) -> None:
        super().__init__(work, props, name="java")
        self.jaas = jaas

    def command(self) -> list[str]:
        return worker_command(
            STANDALONE, [self.props_path], extra_modules=["connect-basic-auth-extension"],
            heap="384m", options=[f"-Djava.security.auth.login.config={self.jaas}"],
        )  # fmt: skip


@pytest.fixture(scope="module")
def urls(
    kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    work = tmp_path_factory.mktemp("security-java")
    jaas = jaas_file(work, "alice=s3cret\nbob=pw,readonly\n")
    extra = {
        "rest.extension.classes": BASIC_AUTH,
        "response.http.headers.config": RULES,
        "access.control.allow.origin": "http://example.com",
        "access.control.allow.methods": "GET,PUT",
    }
    ports = {"java": free_port(), "kc": free_port()}
    (work / "java").mkdir()
    (work / "kc").mkdir()
    java = _Java(
        work / "java", base_props(kafka_bootstrap, work / "java", ports["java"], **extra), jaas
    )
    kc = WorkerProcess(
        work / "kc", base_props(kafka_bootstrap, work / "kc", ports["kc"], **extra),
        env={"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}, name="kc",
    )  # fmt: skip
    out = {k: f"http://127.0.0.1:{p}" for k, p in ports.items()}
    java.start()
    kc.start()
    try:
        for proc, url in ((java, out["java"]), (kc, out["kc"])):
            deadline = time.monotonic() + 120
            # Jetty answers 404 until Connect's resources are in place
            while proc.wait_ready(url + "/connectors", timeout=120).status_code == 404:
                assert time.monotonic() < deadline, proc.log()[-3000:]
                time.sleep(0.5)
        yield out
    finally:
        java.stop()
        kc.stop()


def _both(
    urls: dict[str, str], method: str, path: str, **kw: object
) -> tuple[httpx.Response, httpx.Response]:
    return (
        httpx.request(method, urls["java"] + path, timeout=30, **kw),  # type: ignore[arg-type]
        httpx.request(method, urls["kc"] + path, timeout=30, **kw),  # type: ignore[arg-type]
    )


def test_missing_or_wrong_credentials(urls: dict[str, str]) -> None:
    for auth in (None, ("alice", "wrong"), ("mallory", "s3cret")):
        for path in ("/connectors", "/", "/health", "/connector-plugins", "/admin/loggers"):
            java, kc = _both(urls, "GET", path, auth=auth)
            assert java.status_code == kc.status_code == 401, (path, auth)
            assert java.text == MESSAGE  # bare text...
            assert java.headers["content-type"] == "application/json"  # ...labelled JSON
            assert kc.json() == {"error_code": 401, "message": MESSAGE}
            assert "www-authenticate" not in java.headers
            assert kc.headers["www-authenticate"].startswith("Basic ")


def test_right_credentials_and_unprotected_answers(urls: dict[str, str]) -> None:
    java, kc = _both(urls, "GET", "/connectors", auth=("alice", "s3cret"))
    assert (java.status_code, java.json()) == (kc.status_code, kc.json()) == (200, [])
    java, kc = _both(urls, "GET", "/no/such/path")  # unmatched: no filter, no credentials
    assert (java.status_code, java.json()) == (kc.status_code, kc.json())
    assert kc.status_code == 404
    # the internal task-config endpoint is exempt from basic auth in both (standalone refuses
    # it: Java 500, kconnect 405 -- the existing difference pinned in test_rest_compat_java)
    java, kc = _both(urls, "POST", "/connectors/x/tasks", json=[])
    assert java.status_code == 500 and kc.status_code == 405
    assert java.json()["message"] == kc.json()["message"]


def test_read_only_users_fail_closed_on_java(urls: dict[str, str]) -> None:
    # Java reads "bob=pw,readonly" as the password "pw,readonly"
    java, kc = _both(urls, "GET", "/connectors", auth=("bob", "pw"))
    assert (java.status_code, kc.status_code) == (401, 200)
    java, kc = _both(urls, "GET", "/connectors", auth=("bob", "pw,readonly"))
    assert (java.status_code, kc.status_code) == (200, 401)
    java, kc = _both(urls, "DELETE", "/connectors/x", auth=("bob", "pw"))
    assert (java.status_code, kc.status_code) == (401, 403)


def test_malformed_credentials(urls: dict[str, str]) -> None:
    java, kc = _both(urls, "GET", "/connectors", headers={"Authorization": "Basic !!!"})
    assert java.status_code == 500 and "Illegal base64" in java.json()["message"]
    assert (kc.status_code, kc.json()) == (401, {"error_code": 401, "message": MESSAGE})


def test_response_header_rules(urls: dict[str, str]) -> None:
    for auth, status in ((("alice", "s3cret"), 200), (None, 401)):
        java, kc = _both(urls, "GET", "/connectors", auth=auth)
        assert java.status_code == kc.status_code == status
        for name in ("x-frame-options", "cache-control", "vary"):
            assert java.headers[name] == kc.headers[name], name
        expires = [parsedate_to_datetime(r.headers["expires"]).timestamp() for r in (java, kc)]
        assert abs(expires[0] - expires[1]) < 30 and abs(expires[0] - time.time() - 3600) < 60


def test_cross_origin(urls: dict[str, str]) -> None:
    origin = {"Origin": "http://example.com"}
    java, kc = _both(urls, "GET", "/connectors", headers=origin, auth=("alice", "s3cret"))
    assert java.status_code == kc.status_code == 200
    for name in ("access-control-allow-origin", "vary"):
        assert java.headers[name] == kc.headers[name], name
    for name in ("access-control-allow-credentials", "access-control-allow-methods"):
        assert name not in java.headers and name not in kc.headers, name
    java, kc = _both(urls, "GET", "/connectors", headers={"Origin": "http://evil.com"},
                     auth=("alice", "s3cret"))  # fmt: skip
    assert "access-control-allow-origin" not in java.headers
    assert "access-control-allow-origin" not in kc.headers
    preflight = {**origin, "Access-Control-Request-Method": "PUT"}
    java, kc = _both(urls, "OPTIONS", "/connectors", headers=preflight)
    assert (java.status_code, kc.status_code) == (401, 200)
    for name in ("access-control-allow-origin", "access-control-allow-headers",
                 "access-control-max-age"):  # fmt: skip
        assert java.headers[name] == kc.headers[name], name
    methods = [set(r.headers["access-control-allow-methods"].split(",")) for r in (java, kc)]
    assert methods[0] == methods[1] == {"GET", "PUT"}
