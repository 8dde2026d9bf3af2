"""kconnect's MirrorMaker 2 against Java's connect-mirror / connect-mirror-client 4.1.2 classes,
on the same inputs, through tests/java/MirrorHarness.java (one JVM for the module; no broker):

* the connectors' and the mm2.properties file's config keys: names, types, defaults;
* heartbeat, checkpoint and offset-sync bytes, both ways (Java decodes kconnect's bytes);
* Default/IdentityReplicationPolicy answers, with custom separators;
* offset translation: the same syncs fed to Java's OffsetSyncStore give the same answers;
* the order Java lists topics and groups in, and so the task configs for each tasks.max;
* worker and connector configs derived from mm2.properties files (Java's MirrorMakerConfig);
* MirrorMaker's own metrics: the MBeans Java's tasks register, their descriptions and values.
"""

from __future__ import annotations

import base64
import math
import random
import string
from collections.abc import Iterator
from typing import Any

import pytest

from kconnect.api import (
    DomainMetrics,
    OffsetStorageReader,
    SourceTaskContext,
    Stat,
    TopicPartition,
)
from kconnect.api.config_types import convert_to_string
from kconnect.connectors.mirror.checkpoint_config import CHECKPOINT_CONFIG_DEF
from kconnect.connectors.mirror.checkpoint_connector import MirrorCheckpointConnector
from kconnect.connectors.mirror.checkpoint_task import MirrorCheckpointTask
from kconnect.connectors.mirror.formats import Checkpoint, Heartbeat, OffsetSync
from kconnect.connectors.mirror.heartbeat_config import HEARTBEAT_CONFIG_DEF
from kconnect.connectors.mirror.java_order import describe_topics_order, hash_set_order
from kconnect.connectors.mirror.maker_config import (
    CONNECTOR_CLASSES,
    MAKER_CONFIG_DEF,
    MirrorMakerConfig,
)
from kconnect.connectors.mirror.metrics import MirrorCheckpointMetrics
from kconnect.connectors.mirror.offset_sync_store import SyncArrays
from kconnect.connectors.mirror.replication_policy import replication_policy
from kconnect.connectors.mirror.source_config import SOURCE_CONFIG_DEF
from kconnect.connectors.mirror.source_connector import MirrorSourceConnector
from kconnect.connectors.mirror.source_task import MirrorSourceTask
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.metrics.plugin_metrics import (
    RegistryDomainMetrics,
    RegistryPluginMetrics,
    plugin_tags,
)
from kconnect.runtime.metrics.registry import MetricsRegistry
from tests.integration.mirror_support import JavaHarness, start_harness

pytestmark = pytest.mark.java

#: Kafka Connect's own connector keys: Java's definitions embed them, kconnect's runtime adds
#: them around every connector's own definition.
CONNECT_KEYS = {
    "name", "connector.class", "connector.plugin.version", "tasks.max", "tasks.max.enforce",
    "key.converter", "key.converter.plugin.version", "value.converter",
    "value.converter.plugin.version", "header.converter", "header.converter.plugin.version",
    "transforms", "predicates", "config.action.reload", "errors.retry.timeout",
    "errors.retry.delay.max.ms", "errors.tolerance", "errors.log.enable",
    "errors.log.include.messages",
}  # fmt: skip


@pytest.fixture(scope="module")
def java() -> Iterator[JavaHarness]:
    harness = start_harness()
    try:
        yield harness
    finally:
        harness.close()


def _ours(definition: Any) -> list[dict[str, Any]]:
    out = []
    for key in definition.config_keys().values():
        entry: dict[str, Any] = {
            "name": key.name, "type": key.type.name, "importance": key.importance.name,
        }  # fmt: skip
        if key.has_default:
            entry["default"] = convert_to_string(key.default_value, key.type)
        else:
            entry["required"] = True
        out.append(entry)
    return out


