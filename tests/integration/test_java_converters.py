"""Java converters and header converters from plugin.path, run by a real plugin host on real jars
(issue 32, protocol v7).

- Kafka's ``org.apache.kafka.connect.json.JsonConverter`` (``connect-json-4.1.2.jar`` and the
  Jackson jars it needs, copied into a plugin.path directory) against kconnect's built-in
  JsonConverter: the same bytes from the same Connect data (structs with logical types, arrays,
  maps, bytes, schemaless maps and lists, nulls, tombstones), with ``schemas.enable`` on and off,
  as key and as value; the same Connect data back from those bytes; one host call per batch;
- Kafka's ``StringConverter`` and ``SimpleHeaderConverter`` (connect-api, on the host's class
  path) against kconnect's, both ways;
- a converter compiled here (``test.conv.Picky``) that fails on one item: the batch's other items
  are kept, only the failed one goes to the worker's retry / tolerance operator (its Java error
  reported to the error reporters, a RetriableException retried), and a converter that reads
  and writes Kafka headers sees and changes them;
- a worker: kconnect's FileStreamSource whose worker-level ``value.converter`` is Kafka's Java
  JsonConverter (``plugin.java.preferred``) writes the bytes the built-in one writes.
"""

from __future__ import annotations

import datetime as dt
import decimal
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from kconnect.api import Date, Decimal, Headers, Schema, SchemaBuilder, Struct, Time, Timestamp
from kconnect.api.converter import Converter, HeaderConverter
from kconnect.converters.json_converter import JsonConverter
from kconnect.converters.simple_header_converter import SimpleHeaderConverter
from kconnect.converters.string_converter import StringConverter
from kconnect.java_host.converters import ItemConversionFailures
from kconnect.java_host.host_process import JavaPluginError, JavaPluginHost
from kconnect.java_host.proxies import proxy_class
from kconnect.runtime.config.connector_config import ToleranceType
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.record_conversion import SKIP, convert_column
from kconnect.testing.java import CONNECT_VERSION, classpath, compiled_plugin

pytestmark = [pytest.mark.java, pytest.mark.slow]

JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
PICKY = "test.conv.Picky"

#: Strings as UTF-8; fails on "bad" (both ways), throws RetriableException the first time it
#: sees "retry"; with Kafka headers, writes a "picky" header and reads a "prefix" header.
PICKY_SOURCES = {
    "test/conv/Picky.java": """
        package test.conv;
        import java.nio.charset.StandardCharsets;
        import java.util.Map;
        import org.apache.kafka.common.header.Header;
        import org.apache.kafka.common.header.Headers;
        import org.apache.kafka.connect.data.Schema;
        import org.apache.kafka.connect.data.SchemaAndValue;
        import org.apache.kafka.connect.errors.DataException;
        import org.apache.kafka.connect.errors.RetriableException;
        import org.apache.kafka.connect.storage.Converter;
        public class Picky implements Converter {
            private int retried;
            private boolean isKey;
            public void configure(Map<String, ?> configs, boolean isKey) { this.isKey = isKey; }
            private void check(String text) {
                if ("bad".equals(text)) {
                    throw new DataException("Picky cannot take " + text);
                }
                if ("retry".equals(text) && retried++ == 0) {
                    throw new RetriableException("Picky not yet");
                }
            }
            public byte[] fromConnectData(String topic, Schema schema, Object value) {
                check((String) value);
                return value == null ? null : (isKey ? "key:" + value : (String) value)
                    .getBytes(StandardCharsets.UTF_8);
            }
            public byte[] fromConnectData(String topic, Headers headers, Schema schema, Object value) {
                headers.add("picky", ("saw " + value).getBytes(StandardCharsets.UTF_8));
                return fromConnectData(topic, schema, value);
            }
            public SchemaAndValue toConnectData(String topic, byte[] value) {
                String text = value == null ? null : new String(value, StandardCharsets.UTF_8);
                check(text);
                return new SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, text);
            }
            public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
                SchemaAndValue plain = toConnectData(topic, value);
                Header prefix = headers.lastHeader("prefix");
                if (prefix == null || plain.value() == null) {
                    return plain;
                }
                headers.remove("prefix");
                return new SchemaAndValue(plain.schema(),
                    new String(prefix.value(), StandardCharsets.UTF_8) + plain.value());
            }
        }
    """,
}


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """connect-json with its Jackson jars in a directory of their own, ``test.conv`` as classes."""
    root = tmp_path_factory.mktemp("converter-plugins")
    (root / "connect-json").mkdir()
    for jar in classpath([f"org.apache.kafka:connect-json:{CONNECT_VERSION}"]):
        if jar.name.startswith(("connect-json-", "jackson-")):
            shutil.copy2(jar, root / "connect-json" / jar.name)
    return compiled_plugin(PICKY_SOURCES, tmp_path_factory.mktemp("picky-build"), root, "test-conv")


