"""kconnect's Java plugin host (``dev.kconnect.host.PluginHost``) driven from a test, over its real
protocol (``src/kconnect/java_host/java/PROTOCOL.md``), without the worker's own client.

- :func:`host_deps` / :func:`connect_transforms_jar` / :func:`host_jar` /
  :func:`host_classpath` -- the jars the host is compiled against (connect-api, kafka-clients,
  slf4j-api at :data:`~kconnect.testing.java.CONNECT_VERSION`), Kafka's connect-transforms jar,
  the host's jar as the worker builds it, and the classpath the tests run the host with (those
  three and connect-transforms, as on Kafka Connect's class path);
- :func:`plugin_host_command` -- the ``java`` command line of the host on a classpath;
- :class:`PluginHostProcess` -- a running host: requests and their replies by id (a reader
  thread collects them, in any order), the host's events, and its callbacks answered as the
  test sets them up (``offsets`` for source tasks, ``report`` for sink tasks);
- :data:`SCHEMA_TYPES` -- the schema type codes of the binary record batches.

Each helper skips the calling test without Java (fails it under CI).
"""

from __future__ import annotations

import json
import os
import queue
import struct
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from kconnect.testing.java import API_JAR_PREFIXES, CONNECT_VERSION, classpath, pick_jars

__all__ = [
    "HOST_MAIN_CLASS",
    "REPLY_TIMEOUT_S",
    "SCHEMA_TYPES",
    "PluginHostProcess",
    "connect_transforms_jar",
    "host_classpath",
    "host_deps",
    "host_jar",
    "plugin_host_command",
]

HOST_MAIN_CLASS = "dev.kconnect.host.PluginHost"
#: How long :meth:`PluginHostProcess.reply` waits by default.
REPLY_TIMEOUT_S = 60.0
#: The schema types of the record batches, by their code (the code is the index).
SCHEMA_TYPES = (
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "FLOAT32",
    "FLOAT64",
    "BOOLEAN",
    "STRING",
    "BYTES",
    "ARRAY",
    "MAP",
    "STRUCT",
)


def host_deps() -> list[Path]:
    """connect-api, kafka-clients and slf4j-api, as connect-api :data:`CONNECT_VERSION` brings
    them: what the host (and a plugin compiled for it) is compiled against."""
    return pick_jars(
        classpath([f"org.apache.kafka:connect-api:{CONNECT_VERSION}"]), API_JAR_PREFIXES
    )


def connect_transforms_jar() -> Path:
    """Kafka's connect-transforms jar (:data:`CONNECT_VERSION`), without its dependencies."""
    jars = classpath([f"org.apache.kafka:connect-transforms:{CONNECT_VERSION}"])
    return pick_jars(jars, (f"connect-transforms-{CONNECT_VERSION}",))[0]


def host_jar() -> Path:
    """plugin-host.jar as the worker builds it (:mod:`kconnect.java_host.host_jar`), cached."""
    from kconnect.java_host.host_jar import host_classpath as worker_host_classpath
    from kconnect.testing.services import require_java

    require_java()
    return worker_host_classpath()[0]


def host_classpath() -> list[Path]:
    """The host's jar, :func:`host_deps` and :func:`connect_transforms_jar`: on Kafka Connect
    connect-transforms is on the worker's class path, and Debezium's SMTs extend its SMTs."""
    return [host_jar(), *host_deps(), connect_transforms_jar()]