@pytest.mark.parametrize(
    "which, definition",
    [
        ("source", SOURCE_CONFIG_DEF),
        ("checkpoint", CHECKPOINT_CONFIG_DEF),
        ("heartbeat", HEARTBEAT_CONFIG_DEF),
        ("mm2", MAKER_CONFIG_DEF),
    ],
)
def test_config_keys_types_and_defaults_are_javas(
    java: JavaHarness, which: str, definition: Any
) -> None:
    theirs = [k for k in java.call("configdef", which=which) if k["name"] not in CONNECT_KEYS]
    assert _ours(definition) == theirs  # same keys, same order, types, importance, defaults


def _texts(rnd: random.Random, n: int) -> list[str]:
    alphabet = string.ascii_letters + string.digits + "._-äé€"
    fixed = ["", "a", "A.b.c", "grüppe-€", "x" * 300]
    return fixed + [
        "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))) for _ in range(n)
    ]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_record_bytes_are_javas_both_ways(java: JavaHarness) -> None:
    rnd = random.Random(15)
    texts = _texts(rnd, 40)
    longs = [0, 1, -1, 2**63 - 1, -(2**63), 267, 203] + [
        rnd.randint(-(2**63), 2**63 - 1) for _ in range(10)
    ]
    for i, text in enumerate(texts):
        other = texts[(i * 7 + 3) % len(texts)]
        a, b = longs[i % len(longs)], longs[(i * 3 + 1) % len(longs)]
        partition = rnd.randint(0, 2**31 - 1) if i % 3 else i
        hb = Heartbeat(text, other, a)
        cp = Checkpoint(text, TopicPartition(other, partition), a, b, texts[-1 - i])
        sync = OffsetSync(TopicPartition(text, partition), a, b)
        java_hb = java.call("heartbeat", source=text, target=other, timestamp=a)
        java_cp = java.call("checkpoint", group=text, topic=other, partition=partition,
                            upstream=a, downstream=b, metadata=texts[-1 - i])  # fmt: skip
        java_sync = java.call(
            "offsetsync", topic=text, partition=partition, upstream=a, downstream=b
        )
        for ours, theirs in ((hb, java_hb), (cp, java_cp), (sync, java_sync)):
            assert (_b64(ours.record_key()), _b64(ours.record_value())) == (
                theirs["key"], theirs["value"],
            ), ours  # fmt: skip
        for kind, ours in (("heartbeat", hb), ("checkpoint", cp), ("offsetsync", sync)):
            decoded = java.call("decode", kind=kind, key=_b64(ours.record_key()),
                                value=_b64(ours.record_value()))  # fmt: skip
            assert decoded == str(ours)


POLICY_CONFIGS = [
    ("org.apache.kafka.connect.mirror.DefaultReplicationPolicy", {}),
    ("org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
     {"replication.policy.separator": "__"}),
    ("org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
     {"replication.policy.separator": "-",
      "replication.policy.internal.topic.separator.enabled": "false"}),
    ("org.apache.kafka.connect.mirror.IdentityReplicationPolicy", {"source.cluster.alias": "A"}),
    ("org.apache.kafka.connect.mirror.IdentityReplicationPolicy", {}),
]  # fmt: skip
TOPICS = [
    "orders", "A.orders", "B.A.orders", "A.", ".x", "a..b", "", "heartbeats", "A.heartbeats",
    "B.A.heartbeats", "xheartbeats", "A.checkpoints.internal", "mm2-offset-syncs.B.internal",
    "A__orders", "A__checkpoints__internal", "__consumer_offsets", "connect-offsets-internal",
    "A-t", "A-B-t", ".internal", "A__B__heartbeats",
]  # fmt: skip


