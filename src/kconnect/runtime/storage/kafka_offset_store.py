"""Source offsets in ``offset.storage.topic`` (``KafkaOffsetBackingStore``).

Keys and values are the exact bytes :mod:`kconnect.runtime.storage.offset_utils` produces
(``["<connector>",{partition}]`` / ``{offset}``, reference §4.3), written as-is; a None value
is a tombstone. The store keeps a map of the newest value per key, rebuilt from the topic on
its log thread; lookups are by exact key bytes, as in Java, which is why the key bytes must
match Java's.

``get`` first reads the topic to its end (so a task restarted on another worker sees the
offsets its predecessor committed), then answers from the map. ``set`` returns a future that
completes when every record was acknowledged.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.kafka.log.kafka_based_log import KafkaBasedLog, RecordPosition
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.storage.internal_topics import (
    AdminFactory,
    build_internal_log,
    client_id_base,
)
from kconnect.runtime.storage.offset_store import OffsetBackingStore

__all__ = ["KafkaOffsetBackingStore"]

log = logging.getLogger(__name__)

#: How long ``get`` waits to catch up with the topic before failing.
READ_TIMEOUT_S = 30.0


class KafkaOffsetBackingStore(OffsetBackingStore):
    """The offsets store of a distributed worker; thread-safe."""

    def __init__(
        self,
        config: DistributedConfig,
        admin_factory: AdminFactory | None = None,
        log_factory: Any = None,
        read_timeout_s: float = READ_TIMEOUT_S,
    ) -> None:
        self.topic = config.offset_topic
        self._data: dict[bytes, bytes] = {}
        self._lock = threading.Lock()
        self._read_timeout_s = read_timeout_s
        factory = log_factory or build_internal_log
        self._log: KafkaBasedLog = factory(
            config,
            config.offset_topic_spec(),
            client_id_base(config) + "offsets",
            self._on_record,
            None,
            admin_factory,
            # exactly-once tasks commit offsets in transactions: never read an aborted one
            {"isolation.level": "read_committed"} if config.exactly_once_source_enabled else None,
        )

    def start(self) -> None:
        """Create/verify the topic and read every stored offset (blocking)."""
        log.info("Starting KafkaOffsetBackingStore")
        self._log.start()
        log.info("Finished reading offsets topic and starting KafkaOffsetBackingStore")

    def stop(self) -> None:
        log.info("Stopping KafkaOffsetBackingStore")
        self._log.stop()
        log.info("Stopped KafkaOffsetBackingStore")

    def _catch_up(self) -> None:
        try:
            self._log.read_to_end(self._read_timeout_s)
        except TimeoutError as e:
            raise ConnectException(
                f"Failed to read offsets from topic {self.topic}: {e}. Check that the Kafka "
                f"cluster is reachable."
            ) from e

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes | None]:
        """Values of ``keys`` after reading the topic to its end.

        Raises:
            ConnectException: the topic could not be read to its end within the read timeout.
        """
        self._catch_up()
        with self._lock:
            return {k: self._data.get(k) for k in keys}

    def set(self, values: Mapping[bytes, bytes | None]) -> Future[None]:
        """Write every key/value (None = tombstone); the future completes when all are acked."""
        result: Future[None] = Future()
        items = list(values.items())
        if not items:
            result.set_result(None)
            return result
        remaining = [len(items)]
        guard = threading.Lock()

        def done(f: Future[RecordPosition]) -> None:
            err = f.exception()
            with guard:
                if result.done():
                    return
                if err is not None:
                    result.set_exception(
                        ConnectException(f"Failed to write offsets to topic {self.topic}: {err}")
                    )
                    return
                remaining[0] -= 1
                if remaining[0] == 0:
                    result.set_result(None)

        try:
            for key, value in items:
                self._log.send(key, value).add_done_callback(done)
        except ConnectException as e:
            with guard:
                if not result.done():
                    result.set_exception(e)
        return result

    def all_keys(self) -> list[bytes]:
        """Every key with a live value, after reading the topic to its end."""
        self._catch_up()
        with self._lock:
            return list(self._data)

    def _on_record(self, key: bytes | None, value: bytes | None, offset: int) -> None:
        if key is None:
            log.warning("Ignoring offsets record at offset %d without a key", offset)
            return
        with self._lock:
            if value is None:
                self._data.pop(key, None)
            else:
                self._data[key] = value
