"""Garbage-collector and allocator settings for a long-running worker process.

A worker allocates many short-lived objects per record (records, structs, dicts) that reference
counting already frees; CPython's cyclic collector, triggered every 700 allocations by default,
then spends a large share of a busy task thread re-scanning them (measured: ~45% of a JDBC sink
task's samples). Workers therefore (1) move everything allocated during start-up — modules,
plugins, configs — out of the collector's view with ``gc.freeze()`` and (2) run the young
generation collection less often. Cycles are still collected; memory stayed flat in the
benchmarks (bench/jdbc.py, bench/file_pipeline.py).

glibc's ``malloc`` raises its mmap threshold each time a large block is freed (up to 32 MiB),
after which large blocks come from the heap and stay there when freed. One ``/metrics`` scrape
of a thousand tasks (megabytes of lists and text) then left the worker ~18 MiB larger for good
(bench/scale.py, issue 34). Workers fix the threshold at glibc's initial 128 KiB, which also
stops the adjustment; ``MALLOC_MMAP_THRESHOLD_`` in the environment still wins.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys

__all__ = ["MMAP_THRESHOLD", "WORKER_GC_THRESHOLDS", "fix_malloc_thresholds", "tune_for_worker"]

#: (generation 0, 1, 2) thresholds for worker processes; CPython's default is (700, 10, 10).
WORKER_GC_THRESHOLDS = (50_000, 20, 100)


#: Bytes from which glibc maps a block of its own (its initial, dynamic default).
MMAP_THRESHOLD = 128 * 1024
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)


def fix_malloc_thresholds() -> bool:
    """Fix glibc's mmap threshold (see the module docstring); False where there is no glibc or
    the environment sets it."""
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):  # musl, or no mallopt
        return False


def tune_for_worker() -> None:
    """Freeze start-up objects, raise the collection thresholds and fix the allocator's (call
    once, after start-up)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)
    fix_malloc_thresholds()