@pytest.mark.parametrize("cls, config", POLICY_CONFIGS)
def test_replication_policies_answer_as_javas(
    java: JavaHarness, cls: str, config: dict[str, str]
) -> None:
    calls: list[list[str]] = [["heartbeatsTopic"]]
    for alias in ("A", "B", "us-west"):
        calls += [["offsetSyncsTopic", alias], ["checkpointsTopic", alias]]
        calls += [["formatRemoteTopic", alias, t] for t in TOPICS[:8]]
    for topic in TOPICS:
        calls += [[m, topic] for m in ("topicSource", "upstreamTopic", "originalTopic",
                                       "isHeartbeatsTopic", "isCheckpointsTopic",
                                       "isMM2InternalTopic", "isInternalTopic")]  # fmt: skip
    theirs = java.call("policy", config=config, calls=calls, **{"class": cls})
    policy = replication_policy(cls, config)
    names = {
        "formatRemoteTopic": policy.format_remote_topic, "topicSource": policy.topic_source,
        "upstreamTopic": policy.upstream_topic, "originalTopic": policy.original_topic,
        "heartbeatsTopic": policy.heartbeats_topic, "offsetSyncsTopic": policy.offset_syncs_topic,
        "checkpointsTopic": policy.checkpoints_topic,
        "isHeartbeatsTopic": policy.is_heartbeats_topic,
        "isCheckpointsTopic": policy.is_checkpoints_topic,
        "isMM2InternalTopic": policy.is_mm2_internal_topic,
        "isInternalTopic": policy.is_internal_topic,
    }  # fmt: skip
    ours = [names[c[0]](*c[1:]) for c in calls]
    assert list(zip(calls, ours, strict=True)) == list(zip(calls, theirs, strict=True))


@pytest.mark.parametrize("seed", range(6))
def test_offset_translation_matches_javas_offset_sync_store(java: JavaHarness, seed: int) -> None:
    rnd = random.Random(seed)
    up = down = 0
    syncs = []
    for _ in range(rnd.choice([5, 200, 1500])):
        if rnd.random() < 0.02:
            up = max(0, up - rnd.randint(1, 500))  # an upstream rewind
        up += rnd.choice([1, 1, 2, 7, 100, 1000])
        down += rnd.choice([1, 1, 3, 50])
        syncs.append([f"t{rnd.randint(0, 1)}", rnd.randint(0, 1), up, down])
    before_end = rnd.randint(0, len(syncs))
    must_read_to_end = seed % 2 == 0
    queries = [
        [f"t{rnd.randint(0, 2)}", rnd.randint(0, 1), rnd.randint(0, up + 10)] for _ in range(300)
    ]
    theirs = java.call("syncstore", syncs=syncs, queries=queries, beforeEnd=before_end,
                       mustReadToEnd=must_read_to_end)  # fmt: skip
    store = SyncArrays()
    store.initialization_must_read_to_end = must_read_to_end
    for i, (topic, partition, u, d) in enumerate(syncs):
        if i == before_end:
            store.read_to_end = True
        store.handle(OffsetSync(TopicPartition(topic, partition), u, d))
    store.read_to_end = True
    ours = [store.translate_downstream("g", TopicPartition(t, p), o) for t, p, o in queries]
    assert ours == theirs


def test_topics_are_listed_in_javas_order(java: JavaHarness) -> None:
    rnd = random.Random(3)
    for _ in range(60):
        names = list(dict.fromkeys(
            "".join(rnd.choice(string.ascii_lowercase + ".-_") for _ in range(rnd.randint(1, 15)))
            for _ in range(rnd.randint(1, 80))
        ))  # fmt: skip
        assert describe_topics_order(names) == java.call("hashorder", names=names)


BASE = {
    "name": "ms",
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "source.cluster.alias": "A",
    "target.cluster.alias": "B",
}


@pytest.mark.parametrize("max_tasks", [1, 2, 3, 7, 50])
def test_source_task_configs_are_javas(java: JavaHarness, max_tasks: int) -> None:
    partitions = [[t, p] for t, n in (("t0", 8), ("orders", 2), ("x.y", 3)) for p in range(n)]
    theirs = java.call("sourcetasks", config=BASE, partitions=partitions, maxTasks=max_tasks)
    c = MirrorSourceConnector()
    c.configure(BASE)
    c.known_source_partitions = [TopicPartition(t, p) for t, p in partitions]
    ours = [
        {"task.assigned.partitions": t["task.assigned.partitions"], "task.index": t["task.index"]}
        for t in c.task_configs(max_tasks)
    ]
    assert ours == theirs


