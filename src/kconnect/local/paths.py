"""Where the local stack keeps its files, and the small file-based primitives it relies on.

Layout under :func:`home` (``$KCONNECT_HOME``, default ``<cwd>/.kconnect``)::

    cache/                  resolved jars (see kconnect.local.maven)
    kafka/                  server.properties, data/, kafka.log, kafka.pid, kafka.json
    postgres/               data/, postgres.log, postgres.pid, postgres.json
    stack.lock              held while a start/stop runs (serialises concurrent callers)

A *pid file* holds the decimal pid of a daemon started by ``kconnect local start``; a *state file*
(``<service>.json``) records what it was started with (address, ports, command) so ``status``
and ``stop`` can report and act on exactly what ``start`` started.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ENV_HOME = "KCONNECT_HOME"


def home() -> Path:
    """The kconnect home directory: ``$KCONNECT_HOME`` or ``<cwd>/.kconnect`` (not created)."""
    value = os.environ.get(ENV_HOME)
    return Path(value).expanduser().resolve() if value else (Path.cwd() / ".kconnect").resolve()


def cache_dir() -> Path:
    """Cache of downloaded artifacts: ``<home>/cache`` (not created)."""
    return home() / "cache"


def service_dir(service: str) -> Path:
    """Directory holding one service's data, logs, pid and state files (not created)."""
    return home() / service


def pid_file(service: str) -> Path:
    """The pid file of a service started by ``kconnect local start``."""
    return service_dir(service) / f"{service}.pid"


def state_file(service: str) -> Path:
    """The JSON state file of a service (address, pid, command it was started with)."""
    return service_dir(service) / f"{service}.json"


def log_file(service: str) -> Path:
    """Where a service's daemon writes its stdout/stderr."""
    return service_dir(service) / f"{service}.log"


def write_pid(path: Path, pid: int) -> None:
    """Write ``pid`` to ``path`` atomically (write a temp file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{pid}\n", encoding="ascii")
    os.replace(tmp, path)


def read_pid(path: Path) -> int | None:
    """The pid stored in ``path``; None when the file is missing, empty or not a number."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return None
    try:
        pid = int(text.splitlines()[0]) if text else 0
    except ValueError:
        return None
    return pid if pid > 0 else None


def pid_alive(pid: int) -> bool:
    """True when a process with this pid exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by another user
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
        # Field 3 (after the parenthesised command name) is the state; Z = zombie.
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def process_cmdline(pid: int) -> str | None:
    """The command line of ``pid`` (arguments joined by spaces), or None when unreadable."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return raw.replace(b"\0", b" ").decode("utf-8", errors="replace").strip()


def running_pid(path: Path, expect: str | None = None) -> int | None:
    """The pid in ``path`` when that process is alive, else None (a stale file is ignored).

    With ``expect``, the process's command line must also contain that text, so a pid reused by
    an unrelated process after a reboot is not mistaken for the service.
    """
    pid = read_pid(path)
    if pid is None or not pid_alive(pid):
        return None
    if expect is not None:
        cmdline = process_cmdline(pid)
        if cmdline is not None and expect not in cmdline:
            return None
    return pid


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Write a service's state file atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_state(path: Path) -> dict[str, Any] | None:
    """A service's state, or None when there is no (readable) state file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@contextlib.contextmanager
def file_lock(path: Path, *, timeout_s: float = 600.0) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` for the ``with`` block.

    Serialises processes (and threads holding separate descriptors) that start or stop the
    stack, or resolve jars, at the same time. The lock is released when the block exits or the
    process dies; the file itself stays. Raises :class:`TimeoutError` after ``timeout_s``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {path}")
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def terminate(pid: int, *, grace_s: float) -> bool:
    """SIGTERM ``pid``, wait up to ``grace_s`` for it to exit, then SIGKILL it (and wait up to
    5 s more). True when it had to be killed. Reaps it when it is this process's child."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return False
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            if not pid_alive(pid):
                return sig == signal.SIGKILL
            time.sleep(0.1)
    return True


def stop_service(
    service: str, expect: str, label: str, *, grace_s: float, say: Callable[[str], None]
) -> bool:
    """Stop the ``service`` this home started (its pid file; ``expect``: a word its command line
    holds, so a reused pid is left alone). True when something was stopped."""
    pid_path = pid_file(service)
    pid = running_pid(pid_path, expect)
    if pid is None:
        pid_path.unlink(missing_ok=True)
        return False
    say(f"Stopping {label} (pid {pid}) ...")
    t0 = time.monotonic()
    killed = terminate(pid, grace_s=grace_s)
    pid_path.unlink(missing_ok=True)
    say(
        f"{label[0].upper()}{label[1:]} {'killed' if killed else 'stopped'} in {time.monotonic() - t0:.1f} s"
    )
    return True
