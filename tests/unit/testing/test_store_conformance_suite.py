"""The store conformance suite fails stores that break the contract: each check below runs
against a store with one deliberate defect and must raise AssertionError. (The real stores
pass it in tests/unit/runtime/storage/test_store_conformance.py and the Kafka integration
test.) Nothing running is needed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

import pytest

from kconnect.runtime.common.states import ConnectorStatus, TaskStatus
from kconnect.runtime.storage.config_store import ClusterConfigState, MemoryConfigBackingStore
from kconnect.runtime.storage.offset_store import MemoryOffsetBackingStore
from kconnect.runtime.storage.status_store import MemoryStatusBackingStore
from kconnect.testing.conformance import stores
from kconnect.testing.conformance.stores import (
    ConfigListenerConformance,
    ConfigStoreConformance,
    OffsetStoreConformance,
    PersistentOffsetStoreConformance,
    StatusStoreConformance,
)


class KeepsTasksOfRemovedConnectors(MemoryConfigBackingStore):
    def remove_connector_config(self, connector: str) -> None:
        tasks = self._tasks.get(connector)
        super().remove_connector_config(connector)
        if tasks is not None:
            self._tasks[connector] = tasks


class LiveSnapshots(MemoryConfigBackingStore):
    def snapshot(self) -> ClusterConfigState:
        return ClusterConfigState(self._configs, self._tasks, self._targets, self._applied)


class UnsafePutSafe(MemoryStatusBackingStore):
    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        self.put(status)


class IgnoresTombstones(MemoryOffsetBackingStore):
    def set(self, values: Mapping[bytes, bytes | None]) -> Future[None]:
        return super().set({k: v for k, v in values.items() if v is not None})


class SilentListener(MemoryConfigBackingStore):
    def set_update_listener(self, listener: Any) -> None:
        self.listener = listener  # never told anything


def _run(suite: type, make_store: Callable[[], Any], check: str) -> None:
    instance = suite()
    instance.make_store = make_store
    try:
        getattr(instance, check)()
    finally:
        instance.close_stores()


@pytest.mark.parametrize(
    ("suite", "store", "check"),
    [
        (
            ConfigStoreConformance,
            KeepsTasksOfRemovedConnectors,
            "test_removing_a_connector_removes_its_config_target_state_and_tasks",
        ),
        (
            ConfigStoreConformance,
            LiveSnapshots,
            "test_a_snapshot_is_an_immutable_view_of_its_moment",
        ),
        (
            StatusStoreConformance,
            UnsafePutSafe,
            "test_put_safe_does_not_overwrite_a_newer_generation_of_another_worker",
        ),
        (
            OffsetStoreConformance,
            IgnoresTombstones,
            "test_later_values_win_and_none_is_a_tombstone",
        ),
        # a store that forgets everything when restarted
        (
            PersistentOffsetStoreConformance,
            MemoryOffsetBackingStore,
            "test_a_restarted_store_reads_back_the_latest_values",
        ),
    ],
)
def test_a_broken_store_fails_the_check(suite: type, store: type, check: str) -> None:
    with pytest.raises(AssertionError):
        _run(suite, store, check)


def test_a_listener_that_hears_nothing_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stores, "WAIT_S", 0.2)
    shared = SilentListener()  # one storage for the writer and the reader
    with pytest.raises(AssertionError, match="the listener's callbacks"):
        _run(
            ConfigListenerConformance,
            lambda: shared,
            "test_the_listener_hears_writes_of_another_store",
        )


def test_a_suite_without_make_store_says_what_is_missing() -> None:
    with pytest.raises(NotImplementedError, match="make_store"):
        ConfigStoreConformance().open_store()