@pytest.fixture(scope="module")
def host(plugin_path: Path) -> Iterator[JavaPluginHost]:
    started = JavaPluginHost(plugin_path=[str(plugin_path)])
    try:
        yield started
    finally:
        started.close()


def _java(host: JavaPluginHost, name: str, kind: str = "converter") -> Any:
    return proxy_class(name, kind, CONNECT_VERSION, lambda: host)()


def _pair(
    host: JavaPluginHost, java: str, builtin: type, configs: Mapping[str, str], is_key: bool
) -> tuple[Converter, Converter]:
    java_conv: Converter = _java(host, java)
    java_conv.configure(configs, is_key)
    own: Converter = builtin()
    own.configure(configs, is_key)
    return java_conv, own


def _children(pid: int) -> list[int]:
    """The pids of ``pid``'s child processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _calls(host: JavaPluginHost, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The host's conversion calls from now on (the ops in a list)."""
    ops: list[str] = []
    real = host.call

    def counting(op: str, fields: Mapping[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        if op in ("from_connect", "to_connect"):
            ops.append(op)
        return real(op, fields, **kw)

    monkeypatch.setattr(host, "call", counting)
    return ops


# ----------------------------------------------------------------------------- data

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
    .doc("an order")
    .field("id", Schema.INT64_SCHEMA)
    .field("small", Schema.INT8_SCHEMA)
    .field("short", Schema.OPTIONAL_INT16_SCHEMA)
    .field("name", Schema.STRING_SCHEMA)
    .field("flag", Schema.BOOLEAN_SCHEMA)
    .field("ratio", Schema.FLOAT64_SCHEMA)
    .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
    .field("amount", Decimal.builder(2).optional().build())
    .field("when", Timestamp.SCHEMA)
    .field("day", Date.builder().optional().build())
    .field("at", Time.builder().optional().build())
    .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("nested", NESTED)
    .field(
        "attrs",
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).optional().build(),
    )
    .field("defaulted", SchemaBuilder.string().optional().default_value("dflt").build())
    .build()
)
EPOCH = dt.datetime(2024, 2, 29, 13, 45, 6, 789000, tzinfo=dt.UTC)


def _order(i: int) -> Struct:
    return (
        Struct(ORDER)
        .put("id", i * 10_000_000_000)
        .put("small", -i)
        .put("short", None if i % 2 else 300 + i)
        .put("name", f"order {i} é 🚀")
        .put("flag", i % 2 == 0)
        .put("ratio", i + 0.25)
        .put("f32", None if i % 3 else 1.5)
        .put("amount", None if i % 5 == 4 else decimal.Decimal(f"{i}.{i % 10}5"))
        .put("when", EPOCH + dt.timedelta(days=i, milliseconds=i))
        .put("day", None if i % 3 else dt.date(2024, 1, 1) + dt.timedelta(days=i))
        .put("at", dt.time(0, i % 60, 30, 250000) if i % 2 else None)
        .put("blob", bytes([i % 256, 0, 255]) if i % 2 == 0 else None)
        .put("nested", Struct(NESTED).put("a", -i).put("tags", [f"t{i}", "x"]))
        .put("attrs", {"k": i, "none": None} if i % 2 else None)
        .put("defaulted", None if i % 2 else f"d{i}")
    )


def items() -> list[tuple[Schema | None, Any]]:
    """(schema, value) of every kind a record's key or value may be."""
    out: list[tuple[Schema | None, Any]] = [(ORDER, _order(i)) for i in range(6)]
    out += [
        (Schema.STRING_SCHEMA, "plain é"),
        (Schema.OPTIONAL_STRING_SCHEMA, None),
        (Schema.INT32_SCHEMA, -7),
        (Schema.INT64_SCHEMA, 2**40),
        (Schema.FLOAT64_SCHEMA, 3.5),
        (Schema.BOOLEAN_SCHEMA, True),
        (Schema.BYTES_SCHEMA, b"\x00\x01\xff"),
        (Decimal.schema(3), decimal.Decimal("-12.345")),
        (Timestamp.SCHEMA, EPOCH),
        (Date.SCHEMA, dt.date(2020, 2, 29)),
        (Time.SCHEMA, dt.time(23, 59, 59, 999000)),
        (SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build(), [1, None, 3]),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).build(), {"x": 1.0}),
        (None, {"id": 1, "name": "schemaless", "nested": {"a": [1, 2.5, None, True]}}),
        (None, [1, "two", None]),
        (None, "just text"),
        (None, 42),
        (None, None),
    ]
    return out


