"""``VerifiableSinkTask``: prints a JSON line for every record it receives, and again for each
when its offsets are flushed (committed next).

Settings: ``name`` (the connector) and ``id`` (the task number, added by the connector). A
received record prints ``{"task":<record key>,"seqno":<record value>,"offset":<kafka
offset>,"time_ms":...,"name":"...","topic":"...","sinkTask":<id>}`` -- the key and value are
those a :class:`~kconnect.connectors.tools.verifiable_source_task.VerifiableSourceTask`
wrote (its task number and seqno). ``flush`` prints the records of every flushed partition
again with ``"flushed":true``, so a test can check that everything flushed before a restart
is never delivered again (no duplicates after clean bounces) and nothing is skipped.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect.api import SinkRecord, SinkTask, TopicPartition
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.numbered_tasks import ID_CONFIG
from kconnect.connectors.tools.stdout_lines import hash_map_json, println
from kconnect.connectors.tools.task_settings import parse_int, settings_error

__all__ = ["VerifiableSinkTask"]

NAME_CONFIG = "name"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class VerifiableSinkTask(SinkTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.VerifiableSinkTask"

    def __init__(self) -> None:
        self._name: str | None = None
        self._id = 0
        self._unflushed: dict[TopicPartition, list[list[tuple[str, Any]]]] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        try:
            self._name = props.get(NAME_CONFIG)
            self._id = parse_int(props.get(ID_CONFIG))
        except ValueError as e:
            # Kafka's message names the source task here too.
            raise settings_error("VerifiableSourceTask", e) from None

    def put(self, records: Sequence[SinkRecord]) -> None:
        now = _now_ms()
        for record in records:
            data = [
                ("name", self._name),
                ("task", record.key),
                ("sinkTask", self._id),
                ("topic", record.topic),
                ("time_ms", now),
                ("seqno", record.value),
                ("offset", record.kafka_offset),
            ]
            println(hash_map_json(data))
            tp = TopicPartition(record.topic, record.kafka_partition or 0)
            self._unflushed.setdefault(tp, []).append(data)

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        now = _now_ms()
        for tp in current_offsets:
            for data in self._unflushed.pop(tp, ()):
                println(hash_map_json([*data, ("time_ms", now), ("flushed", True)]))

    def stop(self) -> None:
        """Nothing to release."""
