"""Records: ``ConnectRecord``, ``SourceRecord``, ``SinkRecord`` (``org.apache.kafka.connect``).

Records are what connectors, converters and transformations exchange. They are treated as
immutable by convention: a transformation returns a new record through :meth:`new_record`
rather than changing the one it was given (the original may still be reported to the dead
letter queue). ``headers`` is the one mutable part, as in Kafka.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

from kconnect.api.data.schema import Schema
from kconnect.api.headers import Headers

__all__ = [
    "ConnectRecord",
    "RecordMetadata",
    "SinkRecord",
    "SourceRecord",
    "TimestampType",
    "TopicPartition",
]

R = TypeVar("R", bound="ConnectRecord")


class TimestampType(enum.Enum):
    """How a Kafka record's timestamp was set (``org.apache.kafka.common.record.TimestampType``)."""

    NO_TIMESTAMP_TYPE = "NoTimestampType"
    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


class TopicPartition(NamedTuple):
    """A Kafka topic and partition."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class RecordMetadata(NamedTuple):
    """Where the producer wrote a source record; passed to ``SourceTask.commit_record``."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None


class ConnectRecord:
    """The fields every record has: topic, partition, key and value with schemas, timestamp
    (epoch ms or None) and headers."""

    __slots__ = (
        "_headers",
        "kafka_partition",
        "key",
        "key_schema",
        "timestamp",
        "topic",
        "value",
        "value_schema",
    )

    def __init__(
        self,
        topic: str,
        kafka_partition: int | None,
        key_schema: Schema | None,
        key: Any,
        value_schema: Schema | None,
        value: Any,
        timestamp: int | None = None,
        headers: Headers | None = None,
    ) -> None:
        self.topic = topic
        self.kafka_partition = kafka_partition
        self.key_schema = key_schema
        self.key = key
        self.value_schema = value_schema
        self.value = value
        self.timestamp = timestamp
        # None stands for "no headers yet": most records never get one, so the Headers object
        # is only made when someone asks for it (see the ``headers`` property).
        self._headers = headers

    @property
    def headers(self) -> Headers:
        """The record's headers (mutable, owned by this record)."""
        h = self._headers
        if h is None:
            h = self._headers = Headers()
        return h

    @headers.setter
    def headers(self, headers: Headers) -> None:
        self._headers = headers

    def _copied_headers(self) -> Headers | None:
        """A copy of the headers for a derived record (None while there are none to copy)."""
        h = self._headers
        return None if h is None or h.is_empty() else h.duplicate()

    def new_record(
        self: R,
        topic: str,
        kafka_partition: int | None,
        key_schema: Schema | None,
        key: Any,
        value_schema: Schema | None,
        value: Any,
        timestamp: int | None,
        headers: Headers | None = None,
    ) -> R:
        """A copy of this record (of the same class) with the given fields replaced.

        ``headers`` defaults to a copy of this record's headers. Subclasses override it to
        carry their own fields over.
        """
        return type(self)(
            topic,
            kafka_partition,
            key_schema,
            key,
            value_schema,
            value,
            timestamp,
            headers if headers is not None else self._copied_headers(),
        )

    def _base_eq(self, other: ConnectRecord) -> bool:
        return (
            self.topic == other.topic
            and self.kafka_partition == other.kafka_partition
            and self.key_schema == other.key_schema
            and self.key == other.key
            and self.value_schema == other.value_schema
            and self.value == other.value
            and self.timestamp == other.timestamp
            and self.headers == other.headers
        )

    __hash__ = None  # type: ignore[assignment]


