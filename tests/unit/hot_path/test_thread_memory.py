"""``release_thread_memory``: a thread that ran the native path and goes idle gives back what
the native allocator kept for it (the source and sink loops call it when a task goes idle
after batches; a worker with 1,000 idle tasks kept ~60 MiB before)."""

from __future__ import annotations

import threading

import pytest

from kconnect import _hot_path
from kconnect.api import Schema, SchemaBuilder, SourceRecord, Struct

if _hot_path.native is None:
    pytest.skip("kconnect_native is not in use", allow_module_level=True)

THREADS = 200


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_idle_threads_give_their_native_memory_back() -> None:
    native = _hot_path.native
    schema = (
        SchemaBuilder.struct()
        .name("s")
        .field("a", Schema.OPTIONAL_STRING_SCHEMA)
        .field("b", Schema.INT64_SCHEMA)
        .build()
    )
    worked, measured, released = (threading.Barrier(THREADS + 1) for _ in range(3))
    done = threading.Event()
    sizes: list[int] = []

    def task() -> None:
        records = [
            SourceRecord({"f": "x"}, {"p": i}, "t", None, None, None, schema,
                         Struct(schema).put("a", f"v{i}" * 5).put("b", i))
            for i in range(50)
        ]  # fmt: skip
        batch = native.RecordBatch.from_records(records)  # native memory of this thread
        sizes.append(len(batch))
        del batch, records
        worked.wait()
        measured.wait()
        _hot_path.release_thread_memory()
        released.wait()
        done.wait(10)  # alive (idle) while the process is measured

    threads = [threading.Thread(target=task) for _ in range(THREADS)]
    for t in threads:
        t.start()
    try:
        worked.wait()
        before = _rss_kib()
        measured.wait()
        released.wait()
        after = _rss_kib()
    finally:
        done.set()
        for t in threads:
            t.join()
    assert sizes == [50] * THREADS
    # ~50 KiB a thread here; without the release, nothing goes back while the threads live
    assert before - after >= THREADS * 16, (before, after)
