"""Kafka's windowed stat semantics, driven by a mock clock (samples=2, window=1000 ms)."""

from __future__ import annotations

import math

import pytest

from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.metrics.registry import MetricGroup, MetricsRegistry
from kconnect.runtime.metrics.state_tracker import StateTracker
from kconnect.runtime.metrics.stats import (
    Avg,
    CumulativeCount,
    CumulativeSum,
    Frequencies,
    Max,
    MetricConfig,
    Min,
    Rate,
    Value,
    WindowedCount,
)

CFG = MetricConfig(samples=2, window_ms=1000)


def test_rate_pads_young_window_to_samples_minus_one_windows() -> None:
    r = Rate()
    r.record(CFG, 10, 0)
    # elapsed 0 ms, padded to one full window (samples - 1): 10 per 1 s
    assert r.measure(CFG, 0) == pytest.approx(10.0)
    assert r.measure(CFG, 500) == pytest.approx(10 / 1.5)


def test_rate_over_two_samples_then_expiry() -> None:
    r = Rate()
    r.record(CFG, 10, 0)
    r.record(CFG, 10, 1200)  # first sample complete -> second slot
    assert r.measure(CFG, 1500) == pytest.approx(20 / 1.5)
    # at 2000 the first sample is samples*window old: reset; only the 10 at 1200 remain,
    # oldest start 1200 -> 800 ms elapsed, padded by one window -> 1.8 s
    assert r.measure(CFG, 2000) == pytest.approx(10 / 1.8)
    # everything expired: rate 0
    assert r.measure(CFG, 5000) == 0.0


def test_rate_ring_reuses_oldest_slot() -> None:
    r = Rate()
    r.record(CFG, 1, 0)
    r.record(CFG, 2, 1000)
    r.record(CFG, 4, 2000)  # re-uses the slot that held 1
    assert r.stat.measure(CFG, 2000) == 6.0


def test_avg_max_min_are_nan_without_events_and_forget_old_samples() -> None:
    for stat in (Avg(), Max(), Min()):
        assert math.isnan(stat.measure(CFG, 0))
    avg, mx, mn = Avg(), Max(), Min()
    for t, v in ((0, 4.0), (100, 8.0), (1100, 3.0)):
        for s in (avg, mx, mn):
            s.record(CFG, v, t)
    assert avg.measure(CFG, 1200) == pytest.approx(5.0)
    assert mx.measure(CFG, 1200) == 8.0
    assert mn.measure(CFG, 1200) == 3.0
    # at 2000 the sample started at 0 expires; the one from 1100 stays
    assert avg.measure(CFG, 2000) == 3.0
    assert mx.measure(CFG, 2000) == 3.0
    assert math.isnan(mx.measure(CFG, 3100))


def test_cumulative_and_value_stats_never_forget() -> None:
    total, count, value, wcount = CumulativeSum(), CumulativeCount(), Value(), WindowedCount()
    assert math.isnan(value.measure(CFG, 0))
    for t, v in ((0, 5.0), (10_000, 7.0)):
        for s in (total, count, value, wcount):
            s.record(CFG, v, t)
    assert total.measure(CFG, 99_000) == 12.0
    assert count.measure(CFG, 99_000) == 2.0
    assert value.measure(CFG, 99_000) == 7.0
    assert wcount.measure(CFG, 10_500) == 1.0  # the first event expired


def test_frequencies_share_of_successes_and_failures() -> None:
    f = Frequencies.for_booleans()
    assert f.frequency(CFG, 0, 1.0) == 0.0
    for t, v in ((0, 1.0), (10, 1.0), (20, 1.0), (1500, 0.0)):
        f.record(CFG, v, t)
    assert f.frequency(CFG, 1600, 1.0) == pytest.approx(0.75)
    assert f.frequency(CFG, 1600, 0.0) == pytest.approx(0.25)
    # the three successes (sample started at 0) expire at 2000
    assert f.frequency(CFG, 2100, 0.0) == pytest.approx(1.0)
    # a re-used slot starts from zero counts: one new success beside the failure from 1500
    f.record(CFG, 1.0, 3000)
    assert f.frequency(CFG, 3000, 1.0) == pytest.approx(0.5)


