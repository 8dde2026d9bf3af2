"""Exactly-once source tasks (KIP-618) against the real broker, in the test process.

- :func:`exactly_once_worker` -- an in-process worker with a distributed config and
  ``exactly.once.source.support=enabled``, on a group and internal topics of its own;
- :func:`start_exactly_once_task` -- one task of a connector started on it, exactly once (the
  herder's preflight, which is not under test, passes: :data:`PASSING_PREFLIGHT`);
- :func:`committed_records` / :func:`last_offset` -- what a ``read_committed``
  consumer sees of a topic, and the last offset the offsets topic holds for a partition.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import orjson
from confluent_kafka import Consumer, Message, TopicPartition

from kconnect.runtime.common.ids import ConnectorTaskId
from kconnect.runtime.common.states import TargetState
from kconnect.runtime.config.distributed_config import DistributedConfig
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.storage.kafka_offset_store import KafkaOffsetBackingStore
from kconnect.runtime.worker.exactly_once_source_task import ExactlyOncePreflight
from kconnect.runtime.worker.worker import Worker
from kconnect.testing.fakes import RecordingStatusListener
from kconnect.testing.java_worker import STRING_CONVERTER, distributed_props

__all__ = [
    "PASSING_PREFLIGHT",
    "committed_records",
    "exactly_once_worker",
    "last_offset",
    "start_exactly_once_task",
]

#: The herder's checks around an exactly-once task's start, passing.
PASSING_PREFLIGHT = ExactlyOncePreflight(lambda: None, lambda: None)


@contextmanager
def exactly_once_worker(
    bootstrap: str,
    plugins: Plugins,
    *,
    name: str,
    group_prefix: str,
    settings: Mapping[str, str] | None = None,
) -> Iterator[tuple[Worker, str]]:
    """(the started worker, its group id): a worker named ``name`` with ``plugins``, in the
    group ``<group_prefix>-<8 hex digits>`` with its own internal topics (the offsets topic of
    one partition), exactly-once source support enabled, string converters and offsets flushed
    every 200 ms; ``settings`` win. Stopped at the end of the block."""
    group = f"{group_prefix}-{uuid.uuid4().hex[:8]}"
    config = DistributedConfig(
        distributed_props(
            bootstrap,
            group,
            {
                "offset.storage.partitions": "1",
                "exactly.once.source.support": "enabled",
                "key.converter": STRING_CONVERTER,
                "value.converter": STRING_CONVERTER,
                "offset.flush.interval.ms": "200",
                **(settings or {}),
            },
        )
    )
    worker = Worker(name, config, plugins, KafkaOffsetBackingStore(config))
    worker.start()
    try:
        yield worker, group
    finally:
        worker.stop()


def start_exactly_once_task(
    worker: Worker, connector_class: str, name: str, props: Mapping[str, str]
) -> RecordingStatusListener:
    """Task 0 of connector ``name`` (``connector_class`` with ``props``) started on ``worker``
    exactly once; the listener its status goes to."""
    listener = RecordingStatusListener()
    full = {"connector.class": connector_class, "name": name, **props}
    assert worker.start_task(ConnectorTaskId(name, 0), full, full, listener,
                             TargetState.STARTED, PASSING_PREFLIGHT)  # fmt: skip
    return listener


def committed_records(bootstrap: str, topic: str, idle_s: float = 3.0) -> list[Message]:
    """Every record of partition 0 of ``topic`` a ``read_committed`` consumer sees, read until
    nothing new came for ``idle_s`` seconds."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"r-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
        }
    )
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        out: list[Message] = []
        empty = 0.0
        while empty < idle_s:
            msgs = [m for m in c.consume(1000, 0.5) if m.error() is None]
            empty = 0.0 if msgs else empty + 0.5
            out.extend(msgs)
        return out
    finally:
        c.close()


def last_offset(
    bootstrap: str, offsets_topic: str, connector: str, partition: Mapping[str, Any]
) -> Any:
    """The last offset of ``connector``'s source ``partition`` in ``offsets_topic`` (None when
    there is none)."""
    found = None
    for m in committed_records(bootstrap, offsets_topic, idle_s=2.0):
        key = orjson.loads(m.key() or b"null")
        if key == [connector, dict(partition)] and m.value() is not None:
            found = orjson.loads(m.value() or b"null")
    return found
