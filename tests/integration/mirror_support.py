"""Helpers for the MirrorMaker 2 tests: a second Kafka cluster, Java's connect-mirror classes
(the line-protocol harness and Java's dedicated MirrorMaker), kconnect's ``mirror-maker``
process, and small Kafka read/write helpers over confluent-kafka."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as TP
from confluent_kafka.admin import AdminClient, ConfigResource
from confluent_kafka.cimpl import NewTopic

from kconnect.local import paths
from kconnect.testing.java import (
    HarnessProcess,
    classpath,
    compile_harness,
    java_command,
    kafka_artifacts,
)
from kconnect.testing.ports import free_port
from tests.integration.distributed_support import wait_for

MIRROR_VERSION = "4.1.2"
HARNESS_SRC = Path(__file__).resolve().parents[1] / "java" / "MirrorHarness.java"
IDENTITY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"

__all__ = [
    "IDENTITY",
    "JavaHarness",
    "MirrorMakerProcess",
    "PrivateKafka",
    "commit_group",
    "create_topic",
    "java_mirror_classpath",
    "list_topics",
    "mm2_file",
    "partition_count",
    "produce",
    "read_all",
    "start_harness",
    "topic_configs",
    "wait_for",
]


# ----------------------------------------------------------------------------- the second cluster


class PrivateKafka:
    """A broker of its own (``kconnect local`` with a private home and free ports), so tests
    never stop the shared stack. ``purge`` stops it and deletes its data."""

    def __init__(self) -> None:
        self.port = free_port()
        self.controller_port = free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.home = Path(f"/tmp/kconnect-mm2-{uuid.uuid4().hex[:8]}")
        self.home.mkdir(mode=0o755)
        shared_cache = paths.cache_dir()
        if shared_cache.is_dir():  # the jars resolved once already
            (self.home / "cache").symlink_to(shared_cache)

    def _local(self, *args: str, timeout: float = 180) -> None:
        subprocess.run(
            [sys.executable, "-m", "kconnect.cli.main", "local", *args, "--kafka-only",
             "--kafka-port", str(self.port), "--controller-port", str(self.controller_port)],
            env={**os.environ, "KCONNECT_HOME": str(self.home)},
            check=True, capture_output=True, timeout=timeout,
        )  # fmt: skip

    def start(self) -> None:
        self._local("start")

    def purge(self) -> None:
        try:
            self._local("stop", "--purge", timeout=120)
        except subprocess.SubprocessError:
            pass
        finally:
            subprocess.run(["rm", "-rf", str(self.home)], check=False)


@contextmanager
def private_kafka() -> Iterator[PrivateKafka]:
    cluster = PrivateKafka()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.purge()


# ----------------------------------------------------------------------------- Java


#: MirrorMaker's jars, with log4j2 (its log goes to a file: see ``_log4j_config``)
_MIRROR_ARTIFACTS = kafka_artifacts(
    "connect-mirror",
    "connect-mirror-client",
    "connect-runtime",
    "connect-json",
    version=MIRROR_VERSION,
    logging=True,
)


def java_mirror_classpath() -> list[Path]:
    return classpath(_MIRROR_ARTIFACTS)


class JavaHarness(HarnessProcess):
    """tests/java/MirrorHarness.java in one JVM: one JSON request in, one answer out."""

    def call(self, op: str, **fields: Any) -> Any:
        answer = json.loads(self.ask(json.dumps({"op": op, **fields})))
        if "error" in answer:
            raise RuntimeError(f"Java harness: {answer['error']}")
        return answer["ok"]


def start_harness() -> JavaHarness:
    main_class = "org.apache.kafka.connect.mirror.MirrorHarness"
    classes = compile_harness(HARNESS_SRC, java_mirror_classpath(), main_class=main_class)
    return JavaHarness(
        main_class, artifacts=_MIRROR_ARTIFACTS, classes=[classes], name="Java mirror harness"
    )


def _log4j_config(log_path: Path) -> Path:
    conf = log_path.with_suffix(".log4j2.properties")
    conf.write_text(
        "status = warn\n"
        "appender.f.type = File\nappender.f.name = F\n"
        f"appender.f.fileName = {log_path}\n"
        "appender.f.layout.type = PatternLayout\n"
        "appender.f.layout.pattern = [%d] %p %m (%c)%n\n"
        "rootLogger.level = INFO\nrootLogger.appenderRef.f.ref = F\n"
        "logger.kafka.name = org.apache.kafka.clients\nlogger.kafka.level = WARN\n"
    )
    return conf


class MirrorMakerProcess:
    """A dedicated MirrorMaker node: Java's ``MirrorMaker`` main class or ``kconnect
    mirror-maker``, on one mm2.properties file, its output in ``log``."""

    def __init__(self, kind: str, config: Path, *extra: str) -> None:
        self.kind = kind
        self.config = config
        self.log = config.with_name(f"{config.stem}-{kind}-{uuid.uuid4().hex[:6]}.log")
        if kind == "java":
            self.cmd = java_command(
                "org.apache.kafka.connect.mirror.MirrorMaker", [config, *extra],
                artifacts=_MIRROR_ARTIFACTS, heap="512m",
                options=[f"-Dlog4j2.configurationFile={_log4j_config(self.log)}"],
            )  # fmt: skip
        else:
            self.cmd = [sys.executable, "-m", "kconnect.cli.main", "mirror-maker", str(config),
                        *extra]  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> MirrorMakerProcess:
        # Java logs through log4j2 into ``log``; its stdout/stderr (JVM errors) go next to it
        out = (
            self.log.open("ab") if self.kind != "java" else self.log.with_suffix(".out").open("ab")
        )
        self.proc = subprocess.Popen(self.cmd, stdout=out, stderr=subprocess.STDOUT)
        return self

    def run_to_exit(self, timeout: float = 90) -> tuple[int, str]:
        """Run until it exits (start-up errors); (exit status, output)."""
        res = subprocess.run(self.cmd, capture_output=True, text=True, timeout=timeout)
        return res.returncode, res.stdout + res.stderr

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 60) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def mm2_file(path: Path, clusters: Mapping[str, str], flows: list[str], **extra: str) -> Path:
    """An mm2.properties for ``clusters`` (alias -> bootstrap) with ``flows`` (``"A->B"``)
    enabled, replication factors 1 and quick intervals; ``extra`` keys are written as given
    (``key__with__dots``-free: pass them through ``**{"A->B.topics": "t"}``)."""
    lines = [f"clusters = {', '.join(clusters)}"]
    lines += [f"{alias}.bootstrap.servers = {servers}" for alias, servers in clusters.items()]
    # offsets are committed every second so handovers and checkpoints see them quickly
    lines += [f"{alias}.offset.flush.interval.ms = 1000" for alias in clusters]
    lines += [f"{flow}.enabled = true" for flow in flows]
    defaults = {
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "checkpoints.topic.replication.factor": "1",
        "heartbeats.topic.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "config.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "emit.checkpoints.interval.seconds": "1",
        "refresh.groups.interval.seconds": "2",
        "refresh.topics.interval.seconds": "2",
        "sync.topic.acls.enabled": "false",
    }
    for key, value in {**defaults, **extra}.items():
        lines.append(f"{key} = {value}")
    path.write_text("\n".join(lines) + "\n")
    return path


# ----------------------------------------------------------------------------- Kafka helpers


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def create_topic(
    bootstrap: str, name: str, partitions: int = 1, config: Mapping[str, str] | None = None
) -> None:
    admin = _admin(bootstrap)  # kept alive until the future completes
    fut = admin.create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1, config=dict(config or {}))]
    )[name]
    fut.result(30)
    wait_for(lambda: partition_count(bootstrap, name) == partitions, 30, f"topic {name}")


def list_topics(bootstrap: str) -> dict[str, int]:
    md = _admin(bootstrap).list_topics(timeout=20)
    return {n: len(t.partitions) for n, t in md.topics.items() if t.error is None}


def partition_count(bootstrap: str, topic: str) -> int:
    return list_topics(bootstrap).get(topic, 0)


def topic_configs(bootstrap: str, topic: str) -> dict[str, str]:
    """The topic's configs that are not the broker's defaults."""
    admin = _admin(bootstrap)
    res = admin.describe_configs([ConfigResource("TOPIC", topic)])
    entries = next(iter(res.values())).result(30)
    return {n: e.value for n, e in entries.items() if not e.is_default}


Record = tuple[int, bytes | None, bytes | None, list[tuple[str, bytes]] | None, int]


def produce(bootstrap: str, topic: str, records: list[Record]) -> None:
    """Write (partition, key, value, headers, timestamp) records, then flush."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for partition, key, value, headers, ts in records:
        p.produce(topic, value, key, partition=partition, headers=headers, timestamp=ts)
        p.poll(0)
    assert p.flush(60) == 0


