"""The seed scenario's pure parts: psql/console rendering, the worker properties and connector
JSON it writes, and the demo's pid-file clean-up. Nothing running is needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kconnect.cli.demo_scenario import (
    DOC_MESSAGES,
    Scenario,
    console_line,
    headers_text,
    psql_table,
)
from kconnect.cli.worker_processes import stop_recorded
from kconnect.runtime.config.distributed_config import DistributedConfig


def _props(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out[k] = v
    return out


def test_psql_table_matches_psql_aligned_output() -> None:
    text = psql_table(
        ["id", "user_id", "item"],
        [(1, "user01", "apple"), (2, "user01", "orange"), (5, "user01", "super-apple-0000")],
    )
    assert text.splitlines() == [
        " id | user_id |       item       ",
        "----+---------+------------------",
        "  1 | user01  | apple",
        "  2 | user01  | orange",
        "  5 | user01  | super-apple-0000",
        "(3 rows)",
    ]
    assert psql_table(["point"], [(3,)]).splitlines() == [" point ", "-------", "     3", "(1 row)"]


def test_console_lines_and_headers() -> None:
    p, o, k, v = DOC_MESSAGES["table01"][2]
    assert console_line(p, o, k, v) == (
        'Partition:1\tOffset:0\t{"schema":{"type":"string","optional":true},"payload":"user02"}\t'
        + v
    )
    assert '"name":"table01"},"payload":{"id":3,"user_id":"user02","item":"banana"}}' in v
    assert headers_text((("a", b"1"), ("b", None))) == "a:1,b:NULL"


def test_worker_properties_are_the_documents_adapted_and_valid(tmp_path: Path) -> None:
    s = Scenario(workdir=tmp_path, ports=(9001, 9002, 9003), rebalance_delay_ms=3000)
    props = _props(s.worker_properties("node02"))
    assert props["group.id"] == "mycluster"
    assert props["listeners"] == "HTTP://127.0.0.1:9002"
    assert props["plugin.path"] == "/opt/connectors"
    assert props["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"
    assert props["config.storage.topic"] == "mycluster-configs"
    assert props["offset.storage.replication.factor"] == "1"
    assert props["scheduled.rebalance.max.delay.ms"] == "3000"
    config = DistributedConfig(props)
    assert config.worker_id() == "127.0.0.1:9002"
    assert config.scheduled_rebalance_max_delay_ms == 3000


def test_connector_json_is_the_documents_with_the_local_host(tmp_path: Path) -> None:
    s = Scenario(workdir=tmp_path)
    source, sink = s.source_config(), s.sink_config()
    assert source["name"] == "jdbc_source_postgresql"
    assert source["config"]["connection.url"] == "jdbc:postgresql://127.0.0.1:5432/kcdb"
    assert source["config"]["transforms.extractInt.type"] == (
        "org.apache.kafka.connect.transforms.ExtractField$Key"
    )
    assert sink["config"]["topics"] == "dst_table01,dst_table02"
    assert sink["config"]["errors.deadletterqueue.context.headers.enable"] is True
    assert "transforms" not in sink["config"]
    # a test's prefixed topics are routed back to the document's tables
    t = Scenario(workdir=tmp_path, topic_prefix="seed_ab12_dst_", sink_name="snk")
    cfg = t.sink_config()["config"]
    assert cfg["topics"] == "seed_ab12_dst_table01,seed_ab12_dst_table02"
    assert cfg["transforms.toDocumentTable.regex"] == "seed_ab12_dst_(.*)"
    assert cfg["transforms.toDocumentTable.replacement"] == "dst_$1"
    assert t.sink_group == "connect-snk"


def test_stop_recorded_stops_only_kconnect_workers(tmp_path: Path) -> None:
    # a process that is not a kconnect worker keeps running; its stale pid file goes away
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / "node01.pid").write_text(f"{other.pid}\n")
        (tmp_path / "node02.pid").write_text("not a pid\n")
        assert stop_recorded(tmp_path) == []
        assert other.poll() is None
        assert list(tmp_path.glob("*.pid")) == []
    finally:
        other.kill()
        other.wait()
    assert not os.path.exists(tmp_path / "node01.pid")
