"""``SchemaSourceTask``: ``num.messages`` Struct records with a fixed content, throttled.

Settings (the connector adds ``id``): ``name``, ``id`` (also the record's Kafka partition
and the source partition ``{"id": <id>}``), ``topic``, ``num.messages``, ``throughput``,
``multiple.schema`` (``true``: every other record uses a version-2 schema with an extra
``string`` field) and ``partition.count`` (default 1; the ``partitioning`` field is
``seqno % partition.count``). The key is the STRING ``"key"``; the offset ``{"seqno": n}``;
after a restart the task resumes at the committed seqno + 1 and sends ``num.messages`` more.
Each record prints ``{"task": <id>, "seqno": <n>}`` on standard output, as Kafka's does.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from kconnect.api import Schema, SchemaBuilder, SourceRecord, SourceTask, Struct
from kconnect.api.data.java_numbers import to_float32
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.numbered_tasks import ID_CONFIG
from kconnect.connectors.tools.stdout_lines import println
from kconnect.connectors.tools.task_settings import (
    parse_boolean,
    parse_int,
    parse_long,
    settings_error,
)
from kconnect.connectors.tools.throughput_throttler import ThroughputThrottler

__all__ = ["VALUE_SCHEMA", "VALUE_SCHEMA_2", "SchemaSourceTask"]

log = logging.getLogger(__name__)

NAME_CONFIG = "name"
TOPIC_CONFIG = "topic"
NUM_MSGS_CONFIG = "num.messages"
THROUGHPUT_CONFIG = "throughput"
MULTIPLE_SCHEMA_CONFIG = "multiple.schema"
PARTITION_COUNT_CONFIG = "partition.count"
ID_FIELD = "id"
SEQNO_FIELD = "seqno"


def _schema(version: int, with_string: bool) -> Schema:
    b = (
        SchemaBuilder.struct()
        .version(version)
        .name("record")
        .field("boolean", Schema.BOOLEAN_SCHEMA)
        .field("int", Schema.INT32_SCHEMA)
        .field("long", Schema.INT64_SCHEMA)
        .field("float", Schema.FLOAT32_SCHEMA)
        .field("double", Schema.FLOAT64_SCHEMA)
        .field("partitioning", Schema.INT32_SCHEMA)
    )
    if with_string:
        b = b.field("string", SchemaBuilder.string().default_value("abc").build())
    return b.field("id", Schema.INT32_SCHEMA).field("seqno", Schema.INT64_SCHEMA).build()


VALUE_SCHEMA = _schema(1, with_string=False)
VALUE_SCHEMA_2 = _schema(2, with_string=True)
_FLOAT_12_2 = to_float32(12.2)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class SchemaSourceTask(SourceTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.SchemaSourceTask"

    def __init__(self) -> None:
        self._id = 0
        self._topic = ""
        self._partition: dict[str, Any] = {}
        self._starting_seqno = 0
        self._seqno = 0
        self._count = 0
        self._max_messages = 0
        self._multiple_schema = False
        self._partition_count = 1
        self._throttler: ThroughputThrottler | None = None

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        name = props.get(NAME_CONFIG)
        try:
            self._id = parse_int(props.get(ID_CONFIG))
            self._topic = props.get(TOPIC_CONFIG) or ""
            self._max_messages = parse_long(props.get(NUM_MSGS_CONFIG))
            self._multiple_schema = parse_boolean(props.get(MULTIPLE_SCHEMA_CONFIG))
            self._partition_count = parse_int(props.get(PARTITION_COUNT_CONFIG, "1"))
            throughput = parse_long(props.get(THROUGHPUT_CONFIG))
        except ValueError as e:
            raise settings_error("SchemaSourceTask", e) from None
        self._throttler = ThroughputThrottler(throughput, _now_ms())
        self._partition = {ID_FIELD: self._id}
        previous = self.context.offset_storage_reader().offset(self._partition)
        self._seqno = int(previous[SEQNO_FIELD]) + 1 if previous is not None else 0
        self._starting_seqno = self._seqno
        self._count = 0
        log.info(
            "Started SchemaSourceTask %s-%s producing to topic %s resuming from seqno %s",
            name,
            self._id,
            self._topic,
            self._starting_seqno,
        )

    def poll(self) -> list[SourceRecord]:
        assert self._throttler is not None
        if self._count >= self._max_messages:
            self._throttler.throttle()
            return []
        if self._throttler.should_throttle(self._seqno - self._starting_seqno, _now_ms()):
            self._throttler.throttle()
        second = self._multiple_schema and self._count % 2 != 0
        schema = VALUE_SCHEMA_2 if second else VALUE_SCHEMA
        data = (
            Struct(schema)
            .put("boolean", True)
            .put("int", 12)
            .put("long", 12)
            .put("float", _FLOAT_12_2)
            .put("double", 12.2)
            .put("partitioning", self._seqno % self._partition_count)
        )
        if second:
            data.put("string", "def")
        data.put("id", self._id).put("seqno", self._seqno)
        record = SourceRecord(
            self._partition,
            {SEQNO_FIELD: self._seqno},
            self._topic,
            self._id,
            Schema.STRING_SCHEMA,
            "key",
            schema,
            data,
        )
        println(f'{{"task": {self._id}, "seqno": {self._seqno}}}')
        self._seqno += 1
        self._count += 1
        return [record]

    def stop(self) -> None:
        if self._throttler is not None:
            self._throttler.wakeup()
