"""Java transformations (SMTs) and predicates from plugin.path in kconnect's transformation chain
(issue 32, protocol v4), run by a real plugin host on real jars.

- Kafka's own ``org.apache.kafka.connect.transforms.*`` (``connect-transforms-4.1.2.jar`` copied
  into a plugin.path directory) against kconnect's built-in Python SMTs of the same names and
  configs, on the same sink and source records (struct schemas with logical types, arrays, maps,
  bytes, schemaless maps, headers, tombstones): chains of Java stages only, and mixed chains
  (Python -> Java run with Java predicates and ``negate`` -> a Java predicate guarding a Python
  SMT -> a Python predicate guarding a Java SMT -> Python) give the same records, and a Java run
  costs one host call per batch;
- failures: a Java SMT compiled here (``test.smt.Probe``) that fails, retries or drops on chosen
  values, in the middle of a run, with and without ``on_error``; a Java ``RetriableException``
  retried by the worker's retry operator;
- Debezium's ``io.debezium.transforms.ExtractNewRecordState`` (3.6.1.Final, from the Debezium
  PostgreSQL plugin directory) on hand-built change events: create, update, delete and its
  tombstone, with ``delete.tombstone.handling.mode`` ``rewrite`` and the default, and
  ``add.fields=op,table``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from kconnect.api import (
    ConnectRecord,
    Date,
    Decimal,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
)
from kconnect.api.records import TimestampType
from kconnect.java_host.host_process import JavaPluginError, JavaPluginHost, JavaRetriableError
from kconnect.java_host.proxies import proxy_class
from kconnect.runtime.config.connector_config import ToleranceType
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.record_conversion import transform_batch
from kconnect.runtime.worker.transformation_chain import (
    TransformationChain,
    TransformationError,
    TransformationStage,
)
from kconnect.testing.java import (
    CONNECT_VERSION,
    DEBEZIUM_VERSION,
    classpath,
    compiled_plugin,
    java_plugin_path,
)

pytestmark = [pytest.mark.java, pytest.mark.slow]

T = "org.apache.kafka.connect.transforms."
P = T + "predicates."
PROBE = "test.smt.Probe"
UNWRAP = "io.debezium.transforms.ExtractNewRecordState"

#: A transformation that appends ``+<tag>`` to a string value; on the value ``fail.on`` it
#: throws DataException, on ``retry.on`` RetriableException its first ``retries`` times, on
#: ``drop.on`` it drops the record.
PROBE_SOURCES = {
    "test/smt/Probe.java": """
        package test.smt;
        import java.util.Map;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.ConnectRecord;
        import org.apache.kafka.connect.errors.DataException;
        import org.apache.kafka.connect.errors.RetriableException;
        import org.apache.kafka.connect.transforms.Transformation;
        public class Probe<R extends ConnectRecord<R>> implements Transformation<R> {
            private String tag, failOn, retryOn, dropOn;
            private int retries, failures;
            public void configure(Map<String, ?> props) {
                tag = (String) props.get("tag");
                failOn = (String) props.get("fail.on");
                retryOn = (String) props.get("retry.on");
                dropOn = (String) props.get("drop.on");
                Object n = props.get("retries");
                retries = n == null ? 0 : Integer.parseInt((String) n);
            }
            public R apply(R record) {
                Object value = record.value();
                if (value != null && value.equals(failOn)) {
                    throw new DataException("Probe " + tag + " cannot take " + value);
                }
                if (value != null && value.equals(retryOn) && failures < retries) {
                    failures++;
                    throw new RetriableException("Probe " + tag + " not yet: " + failures);
                }
                if (value != null && value.equals(dropOn)) {
                    return null;
                }
                return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(),
                        record.key(), record.valueSchema(), value + "+" + tag, record.timestamp());
            }
            public ConfigDef config() {
                return new ConfigDef()
                    .define("tag", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "appended")
                    .define("fail.on", ConfigDef.Type.STRING, null, ConfigDef.Importance.LOW, "fails")
                    .define("retry.on", ConfigDef.Type.STRING, null, ConfigDef.Importance.LOW, "retries")
                    .define("drop.on", ConfigDef.Type.STRING, null, ConfigDef.Importance.LOW, "drops")
                    .define("retries", ConfigDef.Type.INT, 0, ConfigDef.Importance.LOW, "times");
            }
            public void close() { }
        }
    """,
}


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """connect-file and Debezium's PostgreSQL plugin (the test kit's layout), Kafka's
    connect-transforms jar in a directory of its own, and ``test.smt`` as classes."""
    root = java_plugin_path(tmp_path_factory.mktemp("smt-plugins"))
    transforms = classpath([f"org.apache.kafka:connect-transforms:{CONNECT_VERSION}"])
    jar = next(j for j in transforms if j.name == f"connect-transforms-{CONNECT_VERSION}.jar")
    (root / "connect-transforms").mkdir()
    shutil.copy2(jar, root / "connect-transforms" / jar.name)
    return compiled_plugin(PROBE_SOURCES, tmp_path_factory.mktemp("probe-build"), root, "test-smt")


@pytest.fixture(scope="module")
def host(plugin_path: Path) -> Iterator[JavaPluginHost]:
    started = JavaPluginHost(plugin_path=[str(plugin_path)])
    try:
        yield started
    finally:
        started.close()


@pytest.fixture(scope="module")
def builtin() -> Plugins:
    return Plugins.load()


def _plugins(builtin: Plugins, host: JavaPluginHost, java: Mapping[str, str]) -> Plugins:
    """kconnect's built-in transformations and predicates, but those named in ``java`` (class
    name -> kind) are the Java plugins of the host's plugin.path."""
    entries = [
        PluginEntry(kind, name, proxy_class(name, kind, _version(name), lambda: host), "java")
        for name, kind in java.items()
    ]
    for kind in ("transformation", "predicate"):
        for desc in builtin.plugins_of(kind):
            if desc.class_name not in java:
                entries.append(PluginEntry(kind, desc.class_name, desc.cls, desc.location))
    return Plugins(entries)


