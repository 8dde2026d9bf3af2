"""Applying G's assignments: revoke stops, apply starts only what is new, task-config
updates restart tasks that stay here, and the assessment of a completed rebalance."""

from __future__ import annotations

import threading

import pytest

from kconnect.kafka.group.connect_protocol import ExtendedAssignment
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.herder.rebalance_handler import RebalanceHandler, assess_assignment

T = ConnectorTaskId


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, object]] = []

    def add(self, kind: str, what: object) -> None:
        with self.lock:
            self.events.append((kind, what))

    def of(self, kind: str) -> list[object]:
        return sorted((w for k, w in self.events if k == kind), key=str)


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


@pytest.fixture
def handler(rec: Recorder):
    h = RebalanceHandler(
        lambda n: rec.add("start_connector", n),
        lambda t: rec.add("start_task", t),
        lambda n: rec.add("stop_connector", n),
        lambda ids: [rec.add("stop_task", t) for t in ids],
    )
    yield h
    h.close()


def assignment(connectors, tasks, revoked_c=(), revoked_t=(), offset=5, leader="m1"):
    return ExtendedAssignment(
        1, 0, leader, "http://l:8083/", offset, list(connectors), list(tasks),
        list(revoked_c), list(revoked_t), 0,
    )  # fmt: skip


def test_first_assignment_starts_everything_tuple_task_ids_accepted(handler, rec):
    a = assignment(["a", "b"], [("a", 0), ("a", 1), ("b", 0)])
    handler.apply(a.connectors, a.tasks)
    assert rec.of("start_connector") == ["a", "b"]
    assert rec.of("start_task") == [T("a", 0), T("a", 1), T("b", 0)]
    assert handler.owns_task(T("a", 1)) and handler.owns_connector("b")


def test_incremental_revocation_then_augmented_assignment_starts_only_new_work(handler, rec):
    handler.apply(["a", "b"], [("a", 0), ("a", 1), ("b", 0)])
    rec.events.clear()
    # the coordinator calls on_revoked with the revoked items, then on_assigned with the
    # assignment augmented by the retained work
    second = assignment(["a", "c"], [("a", 0), ("c", 0)], ["b"], [("a", 1), ("b", 0)])
    handler.revoke(second.revoked_connectors, second.revoked_tasks)
    assert rec.of("stop_connector") == ["b"]
    assert rec.of("stop_task") == [T("a", 1), T("b", 0)]
    handler.apply(second.connectors, second.tasks)
    assert rec.of("start_connector") == ["c"]
    assert rec.of("start_task") == [T("c", 0)]
    assert not handler.owns_connector("b") and not handler.owns_task(T("a", 1))


def test_eager_revoke_all_then_reassignment_restarts_everything_assigned(handler, rec):
    handler.apply(["a"], [("a", 0), ("a", 1)])
    rec.events.clear()
    handler.revoke(["a"], [("a", 0), ("a", 1)])  # eager: on_revoked(everything) before joining
    handler.apply(["a"], [("a", 1)])
    assert rec.of("start_connector") == ["a"]
    assert rec.of("start_task") == [T("a", 1)]


def test_a_revocation_during_a_start_waits_for_it_and_the_next_assignment_starts_again(rec):
    # Eager protocol: the group member revokes everything on its thread while the herder
    # thread is still starting the previous assignment (a task process starting). The
    # revocation must stop what that start brings up, and the same items assigned again
    # must be started again, not taken for running.
    starting = threading.Event()
    go_on = threading.Event()

    def start_task(t: ConnectorTaskId) -> None:
        starting.set()
        assert go_on.wait(10)
        rec.add("start_task", t)

    h = RebalanceHandler(
        lambda n: rec.add("start_connector", n),
        start_task,
        lambda n: rec.add("stop_connector", n),
        lambda ids: [rec.add("stop_task", t) for t in ids],
    )
    try:
        a = assignment(["sink"], [("source", 0)])
        applying = threading.Thread(target=h.apply, args=(a.connectors, a.tasks))
        applying.start()
        assert starting.wait(10)
        revoking = threading.Thread(target=h.revoke, args=(["sink"], [("source", 0)]))
        revoking.start()
        revoking.join(0.3)
        assert revoking.is_alive()  # waits for the start in progress
        assert rec.of("stop_task") == []
        go_on.set()
        applying.join(10)
        revoking.join(10)
        kinds = [k for k, _ in rec.events]
        assert kinds.index("stop_task") > kinds.index("start_task")  # stopped after it started
        assert not h.owns_connector("sink") and not h.owns_task(T("source", 0))
        h.apply(a.connectors, a.tasks)  # the next generation assigns the same work
        assert rec.of("start_connector") == ["sink", "sink"]
        assert rec.of("start_task") == [T("source", 0), T("source", 0)]
        assert h.owns_connector("sink") and h.owns_task(T("source", 0))
    finally:
        go_on.set()
        h.close()


def test_work_missing_from_the_assignment_is_stopped_defensively(handler, rec):
    handler.apply(["a"], [("a", 0)])
    rec.events.clear()
    handler.apply([], [])
    assert rec.of("stop_connector") == ["a"] and rec.of("stop_task") == [T("a", 0)]
    assert handler.snapshot().connectors == set()


def test_task_config_update_restarts_tasks_still_assigned_after_the_rebalance(handler, rec):
    handler.apply(["a"], [("a", 0), ("a", 1)])
    rec.events.clear()
    handler.stop_for_reconfiguration([T("a", 0), T("a", 1), T("x", 0)])  # x is not ours
    assert rec.of("stop_task") == [T("a", 0), T("a", 1)]
    # the new task set has one task; a-1 was deleted and is revoked by the leader
    handler.revoke([], [("a", 1)])
    handler.apply(["a"], [("a", 0)])
    assert rec.of("start_task") == [T("a", 0)]
    rec.events.clear()
    handler.apply(["a"], [("a", 0)])  # a later rebalance changes nothing
    assert rec.events == []


def test_a_failing_start_does_not_stop_the_others(rec):
    def start_task(t):
        if t.task == 0:
            raise RuntimeError("boom")
        rec.add("start_task", t)

    h = RebalanceHandler(lambda n: None, start_task, lambda n: None, lambda ids: None)
    try:
        h.apply([], [("a", 0), ("a", 1)])
    finally:
        h.close()
    assert rec.of("start_task") == [T("a", 1)]


@pytest.mark.parametrize(
    ("failed", "leader", "local", "remote", "read", "rejoin"),
    [
        (False, False, 5, 5, False, False),  # caught up: start work
        (False, False, 3, 5, True, False),  # behind: read to the end first
        (True, True, 5, 5, True, True),  # failed and leader: catch up, then rejoin
        (True, False, 3, 5, True, True),  # failed and lagging
        (True, False, 5, 5, False, True),  # failed, up to date: just rejoin
    ],
)
def test_assess_assignment(failed, leader, local, remote, read, rejoin):
    verdict = assess_assignment(failed, leader, local, remote)
    assert (verdict.read_to_end, verdict.rejoin) == (read, rejoin)
