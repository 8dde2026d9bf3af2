"""The offset store of one exactly-once source task (KIP-618).

Java's ``offsetStoreForExactlyOnceSourceTask``: an exactly-once task writes its source offsets
with its own transactional producer, in the same transaction as its records, so records and
offsets are committed -- or aborted -- together. The offsets go to the connector's
``offsets.storage.topic`` or, when it sets none, to the worker's ``offset.storage.topic``, with
the exact keys and values every store writes (:mod:`kconnect.runtime.storage.offset_utils`).

Reads come from a ``read_committed`` consumer of that topic: offsets of aborted transactions
(a zombie's, a failed commit's) are never seen, and :meth:`get` first reads to the end of the
topic, waiting for open transactions to end -- after zombie fencing, a new task generation
starts from what the previous one committed, nothing less. When the connector's topic is not
the worker's, offsets the worker's store holds for a partition the connector's topic does not
(from before the connector had its own topic) are read from there (``fallback``).

Lifecycle: :meth:`start` once on the task thread (creates the connector's topic when missing,
reads it), then ``get``/``set`` from the task thread, :meth:`stop` once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from kconnect.api.errors import ConnectException
from kconnect.kafka.clients.errors import KafkaClientError
from kconnect.kafka.clients.producer import Producer, delivery_error
from kconnect.kafka.log.kafka_based_log import KafkaBasedLog
from kconnect.runtime.storage.offset_store import OffsetBackingStore

__all__ = ["TransactionalOffsetStore"]

log = logging.getLogger(__name__)

#: How long ``get`` waits to read to the end of the offsets topic.
READ_TIMEOUT_S = 60.0


class TransactionalOffsetStore(OffsetBackingStore):
    """``reader`` is a read-only, ``read_committed`` :class:`KafkaBasedLog` of ``topic`` whose
    consumed records this store receives through :meth:`on_record`; ``producer`` is the task's
    transactional producer (its transaction is opened and committed by the task)."""

    def __init__(
        self,
        topic: str,
        producer: Producer,
        reader: KafkaBasedLog | None = None,
        fallback: OffsetBackingStore | None = None,
        read_timeout_s: float = READ_TIMEOUT_S,
    ) -> None:
        self.topic = topic
        self.producer = producer
        self.reader = reader
        self.fallback = fallback
        self._read_timeout_s = read_timeout_s
        self._data: dict[bytes, bytes] = {}
        self._lock = threading.Lock()

    def bind(self, reader: KafkaBasedLog) -> None:
        """Set the reader (built with :meth:`on_record` as its callback)."""
        self.reader = reader

    def start(self) -> None:
        if self.reader is None:
            raise ConnectException("TransactionalOffsetStore has no reader")
        log.debug("Starting the offsets reader of topic %s", self.topic)
        self.reader.start()

    def stop(self) -> None:
        if self.reader is not None:
            self.reader.stop()

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes | None]:
        keys = list(keys)
        if self.reader is not None:
            try:
                self.reader.read_to_end(self._read_timeout_s)
            except TimeoutError as e:
                raise ConnectException(
                    f"Failed to read offsets from topic {self.topic}: {e}. An open transaction "
                    "on the topic (a task that was not fenced out yet) keeps readers waiting "
                    "until it ends; check that the Kafka cluster is reachable."
                ) from e
        with self._lock:
            found: dict[bytes, bytes | None] = {k: self._data.get(k) for k in keys}
        missing = [k for k, v in found.items() if v is None]
        if missing and self.fallback is not None:
            for k, v in self.fallback.get(missing).items():
                found[k] = v
        return found

    def set(self, values: Mapping[bytes, bytes | None]) -> Future[None]:
        """Produce the offsets in the producer's current transaction; the future completes when
        the broker acknowledged them (at the latest when the transaction commits)."""
        result: Future[None] = Future()
        items = list(values.items())
        if not items:
            result.set_result(None)
            return result
        remaining = [len(items)]

        def done(err: Any, msg: Any) -> None:
            if result.done():
                return
            if err is not None:
                result.set_exception(
                    ConnectException(
                        f"Failed to write offsets to topic {self.topic}: "
                        f"{delivery_error(err, self.topic)}"
                    )
                )
                return
            remaining[0] -= 1
            if remaining[0] == 0:
                result.set_result(None)

        try:
            for key, value in items:
                while True:
                    try:
                        self.producer.produce(self.topic, value, key, on_delivery=done)
                        break
                    except BufferError:
                        self.producer.poll(0.05)
        except KafkaClientError as e:
            if not result.done():
                result.set_exception(e)
        return result

    def all_keys(self) -> list[bytes]:
        if self.reader is not None:
            self.reader.read_to_end(self._read_timeout_s)
        with self._lock:
            keys = list(self._data)
        if self.fallback is not None:
            seen = set(keys)
            keys.extend(k for k in self.fallback.all_keys() if k not in seen)
        return keys

    def on_record(self, key: bytes | None, value: bytes | None, offset: int) -> None:
        """The reader's callback (its log thread)."""
        if key is None:
            return
        with self._lock:
            if value is None:
                self._data.pop(key, None)
            else:
                self._data[key] = value
