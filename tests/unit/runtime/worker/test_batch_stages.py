"""The transformation chain with stages that take whole batches (as the Java SMTs do).

The batch stages here are Python objects that meet :mod:`kconnect.runtime.worker.batch_stages`'s
protocols and count their calls; each chain is compared with the same chain of plain Python
stages doing the same thing, record by record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from kconnect.api import ConfigDef, Predicate, SourceRecord, Transformation
from kconnect.runtime.worker.batch_stages import BatchPredicate, BatchTransformation, Kind, plan
from kconnect.runtime.worker.transformation_chain import (
    TransformationChain,
    TransformationError,
    TransformationStage,
)

Fn = Callable[[SourceRecord], SourceRecord | None]


def _value(record: SourceRecord, value: Any) -> SourceRecord:
    return record.new_record(record.topic, None, None, record.key, None, value, None)


def add(n: int) -> Fn:
    def fn(r: SourceRecord) -> SourceRecord:
        if r.value == "boom" or r.value == 100 + n:
            raise ValueError(f"cannot add {n} to {r.value}")
        return _value(r, r.value + n)

    return fn


def drop_odd(r: SourceRecord) -> SourceRecord | None:
    return None if r.value % 2 else r


class PyT(Transformation[SourceRecord]):
    def __init__(self, fn: Fn) -> None:
        self.fn = fn

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return self.fn(record)


class PyP(Predicate[SourceRecord]):
    def __init__(self, fn: Callable[[SourceRecord], bool]) -> None:
        self.fn = fn

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()

    def test(self, record: SourceRecord) -> bool:
        return self.fn(record)


class Host:
    """A stand-in for the plugin host: counts the batch calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []  # (kind, records, first stage)


class BatchT(PyT):
    def __init__(self, fn: Fn, host: Host) -> None:
        super().__init__(fn)
        self.host = host

    def run_group(self) -> object:
        return self.host

    def apply_run(
        self,
        records: Sequence[Any],
        stages: Sequence[tuple[object, object | None, bool]],
        first: int,
    ) -> tuple[list[Any], list[tuple[int, int, Exception]]]:
        assert stages[0][0] is self
        self.host.calls.append(("run", len(records), first))
        results: list[Any] = []
        failures: list[tuple[int, int, Exception]] = []
        for k, record in enumerate(records):
            for j in range(first, len(stages)):
                t, p, negate = stages[j]
                try:
                    if p is None or bool(p.test(record)) != negate:  # type: ignore[attr-defined]
                        record = t.apply(record)  # type: ignore[attr-defined]
                except Exception as e:
                    failures.append((k, j, e))
                    break
                if record is None:
                    break
            results.append(record)
        return results, failures


class BatchP(PyP):
    def __init__(self, fn: Callable[[SourceRecord], bool], host: Host) -> None:
        super().__init__(fn)
        self.host = host

    def run_group(self) -> object:
        return self.host

    def test_batch(
        self, records: Sequence[Any]
    ) -> tuple[list[bool | None], list[tuple[int, Exception]]]:
        self.host.calls.append(("test", len(records), 0))
        results: list[bool | None] = []
        failures: list[tuple[int, Exception]] = []
        for k, record in enumerate(records):
            try:
                results.append(self.fn(record))
            except Exception as e:
                results.append(None)
                failures.append((k, e))
        return results, failures


def is_even(r: SourceRecord) -> bool:
    if r.value == "boom-p":
        raise KeyError("no value to test")
    return r.value % 2 == 0


def records(*values: Any) -> list[SourceRecord]:
    return [
        SourceRecord({"p": 0}, {"o": i}, "t", None, None, None, None, v)
        for i, v in enumerate(values)
    ]


def chain(
    specs: list[tuple[str, Fn, Callable[[SourceRecord], bool] | None, bool, str]], host: Host | None
) -> TransformationChain:
    """``(alias, fn, predicate fn, negate, sides)``: ``sides`` says which of the transformation
    (first letter) and the predicate (second) take batches: ``b``, or ``p`` (plain)."""
    stages = []
    for alias, fn, pfn, negate, sides in specs:
        t: Transformation[Any] = BatchT(fn, host) if host and sides[0] == "b" else PyT(fn)
        p: Predicate[Any] | None = None
        if pfn is not None:
            p = BatchP(pfn, host) if host and sides[1] == "b" else PyP(pfn)
        stages.append(
            TransformationStage(alias, alias.upper(), t, p, negate, "pred" if p else None)
        )
    return TransformationChain(stages)


