"""The Java plugin host running connectors and source tasks (issue 32, slice 2), driven over its
real protocol (``src/kconnect/java_host/java/PROTOCOL.md``, v2) from Python.

- Kafka's own ``FileStreamSourceConnector`` (connect-file 4.1.2 in a plugin.path directory):
  ``connector_start``, ``connector_task_class``, ``connector_task_configs`` equal to what the
  connector answers when Java runs it directly; ``source_task_start``; ``source_task_poll``
  giving the file's lines, the first asking the worker for the file's offset during the pending
  poll (the ``offsets`` callback, answered here: none, then a position a new task resumes from); ``source_task_commit_record``,
  ``source_task_commit``, ``source_task_stop`` while another thread's poll is pending;
- a connector compiled here (``test.run``) whose task emits records of every schema type,
  logical types, headers, schemaless values and null key schemas: the binary batch is decoded
  by this module's own decoder (independent of the worker's) and checked value by value;
  schemas are defined once per handle across polls; the calls run with the plugin's loader as
  context loader; ``commitRecord`` / ``commit`` / ``stop`` reach the task;
- ``ConnectorContext`` events sent from the connector's own thread;
- errors: a task whose poll throws, unknown handles and task classes; the host lives on.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kconnect.testing.java import (
    CONNECT_VERSION,
    classpath,
    compiled_plugin,
    java_plugin_path,
    javac,
    pick_jars,
)
from kconnect.testing.plugin_host import (
    REPLY_TIMEOUT_S,
    SCHEMA_TYPES,
    PluginHostProcess,
    host_classpath,
    host_deps,
)

pytestmark = [pytest.mark.java, pytest.mark.slow]

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_TASK = "org.apache.kafka.connect.file.FileStreamSourceTask"
TYPES_CONNECTOR = "test.run.TypesConnector"
TYPES_TASK = "test.run.TypesTask"


# ----------------------------------------------------------------------------- plugins

#: A connector and task compiled here: ``mode`` picks what the task's poll does.
TYPES_SOURCES = {
    "test/run/TypesConnector.java": """
        package test.run;
        import java.util.*;
        import org.apache.kafka.common.config.ConfigDef;
        import org.apache.kafka.connect.connector.Task;
        import org.apache.kafka.connect.source.SourceConnector;
        public class TypesConnector extends SourceConnector {
            private Map<String, String> props;
            private String startLoader;
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                this.props = props;
                startLoader = Thread.currentThread().getContextClassLoader() == getClass().getClassLoader()
                    ? "plugin" : "other";
                if ("true".equals(props.get("events"))) {
                    Thread t = new Thread(() -> {
                        context().requestTaskReconfiguration();
                        context().raiseError(new IllegalStateException("raised from the connector's thread"));
                    }, "types-connector-events");
                    t.start();
                }
            }
            public Class<? extends Task> taskClass() { return TypesTask.class; }
            public List<Map<String, String>> taskConfigs(int maxTasks) {
                List<Map<String, String>> configs = new ArrayList<>();
                for (int i = 0; i < maxTasks; i++) {
                    Map<String, String> c = new LinkedHashMap<>(props);
                    c.put("task.index", String.valueOf(i));
                    c.put("start.loader", startLoader);
                    configs.add(c);
                }
                return configs;
            }
            public void stop() { }
            public ConfigDef config() { return new ConfigDef(); }
        }
    """,
    "test/run/TypesTask.java": """
        package test.run;
        import java.io.*;
        import java.math.BigDecimal;
        import java.nio.ByteBuffer;
        import java.nio.charset.StandardCharsets;
        import java.nio.file.*;
        import java.util.Arrays;
        import java.util.LinkedHashMap;
        import java.util.List;
        import java.util.Map;
        import java.util.concurrent.CountDownLatch;
        import org.apache.kafka.clients.producer.RecordMetadata;
        import org.apache.kafka.connect.data.*;
        import org.apache.kafka.connect.source.*;
        public class TypesTask extends SourceTask {
            static final Schema ADDRESS = SchemaBuilder.struct().name("test.Address").optional()
                .field("street", Schema.STRING_SCHEMA).field("zip", Schema.OPTIONAL_INT32_SCHEMA).build();
            static Schema everything() {
                return SchemaBuilder.struct().name("test.Everything").version(3).doc("every type")
                    .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA)
                    .field("i32", Schema.INT32_SCHEMA).field("i64", Schema.INT64_SCHEMA)
                    .field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
                    .field("flag", Schema.BOOLEAN_SCHEMA).field("text", Schema.STRING_SCHEMA)
                    .field("raw", Schema.BYTES_SCHEMA).field("buffer", Schema.BYTES_SCHEMA)
                    .field("list", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build())
                    .field("scores", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build())
                    .field("address", ADDRESS)
                    .field("missing", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("defaulted", SchemaBuilder.string().optional().defaultValue("fallback").build())
                    .field("price", Decimal.schema(2)).field("day", Date.SCHEMA)
                    .field("time", Time.SCHEMA).field("ts", Timestamp.SCHEMA)
                    .field("tagged", SchemaBuilder.int32().parameter("p1", "v1").build())
                    .build();
            }
            private String mode;
            private Path log;
            private Map<String, Object> resumed;
            private int polls;
            private final CountDownLatch stopped = new CountDownLatch(1);
            public String version() { return "1.0"; }
            public void start(Map<String, String> props) {
                mode = props.get("mode");
                log = Paths.get(props.get("log.file"));
                resumed = context.offsetStorageReader().offset(Map.of("task", "types"));
                write("start " + props.get("task.index") + " " + props.get("start.loader") + " " + loader());
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
            private static Map<String, Object> offset(long n) { return Map.of("n", n); }
            public List<SourceRecord> poll() throws InterruptedException {
                if ("throw".equals(mode)) throw new IllegalStateException("poll exploded");
                if ("block".equals(mode)) { stopped.await(); return null; }
                polls++;
                Map<String, String> partition = Map.of("task", "types");
                if (polls == 1) {
                    Schema schema = everything();
                    Struct address = new Struct(ADDRESS).put("street", "Main St").put("zip", null);
                    Map<String, Long> scores = new LinkedHashMap<>();
                    scores.put("x", 1L);
                    scores.put("y", -2L);
                    Struct value = new Struct(schema)
                        .put("i8", (byte) -5).put("i16", (short) 300).put("i32", -70000).put("i64", 1L << 40)
                        .put("f32", 1.5f).put("f64", -2.25).put("flag", true).put("text", "h\\u00e9llo \\u2713")
                        .put("raw", new byte[] {0, 1, 2, (byte) 255})
                        .put("buffer", ByteBuffer.wrap(new byte[] {9, 8, 7, 6}, 1, 2))
                        .put("list", Arrays.asList("a", null, "c")).put("scores", scores)
                        .put("address", address).put("missing", null)
                        .put("price", new BigDecimal("123.45"))
                        .put("day", new java.util.Date(19000L * 86400000L))
                        .put("time", new java.util.Date(3723004L))
                        .put("ts", new java.util.Date(1700000000123L))
                        .put("tagged", 7);
                    SourceRecord first = new SourceRecord(partition, offset(1), "types", null,
                        Schema.STRING_SCHEMA, "k1", schema, value, null);
                    first.headers().addString("h-str", "v").addInt("h-int", 42)
                        .addTimestamp("h-ts", new java.util.Date(1000L))
                        .add("h-schemaless", Map.of("a", 1L), null)
                        .addBoolean("h-loader", loader().equals("plugin"))
                        .add("h-resumed", resumed, null);
                    Map<String, Object> loose = new LinkedHashMap<>();
                    loose.put("name", "n");
                    loose.put("int", 7);
                    loose.put("list", Arrays.asList(1L, true, 2.5, null));
                    loose.put("bytes", new byte[] {1, 2});
                    loose.put("struct", new Struct(ADDRESS).put("street", "Side St").put("zip", 12345));
                    loose.put("date", new java.util.Date(86400000L));
                    loose.put("decimal", new BigDecimal("-1.50"));
                    loose.put("small", (short) 3);
                    loose.put("f", 0.25f);
                    SourceRecord second = new SourceRecord(partition, offset(2), "types-b", 3,
                        null, null, null, loose, 1234L);
                    return List.of(first, second);
                }
                if (polls == 2) {
                    // equal schemas, newly built (and a SchemaBuilder): nothing new to define
                    Schema schema = everything();
                    Struct value = new Struct(schema)
                        .put("i8", (byte) 1).put("i16", (short) 2).put("i32", 3).put("i64", 4L)
                        .put("f32", 5f).put("f64", 6.0).put("flag", false).put("text", "again")
                        .put("raw", new byte[0]).put("buffer", ByteBuffer.allocate(0))
                        .put("list", List.of()).put("scores", Map.of())
                        .put("defaulted", "given")
                        .put("price", new BigDecimal("-0.01")).put("day", new java.util.Date(0))
                        .put("time", new java.util.Date(0)).put("ts", new java.util.Date(-1L))
                        .put("tagged", -1);
                    return List.of(new SourceRecord(partition, offset(3), "types", 0,
                        SchemaBuilder.string(), "k2", schema, value, 5L));
                }
                if (polls == 3) {
                    return List.of(new SourceRecord(partition, offset(4), "types", null,
                        Schema.OPTIONAL_INT64_SCHEMA, null, Schema.OPTIONAL_INT64_SCHEMA, 99L));
                }
                Thread.sleep(50);
                return null;
            }
            public void commitRecord(SourceRecord record, RecordMetadata metadata) {
                write("commitRecord " + record.sourceOffset().get("n") + " " + (metadata == null ? "null"
                    : metadata.topic() + "/" + metadata.partition() + "/" + metadata.offset() + "/" + metadata.timestamp())
                    + " " + loader());
            }
            public void commit() { write("commit " + loader()); }
            public void stop() { write("stop " + loader()); stopped.countDown(); }
        }
    """,
}

#: Prints what FileStreamSourceConnector answers when Java runs it directly.
FILE_ORACLE = """
    import java.util.*;
    import org.apache.kafka.connect.file.FileStreamSourceConnector;
    public class FileTaskConfigs {
        public static void main(String[] args) {
            Map<String, String> props = new LinkedHashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) props.put(args[i], args[i + 1]);
            FileStreamSourceConnector c = new FileStreamSourceConnector();
            c.start(props);
            System.out.println(c.taskClass().getName());
            for (Map<String, String> config : c.taskConfigs(1)) {
                StringBuilder json = new StringBuilder("{");
                for (Map.Entry<String, String> e : new TreeMap<>(config).entrySet()) {
                    if (json.length() > 1) json.append(',');
                    json.append('"').append(e.getKey()).append("\\":\\"").append(e.getValue()).append('"');
                }
                System.out.println(json.append('}'));
            }
        }
    }
