"""The herders' status listener: what each callback writes to the status store."""

from __future__ import annotations

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import ConnectorStatus, State, TaskStatus
from kconnect.runtime.herder.herder_status import HerderStatusListener
from kconnect.runtime.storage.status_store import MemoryStatusBackingStore
from kconnect.testing.fakes import FakeWorker


class _Listener(HerderStatusListener):
    def __init__(self, worker: str, generation: int = 0) -> None:
        self.status_store = MemoryStatusBackingStore()
        self._worker = worker
        self.generation = generation

    @property
    def worker_id(self) -> str:
        return self._worker

    def _status_generation(self) -> int:
        return self.generation


def test_each_callback_records_its_state_with_worker_and_generation() -> None:
    h = _Listener("w1:8083", generation=4)
    t0 = ConnectorTaskId("c", 0)
    h.on_startup("c")
    h.on_startup(t0)
    assert h.status_store.get_connector("c") == ConnectorStatus("c", State.RUNNING, "w1:8083", 4)
    assert h.status_store.get_task(t0) == TaskStatus(t0, State.RUNNING, "w1:8083", 4)
    for call, state in (
        (h.on_pause, State.PAUSED),
        (h.on_resume, State.RUNNING),
        (h.on_stop, State.STOPPED),
        (h.on_restart, State.RESTARTING),
        (h.on_shutdown, State.UNASSIGNED),
    ):
        call("c")
        status = h.status_store.get_connector("c")
        assert status is not None and status.state is state


def test_failure_trace_is_the_formatted_traceback() -> None:
    h = _Listener("w1")
    t0 = ConnectorTaskId("c", 0)
    try:
        raise ValueError("bad record at offset 7")
    except ValueError as e:
        h.on_failure(t0, e)
    status = h.status_store.get_task(t0)
    assert status is not None and status.state is State.FAILED
    assert status.trace is not None
    assert (
        status.trace.startswith("Traceback")
        and "ValueError: bad record at offset 7" in status.trace
    )


def test_failure_and_shutdown_do_not_overwrite_a_newer_owner() -> None:
    t0 = ConnectorTaskId("c", 0)
    old = _Listener("w1", generation=1)
    new = _Listener("w2", generation=2)
    new.status_store = old.status_store  # one shared store, as the status topic is
    new.on_startup(t0)
    old.on_shutdown(t0)
    old.on_failure(t0, RuntimeError("late"))
    assert old.status_store.get_task(t0) == TaskStatus(t0, State.RUNNING, "w2", 2)


def test_deleting_a_connector_removes_its_task_statuses() -> None:
    h = _Listener("w1")
    tasks = [ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)]
    h.on_startup("c")
    for t in tasks:
        h.on_startup(t)
    h.on_deletion("c")
    assert h.status_store.get_connector("c") is None
    assert h.status_store.get_all("c") == []


def test_statuses_carry_the_running_plugins_version() -> None:
    h = _Listener("w1:8083")
    # connector "c" and its task 0 run here
    h.worker = FakeWorker(versions={"c": "1.2", ConnectorTaskId("c", 0): "1.3"})  # type: ignore[attr-defined]
    t0, t1 = ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)
    h.on_startup("c")
    h.on_startup(t0)
    h.on_failure(t1, RuntimeError("boom"))
    assert h.status_store.get_connector("c") == ConnectorStatus(
        "c", State.RUNNING, "w1:8083", 0, None, "1.2"
    )
    assert h.status_store.get_task(t0) == TaskStatus(t0, State.RUNNING, "w1:8083", 0, None, "1.3")
    task1 = h.status_store.get_task(t1)
    assert task1 is not None and task1.version is None  # not running here: no version
