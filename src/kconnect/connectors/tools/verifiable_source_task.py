"""``VerifiableSourceTask``: an endless, throttled sequence of numbered records, each printed.

Settings (the connector passes its config on and adds ``id``): ``name`` (the connector),
``id`` (the task number, also the source partition ``{"id": <id>}`` and the record key,
INT32), ``topic``, ``throughput`` (records per second; negative: unthrottled) and
``complete.record.data`` (``true``: the value is a Struct ``{name, task, topic, time_ms,
seqno}``; otherwise the INT64 seqno).

Each ``poll`` returns one record with offset ``{"seqno": n}`` and prints
``{"task":0,"seqno":n,"time_ms":...,"name":"...","topic":"..."}``; when the producer
acknowledged it, ``commit_record`` prints the same with ``"committed":true`` (see
:mod:`~kconnect.connectors.tools.stdout_lines`). After a restart the task resumes at the
committed seqno + 1, so a test reading the worker's standard output can tell gaps (lost
records) from duplicates (records sent twice).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from kconnect.api import RecordMetadata, Schema, SchemaBuilder, SourceRecord, SourceTask, Struct
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.numbered_tasks import ID_CONFIG
from kconnect.connectors.tools.stdout_lines import hash_map_json, println
from kconnect.connectors.tools.task_settings import (
    parse_boolean,
    parse_int,
    parse_long,
    settings_error,
)
from kconnect.connectors.tools.throughput_throttler import ThroughputThrottler

__all__ = ["COMPLETE_VALUE_SCHEMA", "VerifiableSourceTask"]

log = logging.getLogger(__name__)

NAME_CONFIG = "name"
TOPIC_CONFIG = "topic"
THROUGHPUT_CONFIG = "throughput"
COMPLETE_RECORD_DATA_CONFIG = "complete.record.data"
ID_FIELD = "id"
SEQNO_FIELD = "seqno"

COMPLETE_VALUE_SCHEMA = (
    SchemaBuilder.struct()
    .field("name", Schema.STRING_SCHEMA)
    .field("task", Schema.INT32_SCHEMA)
    .field("topic", Schema.STRING_SCHEMA)
    .field("time_ms", Schema.INT64_SCHEMA)
    .field("seqno", Schema.INT64_SCHEMA)
    .build()
)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class VerifiableSourceTask(SourceTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.VerifiableSourceTask"

    def __init__(self) -> None:
        self._name: str | None = None
        self._id = 0
        self._topic: str | None = None
        self._partition: dict[str, Any] = {}
        self._starting_seqno = 0
        self._seqno = 0
        self._throttler: ThroughputThrottler | None = None
        self._complete_record_data = False

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        try:
            self._name = props.get(NAME_CONFIG)
            self._id = parse_int(props.get(ID_CONFIG))
            self._topic = props.get(TOPIC_CONFIG)
            throughput = parse_long(props.get(THROUGHPUT_CONFIG))
        except ValueError as e:
            raise settings_error("VerifiableSourceTask", e) from None
        self._partition = {ID_FIELD: self._id}
        previous = self.context.offset_storage_reader().offset(self._partition)
        self._seqno = int(previous[SEQNO_FIELD]) + 1 if previous is not None else 0
        self._starting_seqno = self._seqno
        self._throttler = ThroughputThrottler(throughput, _now_ms())
        self._complete_record_data = parse_boolean(props.get(COMPLETE_RECORD_DATA_CONFIG))
        log.info(
            "Started VerifiableSourceTask %s-%s producing to topic %s resuming from seqno %s",
            self._name,
            self._id,
            self._topic,
            self._starting_seqno,
        )

    def poll(self) -> list[SourceRecord]:
        assert self._throttler is not None
        if self._throttler.should_throttle(self._seqno - self._starting_seqno, _now_ms()):
            self._throttler.throttle()
        data = [
            ("name", self._name),
            ("task", self._id),
            ("topic", self._topic),
            ("time_ms", _now_ms()),
            ("seqno", self._seqno),
        ]
        println(hash_map_json(data))
        value: Any = self._seqno
        value_schema = Schema.INT64_SCHEMA
        if self._complete_record_data:
            value_schema, value = COMPLETE_VALUE_SCHEMA, _complete_value(dict(data))
        record = SourceRecord(
            self._partition,
            {SEQNO_FIELD: self._seqno},
            self._topic or "",
            None,
            Schema.INT32_SCHEMA,
            self._id,
            value_schema,
            value,
        )
        self._seqno += 1
        return [record]

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        println(
            hash_map_json(
                [
                    ("name", self._name),
                    ("task", self._id),
                    ("topic", self._topic),
                    ("time_ms", _now_ms()),
                    ("seqno", record.value),
                    ("committed", True),
                ]
            )
        )

    def stop(self) -> None:
        if self._throttler is not None:
            self._throttler.wakeup()


def _complete_value(data: Mapping[str, Any]) -> Struct:
    result = Struct(COMPLETE_VALUE_SCHEMA)
    for field in ("name", "task", "topic", "time_ms", "seqno"):
        result.put(field, data[field])
    return result
