"""TopicNameMatches: true when the whole topic name matches ``pattern`` (a Java regex)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from kconnect.api import ConfigDef, ConfigException, Importance, NonEmptyString, Predicate
from kconnect.api import ConfigType as CT
from kconnect.api.config_def import CompositeValidator
from kconnect.api.records import ConnectRecord
from kconnect.transforms._util.java_regex import compile_java_regex
from kconnect.transforms._util.validators import RegexValidator

__all__ = ["TopicNameMatches"]


class TopicNameMatches(Predicate[ConnectRecord]):
    """The pattern is compiled once in ``configure``; ``test`` runs on the task thread."""

    __kconnect_class_name__ = "org.apache.kafka.connect.transforms.predicates.TopicNameMatches"
    CONFIG_DEF = ConfigDef().define(
        "pattern",
        CT.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        CompositeValidator.of(NonEmptyString(), RegexValidator()),
        Importance.MEDIUM,
        "A Java regular expression for matching against the name of a record's topic.",
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        # a STRING key with no default and a NonEmptyString validator: parse gives a str
        value: str = cast(str, self.CONFIG_DEF.parse(configs)["pattern"])
        try:
            self._pattern = compile_java_regex(value)
        except re.error as e:
            raise ConfigException(
                "pattern", value, f"entry must be a Java-compatible regular expression: {e}"
            ) from e

    def test(self, record: ConnectRecord) -> bool:
        topic = record.topic
        return topic is not None and self._pattern.fullmatch(topic) is not None

    def _matches(self, topic: str) -> bool:
        return self._pattern.fullmatch(topic) is not None

    def native_predicate(self) -> tuple[str, dict[str, Any]]:
        """This predicate for a ``kconnect_native.Step``: whether a topic matches (asked once
        per distinct topic)."""
        return "topic_name_matches", {"matches": self._matches}

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def __repr__(self) -> str:
        p = getattr(self, "_pattern", None)
        return f"TopicNameMatches{{pattern={p.pattern if p else None}}}"
