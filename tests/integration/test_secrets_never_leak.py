"""Secrets never leave a real worker through its logs, status traces, /metrics or validation.

One ``kconnect distributed`` worker (DEBUG logging, tasks in task processes) against the real
broker and PostgreSQL, given distinctive secrets: a PostgreSQL role's password as a JDBC sink's
``connection.password`` (once right, so rows land; once wrong, so the driver raises connection
errors), inside a JDBC URL, for a JDBC source that cannot log in, the same kind of password
resolved from a ``FileConfigProvider``, a consumer override's ``sasl.jaas.config`` (with
librdkafka's configuration dump switched on), the worker's own ``ssl.*.password`` and
``sasl.jaas.config``, and a plugin that echoes its whole config into a log line and into the
exception that fails its task. Then every line the worker and its task processes wrote, every
status trace (REST and the status topic), ``/metrics`` and every validate and error response
is searched: no secret appears anywhere. ``GET /connectors/{c}/config`` still shows the
password as written, as Kafka does, which also proves the secret went in.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from tests.integration.distributed_support import Cluster, WorkerProcess, wait_for  # noqa: E402
from tests.integration.rest_support import write_plugin  # noqa: E402

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.slow]

PG_SECRET = "kc-secret-PA55-xyz"  # connection.password, right for one role, wrong for kcuser
PROVIDER_SECRET = "kc-secret-PROV-77q"  # only in a file, read through ${file:...}
JAAS_SECRET = "kc-secret-JAAS-31k"  # inside sasl.jaas.config lines
SSL_SECRET = "kc-secret-SSL-5tw"  # worker ssl.*.password settings
ECHO_SECRET = "kc-secret-ECHO-8mz"  # a plugin's PASSWORD setting it quotes everywhere
SECRETS = (PG_SECRET, PROVIDER_SECRET, JAAS_SECRET, SSL_SECRET, ECHO_SECRET)

JSON = "org.apache.kafka.connect.json.JsonConverter"
JDBC_SINK = "io.confluent.connect.jdbc.JdbcSinkConnector"
JDBC_SOURCE = "io.confluent.connect.jdbc.JdbcSourceConnector"
ECHO = "com.example.secrets.EchoSinkConnector"

_ECHO_PLUGIN = '''
import logging

from kconnect.api import ConfigDef, ConfigType, ConnectException, Importance, SinkConnector, SinkTask

log = logging.getLogger("com.example.secrets")


class EchoTask(SinkTask):
    def version(self):
        return "1.0"

    def start(self, props):
        log.warning("EchoTask got %s", props)
        raise ConnectException(f"EchoTask refusing to start with {props}")

    def put(self, records):
        pass

    def stop(self):
        pass


class EchoSinkConnector(SinkConnector):
    """Quotes its raw settings in a log line and in its task's failure."""

    def version(self):
        return "1.0"

    def start(self, props):
        self.props = dict(props)
        log.info("EchoSinkConnector starting with %s", props)

    def task_class(self):
        return EchoTask

    def task_configs(self, max_tasks):
        return [dict(self.props)]

    def stop(self):
        pass

    def config(self):
        return ConfigDef().define(
            "echo.token", ConfigType.PASSWORD, None, None, Importance.HIGH, "A token."
        )
