"""Java's HashMap/HashSet iteration order, which decides how Java deals partitions and groups
to tasks (checked against a live JVM in tests/integration/test_mirror_java_harness.py)."""

from __future__ import annotations

from kconnect.connectors.mirror.java_order import (
    describe_topics_order,
    hash_set_order,
    java_string_hash,
)


def test_string_hash_is_javas() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("héllo") == 103094734
    # 32-bit wrap-around: Java's famous Integer.MIN_VALUE hash, as an unsigned value
    assert java_string_hash("polygenelubricants") == 2**31


def test_orders_are_by_bucket_then_insertion() -> None:
    assert hash_set_order(["topic", "partition", "cluster"]) == ["cluster", "partition", "topic"]
    assert hash_set_order(["group", "topic", "partition"]) == ["partition", "topic", "group"]
    assert describe_topics_order(["t1", "t2", "orders"]) == ["t1", "orders", "t2"]
