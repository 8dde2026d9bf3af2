"""The arena cache ``kconnect_native`` puts in front of CPython's arena allocator
(``native/src/arena.rs``): the hot path installs it with ``ARENA_CACHE_BYTES``, arenas a batch
frees are kept and reused by the next batch instead of unmapped and mapped again, what it
keeps never exceeds its bound, and an idle process gives them back (``ARENA_CACHE_RELEASE_S``)."""

from __future__ import annotations

import gc
import resource
import time
from typing import Any

import pytest

from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct

if _hot_path.native is None:
    pytest.skip("kconnect_native is not in use", allow_module_level=True)

native = _hot_path.native


def _stats() -> dict[str, int]:
    stats = native.arena_cache_stats()
    assert stats is not None
    return dict(stats)


def _batch(n: int) -> list[Any]:
    schema = SchemaBuilder.struct().name("s").field("a", Schema.OPTIONAL_STRING_SCHEMA).build()
    return [
        SourceRecord(None, None, "t", None, None, None, schema, Struct(schema).put("a", f"v{i}"))
        for i in range(n)
    ]


def test_the_hot_path_installs_the_cache_with_its_bound() -> None:
    assert _stats()["max_bytes"] == _hot_path.ARENA_CACHE_BYTES


def test_a_freed_batch_arenas_are_kept_and_reused_by_the_next_batch() -> None:
    gc.collect()
    batch = _batch(60_000)  # ~20 MiB: a dozen arenas of its own
    del batch
    gc.collect()
    kept = _stats()
    assert kept["kept_bytes"] > 0
    reused_before = kept["reused"]
    faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    batch = _batch(60_000)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_before
    after = _stats()
    del batch
    assert after["reused"] > reused_before
    # the reused arenas' pages are resident: far fewer faults than pages the batch used
    # (~20 MiB = ~5,000 pages when every arena is mapped afresh)
    assert faults < 2_000


def test_what_the_cache_keeps_stays_within_its_bound() -> None:
    gc.collect()
    batch = _batch(120_000)  # ~60 MiB, far beyond the bound
    del batch
    gc.collect()
    stats = _stats()
    assert 0 < stats["kept_bytes"] <= stats["max_bytes"]
    assert stats["unmapped"] > 0


def test_a_lower_bound_is_applied_and_restored() -> None:
    native.install_arena_cache(1 << 20)
    try:
        gc.collect()
        batch = _batch(30_000)
        del batch
        gc.collect()
        assert _stats()["kept_bytes"] <= 1 << 20
    finally:
        native.install_arena_cache(_hot_path.ARENA_CACHE_BYTES, _hot_path.ARENA_CACHE_RELEASE_S)
    assert _stats()["max_bytes"] == _hot_path.ARENA_CACHE_BYTES


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_an_idle_process_gives_the_kept_arenas_back() -> None:
    native.install_arena_cache(_hot_path.ARENA_CACHE_BYTES, 0.2)
    try:
        gc.collect()
        batch = _batch(60_000)
        del batch
        gc.collect()
        kept = _stats()
        assert kept["kept_bytes"] > 0
        rss_kept = _rss_kib()
        arenas = kept["kept_bytes"] // (1 << 20)  # 1 MiB each
        deadline = time.monotonic() + 10
        while _stats()["released"] - kept["released"] < arenas and time.monotonic() < deadline:
            time.sleep(0.05)
        after = _stats()
        assert after["kept_bytes"] == 0
        assert after["released"] - kept["released"] >= arenas  # and any freed meanwhile
        # the memory left the process (1 MiB arenas, unmapped)
        assert rss_kept - _rss_kib() >= kept["kept_bytes"] // 1024 // 2
    finally:
        native.install_arena_cache(_hot_path.ARENA_CACHE_BYTES, _hot_path.ARENA_CACHE_RELEASE_S)
