"""The dashboard's server-side pieces without services: secret masking and restoring,
the metrics history ring buffer and its rates, DLQ header decoding, the rebalance merge,
the packaged files, the demo's closing note, and /ui/api over a real standalone herder's app."""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stdout
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from kconnect.kafka.tools.inspection import TopicRecord
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.metrics import MetricGroup, MetricsRegistry
from kconnect.runtime.metrics.registry import MetricName
from kconnect.testing.ports import free_port
from kconnect.ui.assets import asset_names, content_type, read_asset
from kconnect.ui.cluster_view import merge_rebalances
from kconnect.ui.config_masking import mask_config, password_keys_of, restore_hidden
from kconnect.ui.dlq_records import decode_record
from kconnect.ui.metrics_history import MetricsHistory


def test_mask_and_restore_keep_secrets_off_the_page() -> None:
    stored = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.password": "kcpw-secret",
        "db.token": "tok-123456",
        "connection.url": "jdbc:postgresql://kc:pw-in-url@db:5432/kcdb?sslpassword=abcdef",
        "consumer.override.sasl.jaas.config": 'x required password="p4ss";',
        "topics": "t1",
    }
    shown = mask_config(stored, {"db.token"})
    assert shown["connection.password"] == "[hidden]"  # named like a secret
    assert shown["db.token"] == "[hidden]"  # declared PASSWORD
    assert shown["consumer.override.sasl.jaas.config"] == "[hidden]"
    assert (
        shown["connection.url"] == "jdbc:postgresql://kc:[hidden]@db:5432/kcdb?sslpassword=[hidden]"
    )
    assert shown["topics"] == "t1"
    edited = {**shown, "topics": "t1,t2", "db.token": "typed-new-token"}
    restored = restore_hidden(edited, stored, {"db.token"})
    assert restored == {**stored, "topics": "t1,t2", "db.token": "typed-new-token"}


def test_password_keys_of_a_validate_answer() -> None:
    answer = {"configs": [
        {"definition": {"name": "a", "type": "PASSWORD"}, "value": {}},
        {"definition": {"name": "b", "type": "STRING"}, "value": {}},
    ]}  # fmt: skip
    assert password_keys_of(answer) == {"a"}
    assert password_keys_of("not json") == frozenset()


def _task_group(registry: MetricsRegistry, group: str, task: int) -> MetricGroup:
    return MetricGroup(registry, group, {"connector": "c", "task": str(task)})


def test_metrics_history_keeps_chart_metrics_and_serves_counter_rates() -> None:
    clock = MockClock(1_000_000)
    registry = MetricsRegistry(clock=clock)
    values = {"lag": 5.0, "errors": 0.0}
    _task_group(registry, "sink-task-metrics", 0).gauge(
        "sink-record-lag-max", "", lambda: values["lag"]
    )
    _task_group(registry, "task-error-metrics", 0).gauge(
        "total-record-errors", "", lambda: values["errors"]
    )
    _task_group(registry, "sink-task-metrics", 0).gauge(
        "partition-count", "", lambda: 2.0
    )  # not charted
    history = MetricsHistory(registry, "w:1", interval_s=5, keep_s=10)
    for lag, errors in ((5.0, 0.0), (7.0, 10.0), (9.0, 30.0), (11.0, 30.0)):
        values.update(lag=lag, errors=errors)
        history.sample()
        clock.advance(5000)
    body = history.to_json()
    assert body["worker_id"] == "w:1" and body["interval_ms"] == 5000
    assert body["times"] == [1_005_000, 1_010_000, 1_015_000]  # bounded: 10 s / 5 s + 1
    series = {s["metric"]: s["values"] for s in body["series"]}
    assert series == {
        "sink-record-lag-max": [7.0, 9.0, 11.0],
        "record-error-rate": [None, 4.0, 0.0],
    }
    assert history.to_json("other")["series"] == []


def test_metrics_history_follows_tasks_added_and_a_task_process_whose_metrics_changed() -> None:
    clock = MockClock(1_000_000)
    registry = MetricsRegistry(clock=clock)
    _task_group(registry, "sink-task-metrics", 0).gauge("sink-record-lag-max", "", lambda: 1.0)
    remote: list[Any] = [
        (
            (
                MetricName(
                    "sink-record-lag-max", "sink-task-metrics", (("connector", "r"), ("task", "0"))
                ),
            ),
            [2.0],
        )
    ]
    registry.add_source(lambda only: [], lambda only: list(remote))  # fmt: skip
    history = MetricsHistory(registry, "w:1", interval_s=5, keep_s=60)
    history.sample()
    clock.advance(5000)
    _task_group(registry, "sink-task-metrics", 1).gauge("sink-record-lag-max", "", lambda: 3.0)
    remote[0] = (
        (
            MetricName(  # the process restarted: other names, other positions
                "sink-record-lag-max", "sink-task-metrics", (("connector", "r"), ("task", "1"))
            ),
        ),
        [4.0],
    )
    history.sample()  # fmt: skip
    got = {(s["connector"], s["task"]): s["values"] for s in history.to_json()["series"]}
    assert got == {("c", 0): [1.0, 1.0], ("c", 1): [None, 3.0], ("r", 0): [2.0, None],
                   ("r", 1): [None, 4.0]}  # fmt: skip


