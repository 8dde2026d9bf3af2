"""The contract every config / status / offset backing store keeps, as pytest test classes.

A store implementation runs the suite by subclassing the mixins that apply to it in a test
module, under a name pytest collects, and saying how to make a store::

    class TestMemoryConfigStore(ConfigStoreConformance):
        def make_store(self) -> ConfigBackingStore:
            return MemoryConfigBackingStore()

========================================  ======================================================
mixin                                     for
========================================  ======================================================
:class:`ConfigStoreConformance`           every :class:`ConfigBackingStore`
:class:`ConfigTaskRemovalConformance`     config stores whose ``remove_task_configs`` works (the
                                          config topic cannot remove task configs)
:class:`PersistentConfigStoreConformance` config stores that outlive their instance
:class:`ConfigListenerConformance`        config stores announcing other stores' writes to an
                                          update listener (``set_update_listener``)
:class:`StatusStoreConformance`           every :class:`StatusBackingStore`
:class:`PersistentStatusStoreConformance` status stores that outlive their instance
:class:`OffsetStoreConformance`           every :class:`OffsetBackingStore`
:class:`PersistentOffsetStoreConformance` offset stores that outlive their instance
========================================  ======================================================

The hooks a subclass provides:

* ``make_store()`` (required) -- a new, *unstarted* store. Within one test every store it
  makes uses the same storage (the same topics, the same file), so the persistence and
  listener checks can open a second store over what the first wrote; each test gets fresh
  storage (a memory store is simply new every time, and only runs single-store checks).
* ``settle(store)`` (optional) -- make everything written so far, through any store of the
  test, visible to ``store``'s reads (a Kafka store: flush the writers, read the topic to its
  end). The default does nothing: a memory or file store shows a write at once.

The suite starts the stores it makes through :meth:`StoreHarness.open_store` and stops them
after each test (``teardown_method``; call :meth:`StoreHarness.close_stores` earlier if the
storage goes away first). Checks are plain ``assert`` statements with messages; importing this
module needs no pytest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import ConnectorStatus, State, TargetState, TaskStatus
from kconnect.runtime.storage.config_store import ConfigBackingStore, ConfigUpdateListener
from kconnect.runtime.storage.offset_store import OffsetBackingStore
from kconnect.runtime.storage.offset_utils import serialize_key, serialize_offset
from kconnect.runtime.storage.status_store import StatusBackingStore, TopicStatus
from kconnect.testing.fakes import RecordingConfigListener

__all__ = [
    "ConfigListenerConformance",
    "ConfigStoreConformance",
    "ConfigTaskRemovalConformance",
    "OffsetStoreConformance",
    "PersistentConfigStoreConformance",
    "PersistentOffsetStoreConformance",
    "PersistentStatusStoreConformance",
    "StatusStoreConformance",
    "StoreHarness",
]

S = TypeVar("S", ConfigBackingStore, StatusBackingStore, OffsetBackingStore)

#: How long a check waits for a write's future or a listener's callback.
WAIT_S = 30.0

T0, T1, T2 = (ConnectorTaskId("conn", i) for i in range(3))


class StoreHarness(Generic[S]):
    """Opens the stores of one test and stops them afterwards; the hooks of the suite."""

    _opened: list[S]

    def make_store(self) -> S:
        """A new, unstarted store over this test's storage (see the module docstring)."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_store()")

    def settle(self, store: S) -> None:
        """Make every write of this test visible to ``store``'s reads (default: nothing)."""

    def open_store(self) -> S:
        """``make_store()``, started; stopped by :meth:`close_stores`."""
        store = self.make_store()
        store.start()
        self.opened_stores.append(store)
        return store

    @property
    def opened_stores(self) -> list[S]:
        if "_opened" not in self.__dict__:
            self._opened = []
        return self._opened

    def stop_store(self, store: S) -> None:
        """Stop one store of this test now (a worker shutting down)."""
        if store in self.opened_stores:
            self.opened_stores.remove(store)
            store.stop()

    def close_stores(self) -> None:
        """Stop every store this test opened, newest first. Idempotent."""
        while self.opened_stores:
            self.opened_stores.pop().stop()

    def teardown_method(self, method: Any) -> None:
        self.close_stores()


