"""Java converters and header converters from ``plugin.path``, run in the plugin host.

The proxy classes of :func:`~kconnect.java_host.proxies.proxy_class` for the ``converter`` and
``header_converter`` kinds extend :class:`JavaConverter` and :class:`JavaHeaderConverter`.
``configure`` creates and configures the Java instance in the host under a handle (the host is
started on first use; a converter's ``configure(props, isKey)`` gets the worker's ``is_key``);
``close`` calls the instance's ``close()`` and forgets it.

Conversions cross a batch at a time (``java/PROTOCOL.md``, v7): :meth:`JavaConverter.from_connect_batch`
and :meth:`JavaConverter.to_connect_batch` -- what the worker's hot path calls, per topic -- are
one host call each, the per-record methods a one-item batch. Items travel as records of the
source batch of :mod:`.sink_batches` (an item's schema and value are its record's value schema
and value) and come back in the batch of :mod:`.batches`; schema ids are per handle, as for tasks.

Headers: Java converters get Kafka's *raw* headers (``fromConnectData(topic, headers, schema,
value)`` / ``toConnectData(topic, headers, bytes)``, as Kafka's worker calls them). The
per-record methods send the headers of the ``Headers`` they are given whose values are bytes or
None (what a record's Kafka headers are); headers of other values have no byte form yet and stay
where they are, unseen by Java. When the Java converter adds, removes or changes headers, the
sent ones are replaced by what it left, as BYTES headers after the others. The batch methods
carry no headers (the API's batch methods have none): Java gets empty headers there.

Failures: an item whose Java conversion throws fails alone. The per-record methods raise its
:class:`~kconnect.java_host.host_process.JavaPluginError`, exactly where a Python converter's
exception is raised. The batch methods raise :class:`ItemConversionFailures` when any item
failed, which carries the other items' results: the runtime's
:func:`~kconnect.runtime.worker.record_conversion.convert_column` then keeps those and hands
only the failed items to the retry / tolerance operator (with their Java error as the first
attempt), so a failing item costs no second pass over the batch. Any other exception (the host
is gone, a malformed answer) fails the whole call, and the runtime converts record by record.

Threads: a converter is used by one task thread (the API's contract); different handles may be
used at once.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from kconnect.api.converter import Converter, HeaderConverter
from kconnect.api.data.schema import Schema
from kconnect.api.data.schema_and_value import SchemaAndValue
from kconnect.api.errors import ConnectException, DataException
from kconnect.api.headers import Header, Headers
from kconnect.api.records import SourceRecord
from kconnect.java_host.batches import BatchDecoder
from kconnect.java_host.host_process import JavaPluginHost, plugin_error
from kconnect.java_host.sink_batches import SinkBatchEncoder
from kconnect.java_host.stages import java_props

__all__ = ["ItemConversionFailures", "JavaConverter", "JavaHeaderConverter"]

_BYTES = Schema.OPTIONAL_BYTES_SCHEMA
#: Per item: the result (bytes or SchemaAndValue; None where it failed), and the failures.
Failures = list[tuple[int, Exception]]


class ItemConversionFailures(DataException):
    """Some items of a batch conversion failed, the others did not.

    ``results`` is aligned with the batch (None where an item failed); ``item_failures`` lists
    ``(index in the batch, error)``. The runtime keeps the results and runs only the failed
    items through its error handling (duck-typed: it looks for ``item_failures``).
    """

    def __init__(self, results: list[Any], failures: Failures) -> None:
        first = failures[0][1]
        more = f" (and {len(failures) - 1} more items)" if len(failures) > 1 else ""
        super().__init__(f"Item {failures[0][0]} of the batch failed: {first}{more}")
        self.results = results
        self.item_failures = failures
        self.__cause__ = first


class _JavaCodec:
    """A converter's or header converter's instance in the host, and its handle's codec."""

    #: Tasks using it run on threads of the worker process, beside its one plugin host (no
    #: task process starts a second JVM): see kconnect.runtime.worker.task_processes.split_tasks.
    RUNS_TASKS_IN_WORKER_PROCESS: ClassVar[bool] = True

    __java_class__: str
    _java_host: Callable[[], JavaPluginHost]

    def __init__(self) -> None:
        self._handle: str | None = None
        self._encoder = SinkBatchEncoder()
        self._decoder = BatchDecoder()

    def _start(self, op: str, configs: Mapping[str, Any], **fields: Any) -> None:
        if self._handle is not None:
            self.close()
        self._encoder, self._decoder = SinkBatchEncoder(), BatchDecoder()  # a new handle's ids
        host = self._java_host()
        handle = host.new_handle("v")
        host.call(
            op,
            {
                "handle": handle,
                "class": self.__java_class__,
                "props": java_props(configs),
                **fields,
            },
        )
        self._handle = handle  # only when the host kept it: a failed start keeps no handle

    def close(self) -> None:
        """Call the Java instance's ``close()`` and forget it (what it threw is raised)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._java_host().call("close", {"handle": handle}, timeout_s=30)

    def _running(self) -> str:
        if self._handle is None:
            raise ConnectException(
                f"{self.__java_class__} is not configured in the Java plugin host"
            )
        return self._handle

    def _from_connect(
        self, topic: str, items: Sequence[SourceRecord]
    ) -> tuple[list[bytes | None], dict[int, list[tuple[str, bytes | None]]], Failures]:
        """``items`` (records whose value schema and value are the items) to bytes, in one host
        call: per item the bytes (None where it failed), the Kafka headers Java left per item
        that had or got some, and the failures."""
        results: list[bytes | None] = [None] * len(items)
        failures: Failures = []
        headers: dict[int, list[tuple[str, bytes | None]]] = {}
        batch = self._encoder.encode(
            items, source=True, rejected=lambda i, e: failures.append((i, e))
        )
        if len(failures) < len(items):
            not_sent = {i for i, _ in failures}
            sent = [i for i in range(len(items)) if i not in not_sent]
            answer = self._java_host().call(
                "from_connect",
                {"handle": self._running(), "topic": topic, "batch": _b64(batch)},
            )
            values = answer.get("values") or []
            if len(values) != len(sent):
                raise ConnectException(
                    f"The Java plugin host converted {len(values)} items of {len(sent)}"
                )
            for i, value in zip(sent, values, strict=True):
                results[i] = None if value is None else base64.b64decode(value)
            for seq, pairs in answer.get("headers") or []:
                headers[int(seq)] = [
                    (str(k), None if v is None else base64.b64decode(v)) for k, v in pairs
                ]
            for failure in answer.get("failures") or []:
                failures.append((int(failure["index"]), plugin_error(failure["error"])))
            failures.sort(key=lambda f: f[0])
        return results, headers, failures

    def _to_connect(
        self, topic: str, items: Sequence[SourceRecord]
    ) -> tuple[list[SchemaAndValue | None], dict[int, Headers], Failures]:
        """``items`` (records whose values are the bytes) to Connect data, in one host call:
        per item the result (None where it failed), the headers Java left, and the failures."""
        results: list[SchemaAndValue | None] = [None] * len(items)
        headers: dict[int, Headers] = {}
        failures: Failures = []
        answer = self._java_host().call(
            "to_connect",
            {
                "handle": self._running(),
                "topic": topic,
                "batch": _b64(self._encoder.encode(items, source=True)),
            },
        )
        for seq, made in self._decoder.decode(answer.get("batch") or b""):
            results[seq] = SchemaAndValue(made.value_schema, made.value)
            if made._headers is not None:
                headers[seq] = made._headers
        for failure in answer.get("failures") or []:
            failures.append((int(failure["index"]), plugin_error(failure["error"])))
        failures.sort(key=lambda f: f[0])
        return results, headers, failures


class JavaConverter(_JavaCodec, Converter):
    """A Java key or value converter in the plugin host; see the module docstring."""

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self._start("converter_start", configs, is_key=bool(is_key))

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        sent = _kafka_headers(headers)
        item = _item(topic, schema, value, sent)
        results, after, failures = self._from_connect(topic, [item])
        if failures:
            raise failures[0][1]
        if headers is not None and 0 in after:
            _sync(headers, sent, after[0])
        return results[0]

    def from_connect_batch(
        self, topic: str, items: Sequence[tuple[Schema | None, Any]]
    ) -> list[bytes | None]:
        if not items:
            return []
        results, _, failures = self._from_connect(
            topic, [_item(topic, schema, value) for schema, value in items]
        )
        if failures:
            raise ItemConversionFailures(list(results), failures)
        return results

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        sent = _kafka_headers(headers)
        results, after, failures = self._to_connect(topic, [_item(topic, _BYTES, value, sent)])
        if failures:
            raise failures[0][1]
        if headers is not None and (sent or 0 in after):
            # an empty list of headers comes back as none at all
            _sync(headers, sent, [(h.key, h.value) for h in after.get(0, ())])
        return _result(results[0])

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        if not values:
            return []
        results, _, failures = self._to_connect(
            topic, [_item(topic, _BYTES, value) for value in values]
        )
        if failures:
            raise ItemConversionFailures(list(results), failures)
        return [_result(r) for r in results]


class JavaHeaderConverter(_JavaCodec, HeaderConverter):
    """A Java header converter in the plugin host; see the module docstring. Each call is a
    one-header batch (the worker converts a record's headers one by one)."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._start("header_converter_start", configs)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        results, _, failures = self._from_connect(
            topic, [_item(topic, schema, value, key=header_key)]
        )
        if failures:
            raise failures[0][1]
        return results[0]

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        results, _, failures = self._to_connect(
            topic, [_item(topic, _BYTES, value, key=header_key)]
        )
        if failures:
            raise failures[0][1]
        return _result(results[0])


