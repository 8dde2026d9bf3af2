"""The consumer sink tasks read with.

Kafka Connect's sink consumer defaults (``Worker.baseConsumerConfigs``): group
``connect-<connector>``, no auto-commit (the task commits what the sink made durable),
``auto.offset.reset=earliest``. ``topics.regex`` is subscribed as a librdkafka pattern
anchored at both ends, because Java matches the whole topic name.

Start positions: on an eager assignment the consumer reads the group's committed offsets
itself (one OffsetFetch) and assigns each new partition its committed offset, or the
``auto.offset.reset`` end when the group has none -- what Java's consumer does. Left to
librdkafka, a partition without a committed offset waits a fixed 100 ms backoff before its
offset lookup, so every sink task start (and every first assignment of a partition) lost
100 ms before its first fetch. Should the lookup fail, librdkafka resolves the positions as
before.

Threading: one consumer per task, used from the task thread only; the assignment callbacks
run inside :meth:`Consumer.consume` on that thread, as Java's rebalance listener runs inside
``poll``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, OFFSET_INVALID, KafkaException
from confluent_kafka import Consumer as _Consumer
from confluent_kafka import TopicPartition as _TP

from kconnect.api.records import TopicPartition
from kconnect.kafka.clients.client_config import to_librdkafka, with_client_logger
from kconnect.kafka.clients.client_stats import (
    DEFAULT_STATS_INTERVAL_MS,
    ClientStats,
    stats_callback,
)
from kconnect.kafka.clients.errors import KafkaSecurityError, from_kafka_error
from kconnect.kafka.clients.security_errors import SecurityFailure, error_callback

__all__ = [
    "DEFAULT_MAX_POLL_RECORDS",
    "Consumer",
    "consume_available",
    "consumer_defaults",
    "max_poll_records",
]

#: Kafka's ``ConsumerConfig`` default of ``max.poll.records``: the most messages one poll returns.
DEFAULT_MAX_POLL_RECORDS = 500
#: librdkafka ``fetch.queue.backoff.ms`` for sink consumers (librdkafka's default is 1000).
FETCH_QUEUE_BACKOFF_MS = 20
#: How long an assignment waits for the group's committed offsets before leaving the start
#: positions to librdkafka.
COMMITTED_TIMEOUT_S = 5.0
#: ``auto.offset.reset`` values (Java's and librdkafka's spellings) -> logical start offset.
_RESET_TO: dict[str, int] = {
    "earliest": OFFSET_BEGINNING,
    "smallest": OFFSET_BEGINNING,
    "beginning": OFFSET_BEGINNING,
    "latest": OFFSET_END,
    "largest": OFFSET_END,
    "end": OFFSET_END,
}


def max_poll_records(java_props: Mapping[str, object]) -> int:
    """``max.poll.records`` of a consumer's Java properties, or Kafka's default."""
    return int(str(java_props.get("max.poll.records", DEFAULT_MAX_POLL_RECORDS)))


PartitionsCallback = Callable[[list[TopicPartition]], None]
AssignCallback = Callable[[list[TopicPartition]], "Mapping[TopicPartition, int] | None"]


def consumer_defaults(group_id: str, client_id: str) -> dict[str, object]:
    """Kafka Connect's sink consumer defaults, in Java property names."""
    return {
        "group.id": group_id,
        "client.id": client_id,
        "enable.auto.commit": "false",
        "auto.offset.reset": "earliest",
    }


def _ours(parts: Iterable[Any]) -> list[TopicPartition]:
    return [TopicPartition(p.topic, p.partition) for p in parts]