# -- config stores --------------------------------------------------------------------------------

CONFIG_A = {"name": "conn", "connector.class": "Source", "tasks.max": "2"}
CONFIG_B = {"name": "conn", "connector.class": "Source", "tasks.max": "3", "k": "${file:x:y}"}


class ConfigStoreConformance(StoreHarness[ConfigBackingStore]):
    """Configs, task configs and target states, read back through immutable snapshots."""

    def test_a_new_store_knows_no_connector(self) -> None:
        snap = self.open_store().snapshot()
        assert snap.connectors() == []
        assert not snap.contains("conn")
        assert snap.raw_connector_config("conn") is None
        assert snap.target_state("conn") is None
        assert snap.tasks("conn") == []
        assert snap.raw_task_config(T0) is None

    def test_put_config_is_read_back_raw_with_target_state_started(self) -> None:
        store = self.open_store()
        store.put_connector_config("conn", CONFIG_B, None)
        self.settle(store)
        snap = store.snapshot()
        assert snap.contains("conn") and snap.connectors() == ["conn"]
        # raw: config-provider variables are stored as written, never resolved
        assert snap.raw_connector_config("conn") == CONFIG_B
        assert snap.target_state("conn") is TargetState.STARTED
        assert snap.tasks("conn") == []

    def test_target_state_given_with_the_config_or_later(self) -> None:
        store = self.open_store()
        store.put_connector_config("conn", CONFIG_A, TargetState.PAUSED)
        self.settle(store)
        assert store.snapshot().target_state("conn") is TargetState.PAUSED
        store.put_connector_config("conn", CONFIG_B, None)  # None keeps the current state
        self.settle(store)
        assert store.snapshot().target_state("conn") is TargetState.PAUSED
        assert store.snapshot().raw_connector_config("conn") == CONFIG_B
        for state in (TargetState.STOPPED, TargetState.STARTED, TargetState.PAUSED):
            store.put_target_state("conn", state)
            self.settle(store)
            assert store.snapshot().target_state("conn") is state, f"after writing {state}"

    def test_task_configs_replace_the_previous_ones(self) -> None:
        store = self.open_store()
        store.put_connector_config("conn", CONFIG_A, None)
        store.put_task_configs("conn", [{"t": "0"}, {"t": "1"}, {"t": "2"}])
        self.settle(store)
        snap = store.snapshot()
        assert snap.tasks("conn") == [T0, T1, T2]
        assert snap.task_count("conn") == 3
        assert [snap.raw_task_config(t) for t in (T0, T1, T2)] == [
            {"t": "0"},
            {"t": "1"},
            {"t": "2"},
        ]
        store.put_task_configs("conn", [{"t": "new"}])
        self.settle(store)
        snap = store.snapshot()
        assert snap.tasks("conn") == [T0]
        assert snap.raw_task_config(T0) == {"t": "new"}
        assert snap.raw_task_config(T1) is None
        store.put_task_configs("conn", [])
        self.settle(store)
        assert store.snapshot().tasks("conn") == []

    def test_applied_config_is_the_one_the_task_configs_came_from(self) -> None:
        store = self.open_store()
        store.put_connector_config("conn", CONFIG_A, None)
        store.put_task_configs("conn", [{"t": "0"}])
        store.put_connector_config("conn", CONFIG_B, None)
        self.settle(store)
        snap = store.snapshot()
        assert snap.raw_connector_config("conn") == CONFIG_B
        assert snap.applied_connector_config("conn") == CONFIG_A
        assert snap.raw_task_config(T0) == {"t": "0"}  # a new config keeps the task configs
        store.put_task_configs("conn", [{"t": "0"}, {"t": "1"}])
        self.settle(store)
        assert store.snapshot().applied_connector_config("conn") == CONFIG_B

    def test_removing_a_connector_removes_its_config_target_state_and_tasks(self) -> None:
        store = self.open_store()
        for name in ("conn", "other"):
            store.put_connector_config(name, {**CONFIG_A, "name": name}, TargetState.PAUSED)
            store.put_task_configs(name, [{"t": "0"}])
        store.remove_connector_config("conn")
        self.settle(store)
        snap = store.snapshot()
        assert snap.connectors() == ["other"]
        assert snap.raw_connector_config("conn") is None
        assert snap.target_state("conn") is None
        assert snap.tasks("conn") == []
        assert snap.tasks("other") == [ConnectorTaskId("other", 0)]  # the others stay
        # a removed connector can be created again, from scratch
        store.put_connector_config("conn", CONFIG_B, None)
        self.settle(store)
        snap = store.snapshot()
        assert snap.raw_connector_config("conn") == CONFIG_B
        assert snap.target_state("conn") is TargetState.STARTED
        assert snap.tasks("conn") == []

    def test_a_snapshot_is_an_immutable_view_of_its_moment(self) -> None:
        store = self.open_store()
        store.put_connector_config("conn", CONFIG_A, None)
        self.settle(store)
        before = store.snapshot()
        store.put_task_configs("conn", [{"t": "0"}])
        store.put_target_state("conn", TargetState.STOPPED)
        store.put_connector_config("later", {"name": "later"}, None)
        self.settle(store)
        assert before.tasks("conn") == [] and before.connectors() == ["conn"]
        assert before.target_state("conn") is TargetState.STARTED
        copy = before.raw_connector_config("conn")
        assert copy is not None
        copy["tasks.max"] = "99"  # a returned config is the caller's copy
        assert before.raw_connector_config("conn") == CONFIG_A
        try:
            before.connector_configs["x"] = {}  # type: ignore[index]
        except TypeError:
            pass
        else:
            raise AssertionError("a snapshot's connector_configs must not be writable")
        after = store.snapshot()
        assert after.tasks("conn") == [T0]
        assert after.target_state("conn") is TargetState.STOPPED
        assert after.connectors() == ["conn", "later"]


