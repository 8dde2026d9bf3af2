"""Helper processes this process started for plugins (the JVM plugin host), for the metrics.

A worker or task process may run plugin code in a child process of its own; whoever starts one
registers it here (:func:`register_child_process`), and the process's metrics report each that
is running with its resident memory (``kconnect_child_process_resident_memory_bytes``), so
``kconnect status`` shows it beside the worker. The registry holds its entries weakly and does
not know what they are: the runtime never imports the packages that start them.

Thread-safe.
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import Protocol

__all__ = [
    "ChildProcess",
    "register_child_process",
    "resident_memory_bytes",
    "running_child_processes",
]


class ChildProcess(Protocol):
    """A helper process, as the registry sees it."""

    @property
    def child_kind(self) -> str:
        """What it is (``java-plugin-host``)."""

    @property
    def pid(self) -> int | None:
        """Its process id while it runs, else None."""


_children: weakref.WeakSet[ChildProcess] = weakref.WeakSet()
_lock = threading.Lock()


def register_child_process(child: ChildProcess) -> None:
    """Report ``child`` whenever it runs, for as long as it lives (it is held weakly)."""
    with _lock:
        _children.add(child)


def running_child_processes() -> list[tuple[str, int]]:
    """``(kind, pid)`` of every registered child that runs now, by pid."""
    with _lock:
        children = list(_children)
    found = []
    for child in children:
        pid = child.pid
        if pid is not None:
            found.append((child.child_kind, pid))
    return sorted(found, key=lambda kind_pid: kind_pid[1])


def resident_memory_bytes(pid: int, proc: Path = Path("/proc")) -> int | None:
    """A process's resident set size (``VmRSS`` of ``/proc/<pid>/status``), None when it is
    unknown (gone, or not Linux)."""
    try:
        with open(proc / str(pid) / "status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    value, _, unit = line[len("VmRSS:") :].strip().partition(" ")
                    return int(value) * (1024 if unit.strip().lower() == "kb" else 1)
    except (OSError, ValueError):
        return None
    return None
