"""The short deallocator ``kconnect_native`` gives records and structs (``native/src/dealloc.rs``):
everything a freed object held is released exactly once, subclasses still run their own
finalizers and lose their ``__dict__``, cycles are still collected, and a class whose layout it
cannot prove plain is refused."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from typing import Any

import pytest

from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SinkRecord, SourceRecord, Struct

if _hot_path.native is None:
    pytest.skip("kconnect_native is not in use", allow_module_level=True)

native = _hot_path.native


class _Held(dict[str, Any]):
    """A value whose release is observable (a mapping, so it can stand for any field)."""


def _watch(freed: list[str], name: str) -> _Held:
    v = _Held()
    weakref.finalize(v, freed.append, name)
    return v


def _schema() -> Schema:
    return SchemaBuilder.struct().name("s").field("a", Schema.OPTIONAL_STRING_SCHEMA).build()


def test_a_freed_record_releases_every_slot_once() -> None:
    freed: list[str] = []
    src = SourceRecord(
        _watch(freed, "partition"),
        _watch(freed, "offset"),
        "t",
        None,
        None,
        _watch(freed, "key"),
        None,
        _watch(freed, "value"),
        timestamp=None,
    )
    sink = SinkRecord("t", 0, None, _watch(freed, "sink key"), None, _watch(freed, "sink value"), 7)
    schema = _schema()
    st = Struct(schema).put("a", "x")
    refs_to_schema = sys.getrefcount(schema)
    del src, sink
    assert sorted(freed) == sorted(
        ["partition", "offset", "key", "value", "sink key", "sink value"]
    )
    del st
    assert sys.getrefcount(schema) == refs_to_schema - 1


def test_freeing_keeps_reference_counts_and_the_heap_flat() -> None:
    """200,000 records and structs made and freed: what they held is released exactly once
    (the test's own key and schema objects are back to their counts), each dropped its class
    reference (the class counts also move with instances other threads of the test process
    hold, so they are checked to within far less than one per object), and the heap is
    flat."""
    schema = _schema()
    key = "".join(["k", "e", "y"])  # a str of its own, referenced only here
    before_own = (sys.getrefcount(schema), sys.getrefcount(key))
    before_types = (sys.getrefcount(SourceRecord), sys.getrefcount(Struct))
    for _ in range(3):  # settle the allocator
        [
            SourceRecord(None, None, "t", None, None, key, schema, Struct(schema))
            for _ in range(10_000)
        ]
    gc.collect()
    blocks = sys.getallocatedblocks()
    for _ in range(20):
        [
            SourceRecord(None, None, "t", None, None, key, schema, Struct(schema))
            for _ in range(10_000)
        ]
    gc.collect()
    assert sys.getallocatedblocks() - blocks < 1_000  # 200,000 records and structs came and went
    assert (sys.getrefcount(schema), sys.getrefcount(key)) == before_own
    after_types = (sys.getrefcount(SourceRecord), sys.getrefcount(Struct))
    assert all(abs(a - b) < 1_000 for a, b in zip(after_types, before_types, strict=True))


def test_records_freed_in_any_order_beside_other_objects_release_what_they_held() -> None:
    """The deallocator reads ahead into the objects next to the one it frees (a guess at the
    next to go, only ever used to prefetch): freeing in allocation order, in reverse, in a
    shuffled order and interleaved with structs and other objects of the same size still
    releases every slot exactly once."""
    import random

    schema = _schema()
    key = "".join(["k", "e", "y", "2"])
    before = (sys.getrefcount(schema), sys.getrefcount(key))
    rng = random.Random(7)
    for order in ("forward", "reverse", "shuffled", "interleaved"):
        batch: list[object] = []
        for i in range(20_000):
            batch.append(SourceRecord(None, {"p": i}, "t", None, None, key, schema, None))
            if order == "interleaved":
                batch.append(Struct(schema).put("a", key))
                batch.append(tuple(range(i % 17)))
        if order == "reverse":
            batch.reverse()
        elif order == "shuffled":
            rng.shuffle(batch)
        while batch:
            batch.pop()
        assert (sys.getrefcount(schema), sys.getrefcount(key)) == before, order


def test_a_subclass_runs_its_finalizer_and_frees_its_dict_and_the_base_slots() -> None:
    freed: list[str] = []

    class Mine(SourceRecord):  # a __dict__, a __weakref__ and a __del__ of its own
        def __del__(self) -> None:
            freed.append("__del__")

    r = Mine(None, None, "t", None, None, _watch(freed, "key"), None, None)
    setattr(r, "extra", _watch(freed, "dict entry"))  # noqa: B010 (not a declared field)
    ref = weakref.ref(r)
    refs_to_class = sys.getrefcount(Mine)
    del r
    assert ref() is None
    assert sorted(freed) == ["__del__", "dict entry", "key"]
    assert sys.getrefcount(Mine) == refs_to_class - 1


def test_a_cycle_through_a_record_is_collected() -> None:
    freed: list[str] = []
    r = SinkRecord("t", 0, None, None, None, None, 1)
    r.value = r
    r.key = _watch(freed, "key")
    del r
    gc.collect()
    assert freed == ["key"]


def test_installing_on_a_class_already_installed_changes_nothing() -> None:
    native.install_dealloc(SourceRecord)
    native.install_dealloc(Struct)
    freed: list[str] = []
    r = SourceRecord(None, None, "t", None, None, _watch(freed, "key"), None, None)
    del r
    assert freed == ["key"]


class _WithDict:
    pass


class _WithWeakref:
    __slots__ = ("__weakref__", "a")


class _WithDel:
    __slots__ = ("a",)

    def __del__(self) -> None:
        pass


class _A:
    __slots__ = ("a",)


class _B:
    __slots__ = ()


class _TwoBases(_A, _B):
    __slots__ = ()


class _FromList(list):  # type: ignore[type-arg]
    __slots__ = ("a",)


@pytest.mark.parametrize(
    ("cls", "why"),
    [
        (_WithDict, "__dict__ or __weakref__"),
        (_WithWeakref, "__dict__ or __weakref__"),
        (_WithDel, "finalizer"),
        (_TwoBases, "more than one base class"),
        (_FromList, "built-in type other than object"),
        (int, "not tracked by the garbage collector"),
        (len, "is not a class"),
    ],
)
def test_a_class_that_is_not_plain_slots_is_refused(cls: object, why: str) -> None:
    with pytest.raises(TypeError, match=why):
        native.install_dealloc(cls)


def test_init_refuses_record_classes_with_slots_it_does_not_write() -> None:
    """The chain makes records without zeroing them and writes the slots it knows: a record
    class with another slot must be refused (the Python path then runs), in a fresh process
    since ``init`` runs once per process."""
    code = (
        "import kconnect_native\n"
        "from kconnect.api import SchemaAndValue, SinkRecord, Struct\n"
        "from kconnect.api.records import ConnectRecord\n"
        "class Src(ConnectRecord):\n"
        "    __slots__ = ('source_offset', 'source_partition', 'extra')\n"
        "try:\n"
        "    kconnect_native.init(Struct, SchemaAndValue, Src, SinkRecord)\n"
        "    print('accepted')\n"
        "except TypeError as e:\n"
        "    print('refused:', e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout
    assert "has slots the native code does not know" in done.stdout
