"""What every source or sink connector plugin must do, as pytest test classes a connector's
author runs against their own connector.

Subclass the mixin for the connector's kind in a test module, under a name pytest collects;
name the connector as a connector config would (its class name from the entry point, an alias
or a Python path: it is resolved through the plugin registry, as a worker resolves
``connector.class``) and give a valid config::

    from kconnect.testing.conformance.connectors import SourceConnectorConformance

    class TestMySource(SourceConnectorConformance):
        connector_class = "com.example.MySourceConnector"
        def connector_config(self): return {"topic": "t", "url": "http://localhost:9999"}

==============================================  =================================================
mixin                                           checks
==============================================  =================================================
:class:`SourceConnectorConformance`             it resolves to a ``SourceConnector`` whose
                                                ``task_class()`` is a ``SourceTask``; plus the
                                                common checks below
:class:`SinkConnectorConformance`               it resolves to a ``SinkConnector`` whose task is
                                                a ``SinkTask``; a task opens partitions, takes an
                                                empty ``put``, commits no offset it was not given,
                                                closes and stops; plus the common checks
:class:`SourceOffsetsConformance`               (with ``add_source_data``) a restarted task reads
                                                its committed offsets back and does not emit the
                                                committed records again
==============================================  =================================================

Common checks: ``version()`` is a string on a fresh instance and the registry reports a version
(``version()`` or the distribution's); ``config()`` is a ``ConfigDef``; ``validate`` returns a
value for every key of that ConfigDef, without errors for ``connector_config()`` and without
raising for an empty config; the lifecycle ``initialize`` / ``start`` / ``task_configs`` /
``stop`` works and ``task_configs(n)`` returns between 1 and ``n`` string maps for every
``tasks.max`` ``n`` tried; each task starts and stops with its config; the connector reported no
error through its context.

Hooks: ``connector_config()`` (required; a config the connector starts with and that yields at
least one task); ``plugin_path`` (directories searched like the worker's ``plugin.path``);
``add_source_data(round)`` for :class:`SourceOffsetsConformance` (make data the task will read,
new data each round). The tasks run with :mod:`kconnect.testing.fakes` contexts over the
runtime's real offset reader and writer (exact offsets-topic serialization, in memory). Importing
this module needs no pytest.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect.api import (
    Config,
    ConfigDef,
    Connector,
    SinkConnector,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceTask,
    TopicPartition,
)
from kconnect.api.task import partition_key
from kconnect.runtime.plugins.descriptors import PluginDesc
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_reader import OffsetStorageReaderImpl
from kconnect.runtime.storage.offset_store import MemoryOffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.testing.fakes import FakeConnectorContext, FakeSinkTaskContext, FakeSourceTaskContext

__all__ = [
    "ConnectorConformance",
    "SinkConnectorConformance",
    "SourceConnectorConformance",
    "SourceOffsetsConformance",
]

#: The ``tasks.max`` values the lifecycle check starts the connector with.
TASKS_MAX_TRIED = (1, 2, 5)
#: How long the offsets check polls a task for records.
POLL_TIMEOUT_S = 30.0

_REGISTRIES: dict[tuple[str, ...], Plugins] = {}


def _registry(plugin_path: tuple[str, ...]) -> Plugins:
    # Loading scans every entry point (and plugin.path): once per process and path.
    if plugin_path not in _REGISTRIES:
        _REGISTRIES[plugin_path] = Plugins.load(list(plugin_path))
    return _REGISTRIES[plugin_path]


class ConnectorConformance:
    """The checks every connector passes; use :class:`SourceConnectorConformance` or
    :class:`SinkConnectorConformance`, which add the kind's own."""

    #: How a connector config names the connector (``connector.class``).
    connector_class: ClassVar[str]
    #: Directories searched for plugins, as the worker's ``plugin.path``.
    plugin_path: ClassVar[tuple[str, ...]] = ()
    #: The plugin kind the subclass checks: ``source`` or ``sink``.
    kind: ClassVar[str] = "connector"

    def connector_config(self) -> dict[str, str]:
        """A config the connector starts with and that yields at least one task."""
        raise NotImplementedError(f"{type(self).__name__} must implement connector_config()")

    # -- helpers --------------------------------------------------------------------------------

    def plugin(self) -> PluginDesc:
        """The registry's entry for :attr:`connector_class`."""
        return _registry(tuple(self.plugin_path)).resolve(self.kind, self.connector_class)

    def new_connector(self) -> Connector:
        """A fresh, uninitialized instance, made as the worker makes one."""
        connector = self.plugin().cls()
        assert isinstance(connector, Connector), f"{self.connector_class} is not a Connector"
        return connector

    def config_with(self, **overrides: str) -> dict[str, str]:
        """:meth:`connector_config` with a name and ``overrides`` (e.g. ``tasks.max``)."""
        return {"name": "conformance", **self.connector_config(), **overrides}

    def new_task_context(self, task_config: Mapping[str, str]) -> Any:
        raise NotImplementedError  # the kind's mixin provides it

    # -- checks ---------------------------------------------------------------------------------

    def test_version_is_defined(self) -> None:
        version = self.new_connector().version()
        assert isinstance(version, str) and version, f"version() returned {version!r}"
        assert self.new_connector().version() == version, "version() differs between instances"
        reported = self.plugin().version
        assert reported != "undefined", (
            "GET /connector-plugins would show no version: define version() or install the "
            "connector as a distribution with a version"
        )

    def test_config_is_a_config_def(self) -> None:
        config = self.new_connector().config()
        assert isinstance(config, ConfigDef), f"config() returned {config!r}, not a ConfigDef"

    def test_validate_answers_for_every_key_of_its_config_def(self) -> None:
        connector = self.new_connector()
        keys = set(connector.config().names())
        result = connector.validate(self.config_with())
        assert isinstance(result, Config), f"validate() returned {result!r}, not a Config"
        values = {v.name: v for v in result.config_values()}
        missing = keys - set(values)
        assert not missing, f"validate() left out keys of config(): {sorted(missing)}"
        errors = {n: v.errors for n, v in values.items() if v.errors}
        assert not errors, f"connector_config() should validate cleanly: {errors}"

    def test_validate_reports_problems_instead_of_raising(self) -> None:
        connector = self.new_connector()
        result = connector.validate({})
        names = {v.name for v in result.config_values()}
        assert set(connector.config().names()) <= names

    def test_lifecycle_respects_tasks_max(self) -> None:
        for tasks_max in TASKS_MAX_TRIED:
            connector = self.new_connector()
            context = FakeConnectorContext()
            connector.initialize(context)
            connector.start(self.config_with(**{"tasks.max": str(tasks_max)}))
            try:
                configs = connector.task_configs(tasks_max)
            finally:
                connector.stop()
            assert isinstance(configs, list), f"task_configs({tasks_max}) returned {configs!r}"
            assert 1 <= len(configs) <= tasks_max, (
                f"task_configs({tasks_max}) returned {len(configs)} configs; tasks.max="
                f"{tasks_max} allows 1 to {tasks_max} (and connector_config() must yield a task)"
            )
            for config in configs:
                assert all(isinstance(k, str) and isinstance(v, str) for k, v in config.items()), (
                    f"task configs must map strings to strings: {config!r}"
                )
            assert context.errors == [], f"the connector raised errors: {context.errors}"

    def test_each_task_starts_and_stops(self) -> None:
        connector = self.new_connector()
        connector.initialize(FakeConnectorContext())
        connector.start(self.config_with(**{"tasks.max": "2"}))
        try:
            configs = connector.task_configs(2)
            task_class = connector.task_class()
        finally:
            connector.stop()
        for config in configs:
            task = task_class()
            assert isinstance(task, (SourceTask, SinkTask)), f"{task_class!r} makes no task"
            assert isinstance(task.version(), str), f"the task's version() is {task.version()!r}"
            task.initialize(self.new_task_context(config))
            task.start(config)
            try:
                self.exercise_task(task)
            finally:
                task.stop()

    def exercise_task(self, task: Any) -> None:
        """What the kind's check does with a started task before stopping it."""


