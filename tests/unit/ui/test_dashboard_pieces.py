"""The dashboard's server-side pieces without services: secret masking and restoring,
the metrics history ring buffer and its rates, DLQ header decoding, the rebalance merge,
the packaged files, the demo's closing note, and /ui/api over a real standalone herder's app."""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stdout
from pathlib import Path
from types import SimpleNamespace

from kconnect.kafka.tools.inspection import TopicRecord
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.metrics import MetricGroup, MetricsRegistry
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
