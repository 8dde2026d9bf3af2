"""The producer source tasks (and the dead letter queue) write with.

Kafka Connect's task producer defaults (``Worker.baseProducerConfigs``): ``acks=all``,
one request in flight per connection (so retries keep order), no idempotence, effectively
unlimited retries and delivery timeout. Keys are partitioned with librdkafka's
``murmur2_random``, which for a non-null key picks the same partition as Java's default
partitioner (see :mod:`kconnect.kafka.clients.partitioner`).

Threading: a task's own producer is used from the task thread only; one shared by several
source tasks (:mod:`kconnect.kafka.clients.shared_producer`) from each of their threads.
Delivery callbacks run on the thread that calls :meth:`Producer.poll` or
:meth:`Producer.flush`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import Producer as _Producer

from kconnect.kafka.clients.client_config import to_librdkafka, with_client_logger
from kconnect.kafka.clients.client_stats import (
    DEFAULT_STATS_INTERVAL_MS,
    ClientStats,
    stats_callback,
)
from kconnect.kafka.clients.errors import KafkaClientError, KafkaSecurityError, from_kafka_error
from kconnect.kafka.clients.security_errors import SecurityFailure, error_callback

__all__ = ["Producer", "TaskProducer", "producer_defaults"]

log = logging.getLogger(__name__)

#: How long ``init_transactions`` waits for a first broker connection before it starts.
CONNECT_WAIT_S = 5.0

#: How long ``produce`` waits for metadata that has a partition it was given (Java's
#: ``max.block.ms`` default).
PARTITION_WAIT_S = 60.0

INT_MAX = 2147483647


def producer_defaults(client_id: str) -> dict[str, object]:
    """Kafka Connect's task producer defaults, in Java property names."""
    return {
        "acks": "all",
        "max.in.flight.requests.per.connection": 1,
        "enable.idempotence": "false",
        "retries": INT_MAX,
        "delivery.timeout.ms": INT_MAX,
        "client.id": client_id,
    }


DeliveryCallback = Callable[[Any, Any], None]


class _Produce(Protocol):
    """``confluent_kafka.Producer.produce`` as this module calls it: every argument by
    position, in the order of its keyword list (topic, value, key, partition, callback,
    on_delivery, timestamp, headers). By position because the keyword form costs ~400 ns
    more per call (argument parsing against a dict), as much again as the rest of the call.
    ``callback`` is the delivery callback (``on_delivery`` is its alias and is passed None).
    Headers must be a list (confluent-kafka raises TypeError for a tuple) of (name, bytes or
    None) pairs."""

    def __call__(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None,
        partition: int,
        callback: DeliveryCallback | None,
        on_delivery: None,
        timestamp: int,
        headers: list[tuple[str, bytes | None]] | None,
        /,
    ) -> None: ...


class TaskProducer(Protocol):
    """What a source task uses of its producer: a :class:`Producer` of its own, or a handle
    on a producer shared with other tasks
    (:class:`~kconnect.kafka.clients.shared_producer.SharedProducerHandle`)."""

    client_id: str

    def produce(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        timestamp: int | None = None,
        headers: list[tuple[str, bytes | None]] | None = None,
        on_delivery: DeliveryCallback | None = None,
    ) -> None: ...

    def poll(self, timeout: float = 0.0) -> int: ...

    def flush(self, timeout: float) -> int: ...

    def close(self, timeout: float = 30.0) -> None: ...


