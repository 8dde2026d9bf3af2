"""The distributed herder's request queue: ordering, delays, wakeups, failures, close."""

from __future__ import annotations

import threading

import pytest

from kconnect.runtime.common.request_errors import ConnectRestException
from kconnect.runtime.herder.request_queue import HerderRequestQueue, await_result


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def drain(q: HerderRequestQueue) -> None:
    while (req := q.pop_due()) is not None:
        req.run()


def test_due_requests_run_in_submission_order_and_complete_futures():
    q = HerderRequestQueue(monotonic_ms=Clock())
    ran: list[int] = []
    futures = [q.submit(lambda i=i: ran.append(i) or i * 10) for i in range(5)]
    drain(q)
    assert ran == [0, 1, 2, 3, 4]
    assert [f.result(0) for f in futures] == [0, 10, 20, 30, 40]


def test_delayed_request_waits_until_due_and_orders_by_due_time():
    clock = Clock()
    q = HerderRequestQueue(monotonic_ms=clock)
    ran: list[str] = []
    q.submit(lambda: ran.append("late"), delay_ms=500)
    q.submit(lambda: ran.append("soon"), delay_ms=100)
    q.submit(lambda: ran.append("now"))
    drain(q)
    assert ran == ["now"]
    assert q.ms_until_next() == 100
    clock.now += 100
    drain(q)
    assert ran == ["now", "soon"]
    clock.now += 400
    drain(q)
    assert ran == ["now", "soon", "late"]
    assert q.ms_until_next() is None and len(q) == 0


def test_exception_goes_to_the_caller_not_the_herder_thread():
    q = HerderRequestQueue(monotonic_ms=Clock())
    future = q.submit(lambda: 1 / 0)
    after = q.submit(lambda: "still running")
    drain(q)
    with pytest.raises(ZeroDivisionError):
        future.result(0)
    assert after.result(0) == "still running"


def test_submit_wakes_the_herder_only_when_the_head_changes():
    clock = Clock()
    wakeups: list[int] = []
    q = HerderRequestQueue(lambda: wakeups.append(1), monotonic_ms=clock)
    q.submit(lambda: None, delay_ms=1000)
    q.submit(lambda: None, delay_ms=2000)  # behind the head: the herder already waits for it
    q.submit(lambda: None)  # new head
    assert len(wakeups) == 2


def test_cancelled_request_is_skipped():
    q = HerderRequestQueue(monotonic_ms=Clock())
    ran: list[str] = []
    f = q.submit(lambda: ran.append("x"))
    assert f.cancel()
    drain(q)
    assert ran == []


def test_close_fails_pending_and_later_requests():
    q = HerderRequestQueue(monotonic_ms=Clock())
    pending = q.submit(lambda: None, delay_ms=10_000)
    q.close(RuntimeError("stopping"))
    with pytest.raises(RuntimeError, match="stopping"):
        pending.result(0)
    late = q.submit(lambda: None)
    with pytest.raises(ConnectRestException) as e:
        late.result(0)
    assert e.value.status == 503


def test_await_result_times_out_with_the_herder_stage_and_cancels():
    q = HerderRequestQueue()
    f = q.submit(lambda: None)
    with pytest.raises(ConnectRestException) as e:
        await_result(f, 0.05, "handling a completed rebalance")
    assert e.value.status == 500
    assert e.value.message == (
        "Request timed out. The worker is currently handling a completed rebalance"
    )
    assert f.cancelled() and q.pop_due() is None


def test_requests_from_many_threads_all_run_once():
    q = HerderRequestQueue()
    counter = [0]
    lock = threading.Lock()

    def bump() -> None:
        with lock:
            counter[0] += 1

    threads = [
        threading.Thread(target=lambda: [q.submit(bump) for _ in range(100)]) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    drain(q)
    assert counter[0] == 400