def _version(name: str) -> str:
    return DEBEZIUM_VERSION if name.startswith("io.debezium.") else CONNECT_VERSION


def _java(*names: str) -> dict[str, str]:
    return {n: "predicate" if n.startswith(P) else "transformation" for n in names}


# ----------------------------------------------------------------------------- records

NESTED = (
    SchemaBuilder.struct()
    .field("a", Schema.INT32_SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
    .build()
)
ORDER = (
    SchemaBuilder.struct()
    .name("shop.Order")
    .version(2)
    .field("id", Schema.INT64_SCHEMA)
    .field("name", Schema.STRING_SCHEMA)
    .field("secret", Schema.OPTIONAL_STRING_SCHEMA)
    .field("amount", Decimal.builder(2).optional().build())
    .field("when", Timestamp.SCHEMA)
    .field("day", Date.builder().optional().build())
    .field("at", Time.builder().optional().build())
    .field("ratio", Schema.FLOAT64_SCHEMA)
    .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("nested", NESTED)
    .field(
        "attrs",
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).optional().build(),
    )
    .build()
)
KEY = SchemaBuilder.struct().name("shop.Key").field("id", Schema.INT64_SCHEMA).build()
EPOCH = dt.datetime(2024, 2, 29, 13, 45, 6, 789000, tzinfo=dt.UTC)


def _order(i: int) -> Struct:
    return (
        Struct(ORDER)
        .put("id", i)
        .put("name", f"order {i} é")
        .put("secret", None if i % 4 == 3 else f"s3cr3t-{i}")
        .put("amount", None if i % 5 == 4 else decimal.Decimal(f"{i}.{i % 10}5"))
        .put("when", EPOCH + dt.timedelta(days=i, milliseconds=i))
        .put("day", None if i % 3 else dt.date(2024, 1, 1) + dt.timedelta(days=i))
        .put("at", dt.time(0, i % 60, 30, 250000) if i % 2 else None)
        .put("ratio", i + 0.5)
        .put("blob", bytes([i % 256, 0, 255]) if i % 2 == 0 else None)
        .put("nested", Struct(NESTED).put("a", -i).put("tags", [f"t{i}", "x"]))
        .put("attrs", {"k": i, "none": None} if i % 2 else None)
    )


