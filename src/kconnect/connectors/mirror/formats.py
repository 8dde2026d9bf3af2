"""MirrorMaker 2's records, byte for byte as Java writes them: heartbeats, checkpoints and
offset syncs (``Heartbeat``, ``Checkpoint``, ``OffsetSync`` of ``connect-mirror(-client)``).

Keys and values are Kafka protocol structs: STRING is an INT16 length then UTF-8, integers are
big-endian. Heartbeat and checkpoint *values* start with an INT16 version (0); their keys, and
both halves of an offset sync, carry none.

============  =========================================  =====================================
record        key                                        value
============  =========================================  =====================================
heartbeat     sourceClusterAlias, targetClusterAlias     version, timestamp INT64
checkpoint    group, topic, partition INT32              version, upstreamOffset INT64,
                                                         offset INT64, metadata STRING
offset sync   topic, partition INT32                     upstreamOffset INT64, offset INT64
============  =========================================  =====================================

Decoding raises :class:`FormatError` (Java's ``SchemaException``) for bytes that do not hold
the struct or a version this code does not know.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from kconnect.api import TopicPartition

__all__ = ["Checkpoint", "FormatError", "Heartbeat", "OffsetSync"]

VERSION = 0
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_I64_I64 = struct.Struct(">qq")
_VERSION_HEADER = _I16.pack(VERSION)


class FormatError(ValueError):
    """Bytes that are not a valid MirrorMaker 2 record (Java's ``SchemaException``)."""


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    if len(data) > 32767:
        raise FormatError(f"String length {len(data)} is larger than the maximum string length.")
    return _I16.pack(len(data)) + data


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes | None) -> None:
        if data is None:
            raise FormatError("Record has no key or value")
        self.data = data
        self.pos = 0

    def _take(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise FormatError("Error reading struct: not enough bytes")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def int16(self) -> int:
        return int(_I16.unpack(self._take(2))[0])

    def int32(self) -> int:
        return int(_I32.unpack(self._take(4))[0])

    def int64(self) -> int:
        return int(_I64.unpack(self._take(8))[0])

    def string(self) -> str:
        n = self.int16()
        if n < 0:
            raise FormatError("String length must not be negative")
        try:
            return self._take(n).decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(f"Invalid UTF-8 string: {e}") from None

    def version(self) -> int:
        version = self.int16()
        if version != VERSION:
            raise FormatError(f"Unknown record version {version}")
        return version


@dataclass(frozen=True)
class Heartbeat:
    """``Heartbeat{sourceClusterAlias, targetClusterAlias, timestamp}``."""

    source_cluster_alias: str
    target_cluster_alias: str
    timestamp: int

    def record_key(self) -> bytes:
        return _string(self.source_cluster_alias) + _string(self.target_cluster_alias)

    def record_value(self) -> bytes:
        return _VERSION_HEADER + _I64.pack(self.timestamp)

    def connect_partition(self) -> dict[str, Any]:
        # Java's HashMap order of these keys (see Checkpoint.connect_partition)
        return {
            "sourceClusterAlias": self.source_cluster_alias,
            "targetClusterAlias": self.target_cluster_alias,
        }

    @staticmethod
    def from_record(key: bytes | None, value: bytes | None) -> Heartbeat:
        v = _Reader(value)
        v.version()
        timestamp = v.int64()
        k = _Reader(key)
        return Heartbeat(k.string(), k.string(), timestamp)

    def __str__(self) -> str:
        return (
            f"Heartbeat{{sourceClusterAlias={self.source_cluster_alias}, "
            f"targetClusterAlias={self.target_cluster_alias}, timestamp={self.timestamp}}}"
        )


@dataclass(frozen=True)
class Checkpoint:
    """A consumer group's position translated to the target cluster: ``topic_partition`` is the
    *downstream* (remote) partition, ``upstream_offset`` the group's offset on the source and
    ``downstream_offset`` the offset a consumer of the remote topic resumes from."""

    consumer_group_id: str
    topic_partition: TopicPartition
    upstream_offset: int
    downstream_offset: int
    metadata: str

    def record_key(self) -> bytes:
        return (
            _string(self.consumer_group_id)
            + _string(self.topic_partition.topic)
            + _I32.pack(self.topic_partition.partition)
        )

    def record_value(self) -> bytes:
        return (
            _VERSION_HEADER
            + _I64_I64.pack(self.upstream_offset, self.downstream_offset)
            + _string(self.metadata)
        )

    def connect_partition(self) -> dict[str, Any]:
        # in the order Java's HashMap iterates these keys: the offsets-topic key's bytes
        # (JSON in map order) must be the ones a Java worker writes
        return {
            "partition": self.topic_partition.partition,
            "topic": self.topic_partition.topic,
            "group": self.consumer_group_id,
        }

    @staticmethod
    def from_record(key: bytes | None, value: bytes | None) -> Checkpoint:
        v = _Reader(value)
        v.version()
        upstream, downstream = v.int64(), v.int64()
        metadata = v.string()
        k = _Reader(key)
        group, topic, partition = k.string(), k.string(), k.int32()
        return Checkpoint(group, TopicPartition(topic, partition), upstream, downstream, metadata)

    def __str__(self) -> str:
        return (
            f"Checkpoint{{consumerGroupId={self.consumer_group_id}, "
            f"topicPartition={self.topic_partition}, upstreamOffset={self.upstream_offset}, "
            f"downstreamOffset={self.downstream_offset}, metadata={self.metadata}}}"
        )


@dataclass(frozen=True, eq=False)
class OffsetSync:
    """Upstream offset ``upstream_offset`` of ``topic_partition`` (a *source* partition) was
    written downstream at ``downstream_offset``. Compared by identity, as the offset-sync
    store's invariants are (Java compares these objects with ``==``)."""

    topic_partition: TopicPartition
    upstream_offset: int
    downstream_offset: int

    def record_key(self) -> bytes:
        return _string(self.topic_partition.topic) + _I32.pack(self.topic_partition.partition)

    def record_value(self) -> bytes:
        return _I64_I64.pack(self.upstream_offset, self.downstream_offset)

    @staticmethod
    def from_record(key: bytes | None, value: bytes | None) -> OffsetSync:
        k = _Reader(key)
        topic, partition = k.string(), k.int32()
        v = _Reader(value)
        upstream, downstream = v.int64(), v.int64()
        return OffsetSync(TopicPartition(topic, partition), upstream, downstream)

    def __str__(self) -> str:
        return (
            f"OffsetSync{{topicPartition={self.topic_partition}, "
            f"upstreamOffset={self.upstream_offset}, downstreamOffset={self.downstream_offset}}}"
        )
