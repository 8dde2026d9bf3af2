"""kconnect's MirrorMaker 2 beside Java's (connect-mirror 4.1.2), on two real clusters: a
private broker A started for this module and the shared broker B. Both run in dedicated mode
from the same mm2.properties, each under cluster aliases of its own, so they replicate the same
source topic side by side:

* the same remote topics (partition count, filtered configs), the same records (key, value,
  headers, timestamp, partition, order), the same offset syncs, checkpoints and heartbeats
  (bytes as Java's; Java's harness decodes kconnect's), the same offsets-topic keys and values;
* Java's ``RemoteClusterUtils.translateOffsets`` over kconnect's checkpoints gives the offsets
  a consumer needs to fail over, and the consumer group is synced to the target while empty;
* new partitions and new matching topics are picked up by both;
* a Java flow stopped mid-stream and replaced by kconnect (same aliases, same internal topics)
  resumes from Java's source offsets and offset syncs: nothing Java committed is copied twice.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kconnect.api import TopicPartition
from kconnect.connectors.mirror.formats import Checkpoint, Heartbeat, OffsetSync
from tests.integration.mirror_support import (
    JavaHarness,
    MirrorMakerProcess,
    PrivateKafka,
    commit_group,
    create_topic,
    group_offsets,
    mm2_file,
    partition_count,
    private_kafka,
    produce,
    read_all,
    start_harness,
    topic_configs,
    until,
)

pytestmark = [pytest.mark.java, pytest.mark.kafka, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster_a() -> Iterator[PrivateKafka]:
    with private_kafka() as a:
        yield a


@pytest.fixture(scope="module")
def java() -> Iterator[JavaHarness]:
    harness = start_harness()
    try:
        yield harness
    finally:
        harness.close()


#: Record timestamps: recent, so no broker's retention deletes the records under the test.
TS0 = int(time.time() * 1000) - 3_600_000


def _records(n_per_partition: int, partitions: int, start: int = 0) -> list[Any]:
    out = []
    for p in range(partitions):
        for i in range(start, start + n_per_partition):
            headers = [("x0", f"h{i}".encode()), ("seq", str(i).encode())]
            if i % 10 == 0:
                headers.append(("nothing", None))
            key = None if i % 7 == 0 else f"k{p}-{i}".encode()
            out.append((p, key, f"{p}:{i}".encode(), headers, TS0 + i))
    return out


def _latest(records: list[dict[str, Any]]) -> dict[bytes, bytes | None]:
    latest: dict[bytes, bytes | None] = {}
    for r in records:
        latest[r["key"]] = r["value"]
    return latest


def _content(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (r["partition"], r["key"], r["value"], r["headers"], r["timestamp"][1]) for r in records
    ]


def test_java_and_kconnect_mirror_the_same_topic_alike(
    tmp_path: Path, cluster_a: PrivateKafka, kafka_bootstrap: str, java: JavaHarness
) -> None:
    a, b = cluster_a.bootstrap, kafka_bootstrap
    u = uuid.uuid4().hex[:6]
    topic, topic2, group = f"t-{u}", f"t2-{u}", f"g-{u}"
    create_topic(a, topic, 3, {"retention.ms": "864000123", "max.message.bytes": "2000000",
                               "min.insync.replicas": "1"})  # fmt: skip
    produce(a, topic, _records(100, 3))
    commit_group(a, group, {(topic, 1): 67, (topic, 2): 100})  # nothing on partition 0
    aliases = {"java": (f"J{u}", f"JB{u}"), "kconnect": (f"K{u}", f"KB{u}")}
    nodes = []
    for kind, (sa, ta) in aliases.items():
        f = mm2_file(
            tmp_path / f"{kind}.properties", {sa: a, ta: b}, [f"{sa}->{ta}"],
            **{f"{sa}->{ta}.topics": f"t.*-{u}", f"{sa}->{ta}.groups": group,
               "sync.group.offsets.enabled": "true", "sync.group.offsets.interval.seconds": "1"},
        )  # fmt: skip
        nodes.append(MirrorMakerProcess(kind, f).start())
    try:
        remote = {kind: f"{sa}.{topic}" for kind, (sa, _) in aliases.items()}
        for kind, name in remote.items():
            until(lambda n=name: len(read_all(b, n)) == 300, 120, f"{kind} replicated {name}")

        # same remote topics, partitions and filtered configs
        assert partition_count(b, remote["java"]) == partition_count(b, remote["kconnect"]) == 3
        java_cfg, k_cfg = topic_configs(b, remote["java"]), topic_configs(b, remote["kconnect"])
        assert k_cfg == java_cfg
        assert k_cfg["retention.ms"] == "864000123" and k_cfg["max.message.bytes"] == "2000000"

        # the same records, byte for byte, as the source's
        source = _content(read_all(a, topic))
        assert _content(read_all(b, remote["kconnect"])) == source
        assert _content(read_all(b, remote["java"])) == source

        # checkpoints: the same translation, kconnect's bytes readable by Java's client
        def checkpoints(kind: str) -> dict[int, Checkpoint]:
            sa = aliases[kind][0]
            got = {}
            for r in read_all(b, f"{sa}.checkpoints.internal"):
                cp = Checkpoint.from_record(r["key"], r["value"])
                got[cp.topic_partition.partition] = cp
            return got

        for kind in aliases:
            until(lambda k=kind: set(checkpoints(k)) == {1, 2}, 90, f"{kind} checkpoints")
        ours, theirs = checkpoints("kconnect"), checkpoints("java")
        for p in (1, 2):
            o, t = ours[p], theirs[p]
            assert o.topic_partition == TopicPartition(remote["kconnect"], p)
            assert (o.consumer_group_id, o.upstream_offset, o.downstream_offset, o.metadata) == (
                t.consumer_group_id, t.upstream_offset, t.downstream_offset, t.metadata,
            )  # fmt: skip
        assert (ours[1].upstream_offset, ours[2].upstream_offset) == (67, 100)
        assert ours[2].downstream_offset == 100  # at the end of the topic
        translated = java.call("translate", props={"bootstrap.servers": b},
                               remote=aliases["kconnect"][0], group=group, timeoutMs=20000)  # fmt: skip
        assert translated == {
            f"{remote['kconnect']}-{p}": ours[p].downstream_offset for p in (1, 2)
        }
        raw = read_all(b, f"{aliases['kconnect'][0]}.checkpoints.internal")[-1]
        decoded = java.call(
            "decode", kind="checkpoint", key=_b64(raw["key"]), value=_b64(raw["value"])
        )
        assert decoded == str(Checkpoint.from_record(raw["key"], raw["value"]))

        # the group, empty on the target, gets the translated offsets there
        until(
            lambda: {k: v for k, v in group_offsets(b, group).items() if k[0] == remote["kconnect"]}
            == {(remote["kconnect"], p): ours[p].downstream_offset for p in (1, 2)},
            60, "group offsets synced to the target",
        )  # fmt: skip

        # offset syncs on the source cluster: the same ones
        def syncs(kind: str) -> set[tuple[int, int, int]]:
            ta = aliases[kind][1]
            return {
                (s.topic_partition.partition, s.upstream_offset, s.downstream_offset)
                for s in (
                    OffsetSync.from_record(r["key"], r["value"])
                    for r in read_all(a, f"mm2-offset-syncs.{ta}.internal")
                )
                if s.topic_partition.topic == topic
            }

        for kind in aliases:
            until(lambda k=kind: {(p, 99, 99) for p in range(3)} <= syncs(k), 60, f"{kind} syncs")
        # The first record's sync is due at once and the last one at the end of the topic, on
        # both sides. Any other sync here is a delayed one that a periodic offset commit
        # promoted (Java's MirrorSourceTask.commit, and kconnect's): it lands wherever the
        # flow was at that moment, so each side's own timing decides whether one appears.
        due = {(p, 0, 0) for p in range(3)} | {(p, 99, 99) for p in range(3)}
        ours_syncs, java_syncs = syncs("kconnect"), syncs("java")
        assert {s for s in ours_syncs if s in due} == {s for s in java_syncs if s in due} == due
        assert all(up == down for _, up, down in ours_syncs | java_syncs)  # no gaps to skip

        # heartbeats on both clusters, and replicated back as <alias>.heartbeats
        for kind, (sa, ta) in aliases.items():
            until(lambda s=sa, t=ta: any(
                Heartbeat.from_record(r["key"], r["value"]).source_cluster_alias == s
                for r in read_all(b, "heartbeats") if r["key"] and r["key"][2:].startswith(s.encode())
            ), 60, f"{kind} heartbeats on B")  # fmt: skip
            until(lambda s=sa, t=ta: {
                (h.source_cluster_alias, h.target_cluster_alias)
                for h in (Heartbeat.from_record(r["key"], r["value"]) for r in read_all(b, f"{s}.heartbeats"))
            } >= {(t, s)}, 60, f"{kind} heartbeats {ta}->{sa} replicated to B")  # fmt: skip

        # the offsets topics hold the same keys and values (aliases aside)
        def offsets(kind: str) -> dict[str, str]:
            sa = aliases[kind][0]
            return {
                r["key"].decode().replace(sa, "<A>").replace(aliases[kind][1], "<B>"):
                    r["value"].decode()
                for r in read_all(b, f"mm2-offsets.{sa}.internal") if r["value"] is not None
            }  # fmt: skip

        until(lambda: len(offsets("kconnect")) >= 3 + 2, 60, "kconnect source offsets")
        java_offsets, our_offsets = offsets("java"), offsets("kconnect")
        source_keys = {k for k in java_offsets if '"MirrorSourceConnector"' in k}
        assert source_keys and source_keys <= set(our_offsets)
        mirrored = {k for k in source_keys if f'"topic":"{topic}"' in k}  # heartbeats move on
        assert len(mirrored) == 3
        assert {k: our_offsets[k] for k in mirrored} == {k: java_offsets[k] for k in mirrored}
        checkpoint_keys = {k for k in java_offsets if '"MirrorCheckpointConnector"' in k}
        assert checkpoint_keys and checkpoint_keys <= set(our_offsets)

        # new partitions and new topics are picked up by both
        from confluent_kafka.admin import AdminClient, NewPartitions

        admin = AdminClient({"bootstrap.servers": a})
        admin.create_partitions([NewPartitions(topic, 4)])[topic].result(30)
        create_topic(a, topic2, 2)
        produce(a, topic, [(3, b"k", b"3:new", None, TS0 + 999)])
        produce(a, topic2, _records(5, 2))
        for kind, (sa, _) in aliases.items():
            until(lambda s=sa: partition_count(b, f"{s}.{topic}") == 4
                  and len(read_all(b, f"{s}.{topic}")) == 301
                  and len(read_all(b, f"{s}.{topic2}")) == 10, 90,
                  f"{kind} picked up the new partition and topic")  # fmt: skip
        assert _content(read_all(b, f"{aliases['kconnect'][0]}.{topic2}")) == _content(
            read_all(a, topic2)
        )
        for node in nodes:
            assert node.running(), node.output()[-3000:]
    finally:
        for node in nodes:
            node.stop()


def _b64(data: bytes | None) -> str:
    import base64

    return base64.b64encode(data or b"").decode()


def _source_offsets(bootstrap: str, alias: str, topic: str) -> dict[int, int]:
    """The source offsets the flow's MirrorSourceConnector committed, per partition."""
    got: dict[int, int] = {}
    for r in read_all(bootstrap, f"mm2-offsets.{alias}.internal"):
        connector, partition = json.loads(r["key"])
        if connector == "MirrorSourceConnector" and partition["topic"] == topic and r["value"]:
            got[partition["partition"]] = json.loads(r["value"])["offset"]
    return got