@pytest.mark.parametrize("max_tasks", [1, 2, 4, 30])
def test_checkpoint_task_configs_are_javas(java: JavaHarness, max_tasks: int) -> None:
    groups = [f"group-{i}" for i in range(11)] + ["billing", "orders-app", "x"]
    theirs = java.call("checkpointtasks", config=BASE, groups=groups, maxTasks=max_tasks)
    c = MirrorCheckpointConnector()
    c.configure(BASE)
    c.known_groups = hash_set_order(groups)
    ours = [
        {"task.assigned.groups": t["task.assigned.groups"], "task.index": t["task.index"]}
        for t in c.task_configs(max_tasks)
    ]
    assert ours == theirs


MM2_FILES = [
    {
        "clusters": "A, B", "A.bootstrap.servers": "a:1", "B.bootstrap.servers": "b:1",
        "A->B.enabled": "true", "A->B.topics": "t.*", "replication.factor": "1",
        "tasks.max": "3", "A.security.protocol": "SSL", "A.consumer.max.poll.records": "100",
        "B.producer.linger.ms": "5", "offset.storage.replication.factor": "1",
        "key.converter": "x.Y", "bootstrap.servers": "top:9", "task.processes": "2",
        "A->B.emit.heartbeats.enabled": "false", "foo.bar": "baz",
        "A.admin.request.timeout.ms": "9", "B.offset.flush.interval.ms": "1000",
        "A->B.sync.group.offsets.enabled": "true", "groups": "app-.*",
    },
    {
        "clusters": "A, B, C", "A.bootstrap.servers": "a:1", "B.bootstrap.servers": "b:1",
        "C.bootstrap.servers": "c:1", "A->B.enabled": "true", "B->C.enabled": "true",
        "emit.heartbeats.enabled": "false",
        "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
        "replication.policy.separator": "_", "C.sasl.mechanism": "PLAIN",
        "C.sasl.jaas.config": "x required;", "C.security.protocol": "SASL_PLAINTEXT",
    },
    {
        "clusters": "primary, backup", "primary.bootstrap.servers": "p:1",
        "backup.bootstrap.servers": "q:1", "primary->backup.enabled": "true",
        "backup->primary.enabled": "true", "dedicated.mode.enable.internal.rest": "true",
        "listeners": "http://localhost:8080", "config.storage.topic": "my-configs",
    },
]  # fmt: skip


@pytest.mark.parametrize("props", MM2_FILES)
def test_mm2_properties_become_javas_worker_and_connector_configs(
    java: JavaHarness, props: dict[str, str]
) -> None:
    theirs = java.call("mm2", props=props)
    maker = MirrorMakerConfig(props)
    assert sorted(str(p) for p in maker.cluster_pairs()) == sorted(theirs["pairs"])
    for pair in maker.cluster_pairs():
        assert maker.worker_config(pair) == theirs["workers"][str(pair)], str(pair)
        for name, cls in CONNECTOR_CLASSES:
            assert maker.connector_base_config(pair, cls) == theirs["connectors"][str(pair)][name]


# -- MirrorMaker's own metrics -----------------------------------------------------------------


class _Message:
    """The accessors of a consumed message the source task reads."""

    def __init__(self, topic: str, partition: int, offset: int, ts: int, value: bytes | None):
        self._t, self._p, self._o, self._ts, self._v = topic, partition, offset, ts, value

    def topic(self) -> str:
        return self._t

    def partition(self) -> int:
        return self._p

    def offset(self) -> int:
        return self._o

    def timestamp(self) -> tuple[int, int]:
        return (1, self._ts)  # CreateTime

    def key(self) -> bytes | None:
        return None

    def value(self) -> bytes | None:
        return self._v

    def headers(self) -> None:
        return None


