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

from kconnect.api.data.java_strings import (
    copy_table,
    default_table,
    hash_map_order,
    presized_table,
    string_hash,
)

__all__ = ["describe_topics_order", "hash_set_order", "java_string_hash"]


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` (over UTF-16 code units), as an unsigned 32-bit value."""
    return string_hash(text) & 0xFFFFFFFF


def _sorted_by_buckets(names: list[str], capacity: int) -> list[str]:
    return [n for n, _ in hash_map_order([(n, None) for n in names], table=capacity)]


def hash_set_order(names: Iterable[str]) -> list[str]:
    """The iteration order of a default ``HashSet`` filled with ``names`` in this order."""
    items = list(dict.fromkeys(names))
    return _sorted_by_buckets(items, default_table(len(items)))


def describe_topics_order(names: Iterable[str]) -> list[str]:
    """The order of ``Admin.describeTopics(names).allTopicNames().get().values()`` for a
    ``Collectors.toSet()`` of names (streamed in this order): a HashSet, the futures HashMap,
    its copy, the result."""
    items = list(dict.fromkeys(names))
    n = len(items)
    for capacity in (default_table(n), presized_table(n, n), copy_table(n, n),
                     presized_table(n, n)):  # fmt: skip
        items = _sorted_by_buckets(items, capacity)
    return items