class Consumer:
    """A byte-array consumer. Messages from :meth:`consume` expose ``topic()``,
    ``partition()``, ``offset()``, ``key()``, ``value()``, ``headers()`` (list of
    ``(str, bytes)`` or None), ``timestamp()`` (``(type, ms)``: type 0 none, 1 create time,
    2 log append time) and ``error()``.
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
        # librdkafka stops fetching a partition whose local queue is full and, by default,
        # looks again only after 1 s: a sink task draining ~100k queued messages faster than
        # that then sat idle ~0.5 s per 100k records (half of a JDBC sink bench's time).
        # Java's consumer fetches again as soon as its buffer drains; a short backoff does
        # the same at the cost of a few wake-ups of the fetch thread while the queue is full.
        config.setdefault("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS)
        self._security_failure: SecurityFailure | None = None
        config["error_cb"] = error_callback(self._on_security_failure)
        try:
            self._consumer = _Consumer(with_client_logger(config))
        except KafkaException as e:
            raise from_kafka_error(e, "Failed to construct kafka consumer") from e
        self.group_id = str(config.get("group.id", ""))
        #: partitions revoked (or lost) by a rebalance callback since consume() began
        self._revoked: set[TopicPartition] = set()
        # Start positions are resolved here only on eager assignments (assign() replaces the
        # whole assignment; cooperative ones would need incremental_assign) and for a reset
        # policy with an end to start from ("none", librdkafka's "error", must fail there, as in
        # Java).
        eager = "cooperative" not in str(config.get("partition.assignment.strategy", "")) and (
            str(config.get("group.protocol", "classic")).lower() == "classic"
        )
        reset = str(config.get("auto.offset.reset", "latest")).strip().lower()
        self._reset_to: int | None = _RESET_TO.get(reset) if eager else None

    def subscribe(
        self,
        topics: list[str] | None,
        regex: str | None,
        on_assign: AssignCallback,
        on_revoke: PartitionsCallback,
    ) -> None:
        """Subscribe to ``topics`` or to every topic fully matching ``regex``.

        ``on_assign`` may return start offsets for some of the new partitions.
        """
        names = list(topics or [])
        if regex:
            names = ["^(" + regex + ")$"]

        def assign_cb(c: Any, parts: list[Any]) -> None:
            # Start positions chosen by the callback (SinkTaskContext.offset on open) win; the
            # other partitions start at their committed offset or the reset end.
            starts = dict(on_assign(_ours(parts)) or {})
            rest = [p for p in parts if TopicPartition(p.topic, p.partition) not in starts]
            starts.update(self._start_positions(c, rest))
            if starts:
                c.assign(
                    [
                        _TP(
                            p.topic,
                            p.partition,
                            starts.get(TopicPartition(p.topic, p.partition), p.offset),
                        )
                        for p in parts
                    ]
                )

        def revoke_cb(_c: Any, parts: list[Any]) -> None:
            gone = _ours(parts)
            self._revoked.update(gone)
            on_revoke(gone)

        self._consumer.subscribe(names, on_assign=assign_cb, on_revoke=revoke_cb, on_lost=revoke_cb)

    def _start_positions(self, c: Any, parts: list[Any]) -> dict[TopicPartition, int]:
        """Each of ``parts``' committed offset, or the reset end where the group has none;
        empty when positions are librdkafka's to resolve (see the module docstring)."""
        if self._reset_to is None or not parts:
            return {}
        try:
            committed = c.committed(
                [_TP(p.topic, p.partition) for p in parts], timeout=COMMITTED_TIMEOUT_S
            )
        except KafkaException:
            return {}
        if any(r.error is not None for r in committed):
            return {}
        return {
            TopicPartition(r.topic, r.partition): (r.offset if r.offset >= 0 else self._reset_to)
            for r in committed
        }

    def _on_security_failure(self, failure: SecurityFailure) -> None:
        self._security_failure = failure

    def consume(self, max_records: int, timeout: float) -> list[Any]:
        """Up to ``max_records`` messages, waiting at most ``timeout`` s for the first.

        Raises:
            KafkaSecurityError: the cluster refused the consumer's login or TLS handshake (as
                Java's consumer, fatal: a sink task fails with it).
        """
        try:
            messages = consume_available(self._consumer, max_records, timeout, self._revoked)
        except KafkaException as e:
            raise from_kafka_error(e, "Failed to poll consumer") from e
        if messages:  # the client reaches the cluster: a failure seen before is past
            self._security_failure = None
        elif self._security_failure is not None:
            raise KafkaSecurityError(
                f"Consumer of group {self.group_id} cannot read from the Kafka cluster: "
                f"{self._security_failure}"
            )
        return messages

    def assignment(self) -> set[TopicPartition]:
        return set(_ours(self._consumer.assignment()))

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        parts = [_TP(t, p) for t, p in partitions]
        if parts:
            self._consumer.pause(parts)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        parts = [_TP(t, p) for t, p in partitions]
        if parts:
            self._consumer.resume(parts)

    def seek(self, tp: TopicPartition, offset: int) -> None:
        """Move the fetch position; the next consume returns ``offset`` first."""
        self._consumer.seek(_TP(tp.topic, tp.partition, offset))

    def committed(
        self, partitions: Iterable[TopicPartition], timeout: float = 10.0
    ) -> dict[TopicPartition, int | None]:
        """The group's committed offsets (None when nothing was committed)."""
        res = self._consumer.committed([_TP(t, p) for t, p in partitions], timeout=timeout)
        return {
            TopicPartition(r.topic, r.partition): (
                None if r.offset == OFFSET_INVALID or r.offset < 0 else r.offset
            )
            for r in res
        }

    def position(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int | None]:
        res = self._consumer.position([_TP(t, p) for t, p in partitions])
        return {
            TopicPartition(r.topic, r.partition): (None if r.offset < 0 else r.offset) for r in res
        }

    def commit(self, offsets: Mapping[TopicPartition, int], asynchronous: bool) -> None:
        """Commit ``offsets`` (next offset to read per partition).

        Raises:
            KafkaClientError: the synchronous commit failed.
        """
        if not offsets:
            return
        parts = [_TP(tp.topic, tp.partition, off) for tp, off in offsets.items()]
        try:
            if asynchronous:
                self._consumer.commit(offsets=parts, asynchronous=True)
            else:
                self._consumer.commit(offsets=parts, asynchronous=False)
        except KafkaException as e:
            raise from_kafka_error(e, "Offset commit failed") from e

    def close(self) -> None:
        """Leave the group (revocation callbacks run) and drop the client."""
        self._consumer.close()


