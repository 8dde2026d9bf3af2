"""EagerAssignor: Kafka's round robin (connectors, then tasks on the same iterator)."""

from __future__ import annotations

from kconnect.kafka.group.connect_protocol import CONFIG_MISMATCH, NO_ERROR, WorkerState
from kconnect.runtime.common.ids import ConnectorTaskId as T
from kconnect.runtime.herder.assignors import EagerAssignor
from kconnect.runtime.storage.config_store import ClusterConfigState
from kconnect.testing.fakes import config_snapshot


def snap(connectors: dict[str, int], offset: int = 12) -> ClusterConfigState:
    return config_snapshot(connectors, offset)


def members(*ids: str, offset: int = 12) -> dict[str, WorkerState]:
    return {m: WorkerState(f"http://{m}:8083/", offset) for m in ids}


def test_round_robin_connectors_then_tasks_continue_the_iterator() -> None:
    a = EagerAssignor()
    out = a.perform_assignment(
        "leader", "default", members("leader", "member"), snap({"connector2": 1, "connector1": 2})
    )
    # Sorted members: leader, member. connector1->leader, connector2->member, then tasks
    # connector1-0 -> leader, connector1-1 -> member, connector2-0 -> leader.
    assert out["leader"].connectors == ["connector1"]
    assert out["member"].connectors == ["connector2"]
    assert out["leader"].tasks == [T("connector1", 0), T("connector2", 0)]
    assert out["member"].tasks == [T("connector1", 1)]
    for x in out.values():
        assert (x.version, x.error, x.leader, x.leader_url, x.config_offset) == (
            0,
            NO_ERROR,
            "leader",
            "http://leader:8083/",
            12,
        )
    assert a.leader_state is not None
    assert a.leader_state.owner_url("connector2") == "http://member:8083/"
    assert a.leader_state.owner_url(T("connector1", 1)) == "http://member:8083/"
    assert a.leader_state.owner_url("nope") is None


def test_one_task_connectors_spread_over_three_members() -> None:
    out = EagerAssignor().perform_assignment(
        "a", "default", members("a", "b", "c"), snap({"x": 1, "y": 1, "z": 1})
    )
    assert [out[m].connectors for m in "abc"] == [["x"], ["y"], ["z"]]
    assert [out[m].tasks for m in "abc"] == [[T("x", 0)], [T("y", 0)], [T("z", 0)]]


def test_member_without_work_gets_an_empty_assignment() -> None:
    out = EagerAssignor().perform_assignment("a", "default", members("a", "b"), snap({"x": 0}))
    assert out["a"].connectors == ["x"] and out["a"].tasks == []
    assert out["b"].connectors == [] and out["b"].tasks == [] and out["b"].error == NO_ERROR


def test_config_mismatch_when_leader_cannot_catch_up() -> None:
    m = {"a": WorkerState("http://a/", 3), "b": WorkerState("http://b/", 8)}
    out = EagerAssignor().perform_assignment(
        "a", "default", m, snap({"x": 1}, 3), lambda: snap({"x": 1}, 4)
    )
    assert {k: (v.error, v.config_offset, v.connectors, v.tasks) for k, v in out.items()} == {
        "a": (CONFIG_MISMATCH, 8, [], []),
        "b": (CONFIG_MISMATCH, 8, [], []),
    }


def test_leader_ahead_of_members_uses_the_max_member_offset() -> None:
    m = {"a": WorkerState("http://a/", 3), "b": WorkerState("http://b/", 5)}
    out = EagerAssignor().perform_assignment("a", "default", m, snap({"x": 1}, 9))
    assert {v.config_offset for v in out.values()} == {5}
