"""kconnect's automatic restarts: backoff with jitter, give-up, failures that cannot heal, resets."""

from __future__ import annotations

import random
import threading

import pytest

from kconnect.api.errors import ConfigException, ConnectException, NonRetriableException
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.failures import RemoteFailure, cannot_heal
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.restart_policy import RestartPolicy, auto_restart_infos
from kconnect.runtime.herder.auto_restart import HEALTHY_MS, AutoRestarter
from kconnect.runtime.metrics import MetricsRegistry

TASK = ConnectorTaskId("c", 0)


class Restarts:
    def __init__(self) -> None:
        self.keys: list[object] = []
        self.event = threading.Event()

    def __call__(self, key: object) -> None:
        self.keys.append(key)
        self.event.set()


def restarter(policy: RestartPolicy, clock: MockClock, registry: MetricsRegistry | None = None):
    restarts = Restarts()
    r = AutoRestarter(clock, lambda _c: policy, restarts, registry, random.Random(7))
    return r, restarts


def fire(
    r: AutoRestarter, clock: MockClock, restarts: Restarts, ms: float, wait_s: float = 2.0
) -> bool:
    """Move the clock on and wake the restart thread; whether a restart happened."""
    restarts.event.clear()
    clock.advance(ms)
    with r._cond:
        r._cond.notify_all()
    return restarts.event.wait(wait_s)


def test_backoff_doubles_with_jitter_up_to_the_maximum() -> None:
    p = RestartPolicy(True, -1, 1000, 5000)
    rng = random.Random(1)
    for attempt, base in ((1, 1000), (2, 2000), (3, 4000), (4, 5000), (9, 5000)):
        for _ in range(50):
            assert 0.8 * base <= p.delay_ms(attempt, rng) <= 1.2 * base


def test_a_failure_is_restarted_after_the_backoff_then_runs_healthy_again() -> None:
    clock = MockClock()
    registry = MetricsRegistry(clock=clock)
    r, restarts = restarter(RestartPolicy(True, 3, 1000, 60_000), clock, registry)
    try:
        info = r.failed(TASK, ConnectException("database unreachable"))
        assert info is not None and (info.attempts, info.max_attempts, info.reason) == (1, 3, None)
        assert info.next_attempt_ms is not None
        assert 800 <= info.next_attempt_ms - clock.milliseconds() <= 1200
        gauges = {
            n.name: v for n, v in registry.snapshot() if n.group == "kconnect-auto-restart-metrics"
        }
        assert gauges["restart-attempts"] == 1.0 and gauges["gave-up"] == 0.0
        assert not fire(r, clock, restarts, 500, 0.3)  # not yet
        assert fire(r, clock, restarts, 800)
        assert restarts.keys == [TASK]
        r.started(TASK)
        assert r.info(TASK) is not None  # counted until it has run for a while
        clock.advance(HEALTHY_MS + 1)
        with r._cond:
            r._cond.notify_all()
        for _ in range(200):
            if r.info(TASK) is None:
                break
            threading.Event().wait(0.01)
        assert r.info(TASK) is None  # healthy again: the next failure starts from attempt 1
        assert not [n for n, _ in registry.snapshot() if n.group == "kconnect-auto-restart-metrics"]
    finally:
        r.close()


def test_gives_up_after_max_attempts() -> None:
    clock = MockClock()
    r, restarts = restarter(RestartPolicy(True, 2, 100, 1000), clock)
    try:
        for attempt in (1, 2):
            info = r.failed(TASK, ConnectException("down"))
            assert info is not None and info.attempts == attempt and info.reason is None
            assert fire(r, clock, restarts, 300 * attempt)
        info = r.failed(TASK, ConnectException("still down"))
        assert info is not None and info.next_attempt_ms is None
        assert info.reason is not None and "gave up after 2 automatic restart(s)" in info.reason
    finally:
        r.close()


@pytest.mark.parametrize(
    "error",
    [
        ConfigException("connection.url", "x", "bad url"),
        NonRetriableException("Table orders is missing and auto.create is false"),
        RemoteFailure("in a task process", "trace", permanent=True),
    ],
)
def test_failures_that_cannot_heal_are_not_restarted(error: BaseException) -> None:
    clock = MockClock()
    r, restarts = restarter(RestartPolicy(), clock)
    try:
        info = r.failed(TASK, error)
        assert info is not None and info.attempts == 0 and info.next_attempt_ms is None
        assert info.reason is not None and "not restarted automatically" in info.reason
        assert not fire(r, clock, restarts, 10 * 60_000, 0.3)
    finally:
        r.close()


def test_cannot_heal_follows_the_cause_chain() -> None:
    try:
        try:
            raise NonRetriableException("missing table")
        except NonRetriableException as inner:
            raise ConnectException(
                "Exiting WorkerSinkTask due to unrecoverable exception."
            ) from inner
    except ConnectException as outer:
        assert cannot_heal(outer)
    assert not cannot_heal(ConnectException("connection refused"))
    assert not cannot_heal(RemoteFailure("process died", "trace"))


def test_a_manual_restart_resets_and_disabled_means_kafkas_behaviour() -> None:
    clock = MockClock()
    r, _ = restarter(RestartPolicy(True, 5, 1000, 60_000), clock)
    try:
        r.failed(TASK, ConnectException("x"))
        r.failed(TASK, ConnectException("x"))
        assert r.info(TASK).attempts == 2  # type: ignore[union-attr]
        r.reset("c")
        assert r.info(TASK) is None
    finally:
        r.close()
    off, restarts = restarter(RestartPolicy(enabled=False), clock)
    try:
        assert off.failed(TASK, ConnectException("x")) is None
        assert not fire(off, clock, restarts, 10 * 60_000, 0.3)
    finally:
        off.close()


def test_connector_overrides_and_bad_values_name_the_key() -> None:
    worker = RestartPolicy.parse({"auto.restart.max.attempts": "3"})
    assert worker == RestartPolicy(True, 3, 1000, 300_000)
    own = RestartPolicy.parse(
        {"auto.restart.enable": "false", "auto.restart.initial.backoff.ms": "50"}, worker
    )
    assert own == RestartPolicy(False, 3, 50, 300_000)
    with pytest.raises(
        ValueError, match=r"Invalid value soon for configuration auto\.restart\.max\.backoff\.ms"
    ):
        RestartPolicy.parse({"auto.restart.max.backoff.ms": "soon"})
    infos = auto_restart_infos({"auto.restart.enable": "maybe", "name": "c"})
    assert infos.error_count == 1
    (entry,) = infos.configs
    assert entry.value is not None and entry.value.name == "auto.restart.enable"
    assert "Expected value to be either true or false" in entry.value.errors[0]