class _Consumer:
    def __init__(self, polls: list[list[_Message]]) -> None:
        self.polls = polls

    def assign(self, positions: Any) -> None:
        pass

    def poll(self, max_records: int, timeout_s: float) -> list[_Message]:
        return self.polls.pop(0) if self.polls else []

    def close(self) -> None:
        pass


class _Clients:
    def __init__(self, consumer: _Consumer) -> None:
        self._consumer = consumer

    def consumer(self, config: Any) -> _Consumer:
        return self._consumer


class _NoOffsets(OffsetStorageReader):
    def offsets(self, partitions: Any) -> dict[Any, Any]:
        return {}


class _Context(SourceTaskContext):
    def __init__(self, props: dict[str, str], registry: MetricsRegistry) -> None:
        self._props = props
        self._metrics = RegistryDomainMetrics(registry, lambda _g: None)

    def configs(self) -> dict[str, str]:
        return self._props

    def offset_storage_reader(self) -> OffsetStorageReader:
        return _NoOffsets()

    def domain_metrics(self) -> DomainMetrics:
        return self._metrics


def _our_beans(
    registry: MetricsRegistry, domain: str = "kafka.connect.mirror"
) -> dict[str, dict[str, tuple[str, Any]]]:
    """The registry as Java's JMX reporter names it: MBean key list -> attribute ->
    (description, value)."""
    beans: dict[str, dict[str, tuple[str, Any]]] = {}
    for name, value in registry.snapshot():
        assert name.domain == domain
        keys = ",".join([f"type={name.group}"] + [f"{k}={v}" for k, v in name.tags])
        beans.setdefault(keys, {})[name.name] = (name.description, value)
    return beans


def _their_beans(
    answer: list[dict[str, Any]], domain: str = "kafka.connect.mirror"
) -> dict[str, dict[str, tuple[str, Any]]]:
    beans: dict[str, dict[str, tuple[str, Any]]] = {}
    for bean in answer:
        assert bean["domain"] == domain
        if bean["keys"] == "type=kafka-metrics-count":
            continue  # the Metrics instance's own count of metrics: not served by kconnect
        beans[bean["keys"]] = {
            a: (x["description"], float(x["value"])) for a, x in bean["attributes"].items()
        }
    return beans