def test_a_java_flow_replaced_by_kconnect_copies_nothing_twice(
    tmp_path: Path, cluster_a: PrivateKafka, kafka_bootstrap: str, java: JavaHarness
) -> None:
    a, b = cluster_a.bootstrap, kafka_bootstrap
    u = uuid.uuid4().hex[:6]
    topic, group = f"h-{u}", f"hg-{u}"
    sa, ta = f"H{u}", f"HB{u}"
    create_topic(a, topic, 2)
    produce(a, topic, _records(250, 2))
    commit_group(a, group, {(topic, 0): 200})
    f = mm2_file(tmp_path / "handover.properties", {sa: a, ta: b}, [f"{sa}->{ta}"],
                 **{f"{sa}->{ta}.topics": topic, f"{sa}->{ta}.groups": group})  # fmt: skip
    remote = f"{sa}.{topic}"

    java_node = MirrorMakerProcess("java", f).start()
    try:
        until(lambda: len(read_all(b, remote)) == 500, 120, "Java replicated the first half")
        until(lambda: _source_offsets(b, sa, topic) == {0: 249, 1: 249}, 60, "Java's offsets")
        until(lambda: any(r["value"] for r in read_all(b, f"{sa}.checkpoints.internal")), 60,
              "Java's first checkpoint")  # fmt: skip
        # the reverse flow's heartbeat connector creates A's heartbeats topic, which every
        # flow replicates: wait for Java's task to take it on, or kconnect's refresh would
        # find it and rightly write the task config a second time
        until(lambda: any(
            b"heartbeats-0" in (r["value"] or b"")
            for r in read_all(b, f"mm2-configs.{sa}.internal")
            if r["key"] == b"task-MirrorSourceConnector-0"
        ), 60, "Java replicating A's heartbeats")  # fmt: skip
    finally:
        java_node.stop()
    committed = _source_offsets(b, sa, topic)
    java_written = Counter(r["key"] for r in read_all(b, f"mm2-configs.{sa}.internal"))
    java_checkpoints = [
        Checkpoint.from_record(r["key"], r["value"])
        for r in read_all(b, f"{sa}.checkpoints.internal")
    ]

    produce(a, topic, _records(250, 2, start=250))  # the second half arrives while nobody runs
    ours = MirrorMakerProcess("kconnect", f).start()
    try:
        until(lambda: len(read_all(b, remote)) >= 1000, 120, "kconnect replicated the rest")
        until(lambda: _source_offsets(b, sa, topic) == {0: 499, 1: 499}, 60, "kconnect's offsets")
        copies = Counter(r["value"] for r in read_all(b, remote))
        assert set(copies) == {f"{p}:{i}".encode() for p in range(2) for i in range(500)}
        twice = {v for v, n in copies.items() if n > 1}
        # at least once: only records Java had not committed may come again; it committed all
        assert not any(int(v.split(b":")[1]) <= committed[int(v.split(b":")[0])] for v in twice)
        assert not twice

        # kconnect goes on writing offset syncs where Java left them, and checkpoints from them
        until(lambda: any(
            s.upstream_offset == 499 for s in (
                OffsetSync.from_record(r["key"], r["value"])
                for r in read_all(a, f"mm2-offset-syncs.{ta}.internal")
            )
        ), 60, "kconnect's offset syncs")  # fmt: skip
        commit_group(a, group, {(topic, 0): 400})
        until(lambda: any(
            Checkpoint.from_record(r["key"], r["value"]).upstream_offset == 400
            for r in read_all(b, f"{sa}.checkpoints.internal")
        ), 60, "a checkpoint after the handover")  # fmt: skip
        translated = java.call("translate", props={"bootstrap.servers": b}, remote=sa,
                               group=group, timeoutMs=20000)  # fmt: skip
        downstream = translated[f"{remote}-0"]
        assert java_checkpoints and downstream >= max(c.downstream_offset for c in java_checkpoints)
        # a consumer failing over to the target from there misses nothing the group had not read
        first_unread = min(
            r["offset"]
            for r in read_all(b, remote)
            if r["partition"] == 0 and int(r["value"].split(b":")[1]) >= 400
        )
        assert downstream <= first_unread
        # the connector and task configs Java wrote last were already what kconnect would
        # write (task.class included), so kconnect kept them: it wrote none of its own
        records = read_all(b, f"mm2-configs.{sa}.internal")
        for key in (
            b"connector-MirrorSourceConnector",
            b"task-MirrorSourceConnector-0",
            b"connector-MirrorCheckpointConnector",
            b"task-MirrorCheckpointConnector-0",
        ):
            values = [r["value"] for r in records if r["key"] == key]
            assert len(values) == java_written[key] >= 1, "\n".join(
                [repr(key), *map(repr, values), ours.output()[-3000:]]
            )
        assert ours.running(), ours.output()[-3000:]
    finally:
        ours.stop()
