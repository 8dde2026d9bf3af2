"""Which topics, consumer groups and topic configs MirrorMaker 2 replicates.

``DefaultTopicFilter`` (``topics`` / ``topics.exclude``), ``DefaultGroupFilter`` (``groups`` /
``groups.exclude``) and ``DefaultConfigPropertyFilter`` (``config.properties.exclude``,
``use.defaults.from``), under their Java class names for ``topic.filter.class``,
``group.filter.class`` and ``config.property.filter.class``. Each list is a comma-separated
list of names and Java regular expressions joined into one pattern that must match the whole
name; an empty include list matches nothing. Excludes win over includes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kconnect.api import AbstractConfig, ConfigDef, ConfigException, ConfigType, Importance
from kconnect.connectors.mirror.classes import built_ins, load_class

__all__ = [
    "CONFIG_PROPERTIES_EXCLUDE_CONFIG",
    "CONFIG_PROPERTIES_EXCLUDE_DEFAULT",
    "GROUPS_EXCLUDE_CONFIG",
    "GROUPS_EXCLUDE_DEFAULT",
    "GROUPS_INCLUDE_CONFIG",
    "TOPICS_EXCLUDE_CONFIG",
    "TOPICS_EXCLUDE_DEFAULT",
    "TOPICS_INCLUDE_CONFIG",
    "ConfigPropertyFilter",
    "DefaultConfigPropertyFilter",
    "DefaultGroupFilter",
    "DefaultTopicFilter",
    "GroupFilter",
    "TopicFilter",
    "compile_pattern_list",
    "config_property_filter",
    "group_filter",
    "topic_filter",
]

TOPICS_INCLUDE_CONFIG = "topics"
TOPICS_INCLUDE_DEFAULT = ".*"
TOPICS_EXCLUDE_CONFIG = "topics.exclude"
TOPICS_EXCLUDE_DEFAULT = r"mm2.*\.internal, .*\.replica, __.*"
GROUPS_INCLUDE_CONFIG = "groups"
GROUPS_INCLUDE_DEFAULT = ".*"
GROUPS_EXCLUDE_CONFIG = "groups.exclude"
GROUPS_EXCLUDE_DEFAULT = "console-consumer-.*, connect-.*, __.*"
CONFIG_PROPERTIES_EXCLUDE_CONFIG = "config.properties.exclude"
CONFIG_PROPERTIES_EXCLUDE_DEFAULT = (
    r"follower\.replication\.throttled\.replicas, "
    r"leader\.replication\.throttled\.replicas, "
    r"message\.timestamp\.difference\.max\.ms, "
    r"message\.timestamp\.type, "
    r"unclean\.leader\.election\.enable, "
    r"min\.insync\.replicas"
)
USE_DEFAULTS_FROM_CONFIG = "use.defaults.from"

_QUOTED = re.compile(r"\\Q(.*?)(?:\\E|$)", re.S)


def _python_regex(java: str) -> str:
    """The few Java-only regex spellings Python lacks (``\\Q...\\E`` quoting)."""
    return _QUOTED.sub(lambda m: re.escape(m.group(1)), java)


def compile_pattern_list(key: str, fields: list[str]) -> re.Pattern[str] | None:
    """``MirrorUtils.compilePatternList``: the items joined with ``|``; None for no items
    (an empty list matches nothing, not everything)."""
    if not fields:
        return None
    joined = "|".join(fields)
    try:
        return re.compile(_python_regex(joined))
    except re.error as e:
        raise ConfigException(key, ",".join(fields), f"Invalid regular expression: {e}") from None


def _matches(pattern: re.Pattern[str] | None, name: str) -> bool:
    return pattern is not None and pattern.fullmatch(name) is not None


class TopicFilter:
    """Selects the topics to replicate (``topic.filter.class``)."""

    def configure(self, props: Mapping[str, object]) -> None:
        """Called once with the connector's config."""

    def should_replicate_topic(self, topic: str) -> bool:
        raise NotImplementedError


class GroupFilter:
    """Selects the consumer groups to checkpoint (``group.filter.class``)."""

    def configure(self, props: Mapping[str, object]) -> None:
        """Called once with the connector's config."""

    def should_replicate_group(self, group: str) -> bool:
        raise NotImplementedError


class ConfigPropertyFilter:
    """Selects the topic configs copied to remote topics (``config.property.filter.class``)."""

    def configure(self, props: Mapping[str, object]) -> None:
        """Called once with the connector's config."""

    def should_replicate_config_property(self, prop: str) -> bool:
        raise NotImplementedError

    def should_replicate_source_default(self, prop: str) -> bool:
        """Whether a config left at its default on the source is set on the target too."""
        return False


def _include_exclude_def(
    include: str, include_default: str, exclude: str, exclude_default: str, what: str
) -> ConfigDef:
    return (
        ConfigDef()
        .define(include, ConfigType.LIST, include_default, None, Importance.HIGH,
                f"{what} (names and regular expressions) to replicate.")
        .define(exclude, ConfigType.LIST, exclude_default, None, Importance.HIGH,
                f"{what} (names and regular expressions) not to replicate.")
    )  # fmt: skip