class ConfigTaskRemovalConformance(StoreHarness[ConfigBackingStore]):
    """``remove_task_configs`` removes the connector's task configs and nothing else."""

    def test_remove_task_configs_keeps_the_connector(self) -> None:
        store = self.open_store()
        store.put_connector_config("conn", CONFIG_A, TargetState.PAUSED)
        store.put_task_configs("conn", [{"t": "0"}, {"t": "1"}])
        store.remove_task_configs("conn")
        self.settle(store)
        snap = store.snapshot()
        assert snap.tasks("conn") == []
        assert snap.raw_connector_config("conn") == CONFIG_A
        assert snap.target_state("conn") is TargetState.PAUSED


class PersistentConfigStoreConformance(StoreHarness[ConfigBackingStore]):
    """A store started over existing storage reads back what earlier stores wrote -- with
    removals (tombstones) staying removed."""

    def test_a_restarted_store_reads_back_configs_tasks_and_target_states(self) -> None:
        first = self.open_store()
        first.put_connector_config("conn", CONFIG_A, TargetState.PAUSED)
        first.put_task_configs("conn", [{"t": "0"}, {"t": "1"}])
        first.put_connector_config("conn", CONFIG_B, None)
        first.put_connector_config("stopped", {"name": "stopped"}, None)
        first.put_target_state("stopped", TargetState.STOPPED)
        first.put_connector_config("gone", {"name": "gone"}, None)
        first.put_task_configs("gone", [{"t": "0"}])
        first.remove_connector_config("gone")
        self.settle(first)
        self.stop_store(first)

        snap = self.open_store().snapshot()
        assert snap.connectors() == ["conn", "stopped"]
        assert snap.raw_connector_config("conn") == CONFIG_B
        assert snap.applied_connector_config("conn") == CONFIG_A
        assert snap.target_state("conn") is TargetState.PAUSED
        assert [snap.raw_task_config(t) for t in snap.tasks("conn")] == [{"t": "0"}, {"t": "1"}]
        assert snap.target_state("stopped") is TargetState.STOPPED
        assert snap.raw_connector_config("gone") is None and snap.tasks("gone") == []


@runtime_checkable
class _ListenedConfigStore(Protocol):
    """A config store that announces other stores' writes (``KafkaConfigBackingStore``)."""

    def set_update_listener(self, listener: ConfigUpdateListener) -> None: ...