def test_dlq_headers_are_decoded() -> None:
    record = TopicRecord(0, 7, b'"user01"', b'{"item":"super-apple-0000"}', (
        ("__connect.errors.topic", b"dst_table01"),
        ("__connect.errors.partition", b"0"),
        ("__connect.errors.offset", b"2"),
        ("__connect.errors.stage", b"TASK_PUT"),
        ("__connect.errors.exception.message", b"value too long for type character varying(10)"),
        ("trace-id", b"abc"),
    ))  # fmt: skip
    out = decode_record("dlq", record)
    assert out["dlq"] == {"topic": "dlq", "partition": 0, "offset": 7}
    assert out["error"] == {
        "topic": "dst_table01", "partition": "0", "offset": "2", "stage": "TASK_PUT",
        "exception_message": "value too long for type character varying(10)",
    }  # fmt: skip
    assert out["value"]["json"] == {"item": "super-apple-0000"}
    assert out["key"]["text"] == '"user01"'
    assert out["headers"] == [{"name": "trace-id", "value": "abc"}]
    binary = decode_record("dlq", TopicRecord(0, 8, None, b"\xff\xfe", ()))
    assert binary["value"]["base64"] == "//4=" and binary["key"] == {"text": None}


def test_rebalances_merge_by_generation() -> None:
    def rec(gen: int, done: int, took: float, plus: list[str]) -> dict[str, object]:
        return {"generation": gen, "started_ms": done - 10, "completed_ms": done,
                "duration_ms": took, "leader": "http://a:1/", "protocol": "SESSIONED",
                "assigned": {"connectors": [], "tasks": plus},
                "revoked": {"connectors": [], "tasks": []}, "connectors": 0, "tasks": len(plus)}  # fmt: skip

    merged = merge_rebalances([
        {"id": "b:2", "rebalances": [rec(2, 120, 40.0, ["c-1"])]},
        {"id": "a:1", "rebalances": [rec(1, 50, 5.0, ["c-0"]), rec(2, 110, 70.0, [])]},
    ])  # fmt: skip
    assert [m["generation"] for m in merged] == [2, 1]
    assert merged[0]["duration_ms"] == 70.0 and merged[0]["completed_ms"] == 120
    assert [m["worker"] for m in merged[0]["moves"]] == ["a:1", "b:2"]


def test_assets_are_packaged_and_nothing_else_is_served() -> None:
    names = asset_names()
    for name in ("index.html", "app.js", "style.css", "vendor/uplot/uPlot.iife.min.js",
                 "vendor/uplot/LICENSE"):  # fmt: skip
        assert name in names
    assert read_asset("../routes.py") is None and read_asset("nope.js") is None
    assert content_type("app.js").startswith("text/javascript")
    html = (read_asset("index.html") or b"").decode()
    assert "http" not in html.replace('name="viewport"', "")  # no CDN, nothing remote


def test_the_demo_closing_note_points_at_the_dashboard(tmp_path: Path) -> None:
    from kconnect.cli import demo

    s = SimpleNamespace(url=lambda: "http://127.0.0.1:8083", source_name="src", workdir=tmp_path)
    out = io.StringIO()
    with redirect_stdout(out):
        demo._explore(s)
    assert "Dashboard: http://127.0.0.1:8083/ui" in out.getvalue()


def test_kconnect_ui_is_a_command() -> None:
    from kconnect.cli.main import build_parser

    args = build_parser().parse_args(["ui", "--url", "http://java:8083"])
    assert isinstance(args, argparse.Namespace) and args.url == "http://java:8083"
    assert args.listen == "127.0.0.1:8090"


def test_proxy_in_front_of_nothing_answers_json_saying_what_to_do() -> None:
    from fastapi.testclient import TestClient

    from kconnect.ui.proxy_app import create_proxy_app

    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with TestClient(create_proxy_app(url)) as client:
        page = client.get("/ui/")
        assert page.status_code == 200 and "<title>kconnect dashboard</title>" in page.text
        cluster = client.get("/ui/api/cluster")
        assert cluster.status_code == 502
        body = cluster.json()
        assert body["error_code"] == 502
        assert body["message"].startswith(
            f"Cannot list the connectors: cannot reach the Connect REST API at {url}"
        )
        passed = client.get("/connectors")
        assert passed.status_code == 502 and "check that it runs" in passed.json()["message"]
        assert client.get("/ui/api/worker").status_code == 404
        dlq = client.get("/ui/api/connectors/x/dlq")
        assert dlq.status_code == 502 and "Traceback" not in dlq.text
        session = client.get("/ui/api/session").json()
        assert session["mode"] == "proxy" and session["cluster_url"] == url


