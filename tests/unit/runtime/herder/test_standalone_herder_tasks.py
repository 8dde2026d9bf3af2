"""StandaloneHerder's task reconfiguration when the store snapshot lacks a target state."""

from __future__ import annotations

import logging

import pytest

from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.storage.config_store import ClusterConfigState, MemoryConfigBackingStore


class _NoTargetStates(MemoryConfigBackingStore):
    """A caller-supplied store whose snapshots carry configs but no target states."""

    def snapshot(self) -> ClusterConfigState:
        full = super().snapshot()
        return ClusterConfigState(
            full.connector_configs, full.task_configs, {}, full.applied_connector_configs
        )


class _Worker:
    def __init__(self) -> None:
        self.task_config_calls: list[str] = []

    def is_running(self, name: str) -> bool:
        return True

    def connector_task_configs(self, name: str, config: object) -> list[dict[str, str]]:
        self.task_config_calls.append(name)
        return [{}]


def test_missing_target_state_skips_the_task_update_instead_of_crashing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = _NoTargetStates()
    store.put_connector_config("c", {"connector.class": "X"}, None)
    worker = _Worker()
    herder = StandaloneHerder(worker, None, config_store=store)
    with caplog.at_level(logging.INFO, logger="kconnect.runtime.herder.standalone_herder"):
        herder._update_connector_tasks("c")
    assert worker.task_config_calls == []
    assert store.snapshot().tasks("c") == []
    assert "since its target state is unknown" in caplog.text