class SourceRecord(ConnectRecord):
    """A record produced by a source task, with the source partition and offset it came from.

    ``source_partition`` and ``source_offset`` are maps of primitive values (no nested maps or
    lists); the runtime stores the latest acknowledged offset per partition.
    """

    __slots__ = ("source_offset", "source_partition")

    def __init__(
        self,
        source_partition: Mapping[str, Any] | None,
        source_offset: Mapping[str, Any] | None,
        topic: str,
        kafka_partition: int | None = None,
        key_schema: Schema | None = None,
        key: Any = None,
        value_schema: Schema | None = None,
        value: Any = None,
        timestamp: int | None = None,
        headers: Headers | None = None,
    ) -> None:
        # Hot path (every polled record): the ConnectRecord slots are filled here directly
        # rather than through super().__init__; the result is the same.
        self.topic = topic
        self.kafka_partition = kafka_partition
        self.key_schema = key_schema
        self.key = key
        self.value_schema = value_schema
        self.value = value
        self.timestamp = timestamp
        self._headers = headers
        self.source_partition = source_partition
        self.source_offset = source_offset

    def new_record(
        self,
        topic: str,
        kafka_partition: int | None,
        key_schema: Schema | None,
        key: Any,
        value_schema: Schema | None,
        value: Any,
        timestamp: int | None,
        headers: Headers | None = None,
    ) -> SourceRecord:
        # Hot path (every transformation of every record): fill the slots directly rather
        # than going through the two-level __init__; the result is the same.
        r = _new_source(SourceRecord)
        r.topic = topic
        r.kafka_partition = kafka_partition
        r.key_schema = key_schema
        r.key = key
        r.value_schema = value_schema
        r.value = value
        r.timestamp = timestamp
        r._headers = headers if headers is not None else self._copied_headers()
        r.source_partition = self.source_partition
        r.source_offset = self.source_offset
        return r

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceRecord):
            return NotImplemented
        return (
            self._base_eq(other)
            and self.source_partition == other.source_partition
            and self.source_offset == other.source_offset
        )

    __hash__ = None

    def __repr__(self) -> str:
        return (
            f"SourceRecord{{sourcePartition={self.source_partition}, "
            f"sourceOffset={self.source_offset}}} topic={self.topic} "
            f"kafkaPartition={self.kafka_partition} key={self.key} value={self.value} "
            f"timestamp={self.timestamp}"
        )


class SinkRecord(ConnectRecord):
    """A record consumed from Kafka for a sink task, with its offset and timestamp type.

    ``original_topic``, ``original_kafka_partition`` and ``original_kafka_offset`` keep where
    the record was read even after transformations rename the topic (KIP-793); sink tasks
    report offsets against them.
    """

    __slots__ = (
        "kafka_offset",
        "original_kafka_offset",
        "original_kafka_partition",
        "original_topic",
        "timestamp_type",
    )

    def __init__(
        self,
        topic: str,
        kafka_partition: int,
        key_schema: Schema | None,
        key: Any,
        value_schema: Schema | None,
        value: Any,
        kafka_offset: int,
        timestamp: int | None = None,
        timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE,
        headers: Headers | None = None,
        original_topic: str | None = None,
        original_kafka_partition: int | None = None,
        original_kafka_offset: int | None = None,
    ) -> None:
        # Hot path (every consumed record): slots filled directly, as in SourceRecord.
        self.topic = topic
        self.kafka_partition = kafka_partition
        self.key_schema = key_schema
        self.key = key
        self.value_schema = value_schema
        self.value = value
        self.timestamp = timestamp
        self._headers = headers
        self.kafka_offset = kafka_offset
        self.timestamp_type = timestamp_type
        self.original_topic = topic if original_topic is None else original_topic
        self.original_kafka_partition = (
            kafka_partition if original_kafka_partition is None else original_kafka_partition
        )
        self.original_kafka_offset = (
            kafka_offset if original_kafka_offset is None else original_kafka_offset
        )

    def new_record(
        self,
        topic: str,
        kafka_partition: int | None,
        key_schema: Schema | None,
        key: Any,
        value_schema: Schema | None,
        value: Any,
        timestamp: int | None,
        headers: Headers | None = None,
    ) -> SinkRecord:
        # As SourceRecord.new_record: slots filled directly, same result as the constructor.
        r = _new_sink(SinkRecord)
        r.topic = topic
        r.kafka_partition = kafka_partition if kafka_partition is not None else -1
        r.key_schema = key_schema
        r.key = key
        r.value_schema = value_schema
        r.value = value
        r.timestamp = timestamp
        r._headers = headers if headers is not None else self._copied_headers()
        r.kafka_offset = self.kafka_offset
        r.timestamp_type = self.timestamp_type
        r.original_topic = self.original_topic
        r.original_kafka_partition = self.original_kafka_partition
        r.original_kafka_offset = self.original_kafka_offset
        return r

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SinkRecord):
            return NotImplemented
        return (
            self._base_eq(other)
            and self.kafka_offset == other.kafka_offset
            and self.timestamp_type == other.timestamp_type
        )

    __hash__ = None

    def __repr__(self) -> str:
        return (
            f"SinkRecord{{kafkaOffset={self.kafka_offset}, "
            f"timestampType={self.timestamp_type.value}}} topic={self.topic} "
            f"kafkaPartition={self.kafka_partition} key={self.key} value={self.value} "
            f"timestamp={self.timestamp}"
        )


_new_source = SourceRecord.__new__
_new_sink = SinkRecord.__new__
