"""StandaloneHerder's task reconfiguration when the store snapshot lacks a target state."""

from __future__ import annotations

import logging

import pytest

from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.storage.config_store import ClusterConfigState, MemoryConfigBackingStore
from kconnect.testing.fakes import FakeWorker


class _NoTargetStates(MemoryConfigBackingStore):
    """A caller-supplied store whose snapshots carry configs but no target states."""

    def snapshot(self) -> ClusterConfigState:
        full = super().snapshot()
        return ClusterConfigState(
            full.connector_configs, full.task_configs, {}, full.applied_connector_configs
        )


def test_missing_target_state_skips_the_task_update_instead_of_crashing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = _NoTargetStates()
    store.put_connector_config("c", {"connector.class": "X"}, None)
    worker = FakeWorker()
    herder = StandaloneHerder(worker, None, config_store=store)
    with caplog.at_level(logging.INFO, logger="kconnect.runtime.herder.standalone_herder"):
        herder._update_connector_tasks("c")
    assert worker.task_config_calls == []
    assert store.snapshot().tasks("c") == []
    assert "since its target state is unknown" in caplog.text