def plugin_host_command(jars: Sequence[Path], options: Sequence[str] = ()) -> list[str]:
    """``java <options> -cp <jars> dev.kconnect.host.PluginHost``."""
    from kconnect.local import maven

    return [
        maven.require_java(),
        *options,
        "-cp",
        os.pathsep.join(map(str, jars)),
        HOST_MAIN_CLASS,
    ]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class PluginHostProcess:
    """A running host (``-XX:+UseSerialGC`` on ``jars``), its standard error in
    ``stderr_path``; :meth:`close` (or the end of a ``with`` block) kills it.

    A reader thread collects the replies by id (they may come in any order), puts the host's
    events in ``events`` and answers its callbacks (all kept in ``callbacks``):

    - ``offsets`` with the offsets :meth:`set_offset` gave (none for other partitions), or an
      error saying ``fail_callbacks`` when that is set;
    - ``report`` (a sink task's errant record; also kept in ``reports``) with success, or an
      error saying ``fail_reports`` when that is set.
    """

    def __init__(self, jars: Sequence[Path], stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.callbacks: list[dict[str, Any]] = []
        self._offsets: dict[str, Any] = {}
        self.fail_callbacks: str | None = None
        self.reports: list[dict[str, Any]] = []
        self.fail_reports: str | None = None
        self._stderr = stderr_path.open("wb")
        self.proc = subprocess.Popen(
            plugin_host_command(jars, ["-XX:+UseSerialGC"]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._replies: dict[Any, dict[str, Any]] = {}
        self._arrived: queue.Queue[Any] = queue.Queue()
        self._next_id = 0
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def __enter__(self) -> PluginHostProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------------------- frames

    def _read(self) -> None:
        from kconnect.java_host.frames import read_frame

        assert self.proc.stdout is not None
        while True:
            # the product's reader: it also puts binary attachments (protocol v8) in place
            message = read_frame(self.proc.stdout)
            if message is None:
                self._arrived.put(EOFError)
                return
            if "event" in message:
                self.events.put(message)
            elif "callback" in message:
                self.callbacks.append(message)
                self.send_raw(json.dumps(self._answer(message)).encode())
            else:
                with self._lock:
                    self._replies[message.get("id")] = message
                self._arrived.put(message.get("id"))

    def _answer(self, callback: dict[str, Any]) -> dict[str, Any]:
        if callback["op"] == "report":
            self.reports.append(callback)
            failure = self.fail_reports
        else:
            failure = self.fail_callbacks
        if failure is not None:
            return {"callback": callback["callback"], "ok": False, "error": {"message": failure}}
        if callback["op"] == "report":
            return {"callback": callback["callback"], "ok": True, "result": {}}
        assert callback["op"] == "offsets", callback
        offsets = [self._offsets.get(_canonical(p)) for p in callback["partitions"]]
        return {"callback": callback["callback"], "ok": True, "result": {"offsets": offsets}}

    def set_offset(self, partition: Any, offset: Any) -> None:
        """The offset the ``offsets`` callback answers for ``partition`` from now on."""
        self._offsets[_canonical(partition)] = offset

    def send_raw(self, body: bytes) -> None:
        """One frame: ``body`` after its length (4 bytes, big-endian)."""
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(struct.pack(">I", len(body)) + body)
            self.proc.stdin.flush()

    # ----------------------------------------------------------------------------- requests

    def send(self, op: str, **fields: Any) -> int:
        """Send request ``op`` with ``fields``; its id, for :meth:`reply`."""
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
        self.send_raw(json.dumps({"id": request_id, "op": op, **fields}).encode())
        return request_id

    def reply(self, request_id: Any, timeout: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        """The reply to ``request_id``; TimeoutError, or EOFError when the host closed its
        output first (both with the host's standard error)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if request_id in self._replies:
                    return self._replies.pop(request_id)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no reply to {request_id!r}; host stderr:\n{self.stderr()}")
            try:
                if self._arrived.get(timeout=remaining) is EOFError:
                    self._arrived.put(EOFError)
                    with self._lock:
                        if request_id in self._replies:
                            return self._replies.pop(request_id)
                    raise EOFError(f"host closed stdout; stderr:\n{self.stderr()}")
            except queue.Empty:
                continue

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send ``op`` and wait for its reply."""
        return self.reply(self.send(op, **fields))

    def result(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send ``op``, assert the reply is ``ok`` and return its result."""
        reply = self.call(op, **fields)
        assert reply["ok"] is True, reply
        result: dict[str, Any] = reply["result"]
        return result

    def event(self, timeout: float = 30.0) -> dict[str, Any]:
        """The next event the host sent (``queue.Empty`` after ``timeout`` seconds)."""
        return self.events.get(timeout=timeout)

    def stderr(self) -> str:
        """What the host wrote to its standard error so far."""
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def close(self) -> None:
        """Kill the host (when still running) and wait for it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        self._stderr.close()