class Producer:
    """A byte-array producer (keys, values and header values are ``bytes``).

    Build it with Java-named properties (``bootstrap.servers``, ``acks``...); they are
    translated for librdkafka. ``produce`` only enqueues; delivery reports arrive through
    ``on_delivery(err, msg)`` during :meth:`poll`/:meth:`flush` where ``err`` is None on
    success and ``msg.topic()``, ``msg.partition()``, ``msg.offset()``,
    ``msg.timestamp()`` say where the record was written. Use :func:`delivery_error` to
    turn ``err`` into a :class:`KafkaClientError`.
    """

    def __init__(
        self,
        props: Mapping[str, object],
        stats_listener: Callable[[ClientStats], None] | None = None,
    ) -> None:
        """``stats_listener`` receives parsed librdkafka statistics every
        ``statistics.interval.ms`` (default 5 s when a listener is given) on the thread
        that polls this client; its exceptions are logged, never raised."""
        config = to_librdkafka(props)
        if stats_listener is not None:
            config.setdefault("statistics.interval.ms", DEFAULT_STATS_INTERVAL_MS)
            config["stats_cb"] = stats_callback(stats_listener)
        config.setdefault("partitioner", "murmur2_random")
        self._security_failure: SecurityFailure | None = None
        config["error_cb"] = error_callback(self._on_security_failure)
        try:
            self._producer = _Producer(with_client_logger(config))
        except KafkaException as e:
            raise from_kafka_error(e, "Failed to construct kafka producer") from e
        # Typed once here rather than cast per record: the stub's header list type is
        # invariant in str | bytes, so our bytes-only list would not match it.
        self._produce = cast(_Produce, self._producer.produce)
        self.client_id = str(config.get("client.id", ""))

    def produce(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        timestamp: int | None = None,
        headers: list[tuple[str, bytes | None]] | None = None,
        on_delivery: DeliveryCallback | None = None,
    ) -> None:
        """Enqueue one record.

        Raises:
            BufferError: the local queue is full; serve callbacks with :meth:`poll` and retry.
            KafkaClientError: the record was rejected synchronously (e.g. too large).
        """
        # One call shape for every record, by position (see _Produce): confluent-kafka reads
        # partition -1 as "let the partitioner choose", timestamp 0 as "now", headers None as
        # none and a None callback as the client's default callback, as when they are left out.
        p = partition if partition is not None and partition >= 0 else -1
        try:
            self._produce(topic, value, key, p, on_delivery, None, timestamp or 0, headers or None)
        except KafkaException as e:
            # off the per-record path: only a refused record gets here
            if not _unknown_partition(e) or not self._await_partition(topic, p):
                raise from_kafka_error(e, f"Failed to send record to topic {topic}") from e
            try:
                self._produce(
                    topic, value, key, p, on_delivery, None, timestamp or 0, headers or None
                )
            except KafkaException as again:
                raise from_kafka_error(again, f"Failed to send record to topic {topic}") from again

    def _await_partition(self, topic: str, partition: int) -> bool:
        """Refresh the topic's metadata until it has ``partition`` (up to
        :data:`PARTITION_WAIT_S`); False if it never does. librdkafka refuses a record for a
        partition its cached metadata lacks at once, and refreshes that cache only every
        ``topic.metadata.refresh.interval.ms`` (5 min); Java's producer waits for metadata
        that has it. A producer that outlives a partition increase (one shared by several
        tasks, a long-running task's) sees new partitions through this."""
        deadline = time.monotonic() + PARTITION_WAIT_S
        while True:
            try:
                md = self._producer.list_topics(topic=topic, timeout=5.0)
                t = md.topics.get(topic)
                if t is not None and t.error is None and partition in t.partitions:
                    return True
            except KafkaException as e:
                log.debug("Producer %s: no metadata for %s: %s", self.client_id, topic, e)
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.5)

    def _on_security_failure(self, failure: SecurityFailure) -> None:
        self._security_failure = failure

    def _raise_security_failure(self) -> None:
        if self._security_failure is not None:  # as Java's producer: fatal for the client
            raise KafkaSecurityError(
                f"Producer {self.client_id} cannot write to the Kafka cluster: "
                f"{self._security_failure}"
            )

    def poll(self, timeout: float = 0.0) -> int:
        """Serve delivery callbacks; returns how many were served.

        Raises:
            KafkaSecurityError: the cluster refused the producer's login or TLS handshake.
        """
        served = int(self._producer.poll(timeout))
        self._raise_security_failure()
        return served

    def flush(self, timeout: float) -> int:
        """Wait up to ``timeout`` s for every queued record; returns how many are still queued.

        Raises:
            KafkaSecurityError: the cluster refused the producer's login or TLS handshake.
        """
        remaining = int(self._producer.flush(timeout))
        if remaining:
            self._raise_security_failure()
        return remaining

    def __len__(self) -> int:
        return len(self._producer)

    def partitions_for(self, topic: str, timeout: float = 5.0) -> int:
        """Number of partitions of ``topic`` (0 if it does not exist)."""
        md = self._producer.list_topics(topic=topic, timeout=timeout)
        t = md.topics.get(topic)
        if t is None or t.error is not None:
            return 0
        return len(t.partitions)

    # -- transactions (a producer built with ``transactional.id``) ---------------------------

    def init_transactions(self, timeout: float) -> None:
        """Register the ``transactional.id`` with its coordinator: fences out every earlier
        producer with the same id and aborts its open transaction.

        Raises:
            KafkaClientError: failed or timed out (``retriable`` when it may be tried again).
        """
        # librdkafka looks for the transaction coordinator through a broker that is up; called
        # right after the client was made, it finds none ("No brokers available for
        # Transactions") and tries again only on its 500 ms coordinator timer. One metadata
        # request first connects to a broker (~5-60 ms): init_transactions then takes ~5 ms
        # instead of ~510. Its failure is left to init_transactions to report.
        started = time.monotonic()
        try:
            self._producer.list_topics(timeout=min(timeout, CONNECT_WAIT_S))
        except KafkaException as e:
            log.debug("Producer %s: no metadata before init_transactions: %s", self.client_id, e)
        remaining = max(0.001, timeout - (time.monotonic() - started))
        self._transaction_call(
            "initialize transactions", self._producer.init_transactions, remaining
        )

    def begin_transaction(self) -> None:
        self._transaction_call("begin a transaction", self._producer.begin_transaction)

    def commit_transaction(self, timeout: float) -> None:
        """Flush every queued record (delivery callbacks are served meanwhile) and commit.

        Raises:
            KafkaClientError: the commit failed; ``abortable`` says the transaction must be
                aborted, ``fatal`` (e.g. :class:`~kconnect.kafka.clients.errors.ProducerFencedError`)
                that the producer is unusable, ``retriable`` that a new call may succeed.
        """
        self._transaction_call("commit the transaction", self._producer.commit_transaction, timeout)

    def abort_transaction(self, timeout: float) -> None:
        """Drop every record of the current transaction (queued ones are purged)."""
        self._transaction_call("abort the transaction", self._producer.abort_transaction, timeout)

    def _transaction_call(self, what: str, call: Callable[..., None], *args: float) -> None:
        try:
            call(*args)
        except KafkaException as e:
            raise from_kafka_error(e, f"Producer {self.client_id} failed to {what}") from e

    def close(self, timeout: float = 30.0) -> None:
        """Flush what is queued (up to ``timeout`` s) and drop the client."""
        remaining = self._producer.flush(timeout)
        if remaining:
            log.warning("Producer %s closed with %d undelivered records", self.client_id, remaining)


def _unknown_partition(e: KafkaException) -> bool:
    err = e.args[0] if e.args else None
    return isinstance(err, KafkaError) and err.code() == KafkaError._UNKNOWN_PARTITION


def delivery_error(err: Any, topic: str) -> KafkaClientError:
    """The Connect exception for a failed delivery report."""
    return from_kafka_error(err, f"Failed to send record to topic {topic}")


__all__ += ["delivery_error"]
