"""The connector conformance suite fails connectors that break the contract: a small correct
source and sink pass it, and each variant with one deliberate defect fails the check that
covers it (AssertionError). Nothing running is needed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from kconnect.api import (
    ConfigDef,
    ConfigType,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceTask,
)
from kconnect.api import TopicPartition as TP
from kconnect.runtime.plugins.plugins import PluginNotFoundError
from kconnect.testing.conformance.connectors import (
    SinkConnectorConformance,
    SourceOffsetsConformance,
)

#: The "external system" of the sample source: rows it has not emitted yet are read from here.
ROWS: list[str] = []

CONFIG = ConfigDef().define("greeting", ConfigType.STRING, "hi", None, Importance.LOW, "Hello.")


class SampleSourceTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        done = self.context.offset_storage_reader().offset({"rows": "all"})
        self.next = int(done["next"]) if done else 0

    def poll(self) -> Sequence[SourceRecord] | None:
        records = [
            SourceRecord({"rows": "all"}, {"next": n + 1}, "t", None, None, None, None, ROWS[n])
            for n in range(self.next, len(ROWS))
        ]
        self.next = len(ROWS)
        return records

    def stop(self) -> None:
        pass


class SampleSource(SourceConnector):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return SampleSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG


class ForgetfulTask(SampleSourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        self.next = 0  # ignores the committed offsets: emits everything again


class Forgetful(SampleSource):
    def task_class(self) -> type[SourceTask]:
        return ForgetfulTask


class TooManyTasks(SampleSource):
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props) for _ in range(max_tasks + 1)]


class PartialValidate(SampleSource):
    def config(self) -> ConfigDef:
        return ConfigDef(CONFIG).define("other", ConfigType.INT, 1, None, Importance.LOW, "More.")

    def validate(self, connector_configs: Mapping[str, str]) -> Any:
        return (
            super()
            .validate(connector_configs)
            .__class__([v for v in CONFIG.validate(connector_configs)])
        )


class NoConfig(SampleSource):
    def config(self) -> ConfigDef:
        return None  # type: ignore[return-value]


class NoVersion(SampleSource):
    def version(self) -> str:
        return None  # type: ignore[return-value]


class SampleSinkTask(SinkTask):
    def start(self, props: Mapping[str, str]) -> None:
        pass

    def put(self, records: Sequence[SinkRecord]) -> None:
        pass

    def stop(self) -> None:
        pass


class OverCommittingTask(SampleSinkTask):
    def pre_commit(self, current_offsets: Mapping[TP, int]) -> dict[TP, int]:
        return {tp: o + 1 for tp, o in current_offsets.items()}


class SampleSink(SinkConnector):
    task = SampleSinkTask

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props) for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG


class OverCommitting(SampleSink):
    task = OverCommittingTask


def _suite(base: type, name: str) -> Any:
    class Suite(base):  # type: ignore[misc, valid-type]
        connector_class = f"{__name__}.{name}"

        def connector_config(self) -> dict[str, str]:
            return {"greeting": "hello", "topics": "t"}

        def add_source_data(self, round: int) -> None:
            ROWS.extend(f"round {round} row {i}" for i in range(2))

    return Suite()


def _checks(base: type) -> list[str]:
    return sorted(n for n in dir(base) if n.startswith("test_"))


@pytest.fixture(autouse=True)
def _fresh_rows() -> None:
    ROWS.clear()


@pytest.mark.parametrize("check", _checks(SourceOffsetsConformance))
def test_a_correct_source_passes(check: str) -> None:
    getattr(_suite(SourceOffsetsConformance, "SampleSource"), check)()


@pytest.mark.parametrize("check", _checks(SinkConnectorConformance))
def test_a_correct_sink_passes(check: str) -> None:
    getattr(_suite(SinkConnectorConformance, "SampleSink"), check)()


@pytest.mark.parametrize(
    ("base", "connector", "check", "message"),
    [
        (SourceOffsetsConformance, "Forgetful", "test_a_restarted_task_resumes_from_committed_offsets", "again"),
        (SourceOffsetsConformance, "TooManyTasks", "test_lifecycle_respects_tasks_max", "tasks.max"),
        (SourceOffsetsConformance, "PartialValidate", "test_validate_answers_for_every_key_of_its_config_def", "other"),
        (SourceOffsetsConformance, "NoConfig", "test_config_is_a_config_def", "ConfigDef"),
        (SourceOffsetsConformance, "NoVersion", "test_version_is_defined", "version"),
        (SinkConnectorConformance, "OverCommitting", "test_each_task_starts_and_stops", "at most"),
    ],
)  # fmt: skip
def test_a_broken_connector_fails_its_check(
    base: type, connector: str, check: str, message: str
) -> None:
    with pytest.raises(AssertionError, match=message):
        getattr(_suite(base, connector), check)()


def test_a_source_is_not_found_as_a_sink() -> None:
    # the registry resolves a name for the suite's kind, as the worker does for connector.class
    with pytest.raises(PluginNotFoundError):
        _suite(
            SinkConnectorConformance, "SampleSource"
        ).test_it_is_a_sink_connector_with_a_sink_task()


def test_a_source_that_emits_nothing_fails_the_offsets_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kconnect.testing.conformance import connectors

    monkeypatch.setattr(connectors, "POLL_TIMEOUT_S", 0.2)
    suite = _suite(SourceOffsetsConformance, "SampleSource")
    suite.add_source_data = lambda round: None
    with pytest.raises(AssertionError, match="no record polled"):
        suite.test_a_restarted_task_resumes_from_committed_offsets()
