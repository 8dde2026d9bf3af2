"""Garbage-collector settings for a long-running worker process.

A worker allocates many short-lived objects per record (records, structs, dicts) that reference
counting already frees; CPython's cyclic collector, triggered every 700 allocations by default,
then spends a large share of a busy task thread re-scanning them (measured: ~45% of a JDBC sink
task's samples). Workers therefore (1) move everything allocated during start-up — modules,
plugins, configs — out of the collector's view with ``gc.freeze()`` and (2) run the young
generation collection less often. Cycles are still collected; memory stayed flat in the
benchmarks (bench/jdbc.py, bench/file_pipeline.py).
"""

from __future__ import annotations

import gc

__all__ = ["WORKER_GC_THRESHOLDS", "tune_for_worker"]

#: (generation 0, 1, 2) thresholds for worker processes; CPython's default is (700, 10, 10).
WORKER_GC_THRESHOLDS = (50_000, 20, 100)


def tune_for_worker() -> None:
    """Freeze start-up objects and raise the collection thresholds (call once, after start-up)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)