class SourceConnectorConformance(ConnectorConformance):
    """A source connector's checks (see the module docstring)."""

    kind: ClassVar[str] = "source"

    def new_task_context(self, task_config: Mapping[str, str]) -> FakeSourceTaskContext:
        store = MemoryOffsetBackingStore()
        return FakeSourceTaskContext(task_config, OffsetStorageReaderImpl(store, "conformance"))

    def test_it_is_a_source_connector_with_a_source_task(self) -> None:
        connector = self.new_connector()
        assert isinstance(connector, SourceConnector), f"{type(connector)} is no SourceConnector"
        task_class = connector.task_class()
        assert isinstance(task_class, type) and issubclass(task_class, SourceTask), (
            f"task_class() returned {task_class!r}, not a SourceTask subclass"
        )


class SinkConnectorConformance(ConnectorConformance):
    """A sink connector's checks (see the module docstring)."""

    kind: ClassVar[str] = "sink"
    #: The partition the sink task check assigns (its topic comes from ``topics`` if set).
    partition: ClassVar[int] = 0

    def new_task_context(self, task_config: Mapping[str, str]) -> FakeSinkTaskContext:
        return FakeSinkTaskContext(configs=task_config, assignment=[self._partition(task_config)])

    def _partition(self, task_config: Mapping[str, str]) -> TopicPartition:
        topic = (task_config.get("topics") or "conformance").split(",")[0].strip()
        return TopicPartition(topic, self.partition)

    def test_it_is_a_sink_connector_with_a_sink_task(self) -> None:
        connector = self.new_connector()
        assert isinstance(connector, SinkConnector), f"{type(connector)} is no SinkConnector"
        task_class = connector.task_class()
        assert isinstance(task_class, type) and issubclass(task_class, SinkTask), (
            f"task_class() returned {task_class!r}, not a SinkTask subclass"
        )

    def exercise_task(self, task: SinkTask) -> None:
        # what the worker does: open the assignment, deliver batches, commit, close
        tp = next(iter(task.context.assignment()))
        task.open([tp])
        task.put([])
        committed = task.pre_commit({tp: 42})
        assert isinstance(committed, Mapping), f"pre_commit returned {committed!r}"
        assert set(committed) <= {tp}, f"pre_commit names partitions it was not given: {committed}"
        assert all(0 <= o <= 42 for o in committed.values()), (
            f"pre_commit may commit at most the offsets it was given (42): {committed}"
        )
        task.close([tp])