def _schemaless(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": f"plain {i}",
        "secret": f"pw{i}",
        "when": int(EPOCH.timestamp() * 1000) + i,
        "nested": {"a": i, "b": [1, 2, i]},
    }


def _headers(i: int) -> Headers | None:
    if i % 3 == 2:
        return None
    headers = Headers().add_string("trace", f"tr-{i}") if i % 3 == 0 else Headers()
    headers.add("when", EPOCH, Timestamp.SCHEMA)
    headers.add("num", i, Schema.INT32_SCHEMA)
    return headers


def sink_records(n: int = 24) -> list[ConnectRecord]:
    out: list[ConnectRecord] = []
    for i in range(n):
        topic = "orders-eu" if i % 2 == 0 else "users"
        key_schema, key = (KEY, Struct(KEY).put("id", i)) if i % 4 else (None, f"k{i}")
        value_schema, value = (ORDER, _order(i)) if i % 6 else (None, _schemaless(i))
        if i % 7 == 6:
            value = None  # a tombstone
        out.append(
            SinkRecord(
                topic, i % 3, key_schema, key, value_schema, value, 1000 + i,
                1_700_000_000_000 + i, TimestampType.CREATE_TIME, _headers(i),
            )
        )  # fmt: skip
    return out


def source_records(n: int = 24) -> list[ConnectRecord]:
    return [
        SourceRecord(
            {"file": "in.txt"}, {"position": 10 * i}, r.topic, None if i % 2 else r.kafka_partition,
            r.key_schema, r.key, r.value_schema, r.value, r.timestamp if i % 3 else None,
            r._headers,
        )
        for i, r in enumerate(sink_records(n))
    ]  # fmt: skip


def _shown(records: list[Any]) -> list[Any]:
    """What a comparison should show of each record (None for a dropped one)."""
    return [
        None
        if r is None
        else (
            type(r).__name__, r.topic, r.kafka_partition, r.key_schema, r.key, r.value_schema,
            r.value, r.timestamp, [(h.key, h.schema, h.value) for h in r.headers],
        )
        for r in records
    ]  # fmt: skip


