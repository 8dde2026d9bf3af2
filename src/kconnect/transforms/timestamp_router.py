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
from kconnect.transforms._util.java_date_format import JavaDateFormat, _tokenize

__all__ = ["TimestampRouter"]

_DAY_MS = 86_400_000
# How long the text of each pattern letter stays the same, in UTC (letters not listed -- date,
# era and zone letters -- change at most once a day, at midnight UTC).
_LETTER_PERIOD_MS = {
    "S": 1,
    "s": 1000,
    "m": 60_000,
    "H": 3_600_000,
    "k": 3_600_000,
    "K": 3_600_000,
    "h": 3_600_000,
    "a": 3_600_000,
}
_DAILY = set("GyYMLdDEuFzZX")


def _period_ms(pattern: str) -> int:
    """The period (from the epoch) over which ``pattern`` formats every timestamp alike: the
    native router asks for the text once per period."""
    period = _DAY_MS
    for tok in _tokenize(pattern):
        if isinstance(tok, tuple):
            letter = tok[0]
            if letter in _LETTER_PERIOD_MS:
                period = min(period, _LETTER_PERIOD_MS[letter])
            elif letter not in _DAILY:
                period = 1  # (a letter this table does not know: ask for every timestamp)
    return period


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

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the topic format, the text of a
        timestamp and the period over which that text stays the same."""
        return "timestamp_router", {
            "topic_format": self._topic_format,
            "format": self._format.format,
            "period_ms": _period_ms(self._format.pattern),
        }

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
