"""Bad days: the broker or the database goes away for 20 s under a running pipeline.

Each test starts a private Apache Kafka or PostgreSQL with ``kconnect local`` (its own home
and ports, so the shared stack other tests use is never stopped), runs a real worker process
against it, stops the service for 20 s with ``kconnect local stop`` and starts it again:

* broker down under a FileStream pipeline: nothing lost, both tasks RUNNING, no ERROR line
  and at most a few lines per Kafka client (the first failure, the "reachable again" line);
* PostgreSQL down under a JDBC upsert sink with 200,000 rows queued: every row lands exactly
  once and the task is RUNNING afterwards;
* PostgreSQL restarted under the native Debezium source while changes stream: every change
  exactly once, the task RUNNING throughout.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from kconnect.local import paths
from kconnect.testing.ports import free_port
from tests.integration.distributed_support import wait_for

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

OUTAGE_S = 20.0


class PrivateService:
    """One service of a private ``kconnect local`` stack (its own KCONNECT_HOME)."""

    def __init__(self, service: str, port: int) -> None:
        self.service = service
        self.port = port
        # its own free port: `local` would otherwise take port + 1 for the KRaft controller,
        # which may be some other socket's ephemeral port
        self.controller_port = free_port()
        # PostgreSQL runs as an unprivileged user: the home must be traversable by it.
        self.home = Path(f"/tmp/kconnect-outage-{uuid.uuid4().hex[:8]}")
        self.home.mkdir(mode=0o755)
        os.chmod(self.home, 0o755)
        shared_cache = paths.cache_dir()
        if shared_cache.is_dir():  # the jars resolved once already
            (self.home / "cache").symlink_to(shared_cache)

    def _local(self, *args: str) -> None:
        only = "--kafka-only" if self.service == "kafka" else "--postgres-only"
        if self.service == "kafka":
            port = ["--kafka-port", str(self.port), "--controller-port", str(self.controller_port)]
        else:
            port = ["--pg-port", str(self.port)]
        done = subprocess.run(
            [sys.executable, "-m", "kconnect.cli.main", "local", *args, only, *port],
            env={**os.environ, "KCONNECT_HOME": str(self.home)},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, (
            f"kconnect local {' '.join(args)} {self.service} failed ({done.returncode}):\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )

    def start(self) -> None:
        self._local("start")

    def stop(self) -> None:
        self._local("stop")

    def purge(self) -> None:
        try:
            subprocess.run(
                [sys.executable, "-m", "kconnect.cli.main", "local", "stop", "--purge"],
                env={**os.environ, "KCONNECT_HOME": str(self.home)},
                capture_output=True,
                timeout=120,
            )
        finally:
            subprocess.run(["rm", "-rf", str(self.home)], check=False)


@contextmanager
def private(service: str) -> Iterator[PrivateService]:
    svc = PrivateService(service, free_port())
    try:
        svc.start()
        yield svc
    finally:
        svc.purge()


class StandaloneWorker:
    """``kconnect standalone`` with connector files, its log captured."""

    def __init__(self, tmp: Path, bootstrap: str, connectors: list[dict[str, str]]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "worker.log"
        props = tmp / "worker.properties"
        props.write_text(
            f"bootstrap.servers={bootstrap}\n"
            "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
            "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
            f"offset.storage.file.filename={tmp / 'offsets'}\n"
            "offset.flush.interval.ms=1000\n"
            f"listeners=http://127.0.0.1:{self.port}\n"
        )
        files = []
        for i, c in enumerate(connectors):
            f = tmp / f"connector{i}.properties"
            f.write_text("".join(f"{k}={v}\n" for k, v in c.items()))
            files.append(str(f))
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kconnect.cli.main", "standalone", str(props), *files],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        wait_for(lambda: httpx.get(self.url + "/health", timeout=5).status_code == 200,
                 what=f"worker healthy; see {self.log}")  # fmt: skip

    def states(self) -> dict[str, list[str]]:
        data = httpx.get(self.url + "/connectors?expand=status", timeout=10).json()
        return {
            name: [v["status"]["connector"]["state"]] + [t["state"] for t in v["status"]["tasks"]]
            for name, v in data.items()
        }

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def lines_of(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except FileNotFoundError:
        return []


def test_a_broker_outage_loses_nothing_and_stays_quiet(tmp_path: Path) -> None:
    lines = 400_000
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_text("".join(f"line-{i}\n" for i in range(lines)))
    with private("kafka") as kafka:
        bootstrap = f"127.0.0.1:{kafka.port}"
        topic = f"outage-{uuid.uuid4().hex[:6]}"
        worker = StandaloneWorker(
            tmp_path,
            bootstrap,
            [
                {
                    "name": "src",
                    "connector.class": "FileStreamSource",
                    "file": str(src),
                    "topic": topic,
                    "batch.size": "200",
                },
                {
                    "name": "sink",
                    "connector.class": "FileStreamSink",
                    "file": str(out),
                    "topics": topic,
                },
            ],
        )
        try:
            wait_for(lambda: len(lines_of(out)) > 1000, what="the pipeline moving")
            before = worker.log.read_text().count("\n")
            kafka.stop()
            stopped = time.monotonic()
            time.sleep(OUTAGE_S)
            kafka.start()
            restarted = time.monotonic()
            wait_for(lambda: len(lines_of(out)) >= lines, timeout=120, what="every line copied")
            recovered = time.monotonic()
            wait_for(
                lambda: all(s == ["RUNNING", "RUNNING"] for s in worker.states().values()),
                what="both connectors and tasks RUNNING",
            )
            copied = lines_of(out)
            assert set(copied) == {f"line-{i}" for i in range(lines)}  # nothing lost
            # the clients' "reachable again" lines follow two successful probes a second apart,
            # which may be after the pipeline has caught up
            wait_for(
                lambda: "is reachable again after" in worker.log.read_text(),
                timeout=30,
                what="the clients' reachable-again lines",
            )
            log = worker.log.read_text().splitlines()[before:]
        finally:
            worker.stop()
    errors = [ln for ln in log if " ERROR " in ln]
    assert errors == [], errors[:5]
    client_lines = [ln for ln in log if "(kconnect.kafka.librdkafka)" in ln]
    per_client: dict[str, int] = {}
    for ln in client_lines:
        m = re.search(r"(connector-(?:producer|consumer)-[\w-]+?)(?:#|: | cannot)", ln)
        if m:
            per_client[m.group(1)] = per_client.get(m.group(1), 0) + 1
    assert per_client, client_lines[:5]
    # per client: the disconnection, the first failed attempt, "reachable again" -- and on a
    # loaded machine, where a starting broker accepts connections before it serves, one more
    # short episode of the same (before: hundreds of ERROR lines per client)
    assert max(per_client.values()) <= 6, (per_client, client_lines)
    assert any("is reachable again after" in ln for ln in client_lines)
    print(f"broker down {restarted - stopped:.1f} s; every line copied {recovered - restarted:.1f} "
          f"s after the broker was back; {len(client_lines)} client log lines: {per_client}")  # fmt: skip


def test_a_database_restart_under_an_upsert_sink_loses_no_row(
    tmp_path: Path, kafka_bootstrap: str, topic_factory
) -> None:
    rows = 200_000
    topic = topic_factory(partitions=1)
    schema = (
        b'{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
        b'{"type":"string","optional":true,"field":"name"}],"optional":false}'
    )
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 20})
    for i in range(rows):
        value = b'{"schema":' + schema + b',"payload":{"id":%d,"name":"n%d"}}' % (i, i)
        while True:
            try:
                producer.produce(topic, value)
                break
            except BufferError:
                producer.poll(0.1)
    assert producer.flush(60) == 0
    with private("postgres") as pg:
        dsn = f"postgresql://kcuser:kcpw@127.0.0.1:{pg.port}/kcdb"
        table = f"upserts_{uuid.uuid4().hex[:6]}"
        worker = StandaloneWorker(
            tmp_path,
            kafka_bootstrap,
            [
                {
                    "name": "jdbc",
                    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
                    "connection.url": f"jdbc:postgresql://127.0.0.1:{pg.port}/kcdb",
                    "connection.user": "kcuser",
                    "connection.password": "kcpw",
                    "topics": topic,
                    "table.name.format": table,
                    "insert.mode": "upsert",
                    "pk.mode": "record_value",
                    "pk.fields": "id",
                    "auto.create": "true",
                    "consumer.override.max.poll.records": "500",
                }
            ],
        )

        def count() -> int:
            try:
                with psycopg.connect(dsn, connect_timeout=2) as conn:
                    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            except psycopg.Error:
                return -1

        try:
            wait_for(lambda: count() > 0, timeout=60, what="the first rows")
            at_stop = count()
            pg.stop()
            stopped = time.monotonic()
            time.sleep(OUTAGE_S)
            pg.start()
            restarted = time.monotonic()
            wait_for(lambda: count() >= rows, timeout=180, what="every row")
            recovered = time.monotonic()
            wait_for(
                lambda: worker.states().get("jdbc") == ["RUNNING", "RUNNING"],
                what="the sink RUNNING",
            )
            with psycopg.connect(dsn) as conn:
                total, distinct, low, high = conn.execute(
                    f"SELECT count(*), count(DISTINCT id), min(id), max(id) FROM {table}"
                ).fetchone()
            log = worker.log.read_text()
        finally:
            worker.stop()
    assert at_stop < rows, "the outage must hit while rows are still being written"
    assert (total, distinct, low, high) == (rows, rows, 0, rows - 1)  # each row exactly once
    print(f"PostgreSQL down {restarted - stopped:.1f} s with {at_stop} of {rows} rows written; "
          f"all rows {recovered - restarted:.1f} s after it was back; "
          f"{log.count(' ERROR ')} ERROR lines")  # fmt: skip


def test_a_database_restart_under_the_native_debezium_source_loses_and_repeats_nothing(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    """The connection to PostgreSQL breaks while changes stream (the server stops for a while
    with transactions still to send, more are committed after it is back): the task reconnects
    by itself, every change arrives exactly once, BEGIN and END pair up, the task never FAILED
    and the log says what happened in a WARNING, not an ERROR."""
    from confluent_kafka import Consumer, TopicPartition

    from kconnect.testing.debezium import postgres_connector_config

    transactions, per_tx = 40, 500
    with private("postgres") as pg:
        dsn = f"postgresql://kcuser:kcpw@127.0.0.1:{pg.port}/kcdb"
        table = f"cdc_{uuid.uuid4().hex[:6]}"
        prefix, slot = f"outage{uuid.uuid4().hex[:6]}", f"outage_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, note text)")
            conn.execute(f"INSERT INTO {table} VALUES (0, 'snapshot')")
        config = {
            "name": "cdc",
            **postgres_connector_config(dsn, table, prefix, slot, {
                "retriable.restart.connector.wait.ms": "1000",
                "provide.transaction.metadata": "true",
                "max.batch.size": "256",
            }),
        }  # fmt: skip
        worker = StandaloneWorker(tmp_path, kafka_bootstrap, [config])
        topic = f"{prefix}.public.{table}"

        def payloads(name: str) -> list[dict[str, Any]]:
            c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": uuid.uuid4().hex,
                          "enable.auto.commit": False})  # fmt: skip
            try:
                if name not in c.list_topics(timeout=10).topics:
                    return []
                high = c.get_watermark_offsets(TopicPartition(name, 0), timeout=10)[1]
                c.assign([TopicPartition(name, 0, 0)])
                out: list[dict[str, Any]] = []
                while len(out) < high:
                    m = c.poll(5)
                    if m is None:
                        break
                    if not m.error() and m.value():
                        out.append(json.loads(m.value())["payload"])
                return out
            finally:
                c.close()

        def ids() -> list[int]:
            return [p["after"]["id"] for p in payloads(topic)]

        def insert(first: int, count: int) -> None:
            with psycopg.connect(dsn, autocommit=True) as conn:
                for start in range(first, first + count * per_tx, per_tx):
                    conn.execute(f"INSERT INTO {table} SELECT i, 'row ' || i FROM "
                                 f"generate_series({start}, {start + per_tx - 1}) i")  # fmt: skip

        try:
            wait_for(lambda: ids() == [0], timeout=90, what="the snapshot")
            before = worker.log.read_text().count("\n")
            insert(1, transactions)
            wait_for(lambda: len(ids()) > 1, timeout=60, what="the stream moving")
            at_stop = len(ids())
            pg.stop()
            time.sleep(5)
            pg.start()
            insert(1 + transactions * per_tx, transactions)
            expected = list(range(1 + 2 * transactions * per_tx))
            wait_for(lambda: len(ids()) >= len(expected), timeout=180, what="every change")
            time.sleep(3)  # anything delivered twice would be here by now
            got = ids()
            events = [p["status"] for p in payloads(f"{prefix}.transaction")]
            states = worker.states()
            log = worker.log.read_text().splitlines()[before:]
        finally:
            worker.stop()
            with contextlib.suppress(psycopg.Error), psycopg.connect(dsn, autocommit=True) as c:
                c.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
    assert at_stop < len(expected), "the outage must hit while changes are still streaming"
    assert sorted(got) == expected and len(got) == len(set(got))  # all, once each
    assert events == ["BEGIN", "END"] * (2 * transactions)
    assert states["cdc"] == ["RUNNING", "RUNNING"]
    assert [ln for ln in log if " ERROR " in ln] == []
    assert any("the connection to PostgreSQL was lost" in ln and " WARN" in ln for ln in log)
    assert any("reconnected to PostgreSQL" in ln for ln in log)