'''


def _write_echo_plugin(root: Path) -> Path:
    return write_plugin(
        root, "kc_secret_echo", _ECHO_PLUGIN, "kconnect.sink_connector",
        {ECHO: "kc_secret_echo:EchoSinkConnector"},
    )  # fmt: skip


class _SecretCluster(Cluster):
    def __init__(self, tmp_path: Path, bootstrap: str, plugin_path: Path, secrets: Path) -> None:
        super().__init__(tmp_path, bootstrap)
        self.plugin_path = plugin_path
        self.secrets = secrets

    def props(self, port: int) -> str:
        jaas = (
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="worker" password="{JAAS_SECRET}";'
        )
        base = super().props(port)
        base = base.replace("org.apache.kafka.connect.storage.StringConverter", JSON)
        return base + (
            f"plugin.path={self.plugin_path}\n"
            "config.providers=file\n"
            "config.providers.file.class="
            "org.apache.kafka.common.config.provider.FileConfigProvider\n"
            "task.processes=2\n"
            f"ssl.truststore.password={SSL_SECRET}\n"
            f"producer.ssl.key.password={SSL_SECRET}\n"
            f"sasl.jaas.config={jaas}\n"
        )


@pytest.fixture
def roles(pg_dsn: str) -> Iterator[dict[str, Any]]:
    """Two PostgreSQL login roles, one per password; the tables they create are dropped."""
    db = psycopg.connect(pg_dsn, autocommit=True)
    tag = uuid.uuid4().hex[:8]
    made = {"pg": f"kc_sec_pg_{tag}", "provider": f"kc_sec_prov_{tag}"}
    db.execute(f"CREATE ROLE {made['pg']} LOGIN SUPERUSER PASSWORD '{PG_SECRET}'")
    db.execute(f"CREATE ROLE {made['provider']} LOGIN SUPERUSER PASSWORD '{PROVIDER_SECRET}'")
    tables: list[str] = []
    try:
        yield {"db": db, "tag": tag, "tables": tables, **made}
    finally:
        for table in tables:
            db.execute(f'DROP TABLE IF EXISTS "{table}"')
        for role in made.values():
            db.execute(f"DROP OWNED BY {role}")  # whatever else it made in this database
            db.execute(f"DROP ROLE IF EXISTS {role}")
        db.close()


def _produce(bootstrap: str, topic: str, rows: int) -> None:
    from confluent_kafka import Producer

    schema = {"type": "struct", "optional": False, "fields": [{"field": "id", "type": "int32"}]}
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(rows):
        producer.produce(topic, json.dumps({"schema": schema, "payload": {"id": i}}).encode())
    assert producer.flush(30) == 0


def _status_topic_values(bootstrap: str, topic: str) -> list[str]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"kc-secrets-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        parts = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in parts])
        values: list[str] = []
        idle_until = time.monotonic() + 5
        while time.monotonic() < idle_until:
            for m in consumer.consume(500, 0.5):
                if m.error() is None and m.value() is not None:
                    values.append(m.value().decode())
                    idle_until = time.monotonic() + 3
        return values
    finally:
        consumer.close()


def _state(worker: WorkerProcess, name: str) -> dict[str, Any]:
    body: dict[str, Any] = worker.get(f"/connectors/{name}/status").json()
    return body


def _task_failed(worker: WorkerProcess, name: str) -> dict[str, Any] | None:
    tasks = _state(worker, name).get("tasks", [])
    return tasks[0] if tasks and tasks[0]["state"] == "FAILED" else None


def _count_rows(db: Any, table: str) -> int:
    try:
        return int(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
    except psycopg.errors.UndefinedTable:
        return 0


def test_no_secret_in_logs_traces_metrics_or_validation(
    tmp_path: Path,
    kafka_bootstrap: str,
    pg_dsn: str,
    roles: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KCONNECT_LOG_LEVEL", "DEBUG")  # the worker's every debug line too
    secrets_file = tmp_path / "secrets.properties"
    secrets_file.write_text(f"pg.password={PROVIDER_SECRET}\necho.token={PROVIDER_SECRET}\n")
    cluster = _SecretCluster(tmp_path, kafka_bootstrap, _write_echo_plugin(tmp_path), secrets_file)
    responses: dict[str, str] = {}
    try:
        worker = cluster.add_worker()
        info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
        host, port, dbname = info.get("host", "127.0.0.1"), info.get("port", 5432), info["dbname"]
        url = f"jdbc:postgresql://{host}:{port}/{dbname}"
        tag = roles["tag"]
        topic = f"kc_secrets_{tag}"
        _produce(kafka_bootstrap, topic, 20)
        provided = f"${{file:{secrets_file}:pg.password}}"
        jaas_override = (
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="conn" password="{JAAS_SECRET}";'
        )

        def sink(table: str, **extra: str) -> dict[str, str]:
            roles["tables"].append(table)
            return {
                "connector.class": JDBC_SINK,
                "connection.url": url,
                "topics": topic,
                "auto.create": "true",
                "table.name.format": table,
                "connection.attempts": "2",
                "connection.backoff.ms": "300",
                "consumer.override.auto.offset.reset": "earliest",
                **extra,
            }

        wrong_user = {"connection.user": str(info["user"])}  # kcuser: the secrets are wrong
        connectors = {
            "good": sink(
                f"kc_sec_good_{tag}",
                **{"connection.user": roles["pg"], "connection.password": PG_SECRET},
            ),
            "wrong": sink(
                f"kc_sec_wrong_{tag}", **wrong_user, **{"connection.password": PG_SECRET}
            ),
            "prov-good": sink(
                f"kc_sec_prov_{tag}",
                **{"connection.user": roles["provider"], "connection.password": provided},
            ),
            "prov-wrong": sink(
                f"kc_sec_pw_{tag}", **wrong_user, **{"connection.password": provided}
            ),
            "url-wrong": sink(
                f"kc_sec_url_{tag}",
                **{"connection.url": f"{url}?user={info['user']}&password={PG_SECRET}"},
            ),
            "override": sink(
                f"kc_sec_ovr_{tag}",
                **{
                    "connection.user": roles["pg"],
                    "connection.password": PG_SECRET,
                    "consumer.override.sasl.jaas.config": jaas_override,
                    "consumer.override.debug": "conf",
                },
            ),
            "source-wrong": {
                "connector.class": JDBC_SOURCE,
                "connection.url": url,
                **wrong_user,
                "connection.password": PG_SECRET,
                "connection.attempts": "2",
                "connection.backoff.ms": "300",
                "mode": "bulk",
                "table.whitelist": f"kc_sec_none_{tag}",
                "topic.prefix": f"kc_sec_src_{tag}_",
            },
            "echo": {"connector.class": ECHO, "topics": topic, "echo.token": ECHO_SECRET},
            "echo-prov": {
                "connector.class": ECHO,
                "topics": topic,
                "echo.token": f"${{file:{secrets_file}:echo.token}}",
            },
        }
        for name, config in connectors.items():
            plugin = config["connector.class"].rsplit(".", 1)[-1]
            r = worker.request(
                "PUT", f"/connector-plugins/{plugin}/config/validate", json={**config, "name": name}
            )
            assert r.status_code == 200, r.text
            responses[f"validate {name}"] = r.text
            r = worker.request("PUT", f"/connectors/{name}/config", json=config)
            assert r.status_code == 201, r.text
        for path, body in (
            (
                "/connector-plugins/JdbcSinkConnector/config/validate",
                {"connection.password": PG_SECRET},
            ),
            ("/connectors", {"name": "no-class", "config": {"connection.password": PG_SECRET}}),
        ):
            r = worker.request("PUT" if "validate" in path else "POST", path, json=body)
            assert r.status_code == 400, r.text
            responses[f"error {path}"] = r.text

        # the secrets are in use: rows land through both right passwords ...
        db = roles["db"]
        wait_for(
            lambda: _count_rows(db, f"kc_sec_good_{tag}") == 20, 120, "rows via connection.password"
        )
        wait_for(lambda: _count_rows(db, f"kc_sec_prov_{tag}") == 20, 120, "rows via the provider")
        wait_for(lambda: _count_rows(db, f"kc_sec_ovr_{tag}") == 20, 120, "rows with overrides")
        # ... and the wrong ones fail with the driver's errors
        for name in ("wrong", "prov-wrong", "url-wrong", "echo", "echo-prov"):
            wait_for(lambda n=name: _task_failed(worker, n), 120, f"{name} task FAILED")
        wait_for(
            lambda: _state(worker, "source-wrong")["connector"]["state"] == "FAILED",
            120,
            "source-wrong connector FAILED",
        )
        for name in ("wrong", "echo"):  # a second round of failures: restarts
            r = worker.request("POST", f"/connectors/{name}/restart?includeTasks=true")
            assert r.status_code == 202, r.text
        for name in ("wrong", "echo"):
            wait_for(lambda n=name: _task_failed(worker, n), 120, f"{name} FAILED again")

        statuses = worker.get("/connectors?expand=status").json()
        traces = [
            t.get("trace", "")
            for s in statuses.values()
            for t in [s["status"]["connector"], *s["status"]["tasks"]]
        ]

        # auto.restart.enable is on: a failed task may be between two of its automatic
        # restarts at any moment, so each trace is read from a FAILED status when there is one
        def failed_trace(name: str) -> str:
            task = wait_for(lambda: _task_failed(worker, name), 120, f"{name} FAILED")
            return str(task["trace"])

        wrong_trace = failed_trace("wrong")
        assert "password authentication failed" in wrong_trace
        echo_trace = failed_trace("echo")
        assert "EchoTask refusing to start with" in echo_trace and "[hidden]" in echo_trace
        assert "[hidden]" in failed_trace("echo-prov")
        metrics = worker.get("/metrics").text
        assert 'connector="good"' in metrics
        # Kafka shows a connector's config as written to whoever may read it, and so does kconnect
        assert worker.get("/connectors/good/config").json()["connection.password"] == PG_SECRET
        assert worker.get("/connectors/prov-good/config").json()["connection.password"] == provided
        # a provider's value is in no REST answer at all: configs and task configs keep the
        # variable (Kafka's reverse transformation)
        stored = [worker.get("/connectors?expand=info&expand=status").text]
        for name in connectors:
            stored += [worker.get(f"/connectors/{name}{p}").text for p in ("", "/config", "/tasks")]
        assert PROVIDER_SECRET not in "\n".join(stored)
        assert provided in worker.get("/connectors/prov-good/tasks").text
        status_records = _status_topic_values(kafka_bootstrap, f"{cluster.group}-status")
        assert any("EchoTask refusing" in v for v in status_records)
    finally:
        cluster.close()

    log = cluster.workers[0].log.read_text(errors="replace")
    assert "EchoSinkConnector starting with" in log and "EchoTask got" in log
    assert "password authentication failed" in log
    # librdkafka's configuration dump ran (on this PLAINTEXT cluster the override's JAAS line is
    # not used, as in Java, so no sasl.password is in it; secured clients' secrets are redacted)
    assert "Client configuration:" in log
    texts = {
        "worker log": log,
        "status traces": "\n".join(traces),
        "status topic": "\n".join(status_records),
        "/metrics": metrics,
        **responses,
    }
    leaks = {
        (where, secret): text.count(secret)
        for where, text in texts.items()
        for secret in SECRETS
        if secret in text
    }
    assert not leaks, f"secrets leaked: {leaks}"