def test_rebalance_moves_are_capped_with_the_number_left_out() -> None:
    from kconnect.ui.cluster_view import LIST_CAP

    tasks = [f"c{i}-0" for i in range(LIST_CAP + 7)]
    merged = merge_rebalances([{"id": "a:1", "rebalances": [
        {"generation": 3, "started_ms": 1, "completed_ms": 2, "duration_ms": 1.0,
         "assigned": {"connectors": ["c0"], "tasks": tasks},
         "revoked": {"connectors": [], "tasks": []}},
    ]}])  # fmt: skip
    move = merged[0]["moves"][0]
    assert move["assigned"]["tasks"] == tasks[:LIST_CAP] and move["assigned"]["tasks_more"] == 7
    assert move["assigned"]["connectors"] == ["c0"] and move["assigned"]["connectors_more"] == 0
    assert move["revoked"]["tasks"] == [] and move["revoked"]["tasks_more"] == 0


def test_the_cluster_view_pages_and_filters_thousands_of_connectors() -> None:
    import asyncio

    from kconnect.ui.cluster_client import Answer
    from kconnect.ui.cluster_view import LIST_CAP, ConnectorPage, cluster_view

    def entry(i: int) -> dict[str, object]:
        state = "FAILED" if i % 100 == 7 else "RUNNING"
        worker = "w1:8083" if i % 2 else "w2:8083"
        return {
            "status": {"name": f"conn-{i:04d}", "type": "source",
                       "connector": {"state": state, "worker_id": worker},
                       "tasks": [{"id": 0, "state": state, "worker_id": worker}]},
            "info": {"config": {"connector.class": "FileStreamSource"}},
        }  # fmt: skip

    listing = {f"conn-{i:04d}": entry(i) for i in range(3000)}

    class Client:  # the REST answers of a 3,000-connector cluster with two workers
        target = SimpleNamespace(url="http://w1:8083", app=object())

        async def get(self, path: str, params: object = None) -> Answer:
            if path == "/connectors":
                return Answer(200, listing)
            return Answer(200, {"id": "w1:8083", "leader": "w1:8083"})

        async def worker_get(self, worker: str, path: str, params: object = None) -> Answer:
            return Answer(200, {"id": worker, "kind": "kconnect", "rebalances": []})

        def worker_url(self, worker: str) -> str:
            return "http://" + worker

    def view(page: ConnectorPage | None = None) -> dict[str, object]:
        status, body = asyncio.run(cluster_view(Client(), page))  # type: ignore[arg-type]
        assert status == 200
        return body

    first = view()
    assert [c["name"] for c in first["connectors"]] == [f"conn-{i:04d}" for i in range(50)]
    assert first["connector_page"] == {"offset": 0, "limit": 50, "matching": 3000, "total": 3000,
                                       "states": {"FAILED": 30, "RUNNING": 2970}}  # fmt: skip
    w1 = next(w for w in first["workers"] if w["id"] == "w1:8083")
    assert w1["assigned_connectors"]["count"] == 1500
    assert w1["assigned_connectors"]["first"] == [f"conn-{i:04d}" for i in range(1, 40, 2)]
    assert len(w1["assigned_tasks"]["first"]) == LIST_CAP and w1["assigned_tasks"]["count"] == 1500

    last = view(ConnectorPage(offset=2990, limit=50))
    assert [c["name"] for c in last["connectors"]][-1] == "conn-2999"
    assert len(last["connectors"]) == 10

    failed = view(ConnectorPage(state="FAILED", search="CONN-1"))  # search ignores case
    assert [c["name"] for c in failed["connectors"]] == [f"conn-1{i}07" for i in range(10)]
    assert failed["connector_page"]["matching"] == 10
    assert failed["connector_page"]["total"] == 3000


def test_cluster_view_query_parameters_are_checked() -> None:
    from fastapi.testclient import TestClient

    from kconnect.ui.proxy_app import create_proxy_app

    url = f"http://127.0.0.1:{free_port()}"
    with TestClient(create_proxy_app(url)) as client:
        for query, message in [
            ("limit=0", "Invalid value 0 for query parameter limit: must be at least 1 and at most 1000"),
            ("limit=x", "Invalid value x for query parameter limit: not an integer"),
            ("offset=-1", "Invalid value -1 for query parameter offset: must be at least 0"),
            ("state=sleepy", "Invalid value sleepy for query parameter state: must be one of "
                             "RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED, RESTARTING"),
        ]:  # fmt: skip
            answer = client.get("/ui/api/cluster?" + query)
            assert answer.status_code == 400, query
            assert answer.json() == {"error_code": 400, "message": message}
        # a valid page is passed on (here to a cluster that is not there)
        assert client.get("/ui/api/cluster?state=failed&limit=10").status_code == 502
