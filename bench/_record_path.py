"""The kconnect side of the per-stage benches (``converters.py``, ``smt.py``): every call into
kconnect that they time goes through this module, and nothing else does.

Each step runs the code a worker's task loop runs on the same records:

* on the native hot path (converters with a native form), the native record path of
  :mod:`kconnect.runtime.worker.record_batches`: consumed messages become one
  ``kconnect_native.RecordBatch`` (``sink_batch``), the chain runs over it stage by stage
  (``transform_native``: each stage's native form, its Python code for what that hands back),
  FileStreamSink renders it (``RecordBatch.render_values``) and the producer's bytes come from
  ``RecordBatch.encode`` (the converters' Python methods for what the native forms hand back);
* otherwise the pure-Python path: ``Converter.to_connect_batch`` / ``from_connect_batch``,
  ``SinkRecord``, ``TransformationChain.apply_batch`` and FileStreamSink's ``_text``.

A step's output carries ``python``: how many of its records went through kconnect's Python
code (``fallbacks`` reads it) -- on the native path the records a native form handed back (what
the worker counts in ``kconnect_task_python_fallback_total``), on the pure-Python path all of
them.

A chain mutates a native batch in place: :func:`fresh` gives the copy a step runs on, made
before the timed span as Java's steps get records they do not change.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from confluent_kafka import TIMESTAMP_CREATE_TIME, Message

from kconnect._hot_path import describe as hot_path
from kconnect.api import Converter, Schema, SinkRecord, TimestampType
from kconnect.api.data.java_strings import string_value_of
from kconnect.connectors.file.sink_task import _text
from kconnect.runtime.common.gc_tuning import tune_for_worker
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.record_batches import native_forms, sink_batch, transform_native
from kconnect.runtime.worker.transformation_chain import TransformationChain
from kconnect.runtime.worker.worker_task import TaskPlugins

__all__ = [
    "Batch",
    "Converters",
    "Encoded",
    "Rendered",
    "chain",
    "converters",
    "decode",
    "describe",
    "dump_encoded",
    "encode",
    "fallbacks",
    "fresh",
    "hot_path",
    "messages",
    "render",
    "rendered_lines",
    "transform",
    "tune_for_worker",
]

_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"


@dataclass
class Batch:
    """Records between steps: a ``kconnect_native.RecordBatch`` on the native path, else a
    list of SinkRecords (None where a transformation dropped one)."""

    records: Any
    python: int = 0


@dataclass
class Encoded:
    """``keys`` and ``values`` a step serialized."""

    keys: list[bytes | None]
    values: list[bytes | None]
    python: int = 0


@dataclass
class Rendered:
    """What FileStreamSink writes for a batch: one line per record, UTF-8."""

    data: bytes
    python: int = 0


@dataclass(frozen=True)
class Converters:
    """A task's converters, and their native forms when they all have one (the native path)."""

    plugins: TaskPlugins
    forms: tuple[Any, Any, Any] | None

    @property
    def key(self) -> Converter:
        return self.plugins.key_converter

    @property
    def value(self) -> Converter:
        return self.plugins.value_converter


@cache
def _plugins() -> Plugins:
    return Plugins.load()


def converters(
    key: tuple[str, Mapping[str, str]], value: tuple[str, Mapping[str, str]]
) -> Converters:
    """Configured key and value converters (``(class name, config)``, found as a worker finds
    them) and the worker's default header converter."""
    p = _plugins()
    plugins = TaskPlugins(
        key_converter=p.new_converter(key[0], dict(key[1]), True),
        value_converter=p.new_converter(value[0], dict(value[1]), False),
        header_converter=p.new_header_converter(_HEADER_CONVERTER, {}),
    )
    return Converters(plugins, native_forms(plugins))


def chain(props: Mapping[str, str]) -> TransformationChain:
    """The transformation chain of a connector configuration."""
    return TransformationChain.from_config(props, _plugins())


def messages(
    topic: str,
    keys: Sequence[bytes | None],
    values: Sequence[bytes | None],
    timestamps: Sequence[int],
    first_offset: int,
) -> list[Any]:
    """The consumer's messages of these records (partition = offset % 2, CREATE_TIME)."""
    return [
        Message(topic=topic, partition=(first_offset + i) % 2, offset=first_offset + i,
                key=k, value=v, timestamp=(TIMESTAMP_CREATE_TIME, t))
        for i, (k, v, t) in enumerate(zip(keys, values, timestamps, strict=True))
    ]  # fmt: skip


# one operator, failing on the first error (the benches' records all convert), and a
# context per record only when the operator needs one
_OPERATOR = RetryWithToleranceOperator()


def _context(_i: int) -> ProcessingContext:
    return ProcessingContext()


class _Count:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, n: int) -> None:
        self.n += n


