"""Worker settings accepted but not applied are named in a WARNING at start when set."""

from __future__ import annotations

import logging

import pytest

from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.unapplied_settings import UNAPPLIED_WORKER_SETTINGS
from kconnect.runtime.config.worker_config import WorkerConfig

BASE = {
    "bootstrap.servers": "127.0.0.1:1",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}
DISTRIBUTED = {
    **BASE,
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
}
LOGGER = "kconnect.runtime.config.unapplied_settings"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("metric.reporters", "com.example.MyReporter", "GET /metrics"),
        ("metrics.recording.level", "DEBUG", "no DEBUG-only sensors"),
        ("socket.connection.setup.timeout.max.ms", "60000", "socket.connection.setup.timeout.ms"),
        ("consumer.metrics.recording.level", "DEBUG", "no DEBUG-only sensors"),
    ],
)
def test_a_set_setting_is_named_with_its_reason(
    caplog: pytest.LogCaptureFixture, key: str, value: str, words: str
) -> None:
    with caplog.at_level(logging.WARNING, LOGGER):
        DistributedConfig({**DISTRIBUTED, key: value})
    [message] = _warnings(caplog)
    assert message.startswith(f"The configuration '{key}' is accepted but not applied: ")
    assert words in message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter"),
        ("metrics.recording.level", "INFO"),
        ("socket.connection.setup.timeout.max.ms", "30000"),
    ],
)
def test_a_setting_at_its_default_is_not_warned_about(
    caplog: pytest.LogCaptureFixture, key: str, value: str
) -> None:
    with caplog.at_level(logging.WARNING, LOGGER):
        DistributedConfig({**DISTRIBUTED, key: value})
    assert _warnings(caplog) == []


def test_an_unset_setting_is_not_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, LOGGER):
        DistributedConfig(DISTRIBUTED)
        WorkerConfig(BASE)
    assert _warnings(caplog) == []


def test_every_listed_setting_warns(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, LOGGER):
        DistributedConfig({**DISTRIBUTED, **{k: "99" for k in UNAPPLIED_WORKER_SETTINGS
                                             if k.endswith(".ms")},
                           "metric.reporters": "x.Y", "metrics.recording.level": "DEBUG"})  # fmt: skip
    assert len(_warnings(caplog)) == len(UNAPPLIED_WORKER_SETTINGS)


@pytest.mark.parametrize("mode", ["only_scan", "ONLY_SCAN"])
def test_plugin_discovery_only_scan_says_entry_points_are_used(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    with caplog.at_level(logging.WARNING, LOGGER):
        WorkerConfig({**BASE, "plugin.discovery": mode})
    [message] = _warnings(caplog)
    assert "entry points" in message and mode in message


@pytest.mark.parametrize("mode", ["service_load", "hybrid_warn", "hybrid_fail"])
def test_other_plugin_discovery_modes_are_silent(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    with caplog.at_level(logging.WARNING, LOGGER):
        WorkerConfig({**BASE, "plugin.discovery": mode})
    assert _warnings(caplog) == []
