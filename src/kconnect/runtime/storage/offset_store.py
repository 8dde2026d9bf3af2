"""Source offset backing stores: where committed source offsets live.

Keys and values are the exact offsets-topic bytes (see :mod:`kconnect.runtime.storage.offset_utils`).
Implementations are thread-safe: task threads read through
:class:`~kconnect.runtime.storage.offset_reader.OffsetStorageReaderImpl` and write through
:class:`~kconnect.runtime.storage.offset_writer.OffsetStorageWriter` concurrently.

* :class:`MemoryOffsetBackingStore` — offsets live as long as the process (tests).
* :class:`FileOffsetBackingStore` — standalone mode (``offset.storage.file.filename``).
  Java's file is a Java-serialized ``HashMap<byte[],byte[]>`` that Python cannot portably
  read, so kconnect writes its own format: a UTF-8 JSON document::

      {"format": "kconnect-offsets/1",
       "entries": [{"key": "[\\"conn\\",{\\"filename\\":\\"/tmp/x\\"}]",
                    "value": "{\\"position\\":42}"}, ...]}

  ``key``/``value`` hold the exact bytes decoded as UTF-8 text (they are JSON), or, if the
  bytes are not valid UTF-8, ``key_b64``/``value_b64`` hold them base64-encoded. Every write
  replaces the whole file atomically (temporary file, fsync, rename), so a crash leaves the
  previous or the new state, never a torn file.
"""

from __future__ import annotations

import base64
import logging
import os
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from pathlib import Path

import orjson

from kconnect.api.errors import ConnectException
from kconnect.runtime.storage.offset_utils import deserialize_key

__all__ = ["FileOffsetBackingStore", "MemoryOffsetBackingStore", "OffsetBackingStore"]

log = logging.getLogger(__name__)

FILE_FORMAT = "kconnect-offsets/1"


def _done() -> Future[None]:
    f: Future[None] = Future()
    f.set_result(None)
    return f


class OffsetBackingStore(ABC):
    """Key/value storage of source offsets (``org.apache.kafka.connect.storage.OffsetBackingStore``).

    Lifecycle: ``start()`` once (may block while loading), then ``get``/``set`` from any
    thread, ``stop()`` once. ``set`` returns a future completing when the values are durable
    (already done for local stores); a failure completes it exceptionally.
    """

    def start(self) -> None:
        """Load existing offsets."""

    def stop(self) -> None:
        """Release resources; later calls are undefined."""

    @abstractmethod
    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes | None]:
        """Values of ``keys`` (None for absent ones)."""

    @abstractmethod
    def set(self, values: Mapping[bytes, bytes | None]) -> Future[None]:
        """Store values; a None value deletes the key (tombstone)."""

    @abstractmethod
    def all_keys(self) -> list[bytes]:
        """Every stored key."""

    def all_keys_for(self, connector: str) -> list[bytes]:
        """Keys whose first element is ``connector``."""
        out = []
        for key in self.all_keys():
            parsed = deserialize_key(key)
            if parsed is not None and parsed[0] == connector:
                out.append(key)
        return out


class MemoryOffsetBackingStore(OffsetBackingStore):
    """Offsets in a dict, insertion-ordered; ``_save`` is the hook for persistent subclasses."""

    def __init__(self) -> None:
        self._data: dict[bytes, bytes] = {}
        self._lock = threading.Lock()

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes | None]:
        with self._lock:
            return {k: self._data.get(k) for k in keys}

    def set(self, values: Mapping[bytes, bytes | None]) -> Future[None]:
        with self._lock:
            for k, v in values.items():
                if v is None:
                    self._data.pop(k, None)
                else:
                    self._data[k] = v
            snapshot = dict(self._data)
        try:
            self._save(snapshot)
        except OSError as e:
            f: Future[None] = Future()
            f.set_exception(ConnectException(f"Failed to persist offsets: {e}"))
            return f
        return _done()

    def all_keys(self) -> list[bytes]:
        with self._lock:
            return list(self._data)

    def _save(self, snapshot: Mapping[bytes, bytes]) -> None:
        """Persist the whole map (memory store: nothing to do)."""


def _encode(field: str, data: bytes) -> dict[str, str]:
    try:
        return {field: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {field + "_b64": base64.b64encode(data).decode("ascii")}


def _decode(entry: Mapping[str, str], field: str) -> bytes | None:
    if field in entry:
        v = entry[field]
        return None if v is None else v.encode("utf-8")
    if field + "_b64" in entry:
        return base64.b64decode(entry[field + "_b64"])
    return None


class FileOffsetBackingStore(MemoryOffsetBackingStore):
    """Offsets in a local JSON file (format in the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self._write_lock = threading.Lock()

    def start(self) -> None:
        """Load the file if it exists (a missing file means no offsets yet).

        Raises:
            ConnectException: the file exists but cannot be read or parsed.
        """
        log.info("Starting FileOffsetBackingStore with file %s", self.path)
        if not self.path.exists():
            return
        try:
            doc = orjson.loads(self.path.read_bytes())
            if not isinstance(doc, dict) or doc.get("format") != FILE_FORMAT:
                raise ValueError(f"not a {FILE_FORMAT} document")
            data = {}
            for entry in doc["entries"]:
                key = _decode(entry, "key")
                value = _decode(entry, "value")
                if key is not None and value is not None:
                    data[key] = value
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ConnectException(
                f"Could not read offsets file {self.path}: {e}. Fix or remove the file "
                f"(offset.storage.file.filename); removing it makes source connectors start "
                f"over from their beginning."
            ) from e
        with self._lock:
            self._data = data

    def _save(self, snapshot: Mapping[bytes, bytes]) -> None:
        entries = [{**_encode("key", k), **_encode("value", v)} for k, v in snapshot.items()]
        payload = orjson.dumps({"format": FILE_FORMAT, "entries": entries})
        with self._write_lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(
                prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent
            )
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(payload)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