def _assert_same_beans(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert sorted(ours) == sorted(theirs)
    for keys, attrs in theirs.items():
        assert sorted(ours[keys]) == sorted(attrs), keys
        for attr, (description, value) in attrs.items():
            our_description, our_value = ours[keys][attr]
            assert our_description == description, (keys, attr)
            if math.isnan(value):
                assert math.isnan(our_value), (keys, attr, our_value)
            elif attr.endswith("-rate"):
                # per second over a young window: Java's and ours differ by the ms between
                assert our_value == pytest.approx(value, rel=0.01), (keys, attr)
            else:
                assert our_value == value, (keys, attr)


def test_source_task_metrics_are_javas(java: JavaHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    """MirrorSourceTask polls two batches and has some acknowledged; the same ages, sizes and
    latencies fed to Java's MirrorSourceMetrics (made from the same task config) give the same
    MBeans: names, tag order, descriptions and values (an idle assigned partition included)."""
    now = 1_750_000_000_000
    monkeypatch.setattr("kconnect.connectors.mirror.source_task.now_ms", lambda: now)
    props = {
        **BASE,
        "task.assigned.partitions": "t0-0,t0-1,orders-0",
        "emit.offset-syncs.enabled": "false",
    }
    polls = [
        [_Message("t0", 0, i, now - 40 - 7 * i, b"x" * i) for i in range(5)]
        + [_Message("orders", 0, 9, now - 3, None)],
        [_Message("t0", 0, 5, now - 1, b"yy"), _Message("orders", 0, 10, now - 900, b"zzz")],
    ]
    registry = MetricsRegistry()
    task = MirrorSourceTask(_Clients(_Consumer([list(p) for p in polls])))  # type: ignore[arg-type]
    task.initialize(_Context(props, registry))
    task.start(props)
    batches = [task.poll() or [], task.poll() or []]
    acked = [r for r in batches[0] if r.topic == "A.t0"][:3]
    task.commit_records(acked, list(range(len(acked))))
    orders = [r for b in batches for r in b if r.topic == "A.orders"]
    task.commit_records(orders[:1], [0])
    task.stop()
    ours = _our_beans(registry)  # read now: rates are per second since the first record

    calls: list[list[Any]] = []
    for poll in polls:
        for m in poll:
            remote = f"A.{m.topic()}"
            calls.append(["recordAge", remote, m.partition(), now - m.timestamp()[1]])
            size = len(m.value() or b"")
            calls.append(["recordBytes", remote, m.partition(), size])
    for r in acked + orders[:1]:
        calls.append(["countRecord", r.topic, r.kafka_partition, 0])
        calls.append(["replicationLatency", r.topic, r.kafka_partition, now - r.timestamp])
    theirs = java.call("metrics", which="source", config=props, calls=calls)
    _assert_same_beans(ours, _their_beans(theirs))


def test_checkpoint_task_metrics_are_javas(
    java: JavaHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checkpoints acknowledged by the target: the same latencies fed to Java's
    MirrorCheckpointMetrics give the same MBeans (per group and upstream topic-partition) --
    with one deliberate difference: Java feeds every group's stats from one shared sensor
    (``metrics.sensor("checkpoint-latency")`` for each group), so each group shows every
    group's checkpoints recorded after it registered; kconnect keeps each group's own."""
    now = 1_750_000_000_000
    monkeypatch.setattr("kconnect.connectors.mirror.checkpoint_task.now_ms", lambda: now)
    props = {
        **BASE,
        "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
        "task.assigned.groups": "g1,g2",
    }

    def ours_for(sent: list[tuple[str, str, int, int]]) -> dict[str, Any]:
        registry = MetricsRegistry()
        task = MirrorCheckpointTask()
        # what start() sets up besides its clients: the metrics and the checkpoints topic
        task._metrics = MirrorCheckpointMetrics(
            RegistryDomainMetrics(registry, lambda _g: None), "A", "B"
        )
        task._topic = "A.checkpoints.internal"
        for group, topic, partition, age in sent:
            checkpoint = Checkpoint(group, TopicPartition(topic, partition), 5, 4, "")
            task.commit_record(task.checkpoint_record(checkpoint, now - age), None)
        return _our_beans(registry)

    def theirs_for(sent: list[tuple[str, str, int, int]]) -> dict[str, Any]:
        calls = [list(x) for x in sent]
        return _their_beans(java.call("metrics", which="checkpoint", config=props, calls=calls))

    # one group and partition at a time: the same
    one = [("g1", "t0", 0, 40), ("g1", "t0", 0, 10), ("g1", "t0", 0, 25)]
    _assert_same_beans(ours_for(one), theirs_for(one))
    # two: the same names, descriptions and the later one's values; the first one's differ
    two = [*one, ("g2", "orders", 3, 7)]
    ours, theirs = ours_for(two), theirs_for(two)
    g1 = "type=MirrorCheckpointConnector,source=A,target=B,group=g1,topic=t0,partition=0"
    g2 = "type=MirrorCheckpointConnector,source=A,target=B,group=g2,topic=orders,partition=3"
    assert sorted(ours) == sorted(theirs) == sorted([g1, g2])
    _assert_same_beans({g2: ours[g2]}, {g2: theirs[g2]})
    assert {a: v for a, (_, v) in ours[g1].items()} == {
        "checkpoint-latency-ms": 25.0,
        "checkpoint-latency-ms-max": 40.0,
        "checkpoint-latency-ms-min": 10.0,
        "checkpoint-latency-ms-avg": 25.0,
    }
    assert {a: v for a, (_, v) in theirs[g1].items()} == {
        "checkpoint-latency-ms": 7.0,  # g2's checkpoint, through the shared sensor
        "checkpoint-latency-ms-max": 40.0,
        "checkpoint-latency-ms-min": 7.0,
        "checkpoint-latency-ms-avg": 82 / 4,
    }


#: (scope, alias, a tag the runtime sets for it) for each kind of plugin Connect 4.1 wraps
_KIP877_PLUGINS = [
    ("connector", "", "connector"),
    ("task", "", "task"),
    ("key", "", "converter"),
    ("value", "", "task"),
    ("header", "", "converter"),
    ("transformation", "route", "transformation"),
    ("predicate", "isbig", "predicate"),
]


def _attempt(call: Any) -> str | None:
    try:
        call()
    except ValueError as e:  # Java's IllegalArgumentException
        return f"IllegalArgumentException: {e}"
    except RuntimeError as e:  # Java's IllegalStateException
        return f"IllegalStateException: {e}"
    return None


def _refusals(pm: RegistryPluginMetrics, scope: str, reserved: str) -> list[str | None]:
    """What the Java harness tries after registering: each call's refusal."""
    return [
        _attempt(lambda: pm.metric_name("m", "", {reserved: "x"})),
        _attempt(lambda: pm.add_metric(pm.metric_name("tables", "again"), lambda: 1.0)),
        _attempt(lambda: pm.remove_metric(pm.metric_name("nope", ""))),
        _attempt(lambda: pm.add_sensor(f"seen-{scope}")),
        _attempt(lambda: pm.remove_sensor("nope")),
    ]


def test_kip877_plugin_metrics_are_javas(java: JavaHarness) -> None:
    """Kafka 4.1's PluginMetrics (KIP-877) of a connector, a task, key/value/header converters,
    a transformation and a predicate: Java's ConnectMetrics and kconnect's make the same MBeans
    (``kafka.connect:type=plugins`` with the runtime's tags in Java's order before the
    plugin's own, attribute names, descriptions, values), refuse the same calls with the same
    messages, and remove everything when the plugins close."""
    theirs = java.call(
        "pluginmetrics",
        connector="conn",
        task=2,
        plugins=[{"scope": s, "alias": a, "reserved": r} for s, a, r in _KIP877_PLUGINS],
    )
    registry = MetricsRegistry()
    tid = ConnectorTaskId("conn", 2)
    made: list[RegistryPluginMetrics] = []
    refusals = []
    for scope, alias, reserved in _KIP877_PLUGINS:
        kind = {
            "connector": {}, "task": {}, "key": {"converter": "key"},
            "value": {"converter": "value"}, "header": {"converter": "header"},
            "transformation": {"transformation": alias}, "predicate": {"predicate": alias},
        }[scope]  # fmt: skip
        tags = plugin_tags("conn", None if scope == "connector" else tid, **kind)
        pm = RegistryPluginMetrics(registry, tags)
        made.append(pm)
        pm.add_metric(pm.metric_name("tables", "Tables found."), lambda: 2.0)
        sensor = pm.add_sensor(f"seen-{scope}")
        sensor.add(pm.metric_name("records-total", "Records seen.", {"zone": "b", "area": "a"}),
                   Stat.TOTAL)  # fmt: skip
        sensor.record(3)
        sensor.record(4)
        refusals.append(_refusals(pm, scope, reserved))
    assert refusals == theirs["refusals"]
    ours = _our_beans(registry, "kafka.connect")
    assert all(keys.startswith("type=plugins,") for keys in ours)
    their_beans = _their_beans(theirs["beans"], "kafka.connect")
    assert len(their_beans) == 2 * len(_KIP877_PLUGINS)
    _assert_same_beans(ours, their_beans)
    for pm in made:
        pm.close()
    assert list(registry.snapshot()) == [] and theirs["after"] == []
    assert _attempt(lambda: made[0].add_sensor("x")) == theirs["closed"]