class ConfigListenerConformance(StoreHarness[ConfigBackingStore]):
    """A store with an update listener hears, in order, what other stores over the same
    storage write after it started -- and nothing it read while starting."""

    def test_the_listener_hears_writes_of_another_store(self) -> None:
        writer = self.open_store()
        writer.put_connector_config("before", {"name": "before"}, None)
        self.settle(writer)
        listener = RecordingConfigListener()
        reader = self.make_store()
        assert isinstance(reader, _ListenedConfigStore), f"{type(reader).__name__} has no listener"
        reader.set_update_listener(listener)
        reader.start()
        self.opened_stores.append(reader)

        writer.put_connector_config("conn", CONFIG_A, None)
        writer.put_task_configs("conn", [{"t": "0"}, {"t": "1"}])
        writer.put_target_state("conn", TargetState.PAUSED)
        writer.remove_connector_config("conn")
        self.settle(reader)
        expected = [
            ("config", "conn"),
            ("tasks", [T0, T1]),
            ("target", "conn"),
            ("remove", "conn"),
        ]
        _wait_for(lambda: len(listener.events) >= len(expected), "the listener's callbacks")
        assert listener.events == expected, listener.events


# -- status stores --------------------------------------------------------------------------------


class StatusStoreConformance(StoreHarness[StatusBackingStore]):
    """Connector, task and topic statuses: the latest one wins, DESTROYED removes, ``put_safe``
    keeps a newer generation's status from another worker."""

    def test_a_new_store_knows_no_status(self) -> None:
        store = self.open_store()
        assert store.get_connector("conn") is None
        assert store.get_task(T0) is None
        assert store.get_all("conn") == []
        assert store.connectors() == set()
        assert store.get_all_topics("conn") == []

    def test_statuses_are_read_back_field_for_field(self) -> None:
        store = self.open_store()
        conn = ConnectorStatus("conn", State.RUNNING, "w1:8083", 3, None, "1.2.3")
        failed = TaskStatus(T1, State.FAILED, "w2:8083", 3, "Trace\n\tat line 1", "1.2.3")
        running = TaskStatus(T0, State.RUNNING, "w1:8083", 3)
        for status in (conn, failed, running):
            store.put(status)
        store.put(ConnectorStatus("other", State.PAUSED, "w2:8083", 3))
        self.settle(store)
        assert store.get_connector("conn") == conn
        assert store.get_task(T1) == failed
        assert store.get_all("conn") == [running, failed]  # sorted by task number
        assert store.connectors() == {"conn", "other"}

    def test_the_latest_status_wins_and_destroyed_removes(self) -> None:
        store = self.open_store()
        store.put(ConnectorStatus("conn", State.RUNNING, "w1:8083", 1))
        store.put(TaskStatus(T0, State.RUNNING, "w1:8083", 1))
        store.put(TaskStatus(T1, State.RUNNING, "w1:8083", 1))
        self.settle(store)
        store.put(ConnectorStatus("conn", State.PAUSED, "w1:8083", 1))
        store.put(TaskStatus(T0, State.DESTROYED, "w1:8083", 1))
        self.settle(store)
        assert store.get_connector("conn") == ConnectorStatus("conn", State.PAUSED, "w1:8083", 1)
        assert store.get_task(T0) is None
        assert store.get_all("conn") == [TaskStatus(T1, State.RUNNING, "w1:8083", 1)]
        store.put(ConnectorStatus("conn", State.DESTROYED, "w1:8083", 1))
        self.settle(store)
        assert store.get_connector("conn") is None
        assert "conn" not in store.connectors()

    def test_put_safe_does_not_overwrite_a_newer_generation_of_another_worker(self) -> None:
        store = self.open_store()
        store.put(ConnectorStatus("conn", State.RUNNING, "w1:8083", 5))
        store.put(TaskStatus(T0, State.RUNNING, "w1:8083", 5))
        self.settle(store)
        # another worker with an older generation: ignored
        store.put_safe(ConnectorStatus("conn", State.UNASSIGNED, "w2:8083", 4))
        store.put_safe(TaskStatus(T0, State.FAILED, "w2:8083", 4, "boom"))
        self.settle(store)
        assert store.get_connector("conn") == ConnectorStatus("conn", State.RUNNING, "w1:8083", 5)
        assert store.get_task(T0) == TaskStatus(T0, State.RUNNING, "w1:8083", 5)
        # the same worker, whatever its generation; another worker with a newer one: written
        store.put_safe(ConnectorStatus("conn", State.FAILED, "w1:8083", 4, "own"))
        store.put_safe(TaskStatus(T0, State.UNASSIGNED, "w2:8083", 6))
        store.put_safe(TaskStatus(T1, State.UNASSIGNED, "w2:8083", 0))  # nothing stored yet
        self.settle(store)
        assert store.get_connector("conn") == ConnectorStatus(
            "conn", State.FAILED, "w1:8083", 4, "own"
        )
        assert store.get_task(T0) == TaskStatus(T0, State.UNASSIGNED, "w2:8083", 6)
        assert store.get_task(T1) == TaskStatus(T1, State.UNASSIGNED, "w2:8083", 0)

    def test_topic_statuses_keep_the_first_discovery_until_deleted(self) -> None:
        store = self.open_store()
        store.put_topic(TopicStatus("orders", "conn", 0, 1_700_000_000_000))
        store.put_topic(TopicStatus("users", "conn", 1, 1_700_000_000_500))
        store.put_topic(TopicStatus("orders", "other", 0, 1_700_000_000_900))
        self.settle(store)
        store.put_topic(TopicStatus("orders", "conn", 1, 1_700_000_009_999))  # already known
        self.settle(store)
        assert sorted(store.get_all_topics("conn"), key=lambda t: t.topic) == [
            TopicStatus("orders", "conn", 0, 1_700_000_000_000),
            TopicStatus("users", "conn", 1, 1_700_000_000_500),
        ]
        store.delete_topic("conn", "orders")
        self.settle(store)
        assert store.get_all_topics("conn") == [TopicStatus("users", "conn", 1, 1_700_000_000_500)]
        assert store.get_all_topics("other") == [
            TopicStatus("orders", "other", 0, 1_700_000_000_900)
        ]