MIXED = [
    ("a", add(1), None, False, "p-"),
    ("b", add(10), is_even, False, "bb"),
    ("c", drop_odd, is_even, True, "bb"),
    ("d", add(100), None, False, "b-"),
    ("e", add(1000), is_even, False, "pb"),
    ("f", add(3), is_even, False, "bp"),
    ("g", add(7), None, False, "p-"),
]


def test_a_chain_is_cut_into_python_stages_runs_and_split_stages() -> None:
    c = chain(MIXED, Host())
    segments = plan(c.stages)
    assert segments == [
        (Kind.PYTHON, 0, 1),
        (Kind.RUN, 1, 4),
        (Kind.SPLIT, 4, 5),
        (Kind.SPLIT, 5, 6),
        (Kind.PYTHON, 6, 7),
    ]
    assert plan(chain(MIXED, None).stages) is None
    assert isinstance(c.stages[1].transformation, BatchTransformation)
    assert isinstance(c.stages[1].predicate, BatchPredicate)


def test_batch_stages_give_what_the_plain_chain_gives_with_one_call_per_run() -> None:
    host = Host()
    batch = records(*range(20))
    expected = chain(MIXED, None).apply_batch(batch)
    assert chain(MIXED, host).apply_batch(batch) == expected
    assert expected.count(None) > 0 and any(r is not None for r in expected)
    # one run call, one predicate test for "e", one run for "f" over the records it selects
    assert [kind for kind, _, _ in host.calls] == ["run", "test", "run"]
    assert host.calls[0] == ("run", 20, 0)


def test_a_failure_goes_to_on_error_with_its_stage_and_record_and_the_run_goes_on() -> None:
    host = Host()
    batch = records(0, 2, 4, 189, 6)  # 189 + 1 + 10 is 200: stage d (add 100) fails on it
    seen: list[tuple[int, str, Any]] = []

    def on_error(i: int, stage: TransformationStage, record: Any, e: Exception) -> Any:
        seen.append((i, stage.alias, record.value))
        return _value(record, 2)  # goes on from the stage after the failing one

    plain_seen: list[tuple[int, str, Any]] = []

    def plain_on_error(i: int, stage: TransformationStage, record: Any, e: Exception) -> Any:
        plain_seen.append((i, stage.alias, record.value))
        return _value(record, 2)

    got = chain(MIXED, host).apply_batch(batch, on_error)
    assert got == chain(MIXED, None).apply_batch(batch, plain_on_error)
    assert seen == plain_seen == [(3, "d", 200)]
    assert got[3] is not None and got[3].value == 2 + 1000 + 3 + 7
    # d is the run's last stage: the replacement leaves the run (no second call for it)
    assert host.calls[0] == ("run", 5, 0) and host.calls[1][0] == "test"


def test_a_replacement_goes_on_from_the_next_stage_of_the_run() -> None:
    host = Host()
    specs = [("x", add(1), None, False, "b-"), ("y", add(2), None, False, "b-")]
    batch = records(0, 101, 5)  # x (add 1) fails on 101

    def on_error(i: int, stage: TransformationStage, record: Any, e: Exception) -> Any:
        assert (i, stage.alias, record.value) == (1, "x", 101)
        return _value(record, -1)

    got = chain(specs, host).apply_batch(batch, on_error)
    assert [r.value for r in got] == [3, 1, 8]  # -1 went on through y
    assert host.calls == [("run", 3, 0), ("run", 1, 1)]


def test_without_on_error_the_first_failure_names_the_stage() -> None:
    batch = records(0, "boom-p", 4)
    with pytest.raises(TransformationError) as failed:
        chain(MIXED[1:], Host()).apply_batch(batch)
    assert failed.value.stage_alias == "b" and failed.value.class_name == "B"
    assert isinstance(failed.value.cause, KeyError)


def test_a_predicate_failure_in_a_split_stage_goes_to_on_error() -> None:
    host = Host()
    specs = [("s", add(1), is_even, False, "pb")]
    got = chain(specs, host).apply_batch(
        records(2, "boom-p", 3), lambda i, stage, record, e: _value(record, f"{stage.alias}:{i}")
    )
    assert [r.value for r in got] == [3, "s:1", 3]
    assert host.calls == [("test", 3, 0)]


def test_apply_range_runs_some_stages_only() -> None:
    host = Host()
    batch = records(*range(6))
    assert chain(MIXED, host).apply_range(batch, 1, 4) == chain(MIXED, None).apply_range(
        batch, 1, 4
    )
    assert host.calls == [("run", 6, 0)]
