"""Generated configuration of the local Kafka node and PostgreSQL cluster, and status output."""

from __future__ import annotations

import base64
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from kconnect.local import kafka, postgres, stack


def _props(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            out[k] = v
    return out


def test_server_properties_for_a_one_node_kraft_cluster(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path))
    props = _props(kafka.server_properties(kafka.KafkaSettings()))
    assert props["process.roles"] == "broker,controller"
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093"
    assert props["advertised.listeners"] == "PLAINTEXT://127.0.0.1:9092"
    assert props["controller.quorum.bootstrap.servers"] == "127.0.0.1:9093"
    assert props["controller.listener.names"] == "CONTROLLER"
    assert props["log.dirs"] == str(tmp_path.resolve() / "kafka" / "data")
    for key in (
        "offsets.topic.replication.factor",
        "transaction.state.log.replication.factor",
        "transaction.state.log.min.isr",
        "num.partitions",
    ):
        assert props[key] == "1", key
    assert props["group.initial.rebalance.delay.ms"] == "0"
    assert props["auto.create.topics.enable"] == "true"


def test_server_properties_follow_ports_and_extra_settings() -> None:
    s = kafka.KafkaSettings(port=19092, controller_port=19093, extra={"num.partitions": "3"})
    props = _props(kafka.server_properties(s))
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
    assert props["num.partitions"] == "3"
    assert s.bootstrap == "127.0.0.1:19092"


def test_stack_options_default_controller_port_is_next_to_kafka() -> None:
    opts = stack.StackOptions(kafka_port=29092)
    assert opts.kafka_settings().controller_port == 29093
    assert (
        stack.StackOptions(kafka_port=29092, controller_port=1234).kafka_settings().controller_port
        == 1234
    )
    assert opts.postgres_settings().port == 5432


def test_random_cluster_id_is_a_kafka_uuid() -> None:
    ids = {kafka.random_cluster_id() for _ in range(200)}
    assert len(ids) == 200
    for cid in ids:
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", cid)
        assert not cid.startswith("-")
        assert len(base64.urlsafe_b64decode(cid + "==")) == 16


def test_kafka_home_distribution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KAFKA_HOME", raising=False)
    assert kafka.kafka_home_distribution() is None
    monkeypatch.setenv("KAFKA_HOME", str(tmp_path))
    assert kafka.kafka_home_distribution() is None  # no libs/
    libs = tmp_path / "libs"
    libs.mkdir()
    for name in ("kafka_2.13-4.0.0.jar", "kafka-clients-4.0.0.jar", "kafka_2.13-4.0.0-test.jar"):
        (libs / name).write_bytes(b"PK")
    dist = kafka.kafka_home_distribution()
    assert dist is not None
    assert dist.version == "4.0.0"
    assert len(dist.classpath) == 3
    assert dist.source == f"KAFKA_HOME={tmp_path}"


def test_java_command_runs_main_with_heap_and_classpath(tmp_path: Path) -> None:
    s = kafka.KafkaSettings(heap="300m")
    cmd = kafka.java_command("/usr/bin/java", s, [tmp_path / "a.jar", tmp_path / "b.jar"],
                             "kafka.Kafka", "server.properties")  # fmt: skip
    assert cmd[0] == "/usr/bin/java"
    assert "-Xmx300m" in cmd
    assert cmd[cmd.index("-cp") + 1] == f"{tmp_path / 'a.jar'}:{tmp_path / 'b.jar'}"
    assert cmd[-2:] == ["kafka.Kafka", "server.properties"]


def test_postgres_dsn_and_conf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path))
    s = postgres.PostgresSettings(port=5544)
    assert s.dsn == "postgresql://kcuser:kcpw@127.0.0.1:5544/kcdb"
    assert postgres.dsn() == "postgresql://kcuser:kcpw@127.0.0.1:5432/kcdb"
    conf = postgres.kconnect_conf(s, Path("/run/x"))
    assert "listen_addresses = '127.0.0.1'" in conf
    assert "port = 5544" in conf
    assert "unix_socket_directories = '/run/x'" in conf
    assert "fsync = off" in conf and "synchronous_commit = off" in conf
    assert "wal_level = logical" in conf  # CDC sources (Debezium, pgoutput)


def test_postgres_socket_dir_falls_back_when_path_too_long(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a home short enough for a socket path (pytest's own tmp_path may not be, under xdist)
    home = Path(tempfile.mkdtemp(prefix="kc-", dir="/tmp"))
    try:
        monkeypatch.setenv("KCONNECT_HOME", str(home))
        short = postgres.socket_dir(postgres.PostgresSettings())
        assert short == home.resolve() / "postgres" / "run"
    finally:
        shutil.rmtree(home, ignore_errors=True)
    monkeypatch.setenv("KCONNECT_HOME", str(tmp_path / ("x" * 120)))
    long = postgres.socket_dir(postgres.PostgresSettings())
    assert len(str(long)) < 100


def test_find_bin_dir_uses_explicit_candidates_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KCONNECT_PG_BIN", str(tmp_path))
    bin_dir = tmp_path / "pg" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("initdb", "pg_ctl", "postgres"):
        (bin_dir / tool).write_text("")
    assert postgres.find_bin_dir([bin_dir]) == bin_dir


def test_status_table_is_aligned() -> None:
    rows = [
        {"service": "kafka", "address": "127.0.0.1:9092", "pid": 12, "state": "running",
         "detail": "Apache Kafka"},
        {"service": "postgres", "address": "127.0.0.1:5432", "pid": None, "state": "stopped",
         "detail": ""},
    ]  # fmt: skip
    lines = stack.format_table(rows).splitlines()
    assert lines[0].split() == ["SERVICE", "ADDRESS", "PID", "STATE", "DETAIL"]
    assert lines[1].split() == ["kafka", "127.0.0.1:9092", "12", "running", "Apache", "Kafka"]
    assert lines[2].split() == ["postgres", "127.0.0.1:5432", "-", "stopped"]
    assert lines[1].index("127.0.0.1") == lines[2].index("127.0.0.1") == lines[0].index("ADDRESS")
