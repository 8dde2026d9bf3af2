"""A Kafka topic used as a replicated log of state (``org.apache.kafka.connect.util.KafkaBasedLog``).

The config, status and offsets stores of a distributed worker each keep one: every record of
the topic, from the beginning, is handed to a callback on the log's own thread (which rebuilds
the store's in-memory view), and writes go through a producer to the same topic, so every
worker sees the same sequence of updates.

Lifecycle: ``start()`` once (creates the topic through the optional initializer, assigns every
partition from the beginning, reads everything already there, then keeps consuming on a
daemon thread); then ``send``/``read_to_end``/``flush`` from any thread; ``stop()`` once.

Threads: the consumed-record callback runs on the log thread ``kafka-based-log-<topic>`` and
must be quick and must not call ``read_to_end`` (it would wait for itself). Producer delivery
reports are served by a second small thread so ``send`` futures complete as soon as the broker
acknowledges.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, KafkaError, KafkaException
from confluent_kafka import Consumer as _Consumer
from confluent_kafka import Producer as _Producer
from confluent_kafka import TopicPartition as _TP
from confluent_kafka.admin import ConfigResource
from confluent_kafka.cimpl import NewTopic

from kconnect.api.errors import ConnectException
from kconnect.kafka.clients.client_config import admin_client, to_librdkafka, with_client_logger
from kconnect.kafka.clients.consumer import consume_available
from kconnect.kafka.clients.errors import from_kafka_error

__all__ = ["ConsumedCallback", "InternalTopicAdmin", "KafkaBasedLog", "RecordPosition"]

_NO_LEADER_YET = (
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
)

log = logging.getLogger(__name__)

#: ``callback(key, value, offset)``: one consumed record; ``value`` None is a tombstone.
ConsumedCallback = Callable[[bytes | None, bytes | None, int], None]
#: (partition, offset) a sent record was written at.
RecordPosition = tuple[int, int]

_METADATA_TIMEOUT_S = 30.0
#: How much longer a read_committed log's start waits for a transaction left open: the
#: producer's default ``transaction.timeout.ms`` (60 s) twice, and the broker's abort sweep.
_OPEN_TRANSACTION_WAIT_S = 150.0
_CONSUME_WAIT_S = 0.1
#: A read_committed log's fetch long-poll (see start()).
_FETCH_WAIT_MAX_MS = 50
_CONSUME_BATCH = 1000


class _EndRequest:
    """One ``read_to_end`` call: the end offsets it must reach (fetched on the log thread)."""

    __slots__ = ("ends", "future")

    def __init__(self) -> None:
        self.future: Future[None] = Future()
        self.ends: dict[int, tuple[int, int]] | None = None  # partition -> (low, high)


class KafkaBasedLog:
    """Reads ``topic`` from the beginning on its own thread and writes to it.

    ``producer_props``/``consumer_props`` use Java client property names (they are translated
    for librdkafka); ``producer_props`` None makes a read-only log (another client writes the
    topic, e.g. an exactly-once task's transactional producer); ``topic_initializer`` runs
    first in :meth:`start` (creating/verifying the topic) and may raise to abort start.
    """

    def __init__(
        self,
        topic: str,
        producer_props: Mapping[str, object] | None,
        consumer_props: Mapping[str, object],
        consumed_callback: ConsumedCallback,
        topic_initializer: Callable[[], None] | None = None,
        client_id: str | None = None,
    ) -> None:
        self.topic = topic
        self._producer_props = None if producer_props is None else dict(producer_props)
        self._consumer_props = dict(consumer_props)
        self._callback = consumed_callback
        self._initializer = topic_initializer
        self._client_id = client_id or f"kconnect-log-{topic}"
        self._consumer: Any = None
        self._offsets_client: Any = None
        self._producer: Any = None
        self._partitions: list[int] = []
        self._positions: dict[int, int] = {}
        self._waiting: list[_EndRequest] = []
        self._lock = threading.Lock()
        self._wakeup = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._delivery_thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, timeout_s: float = _METADATA_TIMEOUT_S) -> None:
        """Create clients, read the whole topic once, then keep consuming in the background.

        Blocks until the existing records were consumed. Raises
        :class:`~kconnect.api.errors.ConnectException` if the topic's partitions cannot be found
        within ``timeout_s`` or a client cannot be built.
        """
        log.info("Starting KafkaBasedLog with topic %s", self.topic)
        if self._initializer is not None:
            self._initializer()
        consumer_conf = to_librdkafka(
            {
                "client.id": self._client_id,
                "auto.offset.reset": "earliest",
                "isolation.level": "read_uncommitted",
                **self._consumer_props,
            }
        )
        # Partitions are assigned directly (no group membership); librdkafka still wants an id.
        consumer_conf.setdefault("group.id", self._client_id)
        consumer_conf["enable.auto.commit"] = False
        consumer_conf["enable.partition.eof"] = True
        # A read_committed reader learns that it passed a transaction's commit marker only
        # from the next fetch, which the broker holds for fetch.wait.max.ms when nothing new
        # follows (librdkafka's default: 500 ms): every transactional write's read-back (config
        # writes under exactly-once, a task's offsets) would wait that long. Java's consumer
        # steps over the marker in the fetch that returned it. (read_uncommitted readers get
        # their end-of-partition with the fetch that brought the last record.)
        if consumer_conf.get("isolation.level") == "read_committed":
            consumer_conf.setdefault("fetch.wait.max.ms", _FETCH_WAIT_MAX_MS)
        try:
            self._consumer = _Consumer(with_client_logger(dict(consumer_conf)))
            # End offsets come from a second, idle client: on the fetching consumer a
            # ListOffsets request waits behind the fetch long-poll (fetch.wait.max.ms).
            # Always the high watermark, as Java's TopicAdmin.endOffsets (READ_UNCOMMITTED):
            # a read_committed reader then waits for open transactions to end instead of
            # stopping at a last stable offset that lags a just-committed transaction.
            self._offsets_client = _Consumer(
                with_client_logger({**consumer_conf, "isolation.level": "read_uncommitted"})
            )
            if self._producer_props is not None:
                producer_conf = to_librdkafka(
                    {"client.id": self._client_id, **self._producer_props}
                )
                # Same partition as Java's default partitioner for a keyed record, so Java
                # and kconnect writes of one key land together and compaction keeps only
                # the newest.
                producer_conf.setdefault("partitioner", "murmur2_random")
                # Sent at once unless the worker sets linger.ms: a config write is waited for
                # (creating a connector writes and reads back three times), and librdkafka's
                # default 5 ms linger was most of each wait.
                producer_conf.setdefault("linger.ms", 0)
                self._producer = _Producer(with_client_logger(producer_conf))
        except KafkaException as e:
            raise from_kafka_error(e, f"Failed to create clients for topic {self.topic}") from e
        self._partitions = self._wait_for_partitions(timeout_s)
        self._consumer.assign([_TP(self.topic, p, OFFSET_BEGINNING) for p in self._partitions])
        self._thread = threading.Thread(
            target=self._run, name=f"kafka-based-log-{self.topic}", daemon=True
        )
        self._delivery_thread = threading.Thread(
            target=self._serve_deliveries,
            name=f"kafka-based-log-producer-{self.topic}",
            daemon=True,
        )
        self._thread.start()
        if self._producer is not None:
            self._delivery_thread.start()
        self._read_existing(max(timeout_s, 60.0), consumer_conf.get("isolation.level"))
        log.info("Finished reading KafkaBasedLog for topic %s", self.topic)

    def _read_existing(self, timeout_s: float, isolation: object) -> None:
        """Wait until the records there at start are read. A read_committed reader also waits
        for a transaction left open (a worker killed while an exactly-once task's transaction
        was open) until the broker aborts it after the producer's ``transaction.timeout.ms``
        (Java's reader waits without limit): up to :data:`_OPEN_TRANSACTION_WAIT_S` more, saying
        so every 30 s."""
        limit = timeout_s + (_OPEN_TRANSACTION_WAIT_S if isolation == "read_committed" else 0.0)
        future = self.read_to_end_async()
        started = time.monotonic()
        while True:
            waited = time.monotonic() - started
            try:
                future.result(min(30.0, max(limit - waited, 0.0)))
                return
            except FutureTimeout:
                waited = time.monotonic() - started
                if waited >= limit:
                    raise TimeoutError(
                        f"Timed out after {waited:.1f} s reading to the end of topic {self.topic}"
                    ) from None
                if isolation == "read_committed":
                    log.info(
                        "Still reading topic %s after %.0f s: a transaction left open (by a "
                        "worker that stopped without ending it) holds read_committed readers "
                        "until the broker aborts it after transaction.timeout.ms",
                        self.topic, waited,
                    )  # fmt: skip

    def _wait_for_partitions(self, timeout_s: float) -> list[int]:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                md = self._consumer.list_topics(self.topic, timeout=min(5.0, timeout_s))
                t = md.topics.get(self.topic)
                if t is not None and t.error is None and t.partitions:
                    return sorted(t.partitions)
            except KafkaException as e:
                log.debug("Metadata for %s not available yet: %s", self.topic, e)
            if time.monotonic() >= deadline:
                raise ConnectException(
                    f"Could not look up partition metadata for topic {self.topic} in the allotted "
                    f"period ({timeout_s:.0f} s). This could indicate a connectivity issue, "
                    f"unavailable topic partitions, or if this is your first use of the topic it "
                    f"may have taken too long to create."
                )
            time.sleep(0.2)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Flush pending writes (up to ``timeout_s``), stop the threads and close the clients."""
        log.info("Stopping KafkaBasedLog for topic %s", self.topic)
        if self._producer is not None:
            left = self._producer.flush(timeout_s)
            if left:
                log.warning("KafkaBasedLog for %s stopped with %d unsent records", self.topic, left)
        self._stopping.set()
        self._wakeup.set()
        for t in (self._thread, self._delivery_thread):
            if t is not None and t.is_alive():
                t.join(timeout_s)
        with self._lock:
            pending, self._waiting = self._waiting, []
        for req in pending:
            if not req.future.done():
                req.future.set_exception(
                    ConnectException(f"KafkaBasedLog for {self.topic} stopped")
                )
        for client in (self._consumer, self._offsets_client):
            if client is None:
                continue
            try:
                client.close()
            except (KafkaException, RuntimeError) as e:
                log.warning("Failed to close consumer of %s: %s", self.topic, e)
        self._consumer = self._offsets_client = None
        self._producer = None
        log.info("Stopped KafkaBasedLog for topic %s", self.topic)

    # -- API ----------------------------------------------------------------------------------

    def partition_count(self) -> int:
        return len(self._partitions)

    def send(self, key: bytes | None, value: bytes | None) -> Future[RecordPosition]:
        """Write one record; the future completes when the broker acknowledged it.

        The future fails with :class:`~kconnect.kafka.clients.errors.KafkaClientError` (``retriable``
        set for transient errors) when the write failed. Never blocks, except briefly when
        the local queue is full.
        """
        future: Future[RecordPosition] = Future()

        def on_delivery(err: Any, msg: Any) -> None:
            if err is not None:
                future.set_exception(
                    from_kafka_error(err, f"Failed to write to topic {self.topic}")
                )
            else:
                future.set_result((msg.partition(), msg.offset()))

        producer = self._producer
        if producer is None:
            raise ConnectException(f"KafkaBasedLog for {self.topic} is not started")
        while True:
            try:
                producer.produce(self.topic, value, key, on_delivery=on_delivery)
                return future
            except BufferError:
                producer.poll(0.05)
            except KafkaException as e:
                raise from_kafka_error(e, f"Failed to write to topic {self.topic}") from e

    def flush(self, timeout_s: float = 30.0) -> None:
        """Wait until every record sent so far was acknowledged (or failed)."""
        if self._producer is not None and self._producer.flush(timeout_s):
            raise ConnectException(f"Timed out flushing writes to topic {self.topic}")

    def read_to_end_async(self) -> Future[None]:
        """A future completing once everything written before this call was consumed.

        Fetches the end offsets in the calling thread (a quick broker round trip); the future
        fails with :class:`~kconnect.kafka.clients.errors.KafkaClientError` if that fails.
        """
        req = _EndRequest()
        if self._stopping.is_set() or self._offsets_client is None:
            req.future.set_exception(ConnectException(f"KafkaBasedLog for {self.topic} stopped"))
            return req.future
        try:
            req.ends = self._end_offsets()
        except KafkaException as e:
            req.future.set_exception(
                from_kafka_error(e, f"Failed to fetch the end offsets of topic {self.topic}")
            )
            return req.future
        with self._lock:
            caught_up = self._caught_up(req.ends)
            if not caught_up:
                self._waiting.append(req)
        if caught_up:
            req.future.set_result(None)
        return req.future

    def read_to_end(self, timeout_s: float) -> None:
        """Block until the log thread consumed every record up to the end offsets at call time.

        Raises:
            TimeoutError: not caught up within ``timeout_s``.
            ConnectException: the log stopped meanwhile.
        """
        if threading.current_thread() is self._thread:
            raise ConnectException("read_to_end called from the log's own consumer callback")
        try:
            self.read_to_end_async().result(timeout_s)
        except FutureTimeout as e:
            raise TimeoutError(
                f"Timed out after {timeout_s:.1f} s reading to the end of topic {self.topic}"
            ) from e

    # -- threads ------------------------------------------------------------------------------

    def _serve_deliveries(self) -> None:
        while not self._stopping.is_set():
            try:
                self._producer.poll(0.2)
            except Exception:
                log.exception("Unexpected error serving delivery reports for %s", self.topic)

    def _end_offsets(self) -> dict[int, tuple[int, int]]:
        ends = {}
        # A topic created a moment ago may have partitions without a leader yet; retry those
        # errors for a while, as Java's TopicAdmin.retryEndOffsets does.
        deadline = time.monotonic() + 15.0
        for p in self._partitions:
            while True:
                try:
                    low, high = self._offsets_client.get_watermark_offsets(
                        _TP(self.topic, p), timeout=10.0, cached=False
                    )
                    break
                except KafkaException as e:
                    err = e.args[0] if e.args else None
                    leaderless = isinstance(err, KafkaError) and (
                        err.retriable() or err.code() in _NO_LEADER_YET
                    )
                    if not leaderless or time.monotonic() >= deadline:
                        raise
                    time.sleep(0.1)
            ends[p] = (low, high)
        return ends

    def _caught_up(self, ends: Mapping[int, tuple[int, int]]) -> bool:
        for p, (low, high) in ends.items():
            if high > low and self._positions.get(p, -1) < high:
                return False
        return True

    def _run(self) -> None:
        consumer = self._consumer
        while not self._stopping.is_set():
            try:
                msgs = consume_available(consumer, _CONSUME_BATCH, _CONSUME_WAIT_S)
            except KafkaException as e:
                log.warning("Error consuming from %s: %s", self.topic, e)
                continue
            except RuntimeError:  # closed underneath us during stop
                break
            self._apply(msgs)
            # Every iteration, so a request registered while a batch was applied is seen.
            self._complete_caught_up()

    def _apply(self, msgs: list[Any]) -> None:
        """Advance positions and hand records to the callback (log thread)."""
        for msg in msgs:
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    self._positions[msg.partition()] = max(
                        self._positions.get(msg.partition(), -1), msg.offset()
                    )
                else:
                    log.warning("Error consuming from %s: %s", self.topic, err.str())
                continue
            try:
                self._callback(msg.key(), msg.value(), msg.offset())
            except Exception:
                log.exception(
                    "Unexpected error in consumer callback for topic %s at partition %d offset %d",
                    self.topic,
                    msg.partition(),
                    msg.offset(),
                )
            # After the callback: a reader that sees this position also sees the record applied.
            self._positions[msg.partition()] = msg.offset() + 1

    def _complete_caught_up(self) -> None:
        if not self._waiting:
            return
        done = []
        with self._lock:
            still = []
            for req in self._waiting:
                if req.ends is not None and self._caught_up(req.ends):
                    done.append(req)
                elif not req.future.done():
                    still.append(req)
            self._waiting = still
        # Outside the lock: done-callbacks may call back into this log.
        for req in done:
            if not req.future.done():
                req.future.set_result(None)


class InternalTopicAdmin:
    """The admin calls internal-topic setup needs (``TopicAdmin`` subset). Thread-safe."""

    def __init__(self, props: Mapping[str, object]) -> None:
        try:
            self._admin = admin_client(with_client_logger(to_librdkafka(props)))
        except KafkaException as e:
            raise from_kafka_error(e, "Failed to create admin client") from e

    def create_topic(
        self,
        name: str,
        partitions: int,
        replication_factor: int,
        config: Mapping[str, str],
        timeout_s: float = 60.0,
    ) -> bool:
        """Create ``name``; True if created, False if it already existed (or creating it is
        not permitted, as Java's ``TopicAdmin`` tolerates).

        Raises:
            KafkaClientError: the broker refused for another reason (the message names the
                topic and the broker's reason, e.g. a replication factor above the broker count).
        """
        new = NewTopic(
            name,
            num_partitions=partitions,
            replication_factor=replication_factor,
            config=dict(config),
        )
        deadline = time.monotonic() + timeout_s
        while True:
            fut = self._admin.create_topics([new], operation_timeout=30, request_timeout=30)[name]
            try:
                fut.result(timeout=max(1.0, deadline - time.monotonic()))
                log.info(
                    "Created topic %s (partitions=%d, rf=%d)", name, partitions, replication_factor
                )
                return True
            except KafkaException as e:
                err = e.args[0] if e.args else None
                code = err.code() if isinstance(err, KafkaError) else None
                if code == KafkaError.TOPIC_ALREADY_EXISTS:
                    return False
                if code in (
                    KafkaError.TOPIC_AUTHORIZATION_FAILED,
                    KafkaError.CLUSTER_AUTHORIZATION_FAILED,
                ):
                    log.warning(
                        "Not authorized to create topic %s; assuming it exists: %s", name, err
                    )
                    return False
                retriable = isinstance(err, KafkaError) and err.retriable()
                if not retriable or time.monotonic() >= deadline:
                    raise from_kafka_error(
                        e,
                        f"Unable to create topic '{name}' (partitions={partitions}, "
                        f"replication factor={replication_factor})",
                    ) from e
                time.sleep(0.5)

    def cleanup_policy(self, name: str, timeout_s: float = 30.0) -> set[str]:
        """The topic's ``cleanup.policy`` values (empty when it cannot be described)."""
        resource = ConfigResource("topic", name)
        try:
            configs = self._admin.describe_configs([resource], request_timeout=timeout_s)[
                resource
            ].result(timeout=timeout_s)
        except KafkaException as e:
            log.info("Unable to describe the configuration of topic %s: %s", name, e)
            return set()
        entry = configs.get("cleanup.policy")
        if entry is None or entry.value is None:
            return set()
        return {p.strip().lower() for p in str(entry.value).split(",") if p.strip()}

    def partition_count(self, name: str, timeout_s: float = 10.0) -> int:
        """Partitions of ``name`` (0 if it does not exist)."""
        md = self._admin.list_topics(name, timeout=timeout_s)
        t = md.topics.get(name)
        return 0 if t is None or t.error is not None else len(t.partitions)
