"""The dashboard in front of Apache Kafka Connect 4.1.2 (the Java worker, jars from Maven
Central): ``kconnect ui --url`` serves the page, a real browser shows the Java worker's
connectors and states, pauses one with the button (the Java worker pauses it), validates its
config through the Java plugin's ConfigDef, and the charts say plainly that a Java worker
keeps no metrics history.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By

from kconnect.testing.java import STANDALONE, worker_command
from kconnect.testing.java_worker import WorkerProcess
from kconnect.testing.ports import free_port
from tests.browser_support import chromium, screenshot, wait_for
from tests.integration.test_rest_compat_java import FILE_SOURCE

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]


@pytest.fixture(scope="module")
def java_cluster(
    kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    work = tmp_path_factory.mktemp("dashboard-java")
    (work / "in.txt").write_text("".join(f"line-{i}\n" for i in range(20)))
    port, ui_port = free_port(), free_port()
    props = work / "java.properties"
    props.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={work / 'java.offsets'}\n"
        f"listeners=http://127.0.0.1:{port}\n"
    )
    java = WorkerProcess(
        worker_command(STANDALONE, [props]),
        work / "java.log",
        url=f"http://127.0.0.1:{port}",
        label="java",
    )
    ui: subprocess.Popen[bytes] | None = None
    try:
        java.wait_ready()
        name = f"java-file-source-{uuid.uuid4().hex[:6]}"
        created = httpx.post(
            java.url + "/connectors", timeout=30,
            json={"name": name, "config": {
                "connector.class": FILE_SOURCE, "file": str(work / "in.txt"), "tasks.max": "1",
                "topic": f"dashboard-java-{uuid.uuid4().hex[:6]}"}},
        )  # fmt: skip
        assert created.status_code == 201, created.text
        with (work / "ui.log").open("wb") as log:
            ui = subprocess.Popen(
                [sys.executable, "-m", "kconnect.cli.main", "ui", "--url", java.url,
                 "--listen", f"127.0.0.1:{ui_port}"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        ui_url = f"http://127.0.0.1:{ui_port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(ui_url + "/ui/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert ui.poll() is None, (work / "ui.log").read_text()
            assert time.monotonic() < deadline, "kconnect ui did not come up"
            time.sleep(0.2)
        yield {"java": java.url, "ui": ui_url, "name": name, "worker_id": f"127.0.0.1:{port}"}
    finally:
        if ui is not None and ui.poll() is None:
            ui.terminate()
            ui.wait(10)
        java.stop()


def test_the_dashboard_shows_and_drives_a_java_worker(java_cluster: dict[str, Any]) -> None:
    c = java_cluster
    driver = chromium()
    try:
        driver.get(c["ui"] + "/ui/#/")
        row = wait_for(
            driver,
            lambda: driver.find_element(By.CSS_SELECTOR, f'tr[data-connector="{c["name"]}"]'),
            "the Java worker's connector listed",
        )
        wait_for(driver, lambda: "RUNNING" in row.text, "RUNNING")
        worker = driver.find_element(
            By.CSS_SELECTOR, f'#worker-table tr[data-worker="{c["worker_id"]}"]'
        )
        assert "Kafka Connect 4.1.2" in worker.text
        screenshot(driver, "09-java-cluster")

        driver.get(f"{c['ui']}/ui/#/connectors/{c['name']}")
        wait_for(driver, lambda: driver.find_element(By.CSS_SELECTOR, "button[data-action=pause]"),
                 "the pause button").click()  # fmt: skip
        wait_for(
            driver,
            lambda: (
                driver.find_element(By.CSS_SELECTOR, "#connector-state .badge").text == "PAUSED"
            ),
            "the Java connector PAUSED",
        )
        status = httpx.get(f"{c['java']}/connectors/{c['name']}/status", timeout=30).json()
        assert status["connector"]["state"] == "PAUSED"
        assert "a kconnect feature" in driver.find_element(By.ID, "auto-restart").text

        driver.get(f"{c['ui']}/ui/#/connectors/{c['name']}/config")
        field = wait_for(driver, lambda: driver.find_element(By.CSS_SELECTOR, 'input[data-key="tasks.max"]'),
                         "the config editor")  # fmt: skip
        wait_for(driver, lambda: driver.find_element(By.ID, "validation-summary").text == "Valid.",
                 "validated by the Java worker")  # fmt: skip
        field.clear()
        field.send_keys("zero")
        error = wait_for(
            driver,
            lambda: driver.find_element(By.CSS_SELECTOR, '[data-error-for="tasks.max"]').text,
            "the Java worker's validation error beside tasks.max",
        )
        assert "zero" in error
        screenshot(driver, "10-java-config-invalid")

        driver.get(f"{c['ui']}/ui/#/connectors/{c['name']}/charts")
        note = wait_for(
            driver, lambda: driver.find_element(By.ID, "charts-note").text, "the charts note"
        )
        assert f"Metrics unavailable for {c['worker_id']}" in note
        screenshot(driver, "11-java-charts")
    finally:
        driver.quit()
        httpx.put(f"{c['java']}/connectors/{c['name']}/resume", timeout=30)