"""


@pytest.fixture(scope="module")
def task_plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """connect-file (as the kconnect test kit lays it out) and ``test.run`` as a class directory."""
    root = java_plugin_path(tmp_path_factory.mktemp("task-plugins"), debezium=False)
    return compiled_plugin(TYPES_SOURCES, tmp_path_factory.mktemp("types-build"), root,
                           "types-plugin", jars=host_deps())  # fmt: skip


@pytest.fixture
def host(tmp_path: Path, task_plugin_path: Path) -> Iterator[PluginHostProcess]:
    """A host (answering ``offsets`` callbacks) that has scanned ``task_plugin_path``."""
    with PluginHostProcess(host_classpath(), tmp_path / "host.err") as started:
        scan = started.result("scan", plugin_path=[str(task_plugin_path)])
        classes = {p["class"] for p in scan["plugins"]}
        assert {FILE_SOURCE, TYPES_CONNECTOR} <= classes, scan
        yield started


# ----------------------------------------------------------------------------- the batch decoder


class Batch:
    """The test's own reading of the binary batch (PROTOCOL.md, v2), with the schemas of a handle."""

    def __init__(self, schemas: dict[int, dict[str, Any]]) -> None:
        self.schemas = schemas
        self.data = b""
        self.pos = 0
        self.defined: list[int] = []

    def decode(self, data: bytes) -> list[dict[str, Any]]:
        self.data, self.pos, self.defined = data, 0, []
        for _ in range(self.u32()):
            schema_id = self.i32()
            self.schemas[schema_id] = self.schema()
            self.defined.append(schema_id)
        records = [self.record() for _ in range(self.u32())]
        assert self.pos == len(self.data), "trailing bytes in the batch"
        return records

    def take(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(">" + fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return value

    def u8(self) -> int:
        return int(self.take("B"))

    def i32(self) -> int:
        return int(self.take("i"))

    def u32(self) -> int:
        return int(self.take("I"))

    def i64(self) -> int:
        return int(self.take("q"))

    def raw(self) -> bytes:
        n = self.i32()
        value = self.data[self.pos : self.pos + n]
        self.pos += n
        return value

    def text(self) -> str | None:
        n = self.i32()
        if n == -1:
            return None
        value = self.data[self.pos : self.pos + n].decode()
        self.pos += n
        return value

    def schema(self) -> dict[str, Any]:
        kind, flags = SCHEMA_TYPES[self.u8()], self.u8()
        s: dict[str, Any] = {"type": kind, "optional": bool(flags & 1)}
        if flags & 2:
            s["name"] = self.text()
        if flags & 4:
            s["version"] = self.i32()
        if flags & 8:
            s["doc"] = self.text()
        if flags & 16:
            s["params"] = {self.text(): self.text() for _ in range(self.u32())}
        if kind == "ARRAY":
            s["items"] = self.schema()
        elif kind == "MAP":
            s["keys"], s["values"] = self.schema(), self.schema()
        elif kind == "STRUCT":
            s["fields"] = {}
            for _ in range(self.u32()):
                name = self.text()
                s["fields"][name] = self.schema()
        if flags & 32:
            s["default"] = self.value(s)
        return s

    def value(self, s: dict[str, Any]) -> Any:
        if self.u8() == 0:
            return None
        kind = s["type"]
        simple = {
            "INT8": "b",
            "INT16": "h",
            "INT32": "i",
            "INT64": "q",
            "FLOAT32": "f",
            "FLOAT64": "d",
        }
        if kind in simple:
            return self.take(simple[kind])
        if kind == "BOOLEAN":
            return bool(self.u8())
        if kind == "STRING":
            return self.text()
        if kind == "BYTES":
            return self.raw()
        if kind == "ARRAY":
            return [self.value(s["items"]) for _ in range(self.i32())]
        if kind == "MAP":
            return [(self.value(s["keys"]), self.value(s["values"])) for _ in range(self.i32())]
        return {name: self.value(f) for name, f in s["fields"].items()}

    def schemaless(self) -> Any:
        tag = self.u8()
        if tag == 0:
            return None
        if tag == 1:
            return ("bool", bool(self.u8()))
        fixed = {
            2: ("int8", "b"),
            3: ("int16", "h"),
            4: ("int32", "i"),
            5: ("int64", "q"),
            6: ("float32", "f"),
            7: ("float64", "d"),
        }
        if tag in fixed:
            return (fixed[tag][0], self.take(fixed[tag][1]))
        if tag == 8:
            return self.text()
        if tag == 9:
            return self.raw()
        if tag == 10:
            return [self.schemaless() for _ in range(self.i32())]
        if tag == 11:
            return {_hashable(self.schemaless()): self.schemaless() for _ in range(self.i32())}
        assert tag == 12, tag
        ref = self.i32()
        return ("struct", ref, self.value(self.schemas[ref]))

    def top(self) -> tuple[int, Any]:
        ref = self.i32()
        return (ref, self.schemaless() if ref == -1 else self.value(self.schemas[ref]))

    def record(self) -> dict[str, Any]:
        r: dict[str, Any] = {
            "seq": self.i64(),
            "partition": self.schemaless(),
            "offset": self.schemaless(),
        }
        r["topic"] = self.text()
        kp = self.i32()
        r["kafka_partition"] = None if kp == -1 else kp
        r["key_ref"], r["key"] = self.top()
        r["value_ref"], r["value"] = self.top()
        ts = self.i64()
        r["timestamp"] = None if ts == -(2**63) else ts
        r["headers"] = [(self.text(), *self.top()) for _ in range(self.u32())]
        return r


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _poll(host: PluginHostProcess, handle: str, batch: Batch) -> list[dict[str, Any]]:
    result = host.result("source_task_poll", handle=handle)
    if result["count"] == 0:
        assert result["batch"] is None
        return []
    records = batch.decode(result["batch"])
    assert len(records) == result["count"]
    return records


def _poll_until(host: PluginHostProcess, handle: str, batch: Batch, n: int) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while len(records) < n:
        assert time.monotonic() < deadline, f"only {records}"
        records += _poll(host, handle, batch)
    return records


# ----------------------------------------------------------------------------- FileStreamSource


@pytest.fixture(scope="module")
def file_oracle(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Runs FileStreamSourceConnector in a plain JVM: (task class, task configs) for props."""
    from kconnect.local import maven

    file_jar = pick_jars(
        classpath([f"org.apache.kafka:connect-file:{CONNECT_VERSION}"]),
        (f"connect-file-{CONNECT_VERSION}",),
    )
    jars = [*host_deps(), *file_jar]
    classes = javac(
        {"FileTaskConfigs.java": FILE_ORACLE}, jars, tmp_path_factory.mktemp("file-oracle")
    )
    run_classpath = os.pathsep.join(map(str, [classes, *jars]))

    def run(props: dict[str, str]) -> tuple[str, list[dict[str, str]]]:
        args = [x for kv in props.items() for x in kv]
        done = subprocess.run(
            [maven.require_java(), "-cp", run_classpath, "FileTaskConfigs", *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        lines = done.stdout.strip().splitlines()
        return lines[0], [json.loads(line) for line in lines[1:]]

    return run


def test_file_stream_source_runs_in_the_host(
    host: PluginHostProcess, tmp_path: Path, file_oracle: Any
) -> None:
    data = tmp_path / "input.txt"
    data.write_text("alpha\nbeta\ngamma\n")
    props = {
        "name": "file-src",
        "connector.class": FILE_SOURCE,
        "tasks.max": "1",
        "file": str(data),
        "topic": "lines",
    }
    java_task_class, java_configs = file_oracle(props)

    assert host.result("connector_start", handle="c-1", **{"class": FILE_SOURCE}, props=props) == {}
    assert (
        host.result("connector_task_class", handle="c-1")
        == {"class": FILE_TASK}
        == {"class": java_task_class}
    )
    configs = host.result("connector_task_configs", handle="c-1", max_tasks=1)["configs"]
    assert configs == java_configs and len(configs) == 1

    assert (
        host.result("source_task_start", handle="t-1", **{"class": FILE_TASK}, props=configs[0])
        == {}
    )
    batch = Batch({})
    records = _poll_until(host, "t-1", batch, 3)
    # its first poll() opened the file and asked the worker for its offset (none yet)
    asked = [c for c in host.callbacks if c["handle"] == "t-1"]
    assert [(c["op"], c["partitions"]) for c in asked] == [("offsets", [{"filename": str(data)}])]
    assert batch.schemas == {0: {"type": "STRING", "optional": False}}
    assert [r["value"] for r in records] == ["alpha", "beta", "gamma"]
    assert [r["seq"] for r in records] == [0, 1, 2]
    now_ms = time.time() * 1000
    for r, position in zip(records, (6, 11, 17), strict=True):
        assert r["topic"] == "lines" and r["kafka_partition"] is None
        assert r["partition"] == {"filename": str(data)}
        assert r["offset"] == {"position": ("int64", position)}
        assert (r["key_ref"], r["key"], r["value_ref"]) == (-1, None, 0)
        assert r["headers"] == []
        assert now_ms - 60_000 < r["timestamp"] <= now_ms + 1000

    acks = [[0, "lines", 0, 100, 1], [1, None, 0, 0, None], [2, "lines", 1, 7, 2]]
    assert host.result("source_task_commit_record", handle="t-1", acks=acks) == {}
    again = host.call("source_task_commit_record", handle="t-1", acks=[[1, "lines", 0, 5, 1]])
    assert (
        again["ok"] is False and "seq [1]" in again["error"]["message"]
    )  # acked records are forgotten
    assert host.result("source_task_commit", handle="t-1") == {}

    # stop() while another thread's poll() waits for more of the file
    pending = host.send("source_task_poll", handle="t-1")
    time.sleep(0.3)
    assert host.result("source_task_stop", handle="t-1") == {}
    assert host.reply(pending)["ok"] is True
    assert host.result("close", handle="t-1") == {}
    assert (
        host.call("source_task_poll", handle="t-1")["error"]["class"]
        == "java.lang.IllegalArgumentException"
    )

    # a new task resumes from the offset the worker gives it
    host.set_offset({"filename": str(data)}, {"position": 11})
    assert (
        host.result("source_task_start", handle="t-2", **{"class": FILE_TASK}, props=configs[0])
        == {}
    )
    batch = Batch({})
    records = _poll_until(host, "t-2", batch, 1)
    assert [(r["seq"], r["value"], r["offset"]) for r in records] == [
        (0, "gamma", {"position": ("int64", 17)})
    ]
    assert host.result("source_task_stop", handle="t-2") == {}
    assert host.result("close", handle="t-2") == {}
    assert host.result("connector_stop", handle="c-1") == {}
    assert host.result("close", handle="c-1") == {}
    assert host.result("hello")["host_version"] == "1"


# ----------------------------------------------------------------------------- every type


def _start_types_task(
    host: PluginHostProcess, tmp_path: Path, handle: str, mode: str, **extra: str
) -> Path:
    log = tmp_path / f"{handle}.log"
    props = {
        "mode": mode,
        "log.file": str(log),
        "task.index": "0",
        "start.loader": "plugin",
        **extra,
    }
    assert (
        host.result("source_task_start", handle=handle, **{"class": TYPES_TASK}, props=props) == {}
    )
    return log


STRING = {"type": "STRING", "optional": False}
OPT_STRING = {"type": "STRING", "optional": True}
ADDRESS = {
    "type": "STRUCT",
    "optional": True,
    "name": "test.Address",
    "fields": {"street": STRING, "zip": {"type": "INT32", "optional": True}},
}


def _logical(kind: str, name: str, **more: Any) -> dict[str, Any]:
    return {"type": kind, "optional": False, "name": name, "version": 1, **more}


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
        "buffer": {"type": "BYTES", "optional": False},
        "list": {"type": "ARRAY", "optional": False, "items": OPT_STRING},
        "scores": {
            "type": "MAP",
            "optional": False,
            "keys": STRING,
            "values": {"type": "INT64", "optional": False},
        },
        "address": ADDRESS,
        "missing": OPT_STRING,
        "defaulted": {"type": "STRING", "optional": True, "default": "fallback"},
        "price": _logical("BYTES", "org.apache.kafka.connect.data.Decimal", params={"scale": "2"}),
        "day": _logical("INT32", "org.apache.kafka.connect.data.Date"),
        "time": _logical("INT32", "org.apache.kafka.connect.data.Time"),
        "ts": _logical("INT64", "org.apache.kafka.connect.data.Timestamp"),
        "tagged": {"type": "INT32", "optional": False, "params": {"p1": "v1"}},
    },
}


def test_records_of_every_type_decode_value_by_value(
    host: PluginHostProcess, tmp_path: Path
) -> None:
    assert (
        host.result(
            "connector_start", handle="c-t", **{"class": TYPES_CONNECTOR}, props={"name": "types"}
        )
        == {}
    )
    assert host.result("connector_task_class", handle="c-t") == {"class": TYPES_TASK}
    configs = host.result("connector_task_configs", handle="c-t", max_tasks=2)["configs"]
    assert configs == [
        {"name": "types", "task.index": "0", "start.loader": "plugin"},
        {"name": "types", "task.index": "1", "start.loader": "plugin"},
    ]

    host.set_offset({"task": "types"}, {"n": 5, "x": 0.5})  # start() asks for it
    log = _start_types_task(host, tmp_path, "t-t", "types")
    batch = Batch({})
    first, second = _poll(host, "t-t", batch)
    # Everything, its key's STRING and the schemaless struct's Address; the headers' schemas
    assert batch.schemas[first["value_ref"]] == EVERYTHING
    assert batch.schemas[first["key_ref"]] == STRING
    assert len(batch.defined) == len(set(batch.defined)) == len(batch.schemas)
    assert sorted(batch.defined) == list(range(len(batch.defined)))

    assert (first["seq"], first["topic"], first["kafka_partition"], first["timestamp"]) == (
        0,
        "types",
        None,
        None,
    )
    assert first["partition"] == {"task": "types"} and first["offset"] == {"n": ("int64", 1)}
    assert first["key"] == "k1"
    assert first["value"] == {
        "i8": -5,
        "i16": 300,
        "i32": -70000,
        "i64": 1 << 40,
        "f32": 1.5,
        "f64": -2.25,
        "flag": True,
        "text": "h\u00e9llo \u2713",
        "raw": b"\x00\x01\x02\xff",
        "buffer": b"\x08\x07",
        "list": ["a", None, "c"],
        "scores": [("x", 1), ("y", -2)],
        "address": {"street": "Main St", "zip": None},
        "missing": None,
        "defaulted": None,  # sent as stored: the worker's converter applies the default
        "price": (12345).to_bytes(2, "big", signed=True),
        "day": 19000,
        "time": 3723004,
        "ts": 1700000000123,
        "tagged": 7,
    }
    headers = {key: (batch.schemas.get(ref), value) for key, ref, value in first["headers"]}
    assert [h[0] for h in first["headers"]] == [
        "h-str",
        "h-int",
        "h-ts",
        "h-schemaless",
        "h-loader",
        "h-resumed",
    ]
    assert headers["h-str"] == (STRING, "v")
    assert headers["h-int"] == ({"type": "INT32", "optional": False}, 42)
    assert headers["h-ts"] == (_logical("INT64", "org.apache.kafka.connect.data.Timestamp"), 1000)
    assert headers["h-schemaless"] == (None, {"a": ("int64", 1)})
    assert headers["h-loader"] == (
        {"type": "BOOLEAN", "optional": False},
        True,
    )  # context loader swapped
    # the offset the worker answered, as Kafka's reader gives it: integral Long, else Double
    assert headers["h-resumed"][1] == {"n": ("int64", 5), "x": ("float64", 0.5)}

    assert (second["seq"], second["topic"], second["kafka_partition"], second["timestamp"]) == (
        1,
        "types-b",
        3,
        1234,
    )
    assert (second["key_ref"], second["key"], second["value_ref"]) == (-1, None, -1)
    loose = second["value"]
    assert loose["name"] == "n" and loose["int"] == ("int32", 7)
    assert loose["list"] == [("int64", 1), ("bool", True), ("float64", 2.5), None]
    assert loose["bytes"] == b"\x01\x02"
    tag, ref, struct_value = loose["struct"]
    assert (
        tag == "struct"
        and batch.schemas[ref] == ADDRESS
        and struct_value == {"street": "Side St", "zip": 12345}
    )
    assert loose["date"] == ("int64", 86400000) and loose["decimal"] == "-1.50"
    assert loose["small"] == ("int16", 3) and loose["f"] == ("float32", 0.25)

    # equal schemas, newly built or still a SchemaBuilder: nothing new to define
    known = dict(batch.schemas)
    (third,) = _poll(host, "t-t", batch)
    assert batch.defined == [] and batch.schemas == known
    assert (
        third["seq"] == 2
        and third["key_ref"] == first["key_ref"]
        and third["value_ref"] == first["value_ref"]
    )
    assert third["kafka_partition"] == 0 and third["timestamp"] == 5 and third["key"] == "k2"
    value = third["value"]
    assert value["defaulted"] == "given" and value["address"] is None and value["list"] == []
    assert (
        value["price"] == b"\xff"
        and value["ts"] == -1
        and value["raw"] == b""
        and value["buffer"] == b""
    )
    assert value["f32"] == 5.0 and value["flag"] is False

    # a new schema gets the next id
    (fourth,) = _poll(host, "t-t", batch)
    new_id = len(known)
    assert batch.defined == [new_id] and batch.schemas[new_id] == {
        "type": "INT64",
        "optional": True,
    }
    assert (
        fourth["seq"],
        fourth["key_ref"],
        fourth["key"],
        fourth["value_ref"],
        fourth["value"],
    ) == (3, new_id, None, new_id, 99)
    assert _poll(host, "t-t", batch) == []

    acks = [
        [0, "types", 2, 40, 111],
        [1, None, 0, 0, None],
        [2, "types", 0, 41, 112],
        [3, "types", 1, 9, None],
    ]
    assert host.result("source_task_commit_record", handle="t-t", acks=acks) == {}
    assert host.result("source_task_commit", handle="t-t") == {}
    assert host.result("source_task_stop", handle="t-t") == {}
    assert host.result("close", handle="t-t") == {}
    assert log.read_text().splitlines() == [
        "start 0 plugin plugin",
        "commitRecord 1 types/2/40/111 plugin",
        "commitRecord 2 null plugin",
        "commitRecord 3 types/0/41/112 plugin",
        "commitRecord 4 types/1/9/-1 plugin",
        "commit plugin",
        "stop plugin",
    ]
    assert [c["handle"] for c in host.callbacks] == ["t-t"]
    assert host.result("connector_stop", handle="c-t") == {}
    assert host.result("close", handle="c-t") == {}


# ----------------------------------------------------------------------------- events, stop, errors


def test_connector_context_events_come_from_the_connectors_thread(host: PluginHostProcess) -> None:
    props = {"name": "eventful", "events": "true"}
    assert (
        host.result("connector_start", handle="c-e", **{"class": TYPES_CONNECTOR}, props=props)
        == {}
    )
    reconfigure, error = host.event(), host.event()
    assert reconfigure == {"event": "request_task_reconfiguration", "handle": "c-e"}
    assert error["event"] == "raise_error" and error["handle"] == "c-e"
    assert error["error"]["class"] == "java.lang.IllegalStateException"
    assert error["error"]["message"] == "raised from the connector's thread"
    assert "test.run.TypesConnector" in error["error"]["trace"]
    assert host.result("connector_stop", handle="c-e") == {}
    assert host.result("close", handle="c-e") == {}


def test_stop_runs_while_poll_blocks(host: PluginHostProcess, tmp_path: Path) -> None:
    log = _start_types_task(host, tmp_path, "t-b", "block")
    pending = host.send("source_task_poll", handle="t-b")
    time.sleep(0.5)
    assert (
        host.result(
            "source_task_stop",
            handle="t-b",
        )
        == {}
    )
    assert host.reply(pending, timeout=REPLY_TIMEOUT_S) == {
        "id": pending,
        "ok": True,
        "result": {"count": 0, "batch": None},
    }
    assert log.read_text().splitlines() == ["start 0 plugin plugin", "stop plugin"]


def test_errors_come_back_and_the_host_lives_on(host: PluginHostProcess, tmp_path: Path) -> None:
    _start_types_task(host, tmp_path, "t-x", "throw")
    reply = host.call("source_task_poll", handle="t-x")
    assert reply["ok"] is False
    assert reply["error"]["class"] == "java.lang.IllegalStateException"
    assert reply["error"]["message"] == "poll exploded"
    assert "test.run.TypesTask.poll" in reply["error"]["trace"]
    assert host.result("source_task_stop", handle="t-x") == {}

    for op in ("source_task_poll", "connector_task_class", "close"):
        reply = host.call(op, handle="nobody")
        assert reply["error"]["class"] == "java.lang.IllegalArgumentException", reply
        assert "nobody" in reply["error"]["message"]
    reply = host.call("connector_task_class", handle="t-x")  # a task, not a connector
    assert reply["error"]["class"] == "java.lang.IllegalArgumentException"
    reply = host.call(
        "source_task_start", handle="t-y", **{"class": "com.example.NoSuchTask"}, props={}
    )
    assert reply["error"]["class"] == "java.lang.IllegalArgumentException"
    assert "com.example.NoSuchTask" in reply["error"]["message"]
    reply = host.call("source_task_start", handle="t-x", **{"class": TYPES_TASK}, props={})
    assert "already in use" in reply["error"]["message"]

    # a worker failing the offsets callback: start() gets a ConnectException; the handle is not kept
    host.fail_callbacks = "offsets are unavailable"
    reply = host.call(
        "source_task_start",
        handle="t-z",
        **{"class": TYPES_TASK},
        props={"mode": "types", "log.file": str(tmp_path / "z.log")},
    )
    assert reply["error"]["class"] == "org.apache.kafka.connect.errors.ConnectException"
    assert reply["error"]["message"] == "offsets are unavailable"
    assert "unknown handle" in host.call("close", handle="t-z")["error"]["message"].lower()
    assert host.result("hello")["host_version"] == "1"
