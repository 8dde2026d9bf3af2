"""kconnect on a secured Kafka cluster: every mechanism and store type through both client
libraries (librdkafka: producers, consumers, admin clients; kafka-python: the group member),
failures that name the setting, and workers (a distributed group with a DLQ and exactly-once
source, a standalone worker over mutual TLS) configured as Kafka Connect documents it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Consumer, Producer
from kafka.admin import KafkaAdminClient

from kconnect.kafka.clients.admin import Admin
from kconnect.kafka.clients.client_config import to_librdkafka
from kconnect.kafka.clients.client_security import (
    ClientSecurityError,
    client_security,
    kafka_python_config,
)
from kconnect.kafka.clients.errors import KafkaClientError, KafkaSecurityError
from kconnect.testing.ports import free_port
from tests.integration.distributed_support import Cluster, wait_for
from tests.integration.secure_support import (
    OAUTH,
    OIDC_HANDLER,
    SecureCluster,
    oidc_token_endpoint,
    secure_cluster,
)

pytestmark = [pytest.mark.kafka]

# (listener, mechanism or None for mTLS, trust store type, key store type or None)
MATRIX = [
    ("sasl_ssl", "PLAIN", "PEM", None),
    ("sasl_ssl", "SCRAM-SHA-256", "JKS", None),
    ("sasl_ssl", "SCRAM-SHA-512", "PKCS12", None),
    ("sasl_ssl", "PLAIN", "PEM-inline", None),
    ("ssl", None, "JKS", "JKS"),
    ("ssl", None, "PKCS12", "PKCS12"),
    ("ssl", None, "PEM-inline", "PEM-inline"),
    ("sasl_plaintext", "PLAIN", None, None),
    ("sasl_plaintext", "SCRAM-SHA-256", None, None),
]


@pytest.fixture(scope="module")
def cluster() -> SecureCluster:
    return secure_cluster()


def _props(c: SecureCluster, listener: str, mechanism: str | None, trust: str | None,
           key: str | None) -> dict[str, str]:  # fmt: skip
    if listener == "ssl":
        assert trust and key
        return c.mtls_props(keystore=key, trust=trust)
    if listener == "sasl_ssl":
        assert mechanism and trust
        return c.sasl_ssl_props(mechanism, trust)
    assert mechanism
    return {"bootstrap.servers": c.sasl_plaintext, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism, "sasl.jaas.config": c.jaas(mechanism)}  # fmt: skip


@pytest.mark.parametrize(("listener", "mechanism", "trust", "key"), MATRIX)
def test_each_mechanism_and_store_type_reaches_the_cluster_with_both_client_libraries(
    cluster: SecureCluster, listener: str, mechanism: str | None, trust: str | None,
    key: str | None,
) -> None:  # fmt: skip
    props = _props(cluster, listener, mechanism, trust, key)
    # librdkafka (every producer, consumer and admin client of a worker)
    assert Admin(props).cluster_id(timeout=15)
    # kafka-python (the distributed worker's group member)
    security = {k: v for k, v in props.items() if k != "bootstrap.servers"}
    admin = KafkaAdminClient(
        bootstrap_servers=props["bootstrap.servers"],
        request_timeout_ms=15000,
        **kafka_python_config(client_security(security)),
    )
    try:
        assert isinstance(admin.list_topics(), list)
    finally:
        admin.close()


def test_records_round_trip_over_sasl_ssl(cluster: SecureCluster) -> None:
    topic = f"secured-{uuid.uuid4().hex[:10]}"
    props = cluster.sasl_ssl_props("SCRAM-SHA-512", "JKS")
    producer = Producer(to_librdkafka({**props, "acks": "all"}))
    for i in range(100):
        producer.produce(topic, f"v{i}".encode())
    assert producer.flush(30) == 0
    consumer = Consumer(to_librdkafka({**props, "group.id": f"g-{topic}",
                                       "auto.offset.reset": "earliest"}))  # fmt: skip
    consumer.subscribe([topic])
    seen: list[bytes] = []
    deadline = time.monotonic() + 60
    while len(seen) < 100 and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            seen.append(msg.value())
    consumer.close()
    assert seen == [f"v{i}".encode() for i in range(100)]


def test_oauthbearer_with_oidc_client_credentials(cluster: SecureCluster) -> None:
    with oidc_token_endpoint(cluster, "connect-client", "s3cret") as url:
        props = {
            **cluster.truststore("PKCS12"),
            "bootstrap.servers": cluster.sasl_ssl,
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.login.callback.handler.class": OIDC_HANDLER,
            "sasl.oauthbearer.token.endpoint.url": url,
            "sasl.jaas.config": f'{OAUTH} required clientId="connect-client" '
            'clientSecret="s3cret" scope="kafka";',
        }
        assert Admin(props).cluster_id(timeout=15)
        security = {k: v for k, v in props.items() if k != "bootstrap.servers"}
        admin = KafkaAdminClient(bootstrap_servers=cluster.sasl_ssl, request_timeout_ms=15000,
                                 **kafka_python_config(client_security(security)))  # fmt: skip
        try:
            assert isinstance(admin.list_topics(), list)
        finally:
            admin.close()
        wrong = {**props, "sasl.jaas.config": f'{OAUTH} required clientId="connect-client" '
                 'clientSecret="nope";'}  # fmt: skip
        with pytest.raises(KafkaSecurityError):
            Admin(wrong).cluster_id(timeout=15)


# -- failures ------------------------------------------------------------------------------------


def _fails_fast(props: dict[str, str], *words: str) -> str:
    started = time.monotonic()
    with pytest.raises(KafkaSecurityError) as failure:
        Admin(props, "admin.").cluster_id(timeout=30)
    assert time.monotonic() - started < 10
    message = str(failure.value)
    for word in words:
        assert word in message, message
    return message


def test_wrong_password_fails_within_seconds_naming_the_jaas_setting(
    cluster: SecureCluster,
) -> None:
    props = cluster.sasl_ssl_props("PLAIN", "PEM")
    props["sasl.jaas.config"] = cluster.jaas("PLAIN", password="wrong-password")
    message = _fails_fast(props, "sasl.jaas.config", "Authentication")
    assert "wrong-password" not in message


def test_untrusted_broker_certificate_fails_naming_the_trust_store(cluster: SecureCluster) -> None:
    props = cluster.sasl_ssl_props("PLAIN", "PEM")
    for key in ("ssl.truststore.type", "ssl.truststore.location"):
        props.pop(key)  # the system's CAs, which never signed the local CA's certificate
    _fails_fast(props, "ssl.truststore.location", "certificate")


def test_missing_client_certificate_fails_naming_the_key_store(cluster: SecureCluster) -> None:
    props = cluster.mtls_props()
    for key in ("ssl.keystore.location", "ssl.keystore.password", "ssl.key.password"):
        props.pop(key)
    _fails_fast(props, "ssl.keystore.location")


def test_unreadable_store_and_wrong_store_password_name_the_setting(
    cluster: SecureCluster, tmp_path: Path
) -> None:
    props = cluster.sasl_ssl_props("PLAIN", "JKS")
    missing = {**props, "ssl.truststore.location": str(tmp_path / "nope.jks")}
    with pytest.raises(ClientSecurityError, match=r"admin\.ssl\.truststore\.location"):
        Admin(missing, "admin.")
    wrong = {**props, "ssl.truststore.password": "not-the-password"}
    with pytest.raises(ClientSecurityError, match=r"admin\.ssl\.truststore\.password") as e:
        Admin(wrong, "admin.")
    assert "not-the-password" not in str(e.value)


def test_a_plaintext_client_on_a_tls_listener_is_told_to_check_security_protocol(
    cluster: SecureCluster,
) -> None:
    with pytest.raises(KafkaClientError, match=r"check security\.protocol") as e:
        Admin({"bootstrap.servers": cluster.sasl_ssl}).cluster_id(timeout=3)
    assert "security.protocol=PLAINTEXT" in str(e.value)


def test_a_worker_with_a_wrong_password_exits_at_start(
    cluster: SecureCluster, tmp_path: Path
) -> None:
    props = {**cluster.sasl_ssl_props("SCRAM-SHA-512", "PKCS12")}
    props["sasl.jaas.config"] = cluster.jaas("SCRAM-SHA-512", password="bad-secret")
    text = "".join(f"{k}={v}\n" for k, v in props.items() if k != "ssl.truststore.certificates")
    text += (
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={tmp_path / 'offsets'}\n"
        f"listeners=http://127.0.0.1:{free_port()}\n"
    )
    worker_props = tmp_path / "worker.properties"
    worker_props.write_text(text)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "kconnect.cli.main", "standalone", str(worker_props)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert time.monotonic() - started < 15
    assert "sasl.jaas.config" in done.stderr
    assert "bad-secret" not in done.stderr + done.stdout


# -- workers -------------------------------------------------------------------------------------


def _security_lines(props: dict[str, str], prefixes: tuple[str, ...]) -> str:
    lines = []
    for prefix in prefixes:
        for key, value in props.items():
            if key != "bootstrap.servers":
                lines.append(f"{prefix}{key}={value}")
    return "\n".join(lines) + "\n"


class SecuredCluster(Cluster):
    """Distributed workers on SASL_SSL (SCRAM-SHA-512, PKCS12 trust store), the JAAS password
    read through the file config provider, exactly-once source support on."""

    def __init__(self, tmp_path: Path, c: SecureCluster) -> None:
        super().__init__(tmp_path, c.sasl_ssl)
        secrets = tmp_path / "secrets.properties"
        secrets.write_text(f"password={c.password}\n")
        props = c.sasl_ssl_props("SCRAM-SHA-512", "PKCS12")
        props["sasl.jaas.config"] = (
            "org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{c.user}" password="${{file:{secrets}:password}}";'
        )
        self.security = (
            "config.providers=file\n"
            "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n"
            "exactly.once.source.support=enabled\n"
            + _security_lines(props, ("", "producer.", "consumer.", "admin."))
        )

    def props(self, port: int) -> str:
        return super().props(port) + self.security


def test_distributed_group_copies_a_file_with_a_dlq_and_exactly_once(
    cluster: SecureCluster, tmp_path: Path
) -> None:
    group = SecuredCluster(tmp_path, cluster)
    topic, dlq = f"sec-{uuid.uuid4().hex[:8]}", f"sec-dlq-{uuid.uuid4().hex[:8]}"
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    good = [f'{{"n": {i}}}' for i in range(300)]
    bad = [f"not json {i}" for i in range(20)]
    source_file.write_text("\n".join(good + bad) + "\n")
    try:
        first = group.add_worker()
        group.add_worker()
        r = first.request("PUT", "/connectors/sec-source/config", json={
            "connector.class": "FileStreamSource", "file": str(source_file), "topic": topic,
            "tasks.max": "1", "exactly.once.support": "required",
        })  # fmt: skip
        assert r.status_code in (200, 201), r.text
        r = first.request("PUT", "/connectors/sec-sink/config", json={
            "connector.class": "FileStreamSink", "file": str(sink_file), "topics": topic,
            "tasks.max": "1",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
        })  # fmt: skip
        assert r.status_code in (200, 201), r.text

        def copied() -> bool:
            return sink_file.exists() and len(sink_file.read_text().splitlines()) >= len(good)

        wait_for(copied, timeout=120, what="the sink file holds every JSON line")
        assert sink_file.read_text().splitlines() == [f"{{n={i}}}" for i in range(300)]
        consumer = Consumer(to_librdkafka({**cluster.sasl_ssl_props("SCRAM-SHA-512", "PKCS12"),
                                           "group.id": f"g-{dlq}",
                                           "auto.offset.reset": "earliest"}))  # fmt: skip
        consumer.subscribe([dlq])
        dead: list[bytes] = []
        deadline = time.monotonic() + 60
        while len(dead) < len(bad) and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                dead.append(msg.value())
        consumer.close()
        assert sorted(dead) == sorted(x.encode() for x in bad)
        status = first.get("/connectors/sec-source/status").json()
        assert status["connector"]["state"] == "RUNNING", status
        log = "".join(w.log.read_text() for w in group.workers)
        assert cluster.password not in log
    finally:
        group.close()


@contextmanager
def _standalone_worker(
    tmp_path: Path,
    props: dict[str, str],
    *connectors: Path,
    extra: str = "",
    converter: str = "org.apache.kafka.connect.storage.StringConverter",
) -> Iterator[tuple[str, Path]]:
    """A ``kconnect standalone`` process with ``props``' security settings at the top level and
    under ``producer.`` / ``consumer.`` / ``admin.``; yields its REST URL and log file."""
    port = free_port()
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={props['bootstrap.servers']}\n"
        + _security_lines(props, ("", "producer.", "consumer.", "admin."))
        + f"key.converter={converter}\nvalue.converter={converter}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets'}\n"
        f"listeners=http://127.0.0.1:{port}\n" + extra
    )
    log = tmp_path / "worker.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kconnect.cli.main", "standalone", str(worker),
             *map(str, connectors)],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: httpx.get(url + "/", timeout=5).status_code == 200,
                 what=f"worker up; log {log}")  # fmt: skip
        yield url, log
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_standalone_worker_over_mutual_tls_with_jks_stores(
    cluster: SecureCluster, tmp_path: Path
) -> None:
    topic = f"mtls-{uuid.uuid4().hex[:8]}"
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    lines = [f"line {i} ü" for i in range(500)]
    source_file.write_text("\n".join(lines) + "\n")
    source = tmp_path / "source.properties"
    source.write_text(f"name=mtls-source\nconnector.class=FileStreamSource\nfile={source_file}\n"
                      f"topic={topic}\n")  # fmt: skip
    sink = tmp_path / "sink.properties"
    sink.write_text(f"name=mtls-sink\nconnector.class=FileStreamSink\nfile={sink_file}\n"
                    f"topics={topic}\n")  # fmt: skip
    with _standalone_worker(tmp_path, cluster.mtls_props("JKS", "JKS"), source, sink) as (url, log):
        wait_for(
            lambda: sink_file.exists() and len(sink_file.read_text().splitlines()) >= len(lines),
            timeout=90, what=f"the sink file; worker log {log}",
        )  # fmt: skip
        assert sink_file.read_text(encoding="utf-8").splitlines() == lines
        status = httpx.get(f"{url}/connectors/mtls-sink/status").json()
        assert status["connector"]["state"] == "RUNNING"


def test_a_wrong_client_override_fails_the_task_with_the_setting_in_its_trace(
    cluster: SecureCluster, tmp_path: Path
) -> None:
    topic = f"ovr-{uuid.uuid4().hex[:8]}"
    source_file = tmp_path / "in.txt"
    source_file.write_text("a\nb\n")
    props = cluster.sasl_ssl_props("SCRAM-SHA-512", "PKCS12")
    wrong = cluster.jaas("SCRAM-SHA-512", password="override-secret-wrong")
    with _standalone_worker(tmp_path, props, extra="auto.restart.enable=false\n") as (url, log):
        for name, config in {
            "bad-sink": {"connector.class": "FileStreamSink", "topics": topic,
                         "file": str(tmp_path / "out.txt"),
                         "consumer.override.sasl.jaas.config": wrong},
            "bad-source": {"connector.class": "FileStreamSource", "topic": topic,
                           "file": str(source_file),
                           "producer.override.sasl.jaas.config": wrong},
        }.items():  # fmt: skip
            r = httpx.put(f"{url}/connectors/{name}/config", json=config, timeout=30)
            assert r.status_code in (200, 201), r.text

        def failed_trace(name: str) -> str | None:
            tasks = httpx.get(f"{url}/connectors/{name}/status", timeout=10).json()["tasks"]
            if tasks and tasks[0]["state"] == "FAILED":
                return str(tasks[0]["trace"])
            return None

        for name in ("bad-sink", "bad-source"):
            trace = wait_for(lambda n=name: failed_trace(n), timeout=60, what=f"{name} FAILED")
            assert "sasl.jaas.config" in trace and "Authentication" in trace, trace
            assert "override-secret-wrong" not in trace
        assert "override-secret-wrong" not in log.read_text()


def test_a_broker_certificate_for_another_host_name_fails_naming_the_host_check(
    cluster: SecureCluster, tmp_path: Path
) -> None:
    """A TLS endpoint on 127.0.0.1 whose certificate (signed by the trusted local CA) names
    another host: the handshake fails on the host name and says which setting skips the check."""
    import datetime
    import socket
    import ssl
    import threading

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    ca_key = serialization.load_pem_private_key((cluster.dir / "ca.key").read_bytes(), None)
    ca = x509.load_pem_x509_certificate((cluster.dir / "ca.pem").read_bytes())
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "other.example")]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("other.example")]), False)
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    pem = tmp_path / "other.pem"
    pem.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                          serialization.NoEncryption())
        + cert.public_bytes(serialization.Encoding.PEM)
    )  # fmt: skip
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(pem)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:  # handshakes, then closes: enough for the client's check
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            try:
                with server_ctx.wrap_socket(conn, server_side=True):
                    pass
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        props = {"bootstrap.servers": f"127.0.0.1:{port}", "security.protocol": "SSL",
                 **cluster.truststore("PEM")}  # fmt: skip
        _fails_fast(props, "ssl.endpoint.identification.algorithm", "host name")
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


@pytest.mark.postgres
def test_jdbc_source_and_sink_over_sasl_ssl(
    cluster: SecureCluster, tmp_path: Path, pg_dsn: str
) -> None:
    """PostgreSQL table -> JDBC source -> SASL_SSL topic -> JDBC sink -> table, the worker
    configured as Kafka Connect documents it (JsonConverter with schemas)."""
    psycopg = pytest.importorskip("psycopg")
    from tests.integration.test_jdbc_pipeline import _sink, _source

    tag = uuid.uuid4().hex[:10]
    src, dst, prefix = f"kc_secsrc_{tag}", f"kc_secdst_{tag}", f"sec_{tag}_"
    db = psycopg.connect(pg_dsn, autocommit=True)
    try:
        db.execute(f"CREATE TABLE {src} (id serial PRIMARY KEY, name text, amount numeric(10,2), "
                   "note text)")  # fmt: skip
        for i in range(200):
            db.execute(f"INSERT INTO {src} (name, amount, note) VALUES (%s, %s, %s)",
                       (f"名前 {i}", i * 1.25, None if i % 5 == 0 else f"n{i}"))  # fmt: skip
        props = cluster.sasl_ssl_props("SCRAM-SHA-256", "JKS")
        json = "org.apache.kafka.connect.json.JsonConverter"
        with _standalone_worker(tmp_path, props, converter=json) as (url, _log):
            for name, config in {
                f"secsrc-{tag}": _source(pg_dsn, src, prefix),
                f"secsink-{tag}": _sink(pg_dsn, prefix + src, **{
                    "table.name.format": dst, "auto.create": "true",
                    "pk.mode": "record_value", "pk.fields": "id", "insert.mode": "upsert"}),
            }.items():  # fmt: skip
                r = httpx.put(f"{url}/connectors/{name}/config", json=config, timeout=30)
                assert r.status_code in (200, 201), r.text

            def copied() -> bool:
                try:
                    return db.execute(f"SELECT count(*) FROM {dst}").fetchone()[0] == 200
                except psycopg.errors.UndefinedTable:
                    return False

            wait_for(copied, timeout=120, what=f"200 rows in {dst}")
        rows = db.execute(f"SELECT id, name, amount, note FROM {dst} ORDER BY id").fetchall()
        assert (
            rows == db.execute(f"SELECT id, name, amount, note FROM {src} ORDER BY id").fetchall()
        )
    finally:
        db.execute(f"DROP TABLE IF EXISTS {src}")
        db.execute(f"DROP TABLE IF EXISTS {dst}")
        db.close()