# ----------------------------------------------------------------------------- same as kconnect's


@pytest.mark.parametrize("schemas_enable", ["true", "false"])
@pytest.mark.parametrize("is_key", [False, True])
def test_kafkas_json_converter_writes_and_reads_what_kconnects_does(
    host: JavaPluginHost, monkeypatch: pytest.MonkeyPatch, schemas_enable: str, is_key: bool
) -> None:
    java, own = _pair(host, JSON, JsonConverter, {"schemas.enable": schemas_enable}, is_key)
    data = items()
    ops = _calls(host, monkeypatch)
    try:
        written = java.from_connect_batch("orders", data)
        assert written == own.from_connect_batch("orders", data)
        assert written[-1] is None  # a tombstone stays one
        read = java.to_connect_batch("orders", written)
        assert ops == ["from_connect", "to_connect"]  # one host call per batch
        assert read == own.to_connect_batch("orders", written)
        # the one-record methods are one-item batches of the same
        assert java.from_connect_data("orders", *data[0]) == written[0]
        assert java.to_connect_data("orders", written[0]) == read[0]
        with pytest.raises(JavaPluginError, match="DataException"):
            java.to_connect_data("orders", b"not json")
    finally:
        java.close()
        own.close()


def test_kafkas_string_converter_and_simple_header_converter_match_kconnects(
    host: JavaPluginHost,
) -> None:
    java, own = _pair(host, STRING, StringConverter, {"converter.encoding": "UTF-8"}, False)
    texts = [(Schema.STRING_SCHEMA, "é 🚀"), (None, 12), (None, None), (Schema.INT32_SCHEMA, 5)]
    try:
        written = java.from_connect_batch("t", texts)
        assert written == own.from_connect_batch("t", texts)
        assert java.to_connect_batch("t", written) == own.to_connect_batch("t", written)
    finally:
        java.close()
    java_headers: HeaderConverter = _java(host, SIMPLE, "header_converter")
    java_headers.configure({})
    own_headers = SimpleHeaderConverter()
    own_headers.configure({})
    values: list[tuple[Schema | None, Any]] = [
        (Schema.STRING_SCHEMA, "text"),
        (Schema.INT32_SCHEMA, 42),
        (Schema.INT64_SCHEMA, 2**40),
        (Schema.BOOLEAN_SCHEMA, False),
        (Schema.FLOAT64_SCHEMA, 1.25),
        (Timestamp.SCHEMA, EPOCH),
        (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2]),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), {"a": 1}),
        (None, None),
    ]
    try:
        for schema, value in values:
            raw = java_headers.from_connect_header("t", "h", schema, value)
            assert raw == own_headers.from_connect_header("t", "h", schema, value), value
            back = java_headers.to_connect_header("t", "h", raw)
            assert back == own_headers.to_connect_header("t", "h", raw), raw
        # a struct's text is the same; read back it is a map of mixed values, whose MAP schema
        # has no value schema -- which the batch grammar cannot carry (PROTOCOL.md, v7)
        raw = java_headers.from_connect_header("t", "h", ORDER, _order(2))
        assert raw == own_headers.from_connect_header("t", "h", ORDER, _order(2))
        with pytest.raises(JavaPluginError, match="DataException"):
            java_headers.to_connect_header("t", "h", raw)
    finally:
        java_headers.close()


# ----------------------------------------------------------------------------- failures, headers


