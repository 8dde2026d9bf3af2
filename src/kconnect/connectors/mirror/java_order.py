"""The iteration order of Java's ``HashSet``/``HashMap`` of strings, which decides how Java's
MirrorMaker 2 lists topic-partitions and consumer groups -- and so which task gets which
partition or group. kconnect lists them in the same order, so the same ``tasks.max`` gives the
same task configs as Java.

A Java ``HashMap`` iterates its buckets in index order (``hash ^ hash >>> 16`` masked by the
table size, a power of two) and each bucket in insertion order; growing the table keeps that
relative order. So the order is a stable sort by bucket index of the insertion order, and a
chain of collections is a chain of such sorts. Where Java's own starting order is unknowable
(a broker's metadata response), callers pass names in sorted order.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["describe_topics_order", "hash_set_order", "java_string_hash"]


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` (over UTF-16 code units), as an unsigned 32-bit value."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def _bucket(text: str, capacity: int) -> int:
    h = java_string_hash(text)
    return (h ^ (h >> 16)) & (capacity - 1)


def _table_size_for(n: int) -> int:
    cap = 1
    while cap < n:
        cap <<= 1
    return cap


def _grown(capacity: int, size: int) -> int:
    while size > capacity * 0.75:
        capacity <<= 1
    return capacity


def _default_capacity(size: int) -> int:
    """``new HashMap<>()`` / ``new HashSet<>()`` after ``size`` insertions."""
    return _grown(16, size)


def _sized_capacity(expected: int, size: int) -> int:
    """``new HashMap<>(expected)`` after ``size`` insertions."""
    return _grown(_table_size_for(expected), size)


def _copy_capacity(size: int) -> int:
    """``new HashMap<>(otherMap)`` with ``size`` entries."""
    return _grown(_table_size_for(int(size / 0.75 + 1.0)), size)


def _sorted_by_buckets(names: list[str], capacity: int) -> list[str]:
    return sorted(names, key=lambda n: _bucket(n, capacity))


def hash_set_order(names: Iterable[str]) -> list[str]:
    """The iteration order of a default ``HashSet`` filled with ``names`` in this order."""
    items = list(dict.fromkeys(names))
    return _sorted_by_buckets(items, _default_capacity(len(items)))


def describe_topics_order(names: Iterable[str]) -> list[str]:
    """The order of ``Admin.describeTopics(names).allTopicNames().get().values()`` for a
    ``Collectors.toSet()`` of names (streamed in this order): a HashSet, the futures HashMap,
    its copy, the result."""
    items = list(dict.fromkeys(names))
    n = len(items)
    for capacity in (_default_capacity(n), _sized_capacity(n, n), _copy_capacity(n),
                     _sized_capacity(n, n)):  # fmt: skip
        items = _sorted_by_buckets(items, capacity)
    return items