def read_all(bootstrap: str, topic: str, timeout: float = 30) -> list[dict[str, Any]]:
    """Every record of ``topic`` (all partitions, to their current end), in offset order."""
    n = partition_count(bootstrap, topic)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"read-{uuid.uuid4().hex}",
                  "enable.auto.commit": False})  # fmt: skip
    try:
        ends = {p: c.get_watermark_offsets(TP(topic, p), timeout=10)[1] for p in range(n)}
        c.assign([TP(topic, p, 0) for p in range(n) if ends[p] > 0])
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        done = {p for p, e in ends.items() if e == 0}
        while len(done) < n and time.monotonic() < deadline:
            for m in c.consume(1000, 1.0):
                if m.error():
                    continue
                got.append({
                    "partition": m.partition(), "offset": m.offset(), "key": m.key(),
                    "value": m.value(), "headers": m.headers(), "timestamp": m.timestamp(),
                })  # fmt: skip
                if m.offset() + 1 >= ends[m.partition()]:
                    done.add(m.partition())
        return sorted(got, key=lambda r: (r["partition"], r["offset"]))
    finally:
        c.close()


def commit_group(bootstrap: str, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
    """Commit offsets for ``group`` as a consumer of it would (the group is then EMPTY)."""
    from confluent_kafka import KafkaException

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    parts = [TP(t, p, o) for (t, p), o in offsets.items()]

    def commit() -> bool:
        try:
            c.commit(offsets=parts, asynchronous=False)
        except KafkaException:  # a fresh broker may still be creating __consumer_offsets
            return False
        return True

    try:
        wait_for(commit, 60, f"a commit for group {group}", interval=0.5)
    finally:
        c.close()


def group_offsets(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    from confluent_kafka import ConsumerGroupTopicPartitions

    admin = _admin(bootstrap)
    res = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
    got = res[group].result(30)
    return {(p.topic, p.partition): p.offset for p in got.topic_partitions or [] if p.offset >= 0}


def until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    return wait_for(predicate, timeout=timeout, what=what, interval=0.5)
