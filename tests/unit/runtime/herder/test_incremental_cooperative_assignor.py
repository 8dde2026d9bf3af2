"""IncrementalCooperativeAssignor: the scenarios of Kafka's IncrementalCooperativeAssignorTest.

The harness mirrors Kafka's: members report what they run, the assignor computes a round, and
the members apply the newly assigned/revoked sets (or not, for a failed round).
"""

from __future__ import annotations

import pytest

from kconnect.kafka.group.connect_protocol import (
    CONFIG_MISMATCH,
    NO_ERROR,
    ExtendedAssignment,
    WorkerState,
)
from kconnect.runtime.common.clock import MockClock
from kconnect.runtime.common.ids import ConnectorTaskId as T
from kconnect.runtime.herder.assignors import IncrementalCooperativeAssignor
from kconnect.runtime.herder.assignors.incremental_cooperative import (
    ClusterAssignment,
    ConnectorsAndTasks,
    _WorkerLoad,
)
from kconnect.runtime.storage.config_store import ClusterConfigState
from kconnect.testing.fakes import config_snapshot

CONFIG_OFFSET = 618
DEFAULT_DELAY = 300_000


def snapshot(connectors: dict[str, int], offset: int = CONFIG_OFFSET) -> ClusterConfigState:
    return config_snapshot(connectors, offset)


class Harness:
    def __init__(self, delay: int = DEFAULT_DELAY) -> None:
        self.clock = MockClock()
        self.delay = delay
        self.generation = 1000
        self.connectors: dict[str, int] = {"connector1": 4, "connector2": 4}
        self.members: dict[str, ConnectorsAndTasks] = {"worker1": ConnectorsAndTasks()}
        self.result: ClusterAssignment | None = None
        self.init_assignor()

    def init_assignor(self) -> None:
        self.assignor = IncrementalCooperativeAssignor(self.delay, self.clock)
        self.assignor.previous_generation_id = self.generation

    def add_workers(self, *workers: str) -> None:
        for w in workers:
            assert w not in self.members
            self.members[w] = ConnectorsAndTasks()

    def add_worker(self, worker: str, connectors: list[str], tasks: list[T]) -> None:
        self.members[worker] = ConnectorsAndTasks.of(connectors, tasks)

    def remove_workers(self, *workers: str) -> None:
        for w in workers:
            del self.members[w]

    def rebalance(self, failed: bool = False, generation_mismatch: bool = False) -> None:
        self.generation += 1
        last = self.generation - 2 if generation_mismatch else self.generation - 1
        copy = {w: ConnectorsAndTasks.of(a.connectors, a.tasks) for w, a in self.members.items()}
        self.result = self.assignor.perform_task_assignment(
            snapshot(self.connectors), last, self.generation, copy
        )
        self._assert_no_redundant_assignments()
        if not failed:
            self._apply()

    def _apply(self) -> None:
        r = self.result
        assert r is not None
        for w in self.all_workers():
            a = self.members.setdefault(w, ConnectorsAndTasks())
            for c in r.newly_revoked_connectors.get(w, ()):
                a.connectors.pop(c, None)
            for t in r.newly_revoked_tasks.get(w, ()):
                a.tasks.pop(t, None)
            a.connectors.update(dict.fromkeys(r.newly_assigned_connectors.get(w, ())))
            a.tasks.update(dict.fromkeys(r.newly_assigned_tasks.get(w, ())))
            assert set(a.connectors) == set(r.all_assigned_connectors.get(w, ()))
            assert set(a.tasks) == set(r.all_assigned_tasks.get(w, ()))

    def all_workers(self) -> set[str]:
        r = self.result
        assert r is not None
        maps = (
            r.newly_assigned_connectors,
            r.newly_assigned_tasks,
            r.newly_revoked_connectors,
            r.newly_revoked_tasks,
            r.all_assigned_connectors,
            r.all_assigned_tasks,
        )
        return {w for m in maps for w in m}

    def _assert_no_redundant_assignments(self) -> None:
        r = self.result
        assert r is not None
        new_c = [c for v in r.newly_assigned_connectors.values() for c in v]
        new_t = [t for v in r.newly_assigned_tasks.values() for t in v]
        assert len(new_c) == len(set(new_c))
        assert len(new_t) == len(set(new_t))
        existing_c = {c for a in self.members.values() for c in a.connectors}
        existing_t = {t for a in self.members.values() for t in a.tasks}
        assert not existing_c & set(new_c)
        assert not existing_t & set(new_t)

    # --- assertions ---
    def assert_delay(self, expected: int) -> None:
        assert self.assignor.delay == expected

    def assert_workers(self, *workers: str) -> None:
        assert self.all_workers() == set(workers)

    def allocations(self, kind: str) -> list[int]:
        return sorted(len(getattr(a, kind)) for a in self.members.values())

    def assert_connectors(self, *counts: int) -> None:
        assert self.allocations("connectors") == sorted(counts)

    def assert_tasks(self, *counts: int) -> None:
        assert self.allocations("tasks") == sorted(counts)

    def assert_no_revocations(self) -> None:
        r = self.result
        assert r is not None
        assert all(not v for v in r.newly_revoked_connectors.values())
        assert all(not v for v in r.newly_revoked_tasks.values())

    def assert_empty_assignment(self) -> None:
        r = self.result
        assert r is not None
        self.assert_no_revocations()
        assert all(not v for v in r.newly_assigned_connectors.values())
        assert all(not v for v in r.newly_assigned_tasks.values())

    def assert_balanced_and_complete(self) -> None:
        c = self.allocations("connectors")
        t = self.allocations("tasks")
        assert c[-1] - c[0] <= 1, c
        assert t[-1] - t[0] <= 1, t
        assigned_c = [x for a in self.members.values() for x in a.connectors]
        assert sorted(assigned_c) == sorted(self.connectors)
        assigned_t = sorted(x for a in self.members.values() for x in a.tasks)
        assert assigned_t == sorted(T(c, i) for c, n in self.connectors.items() for i in range(n))


