"""Read-only looks at a cluster, the way Kafka's console tools give them: every record of a
topic from the beginning (``kafka-console-consumer.sh --from-beginning``), which member of a
consumer group holds which partitions (``kafka-consumer-groups.sh --describe``), and deleting
a consumer group.

Used by :mod:`kconnect.testing` and the ``kconnect demo`` narration, never on a worker's hot
path. Every call builds a short-lived client, blocks up to its timeout and closes the client
before returning; safe to call from any thread.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException
from confluent_kafka import TopicPartition as _TP
from confluent_kafka.admin import AdminClient

from kconnect.kafka.clients.client_config import to_librdkafka, with_client_logger
from kconnect.kafka.clients.consumer import consume_available

__all__ = [
    "GroupView",
    "TopicRecord",
    "delete_group",
    "describe_group",
    "read_topic",
    "read_topic_tail",
]


@dataclass(frozen=True)
class TopicRecord:
    """One record as the console consumer sees it: raw key/value bytes and headers."""

    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


def _quiet(bootstrap: str) -> dict[str, str | int | float | bool]:
    return {"bootstrap.servers": bootstrap, "log_level": 0}


def read_topic(bootstrap: str, topic: str, timeout_s: float = 30.0) -> list[TopicRecord]:
    """Every record of ``topic`` from offset 0 up to the end offsets seen at the call,
    ordered by partition then offset. No consumer group is joined or committed.

    Raises :class:`TimeoutError` when the records up to those end offsets cannot all be read
    within ``timeout_s``, and ``KafkaException`` when the topic does not exist.
    """
    consumer = Consumer(
        {
            **_quiet(bootstrap),
            "group.id": f"kconnect-inspect-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
        }
    )
    try:
        md = consumer.list_topics(topic, timeout=timeout_s)
        meta = md.topics.get(topic)
        if meta is None or meta.error is not None:
            raise KafkaException(meta.error if meta is not None else f"no topic {topic}")
        ends: dict[int, int] = {}
        for p in sorted(meta.partitions):
            low, high = consumer.get_watermark_offsets(_TP(topic, p), timeout=timeout_s)
            if high > low:
                ends[p] = high
        if not ends:
            return []
        consumer.assign([_TP(topic, p, OFFSET_BEGINNING) for p in ends])
        out: list[TopicRecord] = []
        remaining = dict(ends)
        deadline = time.monotonic() + timeout_s
        while remaining:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"read {len(out)} records of {topic} in {timeout_s:.0f} s; partitions "
                    f"{sorted(remaining)} did not reach their end offsets {remaining}"
                )
            for msg in consume_available(consumer, 500, 0.5):
                if msg.error() is not None:
                    continue
                p, off = msg.partition(), msg.offset()
                # a consumed message without error always has both (None is for produce-side
                # messages); skip rather than compare None with an offset
                if p is None or off is None or p not in remaining or off >= remaining[p]:
                    continue
                # consumed headers are always a list of (str, bytes | None) pairs
                headers = cast("list[tuple[str, bytes | None]] | None", msg.headers())
                out.append(TopicRecord(p, off, msg.key(), msg.value(), tuple(headers or ())))
                if off + 1 >= remaining[p]:
                    del remaining[p]
        out.sort(key=lambda r: (r.partition, r.offset))
        return out
    finally:
        consumer.close()


def read_topic_tail(
    client_props: Mapping[str, object], topic: str, last: int, timeout_s: float = 10.0
) -> list[TopicRecord]:
    """The last ``last`` records of ``topic`` (Java-named client settings: bootstrap servers and
    security), newest first: up to ``last`` from the end of each partition, merged by record
    timestamp. No consumer group is joined or committed.

    Raises :class:`LookupError` when the topic does not exist and ``KafkaException`` when the
    cluster cannot be reached; records not read within ``timeout_s`` are left out.
    """
    config = with_client_logger(to_librdkafka(client_props))
    config.update(
        {
            "group.id": f"kconnect-dashboard-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
        }
    )
    consumer = Consumer(config)
    try:
        md = consumer.list_topics(topic, timeout=timeout_s)
        meta = md.topics.get(topic)
        if meta is None or meta.error is not None:
            raise LookupError(f"topic {topic} does not exist")
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        for p in sorted(meta.partitions):
            low, high = consumer.get_watermark_offsets(_TP(topic, p), timeout=timeout_s)
            if high > low:
                starts[p], ends[p] = max(low, high - last), high
        if not ends:
            return []
        consumer.assign([_TP(topic, p, starts[p]) for p in ends])
        found: list[tuple[int, TopicRecord]] = []
        remaining = dict(ends)
        deadline = time.monotonic() + timeout_s
        while remaining and time.monotonic() < deadline:
            for msg in consume_available(consumer, 500, 0.2):
                p, off = msg.partition(), msg.offset()
                if msg.error() is not None or p is None or off is None or p not in remaining:
                    continue
                headers = cast("list[tuple[str, bytes | None]] | None", msg.headers())
                _kind, stamp = msg.timestamp()
                found.append(
                    (stamp, TopicRecord(p, off, msg.key(), msg.value(), tuple(headers or ())))
                )
                if off + 1 >= remaining[p]:
                    del remaining[p]
        found.sort(key=lambda x: (x[0], x[1].offset), reverse=True)
        return [record for _, record in found[:last]]
    finally:
        consumer.close()


@dataclass(frozen=True)
class GroupView:
    """A consumer group as ``kafka-consumer-groups.sh --describe`` shows it: its state
    (``STABLE``, ``PREPARING_REBALANCE``, ...) and each member's client id with its assigned
    (topic, partition)s, sorted."""

    state: str
    members: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]


def describe_group(bootstrap: str, group_id: str, timeout_s: float = 10.0) -> GroupView:
    """The current state and assignment of ``group_id`` (state ``DEAD`` or no members when the
    group does not exist)."""
    admin = AdminClient(_quiet(bootstrap))
    future = admin.describe_consumer_groups([group_id], request_timeout=timeout_s)[group_id]
    description = future.result(timeout=timeout_s)
    members = []
    for member in description.members or []:
        parts = member.assignment.topic_partitions if member.assignment else []
        members.append((member.client_id, tuple(sorted((tp.topic, tp.partition) for tp in parts))))
    state = getattr(description.state, "name", str(description.state))
    return GroupView(state, tuple(sorted(members)))


def delete_group(bootstrap: str, group_id: str, timeout_s: float = 10.0) -> bool:
    """Delete ``group_id`` and its committed offsets; False when it does not exist or still
    has members (best effort, for clean-up)."""
    admin = AdminClient(_quiet(bootstrap))
    future = admin.delete_consumer_groups([group_id], request_timeout=timeout_s)[group_id]
    try:
        future.result(timeout=timeout_s)
    except Exception:
        return False
    return True
