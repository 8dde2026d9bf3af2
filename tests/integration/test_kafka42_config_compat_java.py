"""Kafka 4.2's override policy and list rules, kconnect beside Apache Kafka Connect 4.2.0.

A ``ConnectStandalone`` JVM (4.2.0 jars from Maven Central) and a ``kconnect standalone``
worker run with the same properties: ``connector.client.config.override.policy=Allowlist``
with an allowlist (KIP-1188) and ``config.providers`` listing one provider twice (KIP-1161:
both workers start, dropping the repeat with a warning naming the key). Each validation below
goes to both, and the answers must agree on the error count and, entry by entry and in order,
on every erroneous or override value: its name, shown value and errors (PASSWORD overrides
``[hidden]`` on both). A create with a refused override must be refused alike. And neither
worker starts without ``bootstrap.servers``, both naming it.

Known difference, left out of the comparison: Kafka gives each known client override the
client's ConfigDef entry as its ``definition``; kconnect does so for the PASSWORD ones only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from kconnect.testing.java import STANDALONE, worker_command
from kconnect.testing.java_worker import WorkerProcess, kconnect_command
from kconnect.testing.ports import free_port

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]

KAFKA_42 = "4.2.0"
FILTER = "org.apache.kafka.connect.transforms.Filter"
TOMBSTONE = "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"
OVERRIDES = ("producer.override.", "consumer.override.", "admin.override.")


def _java_command(props: Path) -> list[str]:
    # 4.2's jars, with connect-transforms for the Filter transform and its predicate
    return worker_command(
        STANDALONE, [props], extra_modules=["connect-transforms"], version=KAFKA_42, heap="384m"
    )


def _kconnect_command(props: Path) -> list[str]:
    return kconnect_command("standalone", props)


def _props(work: Path, label: str, port: int, bootstrap: str | None) -> Path:
    path = work / f"{label}.properties"
    lines = [
        "key.converter=org.apache.kafka.connect.storage.StringConverter",
        "value.converter=org.apache.kafka.connect.storage.StringConverter",
        f"offset.storage.file.filename={work / (label + '.offsets')}",
        f"listeners=http://127.0.0.1:{port}",
        "config.providers=file,file",
        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
        "connector.client.config.override.policy=Allowlist",
        "connector.client.config.override.allowlist=client.id,acks",
    ]
    if bootstrap is not None:
        lines.insert(0, f"bootstrap.servers={bootstrap}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _worker(label: str, cmd: list[str], port: int, log: Path) -> WorkerProcess:
    return WorkerProcess(cmd, log, url=f"http://127.0.0.1:{port}", label=label)


def _summary(response: httpx.Response) -> Any:
    body = response.json()
    if "configs" not in body:
        return response.status_code, body
    entries = [
        (c["value"]["name"], c["value"]["value"], c["value"]["errors"])
        for c in body["configs"]
        if c["value"] and (c["value"]["errors"] or c["value"]["name"].startswith(OVERRIDES))
    ]
    passwords = sorted(
        c["value"]["name"]
        for c in body["configs"]
        if c["definition"] and c["definition"]["type"] == "PASSWORD"
    )
    return response.status_code, body["error_count"], entries, passwords


CASES: list[tuple[str, dict[str, str]]] = [
    (
        "FileStreamSink",
        {
            "connector.class": "FileStreamSink",
            "name": "dups",
            "topics": "t1,t1",
            "transforms": "x,x",
            "transforms.x.type": FILTER,
            "predicates": "p,p",
            "predicates.p.type": TOMBSTONE,
            "consumer.override.client.id": "c",
            "consumer.override.max.poll.records": "5",
            "consumer.override.sasl.jaas.config": 'X required password="pw-abcdef";',
            "consumer.override.ssl.key.password": "pw-ghijkl",
        },
    ),
    (
        "FileStreamSink",
        {
            "connector.class": "FileStreamSink",
            "name": "empties",
            "topics": "t1,,t2",
            "transforms": "x,,y",
        },
    ),
    (
        "FileStreamSink",
        {"connector.class": "FileStreamSink", "name": "trailing", "topics": "t1,t2,"},
    ),
    (
        "FileStreamSource",
        {
            "connector.class": "FileStreamSource",
            "name": "source",
            "topic": "t",
            "producer.override.acks": "1",
            "producer.override.linger.ms": "5",
            "producer.override.ssl.truststore.password": "pw-mnopqr",
            "admin.override.client.id": "z",
            "topic.creation.groups": "g,g",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
        },
    ),
]


def test_override_policy_and_list_rules_match_kafka_4_2(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    jport, kport = free_port(), free_port()
    java = _worker(
        "java",
        _java_command(_props(tmp_path, "java", jport, kafka_bootstrap)),
        jport,
        tmp_path / "java.log",
    )
    kc = _worker(
        "kconnect",
        _kconnect_command(_props(tmp_path, "kconnect", kport, kafka_bootstrap)),
        kport,
        tmp_path / "kconnect.log",
    )
    try:
        java.wait_ready()
        kc.wait_ready()
        for plugin, config in CASES:
            answers = [
                _summary(
                    httpx.put(
                        f"{w.url}/connector-plugins/{plugin}/config/validate",
                        json=config,
                        timeout=60,
                    )
                )
                for w in (java, kc)
            ]
            assert answers[0] == answers[1], (
                f"{config['name']}:\n java {answers[0]}\n kc   {answers[1]}"
            )
        refused = {
            "connector.class": "FileStreamSink",
            "topics": "t1",
            "consumer.override.max.poll.records": "5",
            "consumer.override.client.id": "x",
            "transforms": "a,a",
            "transforms.a.type": FILTER,
        }
        created = [
            httpx.put(f"{w.url}/connectors/refused/config", json=refused, timeout=60)
            for w in (java, kc)
        ]
        assert [r.status_code for r in created] == [400, 400]
        assert created[0].json() == created[1].json()
        allowed = {
            "connector.class": "FileStreamSink",
            "topics": "t1",
            "consumer.override.client.id": "x",
        }
        assert [
            httpx.put(f"{w.url}/connectors/allowed/config", json=allowed, timeout=60).status_code
            for w in (java, kc)
        ] == [201, 201]
    finally:
        java.stop()
        kc.stop()
    assert 'Configuration key "config.providers" contains duplicate values' in java.log()
    kc_log = kc.log()
    assert 'Configuration key "config.providers"' in kc_log and "duplicates are dropped" in kc_log

    # no bootstrap.servers: neither worker starts, both say which setting is missing
    missing = 'Missing required configuration "bootstrap.servers" which has no default value.'
    for label, command in (("java-nobs", _java_command), ("kc-nobs", _kconnect_command)):
        port = free_port()
        worker = _worker(
            label, command(_props(tmp_path, label, port, None)), port, tmp_path / f"{label}.log"
        )
        try:
            assert missing in worker.exit_text(), label
        finally:
            worker.stop()
