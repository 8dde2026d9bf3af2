"""A dead letter queue delivery can be waited for by the thread that would otherwise poll."""

from __future__ import annotations

from concurrent.futures import TimeoutError as FutureTimeout

import pytest

from kconnect.runtime.worker.errors.reporters import DeliveryFuture


def test_waiting_polls_the_producer_until_the_delivery_callback_ran() -> None:
    polls: list[float] = []

    def poll(timeout: float) -> int:
        polls.append(timeout)
        if len(polls) == 3:  # the delivery report arrives in the third poll
            future.set_result(None)
        return 0

    future = DeliveryFuture(poll)
    assert future.result() is None
    assert len(polls) == 3 and all(0 < t <= DeliveryFuture.POLL_S for t in polls)


def test_a_failed_delivery_and_a_timeout() -> None:
    failing = DeliveryFuture(lambda _t: failing.set_exception(RuntimeError("no DLQ")))
    assert isinstance(failing.exception(), RuntimeError)
    with pytest.raises(RuntimeError, match="no DLQ"):
        failing.result()
    never = DeliveryFuture(lambda _t: 0)
    with pytest.raises(FutureTimeout):
        never.result(timeout=0.12)