_TOPIC_FILTER_DEF = _include_exclude_def(
    TOPICS_INCLUDE_CONFIG, TOPICS_INCLUDE_DEFAULT, TOPICS_EXCLUDE_CONFIG, TOPICS_EXCLUDE_DEFAULT,
    "Topics",
)  # fmt: skip
_GROUP_FILTER_DEF = _include_exclude_def(
    GROUPS_INCLUDE_CONFIG, GROUPS_INCLUDE_DEFAULT, GROUPS_EXCLUDE_CONFIG, GROUPS_EXCLUDE_DEFAULT,
    "Consumer groups",
)  # fmt: skip
_PROPERTY_FILTER_DEF = (
    ConfigDef()
    .define(CONFIG_PROPERTIES_EXCLUDE_CONFIG, ConfigType.LIST, CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
            None, Importance.HIGH, "Topic configs (names and regular expressions) not to copy.")
    .define(USE_DEFAULTS_FROM_CONFIG, ConfigType.STRING, "target", None, Importance.MEDIUM,
            "Whose defaults (source or target) a remote topic gets for configs left at their "
            "default on the source.")
)  # fmt: skip


def _subset(definition: ConfigDef, props: Mapping[str, object]) -> AbstractConfig:
    keys = definition.config_keys()
    return AbstractConfig(definition, {k: v for k, v in props.items() if k in keys})


class DefaultTopicFilter(TopicFilter):
    """``topics`` (default ``.*``) minus ``topics.exclude`` (MirrorMaker's internal topics,
    ``*.replica`` and ``__*``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.DefaultTopicFilter"

    def __init__(self) -> None:
        self.configure({})

    def configure(self, props: Mapping[str, object]) -> None:
        config = _subset(_TOPIC_FILTER_DEF, props)
        self._include = compile_pattern_list(
            TOPICS_INCLUDE_CONFIG, config.get_list(TOPICS_INCLUDE_CONFIG)
        )
        self._exclude = compile_pattern_list(
            TOPICS_EXCLUDE_CONFIG, config.get_list(TOPICS_EXCLUDE_CONFIG)
        )

    def should_replicate_topic(self, topic: str) -> bool:
        return _matches(self._include, topic) and not _matches(self._exclude, topic)


class DefaultGroupFilter(GroupFilter):
    """``groups`` (default ``.*``) minus ``groups.exclude`` (console consumers, Connect's sink
    groups and ``__*``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.DefaultGroupFilter"

    def __init__(self) -> None:
        self.configure({})

    def configure(self, props: Mapping[str, object]) -> None:
        config = _subset(_GROUP_FILTER_DEF, props)
        self._include = compile_pattern_list(
            GROUPS_INCLUDE_CONFIG, config.get_list(GROUPS_INCLUDE_CONFIG)
        )
        self._exclude = compile_pattern_list(
            GROUPS_EXCLUDE_CONFIG, config.get_list(GROUPS_EXCLUDE_CONFIG)
        )

    def should_replicate_group(self, group: str) -> bool:
        return _matches(self._include, group) and not _matches(self._exclude, group)


class DefaultConfigPropertyFilter(ConfigPropertyFilter):
    """Copies every topic config but ``config.properties.exclude`` (throttles, timestamp
    settings, unclean leader election, ``min.insync.replicas``)."""

    __kconnect_class_name__ = "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter"

    def __init__(self) -> None:
        self.configure({})

    def configure(self, props: Mapping[str, object]) -> None:
        config = _subset(_PROPERTY_FILTER_DEF, props)
        self._exclude = compile_pattern_list(
            CONFIG_PROPERTIES_EXCLUDE_CONFIG, config.get_list(CONFIG_PROPERTIES_EXCLUDE_CONFIG)
        )
        self._use_defaults_from = config.get_string(USE_DEFAULTS_FROM_CONFIG)

    def should_replicate_config_property(self, prop: str) -> bool:
        return not _matches(self._exclude, prop)

    def should_replicate_source_default(self, prop: str) -> bool:
        return self._use_defaults_from == "source"


_TOPIC_FILTERS = built_ins(DefaultTopicFilter)
_GROUP_FILTERS = built_ins(DefaultGroupFilter)
_PROPERTY_FILTERS = built_ins(DefaultConfigPropertyFilter)


def topic_filter(name: str, props: Mapping[str, object]) -> TopicFilter:
    """The configured ``topic.filter.class``."""
    f = load_class("topic.filter.class", name, TopicFilter, _TOPIC_FILTERS)()
    f.configure(props)
    return f


def group_filter(name: str, props: Mapping[str, object]) -> GroupFilter:
    """The configured ``group.filter.class``."""
    f = load_class("group.filter.class", name, GroupFilter, _GROUP_FILTERS)()
    f.configure(props)
    return f


def config_property_filter(name: str, props: Mapping[str, object]) -> ConfigPropertyFilter:
    """The configured ``config.property.filter.class``."""
    f = load_class("config.property.filter.class", name, ConfigPropertyFilter, _PROPERTY_FILTERS)()
    f.configure(props)
    return f
