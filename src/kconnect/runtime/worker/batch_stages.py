"""Chain stages whose plugins take a whole batch at once (Java SMTs and predicates).

Some transformations and predicates run outside this process -- the Java ones from
``plugin.path``, in the plugin host -- where a call costs a round trip, so the chain hands them a
batch at a time rather than a record. The runtime knows them only by these protocols (it may not
import the plugin host, nor any plugin):

- :class:`BatchTransformation` -- ``apply_run(records, stages, first)`` applies a *run* of
  consecutive stages to a batch in one call; stages whose plugins give the same ``run_group()``
  may form a run;
- :class:`BatchPredicate` -- ``test_batch(records)`` tests a batch in one call.

:func:`plan` cuts a chain into segments -- plain Python stages, runs, and single stages whose
predicate and transformation sit on different sides -- and :func:`apply_segments` runs a batch
through them, segment after segment, with the chain's failure semantics: a stage that fails on a
record hands the record, as that stage received it, to ``handle(i, stage, record, error)``,
whose result (None drops the record) goes on from the next stage. Task thread only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kconnect.runtime.worker.transformation_chain import TransformationStage

__all__ = ["BatchPredicate", "BatchTransformation", "Segment", "apply_segments", "plan"]

#: ``(index in the batch, failing stage, the record it received, error) -> replacement or None``;
#: raises to stop the batch.
FailureHandler = Callable[[int, "TransformationStage", Any, Exception], Any]
_Live = list[tuple[int, Any]]


@runtime_checkable
class BatchTransformation(Protocol):
    """A transformation that applies runs of stages to whole batches (the Java plugin host's)."""

    def run_group(self) -> object:
        """Stages whose transformations (and predicates) give the same object may run as one."""

    def apply_run(
        self,
        records: Sequence[Any],
        stages: Sequence[tuple[object, object | None, bool]],
        first: int,
    ) -> tuple[list[Any], list[tuple[int, int, Exception]]]:
        """``records`` through ``stages[first:]`` (``(transformation, predicate or None,
        negate)`` each; this transformation is ``stages[0]``'s), in one call: per record the
        result (None: dropped) and the failures ``(index, stage index, error)``, the result
        then being the record as that stage received it. Raises what fails the whole batch."""


@runtime_checkable
class BatchPredicate(Protocol):
    """A predicate that tests whole batches (the Java plugin host's)."""

    def run_group(self) -> object:
        """As :meth:`BatchTransformation.run_group`."""

    def test_batch(
        self, records: Sequence[Any]
    ) -> tuple[list[bool | None], list[tuple[int, Exception]]]:
        """Each record's test, and the failures ``(index, error)`` (their result is None)."""


class Kind(enum.Enum):
    PYTHON = "python"  # in-process stages, record by record
    RUN = "run"  # batch transformations (with batch predicates or none): one call per batch
    SPLIT = "split"  # one stage whose predicate and transformation are on different sides


#: ``(kind, first stage, end)``: stages ``[first, end)`` of the chain.
Segment = tuple[Kind, int, int]


def plan(stages: Sequence[TransformationStage]) -> list[Segment] | None:
    """The segments of ``stages``; None when no stage takes batches (the plain loop runs)."""
    segments: list[Segment] = []
    i, n = 0, len(stages)
    while i < n:
        group = _run_group(stages[i])
        if group is not None:
            j = i + 1
            while j < n and _run_group(stages[j]) is group:
                j += 1
            segments.append((Kind.RUN, i, j))
        elif _batched(stages[i]):
            j = i + 1
            segments.append((Kind.SPLIT, i, j))
        else:
            j = i + 1
            while j < n and not _batched(stages[j]):
                j += 1
            segments.append((Kind.PYTHON, i, j))
        i = j
    return None if all(kind is Kind.PYTHON for kind, _, _ in segments) else segments


def _batched(stage: TransformationStage) -> bool:
    return isinstance(stage.transformation, BatchTransformation) or isinstance(
        stage.predicate, BatchPredicate
    )


def _run_group(stage: TransformationStage) -> object | None:
    """The group of a stage that can be part of a run: a batch transformation with no
    predicate or a batch predicate of the same group."""
    transformation, predicate = stage.transformation, stage.predicate
    if not isinstance(transformation, BatchTransformation):
        return None
    group = transformation.run_group()
    if predicate is None:
        return group
    if isinstance(predicate, BatchPredicate) and predicate.run_group() is group:
        return group
    return None


def apply_segments(
    stages: Sequence[TransformationStage],
    segments: Sequence[Segment],
    records: Sequence[Any],
    handle: FailureHandler,
) -> list[Any]:
    """``records`` through the segments; aligned with ``records``, None where dropped."""
    live: _Live = list(enumerate(records))
    for kind, lo, hi in segments:
        if not live:
            break
        if kind is Kind.PYTHON:
            live = _python(stages[lo:hi], live, handle)
        elif kind is Kind.RUN:
            live = _run(stages[lo:hi], live, handle)
        else:
            live = _split(stages[lo], live, handle)
    out: list[Any] = [None] * len(records)
    for i, record in live:
        out[i] = record
    return out


def _python(stages: Sequence[TransformationStage], live: _Live, handle: FailureHandler) -> _Live:
    out: _Live = []
    for i, record in live:
        for stage in stages:
            try:
                predicate = stage.predicate
                if predicate is None or bool(predicate.test(record)) != stage.negate:
                    record = stage.transformation.apply(record)
            except Exception as e:
                record = handle(i, stage, record, e)
            if record is None:
                break
        if record is not None:
            out.append((i, record))
    return out


def _run(stages: Sequence[TransformationStage], live: _Live, handle: FailureHandler) -> _Live:
    """One host call for the batch; a record handed to ``handle`` goes on from the next stage
    of the run in a further call (with the others that failed at the same stage)."""
    first = stages[0].transformation
    assert isinstance(first, BatchTransformation)
    spec = [(s.transformation, s.predicate, s.negate) for s in stages]
    done: dict[int, Any] = {}
    pending: dict[int, _Live] = {0: live}
    for start in range(len(stages)):
        todo = pending.pop(start, None)
        if not todo:
            continue
        todo.sort(key=itemgetter(0))
        results, failures = first.apply_run([r for _, r in todo], spec, start)
        failed = {k: (j, e) for k, j, e in failures}
        for k, (i, _) in enumerate(todo):
            record = results[k]
            hit = failed.get(k)
            if hit is not None:
                j, error = hit
                record = handle(i, stages[j], record, error)
                if record is not None and j + 1 < len(stages):
                    pending.setdefault(j + 1, []).append((i, record))
                    continue
            if record is not None:
                done[i] = record
    return sorted(done.items(), key=itemgetter(0))


def _split(stage: TransformationStage, live: _Live, handle: FailureHandler) -> _Live:
    """A stage whose predicate and transformation run on different sides: the predicate over
    the batch, then the transformation over the records it selects (each a batch at a time
    where it can)."""
    records = [r for _, r in live]
    predicate, transformation = stage.predicate, stage.transformation
    failed: dict[int, Exception] = {}
    tests: list[bool | None]
    if isinstance(predicate, BatchPredicate):
        tests, failures = predicate.test_batch(records)
        failed.update(failures)
    else:
        assert predicate is not None
        tests = []
        for k, record in enumerate(records):
            try:
                tests.append(bool(predicate.test(record)))
            except Exception as e:
                tests.append(None)
                failed[k] = e
    chosen = [k for k, t in enumerate(tests) if k not in failed and bool(t) != stage.negate]
    results: list[Any] = list(records)
    if isinstance(transformation, BatchTransformation):
        if chosen:
            made, run_failures = transformation.apply_run(
                [records[k] for k in chosen], [(transformation, None, False)], 0
            )
            for m, k in enumerate(chosen):
                results[k] = made[m]
            for m, _, run_error in run_failures:
                failed[chosen[m]] = run_error
    else:
        for k in chosen:
            try:
                results[k] = transformation.apply(records[k])
            except Exception as e:
                failed[k] = e
    out: _Live = []
    for k, (i, record) in enumerate(live):
        error = failed.get(k)
        result = handle(i, stage, record, error) if error is not None else results[k]
        if result is not None:
            out.append((i, result))
    return out
