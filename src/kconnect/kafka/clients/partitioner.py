"""Java-compatible key partitioning (``Utils.murmur2`` + ``BuiltInPartitioner.partitionForKey``).

The producer itself is configured with librdkafka's ``murmur2_random`` partitioner, which
hashes keys exactly like Java's default partitioner; this module exists so the runtime (and
tests) can compute the same partition in Python, e.g. to verify that a record keyed ``k``
lands where Apache Kafka Connect would have put it.
"""

from __future__ import annotations

__all__ = ["murmur2", "partition_for_key", "to_positive"]

_M = 0x5BD1E995
_SEED = 0x9747B28C
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's 32-bit murmur2 of ``data`` as a signed Java ``int``."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    end = length & ~3
    for i in range(0, end, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    rest = length & 3
    if rest == 3:
        h ^= data[end + 2] << 16
    if rest >= 2:
        h ^= data[end + 1] << 8
    if rest >= 1:
        h ^= data[end]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def to_positive(n: int) -> int:
    """Java ``Utils.toPositive``: clear the sign bit (not ``abs``)."""
    return n & 0x7FFFFFFF


def partition_for_key(key: bytes, num_partitions: int) -> int:
    """The partition Java's default partitioner picks for a non-null serialized key."""
    return to_positive(murmur2(key)) % num_partitions
