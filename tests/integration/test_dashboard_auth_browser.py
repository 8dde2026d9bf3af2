"""The dashboard behind the REST authentication, in a real browser: a standalone worker with
Kafka's ``BasicAuthSecurityRestExtension`` (JAAS file in ``KAFKA_OPTS``), a read-write user
and a read-only one. The page needs credentials like every endpoint; the read-only user sees
the cluster and its connector but no button, and cannot write through ``/ui/api`` either.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By

from kconnect.testing.ports import free_port
from tests.browser_support import basic, chromium, screenshot, wait_for
from tests.integration.rest_support import (
    WorkerProcess,
    base_props,
    jaas_file,
)

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

BASIC_AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
ALICE = ("alice", "Wombat-5521-Ibis")
VIEWER = ("viewer", "look-only-77")


@pytest.fixture(scope="module")
def worker(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[dict[str, Any]]:
    work = tmp_path_factory.mktemp("dashboard-auth")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    jaas = jaas_file(work, f"{ALICE[0]}={ALICE[1]}\n{VIEWER[0]}={VIEWER[1]},readonly\n")
    props = base_props(kafka_bootstrap, work, port, **{"rest.extension.classes": BASIC_AUTH})
    proc = WorkerProcess(
        work, props, env={"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}
    ).start()
    try:
        proc.wait_ready(url + "/health")
        source = work / "lines.txt"
        source.write_text("one\ntwo\n")
        name = f"file-source-{uuid.uuid4().hex[:6]}"
        created = httpx.post(
            url + "/connectors", auth=ALICE, timeout=30,
            json={"name": name, "config": {
                "connector.class": "FileStreamSource", "file": str(source),
                "topic": f"dashboard-auth-{uuid.uuid4().hex[:6]}", "tasks.max": "1"}},
        )  # fmt: skip
        assert created.status_code == 201, created.text
        yield {"url": url, "name": name}
    finally:
        proc.stop()


def test_the_dashboard_needs_credentials(worker: dict[str, Any]) -> None:
    url = worker["url"]
    for path in ("/ui/", "/ui/assets/app.js", "/ui/api/cluster", "/ui/api/session"):
        r = httpx.get(url + path, timeout=30)
        assert r.status_code == 401, path
        assert r.headers["www-authenticate"].startswith("Basic")
    session = httpx.get(url + "/ui/api/session", auth=VIEWER, timeout=30).json()
    assert session["user"] == "viewer"
    assert httpx.post(url + "/ui/api/session", auth=VIEWER, timeout=30).status_code == 403
    assert httpx.post(url + "/ui/api/session", auth=ALICE, timeout=30).json() == {"writable": True}
    # a read-only user cannot write through the dashboard's own endpoints either
    config = httpx.get(f"{url}/ui/api/connectors/{worker['name']}/config", auth=VIEWER,
                       timeout=30).json()["config"]  # fmt: skip
    refused = httpx.put(f"{url}/ui/api/connectors/{worker['name']}/config", auth=VIEWER,
                        json={"config": {**config, "tasks.max": "2"}}, timeout=30)  # fmt: skip
    assert refused.status_code == 403


def _page(driver: Any, worker: dict[str, Any], fragment: str = "/") -> None:
    driver.get(f"{worker['url']}/ui/#{fragment}")


def test_read_only_users_see_no_buttons(worker: dict[str, Any]) -> None:
    driver = chromium(basic(*VIEWER))
    try:
        _page(driver, worker)
        wait_for(
            driver,
            lambda: (
                driver.find_element(
                    By.CSS_SELECTOR, f'#connector-table tr[data-connector="{worker["name"]}"]'
                ).text.count("RUNNING")
                >= 1
            ),
            "the connector listed for the read-only user",
        )
        assert driver.find_element(By.ID, "session").text.split() == ["viewer", "read-only"]
        _page(driver, worker, f"/connectors/{worker['name']}")
        wait_for(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#task-table tbody tr"),
                 "the task table")  # fmt: skip
        assert driver.find_elements(By.CSS_SELECTOR, "button[data-action]") == []
        screenshot(driver, "07-read-only-connector")
        _page(driver, worker, f"/connectors/{worker['name']}/config")
        field = wait_for(driver, lambda: driver.find_element(By.CSS_SELECTOR, 'input[data-key="file"]'),
                         "the config shown")  # fmt: skip
        assert field.get_attribute("disabled") is not None
        assert driver.find_elements(By.CSS_SELECTOR, "button[data-action]") == []
    finally:
        driver.quit()

    driver = chromium(basic(*ALICE))
    try:
        _page(driver, worker, f"/connectors/{worker['name']}")
        wait_for(driver, lambda: driver.find_element(By.CSS_SELECTOR, "button[data-action=pause]"),
                 "the pause button for a read-write user")  # fmt: skip
        assert driver.find_element(By.ID, "session").text.split() == ["alice", "read-write"]
        screenshot(driver, "08-read-write-connector")
    finally:
        driver.quit()
