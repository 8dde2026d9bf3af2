"""Shared source task producers on a real broker: who shares, who is called back, who closes.

Tasks with equal producer settings (``client.id`` aside) get handles on one producer; other
settings get another. Each task's records reach the topic and each record's delivery callback
is called, whichever handle's ``poll`` serves it. The producer stays open while a handle
does, and closes (flushing) with the last one.
"""

from __future__ import annotations

from typing import Any

import pytest

from kconnect.kafka.clients.shared_producer import SharedProducers

pytestmark = pytest.mark.kafka


def _props(bootstrap: str, client_id: str, **extra: object) -> dict[str, object]:
    return {"bootstrap.servers": bootstrap, "acks": "all", "client.id": client_id, **extra}


def test_equal_settings_share_one_producer_and_each_task_hears_of_its_records(
    kafka_bootstrap: str, topic_factory: Any
) -> None:
    topic = topic_factory(partitions=1)
    pool = SharedProducers("test-shared")
    a = pool.acquire(_props(kafka_bootstrap, "connector-producer-a-0"))
    b = pool.acquire(_props(kafka_bootstrap, "connector-producer-b-0"))
    other = pool.acquire(_props(kafka_bootstrap, "connector-producer-c-0", **{"linger.ms": 7}))
    try:
        assert a.client_id == b.client_id == "test-shared-1"
        assert other.client_id == "test-shared-2"
        assert pool.open_producers() == 2
        heard: dict[str, list[int]] = {"a": [], "b": []}
        for i in range(50):
            a.produce(
                topic, f"a{i}".encode(), on_delivery=lambda e, m: heard["a"].append(m.offset())
            )
            b.produce(
                topic, f"b{i}".encode(), on_delivery=lambda e, m: heard["b"].append(m.offset())
            )
        # only b polls: a's callbacks are served too (one producer, one queue of reports)
        for _ in range(200):
            b.poll(0.05)
            if len(heard["a"]) == len(heard["b"]) == 50:
                break
        assert len(heard["a"]) == 50 and len(heard["b"]) == 50
        assert sorted(heard["a"] + heard["b"]) == list(range(100))
    finally:
        a.close(5)
        assert pool.open_producers() == 2  # b still holds the first producer
        a.close(5)  # idempotent: does not release b's share
        assert pool.open_producers() == 2
        b.close(5)
        assert pool.open_producers() == 1
        other.close(5)
        assert pool.open_producers() == 0


def test_a_new_task_after_the_last_closed_gets_a_new_producer(kafka_bootstrap: str) -> None:
    closed: list[str] = []
    pool = SharedProducers("test-reopen")

    def stats(client_id: str) -> tuple[Any, Any]:
        return (lambda _s: None), (lambda: closed.append(client_id))

    first = pool.acquire(_props(kafka_bootstrap, "x"), stats)
    first.close(1)
    assert closed == ["test-reopen-1"]
    second = pool.acquire(_props(kafka_bootstrap, "x"), stats)
    try:
        assert second.client_id == "test-reopen-2"
    finally:
        second.close(1)
    assert closed == ["test-reopen-1", "test-reopen-2"]
