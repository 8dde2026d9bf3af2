"""Memory config/status stores and KIP-745 restart plans."""

from __future__ import annotations

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.restart import RestartPlan, RestartRequest
from kconnect.runtime.common.states import ConnectorStatus, State, TargetState, TaskStatus
from kconnect.runtime.storage.config_store import MemoryConfigBackingStore
from kconnect.runtime.storage.status_store import MemoryStatusBackingStore, TopicStatus


def test_config_store_snapshot_is_immutable_view():
    store = MemoryConfigBackingStore()
    store.put_connector_config("c", {"name": "c"}, None)
    snap = store.snapshot()
    store.put_task_configs("c", [{"a": "1"}, {"a": "2"}])
    assert snap.task_count("c") == 0
    snap2 = store.snapshot()
    assert snap2.tasks("c") == [ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)]
    assert snap2.raw_task_config(ConnectorTaskId("c", 1)) == {"a": "2"}
    assert snap2.target_state("c") is TargetState.STARTED
    assert snap2.applied_connector_config("c") == {"name": "c"}
    store.put_connector_config("c", {"name": "c"}, TargetState.STOPPED)
    assert store.snapshot().target_state("c") is TargetState.STOPPED
    store.remove_connector_config("c")
    assert not store.snapshot().contains("c")


def test_status_store_destroyed_removes_and_put_safe_respects_generation():
    s = MemoryStatusBackingStore()
    s.put(ConnectorStatus("c", State.RUNNING, "w1", 5))
    s.put(TaskStatus(ConnectorTaskId("c", 1), State.RUNNING, "w1"))
    s.put(TaskStatus(ConnectorTaskId("c", 0), State.FAILED, "w1", 0, "trace"))
    assert [t.id.task for t in s.get_all("c")] == [0, 1]
    s.put_safe(ConnectorStatus("c", State.UNASSIGNED, "w2", 1))
    assert s.get_connector("c").state is State.RUNNING  # older generation from another worker
    s.put(TaskStatus(ConnectorTaskId("c", 0), State.DESTROYED, "w1"))
    assert s.get_task(ConnectorTaskId("c", 0)) is None
    s.put_topic(TopicStatus("t", "c", 0, 1))
    assert [t.topic for t in s.get_all_topics("c")] == ["t"]
    s.put(ConnectorStatus("c", State.DESTROYED, "w1"))
    assert s.get_connector("c") is None and s.get_all_topics("c") == []


def _statuses():
    conn = ConnectorStatus("c", State.RUNNING, "w")
    tasks = [
        TaskStatus(ConnectorTaskId("c", 0), State.RUNNING, "w"),
        TaskStatus(ConnectorTaskId("c", 1), State.FAILED, "w", 0, "boom"),
    ]
    return conn, tasks


def test_restart_plan_semantics():
    conn, tasks = _statuses()
    assert RestartRequest("c").force_restart_connector_only()
    plan = RestartPlan.build(RestartRequest("c", only_failed=True, include_tasks=True), conn, tasks)
    assert not plan.restart_connector
    assert plan.task_ids_to_restart == [ConnectorTaskId("c", 1)]
    assert [plan.state_of_task(t) for t in tasks] == [State.RUNNING, State.RESTARTING]
    plan = RestartPlan.build(
        RestartRequest("c", only_failed=False, include_tasks=True), conn, tasks
    )
    assert plan.restart_connector and len(plan.task_ids_to_restart) == 2
    assert plan.state_of_connector() is State.RESTARTING
    plan = RestartPlan.build(
        RestartRequest("c", only_failed=True, include_tasks=False), conn, tasks
    )
    assert not plan.restart_connector and not plan.should_restart_tasks
