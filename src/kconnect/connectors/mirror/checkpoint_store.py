"""The checkpoints already written, per consumer group (Java's ``CheckpointStore``).

A checkpoint task reads the checkpoints topic once when it starts (only its own groups) and
keeps the latest checkpoint per group and partition in memory from then on. They stop it from
writing a checkpoint that moves a group backwards downstream, and they are what
``sync.group.offsets.enabled`` commits on the target. When the topic cannot be read the store
starts empty and the offset-sync store must then read the whole offset-syncs topic.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from kconnect.api import TopicPartition
from kconnect.api.kafka_clients import Consumer, KafkaClientException, OffsetAndMetadata
from kconnect.connectors.mirror.formats import Checkpoint, FormatError
from kconnect.connectors.mirror.offset_sync_store import end_offset

__all__ = ["CheckpointStore"]

log = logging.getLogger(__name__)


class CheckpointStore:
    """See the module docstring. ``consumer_factory`` builds the target consumer when
    :meth:`start` reads the topic; it is closed right after."""

    def __init__(
        self,
        consumer_factory: Callable[[], Consumer] | None,
        topic: str,
        groups: Iterable[str],
        timeout_s: float = 60.0,
    ) -> None:
        self._factory = consumer_factory
        self.topic = topic
        self._groups = frozenset(groups)
        self._timeout_s = timeout_s
        self._checkpoints: dict[str, dict[TopicPartition, Checkpoint]] = {}
        self.initialized = False
        self.load_success = False

    def start(self) -> bool:
        """Read the checkpoints topic to its end; True if that worked."""
        try:
            self._checkpoints = self._read()
            self.load_success = True
        except (KafkaClientException, OSError) as e:
            self._checkpoints = {}
            self.load_success = False
            log.info("Exception encountered loading checkpoints topic %s - this may degrade "
                     "offset translation as only checkpoints for offsets which were mirrored "
                     "after the task started will be emitted: %s", self.topic, e)  # fmt: skip
        self.initialized = True
        log.debug("CheckpointStore started, load success=%s, map.size=%d",
                  self.load_success, len(self._checkpoints))  # fmt: skip
        return self.load_success

    def _read(self) -> dict[str, dict[TopicPartition, Checkpoint]]:
        found: dict[str, dict[TopicPartition, Checkpoint]] = {}
        if self._factory is None:
            return found
        consumer = self._factory()
        try:
            tp = TopicPartition(self.topic, 0)
            deadline = time.monotonic() + self._timeout_s
            end = end_offset(consumer, tp, deadline, threading.Event())
            if end <= 0:
                return found
            consumer.assign({tp: 0})
            while (consumer.position([tp]).get(tp) or 0) < end:
                if time.monotonic() > deadline:
                    raise KafkaClientException(
                        f"Timed out reading checkpoints topic {self.topic}", "TIMED_OUT", True
                    )
                for record in consumer.poll(10_000, 1.0):
                    try:
                        cp = Checkpoint.from_record(record.key(), record.value())
                    except FormatError as e:
                        log.warning("Ignored invalid checkpoint record at offset %s: %s",
                                    record.offset(), e)  # fmt: skip
                        continue
                    if cp.consumer_group_id in self._groups:
                        found.setdefault(cp.consumer_group_id, {})[cp.topic_partition] = cp
        finally:
            consumer.close()
        return found

    def update(self, group: str, checkpoints: Mapping[TopicPartition, Checkpoint]) -> None:
        self._checkpoints.setdefault(group, {}).update(checkpoints)

    def get(self, group: str) -> Mapping[TopicPartition, Checkpoint] | None:
        return self._checkpoints.get(group)

    def converted_upstream_offsets(self) -> dict[str, dict[TopicPartition, OffsetAndMetadata]]:
        """Per group, the downstream offset (and metadata) of its latest checkpoints."""
        return {
            group: {
                cp.topic_partition: OffsetAndMetadata(cp.downstream_offset, cp.metadata)
                for cp in cps.values()
            }
            for group, cps in self._checkpoints.items()
        }
