"""The arena cache ``kconnect_native`` puts in front of CPython's arena allocator
(``native/src/arena.rs``): the hot path installs it with ``ARENA_CACHE_BYTES``, arenas a batch
frees are kept and reused by the next batch instead of unmapped and mapped again, what it
keeps never exceeds its bound, and an idle process gives them back (``ARENA_CACHE_RELEASE_S``)."""

from __future__ import annotations

import gc
import json
import resource
import subprocess
import sys
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


_IDLE_RELEASE = """
import gc, json, time
from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct

native = _hot_path.native
native.install_arena_cache(_hot_path.ARENA_CACHE_BYTES, 0.2)


def rss_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


schema = SchemaBuilder.struct().name("s").field("a", Schema.OPTIONAL_STRING_SCHEMA).build()
batch = [SourceRecord(None, None, "t", None, None, None, schema, Struct(schema).put("a", f"v{i}"))
         for i in range(60_000)]
del batch
gc.collect()
kept = dict(native.arena_cache_stats())
rss_kept = rss_kib()
deadline = time.monotonic() + 10
while native.arena_cache_stats()["released"] < kept["kept_bytes"] >> 20 and time.monotonic() < deadline:
    time.sleep(0.05)
print(json.dumps({"kept": kept, "after": dict(native.arena_cache_stats()),
                  "rss_kept": rss_kept, "rss_after": rss_kib()}))
"""


def test_an_idle_process_gives_the_kept_arenas_back() -> None:
    # in a fresh interpreter: there the batch's arenas are its own and wholly resident (in a
    # process that ran other tests, freed pools elsewhere take part of the batch)
    out = subprocess.run(
        [sys.executable, "-c", _IDLE_RELEASE], capture_output=True, text=True, timeout=60,
        check=True,
    )  # fmt: skip
    seen = json.loads(out.stdout)
    kept, after = seen["kept"], seen["after"]
    arenas = kept["kept_bytes"] >> 20  # 1 MiB each
    assert arenas >= 8  # the batch's ~20 MiB: the cache was full of its arenas
    assert after["kept_bytes"] == 0
    assert after["released"] >= arenas
    # the memory left the process
    assert seen["rss_kept"] - seen["rss_after"] >= kept["kept_bytes"] // 1024 // 2, seen