def test_sensor_feeds_all_its_stats_and_group_close_removes_them() -> None:
    clock = MockClock(0)
    reg = MetricsRegistry(CFG, clock)
    g = MetricGroup(reg, "source-task-metrics", {"connector": "c", "task": "0"})
    s = g.sensor(
        "poll",
        ("source-record-poll-rate", "", Rate()),
        ("source-record-poll-total", "", CumulativeSum()),
    )
    s.record(100)
    clock.advance(1000)
    s.record(50)
    values = {n.name: v for n, v in reg.snapshot()}
    assert values["source-record-poll-total"] == 150.0
    assert values["source-record-poll-rate"] == pytest.approx(150.0)  # 150 over 1 s
    names = reg.names()
    assert names[0].tag_dict == {"connector": "c", "task": "0"}
    g.close()
    assert reg.names() == []


def test_failing_gauge_reads_nan() -> None:
    reg = MetricsRegistry(CFG, MockClock(0))
    MetricGroup(reg, "g").gauge("broken", "", lambda: 1 / 0)
    assert math.isnan(next(v for _, v in reg.snapshot()))  # type: ignore[arg-type]


def test_state_tracker_ratios() -> None:
    clock = MockClock(0)
    st = StateTracker(clock, "unassigned")
    clock.advance(1000)
    st.change("running")
    clock.advance(3000)
    st.change("paused")
    clock.advance(1000)
    assert st.ratio("running") == pytest.approx(0.6)
    assert st.ratio("paused") == pytest.approx(0.2)
    assert st.state == "paused"


def _values(reg: MetricsRegistry) -> dict[str, object]:
    return {n.name: v for n, v in reg.snapshot()}


def test_values_recorded_later_read_as_if_recorded_at_their_time() -> None:
    """``record_later`` keeps each value's time: after any mix of later and immediate records,
    every stat (windowed, maximum, average, rate, frequencies) reads what immediate records
    give, measured at any later time."""
    clock = MockClock(0)
    regs = MetricsRegistry(CFG, clock), MetricsRegistry(CFG, clock)
    pairs = []
    for reg in regs:
        g = MetricGroup(reg, "g")
        s = g.sensor("s", ("max", "", Max()), ("avg", "", Avg()), ("rate", "", Rate()),
                     ("total", "", CumulativeSum()))  # fmt: skip
        f = g.frequencies("f", {"ok": ("", 1.0), "bad": ("", 0.0)}, Frequencies.for_booleans())
        pairs.append((s, f))
    (s_later, f_later), (s_now, f_now) = pairs
    at = 0
    for value, ok, step in [(5.0, 1.0, 0), (9.0, 0.0, 400), (2.0, 1.0, 900), (7.0, 1.0, 1300)]:
        clock.advance(step)
        at += step
        s_later.record_later(value, at)
        f_later.record_later(ok, at)
        s_now.record(value)
        f_now.record(ok)
    clock.advance(100)
    s_later.record(4.0)  # an immediate record after waiting ones keeps their order
    s_now.record(4.0)
    clock.advance(250)
    later, now = _values(regs[0]), _values(regs[1])
    assert later.keys() == now.keys() == {"max", "avg", "rate", "total", "ok", "bad"}
    for name, value in now.items():
        assert later[name] == pytest.approx(value), name
    # the windows that are left hold 2 (from 1300 ms) and 7, 4 (from 2600 ms): 9 has expired
    assert now["total"] == 27.0 and now["max"] == 7.0


def test_values_recorded_later_go_in_once_enough_wait() -> None:
    from kconnect.runtime.metrics.registry import LATER_MAX

    reg = MetricsRegistry(CFG, MockClock(0))
    total = CumulativeSum()
    s = MetricGroup(reg, "g").sensor("s", ("total", "", total))
    for _ in range(LATER_MAX - 1):
        s.record_later(1.0, 0)
    assert total.measure(CFG, 0) == 0.0  # waiting: nothing measured or recorded since
    s.record_later(1.0, 0)
    assert total.measure(CFG, 0) == LATER_MAX


def test_values_recorded_later_from_many_threads_are_never_lost() -> None:
    import threading

    reg = MetricsRegistry(CFG, MockClock(0))
    s = MetricGroup(reg, "g").sensor("s", ("total", "", CumulativeSum()))
    per_thread, threads = 5000, 4

    def record() -> None:
        for _ in range(per_thread):
            s.record_later(1.0, 0)

    workers = [threading.Thread(target=record) for _ in range(threads)]
    for w in workers:
        w.start()
    while any(w.is_alive() for w in workers):
        _values(reg)  # records what waits, while the threads append
    for w in workers:
        w.join()
    assert _values(reg)["total"] == per_thread * threads
