"""The Java plugin host running sink tasks (issue 32, slice 3), driven over its real protocol
(``src/kconnect/java_host/java/PROTOCOL.md``, v3) from Python, with this module's own sink batch
encoder (independent of the worker's).

- Kafka's own ``FileStreamSinkConnector`` and ``FileStreamSinkTask`` (connect-file 4.1.2 in a
  plugin.path directory): ``connector_start``, ``sink_task_start``, ``sink_task_open``,
  ``sink_task_put`` of STRING, Struct and null values → the file holds what Java's task writes
  (``String.valueOf(value)`` per line); ``sink_task_pre_commit`` answers the offsets (the task
  flushes); ``sink_task_close``, ``sink_task_stop``;
- a sink task compiled here (``test.sink``) that prints every value it gets with its Java class
  and schema (nested struct, array, map, optional nulls, a default, Decimal/Date/Time/Timestamp,
  bytes, headers, schemaless values, original coordinates, timestamp types), asks its
  ``SinkTaskContext`` for rewinds, a timeout, pause/resume and a commit (drained into the
  reply's ``context``), reports records through ``errantRecordReporter()`` (the ``report``
  callback, answered here), throws ``RetriableException`` from put, and logs ``assignment()``.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kconnect.testing.java import compiled_plugin, java_plugin_path
from kconnect.testing.plugin_host import (
    SCHEMA_TYPES,
    PluginHostProcess,
    host_classpath,
    host_deps,
)

pytestmark = [pytest.mark.java, pytest.mark.slow]

FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
FILE_SINK_TASK = "org.apache.kafka.connect.file.FileStreamSinkTask"
CHECK_CONNECTOR = "test.sink.CheckConnector"
CHECK_TASK = "test.sink.CheckTask"

EMPTY_CONTEXT = {
    "rewinds": [],
    "timeout_ms": None,
    "pause": [],
    "resume": [],
    "request_commit": False,
}


# ----------------------------------------------------------------------------- plugins

#: A sink connector and a task that prints what it gets; values starting ``cmd:`` are commands.
CHECK_SOURCES = {
    "test/sink/CheckConnector.java": """
        package test.sink;
        import java.util.*;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.sink.SinkConnector;
        public class CheckConnector extends SinkConnector {
            private Map<String, String> props;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) { this.props = props; }
            public Class<? extends Task> taskClass() { return CheckTask.class; }
            public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(props); }
            public void stop() { }
            public ConfigDef config() { return new ConfigDef(); }
        }
    """,
    "test/sink/CheckTask.java": """
        package test.sink;
        import java.io.*;
        import java.math.BigDecimal;
        import java.nio.charset.StandardCharsets;
        import java.nio.file.*;
        import java.util.*;
        import java.util.concurrent.ExecutionException;
        import java.util.concurrent.Future;
        import org.apache.kafka.clients.consumer.OffsetAndMetadata;
        import org.apache.kafka.common.TopicPartition;
        import org.apache.kafka.connect.data.*;
        import org.apache.kafka.connect.errors.IllegalWorkerStateException;
        import org.apache.kafka.connect.errors.RetriableException;
        import org.apache.kafka.connect.header.Header;
        import org.apache.kafka.connect.sink.*;
        public class CheckTask extends SinkTask {
            private Path log;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                log = Paths.get(props.get("log.file"));
                write("start " + new TreeMap<>(context.configs()) + " " + loader());
            }
            private String loader() {
                return Thread.currentThread().getContextClassLoader() == getClass().getClassLoader() ? "plugin" : "other";
            }
            private void write(String line) {
                try {
                    Files.writeString(log, line + "\\n", StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                } catch (IOException e) { throw new UncheckedIOException(e); }
            }
            static String hex(byte[] b) {
                StringBuilder sb = new StringBuilder();
                for (byte x : b) sb.append(String.format("%02x", x));
                return sb.toString();
            }
            static String show(Object v) {
                if (v == null) return "null";
                if (v instanceof Struct) {
                    Struct s = (Struct) v;
                    StringBuilder sb = new StringBuilder("Struct{");
                    boolean first = true;
                    for (Field f : s.schema().fields()) {
                        if (!first) sb.append(',');
                        first = false;
                        sb.append(f.name()).append('=').append(show(s.get(f)));
                        if (s.getWithoutDefault(f.name()) == null && s.get(f) != null) sb.append("(default)");
                    }
                    return sb.append('}').toString();
                }
                if (v instanceof List) {
                    StringBuilder sb = new StringBuilder("List[");
                    boolean first = true;
                    for (Object o : (List<?>) v) { if (!first) sb.append(','); first = false; sb.append(show(o)); }
                    return sb.append(']').toString();
                }
                if (v instanceof Map) {
                    StringBuilder sb = new StringBuilder("Map{");
                    boolean first = true;
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                        if (!first) sb.append(',');
                        first = false;
                        sb.append(show(e.getKey())).append("->").append(show(e.getValue()));
                    }
                    return sb.append('}').toString();
                }
                if (v instanceof byte[]) return "bytes:" + hex((byte[]) v);
                if (v instanceof BigDecimal) return "BigDecimal:" + ((BigDecimal) v).toPlainString();
                if (v instanceof java.util.Date) return "Date:" + ((java.util.Date) v).getTime();
                return v.getClass().getSimpleName() + ":" + v;
            }
            static String schema(Schema s) {
                if (s == null) return "none";
                StringBuilder sb = new StringBuilder(s.type().toString());
                if (s.isOptional()) sb.append('?');
                if (s.name() != null) sb.append('<').append(s.name()).append('>');
                if (s.version() != null) sb.append(" v").append(s.version());
                if (s.doc() != null) sb.append(" doc=").append(s.doc());
                if (s.parameters() != null) sb.append(" params=").append(new TreeMap<>(s.parameters()));
                if (s.defaultValue() != null) sb.append(" default=").append(show(s.defaultValue()));
                switch (s.type()) {
                    case ARRAY: sb.append('[').append(schema(s.valueSchema())).append(']'); break;
                    case MAP: sb.append('{').append(schema(s.keySchema())).append("->")
                        .append(schema(s.valueSchema())).append('}'); break;
                    case STRUCT:
                        sb.append('{');
                        boolean first = true;
                        for (Field f : s.fields()) {
                            if (!first) sb.append(',');
                            first = false;
                            sb.append(f.name()).append(':').append(schema(f.schema()));
                        }
                        sb.append('}');
                        break;
                    default: break;
                }
                return sb.toString();
            }
            static TopicPartition tp(String topic, int partition) { return new TopicPartition(topic, partition); }
            static String sorted(Collection<TopicPartition> tps) {
                List<String> names = new ArrayList<>();
                for (TopicPartition tp : tps) names.add(tp.toString());
                Collections.sort(names);
                return names.toString();
            }
            public void open(Collection<TopicPartition> partitions) {
                write("open " + sorted(partitions) + " assignment=" + sorted(context.assignment()));
            }
            public void put(Collection<SinkRecord> records) {
                write("put " + records.size() + " " + loader());
                for (SinkRecord r : records) {
                    if (r.value() instanceof String && ((String) r.value()).startsWith("cmd:")) {
                        command(((String) r.value()).substring(4), r);
                        continue;
                    }
                    write("record " + r.topic() + "/" + r.kafkaPartition() + "/" + r.kafkaOffset()
                        + " ts=" + r.timestamp() + " " + r.timestampType()
                        + " original=" + r.originalTopic() + "/" + r.originalKafkaPartition() + "/" + r.originalKafkaOffset());
                    write("  key " + schema(r.keySchema()) + " " + show(r.key()));
                    write("  value " + schema(r.valueSchema()) + " " + show(r.value()));
                    if (r.value() instanceof Struct) {
                        write("  struct schema is the value schema: " + (((Struct) r.value()).schema() == r.valueSchema()));
                    }
                    for (Header h : r.headers()) {
                        write("  header " + h.key() + " " + schema(h.schema()) + " " + show(h.value()));
                    }
                }
            }
            private void command(String cmd, SinkRecord r) {
                switch (cmd) {
                    case "context":
                        context.offset(tp("in", 0), 5L);
                        context.offset(Map.of(tp("in", 1), 7L));
                        context.offset(tp("in", 0), 6L);
                        context.timeout(1500L);
                        context.pause(tp("in", 0), tp("in", 1));
                        context.resume(tp("in", 1));
                        context.requestCommit();
                        try {
                            context.pause(tp("elsewhere", 9));
                        } catch (IllegalWorkerStateException e) {
                            write("pause unassigned: " + e.getMessage());
                        }
                        break;
                    case "report":
                    case "report-failing":
                        Future<Void> done = context.errantRecordReporter().report(r,
                            new IllegalStateException("bad record " + r.kafkaOffset()));
                        try {
                            done.get();
                            write("reported " + r.kafkaOffset());
                        } catch (ExecutionException e) {
                            write("report failed " + e.getCause().getClass().getName() + ": " + e.getCause().getMessage());
                        } catch (InterruptedException e) {
                            throw new RuntimeException(e);
                        }
                        break;
                    case "retriable":
                        throw new RetriableException("try again later");
                    case "explode":
                        throw new IllegalStateException("put exploded");
                    case "assignment":
                        write("assignment=" + sorted(context.assignment()));
                        break;
                    default:
                        write("unknown command " + cmd);
                }
            }
            public void flush(Map<TopicPartition, OffsetAndMetadata> offsets) {
                Map<String, Long> shown = new TreeMap<>();
                offsets.forEach((tp, o) -> shown.put(tp.toString(), o.offset()));
                write("flush " + shown + " " + loader());
            }
            public void close(Collection<TopicPartition> partitions) {
                write("close " + sorted(partitions) + " assignment=" + sorted(context.assignment()));
            }
            public void stop() { write("stop " + loader()); }
        }
    """,
}


@pytest.fixture(scope="module")
def sink_plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """connect-file (as the kconnect test kit lays it out) and ``test.sink`` as a class directory."""
    root = java_plugin_path(tmp_path_factory.mktemp("sink-plugins"), debezium=False)
    return compiled_plugin(CHECK_SOURCES, tmp_path_factory.mktemp("check-build"), root,
                           "check-plugin", jars=host_deps())  # fmt: skip


@pytest.fixture
def host(tmp_path: Path, sink_plugin_path: Path) -> Iterator[PluginHostProcess]:
    """A host (answering ``report`` callbacks) that has scanned ``sink_plugin_path``."""
    with PluginHostProcess(host_classpath(), tmp_path / "host.err") as started:
        scan = started.result("scan", plugin_path=[str(sink_plugin_path)])
        classes = {p["class"] for p in scan["plugins"]}
        assert {FILE_SINK, CHECK_CONNECTOR} <= classes, scan
        yield started


# ----------------------------------------------------------------------------- the batch encoder

FIXED = {"INT8": "b", "INT16": "h", "INT32": "i", "INT64": "q", "FLOAT32": "f", "FLOAT64": "d"}
TIMESTAMP_TYPES = {None: 0, "CreateTime": 1, "LogAppendTime": 2}


class SinkBatch:
    """The test's own writing of the sink batch (PROTOCOL.md, v3), with the schemas of a handle.

    A schema is a dict as the tasks test's decoder reads them (``type``, ``optional``, ``name``,
    ``version``, ``doc``, ``params``, ``items`` / ``keys`` + ``values`` / ``fields``,
    ``default``); values are physical (MAP values are lists of pairs, STRUCT values dicts).
    Schemaless values: ``None``, ``str``, ``bytes``, ``list``, ``dict`` as themselves, other
    scalars as ``(kind, value)`` with ``kind`` in bool/int8/.../float64, and
    ``("struct", schema, value)``.
    """

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.out = bytearray()
        self.defs = bytearray()
        self.n_defs = 0

    def encode(self, records: list[dict[str, Any]]) -> str:
        self.defs, self.n_defs = bytearray(), 0
        body = bytearray()
        for seq, r in enumerate(records):
            self.out = bytearray()
            self.i64(seq)
            self.text(r.get("topic", "in"))
            self.i32(r.get("partition", 0))
            self.i64(r["offset"])
            ts = r.get("timestamp")
            self.i64(-(2**63) if ts is None else ts)
            self.u8(
                TIMESTAMP_TYPES[r.get("timestamp_type", "CreateTime" if ts is not None else None)]
            )
            self.top(r.get("key_schema"), r.get("key"))
            self.top(r.get("value_schema"), r.get("value"))
            headers = r.get("headers", [])
            self.u32(len(headers))
            for name, schema, value in headers:
                self.text(name)
                self.top(schema, value)
            self.text(r.get("original_topic", r.get("topic", "in")))
            self.i32(r.get("original_partition", r.get("partition", 0)))
            self.i64(r.get("original_offset", r["offset"]))
            body += self.out
        batch = struct.pack(">I", self.n_defs) + bytes(self.defs)
        batch += struct.pack(">I", len(records)) + bytes(body)
        return base64.b64encode(batch).decode()

    # primitives, into self.out
    def u8(self, v: int) -> None:
        self.out += struct.pack(">B", v)

    def i32(self, v: int) -> None:
        self.out += struct.pack(">i", v)

    def u32(self, v: int) -> None:
        self.out += struct.pack(">I", v)

    def i64(self, v: int) -> None:
        self.out += struct.pack(">q", v)

    def raw(self, b: bytes) -> None:
        self.i32(len(b))
        self.out += b

    def text(self, s: str | None) -> None:
        if s is None:
            self.i32(-1)
        else:
            self.raw(s.encode())

    def ref(self, schema: dict[str, Any]) -> int:
        key = json.dumps(schema, sort_keys=True, default=repr)
        if key not in self.ids:
            self.ids[key] = len(self.ids)
            saved, self.out = self.out, bytearray()
            self.i32(self.ids[key])
            self.schema(schema)
            self.defs += self.out
            self.n_defs += 1
            self.out = saved
        return self.ids[key]

    def schema(self, s: dict[str, Any]) -> None:
        flags = (
            (1 if s.get("optional") else 0)
            | (2 if "name" in s else 0)
            | (4 if "version" in s else 0)
            | (8 if "doc" in s else 0)
            | (16 if "params" in s else 0)
            | (32 if "default" in s else 0)
        )
        self.u8(SCHEMA_TYPES.index(s["type"]))
        self.u8(flags)
        if "name" in s:
            self.text(s["name"])
        if "version" in s:
            self.i32(s["version"])
        if "doc" in s:
            self.text(s["doc"])
        if "params" in s:
            self.u32(len(s["params"]))
            for k, v in s["params"].items():
                self.text(k)
                self.text(v)
        if s["type"] == "ARRAY":
            self.schema(s["items"])
        elif s["type"] == "MAP":
            self.schema(s["keys"])
            self.schema(s["values"])
        elif s["type"] == "STRUCT":
            self.u32(len(s["fields"]))
            for name, field in s["fields"].items():
                self.text(name)
                self.schema(field)
        if "default" in s:
            self.value(s, s["default"])

    def value(self, s: dict[str, Any], v: Any) -> None:
        if v is None:
            self.u8(0)
            return
        self.u8(1)
        kind = s["type"]
        if kind in FIXED:
            self.out += struct.pack(">" + FIXED[kind], v)
        elif kind == "BOOLEAN":
            self.u8(1 if v else 0)
        elif kind == "STRING":
            self.text(v)
        elif kind == "BYTES":
            self.raw(v)
        elif kind == "ARRAY":
            self.i32(len(v))
            for item in v:
                self.value(s["items"], item)
        elif kind == "MAP":
            self.i32(len(v))
            for k, item in v:
                self.value(s["keys"], k)
                self.value(s["values"], item)
        else:
            for name, field in s["fields"].items():
                self.value(field, v.get(name))

    def schemaless(self, v: Any) -> None:
        if v is None:
            self.u8(0)
        elif isinstance(v, str):
            self.u8(8)
            self.text(v)
        elif isinstance(v, bytes):
            self.u8(9)
            self.raw(v)
        elif isinstance(v, list):
            self.u8(10)
            self.i32(len(v))
            for item in v:
                self.schemaless(item)
        elif isinstance(v, dict):
            self.u8(11)
            self.i32(len(v))
            for k, item in v.items():
                self.schemaless(k)
                self.schemaless(item)
        elif v[0] == "struct":
            self.u8(12)
            self.i32(self.ref(v[1]))
            self.value(v[1], v[2])
        else:
            tags = {"bool": (1, ">B"), "int8": (2, ">b"), "int16": (3, ">h"), "int32": (4, ">i")}
            tags |= {"int64": (5, ">q"), "float32": (6, ">f"), "float64": (7, ">d")}
            tag, fmt = tags[v[0]]
            self.u8(tag)
            self.out += struct.pack(fmt, int(v[1]) if v[0] == "bool" else v[1])

    def top(self, schema: dict[str, Any] | None, value: Any) -> None:
        if schema is None:
            self.i32(-1)
            self.schemaless(value)
        else:
            self.i32(self.ref(schema))
            self.value(schema, value)


def _put(
    host: PluginHostProcess, handle: str, batch: SinkBatch, records: list[dict[str, Any]]
) -> dict[str, Any]:
    return host.call("sink_task_put", handle=handle, batch=batch.encode(records))


STRING = {"type": "STRING", "optional": False}
OPT_STRING = {"type": "STRING", "optional": True}


# ----------------------------------------------------------------------------- FileStreamSink


def test_file_stream_sink_writes_what_java_writes(host: PluginHostProcess, tmp_path: Path) -> None:
    out = tmp_path / "sink.txt"
    props = {"name": "file-sink", "topics": "in", "file": str(out)}
    assert host.result("connector_start", handle="c-f", **{"class": FILE_SINK}, props=props) == {}
    assert host.result("connector_task_class", handle="c-f") == {"class": FILE_SINK_TASK}
    (config,) = host.result("connector_task_configs", handle="c-f", max_tasks=1)["configs"]
    assert config["file"] == str(out)
    assert (
        host.result("sink_task_start", handle="t-f", **{"class": FILE_SINK_TASK}, props=config)
        == {}
    )
    opened = host.result("sink_task_open", handle="t-f", partitions=[["in", 0], ["in", 1]])
    assert opened == {"context": EMPTY_CONTEXT}

    ab = {
        "type": "STRUCT",
        "optional": False,
        "name": "test.AB",
        "fields": {"a": {"type": "INT32", "optional": False}, "b": OPT_STRING},
    }
    batch = SinkBatch()
    records = [
        {"offset": 10, "value_schema": STRING, "value": "alpha", "timestamp": 1},
        {"offset": 11, "value_schema": STRING, "value": "h\u00e9 \u2713", "timestamp": 2},
        {"offset": 3, "partition": 1, "value_schema": ab, "value": {"a": 1, "b": "x"}},
        {"offset": 4, "partition": 1, "value_schema": None, "value": None},
        {"offset": 5, "partition": 1, "value_schema": OPT_STRING, "value": None},
    ]
    reply = _put(host, "t-f", batch, records)
    assert reply == {"id": reply["id"], "ok": True, "result": {"context": EMPTY_CONTEXT}}
    offsets = [["in", 0, 12], ["in", 1, 6]]
    committed = host.result("sink_task_pre_commit", handle="t-f", offsets=offsets)
    assert sorted(committed["offsets"]) == offsets and committed["context"] == EMPTY_CONTEXT
    # FileStreamSinkTask prints String.valueOf(value) per line, and flushed in preCommit
    assert out.read_text(encoding="utf-8").splitlines() == [
        "alpha",
        "h\u00e9 \u2713",
        "Struct{a=1,b=x}",
        "null",
        "null",
    ]
    # a second batch refers to the schemas already defined
    reply = _put(host, "t-f", batch, [{"offset": 12, "value_schema": ab, "value": {"a": 2}}])
    assert reply["ok"] is True, reply
    host.result("sink_task_pre_commit", handle="t-f", offsets=[["in", 0, 13]])
    assert out.read_text(encoding="utf-8").splitlines()[-1] == "Struct{a=2}"

    closed = host.result("sink_task_close", handle="t-f", partitions=[["in", 0], ["in", 1]])
    assert closed == {"context": EMPTY_CONTEXT}
    assert host.result("sink_task_stop", handle="t-f") == {}
    assert host.result("close", handle="t-f") == {}
    assert host.result("connector_stop", handle="c-f") == {}
    assert host.result("close", handle="c-f") == {}
    assert host.call("sink_task_put", handle="t-f", batch="")["error"]["class"] == (
        "java.lang.IllegalArgumentException"
    )


# ----------------------------------------------------------------------------- every type


def _logical(kind: str, name: str, **more: Any) -> dict[str, Any]:
    return {"type": kind, "optional": False, "name": name, "version": 1, **more}


ADDRESS = {
    "type": "STRUCT",
    "optional": True,
    "name": "test.Address",
    "fields": {"street": STRING, "zip": {"type": "INT32", "optional": True}},
}
EVERYTHING = {
    "type": "STRUCT",
    "optional": False,
    "name": "test.Everything",
    "version": 3,
    "doc": "every type",
    "fields": {
        "i8": {"type": "INT8", "optional": False},
        "i16": {"type": "INT16", "optional": False},
        "i32": {"type": "INT32", "optional": False},
        "i64": {"type": "INT64", "optional": False},
        "f32": {"type": "FLOAT32", "optional": False},
        "f64": {"type": "FLOAT64", "optional": False},
        "flag": {"type": "BOOLEAN", "optional": False},
        "text": STRING,
        "raw": {"type": "BYTES", "optional": False},
        "list": {"type": "ARRAY", "optional": False, "items": OPT_STRING},
        "scores": {
            "type": "MAP",
            "optional": False,
            "keys": STRING,
            "values": {"type": "INT64", "optional": False},
        },
        "address": ADDRESS,
        "people": {"type": "ARRAY", "optional": True, "items": ADDRESS},
        "missing": OPT_STRING,
        "defaulted": {"type": "STRING", "optional": True, "default": "fallback"},
        "price": _logical("BYTES", "org.apache.kafka.connect.data.Decimal", params={"scale": "2"}),
        "day": _logical("INT32", "org.apache.kafka.connect.data.Date"),
        "time": _logical("INT32", "org.apache.kafka.connect.data.Time"),
        "ts": _logical("INT64", "org.apache.kafka.connect.data.Timestamp"),
        "tagged": {"type": "INT32", "optional": False, "params": {"p1": "v1"}},
    },
}
EVERYTHING_SHOWN = (
    "STRUCT<test.Everything> v3 doc=every type{i8:INT8,i16:INT16,i32:INT32,i64:INT64,"
    "f32:FLOAT32,f64:FLOAT64,flag:BOOLEAN,text:STRING,raw:BYTES,list:ARRAY[STRING?],"
    "scores:MAP{STRING->INT64},address:STRUCT?<test.Address>{street:STRING,zip:INT32?},"
    "people:ARRAY?[STRUCT?<test.Address>{street:STRING,zip:INT32?}],missing:STRING?,"
    "defaulted:STRING? default=String:fallback,"
    "price:BYTES<org.apache.kafka.connect.data.Decimal> v1 params={scale=2},"
    "day:INT32<org.apache.kafka.connect.data.Date> v1,time:INT32<org.apache.kafka.connect.data.Time> v1,"
    "ts:INT64<org.apache.kafka.connect.data.Timestamp> v1,tagged:INT32 params={p1=v1}}"
)


def _start_check_task(host: PluginHostProcess, tmp_path: Path, handle: str) -> Path:
    log = tmp_path / f"{handle}.log"
    props = {"name": "check", "topics": "in", "log.file": str(log)}
    assert host.result("sink_task_start", handle=handle, **{"class": CHECK_TASK}, props=props) == {}
    return log


def _lines(log: Path, start: int = 0) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines()[start:]


def test_records_of_every_type_reach_the_task_as_connect_values(
    host: PluginHostProcess, tmp_path: Path
) -> None:
    log = _start_check_task(host, tmp_path, "t-c")
    assert _lines(log) == [
        f"start {{log.file={log}, name=check, topics=in}} plugin",
    ]
    assert host.result("sink_task_open", handle="t-c", partitions=[["in", 0], ["in", 1]]) == {
        "context": EMPTY_CONTEXT
    }
    value = {
        "i8": -5,
        "i16": 300,
        "i32": -70000,
        "i64": 1 << 40,
        "f32": 1.5,
        "f64": -2.25,
        "flag": True,
        "text": "h\u00e9llo \u2713",
        "raw": b"\x00\x01\xff",
        "list": ["a", None, "c"],
        "scores": [("x", 1), ("y", -2)],
        "address": {"street": "Main St", "zip": None},
        "people": [{"street": "A", "zip": 1}, None],
        "missing": None,
        "defaulted": None,
        "price": (12345).to_bytes(2, "big", signed=True),
        "day": 19000,
        "time": 3723004,
        "ts": 1700000000123,
        "tagged": 7,
    }
    loose = {
        "name": "n",
        "int": ("int32", 7),
        "list": [("int64", 1), ("bool", True), ("float64", 2.5), None],
        "bytes": b"\x01\x02",
        "struct": ("struct", ADDRESS, {"street": "Side St", "zip": 12345}),
        "small": ("int16", 3),
        "f": ("float32", 0.25),
        "b": ("int8", -1),
    }
    ts_schema = _logical("INT64", "org.apache.kafka.connect.data.Timestamp")
    records = [
        {
            "topic": "in",
            "partition": 0,
            "offset": 41,
            "timestamp": 1234,
            "timestamp_type": "CreateTime",
            "key_schema": STRING,
            "key": "k1",
            "value_schema": EVERYTHING,
            "value": value,
            "headers": [
                ("h-str", STRING, "v"),
                ("h-int", {"type": "INT32", "optional": False}, 42),
                ("h-ts", ts_schema, 1000),
                ("h-schemaless", None, {"a": ("int64", 1)}),
                ("h-null", None, None),
            ],
            "original_topic": "raw-in",
            "original_partition": 7,
            "original_offset": 99,
        },
        {
            "topic": "in",
            "partition": 1,
            "offset": 3,
            "timestamp": 5,
            "timestamp_type": "LogAppendTime",
            "key_schema": None,
            "key": None,
            "value_schema": None,
            "value": loose,
        },
        {
            "topic": "in",
            "partition": 1,
            "offset": 4,
            "timestamp": None,
            "key_schema": {"type": "INT64", "optional": True},
            "key": None,
            "value_schema": {
                "type": "MAP",
                "optional": False,
                "keys": {"type": "INT32", "optional": False},
                "values": {
                    "type": "ARRAY",
                    "optional": False,
                    "items": {"type": "FLOAT64", "optional": True},
                },
            },
            "value": [(1, [0.5, None]), (2, [])],
        },
    ]
    batch = SinkBatch()
    reply = _put(host, "t-c", batch, records)
    assert reply["ok"] is True, reply
    assert reply["result"] == {"context": EMPTY_CONTEXT}
    address_shown = "STRUCT?<test.Address>{street:STRING,zip:INT32?}"
    assert _lines(log, 2) == [
        "put 3 plugin",
        "record in/0/41 ts=1234 CreateTime original=raw-in/7/99",
        "  key STRING String:k1",
        f"  value {EVERYTHING_SHOWN} Struct{{i8=Byte:-5,i16=Short:300,i32=Integer:-70000,"
        f"i64=Long:{1 << 40},f32=Float:1.5,f64=Double:-2.25,flag=Boolean:true,"
        "text=String:h\u00e9llo \u2713,raw=bytes:0001ff,list=List[String:a,null,String:c],"
        "scores=Map{String:x->Long:1,String:y->Long:-2},"
        "address=Struct{street=String:Main St,zip=null},"
        "people=List[Struct{street=String:A,zip=Integer:1},null],missing=null,"
        "defaulted=String:fallback(default),price=BigDecimal:123.45,day=Date:1641600000000,"
        "time=Date:3723004,ts=Date:1700000000123,tagged=Integer:7}",
        "  struct schema is the value schema: true",
        "  header h-str STRING String:v",
        "  header h-int INT32 Integer:42",
        "  header h-ts INT64<org.apache.kafka.connect.data.Timestamp> v1 Date:1000",
        "  header h-schemaless none Map{String:a->Long:1}",
        "  header h-null none null",
        "record in/1/3 ts=5 LogAppendTime original=in/1/3",
        "  key none null",
        "  value none Map{String:name->String:n,String:int->Integer:7,"
        "String:list->List[Long:1,Boolean:true,Double:2.5,null],String:bytes->bytes:0102,"
        "String:struct->Struct{street=String:Side St,zip=Integer:12345},String:small->Short:3,"
        "String:f->Float:0.25,String:b->Byte:-1}",
        "record in/1/4 ts=null NoTimestampType original=in/1/4",
        "  key INT64? null",
        "  value MAP{INT32->ARRAY[FLOAT64?]} Map{Integer:1->List[Double:0.5,null],Integer:2->List[]}",
    ]
    assert address_shown in EVERYTHING_SHOWN

    # schemas are remembered per handle: a later batch only refers to them
    n_known = len(batch.ids)
    mark = len(_lines(log))
    value2 = dict(value, defaulted="given", address=None, people=None, price=b"\xff", ts=-1)
    reply = _put(host, "t-c", batch, [{"offset": 42, "value_schema": EVERYTHING, "value": value2}])
    assert reply["ok"] is True, reply
    assert batch.n_defs == 0 and len(batch.ids) == n_known
    shown = _lines(log, mark)[3]
    assert "defaulted=String:given," in shown and "address=null,people=null," in shown
    assert "price=BigDecimal:-0.01," in shown and "ts=Date:-1," in shown

    # an unknown schema ref is a DataException; the handle lives on
    broken = base64.b64encode(
        struct.pack(">II", 0, 1)
        + struct.pack(">q", 0)
        + b"\x00\x00\x00\x02in"
        + struct.pack(">iqqB", 0, 1, 1, 1)
        + struct.pack(">i", 77)
    ).decode()
    reply = host.call("sink_task_put", handle="t-c", batch=broken)
    assert reply["ok"] is False
    assert reply["error"]["class"] == "org.apache.kafka.connect.errors.DataException"
    assert "77" in reply["error"]["message"]

    assert host.result("sink_task_stop", handle="t-c") == {}
    assert _lines(log)[-1] == "stop plugin"
    assert host.result("close", handle="t-c") == {}


# ----------------------------------------------------------------------------- the context


def _cmd(offset: int, command: str, partition: int = 0) -> dict[str, Any]:
    return {
        "partition": partition,
        "offset": offset,
        "value_schema": STRING,
        "value": "cmd:" + command,
    }


def test_context_requests_reports_retriable_and_assignment(
    host: PluginHostProcess, tmp_path: Path
) -> None:
    log = _start_check_task(host, tmp_path, "t-x")
    assert host.result("sink_task_open", handle="t-x", partitions=[["in", 0], ["in", 1]]) == {
        "context": EMPTY_CONTEXT
    }
    assert _lines(log)[-1] == "open [in-0, in-1] assignment=[in-0, in-1]"
    batch = SinkBatch()

    # rewinds, timeout, pause/resume, requestCommit: drained into this reply's context
    reply = _put(host, "t-x", batch, [_cmd(1, "context")])
    assert reply["ok"] is True, reply
    assert reply["result"]["context"] == {
        "rewinds": [["in", 0, 6], ["in", 1, 7]],
        "timeout_ms": 1500,
        "pause": [["in", 0]],
        "resume": [["in", 1]],
        "request_commit": True,
    }
    assert _lines(log)[-1] == (
        "pause unassigned: SinkTasks may not pause partitions that are not currently assigned to them."
    )
    # ... and drained: the next reply's context is empty
    assert host.result("sink_task_pre_commit", handle="t-x", offsets=[["in", 0, 2]]) == {
        "offsets": [["in", 0, 2]],
        "context": EMPTY_CONTEXT,
    }
    assert _lines(log)[-1] == "flush {in-0=2} plugin"

    # the errant record reporter: a report callback with the record's seq in its batch
    reply = _put(
        host,
        "t-x",
        batch,
        [
            {"offset": 5, "value_schema": STRING, "value": "fine"},
            _cmd(6, "report"),
            _cmd(7, "report", partition=1),
        ],
    )
    assert reply["ok"] is True, reply
    assert [(r["op"], r["handle"], r["seq"]) for r in host.reports] == [
        ("report", "t-x", 1),
        ("report", "t-x", 2),
    ]
    error = host.reports[0]["error"]
    assert error["class"] == "java.lang.IllegalStateException"
    assert error["message"] == "bad record 6"
    assert "IllegalStateException: bad record 6" in error["trace"]
    assert _lines(log)[-2:] == ["reported 6", "reported 7"]

    # a worker failing the report: the Future fails with a ConnectException of its message
    host.fail_reports = "the DLQ is gone"
    reply = _put(host, "t-x", batch, [_cmd(8, "report-failing")])
    assert reply["ok"] is True, reply
    assert host.reports[-1]["seq"] == 0
    assert _lines(log)[-1] == (
        "report failed org.apache.kafka.connect.errors.ConnectException: the DLQ is gone"
    )
    host.fail_reports = None

    # a RetriableException from put: ok:false, retriable; the context asked before it stays
    reply = _put(host, "t-x", batch, [_cmd(9, "context"), _cmd(10, "retriable")])
    assert reply["ok"] is False
    assert reply["error"]["class"] == "org.apache.kafka.connect.errors.RetriableException"
    assert reply["error"]["message"] == "try again later"
    assert reply["error"]["retriable"] is True
    reply = _put(host, "t-x", batch, [_cmd(11, "explode")])
    assert reply["ok"] is False and reply["error"]["retriable"] is False
    assert reply["error"]["class"] == "java.lang.IllegalStateException"
    reply = _put(host, "t-x", batch, [_cmd(12, "assignment")])
    assert reply["result"]["context"]["request_commit"] is True  # from the failed put's "context"
    assert reply["result"]["context"]["rewinds"] == [["in", 0, 6], ["in", 1, 7]]
    assert _lines(log)[-1] == "assignment=[in-0, in-1]"

    # close: the assignment loses the partitions (after close() returns, as on Kafka)
    assert host.result("sink_task_close", handle="t-x", partitions=[["in", 0]]) == {
        "context": EMPTY_CONTEXT
    }
    assert _lines(log)[-1] == "close [in-0] assignment=[in-0, in-1]"
    reply = _put(host, "t-x", batch, [_cmd(13, "assignment", partition=1)])
    assert reply["ok"] is True and _lines(log)[-1] == "assignment=[in-1]"
    assert host.result("sink_task_open", handle="t-x", partitions=[["in", 2]])["context"] == (
        EMPTY_CONTEXT
    )
    assert _lines(log)[-1] == "open [in-2] assignment=[in-1, in-2]"

    # a source op on a sink task's handle; a sink op on a connector's
    reply = host.call("source_task_poll", handle="t-x")
    assert reply["ok"] is False and "is not a source task" in reply["error"]["message"]
    assert host.result("sink_task_stop", handle="t-x") == {}
    assert host.result("close", handle="t-x") == {}
    reply = host.call("sink_task_start", handle="t-s", **{"class": FILE_SINK}, props={})
    assert reply["ok"] is False and "is not a sink task" in reply["error"]["message"]
    assert host.result("hello")["host_version"] == "1"
