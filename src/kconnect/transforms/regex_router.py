"""RegexRouter: rename the topic when the whole topic name matches ``regex``.

``regex`` is a Java regular expression and ``replacement`` uses Java's ``$1`` / ``${name}``
group references; both are translated once at configure time. As in Kafka the regex must
match the whole topic (``Matcher.matches``), then the first match is replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConfigException, Importance
from kconnect.api import ConfigType as CT
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.base import SmtBase
from kconnect.transforms._util.java_regex import compile_java_regex, java_replacement
from kconnect.transforms._util.validators import RegexValidator

__all__ = ["RegexRouter"]


class RegexRouter(SmtBase):
    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.RegexRouter"

    CONFIG_DEF = (
        ConfigDef()
        .define(
            "regex",
            CT.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            RegexValidator(),
            Importance.HIGH,
            "Regular expression to use for matching.",
        )
        .define(
            "replacement",
            CT.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            None,
            Importance.HIGH,
            "Replacement string.",
        )
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self._parse(configs)
        self._regex = compile_java_regex(parsed["regex"])
        try:
            self._expand = java_replacement(parsed["replacement"], self._regex)
        except (ValueError, IndexError) as e:
            raise ConfigException("replacement", parsed["replacement"], str(e)) from e

    def _route(self, topic: str) -> str | None:
        """The topic ``topic`` becomes, or None when the regex does not match it whole."""
        if self._regex.fullmatch(topic) is None:
            return None
        return self._regex.sub(self._expand, topic, count=1)

    def native_step(self) -> tuple[str, dict[str, Any]]:
        """This transformation as a ``kconnect_native.Step``: the new topic of a topic (asked
        once per distinct topic)."""
        return "regex_router", {"route": self._route}

    def apply(self, record: ConnectRecord) -> ConnectRecord:
        new_topic = self._route(record.topic)
        if new_topic is None:
            return record
        return record.new_record(
            new_topic,
            record.kafka_partition,
            record.key_schema,
            record.key,
            record.value_schema,
            record.value,
            record.timestamp,
        )
