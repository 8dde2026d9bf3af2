"""A connector whose start() takes a while still gets its tasks (Kafka's herders ask for task
configs only once the connector has started)."""

import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from kconnect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask
from kconnect.runtime.config.worker_config import StandaloneConfig
from kconnect.runtime.herder.standalone_herder import StandaloneHerder
from kconnect.runtime.plugins.descriptors import PluginEntry
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.worker import worker as worker_module
from kconnect.runtime.worker.worker import Worker
from kconnect.testing.embedded_cluster import EmbeddedConnectCluster

START_DELAY_S = 1.5


class _IdleTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        self._stop = threading.Event()

    def poll(self) -> Sequence[SourceRecord] | None:
        self._stop.wait(0.2)
        return None

    def stop(self) -> None:
        self._stop.set()


class SlowStartSource(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        time.sleep(START_DELAY_S)  # e.g. connecting to a database and listing its tables

    def task_class(self) -> type[SourceTask]:
        return _IdleTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"n": str(i)} for i in range(2)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


@pytest.mark.parametrize("start_wait_s", [30.0, 0.2])
def test_slow_start_gets_its_tasks(
    kafka_bootstrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start_wait_s: float
) -> None:
    # 0.2 s: start_connector returns before start() finished; the connector then asks for
    # its task configs itself once it is running.
    monkeypatch.setattr(worker_module, "CONNECTOR_START_WAIT_S", start_wait_s)
    base = Plugins.load()
    plugins = Plugins(
        [
            PluginEntry("source", "test.SlowStartSource", SlowStartSource),
            *[
                PluginEntry(d.type, d.class_name, d.cls)
                for d in base.all_plugins()
                if d.type in ("converter", "header_converter")
            ],
        ]
    )
    config = StandaloneConfig(
        {
            "bootstrap.servers": kafka_bootstrap,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "offset.storage.file.filename": str(tmp_path / "offsets"),
            "listeners": "http://127.0.0.1:0",
        }
    )
    from kconnect.runtime.storage.offset_store import MemoryOffsetBackingStore

    worker = Worker(config.worker_id(), config, plugins, MemoryOffsetBackingStore())
    herder = StandaloneHerder(worker, plugins, worker_config=config)
    herder.start()
    try:
        herder.put_connector_config(
            "slow",
            {"name": "slow", "connector.class": "SlowStartSource", "tasks.max": "2"},
            allow_replace=False,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            status = herder.connector_status("slow")
            if len(status.tasks) == 2 and all(t.state == "RUNNING" for t in status.tasks):
                break
            time.sleep(0.1)
        assert len(herder.task_configs("slow")) == 2
        status = herder.connector_status("slow")
        assert status.connector.state == "RUNNING"
        assert [t.state for t in status.tasks] == ["RUNNING", "RUNNING"]
    finally:
        herder.stop()


@pytest.mark.parametrize("start_wait_s", [30.0, 0.2])
def test_slow_start_gets_its_tasks_in_a_distributed_cluster(
    embedded_cluster: EmbeddedConnectCluster, monkeypatch: pytest.MonkeyPatch, start_wait_s: float
) -> None:
    # The distributed herder, in process so the worker's start wait can be shortened; the
    # connector class resolves by its Python path.
    monkeypatch.setattr(worker_module, "CONNECTOR_START_WAIT_S", start_wait_s)
    embedded_cluster.configure_connector(
        "slow", {"connector.class": f"{__name__}.SlowStartSource", "tasks.max": "2"}
    )
    status = embedded_cluster.wait_for_connector_and_tasks_running("slow", tasks=2)
    assert [t["id"] for t in status["tasks"]] == [0, 1]
    tasks = embedded_cluster.request("GET", "/connectors/slow/tasks").json()
    assert [t["config"]["n"] for t in tasks] == ["0", "1"]


class BlockedStartSource(SlowStartSource):
    """A connector whose start() waits until the test lets it go."""

    release = threading.Event()

    def start(self, props: Mapping[str, str]) -> None:
        BlockedStartSource.release.wait(120)


class QuickSource(SlowStartSource):
    def start(self, props: Mapping[str, str]) -> None:
        pass


def test_a_blocked_start_delays_no_other_connector(
    embedded_cluster: EmbeddedConnectCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The distributed herder does not wait for a connector's start(): while one hangs in it
    (longer than the standalone herder's bounded wait), another connector is created, started
    and given its tasks; the hung one gets its own once its start returns."""
    monkeypatch.setattr(worker_module, "CONNECTOR_START_WAIT_S", 120.0)
    BlockedStartSource.release.clear()
    try:
        embedded_cluster.configure_connector(
            "blocked", {"connector.class": f"{__name__}.BlockedStartSource", "tasks.max": "2"}
        )
        embedded_cluster.configure_connector(
            "quick", {"connector.class": f"{__name__}.QuickSource", "tasks.max": "2"}
        )
        # well before the blocked start could end on its own (120 s)
        status = embedded_cluster.wait_for_connector_and_tasks_running(
            "quick", tasks=2, timeout_s=30
        )
        assert [t["state"] for t in status["tasks"]] == ["RUNNING", "RUNNING"]
        assert not BlockedStartSource.release.is_set()
    finally:
        BlockedStartSource.release.set()
    status = embedded_cluster.wait_for_connector_and_tasks_running("blocked", tasks=2)
    assert [t["id"] for t in status["tasks"]] == [0, 1]
