"""``consume_available``: the first message waited for, the rest already fetched, and a
first message whose partition a rebalance in the second call revoked is not handed out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kconnect.api.records import TopicPartition
from kconnect.kafka.clients.consumer import consume_available


class _Msg:
    def __init__(self, topic: str, partition: int, offset: int) -> None:
        self._tp = (topic, partition)
        self._offset = offset

    def topic(self) -> str:
        return self._tp[0]

    def partition(self) -> int:
        return self._tp[1]

    def offset(self) -> int:
        return self._offset


class _Client:
    """librdkafka's order: ``poll`` returns one message; ``consume`` may first serve a
    rebalance (the callback) and then return what was fetched for the new assignment."""

    def __init__(self, first: _Msg, rest: list[_Msg], rebalance: Callable[[], None]) -> None:
        self.first, self.rest, self.rebalance = first, rest, rebalance

    def poll(self, _timeout: float) -> _Msg:
        return self.first

    def consume(self, _n: int, _timeout: float) -> list[Any]:
        self.rebalance()
        return list(self.rest)


def _offsets(msgs: list[Any]) -> list[tuple[int, int]]:
    return [(m.partition(), m.offset()) for m in msgs]


def test_first_message_of_a_partition_revoked_in_the_same_call_is_dropped() -> None:
    revoked: set[TopicPartition] = {TopicPartition("t", 1)}  # left over from an earlier call
    # the revocation callback of an eager rebalance: every partition goes, then comes back
    # at its committed offset (6863), which the second call returns again
    client = _Client(
        _Msg("t", 0, 6863),
        [_Msg("t", 0, 6863), _Msg("t", 0, 6864)],
        lambda: revoked.update({TopicPartition("t", 0)}),
    )
    assert _offsets(consume_available(client, 500, 1.0, revoked)) == [(0, 6863), (0, 6864)]


def test_first_message_kept_when_its_partition_stays() -> None:
    revoked: set[TopicPartition] = {TopicPartition("t", 0)}  # stale: cleared before consume
    client = _Client(
        _Msg("t", 0, 10),
        [_Msg("t", 0, 11)],
        lambda: revoked.update({TopicPartition("t", 1)}),  # cooperative: only partition 1
    )
    assert _offsets(consume_available(client, 500, 1.0, revoked)) == [(0, 10), (0, 11)]


def test_without_a_revocation_set_every_message_is_returned() -> None:
    client = _Client(_Msg("t", 0, 5), [_Msg("t", 0, 6)], lambda: None)
    assert _offsets(consume_available(client, 500, 1.0)) == [(0, 5), (0, 6)]
    assert _offsets(consume_available(client, 1, 1.0)) == [(0, 5)]
