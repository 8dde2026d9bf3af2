"""Exactly-once pieces that need no broker: the task producer's settings, the transaction
context, the worker-config switches, the validation messages and the offset batch."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pytest

from kconnect.api import ConfigDef, SourceConnector, SourceRecord, Task
from kconnect.api.config_def import ConfigValue
from kconnect.api.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport
from kconnect.runtime.common.clock import SystemClock
from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.config.exactly_once_validation import validate_exactly_once
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.offset_store import MemoryOffsetBackingStore
from kconnect.runtime.storage.offset_writer import OffsetStorageWriter
from kconnect.runtime.worker.exactly_once_source_task import (
    WorkerTransactionContext,
    transaction_timeout_error,
)
from kconnect.runtime.worker.task_builder import TaskBuilder


def _config(**extra: str) -> DistributedConfig:
    return DistributedConfig(
        {
            "bootstrap.servers": "127.0.0.1:1",
            "group.id": "grp",
            "config.storage.topic": "c",
            "offset.storage.topic": "o",
            "status.storage.topic": "s",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            **extra,
        }
    )


def test_support_levels() -> None:
    assert not _config().exactly_once_source_enabled
    assert not _config().transactional_leader_enabled
    preparing = _config(**{"exactly.once.source.support": "preparing"})
    assert preparing.transactional_leader_enabled and not preparing.exactly_once_source_enabled
    enabled = _config(**{"exactly.once.source.support": "ENABLED"})
    assert enabled.transactional_leader_enabled and enabled.exactly_once_source_enabled
    assert enabled.task_transactional_id("conn", 3) == "grp-conn-3"
    assert enabled.transactional_producer_id() == "connect-cluster-grp"


def _builder(config: DistributedConfig) -> TaskBuilder:
    return TaskBuilder(config, Plugins([]), MemoryOffsetBackingStore(), SystemClock())


def test_exactly_once_producer_settings_are_forced(caplog: pytest.LogCaptureFixture) -> None:
    config = _config(
        **{
            "exactly.once.source.support": "enabled",
            "producer.enable.idempotence": "false",
            "producer.linger.ms": "7",
        }
    )
    task = ConnectorTaskId("conn", 0)
    with caplog.at_level(logging.WARNING):
        props = _builder(config).exactly_once_producer_props(
            task, {"producer.override.transactional.id": "mine"}
        )
    assert props["enable.idempotence"] == "true"
    assert props["transactional.id"] == "grp-conn-0"
    assert props["linger.ms"] == "7"
    assert props["acks"] == "all"
    # librdkafka wants a delivery timeout within the transaction timeout
    assert props["delivery.timeout.ms"] == 60_000
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "'enable.idempotence'" in warned and "'transactional.id'" in warned
    custom = _builder(config).exactly_once_producer_props(
        task, {"producer.override.transaction.timeout.ms": "20000"}
    )
    assert custom["delivery.timeout.ms"] == 20_000


def test_transaction_context_records_requests() -> None:
    tx = WorkerTransactionContext()
    a = SourceRecord(None, None, "t", value="a")
    b = SourceRecord(None, None, "t", value="b")
    assert not tx.has_record_requests()
    tx.commit_transaction(a)
    tx.abort_transaction(b)
    assert tx.has_record_requests()
    assert tx.should_commit_on(a) and not tx.should_commit_on(a)  # taken once
    assert not tx.should_abort_on(a) and tx.should_abort_on(b)
    assert not tx.has_record_requests()
    assert not tx.should_commit_batch()
    tx.commit_transaction()
    assert tx.should_commit_batch() and not tx.should_commit_batch()
    tx.abort_transaction()
    assert tx.should_abort_batch() and not tx.should_abort_batch()


def test_transaction_timeout_message_names_the_task() -> None:
    error = transaction_timeout_error(ConnectorTaskId("c", 2), RuntimeError("epoch"))
    assert str(error).startswith(
        "The task c-2 was unable to finish writing records to Kafka before its producer "
        "transaction expired."
    )
    assert "use the 'poll' transaction boundary" in str(error)


class _Source(SourceConnector):
    def __init__(
        self, support: ExactlyOnceSupport | None, boundaries: ConnectorTransactionBoundaries
    ) -> None:
        self.support = support
        self.boundaries = boundaries

    def start(self, props: Mapping[str, str]) -> None: ...

    def task_class(self) -> type[Task]:
        raise NotImplementedError

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None: ...

    def config(self) -> ConfigDef:
        return ConfigDef()

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        if self.support is None:
            return None  # type: ignore[return-value]
        return self.support

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        return self.boundaries


def _errors(
    connector: SourceConnector, support: str, boundary: str, enabled: bool
) -> tuple[list[str], list[str]]:
    values = {
        "exactly.once.support": ConfigValue("exactly.once.support", support),
        "transaction.boundary": ConfigValue("transaction.boundary", boundary),
    }
    validate_exactly_once(
        connector,
        {"exactly.once.support": support, "transaction.boundary": boundary},
        values,
        enabled,
    )
    return (
        values["exactly.once.support"].error_messages,
        values["transaction.boundary"].error_messages,
    )


def test_validation_messages_are_kafkas() -> None:
    supported = _Source(ExactlyOnceSupport.SUPPORTED, ConnectorTransactionBoundaries.SUPPORTED)
    assert _errors(supported, "required", "connector", True) == ([], [])
    assert _errors(supported, "required", "poll", False) == (
        ["This worker does not have exactly-once source support enabled."],
        [],
    )
    assert _errors(supported, "requested", "poll", False) == ([], [])
    unknown = _Source(None, ConnectorTransactionBoundaries.UNSUPPORTED)
    support_errors, boundary_errors = _errors(unknown, "required", "connector", True)
    assert support_errors[0].startswith(
        "The connector does not implement the API required for preflight validation of "
        "exactly-once source support."
    )
    assert boundary_errors == [
        "The connector does not support connector-defined transaction boundaries with the "
        "given configuration. Please reconfigure it to use a different transaction boundary "
        "definition."
    ]
    refused = _Source(ExactlyOnceSupport.UNSUPPORTED, ConnectorTransactionBoundaries.SUPPORTED)
    assert _errors(refused, "REQUIRED", "poll", True)[0] == [
        "The connector does not support exactly-once semantics with the provided configuration."
    ]


def test_offset_batch_keeps_the_last_offset_per_partition() -> None:
    store = MemoryOffsetBackingStore()
    writer = OffsetStorageWriter(store, "c")
    p1, p2 = {"f": "a"}, {"f": "b"}
    writer.offset_batch([(p1, {"n": 1}), (p1, {"n": 2}), (p2, {"n": 7}), ({"f": "a"}, {"n": 3})])
    assert writer.begin_flush()
    writer.do_flush().result(1)
    writer.complete_flush()
    got = {bytes(k).decode(): bytes(v).decode() for k, v in store.get(store.all_keys()).items()}
    assert got == {'["c",{"f":"a"}]': '{"n":3}', '["c",{"f":"b"}]': '{"n":7}'}