def consume_available(
    consumer: Any, max_records: int, timeout_s: float, revoked: set[TopicPartition] | None = None
) -> list[Any]:
    """Up to ``max_records`` messages of a librdkafka consumer, returning as soon as there is
    one (or after ``timeout_s`` with none), as Java's ``poll`` does.

    librdkafka's ``consume(n, timeout)`` returns only once it has ``n`` messages or the
    timeout passed: a reader of a quiet topic got each record up to ``timeout`` late (every
    config and status write's read-back took the log's 100 ms wait, every bounded read its
    last wait). Here the first message is waited for, the rest are what is already fetched.
    Error events (partition EOF...) come back as messages, as from ``consume``.

    A subscribed consumer passes ``revoked``, the set its revocation callback fills: a
    rebalance served by the second call revokes partitions after the first message left
    librdkafka, which then cannot drop it as it drops the outdated messages of one call. If
    that message's partition was revoked it is dropped here: when the partition comes back its
    position is the committed offset, and delivering the old copy too would hand the task the
    same record twice (Java's ``poll`` never returns a record from before a rebalance).
    """
    first = consumer.poll(timeout_s)
    if first is None:
        return []
    if max_records <= 1:
        return [first]
    if revoked is not None:
        revoked.clear()
    rest: list[Any] = consumer.consume(max_records - 1, 0)
    if revoked and TopicPartition(first.topic(), first.partition()) in revoked:
        return rest
    rest.insert(0, first)
    return rest