class SourceOffsetsConformance(SourceConnectorConformance):
    """A restarted source task resumes from the offsets committed for its records.

    Round 0: ``add_source_data(0)``, a task polls records, the runtime's writer commits their
    offsets (offsets-topic serialization), the task and connector stop. Round 1:
    ``add_source_data(1)``, a new connector and task over the same offsets poll again. Every
    committed offset must read back equal through the task's offset reader, round 1 must emit
    records, and none with a committed (partition, offset).
    """

    def add_source_data(self, round: int) -> None:
        """Make data the task will read in ``round`` (0, then 1), different each round."""
        raise NotImplementedError(f"{type(self).__name__} must implement add_source_data()")

    def test_a_restarted_task_resumes_from_committed_offsets(self) -> None:
        store = MemoryOffsetBackingStore()
        self.add_source_data(0)
        first = self._poll_round(store)
        assert first, f"no record polled within {POLL_TIMEOUT_S:.0f} s of add_source_data(0)"
        for r in first:
            assert r.source_partition is not None and r.source_offset is not None, (
                f"a source record needs a source partition and offset to resume from: {r!r}"
            )
        latest = {partition_key(r.source_partition or {}): r for r in first}
        reader = OffsetStorageReaderImpl(store, "conformance")
        for r in latest.values():
            assert reader.offset(r.source_partition or {}) == r.source_offset, (
                f"offset of {r.source_partition} did not read back as committed"
            )

        self.add_source_data(1)
        second = self._poll_round(store)
        assert second, f"no record polled within {POLL_TIMEOUT_S:.0f} s of add_source_data(1)"
        committed = {_position(r) for r in first}
        again = [r for r in second if _position(r) in committed]
        assert not again, f"the restarted task emitted committed records again: {again[:3]}"

    def _poll_round(self, store: MemoryOffsetBackingStore) -> list[SourceRecord]:
        """Start a connector and one task over ``store``, poll until records arrive, commit
        them as the worker does, stop."""
        name = "conformance"
        connector = self.new_connector()
        connector.initialize(FakeConnectorContext(OffsetStorageReaderImpl(store, name)))
        connector.start(self.config_with(**{"tasks.max": "1"}))
        try:
            config = connector.task_configs(1)[0]
            task = connector.task_class()()
            assert isinstance(task, SourceTask)
            task.initialize(FakeSourceTaskContext(config, OffsetStorageReaderImpl(store, name)))
            task.start(config)
            try:
                records = _poll_until_records(task)
                writer = OffsetStorageWriter(store, name)
                for r in records:
                    writer.offset(r.source_partition, r.source_offset)
                    task.commit_record(r, None)
                if writer.begin_flush():
                    writer.do_flush().result(POLL_TIMEOUT_S)
                    writer.complete_flush()
                task.commit()
            finally:
                task.stop()
        finally:
            connector.stop()
        return records


def _poll_until_records(task: SourceTask) -> list[SourceRecord]:
    deadline = time.monotonic() + POLL_TIMEOUT_S
    while time.monotonic() < deadline:
        batch = task.poll()
        if batch:
            return list(batch)
    return []


def _position(record: SourceRecord) -> tuple[Any, Any]:
    offset = record.source_offset or {}
    return partition_key(record.source_partition or {}), tuple(sorted(offset.items()))