def _calls(host: JavaPluginHost) -> list[str]:
    """Counts the host's record calls from now on (the ops in a list)."""
    ops: list[str] = []
    real = host.call

    def counting(op: str, fields: Mapping[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        if op in ("transform", "predicate_test"):
            ops.append(op)
        return real(op, fields, **kw)

    host.call = counting  # type: ignore[method-assign]
    return ops


# ----------------------------------------------------------------------------- same as Python

MIXED = {
    "transforms": "rename,dropTombstones,insert,mask,stamp,route,hoist,tag",
    "transforms.rename.type": T + "ReplaceField$Value",
    "transforms.rename.renames": "name:full_name",
    "transforms.rename.exclude": "blob",
    "transforms.dropTombstones.type": T + "Filter",
    "transforms.dropTombstones.predicate": "isTombstone",
    "transforms.insert.type": T + "InsertField$Value",
    "transforms.insert.static.field": "origin",
    "transforms.insert.static.value": "kc",
    "transforms.insert.topic.field": "src_topic",
    "transforms.insert.predicate": "isOrders",
    "transforms.mask.type": T + "MaskField$Value",
    "transforms.mask.fields": "secret",
    "transforms.mask.predicate": "isOrders",
    "transforms.mask.negate": "true",
    "transforms.stamp.type": T + "TimestampConverter$Value",
    "transforms.stamp.field": "when",
    "transforms.stamp.target.type": "string",
    "transforms.stamp.format": "yyyy-MM-dd HH:mm:ss.SSS",
    "transforms.route.type": T + "RegexRouter",
    "transforms.route.regex": "orders-(.*)",
    "transforms.route.replacement": "routed-$1",
    "transforms.route.predicate": "isOrders",
    "transforms.hoist.type": T + "HoistField$Value",
    "transforms.hoist.field": "payload",
    "transforms.hoist.predicate": "hasTrace",
    "transforms.tag.type": T + "InsertHeader",
    "transforms.tag.header": "via",
    "transforms.tag.value.literal": "chain",
    "predicates": "isOrders,hasTrace,isTombstone",
    "predicates.isOrders.type": P + "TopicNameMatches",
    "predicates.isOrders.pattern": "orders-.*",
    "predicates.hasTrace.type": P + "HasHeaderKey",
    "predicates.hasTrace.name": "trace",
    "predicates.isTombstone.type": P + "RecordIsTombstone",
}
#: In MIXED: a Python stage, a run of four Java stages with Java predicates (one negated), a
#: Python SMT guarded by a Java predicate, a Java SMT guarded by a Python predicate, Python.
MIXED_JAVA = _java(
    T + "Filter",
    T + "InsertField$Value",
    T + "MaskField$Value",
    T + "TimestampConverter$Value",
    T + "HoistField$Value",
    P + "TopicNameMatches",
    P + "RecordIsTombstone",
)

ALL_JAVA_SINK = {
    "transforms": "insert,rename,cast,copy,dropHeader,toKey,keyId,meta,route",
    "transforms.insert.type": T + "InsertField$Value",
    "transforms.insert.offset.field": "kafka_offset",
    "transforms.insert.partition.field": "kafka_partition",
    "transforms.insert.timestamp.field": "kafka_ts",
    "transforms.rename.type": T + "ReplaceField$Value",
    "transforms.rename.renames": "name:full_name",
    "transforms.rename.exclude": "blob",
    "transforms.cast.type": T + "Cast$Value",
    "transforms.cast.spec": "id:string,ratio:float32",
    "transforms.copy.type": T + "HeaderFrom$Value",
    "transforms.copy.fields": "id",
    "transforms.copy.headers": "order_id",
    "transforms.copy.operation": "copy",
    "transforms.dropHeader.type": T + "DropHeaders",
    "transforms.dropHeader.headers": "num",
    "transforms.toKey.type": T + "ValueToKey",
    "transforms.toKey.fields": "id",
    "transforms.keyId.type": T + "ExtractField$Key",
    "transforms.keyId.field": "id",
    "transforms.meta.type": T + "SetSchemaMetadata$Value",
    "transforms.meta.schema.name": "shop.Renamed",
    "transforms.meta.schema.version": "7",
    "transforms.route.type": T + "TimestampRouter",
    "transforms.route.topic.format": "${topic}-${timestamp}",
    "transforms.route.timestamp.format": "yyyyMMdd",
}


def _with_schemas(records: list[ConnectRecord]) -> list[ConnectRecord]:
    return [r for r in records if r.value is not None and r.value_schema is not None]


CASES = {
    "mixed, sink records": (MIXED, MIXED_JAVA, sink_records),
    "mixed, source records": (MIXED, MIXED_JAVA, source_records),
    "all Java, sink records": (
        ALL_JAVA_SINK,
        _java(*{v for k, v in ALL_JAVA_SINK.items() if k.endswith(".type")}),
        lambda: _with_schemas(sink_records()),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_java_smts_give_what_kconnects_own_give(
    case: str, host: JavaPluginHost, builtin: Plugins
) -> None:
    config, java, make = CASES[case]
    records = make()
    python_chain = TransformationChain.from_config(config, builtin)
    java_chain = TransformationChain.from_config(config, _plugins(builtin, host, java))
    try:
        assert any(type(s.transformation).__module__ == "kconnect.java_host.proxies"
                   for s in java_chain.stages)  # fmt: skip
        expected = python_chain.apply_batch(records)
        ops = _calls(host)
        got = java_chain.apply_batch(records)
        assert _shown(got) == _shown(expected)
        assert got == expected
        assert ("mixed" not in case) or None in got  # tombstones dropped: absent
    finally:
        python_chain.close()
        java_chain.close()
        host.__dict__.pop("call", None)
    if "mixed" in case:
        # the run, the Java predicate before the Python RegexRouter, the Java HoistField
        assert ops == ["transform", "predicate_test", "transform"], ops
    else:
        assert ops == ["transform"], ops  # nine Java stages, one call
    # what only the worker knows stays the worker's
    for before, after in zip(records, got, strict=True):
        if isinstance(after, SinkRecord):
            assert isinstance(before, SinkRecord)
            assert (after.kafka_offset, after.original_topic, after.timestamp_type) == (
                before.kafka_offset,
                before.topic,
                before.timestamp_type,
            )
        elif isinstance(after, SourceRecord):
            assert isinstance(before, SourceRecord)
            assert (after.source_partition, after.source_offset) == (
                before.source_partition,
                before.source_offset,
            )


def test_the_native_record_path_runs_java_stages_a_batch_at_a_time(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    """Java stages have no native form: between the native stages (kconnect's ReplaceField and
    InsertHeader here) the native path runs the stages without one over the batch, the run of
    Java stages in one call, and gives what kconnect's own chain gives."""
    from kconnect._hot_path import native
    from kconnect.runtime.worker.record_batches import transform_native

    if native is None:
        pytest.skip("kconnect-native is not installed")
    records = source_records()
    python_chain = TransformationChain.from_config(MIXED, builtin)
    java_chain = TransformationChain.from_config(MIXED, _plugins(builtin, host, MIXED_JAVA))
    operator = RetryWithToleranceOperator()
    contexts = [ProcessingContext() for _ in records]
    try:
        expected = python_chain.apply_batch(records)
        batch = native.RecordBatch.from_records(records)
        ops = _calls(host)
        transform_native(java_chain, batch, operator, contexts.__getitem__)
        live = set(batch.live_indexes())
        got = [batch.take(i) if i in live else None for i in range(len(records))]
    finally:
        python_chain.close()
        java_chain.close()
        host.__dict__.pop("call", None)
    assert _shown(got) == _shown(expected)
    assert ops == ["transform", "predicate_test", "transform"], ops


def test_a_record_no_java_stage_changes_comes_back_as_itself(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    config = {
        "transforms": "insert",
        "transforms.insert.type": T + "InsertField$Value",
        "transforms.insert.static.field": "origin",
        "transforms.insert.static.value": "kc",
        "transforms.insert.predicate": "isOrders",
        "predicates": "isOrders",
        "predicates.isOrders.type": P + "TopicNameMatches",
        "predicates.isOrders.pattern": "orders-.*",
    }
    chain = TransformationChain.from_config(config, _plugins(builtin, host, MIXED_JAVA))
    try:
        records = sink_records(4)
        got = chain.apply_batch(records)
    finally:
        chain.close()
    assert got[1] is records[1] and got[3] is records[3]  # "users": the predicate said no
    assert got[2] is not records[2] and got[2].value.get("origin") == "kc"


# ----------------------------------------------------------------------------- failures


def _probe_chain(builtin: Plugins, host: JavaPluginHost, **probe2: str) -> TransformationChain:
    config = {
        "transforms": "before,p1,p2,p3,after",
        "transforms.before.type": T + "InsertHeader",
        "transforms.before.header": "seen",
        "transforms.before.value.literal": "yes",
        "transforms.p1.type": PROBE,
        "transforms.p1.tag": "a",
        "transforms.p2.type": PROBE,
        "transforms.p2.tag": "b",
        "transforms.p3.type": PROBE,
        "transforms.p3.tag": "c",
        "transforms.after.type": T + "InsertHeader",
        "transforms.after.header": "done",
        "transforms.after.value.literal": "yes",
    }
    config.update({f"transforms.p2.{k.replace('_', '.')}": v for k, v in probe2.items()})
    return TransformationChain.from_config(config, _plugins(builtin, host, _java(PROBE)))


def _values(*values: str) -> list[ConnectRecord]:
    return [
        SinkRecord("t", 0, None, None, Schema.STRING_SCHEMA, v, i) for i, v in enumerate(values)
    ]


def test_a_failing_record_in_a_java_run_fails_the_batch_naming_the_stage(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    chain = _probe_chain(builtin, host, fail_on="x+a")
    try:
        with pytest.raises(TransformationError) as failed:
            chain.apply_batch(_values("v0", "x", "v2"))
    finally:
        chain.close()
    assert (failed.value.stage_alias, failed.value.class_name) == ("p2", PROBE)
    cause = failed.value.cause
    assert isinstance(cause, JavaPluginError)
    assert cause.java_class == "org.apache.kafka.connect.errors.DataException"
    assert cause.java_message == "Probe b cannot take x+a"
    assert "test.smt.Probe.apply" in cause.java_trace
    assert failed.value.record is not None and failed.value.record.value == "x+a"


def test_on_error_gets_the_stage_and_the_record_it_received_and_its_answer_goes_on(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    chain = _probe_chain(builtin, host, fail_on="x+a", drop_on="d+a")
    seen: list[tuple[int, str, Any, list[str]]] = []

    def on_error(i: int, stage: TransformationStage, record: Any, e: Exception) -> Any:
        seen.append((i, stage.alias, record.value, [h.key for h in record.headers]))
        assert isinstance(e, JavaPluginError) and not isinstance(e, JavaRetriableError)
        return None if i == 3 else record.new_record(
            record.topic, record.kafka_partition, None, None, Schema.STRING_SCHEMA, "fixed",
            record.timestamp,
        )  # fmt: skip

    ops = _calls(host)
    try:
        got = chain.apply_batch(_values("v0", "x", "d", "x", "v4"), on_error)
    finally:
        chain.close()
        host.__dict__.pop("call", None)
    assert seen == [(1, "p2", "x+a", ["seen"]), (3, "p2", "x+a", ["seen"])]
    assert [r.value if r else None for r in got] == [
        "v0+a+b+c", "fixed+c", None, None, "v4+a+b+c",
    ]  # fmt: skip
    assert [h.key for h in got[1].headers] == ["seen", "done"]
    assert got[1].kafka_offset == 1  # still the worker's record
    # the batch, then the replaced record from the stage after the failing one
    assert ops == ["transform", "transform"]


def test_a_java_retriable_exception_is_retried_by_the_worker(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    chain = _probe_chain(builtin, host, retry_on="r+a", retries="2")
    operator = RetryWithToleranceOperator(
        retry_timeout_ms=30_000, max_delay_ms=10, tolerance=ToleranceType.NONE
    )
    contexts = [ProcessingContext() for _ in range(3)]
    try:
        got = transform_batch(chain, operator, contexts.__getitem__, _values("v0", "r", "v2"))
        # the one-record path (apply) the operator retries does raise the retriable error
        failing = _probe_chain(builtin, host, retry_on="r", retries="1")
        stage = failing.stages[2]
        with pytest.raises(JavaRetriableError):
            stage.apply(_values("r")[0])
        assert stage.apply(_values("r")[0]).value == "r+b"
        failing.close()
    finally:
        chain.close()
    assert [r.value for r in got] == ["v0+a+b+c", "r+a+b+c", "v2+a+b+c"]
    assert operator.total_retries == 2 and not any(c.failed for c in contexts)


# ----------------------------------------------------------------------------- Debezium

ROW = (
    SchemaBuilder.struct()
    .name("pg.public.customers.Value")
    .optional()
    .field("id", Schema.INT32_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)
SOURCE = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.postgresql.Source")
    .field("version", Schema.STRING_SCHEMA)
    .field("connector", Schema.STRING_SCHEMA)
    .field("name", Schema.STRING_SCHEMA)
    .field("ts_ms", Schema.INT64_SCHEMA)
    .field("db", Schema.STRING_SCHEMA)
    .field("schema", Schema.STRING_SCHEMA)
    .field("table", Schema.STRING_SCHEMA)
    .build()
)
ENVELOPE = (
    SchemaBuilder.struct()
    .name("pg.public.customers.Envelope")
    .version(2)
    .field("before", ROW)
    .field("after", ROW)
    .field("source", SOURCE)
    .field("op", Schema.STRING_SCHEMA)
    .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
    .build()
)
CUSTOMER_KEY = (
    SchemaBuilder.struct().name("pg.public.customers.Key").field("id", Schema.INT32_SCHEMA).build()
)


def _row(email: str) -> Struct:
    return Struct(ROW).put("id", 7).put("email", email)


def _event(op: str, before: Struct | None, after: Struct | None, offset: int) -> ConnectRecord:
    source = (
        Struct(SOURCE).put("version", DEBEZIUM_VERSION).put("connector", "postgresql")
        .put("name", "pg").put("ts_ms", 1_700_000_000_000).put("db", "shop")
        .put("schema", "public").put("table", "customers")
    )  # fmt: skip
    value = (
        Struct(ENVELOPE).put("before", before).put("after", after).put("source", source)
        .put("op", op).put("ts_ms", 1_700_000_000_123)
    )  # fmt: skip
    return SourceRecord(
        {"server": "pg"}, {"lsn": offset}, "pg.public.customers", None, CUSTOMER_KEY,
        Struct(CUSTOMER_KEY).put("id", 7), ENVELOPE, value,
    )  # fmt: skip


def _events() -> list[ConnectRecord]:
    """A row's life: created, updated, deleted (its delete event, then its tombstone)."""
    delete = _event("d", _row("b@example.com"), None, 3)
    tombstone = delete.new_record(delete.topic, None, CUSTOMER_KEY, delete.key, None, None, None)
    return [
        _event("c", None, _row("a@example.com"), 1),
        _event("u", _row("a@example.com"), _row("b@example.com"), 2),
        delete,
        tombstone,
    ]


def _fields(record: ConnectRecord | None) -> dict[str, Any] | str | None:
    if record is None:
        return "dropped"
    if record.value is None:
        return None
    return {f.name: record.value.get(f.name) for f in record.value_schema.fields}


def _unwrap(builtin: Plugins, host: JavaPluginHost, **settings: str) -> TransformationChain:
    config = {"transforms": "unwrap", "transforms.unwrap.type": UNWRAP}
    config.update({f"transforms.unwrap.{k.replace('_', '.')}": v for k, v in settings.items()})
    return TransformationChain.from_config(config, _plugins(builtin, host, _java(UNWRAP)))


def test_debeziums_extract_new_record_state_rewrites_deletes_and_adds_fields(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    """``delete.tombstone.handling.mode=rewrite``: every event becomes its row state (the delete
    its ``before``) with ``__deleted`` ("true" for the delete, "false" otherwise), tombstones are
    dropped; ``add.fields=op,table`` adds ``__op`` and ``__table`` (Debezium's documentation)."""
    chain = _unwrap(builtin, host, delete_tombstone_handling_mode="rewrite", add_fields="op,table")
    try:
        events = _events()
        got = chain.apply_batch(events)
    finally:
        chain.close()
    row = {"id": 7, "__op": None, "__table": "customers", "__deleted": None}
    assert [_fields(r) for r in got] == [
        {**row, "email": "a@example.com", "__op": "c", "__deleted": "false"},
        {**row, "email": "b@example.com", "__op": "u", "__deleted": "false"},
        {**row, "email": "b@example.com", "__op": "d", "__deleted": "true"},
        "dropped",
    ]
    first = got[0]
    assert first is not None and isinstance(first, SourceRecord)
    assert first.key == events[0].key and first.source_offset == {"lsn": 1}
    assert first.value_schema.name == "pg.public.customers.Value"
    assert [f.name for f in first.value_schema.fields][:2] == ["id", "email"]


def test_debeziums_default_leaves_a_tombstone_for_a_delete(
    host: JavaPluginHost, builtin: Plugins
) -> None:
    """The default ``delete.tombstone.handling.mode=tombstone``: "For each delete event, leave
    only a tombstone in the stream" -- the delete event becomes a tombstone (same key)."""
    chain = _unwrap(builtin, host)
    try:
        events = _events()
        got = chain.apply_batch(events)
    finally:
        chain.close()
    assert [_fields(r) for r in got][:2] == [
        {"id": 7, "email": "a@example.com"},
        {"id": 7, "email": "b@example.com"},
    ]
    tombstones = [r for r in got[2:] if r is not None]
    assert tombstones and all(r.value is None and r.key == events[2].key for r in tombstones)