def _item(
    topic: str,
    schema: Schema | None,
    value: Any,
    headers: list[tuple[str, bytes | None]] | None = None,
    key: str | None = None,
) -> SourceRecord:
    """An item as the record the protocol carries it in: its schema and value are the record's
    value, a header converter's header key is the record's key, Kafka headers are BYTES."""
    connect = None
    if headers:
        connect = Headers()
        for name, raw in headers:
            connect.add(name, raw, _BYTES)
    return SourceRecord(None, None, topic, None, None, key, schema, value, None, connect)


def _kafka_headers(headers: Headers | None) -> list[tuple[str, bytes | None]]:
    """The headers of ``headers`` that a record's Kafka headers can hold: bytes or None."""
    if not headers:
        return []
    return [
        (h.key, None if h.value is None else bytes(h.value))
        for h in headers
        if h.value is None or isinstance(h.value, bytes | bytearray | memoryview)
    ]


def _sync(
    headers: Headers, sent: list[tuple[str, bytes | None]], after: list[tuple[str, Any]]
) -> None:
    """What the Java converter left of the Kafka headers ``sent``, in ``headers``."""
    if after == sent:
        return
    kept = [
        h
        for h in headers
        if not (h.value is None or isinstance(h.value, bytes | bytearray | memoryview))
    ]
    headers.clear()
    for h in kept:
        headers.add_header(h)
    for name, raw in after:
        headers.add_header(Header(name, _BYTES, raw))


def _result(result: SchemaAndValue | None) -> SchemaAndValue:
    # Java's converters answer SchemaAndValue.NULL for null input; a null answer becomes it too
    return result if result is not None else SchemaAndValue.NULL


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
