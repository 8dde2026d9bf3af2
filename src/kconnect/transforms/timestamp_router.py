"""TimestampRouter: rename the topic from the original topic and the record timestamp.

``topic.format`` holds ``${topic}`` and ``${timestamp}``; ``timestamp.format`` is a Java
SimpleDateFormat pattern applied in UTC. A record without a timestamp is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConfigException, DataException, Importance
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import SmtBase
from kconnect.transforms._util.java_date_format import JavaDateFormat

__all__ = ["TimestampRouter"]


class TimestampRouter(SmtBase):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.TimestampRouter"

    CONFIG_DEF = (
        ConfigDef()
        .define(
            "topic.format",
            CT.STRING,
            "${topic}-${timestamp}",
            None,
            Importance.HIGH,
            "Format string which can contain <code>${topic}</code> and "
            "<code>${timestamp}</code> as placeholders for the topic and timestamp, "
            "respectively.",
        )
        .define(
            "timestamp.format",
            CT.STRING,
            "yyyyMMdd",
            None,
            Importance.HIGH,
            "Format string for the timestamp that is compatible with "
            "<code>java.text.SimpleDateFormat</code>.",
        )
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._topic_format: str = parsed["topic.format"]
        try:
            self._format = JavaDateFormat(parsed["timestamp.format"])
        except ValueError as e:
            raise ConfigException("timestamp.format", parsed["timestamp.format"], str(e)) from e

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        ts = record.timestamp
        if ts is None:
            raise DataException(f"{self._who}: Timestamp missing on record: {record!r}")
        topic = self._topic_format.replace("${topic}", record.topic).replace(
            "${timestamp}", self._format.format(ts)
        )
        return record.new_record(
            topic,
            record.kafka_partition,
            record.key_schema,
            record.key,
            record.value_schema,
            record.value,
            ts,
        )