def test_one_failing_item_costs_no_second_pass_and_reaches_the_error_handler(
    host: JavaPluginHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch with a failing item and a retriable one: the good items' bytes are kept from the
    batch call, the failing item is reported (with the Java error) and skipped, the retriable
    one is retried by the operator -- one host call for the batch, one for the retry."""
    java: Converter = _java(host, PICKY)
    java.configure({}, False)
    reported: list[BaseException | None] = []

    class Reporter:
        def report(self, context: ProcessingContext) -> None:
            reported.append(context.error)

    operator = RetryWithToleranceOperator(
        retry_timeout_ms=30_000, max_delay_ms=10, tolerance=ToleranceType.ALL
    )
    operator.reporters = [Reporter()]
    contexts = [ProcessingContext() for _ in range(4)]
    inputs = [(Schema.STRING_SCHEMA, v) for v in ("a", "bad", "retry", "d")]
    ops = _calls(host, monkeypatch)
    with pytest.raises(ItemConversionFailures) as failed:
        java.from_connect_batch("t", inputs)
    assert [i for i, _ in failed.value.item_failures] == [1, 2]
    assert failed.value.results == [b"a", None, None, b"d"]
    ops.clear()
    java.close()
    java.configure({}, False)  # a fresh instance: "retry" fails its first time again
    try:
        out = convert_column(
            operator,
            contexts.__getitem__,
            {"t": [0, 1, 2, 3]},
            list(inputs),
            java.from_connect_batch,
            lambda t, sv: java.from_connect_data(t, sv[0], sv[1]),
            Stage.VALUE_CONVERTER,
            java,
            [None] * 4,
        )
        assert out == [b"a", SKIP, b"retry", b"d"]
        assert ops == ["from_connect", "from_connect"]  # the batch, then the retry
        assert [c.failed for c in contexts] == [False, True, False, False]
        assert operator.total_retries == 1
        assert len(reported) == 1 and isinstance(reported[0], JavaPluginError)
        assert "Picky cannot take bad" in str(reported[0])

        # tolerance none: the failure fails the batch, as a Python converter's would
        strict = RetryWithToleranceOperator(tolerance=ToleranceType.NONE)
        with pytest.raises(Exception, match="Tolerance exceeded"):
            convert_column(
                strict,
                [ProcessingContext() for _ in range(2)].__getitem__,
                {"t": [0, 1]},
                [b"ok", b"bad"],
                java.to_connect_batch,
                java.to_connect_data,
                Stage.VALUE_CONVERTER,
                java,
                [None] * 2,
            )
    finally:
        java.close()


def test_a_java_converter_reads_and_writes_kafka_headers(host: JavaPluginHost) -> None:
    java: Converter = _java(host, PICKY)
    java.configure({}, True)
    try:
        headers = Headers().add("raw", b"\x01", Schema.OPTIONAL_BYTES_SCHEMA)
        headers.add_string("typed", "not bytes yet")
        assert java.from_connect_data("t", Schema.STRING_SCHEMA, "v", headers) == b"key:v"
        assert [(h.key, h.value) for h in headers] == [
            ("typed", "not bytes yet"),
            ("raw", b"\x01"),
            ("picky", b"saw v"),
        ]
        headers = Headers().add("prefix", b">> ", None)
        assert java.to_connect_data("t", b"value", headers).value == ">> value"
        assert len(headers) == 0  # the converter removed the header it read
        assert java.to_connect_batch("t", [b"value"])[0].value == "value"  # batches: no headers
    finally:
        java.close()


# ----------------------------------------------------------------------------- in a worker


@pytest.mark.kafka
def test_a_worker_level_java_json_converter_writes_what_kconnects_writes(
    tmp_path: Path, plugin_path: Path, kafka_bootstrap: str, topic_factory: Any
) -> None:
    """kconnect's FileStreamSource on a worker whose ``key.converter`` and ``value.converter``
    are Kafka's Java JsonConverter (``plugin.java.preferred``: the jar in plugin.path runs),
    beside the same connector overriding them with kconnect's own by import path: both topics
    hold the same keys and value bytes, in order."""
    from kconnect.testing.ports import free_port
    from tests.integration.test_java_plugins_worker import (
        _create,
        _java_children,
        _kconnect,
        _task_state,
        _topic_lines,
        _worker_props,
    )

    props = _worker_props(kafka_bootstrap, tmp_path, "conv", plugin_path, free_port())
    props["plugin.java.preferred"] = "true"
    kc = _kconnect(tmp_path, "conv", props)
    lines = [f"line {i}: données-{i % 7} 🚀" for i in range(200)]
    source = tmp_path / "input.txt"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    own = "kconnect.converters.json_converter:JsonConverter"
    topics = {"java": topic_factory(), "python": topic_factory()}
    try:
        kc.wait_ready()
        _create(kc.url, "file-java", {
            "connector.class": "FileStreamSource", "tasks.max": "1", "file": str(source),
            "topic": topics["java"],
        })  # fmt: skip
        _create(kc.url, "file-python", {
            "connector.class": "FileStreamSource", "tasks.max": "1", "file": str(source),
            "topic": topics["python"], "key.converter": own, "value.converter": own,
        })  # fmt: skip
        java = _topic_lines(kafka_bootstrap, topics["java"], len(lines))
        python = _topic_lines(kafka_bootstrap, topics["python"], len(lines))
        assert java == python
        assert len(java) == len(lines)
        assert java[0][1] is not None
        assert java[0][1].startswith(b'{"schema":{"type":"string","optional":false},"payload":')
        assert _task_state(kc.url, "file-java") == "RUNNING"
        # the Java converters run in a plugin host: the task runs in a task process (a Python
        # connector's task), which starts its own
        descendants = [kc.proc.pid, *_children(kc.proc.pid)]
        assert any(_java_children(pid) for pid in descendants)
    finally:
        kc.stop()
