"""WorkerGroupMember against the real broker: election, assignment, leave, crash, mismatch."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest

from kconnect.kafka.group.connect_protocol import CONFIG_MISMATCH, NO_ERROR, ExtendedAssignment
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.herder.group_member import WorkerGroupMember
from kconnect.testing.fakes import config_snapshot

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


SNAP = config_snapshot({"a": 2, "b": 2}, offset=5)


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.assignments: list[tuple[ExtendedAssignment, int]] = []
        self.revoked: list[tuple[Any, list[str], list[Any]]] = []
        self.member: WorkerGroupMember | None = None

    def on_assigned(self, assignment: ExtendedAssignment, generation: int) -> None:
        with self.lock:
            self.assignments.append((assignment, generation))
        # Like Kafka's herder: after revocations, rejoin so the freed work is reassigned.
        if assignment.revoked_connectors or assignment.revoked_tasks or assignment.delay:
            if assignment.delay:
                threading.Timer(assignment.delay / 1000, self._rejoin).start()
            else:
                self._rejoin()

    def _rejoin(self) -> None:
        if self.member is not None:
            self.member.request_rejoin("test")

    def on_revoked(self, leader: Any, connectors: list[str], tasks: list[Any]) -> None:
        with self.lock:
            self.revoked.append((leader, connectors, tasks))

    def last(self) -> ExtendedAssignment | None:
        with self.lock:
            return self.assignments[-1][0] if self.assignments else None


def make(bootstrap: str, group: str, n: int, supplier: Any = lambda: SNAP, **extra: Any):
    cfg = {
        "bootstrap.servers": [bootstrap],
        "group.id": group,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
        "rebalance.timeout.ms": 10000,
        "scheduled.rebalance.max.delay.ms": 2000,
        **extra,
    }
    rec = Recorder()
    m = WorkerGroupMember(cfg, f"http://worker{n}:8083/", supplier, rec)
    rec.member = m
    return m, rec


def wait_for(cond: Any, timeout: float = 40.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def owned(recs: list[Recorder]) -> tuple[list[str], list[ConnectorTaskId]]:
    conns: list[str] = []
    tasks: list[ConnectorTaskId] = []
    for r in recs:
        a = r.last()
        if a is not None and a.error == NO_ERROR:
            conns += a.connectors
            tasks += a.tasks
    return sorted(conns), sorted(tasks)


ALL = (["a", "b"], sorted(ConnectorTaskId(c, i) for c in "ab" for i in range(2)))


@pytest.mark.parametrize("protocol", ["sessioned", "eager"])
def test_members_share_work_and_survive_leave_and_crash(
    kafka_bootstrap: str, protocol: str
) -> None:
    group = f"kc-group-{uuid.uuid4().hex[:8]}"
    pairs = [make(kafka_bootstrap, group, i, **{"connect.protocol": protocol}) for i in range(3)]
    members = [m for m, _ in pairs]
    recs = [r for _, r in pairs]
    try:
        for m in members:
            m.start()
        wait_for(lambda: owned(recs) == ALL and all(r.last() for r in recs))
        leaders = {r.last().leader for r in recs}  # type: ignore[union-attr]
        assert len(leaders) == 1
        leader = leaders.pop()
        assert leader in {m.member_id() for m in members}
        assert {r.last().leader_url for r in recs} == {  # type: ignore[union-attr]
            next(
                f"http://worker{i}:8083/" for i, m in enumerate(members) if m.member_id() == leader
            )
        }
        assert members[0].current_protocol_version() == (2 if protocol == "sessioned" else 0)
        lead = next(m for m in members if m.member_id() == leader)
        assert lead.owner_url("a") is not None

        # A follower leaves cleanly: its work ends up on the other two.
        idx = next(i for i, m in enumerate(members) if m.member_id() != leader)
        members[idx].stop()
        rest = [r for i, r in enumerate(recs) if i != idx]
        wait_for(lambda: owned(rest) == ALL)

        # Another follower is killed (no LeaveGroup): after the session timeout and the
        # scheduled delay its work moves to the survivor.
        others = [i for i in range(3) if i != idx and members[i].member_id() != leader]
        if others:
            members[others[0]].kill()
            survivor = [r for i, r in enumerate(recs) if i not in (idx, others[0])]
            wait_for(lambda: owned(survivor) == ALL, timeout=60)
    finally:
        for m in members:
            m.stop()


def test_config_mismatch_when_leader_is_behind(kafka_bootstrap: str) -> None:
    group = f"kc-group-{uuid.uuid4().hex[:8]}"
    behind = config_snapshot({"a": 1}, offset=1)
    ahead = config_snapshot({"a": 1}, offset=9)
    m1, r1 = make(kafka_bootstrap, group, 1, supplier=lambda: behind)
    m2, r2 = make(kafka_bootstrap, group, 2, supplier=lambda: ahead)
    try:
        m1.start()
        wait_for(lambda: r1.last() is not None)
        m2.start()
        # Whoever leads, the group sees offsets 1 and 9: a leader at 1 cannot catch up.
        wait_for(
            lambda: (
                any(
                    a.error == CONFIG_MISMATCH and a.config_offset == 9
                    for r in (r1, r2)
                    for a, _ in list(r.assignments)
                )
                or (r2.last() is not None and r2.last().error == NO_ERROR)
            )
        )  # type: ignore[union-attr]
        mismatches = [a for r in (r1, r2) for a, _ in r.assignments if a.error == CONFIG_MISMATCH]
        if m1.member_id() == (r1.last() or r2.last()).leader:  # type: ignore[union-attr]
            assert mismatches and all(a.config_offset == 9 for a in mismatches)
    finally:
        m1.stop()
        m2.stop()
