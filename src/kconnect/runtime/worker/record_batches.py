"""The native record path of the task loops: batches that stay in compiled memory.

On the native hot path, when the key and value converters have a native form
(:class:`kconnect._hot_path.NativeConverterProvider`), a consumed batch becomes one
``kconnect_native.RecordBatch`` (:func:`sink_batch`): keys and values are decoded straight
into the native record model, and only what the native forms hand back -- a record they
cannot convert, headers -- goes through the plugins' Python methods, record by record,
through the retry / tolerance operator as on the pure-Python path (a failure the tolerance
allows drops the record; its offset still counts as consumed).

The batch then runs through the transformation chain and reaches the sink task as a
``Sequence[SinkRecord]``: Python code reading a record gets the same ``SinkRecord`` the
pure-Python path would have built (made when first read), and in-tree sinks that know the
native batch (FileStreamSink) use it without making Python records at all.

Task thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from kconnect._hot_path import native, native_converter
from kconnect.api.converter import HeaderConverter
from kconnect.api.headers import Header, Headers
from kconnect.api.records import ConnectRecord, SinkRecord, SourceRecord
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.record_conversion import raw_headers
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationStage
from kconnect.runtime.worker.worker_task import TaskPlugins

if TYPE_CHECKING:
    from kconnect._hot_path import NativeRecordBatch, ProducerEntry

__all__ = [
    "connect_headers",
    "convert_headers",
    "native_forms",
    "sink_batch",
    "source_entries",
    "transform_native",
]


def native_forms(plugins: TaskPlugins) -> tuple[Any, Any, Any] | None:
    """The native forms of the key, value and header converters, or None when the key or
    value converter has none (or the native path is off); the header converter's may be
    None (its records' headers then take the Python path)."""
    if native is None:
        return None
    key_form = native_converter(plugins.key_converter)
    value_form = native_converter(plugins.value_converter)
    if key_form is None or value_form is None:
        return None
    header_form = native_converter(plugins.header_converter)
    if header_form is key_form or header_form is value_form:
        header_form = None
    return key_form, value_form, header_form


def sink_batch(
    msgs: list[Any],
    forms: tuple[Any, Any, Any],
    plugins: TaskPlugins,
    operator: RetryWithToleranceOperator,
    contexts: Callable[[int], ProcessingContext],
    fallbacks: Callable[[int], None],
) -> NativeRecordBatch[SinkRecord] | None:
    """A ``RecordBatch`` of the consumed ``msgs`` (SinkRecords with converted keys, values and
    headers, not transformed), or None when the messages are not of a kind the native batch
    reads (the Python path then converts them). ``fallbacks(n)`` is told how many records the
    native forms handed to the Python converters.

    Raises what the operator raises for a failure the tolerance does not allow.
    """
    # (batch, indexes of the records whose key / value / headers the Python converters do)
    got: tuple[NativeRecordBatch[SinkRecord], list[int], list[int], list[int]] | None
    got = native.RecordBatch.from_messages(msgs, *forms)
    if got is None:
        return None
    batch, redo_keys, redo_values, with_headers = got
    fallbacks(len(set(redo_keys).union(redo_values, with_headers)))
    kc, vc, hc = plugins.key_converter, plugins.value_converter, plugins.header_converter
    for i in redo_keys:
        m = msgs[i]
        ctx = contexts(i)
        res = operator.execute(
            ctx,
            partial(kc.to_connect_data, m.topic(), m.key(), raw_headers(m)),
            Stage.KEY_CONVERTER,
            kc,
        )
        if ctx.failed or res is None:
            batch.drop(i)
        else:
            batch.set_key(i, res.schema, res.value)
    for i in redo_values:
        ctx = contexts(i)
        if ctx.failed:
            continue  # its key failed: Kafka stops at the first failing stage
        m = msgs[i]
        res = operator.execute(
            ctx,
            partial(vc.to_connect_data, m.topic(), m.value(), raw_headers(m)),
            Stage.VALUE_CONVERTER,
            vc,
        )
        if ctx.failed or res is None:
            batch.drop(i)
        else:
            batch.set_value(i, res.schema, res.value)
    for i in with_headers:
        ctx = contexts(i)
        if ctx.failed:
            continue
        m = msgs[i]
        headers = operator.execute(
            ctx,
            partial(connect_headers, hc, m.topic(), m.headers()),
            Stage.HEADER_CONVERTER,
            hc,
        )
        if ctx.failed or headers is None:
            batch.drop(i)
        else:
            batch.set_headers(i, headers)
    return batch


def source_entries(
    records: list[SourceRecord],
    forms: tuple[Any, Any, Any],
    plugins: TaskPlugins,
    operator: RetryWithToleranceOperator,
    contexts: Callable[[int], ProcessingContext],
    fallbacks: Callable[[int], None],
) -> list[ProducerEntry | None]:
    """What the producer sends for the records a source task polled: per record ``(topic,
    partition, key, value, timestamp, headers)`` (bytes, and a list of ``(name, bytes)``), or
    None for a record a transformation dropped or a tolerated failure left out.

    The records go into a native batch, through the chain natively, and are encoded by the
    converters' native forms; a record those hand back is converted by the plugins' Python
    methods through the operator (headers, then key, then value, as Kafka does). Raises what
    the operator raises for a failure the tolerance does not allow. ``fallbacks(n)`` is told
    how many records a native form handed to Python code.
    """
    batch: NativeRecordBatch[SourceRecord] = native.RecordBatch.from_records(records)
    chain = plugins.chain
    if chain is not None:
        transform_native(chain, batch, operator, contexts, fallbacks)
    entries, redo = batch.encode(*forms)
    fallbacks(len(redo))
    kc, vc, hc = plugins.key_converter, plugins.value_converter, plugins.header_converter
    for i in redo:
        r = batch.take(i)
        assert r is not None  # a record handed back is live
        ctx = contexts(i)
        topic = r.topic
        headers = None
        if r._headers:
            headers = operator.execute(
                ctx, partial(convert_headers, hc, r), Stage.HEADER_CONVERTER, hc
            )
            if ctx.failed:
                continue
        key = operator.execute(
            ctx, partial(kc.from_connect_data, topic, r.key_schema, r.key), Stage.KEY_CONVERTER, kc
        )
        if ctx.failed:
            continue
        value = operator.execute(
            ctx,
            partial(vc.from_connect_data, topic, r.value_schema, r.value),
            Stage.VALUE_CONVERTER,
            vc,
        )
        if ctx.failed:
            continue
        entries[i] = (topic, r.kafka_partition, key, value, r.timestamp, headers)
    return entries


def transform_native(
    chain: TransformationChain,
    batch: NativeRecordBatch[ConnectRecord],
    operator: RetryWithToleranceOperator,
    contexts: Callable[[int], ProcessingContext],
    fallbacks: Callable[[int], None] | None = None,
) -> None:
    """Run ``chain`` over ``batch`` in place, stage by stage.

    A stage with a native form runs natively over every record it can; the records it hands
    back (untouched) go to the stage's Python code one by one, as
    :func:`~kconnect.runtime.worker.record_conversion.transform_batch` runs them: a stage that
    raises hands the record, as the stage received it, to the operator (retry, tolerate -- the
    record is dropped -- or fail the task). Consecutive stages without a native form (Python
    SMTs, Java SMTs in the plugin host) run over the live records as the chain's
    :meth:`~kconnect.runtime.worker.transformation_chain.TransformationChain.apply_range`
    does, with the same failure handling -- so Java stages get the batch in one host call.
    ``contexts(i)`` is the processing context of the record at batch index ``i``;
    ``fallbacks(n)`` is told how many records each native stage handed to its Python twin.
    """
    stages, steps = chain.stages, chain.native_steps()
    k = 0
    while k < len(stages):
        stage, step = stages[k], steps[k]
        if step is None:
            end = k + 1
            while end < len(stages) and steps[end] is None:
                end += 1
            live = batch.live_indexes()
            if live:
                records = [batch.take(i) for i in live]
                outs = chain.apply_range(records, k, end, _recover(operator, contexts, live))
                for i, out in zip(live, outs, strict=True):
                    batch.put(i, out)
            k = end
            continue
        redo = batch.apply_step(step)
        if fallbacks is not None:
            fallbacks(len(redo))
        for i in redo:
            record = batch.take(i)
            try:
                out = stage.apply(record)
            except Exception as e:
                out = operator.execute(
                    contexts(i),
                    partial(stage.apply, record),
                    Stage.TRANSFORMATION,
                    stage.class_name,
                    first_error=e,
                )
            batch.put(i, out)
        k += 1


def _recover(
    operator: RetryWithToleranceOperator,
    contexts: Callable[[int], ProcessingContext],
    indexes: list[int],
) -> Callable[[int, TransformationStage, Any, Exception], Any]:
    """The chain's ``on_error`` for the records at batch ``indexes``: the operator retries,
    tolerates (None: dropped) or fails the task, as for any stage."""

    def recover(j: int, stage: TransformationStage, record: Any, error: Exception) -> Any:
        return operator.execute(
            contexts(indexes[j]),
            partial(stage.apply, record),
            Stage.TRANSFORMATION,
            stage.class_name,
            first_error=error,
        )

    return recover


def connect_headers(
    hc: HeaderConverter, topic: str, raw: list[tuple[str, bytes | None]]
) -> Headers:
    """A consumed record's headers as Connect headers, through the header converter."""
    out = Headers()
    for key, value in raw:
        sv = hc.to_connect_header(topic, key, value)
        out.add_header(Header(key, sv.schema, sv.value))
    return out


def convert_headers(hc: HeaderConverter, record: Any) -> list[tuple[str, bytes | None]]:
    """A record's Connect headers as the producer's ``(name, bytes)`` pairs."""
    topic = record.topic
    return [
        (h.key, hc.from_connect_header(topic, h.key, h.schema, h.value)) for h in record.headers
    ]
