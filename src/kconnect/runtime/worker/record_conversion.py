"""Batch steps shared by the source and sink loops: conversion and transformation.

Conversion (:func:`convert_column`): one ``*_batch`` converter call per topic for the whole
batch. Only when that raises does the batch go through the per-record path, where each record
runs through the retry / tolerance operator on its own (so a bad record is retried, skipped or
fails the task, and the good ones around it are kept). A batch call may instead raise an
exception that says which items failed (``results``, aligned with the batch, and
``item_failures``, ``(index, error)`` pairs: the Java plugin host's converters do): the other
items' results are kept, and only the failed items go to the operator, their error counting as
the first attempt -- no second pass over the batch.

Transformation (:func:`transform_batch`): the chain runs over the batch in one pass; a stage
that raises on a record hands that record, as the stage received it, to the operator, which
retries it (RetriableException), skips it (``errors.tolerance=all``) or fails the task. No
record and no stage is transformed twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from kconnect.api import Headers
from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage
from kconnect.runtime.worker.transformation_chain import TransformationChain, TransformationStage

__all__ = ["SKIP", "by_topic", "convert_column", "raw_headers", "transform_batch"]


class _Skip:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Any = _Skip()
"""Marker for a record that failed a step and was tolerated (errors.tolerance=all)."""


def raw_headers(msg: Any) -> Headers | None:
    """A consumed message's headers as the key and value converters get them (Java passes the
    record's Kafka headers to ``toConnectData``): each value its raw bytes; None when the
    message has none (the usual case costs one call)."""
    raw = msg.headers()
    if not raw:
        return None
    headers = Headers()
    for key, value in raw:
        headers.add_bytes(key, value) if value is not None else headers.add(key, None)
    return headers


def by_topic(topics: Sequence[str], live: Sequence[int]) -> dict[str, list[int]]:
    """Indexes of ``live`` grouped by their topic, in first-seen order."""
    if live and len(live) == len(topics):
        # Usual case: every record is live and the batch holds one topic (checked in C).
        first = topics[live[0]]
        if topics.count(first) == len(topics):
            return {first: list(live)}
    groups: dict[str, list[int]] = {}
    for i in live:
        t = topics[i]
        g = groups.get(t)
        if g is None:
            groups[t] = [i]
        else:
            g.append(i)
    return groups


def convert_column(
    operator: RetryWithToleranceOperator,
    contexts: Callable[[int], ProcessingContext],
    groups: dict[str, list[int]],
    inputs: list[Any],
    batch_fn: Callable[[str, list[Any]], list[Any]],
    one_fn: Callable[[str, Any], Any],
    stage: Stage,
    executing: object,
    out: list[Any],
    headers_of: Callable[[int], Headers | None] | None = None,
) -> list[Any]:
    """Convert ``inputs[i]`` for every index in ``groups``; returns ``out``.

    ``headers_of(i)``: the record's headers, given to ``one_fn`` as a third argument on the
    per-record path when not None (a converter reading a schema id from a header, as
    Confluent 8 writes it, cannot convert the record in the batch call).

    ``inputs`` is the whole batch's column (one entry per record, aligned with ``out``).
    A tolerated failure leaves :data:`SKIP` in ``out[i]``. When one group covers the whole
    batch (the usual case), the batch function's result list itself is returned instead of
    copying it into ``out``.
    """
    n = len(inputs)
    for topic, idxs in groups.items():
        whole = len(idxs) == n
        try:
            results = batch_fn(topic, inputs if whole else [inputs[i] for i in idxs])
            if len(results) != len(idxs):
                raise ValueError(
                    f"{stage.value} batch returned {len(results)} results for {len(idxs)} records"
                )
        except Exception as e:
            item_failures = getattr(e, "item_failures", None)
            partial_results = getattr(e, "results", None)
            if (
                item_failures is not None
                and partial_results is not None
                and len(partial_results) == len(idxs)
            ):
                failed = dict(item_failures)
                for j, i in enumerate(idxs):
                    error = failed.get(j)
                    if error is None:
                        out[i] = partial_results[j]
                        continue
                    ctx = contexts(i)
                    res = operator.execute(
                        ctx, _one(one_fn, topic, inputs[i], headers_of, i), stage, executing,
                        first_error=error,
                    )  # fmt: skip
                    out[i] = SKIP if ctx.failed else res
                continue
            for i in idxs:
                ctx = contexts(i)
                value = inputs[i]
                res = operator.execute(
                    ctx, _one(one_fn, topic, value, headers_of, i), stage, executing
                )
                out[i] = SKIP if ctx.failed else res
            continue
        if whole:
            return results if results.__class__ is list else list(results)
        for i, r in zip(idxs, results, strict=True):
            out[i] = r
    return out


def _one(
    one_fn: Callable[..., Any],
    topic: str,
    value: Any,
    headers_of: Callable[[int], Headers | None] | None,
    i: int,
) -> Callable[[], Any]:
    headers = headers_of(i) if headers_of is not None else None
    return (
        partial(one_fn, topic, value) if headers is None else partial(one_fn, topic, value, headers)
    )


def transform_batch(
    chain: TransformationChain,
    operator: RetryWithToleranceOperator,
    contexts: Callable[[int], ProcessingContext],
    records: Sequence[Any],
) -> list[Any]:
    """``records`` through the chain, aligned with the input: None where a stage dropped the
    record or a failure was tolerated (``contexts(i).failed`` tells which).

    Raises what the operator raises for a failure the tolerance does not allow.
    """

    def recover(i: int, stage: TransformationStage, record: Any, error: Exception) -> Any:
        return operator.execute(
            contexts(i),
            partial(stage.apply, record),
            Stage.TRANSFORMATION,
            stage.class_name,
            first_error=error,
        )

    return chain.apply_batch(records, recover)