class PersistentStatusStoreConformance(StoreHarness[StatusBackingStore]):
    """A store started over existing storage reads back the latest statuses and topics, with
    DESTROYED (tombstoned) ones staying gone."""

    def test_a_restarted_store_reads_back_the_latest_statuses(self) -> None:
        first = self.open_store()
        first.put(ConnectorStatus("conn", State.RUNNING, "w1:8083", 2, None, "4.1"))
        first.put(TaskStatus(T0, State.RUNNING, "w1:8083", 2))
        first.put(TaskStatus(T1, State.RUNNING, "w1:8083", 2))
        self.settle(first)
        first.put(TaskStatus(T0, State.FAILED, "w1:8083", 2, "Trace"))
        first.put(TaskStatus(T1, State.DESTROYED, "w1:8083", 2))
        first.put(ConnectorStatus("gone", State.RUNNING, "w1:8083", 2))
        first.put_topic(TopicStatus("orders", "conn", 0, 1_700_000_000_000))
        first.put_topic(TopicStatus("old", "conn", 0, 1_700_000_000_000))
        self.settle(first)
        first.put(ConnectorStatus("gone", State.DESTROYED, "w1:8083", 2))
        first.delete_topic("conn", "old")
        self.settle(first)
        self.stop_store(first)

        second = self.open_store()
        self.settle(second)
        assert second.get_connector("conn") == ConnectorStatus(
            "conn", State.RUNNING, "w1:8083", 2, None, "4.1"
        )
        assert second.get_all("conn") == [TaskStatus(T0, State.FAILED, "w1:8083", 2, "Trace")]
        assert second.get_connector("gone") is None
        assert second.connectors() == {"conn"}
        assert second.get_all_topics("conn") == [
            TopicStatus("orders", "conn", 0, 1_700_000_000_000)
        ]


# -- offset stores --------------------------------------------------------------------------------


