"""Batch conversion steps shared by the source and sink loops, with per-record fallback.

Fast path: one ``*_batch`` converter call per topic for the whole batch. Only when that raises
does the batch go through the per-record path, where each record runs through the retry /
tolerance operator on its own (so a bad record is retried, skipped or fails the task, and the
good ones around it are kept).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from kconnect.runtime.worker.errors.retry_operator import (
    ProcessingContext,
    RetryWithToleranceOperator,
)
from kconnect.runtime.worker.errors.stage import Stage

__all__ = ["SKIP", "by_topic", "convert_column"]


class _Skip:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Any = _Skip()
"""Marker for a record that failed a step and was tolerated (errors.tolerance=all)."""


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
) -> list[Any]:
    """Convert ``inputs[i]`` for every index in ``groups``; returns ``out``.

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
        except Exception:
            for i in idxs:
                ctx = contexts(i)
                value = inputs[i]
                res = operator.execute(ctx, partial(one_fn, topic, value), stage, executing)
                out[i] = SKIP if ctx.failed else res
            continue
        if whole:
            return results if results.__class__ is list else list(results)
        for i, r in zip(idxs, results, strict=True):
            out[i] = r
    return out