@pytest.fixture
def h() -> Harness:
    return Harness()


def _third_worker_joins(h: Harness) -> None:
    """The opening of several of Kafka's scenarios: three connectors (12 tasks) on worker1,
    worker2 joins and is given half of them (a revoking round), then worker3 joins: the round
    each scenario goes on to check."""
    h.connectors["connector3"] = 4
    h.rebalance()
    h.assert_connectors(3)
    h.assert_tasks(12)

    h.add_workers("worker2")
    h.rebalance()
    h.assert_connectors(0, 2)
    h.assert_tasks(0, 6)

    h.add_workers("worker3")
    h.rebalance()


def test_assignments_when_workers_join_after_revocations(h: Harness) -> None:
    # A successive revoking round is throttled: no revocations, a back-off delay instead.
    _third_worker_joins(h)
    assert h.assignor.delay > 0
    h.assert_connectors(0, 1, 2)
    h.assert_tasks(3, 3, 6)

    h.clock.advance(h.assignor.delay)
    h.add_workers("worker4")
    h.rebalance()
    h.assert_connectors(0, 0, 1, 1)
    h.assert_tasks(0, 3, 3, 3)

    h.add_workers("worker5")
    h.rebalance()
    assert h.assignor.delay > 40
    h.assert_connectors(0, 0, 1, 1, 1)
    h.assert_tasks(1, 2, 3, 3, 3)

    h.clock.advance(h.assignor.delay)
    h.add_workers("worker6")
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(0, 0, 0, 1, 1, 1)
    h.assert_tasks(0, 1, 2, 2, 2, 2)

    h.rebalance()
    h.assert_connectors(0, 0, 0, 1, 1, 1)
    h.assert_tasks(2, 2, 2, 2, 2, 2)
    h.assert_balanced_and_complete()


