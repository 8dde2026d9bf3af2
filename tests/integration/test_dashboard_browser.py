"""The dashboard in a real browser (headless Chromium through Selenium) against a real
cluster: two ``kconnect distributed`` workers running the seed walkthrough's JDBC source and
sink against the real Kafka and PostgreSQL, with the over-long ``item`` row in the dead letter
queue. One cluster and one browser serve every test of the module; each test leaves the
connectors RUNNING. Screenshots are saved under ``test-artifacts/dashboard/``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

psycopg = pytest.importorskip("psycopg")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402

from kconnect.cli.demo_scenario import BAD_INSERT, INSERTS, Scenario  # noqa: E402
from kconnect.testing.ports import free_ports  # noqa: E402
from tests.browser_support import chromium, screenshot, wait_for  # noqa: E402

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str, pg_dsn: str
) -> Iterator[Scenario]:
    """The walkthrough's cluster: 2 workers, source and sink RUNNING, rows copied, one DLQ
    record (super-apple-0000 does not fit varchar(10))."""
    run = uuid.uuid4().hex[:8]
    database = f"ui_{run}"
    admin = psycopg.connect(pg_dsn, autocommit=True)
    admin.execute(f"CREATE DATABASE {database}")
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    s = Scenario(
        workdir=tmp_path_factory.mktemp("dashboard"),
        bootstrap=kafka_bootstrap,
        pg_dsn=psycopg.conninfo.make_conninfo(**{**info, "dbname": database}),
        ports=free_ports(3),  # type: ignore[arg-type]
        group_id=f"ui-{run}",
        source_name=f"jdbc_source_postgresql_{run}",
        sink_name=f"jdbc_sink_postgresql_{run}",
        dlq_topic=f"dlq-jdbc-sink-postgresql-{run}",
        topic_prefix=f"ui_{run}_dst_",
        rebalance_delay_ms=3000,
        offset_flush_interval_ms=1000,
    )
    try:
        s.create_tables()
        s.create_topics()
        s.start_worker("node01")
        s.start_worker("node02")
        assert s.post_connector(s.source_config())[0] == 201
        assert s.post_connector(s.sink_config())[0] == 201
        s.wait(lambda: s.all_running(s.source_name, 2), 90, "source RUNNING")
        s.wait(lambda: s.all_running(s.sink_name, 5), 90, "sink RUNNING")
        for statement in INSERTS:
            s.insert(statement)
        s.wait(lambda: s.count("dst_table01") == 4, 60, "rows copied")
        s.insert(BAD_INSERT)
        s.wait(s.dlq_records, 60, "the DLQ record")
        yield s
    finally:
        for w in s.workers.values():
            w.kill()
        s.db().close()
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        admin.close()
        from kconnect.kafka.tools.admin_ping import delete_topics

        delete_topics(kafka_bootstrap, [*s.topics, s.dlq_topic, *s.internal_topics])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser: Any, s: Scenario, fragment: str = "/") -> None:
    browser.get(f"{s.url()}/ui/#{fragment}")


def _connector_states(browser: Any) -> dict[str, str]:
    """The connector table as {name: state badge}, read in one script call: the page re-renders
    the table every few seconds, and elements found one call apart may belong to two renders."""
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#connector-table tbody tr')).map(r => ["
        "r.getAttribute('data-connector'),"
        "(r.querySelector('.connector-state .badge') || {}).textContent || ''])"
    )
    return {name: state.strip() for name, state in rows}


def test_cluster_view_lists_connectors_workers_and_a_pause_button_pauses(
    cluster: Scenario, browser: Any
) -> None:
    s = cluster
    _open(browser, s)
    want = {s.source_name: "RUNNING", s.sink_name: "RUNNING"}
    wait_for(browser, lambda: _connector_states(browser) == want, "both connectors RUNNING")
    workers = wait_for(
        browser,
        lambda: [r.get_attribute("data-worker") for r in
                 browser.find_elements(By.CSS_SELECTOR, "#worker-table tbody tr")] or None,
        "the workers table",
    )  # fmt: skip
    assert sorted(workers) == sorted(w.worker_id for w in s.workers.values())
    assert browser.find_elements(By.CSS_SELECTOR, "#worker-table .badge.leader")
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#rebalance-table tbody tr"),
             "the rebalance history")  # fmt: skip
    screenshot(browser, "01-cluster")

    # the source's page: pause it with the button
    browser.find_element(By.LINK_TEXT, s.source_name).click()
    pause = wait_for(
        browser, lambda: browser.find_element(By.CSS_SELECTOR, "button[data-action=pause]"),
        "the pause button",
    )  # fmt: skip
    pause.click()
    wait_for(
        browser,
        lambda: browser.find_element(By.CSS_SELECTOR, "#connector-state .badge").text == "PAUSED",
        "the connector shown PAUSED",
    )
    assert s.status(s.source_name)["connector"]["state"] == "PAUSED"
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#task-table tbody tr"),
             "the task table")  # fmt: skip
    screenshot(browser, "02-connector-paused")

    _open(browser, s)
    wait_for(
        browser,
        lambda: _connector_states(browser) == {**want, s.source_name: "PAUSED"},
        "the cluster view showing PAUSED",
    )
    screenshot(browser, "03-cluster-paused")
    httpx.put(f"{s.url()}/connectors/{s.source_name}/resume", timeout=30).raise_for_status()
    wait_for(browser, lambda: _connector_states(browser) == want, "RUNNING again after resume")


def test_an_invalid_config_shows_the_error_next_to_its_field(
    cluster: Scenario, browser: Any
) -> None:
    s = cluster
    _open(browser, s, f"/connectors/{s.sink_name}/config")
    field = wait_for(
        browser,
        lambda: browser.find_element(By.CSS_SELECTOR, 'input[data-key="errors.tolerance"]'),
        "the errors.tolerance field",
    )
    wait_for(browser, lambda: browser.find_element(By.ID, "validation-summary").text == "Valid.",
             "the stored config validated")  # fmt: skip
    password = browser.find_element(By.CSS_SELECTOR, 'input[data-key="connection.password"]')
    assert password.get_attribute("value") == "[hidden]"
    assert "kcpw" not in browser.page_source

    field.clear()
    field.send_keys("sometimes")
    error = wait_for(
        browser,
        lambda: browser.find_element(
            By.CSS_SELECTOR, 'tr[data-key="errors.tolerance"] [data-error-for="errors.tolerance"]'
        ),
        "the validation error beside errors.tolerance",
    )
    assert "sometimes" in error.text and "errors.tolerance" in error.text
    row = browser.find_element(By.CSS_SELECTOR, 'tr[data-key="errors.tolerance"]')
    assert "invalid" in (row.get_attribute("class") or "")
    assert "'all' skips problematic records" in row.text  # the key's documentation beside it
    assert "error(s)" in browser.find_element(By.ID, "validation-summary").text
    screenshot(browser, "04-config-invalid")
    # nothing was saved
    assert s.get(f"/connectors/{s.sink_name}/config")["errors.tolerance"] == "all"


def _painted_pixels(browser: Any, chart: str) -> int:
    """Pixels of the first series' colour (#1f77b4) on the chart's canvas."""
    return int(
        browser.execute_script(
            """
            const canvas = document.querySelector(`[data-chart="${arguments[0]}"] canvas`);
            if (!canvas) return 0;
            const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 4) {
              if (Math.abs(d[i] - 0x1f) < 40 && Math.abs(d[i + 1] - 0x77) < 40 &&
                  Math.abs(d[i + 2] - 0xb4) < 40 && d[i + 3] > 128) n++;
            }
            return n;
            """,
            chart,
        )
    )


def test_a_chart_draws_data_points_from_every_worker(cluster: Scenario, browser: Any) -> None:
    s = cluster
    _open(browser, s, f"/connectors/{s.sink_name}/charts")

    def points() -> int:
        plot = browser.find_element(By.CSS_SELECTOR, '[data-chart="records-in"]')
        return int(plot.get_attribute("data-points") or 0)

    wait_for(browser, lambda: points() >= 4, "data points on the records-in chart", 60)
    wait_for(browser, lambda: _painted_pixels(browser, "records-in") > 50, "the lines drawn")
    # every task's series, from both workers (the sink's 5 tasks are spread over them)
    legend = browser.find_element(By.CSS_SELECTOR, '[data-chart="records-in"] .u-legend').text
    for w in s.workers.values():
        assert w.worker_id in legend
    note = browser.find_element(By.ID, "charts-note").text
    assert "From 2 worker(s)" in note and "unavailable" not in note
    screenshot(browser, "05-charts")


def test_the_dlq_view_shows_the_over_long_item_with_its_postgresql_error(
    cluster: Scenario, browser: Any
) -> None:
    s = cluster
    _open(browser, s, f"/connectors/{s.sink_name}/dlq")
    record = wait_for(
        browser, lambda: browser.find_element(By.CSS_SELECTOR, "article.dlq-record"),
        "a DLQ record",
    )  # fmt: skip
    text = record.text
    assert "super-apple-0000" in record.find_element(By.CSS_SELECTOR, ".dlq-value").text
    assert record.find_element(By.CSS_SELECTOR, ".dlq-stage").text == "TASK_PUT"
    message = record.find_element(By.CSS_SELECTOR, ".dlq-message").text
    assert "character varying(10)" in message
    assert f"from {s.topic('table01')}[0]@2" in text
    assert "kconnect.connectors.jdbc.writer.SqlWriteError" in text
    assert "org.apache.kafka.connect.sink.SinkTask" in text
    screenshot(browser, "06-dlq")


def test_offsets_of_a_stopped_connector_can_be_altered(cluster: Scenario, browser: Any) -> None:
    s = cluster
    _open(browser, s, f"/connectors/{s.source_name}/offsets")
    wait_for(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#offset-table tbody tr"),
             "the source's committed offsets")  # fmt: skip
    assert "table01" in browser.find_element(By.ID, "offset-table").text
    assert not browser.find_elements(By.CSS_SELECTOR, "button[data-action=alter-offsets]")
    wait_for(browser, lambda: browser.find_element(By.CSS_SELECTOR, "button[data-action=stop]"),
             "the stop button").click()  # fmt: skip
    alter = wait_for(
        browser,
        lambda: browser.find_element(By.CSS_SELECTOR, "button[data-action=alter-offsets]"),
        "the alter button once STOPPED",
    )
    assert s.status(s.source_name)["connector"]["state"] == "STOPPED"
    before = s.get(f"/connectors/{s.source_name}/offsets")
    alter.click()  # the editor holds the current offsets: altering to them changes nothing
    wait_for(
        browser,
        lambda: "altered successfully" in browser.find_element(By.ID, "toast").text,
        "Kafka Connect's answer to the alter request",
    )
    screenshot(browser, "06b-offsets-stopped")
    assert s.get(f"/connectors/{s.source_name}/offsets") == before
    browser.find_element(By.CSS_SELECTOR, "button[data-action=resume]").click()
    s.wait(lambda: s.all_running(s.source_name, 2), 60, "source RUNNING after resume")


def test_ui_api_errors_are_json_and_secrets_stay_hidden(cluster: Scenario) -> None:
    s = cluster
    missing = httpx.get(f"{s.url()}/ui/api/connectors/no-such/config", timeout=30)
    assert missing.status_code == 404
    assert missing.json() == {
        "error_code": 404,
        "message": "Cannot read connector no-such: Connector no-such not found",
    }
    config = httpx.get(f"{s.url()}/ui/api/connectors/{s.sink_name}/config", timeout=30).json()
    assert config["config"]["connection.password"] == "[hidden]"
    assert "connection.password" in config["password_keys"]
    # an edit that keeps [hidden] keeps the stored password
    edited = {**config["config"], "batch.size": "1000"}
    saved = httpx.put(f"{s.url()}/ui/api/connectors/{s.sink_name}/config",
                      json={"config": edited}, timeout=60)  # fmt: skip
    assert saved.status_code == 200, saved.text
    stored = s.get(f"/connectors/{s.sink_name}/config")
    assert stored["connection.password"] == "kcpw" and stored["batch.size"] == "1000"
    assert "kcpw" not in saved.text
    s.wait(lambda: s.all_running(s.sink_name, 5), 60, "sink RUNNING after the edit")
    # the leader names every group member (the cluster view lists idle workers from it)
    infos = [httpx.get(f"{w.url}/ui/api/worker", timeout=30).json() for w in s.workers.values()]
    (leader,) = [i for i in infos if i["is_leader"]]
    assert leader["members"] == sorted(w.worker_id for w in s.workers.values())
    assert [i["members"] for i in infos if not i["is_leader"]] == [[]]
    assert all(i["uptime_ms"] > 0 and i["mode"] == "distributed" for i in infos)
    page = httpx.get(f"{s.url()}/ui/", timeout=30)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert httpx.get(f"{s.url()}/ui/assets/../app.py", timeout=30).status_code == 404


def test_the_connector_list_is_paged_and_filtered(cluster: Scenario, browser: Any) -> None:
    """58 connectors (the walkthrough's 2 and 56 STOPPED ones): the list shows 50 a page, the
    state chips and the search box filter it on the server (``/ui/api/cluster?offset&search``)."""
    s = cluster
    names = [f"zz-many-{i:02d}" for i in range(56)]
    try:
        for name in names:
            created = httpx.post(f"{s.url()}/connectors", timeout=60, json={
                "name": name, "initial_state": "STOPPED",
                "config": {"connector.class": "FileStreamSource", "topic": f"{name}-t",
                           "file": str(s.workdir / f"{name}.txt")},
            })  # fmt: skip
            assert created.status_code == 201, created.text
        _open(browser, s)

        def page_text() -> str:
            return str(browser.find_element(By.ID, "connector-page").text)

        wait_for(browser, lambda: page_text() == "1-50 of 58" and len(_connector_states(browser)) == 50,
                 "the first page of 58")  # fmt: skip
        assert browser.find_element(By.ID, "page-prev").get_attribute("disabled") is not None
        browser.find_element(By.ID, "page-next").click()
        wait_for(browser, lambda: page_text() == "51-58 of 58"
                 and sorted(_connector_states(browser)) == names[48:], "the second page")  # fmt: skip
        screenshot(browser, "07-cluster-page-2")

        def click_stopped_chip() -> bool:
            chip = next(b for b in browser.find_elements(By.CSS_SELECTOR, "#connector-states button")
                        if "STOPPED" in b.text)  # fmt: skip
            assert chip.text == "STOPPED 56"
            chip.click()  # the STOPPED ones only, from their first page
            return True

        wait_for(browser, click_stopped_chip, "the STOPPED chip")
        wait_for(browser, lambda: page_text() == "1-50 of 56"
                 and set(_connector_states(browser).values()) == {"STOPPED"},
                 "STOPPED connectors only")  # fmt: skip

        search = browser.find_element(By.ID, "connector-search")
        search.send_keys("MANY-5")  # a name substring, any case
        wait_for(browser, lambda: sorted(_connector_states(browser)) == names[50:],
                 "the search's matches")  # fmt: skip
        assert page_text() == "1-6 of 6"
        search.clear()
        search.send_keys("no-such-connector")
        wait_for(browser, lambda: page_text() == "none match", "no match")
        assert "No connector matches the filter." in browser.find_element(By.ID, "connectors").text
    finally:
        for name in names:
            httpx.delete(f"{s.url()}/connectors/{name}", timeout=60)