def _key(connector: str, n: int) -> bytes:
    return serialize_key(connector, {"filename": f"/data/{n}.txt"})


def _offset(position: int) -> bytes:
    value = serialize_offset({"position": position})
    assert value is not None
    return value


def _done(future: Future[None], what: str) -> None:
    """Wait for a ``set`` future and its callbacks; fail naming ``what``."""
    fired = threading.Event()
    errors: list[BaseException | None] = []

    def callback(f: Future[None]) -> None:
        errors.append(f.exception())
        fired.set()

    future.add_done_callback(callback)
    assert future.result(WAIT_S) is None, what
    assert fired.wait(WAIT_S), f"the done callback of {what} never fired"
    assert errors == [None], f"{what} failed: {errors}"


class OffsetStoreConformance(StoreHarness[OffsetBackingStore]):
    """Exact key/value bytes: ``set`` completes its future (callbacks fire), ``get`` reads the
    latest value, a None value is a tombstone, ``all_keys_for`` filters by connector."""

    def test_set_values_are_read_back_byte_for_byte(self) -> None:
        store = self.open_store()
        values = {_key("conn", i): _offset(i * 10) for i in range(5)}
        values[_key("conn", 8)] = b'{"position":1.0E20,"name":"\\u00e9"}'  # bytes as given
        values[_key("conn", 9)] = b"\xff\xfe not UTF-8"  # a store keeps any bytes
        _done(store.set(values), "set of 7 offsets")
        absent = _key("conn", 99)
        assert store.get([*values, absent]) == {**values, absent: None}
        assert sorted(store.all_keys()) == sorted(values)

    def test_later_values_win_and_none_is_a_tombstone(self) -> None:
        store = self.open_store()
        _done(store.set({_key("conn", 1): _offset(1), _key("conn", 2): _offset(2)}), "set")
        _done(store.set({_key("conn", 1): _offset(100)}), "overwrite")
        _done(store.set({_key("conn", 2): None}), "tombstone")
        _done(store.set({_key("conn", 3): None}), "tombstone of an absent key")
        assert store.get([_key("conn", 1), _key("conn", 2), _key("conn", 3)]) == {
            _key("conn", 1): _offset(100),
            _key("conn", 2): None,
            _key("conn", 3): None,
        }
        assert store.all_keys() == [_key("conn", 1)]

    def test_an_empty_set_completes(self) -> None:
        _done(self.open_store().set({}), "an empty set")

    def test_keys_are_found_per_connector(self) -> None:
        store = self.open_store()
        mine = [_key("conn", i) for i in range(3)]
        # a prefix of the name is another connector
        theirs = [_key("conn-2", 0), _key("co", 0)]
        _done(store.set({k: _offset(1) for k in mine + theirs}), "set")
        assert sorted(store.all_keys_for("conn")) == sorted(mine)
        assert store.all_keys_for("nobody") == []

    def test_a_read_is_the_callers_copy(self) -> None:
        store = self.open_store()
        _done(store.set({_key("conn", 1): _offset(1)}), "set")
        got = store.get([_key("conn", 1)])
        got[_key("conn", 1)] = b"changed"
        assert store.get([_key("conn", 1)]) == {_key("conn", 1): _offset(1)}


class PersistentOffsetStoreConformance(StoreHarness[OffsetBackingStore]):
    """A store started over existing storage reads back the latest value of every key; keys
    tombstoned earlier stay absent."""

    def test_a_restarted_store_reads_back_the_latest_values(self) -> None:
        first = self.open_store()
        _done(first.set({_key("conn", i): _offset(i) for i in range(4)}), "set")
        _done(first.set({_key("conn", 0): _offset(1000), _key("conn", 3): None}), "update")
        self.stop_store(first)

        second = self.open_store()
        assert sorted(second.all_keys()) == sorted(_key("conn", i) for i in range(3))
        assert second.get([_key("conn", i) for i in range(4)]) == {
            _key("conn", 0): _offset(1000),
            _key("conn", 1): _offset(1),
            _key("conn", 2): _offset(2),
            _key("conn", 3): None,
        }


def _wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {WAIT_S:.0f} s waiting for {what}")
        time.sleep(0.05)
