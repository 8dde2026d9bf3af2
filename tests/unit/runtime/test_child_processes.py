"""The registry of helper processes (the JVM plugin host) and their memory from /proc."""

from __future__ import annotations

import os
from pathlib import Path

from kconnect.runtime.common.child_processes import (
    register_child_process,
    resident_memory_bytes,
    running_child_processes,
)


class _Child:
    child_kind = "test-helper"

    def __init__(self, pid: int | None) -> None:
        self.pid = pid


def test_running_children_are_listed_by_pid_and_held_weakly() -> None:
    a, b, stopped = _Child(999_002), _Child(999_001), _Child(None)
    for child in (a, b, stopped):
        register_child_process(child)
    mine = [c for c in running_child_processes() if c[0] == "test-helper"]
    assert mine == [("test-helper", 999_001), ("test-helper", 999_002)]
    del a
    mine = [c for c in running_child_processes() if c[0] == "test-helper"]
    assert mine == [("test-helper", 999_001)]


def test_resident_memory_is_vmrss(tmp_path: Path) -> None:
    (tmp_path / "42").mkdir()
    (tmp_path / "42" / "status").write_text(
        "Name:\tjava\nVmPeak:\t 9999 kB\nVmRSS:\t  318724 kB\nThreads:\t31\n"
    )
    assert resident_memory_bytes(42, tmp_path) == 318724 * 1024
    assert resident_memory_bytes(43, tmp_path) is None  # gone
    (tmp_path / "44").mkdir()
    (tmp_path / "44" / "status").write_text("Name:\tkthreadd\n")  # a kernel thread has none
    assert resident_memory_bytes(44, tmp_path) is None
    if Path("/proc/self/status").is_file():
        own = resident_memory_bytes(os.getpid())
        assert own is not None and own > 1024 * 1024


def test_the_metrics_report_each_running_child_with_its_worker() -> None:
    from kconnect.runtime.metrics import ConnectMetrics

    child = _Child(os.getpid())  # this process stands in for a JVM: it has a VmRSS
    register_child_process(child)
    metrics = ConnectMetrics("w1:8083")
    found = {
        name.tag_dict["pid"]: (name, value)
        for name, value in metrics.registry.snapshot()
        if name.group == "child-process" and name.tag_dict.get("kind") == "test-helper"
    }
    name, value = found[str(os.getpid())]
    assert (name.domain, name.name) == ("kconnect", "resident-memory-bytes")
    assert name.tags == (
        ("worker-id", "w1:8083"),
        ("kind", "test-helper"),
        ("pid", str(os.getpid())),
    )
    assert isinstance(value, float) and value > 1024 * 1024
    child.pid = None  # stopped: no longer reported
    assert not any(
        n.group == "child-process" and n.tag_dict.get("kind") == "test-helper"
        for n, _ in metrics.registry.snapshot()
    )
