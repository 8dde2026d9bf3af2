"""``kconnect status`` rendering from REST answers (no server needed)."""

from __future__ import annotations

from kconnect.cli.main import build_parser
from kconnect.cli.status import _metrics, render

METRICS = """\
# TYPE kafka_connect_source_task_metrics_source_record_poll_rate gauge
kafka_connect_source_task_metrics_source_record_poll_rate{connector="src",task="0"} 12.5
kafka_connect_source_task_metrics_source_record_write_rate{connector="src",task="0"} 12.0
kafka_connect_source_task_metrics_source_record_poll_total{connector="src",task="0"} 250.0
kafka_connect_source_task_metrics_source_record_write_total{connector="src",task="0"} 240.0
kafka_connect_task_error_metrics_total_record_errors{connector="src",task="0"} 3.0
kconnect_task_idle_seconds{connector="src",task="0"} 0.25
"""


def test_render_table_failures_and_workers() -> None:
    data = {
        "url": "http://w:8083",
        "root": {"version": "4.1.0", "kafka_cluster_id": "abc"},
        "connectors": {
            "src": {
                "status": {
                    "name": "src",
                    "connector": {"state": "RUNNING", "worker_id": "w:8083"},
                    "tasks": [
                        {"id": 0, "state": "RUNNING", "worker_id": "w:8083"},
                        {
                            "id": 1,
                            "state": "FAILED",
                            "worker_id": "w2:8083",
                            "trace": "Traceback...\nValueError: disk full\n",
                        },
                    ],
                    "type": "source",
                }
            }
        },
        "metrics": _metrics(METRICS),
    }
    lines = render(data).splitlines()
    assert lines[0] == "Kafka Connect 4.1.0 at http://w:8083 (Kafka cluster abc)"
    row0 = next(line for line in lines if line.startswith("src"))
    assert row0.split() == [
        "src", "source", "RUNNING", "0", "RUNNING", "w:8083",
        "12.5", "12", "250", "240", "3", "-", "0.2",
    ]  # fmt: skip
    assert "! src task 1 FAILED: ValueError: disk full" in lines
    worker_rows = [line.split() for line in lines if line.startswith(("w:", "w2:"))]
    assert worker_rows == [["w2:8083", "0", "1"], ["w:8083", "1", "1"]]


def test_render_without_metrics_endpoint_and_parser_registration() -> None:
    text = render({"url": "u", "root": {}, "connectors": {}, "metrics": None})
    assert "No connectors." in text and "IN/s" not in text
    args = build_parser().parse_args(["status", "--watch", "2"])
    assert args.url == "http://127.0.0.1:8083" and args.watch == 2.0


def test_worker_rows_show_the_jvm_plugin_hosts_of_the_worker_and_its_task_processes() -> None:
    from kconnect.cli.status import _child_processes

    metrics = METRICS + (
        "# TYPE kconnect_child_process_resident_memory_bytes gauge\n"
        'kconnect_child_process_resident_memory_bytes{worker_id="w:8083",'
        'kind="java-plugin-host",pid="4250"} 2.9360128e+08\n'
        'kconnect_child_process_resident_memory_bytes{worker_id="w:8083",'
        'kind="java-plugin-host",pid="4242"} 3.2715571e+08\n'
        'kconnect_child_process_resident_memory_bytes{worker_id="w3:8083",'
        'kind="java-plugin-host",pid="77"} 1.048576e+08\n'
    )
    processes = _child_processes(metrics)
    assert processes == {
        "w:8083": [
            ("java-plugin-host", 4242, 327155710.0),
            ("java-plugin-host", 4250, 293601280.0),
        ],
        "w3:8083": [("java-plugin-host", 77, 104857600.0)],
    }
    data = {
        "url": "http://w:8083",
        "root": {},
        "connectors": {
            "src": {
                "status": {
                    "connector": {"state": "RUNNING", "worker_id": "w:8083"},
                    "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "w2:8083"}],
                    "type": "source",
                }
            }
        },
        "metrics": _metrics(metrics),
        "processes": processes,
    }
    lines = render(data).splitlines()
    header = next(line for line in lines if line.startswith("WORKER"))
    assert header.split() == ["WORKER", "CONNECTORS", "TASKS", "CHILD", "PROCESSES"]
    rows = {line.split()[0]: line for line in lines if line.startswith(("w:", "w2:", "w3:"))}
    assert rows["w:8083"].split()[3:] == [
        "JVM", "pid", "4242", "312", "MiB,", "JVM", "pid", "4250", "280", "MiB",
    ]  # fmt: skip
    assert rows["w2:8083"].split()[1:] == ["0", "1", "-"]
    assert rows["w3:8083"].split()[1:] == ["0", "0", "JVM", "pid", "77", "100", "MiB"]
    # without helper processes, the table is as before
    data["processes"] = {}
    assert "CHILD PROCESSES" not in render(data)