def decode(conv: Converters, msgs: list[Any]) -> Batch:
    """Consumed messages -> SinkRecords, as a sink task's loop converts them."""
    if conv.forms is not None:
        count = _Count()
        batch = sink_batch(msgs, conv.forms, conv.plugins, _OPERATOR, _context, count)
        if batch is not None:
            return Batch(batch, count.n)
    topic = msgs[0].topic() if msgs else ""
    ks = conv.key.to_connect_batch(topic, [m.key() for m in msgs])
    vs = conv.value.to_connect_batch(topic, [m.value() for m in msgs])
    out = [
        SinkRecord(m.topic(), m.partition(), k.schema, k.value, v.schema, v.value,
                   m.offset(), m.timestamp()[1], TimestampType.CREATE_TIME)
        for m, k, v in zip(msgs, ks, vs, strict=True)
    ]  # fmt: skip
    return Batch(out, len(out))


def fresh(batch: Batch) -> Batch:
    """A batch a chain may change (a copy of a native batch; a list's records are not
    changed by the chain)."""
    if isinstance(batch.records, list):
        return batch
    return Batch(batch.records.copy(), batch.python)


def encode(conv: Converters, topic: str, batch: Batch) -> Encoded:
    """Records -> the bytes a producer sends, keys and values."""
    records = batch.records
    if conv.forms is not None and not isinstance(records, list):
        entries, redo = records.encode(*conv.forms)
        for i in redo:
            r = records.take(i)
            entries[i] = (
                None,
                None,
                conv.key.from_connect_data(topic, r.key_schema, r.key),
                conv.value.from_connect_data(topic, r.value_schema, r.value),
            )
        live = [e for e in entries if e is not None]
        return Encoded([e[2] for e in live], [e[3] for e in live], len(redo))
    live = [r for r in records if r is not None]
    return Encoded(
        conv.key.from_connect_batch(topic, [(r.key_schema, r.key) for r in live]),
        conv.value.from_connect_batch(topic, [(r.value_schema, r.value) for r in live]),
        len(live),
    )


def transform(chain: TransformationChain, batch: Batch) -> Batch:
    """The chain over a batch, as the task loops run it (in place on a native batch: give it
    a :func:`fresh` one)."""
    records = batch.records
    if isinstance(records, list):
        return Batch(chain.apply_batch(records), 0 if chain.is_empty() else len(records))
    count = _Count()
    transform_native(chain, records, _OPERATOR, _context, count)
    return Batch(records, count.n)


def render(batch: Batch) -> Rendered:
    """Each record's value as FileStreamSink writes it (``String.valueOf``), one per line."""
    records = batch.records
    if isinstance(records, list):
        live = [r for r in records if r is not None]
        return Rendered("".join(_text(r) + "\n" for r in live).encode("utf-8"), len(live))
    count = _Count()

    def fallback(record: SinkRecord) -> str:
        count(1)
        return _text(record)

    return Rendered(records.render_values(fallback), count.n)


def rendered_lines(rendered: Rendered) -> list[str]:
    return rendered.data.decode("utf-8").split("\n")[:-1]


def fallbacks(output: Batch | Encoded | Rendered) -> int:
    """How many records of a step's output took kconnect's Python code."""
    return output.python


# -- what a step produced, as text (the same as bench/java/RecordBench.java writes) ----------


def describe(batch: Batch) -> list[str]:
    """Per record: topic, partition, timestamp, key schema, key, value schema, value, headers
    (tab-separated; schemas in full, values as Java's ``String.valueOf``); "null" if dropped."""
    records = batch.records
    if isinstance(records, list):
        return [_record_text(r) for r in records]
    return [_record_text(records.take(i)) for i in range(records.size)]  # None: dropped


def dump_encoded(encoded: Encoded) -> list[str]:
    """Per record: base64 of the key and of the value ("null" for None), tab-separated."""
    return [f"{_b64(k)}\t{_b64(v)}" for k, v in zip(encoded.keys, encoded.values, strict=True)]


def _b64(b: bytes | None) -> str:
    return "null" if b is None else base64.b64encode(b).decode("ascii")


def _record_text(r: Any) -> str:
    if r is None:
        return "null"
    headers = ", ".join(
        f"{h.key}:{_schema_text(h.schema)}={string_value_of(h.value, h.schema)}" for h in r.headers
    )
    return "\t".join(
        (
            r.topic,
            string_value_of(r.kafka_partition),
            string_value_of(r.timestamp),
            _schema_text(r.key_schema),
            string_value_of(r.key, r.key_schema),
            _schema_text(r.value_schema),
            string_value_of(r.value, r.value_schema),
            f"[{headers}]",
        )
    )


def _schema_text(s: Schema | None) -> str:
    """Type, name, version, optional (?), parameters, default and parts, as RecordBench.schema."""
    if s is None:
        return "null"
    out = s.type.name
    if s.name is not None:
        out += f"<{s.name}>"
    if s.version is not None:
        out += f"v{s.version}"
    if s.optional:
        out += "?"
    if s.parameters:
        out += "{" + ", ".join(f"{k}={v}" for k, v in s.parameters.items()) + "}"
    if s.default_value is not None:
        out += "=" + string_value_of(s.default_value, s)
    if s.type.name == "STRUCT":
        out += "{" + ",".join(f"{f.name}:{_schema_text(f.schema)}" for f in s.fields) + "}"
    elif s.type.name == "ARRAY":
        out += f"[{_schema_text(s.value_schema)}]"
    elif s.type.name == "MAP":
        out += "{" + f"{_schema_text(s.key_schema)}=>{_schema_text(s.value_schema)}" + "}"
    return out
