"""Settings of ``MirrorSourceConnector`` and its tasks (Java's ``MirrorSourceConfig`` and
``MirrorSourceTaskConfig``), declared once with Java's names and defaults.

Topics matching ``topics`` but not ``topics.exclude`` (and heartbeats topics while
``heartbeats.replication.enabled``) are replicated to ``<source alias>.<topic>``-style remote
topics created with the source's partition count, ``replication.factor`` replicas and the
source's configs minus ``config.properties.exclude``. Every ``refresh.topics.interval.seconds``
new topics and partitions are picked up, every ``sync.topic.configs.interval.seconds`` configs
and every ``sync.topic.acls.interval.seconds`` ACLs are copied again. Offset syncs go to
``mm2-offset-syncs.<alias>.internal`` on the cluster ``offset-syncs.topic.location`` names,
at least every ``offset.lag.max`` records per partition.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect.api import ConfigDef, ConfigType, Importance, TopicPartition, ValidString
from kconnect.connectors.mirror.connector_config import (
    BASE_CONFIG_DEF,
    EMIT_OFFSET_SYNCS_ENABLED,
    OFFSET_SYNCS_CLIENT_ROLE_PREFIX,
    OFFSET_SYNCS_TOPIC_CONFIG_PREFIX,
    OFFSET_SYNCS_TOPIC_LOCATION,
    TASK_INDEX,
    TOPIC_FILTER_CLASS,
    TOPIC_FILTER_CLASS_DEFAULT,
    MirrorConnectorConfig,
)
from kconnect.connectors.mirror.filters import (
    CONFIG_PROPERTIES_EXCLUDE_CONFIG,
    CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
    TOPICS_EXCLUDE_CONFIG,
    TOPICS_EXCLUDE_DEFAULT,
    TOPICS_INCLUDE_CONFIG,
    TOPICS_INCLUDE_DEFAULT,
    ConfigPropertyFilter,
    TopicFilter,
    config_property_filter,
    topic_filter,
)

__all__ = [
    "CONFIG_PROPERTY_FILTER_CLASS",
    "CONSUMER_POLL_TIMEOUT_MS",
    "HEARTBEATS_REPLICATION_ENABLED",
    "OFFSET_LAG_MAX",
    "OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR",
    "REFRESH_TOPICS_ENABLED",
    "REFRESH_TOPICS_INTERVAL_SECONDS",
    "REPLICATION_FACTOR",
    "SOURCE_CONFIG_DEF",
    "SOURCE_TASK_CONFIG_DEF",
    "SYNC_TOPIC_ACLS_ENABLED",
    "SYNC_TOPIC_CONFIGS_ENABLED",
    "TASK_TOPIC_PARTITIONS",
    "MirrorSourceConfig",
    "MirrorSourceTaskConfig",
    "define_offset_syncs_location",
]

REPLICATION_FACTOR = "replication.factor"
CONFIG_PROPERTY_FILTER_CLASS = "config.property.filter.class"
CONSUMER_POLL_TIMEOUT_MS = "consumer.poll.timeout.ms"
REFRESH_TOPICS_ENABLED = "refresh.topics.enabled"
REFRESH_TOPICS_INTERVAL_SECONDS = "refresh.topics.interval.seconds"
SYNC_TOPIC_CONFIGS_ENABLED = "sync.topic.configs.enabled"
SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS = "sync.topic.configs.interval.seconds"
SYNC_TOPIC_ACLS_ENABLED = "sync.topic.acls.enabled"
SYNC_TOPIC_ACLS_INTERVAL_SECONDS = "sync.topic.acls.interval.seconds"
OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR = OFFSET_SYNCS_TOPIC_CONFIG_PREFIX + "replication.factor"
OFFSET_LAG_MAX = "offset.lag.max"
HEARTBEATS_REPLICATION_ENABLED = "heartbeats.replication.enabled"
TASK_TOPIC_PARTITIONS = "task.assigned.partitions"

OFFSET_SYNCS_SOURCE_PRODUCER_ROLE = OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "source-producer"
OFFSET_SYNCS_TARGET_PRODUCER_ROLE = OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "target-producer"


def define_offset_syncs_location(definition: ConfigDef) -> ConfigDef:
    return definition.define(
        OFFSET_SYNCS_TOPIC_LOCATION, ConfigType.STRING, "source",
        ValidString.in_("source", "target"), Importance.LOW,
        "The cluster (source or target) holding the offset-syncs topic.",
    )  # fmt: skip


def _interval(key: str, doc: str) -> tuple[str, ConfigType, object, None, Importance, str]:
    return (key, ConfigType.LONG, 600, None, Importance.LOW, doc)


SOURCE_CONFIG_DEF = define_offset_syncs_location(
    ConfigDef(BASE_CONFIG_DEF)
    .define(TOPICS_INCLUDE_CONFIG, ConfigType.LIST, TOPICS_INCLUDE_DEFAULT, None, Importance.HIGH,
            "Topics to replicate: names and regular expressions, comma-separated.")
    .define(TOPICS_EXCLUDE_CONFIG, ConfigType.LIST, TOPICS_EXCLUDE_DEFAULT, None,
            Importance.HIGH, "Topics not to replicate (wins over topics).")
    .define(CONFIG_PROPERTIES_EXCLUDE_CONFIG, ConfigType.LIST, CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
            None, Importance.HIGH, "Topic configs not to copy to remote topics.")
    .define(TOPIC_FILTER_CLASS, ConfigType.CLASS, TOPIC_FILTER_CLASS_DEFAULT, None,
            Importance.LOW, "Selects the topics to replicate.")
    .define(CONFIG_PROPERTY_FILTER_CLASS, ConfigType.CLASS,
            "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter", None, Importance.LOW,
            "Selects the topic configs to copy.")
    .define(CONSUMER_POLL_TIMEOUT_MS, ConfigType.LONG, 1000, None, Importance.LOW,
            "How long one poll of the source cluster waits for records.")
    .define(REFRESH_TOPICS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Whether to look for new topics and partitions periodically.")
    .define(*_interval(REFRESH_TOPICS_INTERVAL_SECONDS, "How often to look for new topics."))
    .define(SYNC_TOPIC_CONFIGS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Whether to copy topic configs to remote topics periodically.")
    .define(*_interval(SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS, "How often to copy topic configs."))
    .define(SYNC_TOPIC_ACLS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
            "Whether to copy topic ACLs to remote topics periodically.")
    .define(*_interval(SYNC_TOPIC_ACLS_INTERVAL_SECONDS, "How often to copy topic ACLs."))
    .define(REPLICATION_FACTOR, ConfigType.INT, 2, None, Importance.LOW,
            "Replication factor of the remote topics created.")
    .define(OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR, ConfigType.SHORT, 3, None, Importance.LOW,
            "Replication factor of the offset-syncs topic.")
    .define(OFFSET_LAG_MAX, ConfigType.LONG, 100, None, Importance.LOW,
            "How far a remote partition may get ahead of the last offset sync before another "
            "is written.")
)  # fmt: skip
SOURCE_CONFIG_DEF.define(
    EMIT_OFFSET_SYNCS_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
    "Whether to write offset syncs (the checkpoint connector needs them to translate group "
    "offsets).",
).define(
    HEARTBEATS_REPLICATION_ENABLED, ConfigType.BOOLEAN, True, None, Importance.LOW,
    "Whether heartbeats topics are replicated even when topics does not match them.",
)  # fmt: skip

SOURCE_TASK_CONFIG_DEF = (
    ConfigDef(SOURCE_CONFIG_DEF)
    .define(TASK_TOPIC_PARTITIONS, ConfigType.LIST, None, None, Importance.LOW,
            "Topic-partitions assigned to this task.")
    .define(TASK_INDEX, ConfigType.INT, None, None, Importance.LOW, "The index of the task.")
)  # fmt: skip


def encode_topic_partition(tp: TopicPartition) -> str:
    return f"{tp.topic}-{tp.partition}"


def decode_topic_partition(text: str) -> TopicPartition:
    topic, _, partition = text.rpartition("-")
    return TopicPartition(topic, int(partition))


class MirrorSourceConfig(MirrorConnectorConfig):
    """The connector's parsed config."""

    def __init__(self, props: Mapping[str, str], definition: ConfigDef = SOURCE_CONFIG_DEF) -> None:
        super().__init__(definition, props)

    def task_config(self, partitions: list[TopicPartition], index: int) -> dict[str, str]:
        props = dict(self.originals_strings())
        props[TASK_TOPIC_PARTITIONS] = ",".join(encode_topic_partition(tp) for tp in partitions)
        props[TASK_INDEX] = str(index)
        return props

    def topic_filter(self) -> TopicFilter:
        return topic_filter(self.topic_filter_class(), self.originals())

    def config_property_filter(self) -> ConfigPropertyFilter:
        return config_property_filter(
            self._class_name(CONFIG_PROPERTY_FILTER_CLASS), self.originals()
        )

    def _interval_s(self, enabled: str, interval: str) -> float | None:
        """Seconds between runs, None when disabled (Java: a negative interval)."""
        return float(self.get_long(interval)) if self.get_boolean(enabled) else None

    @property
    def refresh_topics_interval_s(self) -> float | None:
        return self._interval_s(REFRESH_TOPICS_ENABLED, REFRESH_TOPICS_INTERVAL_SECONDS)

    @property
    def sync_topic_configs_interval_s(self) -> float | None:
        return self._interval_s(SYNC_TOPIC_CONFIGS_ENABLED, SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS)

    @property
    def sync_topic_acls_interval_s(self) -> float | None:
        return self._interval_s(SYNC_TOPIC_ACLS_ENABLED, SYNC_TOPIC_ACLS_INTERVAL_SECONDS)

    @property
    def replication_factor(self) -> int:
        return self.get_int(REPLICATION_FACTOR)

    @property
    def offset_syncs_topic_replication_factor(self) -> int:
        return self.get_short(OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR)

    @property
    def max_offset_lag(self) -> int:
        return self.get_long(OFFSET_LAG_MAX)

    @property
    def consumer_poll_timeout_s(self) -> float:
        return self.get_long(CONSUMER_POLL_TIMEOUT_MS) / 1000.0

    @property
    def emit_offset_syncs(self) -> bool:
        return self.get_boolean(EMIT_OFFSET_SYNCS_ENABLED)

    @property
    def heartbeats_replication(self) -> bool:
        return self.get_boolean(HEARTBEATS_REPLICATION_ENABLED)

    def offset_syncs_producer_config(self) -> dict[str, Any]:
        if self.offset_syncs_on_source:
            return self.source_producer_config(OFFSET_SYNCS_SOURCE_PRODUCER_ROLE)
        return self.target_producer_config(OFFSET_SYNCS_TARGET_PRODUCER_ROLE)


class MirrorSourceTaskConfig(MirrorSourceConfig):
    """A task's parsed config: the connector's plus its partitions and index."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(props, SOURCE_TASK_CONFIG_DEF)

    def task_topic_partitions(self) -> list[TopicPartition]:
        items = self.get_list(TASK_TOPIC_PARTITIONS) or []
        return list(dict.fromkeys(decode_topic_partition(x) for x in items if x))

    def entity_label(self) -> str:
        index = self.get(TASK_INDEX)
        return super().entity_label() + "-" + ("?" if index is None else str(index))