@pytest.mark.parametrize(
    ("delay", "connectors", "tasks", "settled"),
    [
        # no delay: worker3's share is revoked at once, and the next round balances
        (0, (0, 1, 1), (3, 3, 4), ((1, 1, 1), (4, 4, 4))),
        # a max delay no longer than the back-off's first interval: the round is throttled
        # like the default's, and the back-off is the max delay (Kafka's test stops there)
        (1, (0, 1, 2), (3, 3, 6), None),
    ],
    ids=["immediate_revocations_when_max_delay_is_0", "max_delay_equals_backoff_initial_interval"],
)
def test_successive_revocations_with_a_short_max_delay(
    delay: int,
    connectors: tuple[int, ...],
    tasks: tuple[int, ...],
    settled: tuple[tuple[int, ...], tuple[int, ...]] | None,
) -> None:
    h = Harness(delay=delay)
    _third_worker_joins(h)
    h.assert_delay(delay)
    h.assert_connectors(*connectors)
    h.assert_tasks(*tasks)
    if settled is not None:
        h.rebalance()
        h.assert_no_revocations()
        h.assert_connectors(*settled[0])
        h.assert_tasks(*settled[1])
        h.assert_balanced_and_complete()


def test_worker_joining_during_delayed_rebalance(h: Harness) -> None:
    _third_worker_joins(h)
    assert h.assignor.delay > 0
    h.assert_no_revocations()
    h.assert_connectors(0, 1, 2)
    h.assert_tasks(3, 3, 6)

    h.clock.advance(h.assignor.delay // 2)
    h.add_workers("worker4")
    h.rebalance()
    assert h.assignor.delay > 0
    h.assert_no_revocations()
    h.assert_connectors(0, 0, 1, 2)
    h.assert_tasks(0, 3, 3, 6)

    h.clock.advance(h.assignor.delay)
    h.add_workers("worker5")
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(0, 0, 0, 1, 1)
    h.assert_tasks(0, 0, 2, 3, 3)

    h.rebalance()
    h.assert_delay(0)
    h.assert_no_revocations()
    h.assert_connectors(0, 0, 1, 1, 1)
    h.assert_tasks(2, 2, 2, 3, 3)
    h.assert_balanced_and_complete()


def test_worker_leaves_permanently_work_reassigned_after_delay(h: Harness) -> None:
    h.add_workers("worker2")
    h.rebalance()
    h.assert_connectors(1, 1)
    h.assert_tasks(4, 4)

    # The follower leaves: nothing is reassigned yet, the delay count-down starts.
    h.remove_workers("worker2")
    h.rebalance()
    h.assert_delay(DEFAULT_DELAY)
    h.assert_workers("worker1")
    h.assert_empty_assignment()

    h.clock.advance(DEFAULT_DELAY // 2)
    h.rebalance()
    h.assert_delay(DEFAULT_DELAY // 2)
    h.assert_empty_assignment()

    h.clock.advance(DEFAULT_DELAY // 2 + 1)
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(2)
    h.assert_tasks(8)
    h.assert_balanced_and_complete()


def test_worker_bounces_within_the_delay_gets_its_work_back(h: Harness) -> None:
    h.add_workers("worker2")
    h.rebalance()
    h.remove_workers("worker2")
    h.rebalance()
    h.assert_delay(DEFAULT_DELAY)
    h.clock.advance(DEFAULT_DELAY // 2)
    h.rebalance()
    h.assert_delay(DEFAULT_DELAY // 2)
    h.assert_empty_assignment()

    h.clock.advance(DEFAULT_DELAY // 4)
    h.add_workers("worker2")
    h.rebalance()
    h.assert_delay(DEFAULT_DELAY // 4)
    h.assert_workers("worker1", "worker2")
    h.assert_empty_assignment()

    h.clock.advance(DEFAULT_DELAY // 4)
    h.rebalance()
    h.assert_delay(0)
    h.assert_no_revocations()
    h.assert_connectors(1, 1)
    h.assert_tasks(4, 4)
    h.assert_balanced_and_complete()
    # The returning (empty) worker was the candidate: it got exactly the lost work back.
    assert h.result is not None
    assert h.result.newly_assigned_connectors["worker2"]
    assert not h.result.newly_assigned_connectors["worker1"]


def test_leader_leaves_permanently(h: Harness) -> None:
    h.add_workers("worker2", "worker3")
    h.rebalance()
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(2, 3, 3)

    # A new leader starts with no memory: lost work looks new and is assigned at once.
    h.remove_workers("worker1")
    h.init_assignor()
    h.rebalance()
    h.assert_delay(0)
    h.assert_workers("worker2", "worker3")
    h.assert_connectors(1, 1)
    h.assert_tasks(4, 4)
    h.assert_balanced_and_complete()

    h.rebalance()
    h.assert_delay(0)
    h.assert_empty_assignment()


def test_leader_bounces_and_returns_as_follower(h: Harness) -> None:
    h.add_workers("worker2", "worker3")
    h.rebalance()
    h.remove_workers("worker1")
    h.init_assignor()
    h.rebalance()
    h.assert_connectors(1, 1)
    h.assert_tasks(4, 4)

    h.add_workers("worker1")
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(0, 3, 3)

    h.rebalance()
    h.assert_no_revocations()
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(2, 3, 3)
    h.assert_balanced_and_complete()


def test_first_assignment_attempt_fails(h: Harness) -> None:
    h.add_workers("worker2")
    h.rebalance(failed=True)
    h.assert_connectors(0, 0)
    h.assert_tasks(0, 0)
    # Same members, same (empty) work: the lost work is reassigned without a delay.
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(1, 1)
    h.assert_tasks(4, 4)
    h.assert_balanced_and_complete()


@pytest.mark.parametrize(
    "retry",
    [{}, {"generation_mismatch": True}],
    ids=["subsequent_assignment_attempt_fails", "generation_mismatch_resets_the_leaders_memory"],
)
def test_failed_assignment_is_retried(h: Harness, retry: dict[str, bool]) -> None:
    """worker3's first round fails (the members keep what they had); the retry -- in the next
    generation, or (a mismatch) one the leader did not see -- throttles the revocations."""
    h.add_workers("worker2")
    h.rebalance()
    h.add_workers("worker3")
    h.rebalance(failed=True)
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(0, 4, 4)

    h.rebalance(**retry)
    assert h.assignor.delay > 0
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(0, 4, 4)

    h.clock.advance(h.assignor.delay)
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(0, 3, 3)

    h.rebalance()
    h.assert_connectors(0, 1, 1)
    h.assert_tasks(2, 3, 3)
    h.assert_balanced_and_complete()


def test_deleted_connectors_are_revoked(h: Harness) -> None:
    h.connectors["connector3"] = 4
    h.add_workers("worker2")
    h.rebalance()
    h.assert_connectors(1, 2)
    h.assert_tasks(6, 6)

    del h.connectors["connector3"]
    h.rebalance()
    h.assert_delay(0)
    h.assert_connectors(1, 1)
    h.assert_tasks(4, 4)
    h.assert_balanced_and_complete()
    assert h.result is not None
    revoked = [c for v in h.result.newly_revoked_connectors.values() for c in v]
    assert revoked == ["connector3"]
    revoked_tasks = sorted(t for v in h.result.newly_revoked_tasks.values() for t in v)
    assert revoked_tasks == [T("connector3", i) for i in range(4)]


def test_scheduled_delay_disabled_reassigns_lost_work_at_once() -> None:
    h = Harness(delay=0)
    h.add_workers("worker2")
    h.rebalance()
    h.remove_workers("worker2")
    h.rebalance()
    h.assert_delay(0)
    h.assert_workers("worker1")
    h.assert_connectors(2)
    h.assert_tasks(8)
    h.assert_balanced_and_complete()


@pytest.mark.parametrize(
    ("claims", "deleted", "joining_round", "settled"),
    [
        (False, False, ((0, 1), (0, 4)), ((1, 1), (4, 4))),
        (True, False, ((0, 1), (0, 4)), ((1, 1), (4, 4))),
        (True, True, ((0, 1), (0, 2)), ((0, 1), (2, 2))),
    ],
    ids=[
        "task_assignment_when_worker_joins",
        "duplicated_tasks_are_revoked_then_reassigned",
        "duplicated_assignment_of_a_deleted_connector",
    ],
)
def test_second_worker_joins(
    h: Harness,
    claims: bool,
    deleted: bool,
    joining_round: tuple[tuple[int, ...], tuple[int, ...]],
    settled: tuple[tuple[int, ...], tuple[int, ...]],
) -> None:
    """worker2 joins worker1, empty or claiming connector1 and its tasks, which worker1 runs:
    it is given its share in two rounds; claimed duplicates are revoked, then reassigned (or,
    when connector1 was deleted meanwhile, dropped)."""
    h.rebalance()
    h.assert_delay(0)
    h.assert_workers("worker1")
    h.assert_connectors(2)
    h.assert_tasks(8)
    h.assert_balanced_and_complete()

    if deleted:
        del h.connectors["connector1"]
    if claims:
        h.add_worker("worker2", ["connector1"], [T("connector1", i) for i in range(4)])
    else:
        h.add_workers("worker2")
    h.rebalance()
    h.assert_delay(0)
    h.assert_workers("worker1", "worker2")
    h.assert_connectors(*joining_round[0])
    h.assert_tasks(*joining_round[1])

    h.rebalance()
    h.assert_no_revocations()
    h.assert_delay(0)
    h.assert_connectors(*settled[0])
    h.assert_tasks(*settled[1])
    h.assert_balanced_and_complete()

    h.clock.advance(h.assignor.delay)
    h.rebalance()
    h.assert_delay(0)
    h.assert_empty_assignment()


def _loads(*specs: tuple[str, int, int, int, int]) -> list[_WorkerLoad]:
    return [
        _WorkerLoad(
            w,
            [f"connector{i}" for i in range(cs, cs + cn)],
            [T("task", i) for i in range(ts, ts + tn)],
        )
        for w, cs, cn, ts, tn in specs
    ]


def test_lost_assignment_handling_when_worker_bounces() -> None:
    clock = MockClock()
    a = IncrementalCooperativeAssignor(DEFAULT_DELAY, clock)
    loads = {
        w.worker: w
        for w in _loads(("worker0", 0, 2, 0, 4), ("worker1", 2, 2, 4, 4), ("worker2", 4, 2, 8, 4))
    }
    a._handle_lost_assignments(ConnectorsAndTasks(), ConnectorsAndTasks(), list(loads.values()))
    assert not a.candidate_workers_for_reassignment
    assert (a.scheduled_rebalance, a.delay) == (0, 0)

    a.previous_members = set(loads)
    flaky = loads.pop("worker1")
    lost = ConnectorsAndTasks.of(flaky.connectors, flaky.tasks)
    a._handle_lost_assignments(lost, ConnectorsAndTasks(), list(loads.values()))
    assert not a.candidate_workers_for_reassignment
    assert a.scheduled_rebalance == clock.milliseconds() + DEFAULT_DELAY
    assert a.delay == DEFAULT_DELAY

    a.previous_members = set(loads)
    clock.advance(DEFAULT_DELAY // 2)
    loads["worker1"] = _WorkerLoad("worker1", [], [])
    a._handle_lost_assignments(lost, ConnectorsAndTasks(), list(loads.values()))
    assert list(a.candidate_workers_for_reassignment) == ["worker1"]
    assert a.scheduled_rebalance == clock.milliseconds() + DEFAULT_DELAY // 2
    assert a.delay == DEFAULT_DELAY // 2

    a.previous_members = set(loads)
    clock.advance(DEFAULT_DELAY // 2)
    a._handle_lost_assignments(lost, ConnectorsAndTasks(), list(loads.values()))
    assert set(lost.connectors) <= set(loads["worker1"].connectors)
    assert set(lost.tasks) <= set(loads["worker1"].tasks)
    assert not a.candidate_workers_for_reassignment
    assert (a.scheduled_rebalance, a.delay) == (0, 0)


def test_lost_assignment_handling_with_more_than_one_candidate() -> None:
    clock = MockClock()
    a = IncrementalCooperativeAssignor(DEFAULT_DELAY, clock)
    loads = {w.worker: w for w in _loads(("worker0", 0, 2, 0, 4), ("worker1", 2, 2, 4, 4))}
    a.previous_members = set(loads)
    flaky = loads.pop("worker1")
    lost = ConnectorsAndTasks.of(flaky.connectors, flaky.tasks)
    a._handle_lost_assignments(lost, ConnectorsAndTasks(), list(loads.values()))
    assert a.delay == DEFAULT_DELAY

    loads["worker2"] = _WorkerLoad("worker2", [], [])
    loads["worker3"] = _WorkerLoad("worker3", [], [])
    a.previous_members = set(loads)
    clock.advance(DEFAULT_DELAY // 2)
    a._handle_lost_assignments(lost, ConnectorsAndTasks(), list(loads.values()))
    assert set(a.candidate_workers_for_reassignment) == {"worker2", "worker3"}

    clock.advance(DEFAULT_DELAY // 2)
    to_reassign = ConnectorsAndTasks()
    a._handle_lost_assignments(lost, to_reassign, list(loads.values()))
    # Split round robin over both candidates, nothing left for the general pool.
    assert to_reassign.is_empty()
    assert len(loads["worker2"].connectors) == len(loads["worker3"].connectors) == 1
    assert len(loads["worker2"].tasks) == len(loads["worker3"].tasks) == 2
    assert (a.scheduled_rebalance, a.delay) == (0, 0)


def test_perform_assignment_sends_increments_revocations_and_leader_state() -> None:
    clock = MockClock()
    a = IncrementalCooperativeAssignor(DEFAULT_DELAY, clock)
    snap = snapshot({"c1": 2, "c2": 2})
    held = ExtendedAssignment(
        2,
        NO_ERROR,
        "m1",
        "http://w1:8083/",
        CONFIG_OFFSET,
        ["c1", "c2"],
        [T("c1", 0), T("c1", 1), T("c2", 0), T("c2", 1)],
    )
    members = {
        "m1": WorkerState("http://w1:8083/", CONFIG_OFFSET, held),
        "m2": WorkerState("http://w2:8083/", CONFIG_OFFSET, None),
    }
    out = a.perform_assignment("m1", "sessioned", members, snap)
    assert set(out) == {"m1", "m2"}
    assert all(x.version == 2 and x.error == NO_ERROR and x.leader == "m1" for x in out.values())
    assert all(
        x.leader_url == "http://w1:8083/" and x.config_offset == CONFIG_OFFSET for x in out.values()
    )
    # m2 is new: m1 gives up one connector and two tasks; nothing is assigned in this round.
    assert len(out["m1"].revoked_connectors) == 1
    assert len(out["m1"].revoked_tasks) == 2
    assert out["m2"].connectors == [] and out["m2"].tasks == []
    assert a.leader_state is not None
    kept = next(c for c in ["c1", "c2"] if c not in out["m1"].revoked_connectors)
    assert a.leader_state.owner_url(kept) == "http://w1:8083/"
    assert a.leader_state.owner_url(out["m1"].revoked_connectors[0]) is None

    compat = a.perform_assignment("m1", "compatible", members, snap)
    assert all(x.version == 1 for x in compat.values())


def test_config_mismatch_when_leader_is_behind_even_after_refresh() -> None:
    a = IncrementalCooperativeAssignor(DEFAULT_DELAY, MockClock())
    members = {
        "m1": WorkerState("http://w1/", 5),
        "m2": WorkerState("http://w2/", 9),
    }
    out = a.perform_assignment(
        "m1",
        "sessioned",
        members,
        snapshot({"c": 1}, offset=5),
        lambda: snapshot({"c": 1}, offset=7),
    )
    assert {m: (x.error, x.config_offset, x.connectors) for m, x in out.items()} == {
        "m1": (CONFIG_MISMATCH, 9, []),
        "m2": (CONFIG_MISMATCH, 9, []),
    }
    # A refresh that catches up is used, with its offset.
    ok = a.perform_assignment(
        "m1",
        "sessioned",
        members,
        snapshot({"c": 1}, offset=5),
        lambda: snapshot({"c": 1}, offset=10),
    )
    assert {x.error for x in ok.values()} == {NO_ERROR}
    assert {x.config_offset for x in ok.values()} == {10}
