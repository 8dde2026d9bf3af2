"""The seed walkthrough end to end, as ``kconnect demo`` runs it, with assertions: three
``kconnect distributed`` processes, the article's JDBC source and sink JSON, its rows, its
console-consumer lines byte for byte, the dead letter queue record with its headers, a third
worker taking over tasks, and a ``kill -9``-ed worker's work moving after the rebalance delay.

Isolation: the article's table names are kept (the struct name in every message is the table
name) in a database of this run; topics, group, internal topics, DLQ and connector names carry a
run id (the sink's RegexRouter maps the topics back to the article's dst_ tables).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg")

from kconnect.cli.demo_scenario import (  # noqa: E402
    BAD_INSERT,
    DOC_MESSAGES,
    INSERTS,
    Scenario,
    console_line,
)
from kconnect.testing.ports import free_ports  # noqa: E402

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

DELAY_MS = 3000
SESSION_MS = 6000
SINK = "org.apache.kafka.connect.sink.SinkTask"


@pytest.fixture
def scenario(tmp_path: Path, kafka_bootstrap: str, pg_dsn: str) -> Iterator[Scenario]:
    run = uuid.uuid4().hex[:8]
    database = f"seed_{run}"
    admin = psycopg.connect(pg_dsn, autocommit=True)
    admin.execute(f"CREATE DATABASE {database}")
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    s = Scenario(
        workdir=tmp_path,
        bootstrap=kafka_bootstrap,
        pg_dsn=psycopg.conninfo.make_conninfo(**{**info, "dbname": database}),
        ports=free_ports(3),  # type: ignore[arg-type]
        group_id=f"seed-{run}",
        source_name=f"jdbc_source_postgresql_{run}",
        sink_name=f"jdbc_sink_postgresql_{run}",
        dlq_topic=f"dlq-jdbc-sink-postgresql-{run}",
        topic_prefix=f"seed_{run}_dst_",
        rebalance_delay_ms=DELAY_MS,
        offset_flush_interval_ms=1000,
        worker_extra={"session.timeout.ms": str(SESSION_MS), "heartbeat.interval.ms": "1000"},
        # a killed worker's sink consumers hold their partitions for the consumer session
        # timeout (45 s by default)
        sink_extra={
            "consumer.override.session.timeout.ms": str(SESSION_MS),
            "consumer.override.heartbeat.interval.ms": "1000",
        },
    )
    try:
        yield s
    finally:
        for w in s.workers.values():
            w.kill()
        s.db().close()
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        admin.close()
        from kconnect.kafka.tools.admin_ping import delete_topics

        delete_topics(kafka_bootstrap, [*s.topics, s.dlq_topic, *s.internal_topics])


def test_seed_walkthrough(scenario: Scenario) -> None:
    s = scenario
    assert s.reset() == []  # a fresh run finds nothing to remove
    assert [r[1] for r in s.create_tables()] == ["dst_table01", "dst_table02", "table01", "table02"]
    s.create_topics()
    w1, w2 = s.start_worker("node01"), s.start_worker("node02")

    # -- connector plugins: both JDBC classes, under their Confluent names
    plugins = {p["class"]: p["type"] for p in s.get("/connector-plugins")}
    assert plugins["io.confluent.connect.jdbc.JdbcSourceConnector"] == "source"
    assert plugins["io.confluent.connect.jdbc.JdbcSinkConnector"] == "sink"
    # ... and the seed answer's three MirrorMaker 2 connectors, under Kafka's names
    for name in ("MirrorCheckpointConnector", "MirrorHeartbeatConnector", "MirrorSourceConnector"):
        assert plugins[f"org.apache.kafka.connect.mirror.{name}"] == "source"

    # -- the source: one task per table although tasks.max is 5
    assert s.post_connector(s.source_config())[0] == 201
    assert s.get("/connectors") == [s.source_name]
    source = s.wait(lambda: s.all_running(s.source_name, 2), 60, "source RUNNING")
    assert source["type"] == "source" and [t["id"] for t in source["tasks"]] == [0, 1]
    assert {t["worker_id"] for t in source["tasks"]} <= {w1.worker_id, w2.worker_id}

    # -- the sink: 5 tasks, of which 2 hold the 2 partitions of each topic
    assert s.post_connector(s.sink_config())[0] == 201
    assert sorted(s.get("/connectors")) == sorted([s.source_name, s.sink_name])
    sink = s.wait(lambda: s.all_running(s.sink_name, 5), 60, "sink RUNNING")
    assert sink["type"] == "sink" and [t["id"] for t in sink["tasks"]] == [0, 1, 2, 3, 4]
    holders = s.wait(s.sink_partition_holders, 60, "sink consumer group stable")
    busy = {t: parts for t, parts in holders.items() if parts}
    assert len(busy) == 2, holders
    assert sorted(p for parts in busy.values() for p in parts) == sorted(
        (t, p) for t in s.topics for p in (0, 1)
    )

    # -- rows: source tables → topics → destination tables
    for statement in INSERTS:
        s.insert(statement)
    s.wait(lambda: s.count("dst_table01") == 4 and s.count("dst_table02") == 4, 60, "rows copied")
    for table in ("table01", "table02"):
        assert sorted(s.select(f"dst_{table}")[1]) == sorted(s.select(table)[1])

    # -- the topics hold the article's console-consumer lines, byte for byte
    for table in ("table01", "table02"):
        records = s.topic_records(table)
        got = [
            console_line(r.partition, r.offset, r.key.decode(), r.value.decode()) for r in records
        ]
        assert got == [console_line(*m) for m in DOC_MESSAGES[table]]
        assert {r.partition for r in records if b'"user01"' in r.key} == {0}
        assert {r.partition for r in records if b'"user02"' in r.key} == {1}

    # -- the dead letter queue: super-apple-0000 does not fit varchar(10)
    before = s.select("dst_table01")[1]
    s.insert(BAD_INSERT)
    (dlq,) = s.wait(s.dlq_records, 60, "the DLQ record")
    assert s.select("dst_table01")[1] == before
    assert s.count("table01") == 5
    assert dlq.key == DOC_MESSAGES["table01"][0][2].encode()
    assert (
        dlq.value
        == DOC_MESSAGES["table01"][0][3]
        .replace(
            '"id":1,"user_id":"user01","item":"apple"',
            '"id":5,"user_id":"user01","item":"super-apple-0000"',
        )
        .encode()
    )
    headers = {k: (v or b"").decode() for k, v in dlq.headers}
    holder_of_t1p0 = next(t for t, parts in holders.items() if (s.topic("table01"), 0) in parts)
    assert headers["__connect.errors.topic"] == s.topic("table01")
    assert headers["__connect.errors.partition"] == "0"
    assert headers["__connect.errors.offset"] == "2"
    assert headers["__connect.errors.connector.name"] == s.sink_name
    assert headers["__connect.errors.task.id"] == str(holder_of_t1p0)
    assert headers["__connect.errors.stage"] == "TASK_PUT"
    assert headers["__connect.errors.class.name"] == SINK
    assert headers["__connect.errors.exception.class.name"] == (
        "kconnect.connectors.jdbc.writer.SqlWriteError"
    )
    assert "character varying(10)" in headers["__connect.errors.exception.message"]
    assert "character varying(10)" in headers["__connect.errors.exception.stacktrace"]

    # -- scale-out: node03 joins and takes over some of the work
    w3 = s.start_worker("node03")
    s.wait(lambda: s.settled(lambda ids: w3.worker_id in ids), 60, "work on node03")
    after_join = s.placements()
    assert w3.worker_id in after_join.values()
    assert set(after_join.values()) <= {w1.worker_id, w2.worker_id, w3.worker_id}

    # -- fail-over: kill -9 node02; its connector/tasks run elsewhere after the delay
    on_node02 = sorted(k for k, v in after_join.items() if v == w2.worker_id)
    assert on_node02, f"node02 had no work to move: {after_join}"
    killed = time.monotonic()
    s.kill_worker("node02")
    assert s.placements() == after_join  # nothing moves until the group notices
    s.wait(lambda: s.settled(lambda ids: w2.worker_id not in ids), 60, "node02's work moved")
    took = time.monotonic() - killed
    assert took >= DELAY_MS / 1000, f"moved after {took:.1f} s, before the rebalance delay"
    after_kill = s.placements()
    assert all(after_kill[k] in {w1.worker_id, w3.worker_id} for k in on_node02)
    assert all(after_kill[k] == v for k, v in after_join.items() if v != w2.worker_id)

    # the moved tasks work: the sink group settles and a new row is copied exactly once
    s.wait(s.sink_partition_holders, 60, "sink consumer group stable after the kill")
    s.insert("INSERT INTO table02 (user_id, point) VALUES ('user03', 7)")
    s.wait(lambda: s.count("dst_table02") == 5, 60, "the row inserted after the kill")
    assert len(s.topic_records("table02")) == 5  # no row was published twice
